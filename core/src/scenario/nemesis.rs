//! The membership nemesis: a fault schedule written while watching the run it is for, as
//! Jepsen's nemeses target the primary. Each move is recorded at the next millisecond (what the
//! page does when a user acts), so the schedule is an ordinary document that replays exactly.
//!
//! Blind schedules (the swarm's, 3,000 hunt runs) never lined up the dissertation's
//! counterexample to changing the configuration before the no-op commits. The nemesis plays it
//! as a plan with random targets and timing ([`Plan`]): add a learner; split the leader off
//! with it once the addition commits, so the promotion reaches the learner alone; isolate a
//! voter of the other side just after it votes, so the new leader's no-op cannot commit; have
//! that leader remove the old leader or the isolated voter at once; once the removal commits, put the isolated voter
//! with the first two. Whether the two configurations end without a common majority depends on
//! the draws (which voter is removed, how many there are, what the clients and the blind moves
//! mixed in do), and the invariant checks decide.

use super::{swarm, wide, Action, Scenario, TimedAction};
use crate::raft::{ConfChange, Role};
use crate::rng::Rng;
use crate::scenario::NODES_MAX;
use crate::sim::World;

/// Add the membership nemesis's moves to a document's timeline, played against the run itself
/// (what the timeline already holds included) from 0.5 s to the end of the faults. Four servers, most often (two
/// one-server changes from four voters can leave majorities that do not overlap: three of five
/// and two of three), and 5–20 ms links, so that a move made at the next millisecond comes
/// before the messages it races.
pub fn membership_nemesis(sc: &mut Scenario, r: &mut Rng) {
    if r.below(4) != 0 {
        sc.nodes = 4;
        sc.clocks.retain(|c| c.node <= 4);
    }
    let lat = r.range_inclusive(5_000, 20_000);
    sc.network.latency_us = [lat, lat + r.range_inclusive(0, 2_000)];
    sc.network.drop_ppm = 0;
    let Ok(mut w) = World::new(sc, false) else {
        return;
    };
    let mut plan = Plan::Grow;
    let mut since_ms = 500;
    let mut next_random_ms = 500;
    let mut events = 0;
    for ms in 500..swarm::FAULTS_MS - 1 {
        while events < wide::EVENT_BUDGET && w.next_event_time().is_some_and(|t| t <= ms * 1000) {
            w.step();
            events += 1;
        }
        if events >= wide::EVENT_BUDGET {
            break; // (the hunt's run of this document stops at the same budget)
        }
        w.now_us = w.now_us.max(ms * 1000);
        let (moves, next) = plan.step(&w, sc, r);
        let mut moves = moves;
        // (A plan that waits more than 2 s starts over from a healed network.)
        if let Some(next) = next {
            plan = next;
            since_ms = ms;
        } else if ms - since_ms > 2_000 {
            moves = vec![Action::HealAll];
            plan = Plan::Grow;
            since_ms = ms;
        }
        if ms >= next_random_ms {
            // Now and then a blind move too (the swarm's kind), so the search strays.
            next_random_ms = ms + r.range_inclusive(200, 2_000);
            moves.extend(choose(&w, sc, r));
        }
        for action in moves {
            let t = TimedAction {
                at_ms: ms + 1,
                action,
            };
            if sc.validate_action("nemesis", &t.action).is_ok() {
                w.schedule([sc.compile_action(&t)]);
                sc.timeline.push(t);
            }
        }
    }
    sc.timeline.sort_by_key(|t| t.at_ms); // stable: `calm` stays last among equals
}

/// Where the nemesis is in its plan (node ids 0-based).
#[derive(Clone, Copy)]
enum Plan {
    /// Wait for a leader free to change the configuration; add a learner, whose replies to the
    /// leader are cut for now.
    Grow,
    /// Once leader `l` committed the learner `x`, split the two off: the promotion that follows
    /// reaches `x` alone.
    Split { l: usize, x: usize },
    /// When a server of the other side has voted for a candidate there, isolate it: its vote
    /// still arrives, but the new leader's no-op will not, so the no-op cannot commit.
    Vote { l: usize, x: usize },
    /// When candidate `c` wins, make it change the configuration at once.
    Strike {
        l: usize,
        x: usize,
        v: usize,
        c: usize,
    },
    /// Once that change commits, put the isolated voter with `l` and `x`.
    Join {
        l: usize,
        x: usize,
        v: usize,
        l2: usize,
    },
    /// Heal after a while, and start again.
    Rest { until_ms: u64 },
}

