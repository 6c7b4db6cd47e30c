//! Random fault schedules with lock traffic, for the swarm test and `raftlock swarm`.
//!
//! A schedule: 3–5 nodes, 2–4 clients looping acquire/work/release on two keys, random loss,
//! duplication and latency, and 4–24 faults (crashes, restarts, pauses, partitions, one-way cuts,
//! drift, clock jumps, client pauses, crashes and disconnects) during the first `faults_ms`; then
//! `calm` (heal, resume, restart, rates back to 1, clients finish) and `settle_ms` of quiet, after
//! which the cluster must have converged (see [`check_converged`]).

use super::{Action, Scenario, TimedAction, FORMAT_VERSION};
use crate::client::{ClientConfig, Step};
use crate::rng::Rng;
use crate::sim::network::NetworkSettings;
use crate::sim::World;

pub const FAULTS_MS: u64 = 15_000;
/// After `calm`, a leader is elected and all logs converge within this bound (virtual time).
pub const SETTLE_MS: u64 = 10_000;

pub fn random_scenario(seed: u64) -> Scenario {
    let mut r = Rng::new(seed ^ 0x5357_4152_4d00_0000);
    let nodes = r.range_inclusive(3, 5) as usize;
    let n_clients = r.range_inclusive(2, 4) as usize;
    let keys = ["a", "b"];
    let clients: Vec<ClientConfig> = (0..n_clients)
        .map(|i| {
            let key = keys[r.below(2) as usize].to_string();
            ClientConfig {
                name: ["A", "B", "C", "D"][i].to_string(),
                script: vec![
                    Step::Acquire {
                        key: key.clone(),
                        lease_ms: r.range_inclusive(200, 1500),
                    },
                    Step::Work {
                        key: key.clone(),
                        ms: r.range_inclusive(20, 400),
                    },
                    Step::Release { key },
                    Step::Sleep {
                        ms: r.range_inclusive(0, 300),
                    },
                ],
                repeat: true,
                start_ms: r.range_inclusive(0, 1000),
                margin_ms: r.range_inclusive(0, 150),
                timeout_ms: r.range_inclusive(200, 600),
                retry_ms: r.range_inclusive(50, 300),
                rate_ppm: 1_000_000,
            }
        })
        .collect();
    let lat_lo = r.range_inclusive(100, 3_000);
    let network = NetworkSettings {
        latency_us: [lat_lo, lat_lo + r.range_inclusive(0, 20_000)],
        drop_ppm: if r.below(3) == 0 {
            0
        } else {
            r.range_inclusive(0, 50_000) as u32
        },
        duplicate_ppm: if r.below(3) == 0 {
            0
        } else {
            r.range_inclusive(0, 50_000) as u32
        },
    };
    let mut timeline = Vec::new();
    let n_faults = r.range_inclusive(4, 24);
    let node = |r: &mut Rng| r.range_inclusive(1, nodes as u64) as usize;
    let client = |r: &mut Rng| ["A", "B", "C", "D"][r.below(n_clients as u64) as usize].to_string();
    for _ in 0..n_faults {
        let at_ms = r.range_inclusive(500, FAULTS_MS - 1);
        let action = match r.below(16) {
            0 => Action::Crash { node: node(&mut r) },
            1 => Action::Restart { node: node(&mut r) },
            2 => Action::Pause { node: node(&mut r) },
            3 => Action::Resume { node: node(&mut r) },
            4 => {
                let cut = r.range_inclusive(1, nodes as u64 - 1) as usize;
                let mut order: Vec<usize> = (1..=nodes).collect();
                for i in (1..order.len()).rev() {
                    order.swap(i, r.below(i as u64 + 1) as usize);
                }
                Action::Partition {
                    groups: vec![order[..cut].to_vec(), order[cut..].to_vec()],
                }
            }
            5 => Action::Isolate { node: node(&mut r) },
            6 => Action::Cut {
                from: format!("n{}", node(&mut r)),
                to: format!("n{}", node(&mut r)),
            },
            7 => Action::HealAll,
            8 => Action::SetRate {
                node: node(&mut r),
                rate_ppm: r.range_inclusive(250_000, 4_000_000) as u32,
            },
            9 => Action::Jump {
                node: node(&mut r),
                ms: r.range_inclusive(0, 1000) as i64 - 500,
            },
            10 => Action::ClientPause {
                client: client(&mut r),
            },
            11 => Action::ClientResume {
                client: client(&mut r),
            },
            12 => Action::ClientCrash {
                client: client(&mut r),
            },
            13 => Action::ClientRestart {
                client: client(&mut r),
            },
            14 => Action::ClientDisconnect {
                client: client(&mut r),
            },
            _ => Action::ClientReconnect {
                client: client(&mut r),
            },
        };
        // A drawn cut from a node to itself is dropped (the draws stay as they were, so every
        // seed keeps its schedule; such a cut never changed anything but was not a valid action).
        if !action.is_self_cut() {
            timeline.push(TimedAction { at_ms, action });
        }
    }
    timeline.sort_by_key(|t| t.at_ms);
    timeline.push(TimedAction {
        at_ms: FAULTS_MS,
        action: Action::Calm,
    });
    Scenario {
        version: FORMAT_VERSION,
        name: format!("swarm-{seed}"),
        description: Default::default(),
        seed,
        nodes,
        raft: Default::default(),
        network,
        switches: Default::default(),
        clocks: Vec::new(),
        clients,
        timeline,
        until_ms: FAULTS_MS + SETTLE_MS,
        lesson: None,
    }
}

