//! The benchmark workloads: 5 nodes, clients taking turns on 4 keys with 1 s leases, default
//! heartbeats. The simulator's speed is measured with 10 clients; the checks' with 16.

use crate::client::{ClientConfig, Step};
use crate::scenario::{Scenario, FORMAT_VERSION};
use crate::sim::World;

pub fn bench_scenario(until_ms: u64) -> Scenario {
    workload(10, until_ms)
}

/// The history-check workload: 16 clients on 4 keys (four contend for each key).
pub fn history_scenario(until_ms: u64) -> Scenario {
    workload(16, until_ms)
}

fn workload(n_clients: usize, until_ms: u64) -> Scenario {
    let clients = (0..n_clients)
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
        description: Default::default(),
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

/// Run as users do: every invariant checked after every event, the clients' history recorded
/// (no trace lines kept).
pub fn run_checked(sc: &Scenario) -> World {
    let mut w = World::new(sc, false).expect("bench scenario is valid");
    w.record_history = true;
    w.run_until(sc.until_ms * 1000);
    w
}

/// Run without per-event invariant checks and without keeping trace lines (the hash is kept).
pub fn run_bench(sc: &Scenario) -> World {
    let mut w = World::new(sc, false).expect("bench scenario is valid");
    w.check_every_event = false;
    w.run_until(sc.until_ms * 1000);
    w
}
