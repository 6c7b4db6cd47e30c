//! Log compaction (§7): InstallSnapshot, restarts from a snapshot, the snapshot swarm.

use super::*;

fn compacting(timeline: serde_json::Value) -> World {
    world(
        json!({"version": 1, "seed": 3, "nodes": 3, "until_ms": 60000, "raft": {"snapshot_every": 8},
        "clients": [{"name": "A", "repeat": true, "start_ms": 400, "script": [{"acquire": {"key": "k", "lease_ms": 1500}}, {"work": {"key": "k", "ms": 200}}, {"release": {"key": "k"}}]},
                    {"name": "B", "start_ms": 300, "script": [{"acquire": {"key": "held", "lease_ms": 60000}}, {"work": {"key": "held", "ms": 50000}}]}],
        "timeline": timeline}),
    )
}

fn restores(w: &World) -> Vec<(u64, usize, u64, &'static str)> {
    events(w)
        .into_iter()
        .filter_map(|(t, e)| match e {
            Event::SnapshotRestored {
                node,
                index,
                source,
                ..
            } => Some((t, node, index, source)),
            _ => None,
        })
        .collect()
}

/// A node back from a long crash, whose missing entries the others have compacted away, gets
/// the leader's snapshot (InstallSnapshot): the lock table with its sessions and token high-water
/// mark. Leases of held locks are counted on its own clock from then, at full length.
#[test]
fn log_compaction_a_node_back_from_a_long_crash_installs_the_leaders_snapshot() {
    let mut w = compacting(
        json!([{"at_ms": 1000, "do": "crash", "node": 3}, {"at_ms": 6000, "do": "restart", "node": 3}]),
    );
    ms(&mut w, 9000);
    no_violations(&w);
    let snaps = events(&w)
        .iter()
        .filter(|(_, e)| matches!(e, Event::Snapshot { .. }))
        .count();
    assert!(snaps >= 6, "the nodes snapshotted every 8 entries: {snaps}");
    let r = restores(&w);
    assert_eq!(r.len(), 1, "{r:?}");
    let (t, node, index, source) = r[0];
    assert_eq!((node, source), (3, "leader"));
    assert!(t >= 6_000_000 && index > 8);
    let [n1, n3] = [0, 2].map(|i| w.nodes[i].server().unwrap());
    assert!(
        n3.raft.log().start() > 0,
        "n3's log starts after the snapshot"
    );
    assert_eq!(
        n3.machine.digest(),
        n1.machine.digest(),
        "the same lock table"
    );
    assert_eq!(
        n3.machine.max_token, n1.machine.max_token,
        "tokens go on from the same high-water mark"
    );
    let local_at_restore = w.nodes[2].clock.local_at(t);
    let held = &n3.leases["held"];
    assert_eq!(
        held.deadline_local_us - local_at_restore,
        60_000_000,
        "a full lease from the restore, on n3's clock"
    );
    w.run_until(20_000_000);
    no_violations(&w);
    // The clients go on taking k: let them stop, then every node has applied every entry.
    w.act(&Action::Calm);
    w.run_until(21_000_000);
    swarm::check_converged(&w).unwrap();
}

/// A node that crashes after taking a snapshot restarts from it (its lock table, not an empty
/// one replaying the whole log) and then applies the entries after it.
/// A follower cut off for a while gets the leader's snapshot, but it was already counting the
/// lease of a lock in it: that countdown keeps running (restarting it would move the deadline
/// later, and if this node then led, its Expire would come up to a lease late).
#[test]
fn log_compaction_installing_a_snapshot_keeps_a_countdown_already_running() {
    let mut w = compacting(
        json!([{"at_ms": 1000, "do": "isolate", "node": 3}, {"at_ms": 6000, "do": "heal_all"}]),
    );
    ms(&mut w, 999);
    let before = w.nodes[2].server().unwrap().leases["held"].clone();
    ms(&mut w, 9000);
    no_violations(&w);
    let r = restores(&w);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!((r[0].1, r[0].3), (3, "leader"));
    let n3 = w.nodes[2].server().unwrap();
    assert_eq!(
        n3.leases["held"], before,
        "the same token's countdown, unchanged by the snapshot"
    );
}

#[test]
fn log_compaction_a_restarted_node_resumes_from_its_own_snapshot() {
    let mut w = compacting(
        json!([{"at_ms": 5000, "do": "crash", "node": 2}, {"at_ms": 5300, "do": "restart", "node": 2}]),
    );
    ms(&mut w, 4990);
    let before = w.nodes[1].server().unwrap().raft.snapshot_index();
    assert!(before > 0);
    ms(&mut w, 10_000);
    no_violations(&w);
    let r = restores(&w);
    assert_eq!(
        r.iter().map(|x| (x.1, x.2, x.3)).collect::<Vec<_>>(),
        vec![(2, before, "disk")]
    );
    w.act(&Action::Calm);
    ms(&mut w, 11_000);
    swarm::check_converged(&w).unwrap();
}

/// Swarm runs with a snapshot every few entries: crashes, partitions and drops now meet
/// compacted logs and InstallSnapshot, and every invariant is checked after every event.
#[test]
fn swarm_with_frequent_snapshots_checks_every_invariant_after_every_event() {
    let n: u64 = std::env::var("RAFTLOCK_SWARM_SEEDS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .map_or(200, |s| s / 2);
    let (mut failures, mut installs) = (Vec::new(), 0);
    for seed in 1..=n {
        let mut sc = swarm::random_scenario(seed);
        sc.raft.snapshot_every = 4 + seed % 13;
        let o = swarm::run_with(seed, sc);
        installs += o.snapshot_installs;
        if !o.ok() {
            failures.push(format!(
                "seed {seed} (snapshot_every {}): {:?} {:?}",
                4 + seed % 13,
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
    assert!(
        installs > n / 4,
        "followers installed leaders' snapshots: {installs} times in {n} runs"
    );
}