/// A swarm seed's document with membership changes too (Raft dissertation ch. 4): one to six
/// `add_node` and `remove_node` actions of any id 1–7, drawn on their own random stream (so
/// [`random_scenario`]'s draws stay as they were), at random moments among the faults. Many are
/// refused when they come (a member, a change in flight, no leader): that path is drawn too.
/// `before_noop` turns on the `conf_change_before_noop` switch.
pub fn membership_scenario(seed: u64, before_noop: bool) -> Scenario {
    let mut sc = random_scenario(seed);
    let mut r = Rng::new(seed ^ 0x4d45_4d42_4552_5348);
    for _ in 0..r.range_inclusive(1, 6) {
        let node = r.range_inclusive(1, crate::scenario::NODES_MAX as u64) as usize;
        let action = if r.below(2) == 0 {
            Action::AddNode { node }
        } else {
            Action::RemoveNode { node }
        };
        let at_ms = r.range_inclusive(0, FAULTS_MS - 1);
        sc.timeline.push(TimedAction { at_ms, action });
    }
    sc.timeline.sort_by_key(|t| t.at_ms);
    sc.raft.conf_change_before_noop = before_noop;
    sc.name = format!("swarm-membership-{seed}");
    sc
}

/// After the faults stop: every member up, one leader with the highest term, identical logs on
/// the members, and everything committed and applied on them. (A server removed from the
/// cluster keeps running with what it had.)
pub fn check_converged(w: &World) -> Result<(), String> {
    let mut leaders = Vec::new();
    let mut first: Option<(u64, u64)> = None;
    let conf = w.membership();
    for i in (0..w.node_count).filter(|&i| conf.is_member(i)) {
        let s = w.nodes[i].server().ok_or(format!("n{} is down", i + 1))?;
        if s.raft.is_leader() {
            leaders.push((s.raft.term(), i));
        }
        let log = s.raft.log();
        let mine = (
            log.last_index(),
            log.prefix_hash(log.last_index())
                .expect("the last index is known"),
        );
        if *first.get_or_insert(mine) != mine {
            return Err(format!(
                "n{}'s log (last index {}) differs from n1's",
                i + 1,
                mine.0
            ));
        }
        if s.raft.commit_index() != log.last_index() || s.machine.applied != log.last_index() {
            return Err(format!(
                "n{} has committed {} and applied {} of {} entries",
                i + 1,
                s.raft.commit_index(),
                s.machine.applied,
                log.last_index()
            ));
        }
    }
    let max_term = (0..w.node_count)
        .filter(|&i| conf.is_member(i))
        .filter_map(|i| w.nodes[i].server())
        .map(|s| s.raft.term())
        .max()
        .unwrap_or(0);
    match leaders.as_slice() {
        [(t, _)] if *t == max_term => Ok(()),
        [] => Err("no leader".into()),
        l => Err(format!(
            "leaders (term, node): {l:?}; highest term {max_term}"
        )),
    }
}

#[derive(Debug)]
pub struct SwarmOutcome {
    pub seed: u64,
    pub violations: Vec<String>,
    pub convergence: Result<(), String>,
    pub events: u64,
    pub trace_hash: String,
    /// How many times a follower installed a leader's snapshot (§7).
    pub snapshot_installs: u64,
}

impl SwarmOutcome {
    pub fn ok(&self) -> bool {
        self.violations.is_empty() && self.convergence.is_ok()
    }
}

/// Run one seed with every invariant checked after every event. A panic (a broken `assert!`
/// inside Raft) is caught and reported as a violation, so the seed is always printed.
pub fn run_one(seed: u64) -> SwarmOutcome {
    run_with(seed, random_scenario(seed))
}

/// [`run_one`] on a given scenario (a swarm seed's, changed: e.g. with frequent snapshots).
pub fn run_with(seed: u64, sc: Scenario) -> SwarmOutcome {
    run_settled(seed, sc, 0)
}

/// [`run_with`] for a document with membership changes. A cluster left with two voters steps
/// down whenever a few heartbeat replies in a row are dropped (the swarm's networks drop up to
/// 5%), so at its last moment it may be between leaders (seed 17346: the leader stepped down
/// 90 ms before the end). Convergence is therefore asked again after up to three more seconds
/// of the same calm run before it counts as failed; the invariants are checked throughout.
pub fn run_membership(seed: u64, sc: Scenario) -> SwarmOutcome {
    run_settled(seed, sc, 3)
}

/// Run to the document's end, then up to `extra_s` more seconds, one at a time, until it has
/// converged.
fn run_settled(seed: u64, sc: Scenario, extra_s: u64) -> SwarmOutcome {
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut w = World::new(&sc, false).expect("generated scenarios are valid");
        w.run_until(sc.until_ms * 1000);
        let mut convergence = check_converged(&w);
        for s in 1..=extra_s {
            if convergence.is_ok() {
                break;
            }
            w.run_until((sc.until_ms + s * 1000) * 1000);
            convergence = check_converged(&w);
        }
        (w, convergence)
    }));
    match run {
        Ok((w, convergence)) => SwarmOutcome {
            seed,
            violations: w
                .violations()
                .iter()
                .map(|(t, v)| format!("t={}us {}: {}", t, v.invariant, v.detail))
                .collect(),
            convergence,
            events: w.stats.events,
            trace_hash: w.trace.hash_hex(),
            snapshot_installs: w.stats.snapshot_installs,
        },
        Err(p) => SwarmOutcome {
            seed,
            violations: vec![format!("panic: {}", panic_message(&*p))],
            convergence: Err("the run panicked".into()),
            events: 0,
            trace_hash: String::new(),
            snapshot_installs: 0,
        },
    }
}

/// What a caught panic said (a broken `assert!` inside Raft), to print with its seed.
pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}