impl Plan {
    /// The moves to make now, and the next plan (none: keep waiting).
    fn step(self, w: &World, sc: &Scenario, r: &mut Rng) -> (Vec<Action>, Option<Plan>) {
        let server = |i: usize| w.nodes[i].server().map(|s| &s.raft);
        let leader = w.leader();
        let ms = w.now_us / 1000;
        match self {
            Plan::Grow => {
                let Some(l) = leader else {
                    return (Vec::new(), None);
                };
                let conf = server(l).map(|s| s.membership()).unwrap_or_default();
                // An even number of voters first (the only counts where the two changes can
                // leave majorities without a common server): remove a voter from an odd count.
                if conf.voter_count() % 2 == 1 {
                    let others: Vec<usize> = conf.voters().filter(|&i| i != l).collect();
                    let y = others.get(r.below(others.len().max(1) as u64) as usize);
                    let moves = y
                        .filter(|&&y| w.can_change(ConfChange::remove(y)).is_ok())
                        .map(|&y| Action::RemoveNode { node: y + 1 });
                    return (moves.into_iter().collect(), None);
                }
                let absent: Vec<usize> = (0..NODES_MAX).filter(|&i| !conf.is_member(i)).collect();
                if absent.is_empty() {
                    return (Vec::new(), None);
                }
                let x = absent[r.below(absent.len() as u64) as usize];
                if w.can_change(ConfChange::add_learner(x)).is_err() {
                    return (Vec::new(), None);
                }
                // The learner's replies are cut until the split, so that it catches up (and is
                // promoted) only once it is alone with the leader.
                let cut = Action::Cut {
                    from: format!("n{}", x + 1),
                    to: format!("n{}", l + 1),
                };
                (
                    vec![Action::AddNode { node: x + 1 }, cut],
                    Some(Plan::Split { l, x }),
                )
            }
            Plan::Split { l, x } => {
                let Some(s) = server(l).filter(|s| s.is_leader()) else {
                    return (Vec::new(), Some(Plan::Grow));
                };
                if s.log()
                    .last_conf_index()
                    .is_none_or(|i| s.commit_index() < i)
                {
                    return (Vec::new(), None);
                }
                let rest: Vec<usize> = (0..sc.node_slots())
                    .filter(|&i| i != l && i != x)
                    .map(|i| i + 1)
                    .collect();
                let split = Action::Partition {
                    groups: vec![vec![l + 1, x + 1], rest],
                };
                (vec![split], Some(Plan::Vote { l, x }))
            }
            Plan::Vote { l, x } => {
                // A voter that voted for a candidate of the other side, while it is still one.
                let voted = (0..w.node_count)
                    .filter(|&v| v != l && v != x)
                    .filter_map(|v| Some((v, server(v)?.voted_for()?)))
                    .find(|&(v, c)| {
                        c != v
                            && server(c).is_some_and(|s| {
                                s.role() == Role::Candidate
                                    && server(v).is_some_and(|sv| sv.term() == s.term())
                            })
                    });
                let Some((v, c)) = voted else {
                    return (Vec::new(), None);
                };
                (
                    vec![Action::Isolate { node: v + 1 }],
                    Some(Plan::Strike { l, x, v, c }),
                )
            }
            Plan::Strike { l, x, v, c } => {
                let Some(s) = server(c) else {
                    return (Vec::new(), Some(Plan::Grow));
                };
                match s.role() {
                    Role::Leader => {}
                    Role::Candidate => return (Vec::new(), None),
                    _ => return (Vec::new(), Some(Plan::Vote { l, x })),
                }
                // Remove the old leader or the isolated voter: either leaves the new leader a
                // majority without the servers that hold the promotion.
                let voters: Vec<usize> = [l, v]
                    .into_iter()
                    .filter(|&i| s.membership().is_voter(i))
                    .collect();
                let change = voters
                    .get(r.below(voters.len().max(1) as u64) as usize)
                    .map(|&i| Action::RemoveNode { node: i + 1 });
                (
                    change.into_iter().collect(),
                    Some(Plan::Join { l, x, v, l2: c }),
                )
            }
            Plan::Join { l, x, v, l2 } => {
                let Some(s) = server(l2).filter(|s| s.is_leader()) else {
                    return (Vec::new(), None);
                };
                if s.log()
                    .last_conf_index()
                    .is_none_or(|i| s.commit_index() < i)
                {
                    return (Vec::new(), None);
                }
                let rest: Vec<usize> = (0..sc.node_slots())
                    .filter(|&i| ![l, x, v].contains(&i))
                    .map(|i| i + 1)
                    .collect();
                let split = Action::Partition {
                    groups: vec![vec![l + 1, x + 1, v + 1], rest],
                };
                let until_ms = ms + r.range_inclusive(1_000, 3_000);
                (vec![split], Some(Plan::Rest { until_ms }))
            }
            Plan::Rest { until_ms } => {
                if ms < until_ms {
                    return (Vec::new(), Some(Plan::Rest { until_ms }));
                }
                (vec![Action::HealAll], Some(Plan::Grow))
            }
        }
    }
}

