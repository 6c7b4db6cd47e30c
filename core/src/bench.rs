//! The benchmark workload: 5 nodes, 10 clients with lock traffic, default heartbeats.

use crate::client::{ClientConfig, Step};
use crate::scenario::{Scenario, FORMAT_VERSION};
use crate::sim::World;

pub fn bench_scenario(until_ms: u64) -> Scenario {
    let clients = (0..10)
        .map(|i| ClientConfig {
            name: format!("c{i}"),
            script: vec![
                Step::Acquire {
                    key: format!("k{}", i % 4),
                    lease_ms: 1000,
                },
                Step::Work {
                    key: format!("k{}", i % 4),
                    ms: 100,
                },
                Step::Release {
                    key: format!("k{}", i % 4),
                },
                Step::Sleep { ms: 200 },
            ],
            repeat: true,
            start_ms: 500 + 37 * i as u64,
            margin_ms: 100,
            timeout_ms: 500,
            retry_ms: 200,
            rate_ppm: 1_000_000,
        })
        .collect();
    Scenario {
        version: FORMAT_VERSION,
        name: "bench".into(),
        description: String::new(),
        seed: 1,
        nodes: 5,
        raft: Default::default(),
        network: Default::default(),
        switches: Default::default(),
        clocks: Vec::new(),
        clients,
        timeline: Vec::new(),
        until_ms,
        lesson: None,
    }
}

/// Run without per-event invariant checks and without keeping trace lines (the hash is kept).
pub fn run_bench(sc: &Scenario) -> World {
    let mut w = World::new(sc, false).expect("bench scenario is valid");
    w.check_every_event = false;
    w.run_until(sc.until_ms * 1000);
    w
}
