//! Native integration tests: the seed's sentences on the whole simulated system, scenario
//! scripts, determinism, and the swarm. One test binary, one module per theme; the helpers
//! below serve them all.

mod builtins;
mod caps;
mod compaction;
mod determinism;
mod history;
mod membership;
mod playground;
mod scripts;
mod seed;
mod trace_check;
mod wide;

use raftlock::lock::{ApplyResult, LockOp};
use raftlock::playground::Playground;
use raftlock::raft::Role;
use raftlock::scenario::{swarm, Action, Scenario};
use raftlock::sim::World;
use raftlock::trace::Event;
use serde_json::json;

fn scenario(v: serde_json::Value) -> Scenario {
    Scenario::from_json(&v.to_string()).unwrap_or_else(|e| panic!("{e}"))
}

fn world(v: serde_json::Value) -> World {
    let mut w = World::new(&scenario(v), true).unwrap();
    w.check_every_event = true;
    w
}

/// `got` must equal `tests/golden/FILE`; with `RAFTLOCK_BLESS=1` the file is rewritten first,
/// when a change of the trace is intended.
fn golden(file: &str, got: &str) {
    let path = format!("{}/tests/golden/{file}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var("RAFTLOCK_BLESS").is_ok() {
        std::fs::write(&path, got).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(
        got, want,
        "RAFTLOCK_BLESS=1 rewrites tests/golden/{file} if the change is intended"
    );
}

fn ms(w: &mut World, t_ms: u64) {
    w.run_until(t_ms * 1000);
}

fn no_violations(w: &World) {
    assert!(
        w.violations().is_empty(),
        "violations: {:?}",
        w.violations()
    );
}

/// Exactly these invariants (and no other) were violated.
fn violated_only(w: &World, names: &[&str]) {
    let got: std::collections::BTreeSet<&str> = w
        .violations()
        .iter()
        .map(|(_, v)| v.invariant.name())
        .collect();
    assert_eq!(
        got,
        names.iter().copied().collect(),
        "violations: {:?}",
        w.violations()
    );
}

fn events(w: &World) -> Vec<(u64, Event)> {
    w.trace
        .lines
        .iter()
        .map(|l| (l.t_us, l.ev.clone()))
        .collect()
}

fn leader(w: &World) -> usize {
    w.leader().expect("a leader")
}

fn example() -> Scenario {
    Scenario::from_json(raftlock::scenario::EXAMPLE_JSON).unwrap()
}

/// A client that takes k and then holds it for a long time.
fn holder(lease_ms: u64, work_ms: u64, start_ms: u64) -> serde_json::Value {
    json!({"name": "A", "start_ms": start_ms, "script": [
        {"acquire": {"key": "k", "lease_ms": lease_ms}}, {"work": {"key": "k", "ms": work_ms}}]})
}

/// The memory benchmark's scenario: 5 nodes, clients A and B taking turns on one key, forever.
fn two_clients_on_one_key(until_ms: u64) -> Scenario {
    scenario(
        json!({"version": 1, "seed": 1, "nodes": 5, "until_ms": until_ms,
        "clients": [{"name": "A", "repeat": true, "start_ms": 400, "script": [{"acquire": {"key": "k", "lease_ms": 1500}}, {"work": {"key": "k", "ms": 600}}, {"release": {"key": "k"}}, {"sleep": {"ms": 700}}]},
            {"name": "B", "repeat": true, "start_ms": 900, "script": [{"acquire": {"key": "k", "lease_ms": 1500}}, {"work": {"key": "k", "ms": 400}}, {"release": {"key": "k"}}, {"sleep": {"ms": 900}}]}]}),
    )
}