/// One move, drawn among those the run's state makes meaningful (none: do nothing this time).
/// Without a leader only the network moves remain.
fn choose(w: &World, sc: &Scenario, r: &mut Rng) -> Option<Action> {
    let slots = sc.node_slots();
    let leader = w.leader();
    let conf = match leader.and_then(|l| w.nodes[l].server()) {
        Some(s) => s.raft.membership(),
        None => w.membership(),
    };
    let members: Vec<usize> = conf.members().collect();
    let pick = |r: &mut Rng, v: &[usize]| v[r.below(v.len() as u64) as usize];
    match (r.below(10), leader) {
        (0 | 1, Some(_)) => {
            let absent: Vec<usize> = (0..crate::scenario::NODES_MAX)
                .filter(|&i| !conf.is_member(i))
                .collect();
            (!absent.is_empty()).then(|| Action::AddNode {
                node: pick(r, &absent) + 1,
            })
        }
        (2 | 3, Some(_)) => Some(Action::RemoveNode {
            node: pick(r, &members) + 1,
        }),
        (4 | 5, Some(leader)) => {
            // The leader and a random few (a learner among them, often) against the rest.
            let mut side = vec![leader + 1];
            let mut rest = Vec::new();
            for i in (0..slots).filter(|&i| i != leader) {
                if r.below(3) == 0 || (conf.is_learner(i) && r.below(2) == 0) {
                    side.push(i + 1);
                } else {
                    rest.push(i + 1);
                }
            }
            (!rest.is_empty()).then_some(Action::Partition {
                groups: vec![side, rest],
            })
        }
        (6 | 7, _) if !members.is_empty() => Some(Action::Isolate {
            node: pick(r, &members) + 1,
        }),
        (8, _) => {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for i in 1..=slots {
                if r.below(2) == 0 {
                    a.push(i)
                } else {
                    b.push(i)
                }
            }
            (!a.is_empty() && !b.is_empty()).then_some(Action::Partition { groups: vec![a, b] })
        }
        (9, _) => Some(Action::HealAll),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nemesis acts on a live run; its document, replayed from time 0 as a link would be,
    /// gives the same run.
    #[test]
    fn membership_nemesis_documents_replay_the_run_they_were_written_against() {
        for seed in 1..=6 {
            let mut sc = swarm::random_scenario(seed);
            sc.raft.conf_change_before_noop = true;
            // (As the hunt does: the swarm's blind faults go, the nemesis writes its own.)
            sc.timeline.retain(|t| matches!(t.action, Action::Calm));
            let mut r = Rng::new(seed);
            membership_nemesis(&mut sc, &mut r);
            assert!(
                sc.timeline
                    .iter()
                    .any(|t| matches!(t.action, Action::AddNode { .. })),
                "seed {seed}: the plan added a server"
            );
            let mut again = sc.clone();
            again.timeline.retain(|t| matches!(t.action, Action::Calm));
            let mut live = World::new(&again, false).unwrap();
            for t in sc
                .timeline
                .iter()
                .filter(|t| !matches!(t.action, Action::Calm))
            {
                live.run_until(t.at_ms * 1000 - 1);
                live.schedule([sc.compile_action(t)]);
            }
            live.run_until(swarm::FAULTS_MS * 1000);
            let mut replay = World::new(&sc, false).unwrap();
            replay.run_until(swarm::FAULTS_MS * 1000);
            assert_eq!(live.trace.hash(), replay.trace.hash(), "seed {seed}");
        }
    }
}
