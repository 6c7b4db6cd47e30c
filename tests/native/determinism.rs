//! Determinism (same seed, snapshot + replay, golden traces), the swarm, scenario validation.

use super::*;

#[test]
fn determinism_same_seed_twice_gives_the_same_trace_hash() {
    for seed in [1, 2, 3] {
        let sc = swarm::random_scenario(seed);
        let a = raftlock::run_scenario(&sc, false).unwrap();
        let b = raftlock::run_scenario(&sc, false).unwrap();
        assert_eq!(a.trace.hash(), b.trace.hash());
        assert!(a.trace.count() > 100);
        // Keeping the lines (the page, --trace) or not (benchmarks, the hunt) hashes alike.
        let kept = raftlock::run_scenario(&sc, true).unwrap();
        assert_eq!(
            (kept.trace.hash(), kept.trace.count()),
            (a.trace.hash(), a.trace.count()),
            "seed {seed}"
        );
    }
}

#[test]
fn determinism_a_snapshot_plus_replay_reproduces_the_run_exactly() {
    let sc = swarm::random_scenario(42);
    let mut w = World::new(&sc, true).unwrap();
    w.run_until(9_000_000);
    let snapshot = w.clone();
    w.run_until(sc.until_ms * 1000);
    let mut replay = snapshot;
    replay.run_until(sc.until_ms * 1000);
    assert_eq!(w.trace.hash(), replay.trace.hash());
    assert_eq!(w.trace.to_jsonl(), replay.trace.to_jsonl());
}

/// The example scenario's trace hash, shared with the browser test (tests/web.rs).
#[test]
fn determinism_example_scenario_matches_the_golden_trace_hash() {
    let w = raftlock::run_scenario(&example(), true).unwrap();
    let golden = include_str!("../golden/gc-pause.hash").trim();
    assert_eq!(
        w.trace.hash_hex(),
        golden,
        "if the change is intended, update tests/golden/gc-pause.hash and the browser test follows"
    );
    let jsonl = w.trace.to_jsonl();
    assert_eq!(
        jsonl,
        include_str!("../golden/gc-pause.jsonl"),
        "golden trace tests/golden/gc-pause.jsonl"
    );
}

#[test]
fn swarm_random_faults_with_lock_traffic_check_every_invariant_after_every_event() {
    let n: u64 = std::env::var("RAFTLOCK_SWARM_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(500);
    let mut failures = Vec::new();
    let mut events = 0;
    for seed in 1..=n {
        let o = swarm::run_one(seed);
        events += o.events;
        if !o.ok() {
            failures.push(format!(
                "seed {seed}: {:?} {:?}\n  replay: cargo run --release -- swarm --seeds 1 --from {seed}",
                o.violations.first(),
                o.convergence
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} seeds failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(events > n * 1000, "the runs did work: {events} events");
}

#[test]
fn invalid_scenario_is_refused_with_the_field_at_fault() {
    let cases = [
        (json!({"version": 2, "seed": 1, "nodes": 3}), "version"),
        (json!({"version": 1, "seed": 1, "nodes": 9}), "nodes"),
        (
            json!({"version": 1, "seed": 1, "nodes": 3, "clients": [{"name": "A", "script": [{"acquire": {"key": "k", "lease_ms": 0}}]}]}),
            "clients[0].script[0].acquire.lease_ms",
        ),
        (
            json!({"version": 1, "seed": 1, "nodes": 3, "timeline": [{"at_ms": 5, "do": "crash", "node": 4}]}),
            "timeline[0].node",
        ),
        (
            json!({"version": 1, "seed": 1, "nodes": 3, "timeline": [{"at_ms": 5, "do": "client_pause", "client": "Z"}]}),
            "timeline[0].client",
        ),
        (
            json!({"version": 1, "seed": 1, "nodes": 3, "clocks": [{"node": 1, "rate_ppm": 5}]}),
            "clocks[0].rate_ppm",
        ),
        (
            json!({"version": 1, "seed": 1, "nodes": 3, "timeline": [{"at_ms": 5, "do": "cut", "from": "n2", "to": "n2"}]}),
            "timeline[0].to",
        ),
        (
            json!({"version": 1, "seed": 1, "nodes": 3, "timeline": [{"at_ms": 5, "do": "heal", "from": "n02", "to": "n2"}]}),
            "timeline[0].to",
        ),
    ];
    for (doc, field) in cases {
        let e = Scenario::from_json(&doc.to_string()).unwrap_err();
        assert_eq!(e.field, field, "{e}");
    }
    assert!(Scenario::from_json("{not json")
        .unwrap_err()
        .message
        .en
        .contains("not a JSON scenario"));
    assert!(
        Scenario::from_json(r#"{"version":1,"seed":1,"nodes":3,"bogus":1}"#)
            .unwrap_err()
            .message
            .en
            .contains("bogus")
    );
}

/// The checks run incrementally (only what an event changed); from scratch, at every event they
/// read the whole state. On the hunt's schedules with each design switch on, and on every
/// built-in, both find the same violations at the same moments, and the traces are equal.
#[test]
fn incremental_checks_find_what_checks_from_scratch_find() {
    use raftlock::scenario::{builtin, hunt, switch::Switch};
    let run = |sc: &Scenario, incremental: bool| {
        let mut w = World::new(sc, true).unwrap();
        w.checker_mut().incremental = incremental;
        w.run_until(sc.until_ms * 1000);
        let found: Vec<_> = w.violations().to_vec();
        (found, w.trace.hash_hex())
    };
    let mut scenarios: Vec<Scenario> = builtin::names().map(|n| builtin::get(n).unwrap()).collect();
    for s in Switch::ALL {
        for seed in 1..=6 {
            scenarios.push(hunt::hunt_scenario(seed, &[s.name()]).unwrap());
        }
    }
    let mut broken = 0;
    for sc in &scenarios {
        let (fast, full) = (run(sc, true), run(sc, false));
        assert_eq!(fast, full, "{}", sc.name);
        broken += !fast.0.is_empty() as usize;
    }
    assert!(broken > 20, "only {broken} runs broke an invariant");
}
