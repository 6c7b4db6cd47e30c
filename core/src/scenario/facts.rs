//! The facts true at a moment of a run, as the checks a caption can state: what a teacher sees
//! on the stage, ready to tick. Every fact offered passes [`Claim::passed`] at that moment, so a
//! caption (or a question's answer) built from them cannot be wrong about its own run.

use super::expect::{belief, op_name, running, Claim};
use super::{Action, Scenario};
use crate::client::Step;
use crate::sim::World;
use std::collections::BTreeSet;

/// The facts of this moment, in the order a reader scans the stage: the nodes (role, term,
/// applied index; or "no leader"), the configuration when the run changes it, each key's lock
/// (on every running node when they agree, else node by node), what each client believes of
/// each key it uses, the storage's verdicts so far, and the leader's latest log entry.
pub fn facts_now(w: &World, sc: &Scenario) -> Vec<Claim> {
    let mut out = Vec::new();
    let present = |i: usize| !w.nodes[i].is_absent();
    for i in (0..w.node_count).filter(|&i| present(i)) {
        out.push(match w.nodes[i].server() {
            None => Claim::Node {
                node: i + 1,
                role: Some("crashed".into()),
                term: None,
                applied: None,
            },
            Some(s) => Claim::Node {
                node: i + 1,
                role: Some(s.raft.role().name().into()),
                term: Some(s.raft.term()),
                applied: Some(s.machine.applied),
            },
        });
    }
    let leader = w.leader();
    if leader.is_none() {
        out.push(Claim::NoLeader);
    }
    let changes = sc
        .timeline
        .iter()
        .any(|t| matches!(t.action, Action::AddNode { .. } | Action::RemoveNode { .. }));
    if changes {
        let conf = w.membership();
        for i in (0..w.node_count).filter(|&i| present(i)) {
            let role = match (conf.is_voter(i), conf.is_learner(i)) {
                (true, _) => "voter",
                (_, true) => "learner",
                _ => "removed",
            };
            out.push(Claim::Member {
                node: i + 1,
                role: role.into(),
            });
        }
    }
    out.extend(locks(w, sc));
    for c in &w.clients {
        let name = &c.client.cfg.name;
        for key in script_keys(&c.client.cfg.script) {
            let fact = match belief(w, name, &key) {
                Some(token) => Claim::Holds {
                    client: name.clone(),
                    key,
                    token: Some(token),
                },
                None => Claim::NotHolding {
                    client: name.clone(),
                    key,
                },
            };
            out.push(fact);
        }
    }
    let summary = &w.storage.summary;
    for (from, accepted) in [
        (&summary.accepted_from, true),
        (&summary.rejected_from, false),
    ] {
        let names: BTreeSet<String> = from.iter().map(|&c| w.client_name(c)).collect();
        for client in names {
            out.push(if accepted {
                Claim::WriteAccepted { client }
            } else {
                Claim::WriteRejected { client }
            });
        }
    }
    if let Some(s) = leader.and_then(|l| w.nodes[l].server().map(|s| (l, s))) {
        let (l, s) = s;
        let log = s.raft.log();
        let index = log.last_index();
        if let Some(e) = log.entry(index) {
            out.push(Claim::LogEntry {
                node: l + 1,
                index,
                op: op_name(e).into(),
                term: Some(e.term),
            });
        }
    }
    out
}

/// Each key's lock: one fact when every running node's table agrees on it, else one per node.
fn locks(w: &World, sc: &Scenario) -> Vec<Claim> {
    let up: Vec<usize> = (0..w.node_count).filter(|&k| running(w, k)).collect();
    let mut keys: BTreeSet<String> = sc
        .clients
        .iter()
        .flat_map(|c| script_keys(&c.script))
        .collect();
    for &k in &up {
        keys.extend(
            w.nodes[k]
                .server()
                .into_iter()
                .flat_map(|s| s.machine.locks.keys().map(|k| k.to_string())),
        );
    }
    let fact = |key: &str, node: Option<usize>, k: usize| {
        let lock = w.nodes[k].server().and_then(|s| s.machine.locks.get(key));
        match lock {
            Some(l) => Claim::Lock {
                key: key.into(),
                node,
                client: l.holder.map(|h| w.client_name(h)),
                token: Some(l.token),
            },
            None => Claim::NoLock {
                key: key.into(),
                node,
            },
        }
    };
    let mut out = Vec::new();
    for key in keys {
        let each: Vec<Claim> = up.iter().map(|&k| fact(&key, None, k)).collect();
        if each.windows(2).all(|p| p[0] == p[1]) {
            out.extend(each.into_iter().next());
        } else {
            out.extend(up.iter().map(|&k| fact(&key, Some(k + 1), k)));
        }
    }
    out
}

/// The keys a client's script names, in order of first use.
fn script_keys(script: &[Step]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for step in script {
        let key = match step {
            Step::Acquire { key, .. } | Step::Work { key, .. } | Step::Release { key } => key,
            Step::Sleep { .. } => continue,
        };
        if !keys.contains(key) {
            keys.push(key.clone());
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::builtin;

    /// At moments of every built-in, every fact offered passes its check as a caption would
    /// state it, and the facts describe the stage: every node, and every lock a running node holds.
    #[test]
    fn facts_now_are_true_at_their_moment_and_name_every_node() {
        for name in builtin::names() {
            let sc = builtin::get(name).unwrap();
            let mut w = World::new(&sc, false).unwrap();
            for t_ms in [500, 2_000, sc.until_ms / 2, sc.until_ms] {
                w.run_until(t_ms * 1000);
                let facts = facts_now(&w, &sc);
                let nodes = facts
                    .iter()
                    .filter(|c| matches!(c, Claim::Node { .. }))
                    .count();
                let present = (0..w.node_count)
                    .filter(|&i| !w.nodes[i].is_absent())
                    .count();
                assert_eq!(nodes, present, "{name} at {t_ms} ms: {facts:?}");
                assert!(facts.iter().all(|c| c.passed(&w)), "{name} at {t_ms} ms");
                // Each reads back as a document's check, unchanged (what a teacher pastes).
                for f in &facts {
                    let json = serde_json::to_string(f).unwrap();
                    assert_eq!(&serde_json::from_str::<Claim>(&json).unwrap(), f, "{json}");
                }
                // Every lock some running node holds is named.
                for k in (0..w.node_count).filter(|&k| !w.nodes[k].paused) {
                    for key in w.nodes[k]
                        .server()
                        .iter()
                        .flat_map(|s| s.machine.locks.keys())
                    {
                        assert!(
                            facts.iter().any(
                                |c| matches!(c, Claim::Lock { key: named, .. } if **named == **key)
                            ),
                            "{name} at {t_ms} ms: the lock on {key}"
                        );
                    }
                }
            }
        }
    }
}
