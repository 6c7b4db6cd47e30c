//! Membership change, one server at a time: a test per rule of the Raft dissertation's
//! chapter 4, each failing without its rule.

use super::*;

impl Net {
    /// A new server `id` with an empty log joins the network (it is not a member yet).
    fn start_server(&mut self, id: NodeId, first_nodes: usize) {
        let r = Raft::new(
            NodeSetup::new(id, first_nodes)
                .cfg(self.nodes[0].config().clone())
                .rng(Rng::new(id as u64 + 100))
                .joining(),
        );
        if id < self.nodes.len() {
            self.nodes[id] = r;
        } else {
            assert_eq!(id, self.nodes.len());
            self.nodes.push(r);
        }
    }

    /// Deliver round by round (a heartbeat from `leader` when all is quiet) until the leader's
    /// log goes past `index`; whether it did within 200 rounds. The test then sees the moment
    /// the next entry was appended.
    fn rounds_until_appended(&mut self, leader: NodeId, index: Index) -> bool {
        for _ in 0..200 {
            self.round();
            if self.nodes[leader].log().last_index() > index {
                return true;
            }
            if self.queue.is_empty() {
                self.fire(leader);
            }
        }
        false
    }

    /// Node `i` wins an election; every message it sends from then on is lost, so its no-op
    /// stays uncommitted.
    fn elect_without_noop(&mut self, i: NodeId) {
        self.fire(i);
        for _ in 0..100 {
            self.collect();
            let q = std::mem::take(&mut self.queue);
            if q.is_empty() {
                break;
            }
            for (from, to, m) in q {
                if !self.nodes[i].is_leader() {
                    self.nodes[to].step(self.now, from, m);
                }
            }
            if self.nodes[i].is_leader() {
                self.nodes[i].take_ready();
                break;
            }
        }
        assert!(self.nodes[i].is_leader(), "n{i} should lead");
    }

    fn led(n: usize, cfg: RaftConfig) -> Net {
        let mut net = Net::new(n, cfg);
        net.elect(0);
        net.settle();
        net
    }
}

#[test]
fn membership_4_1_a_leader_proposes_one_change_at_a_time() {
    let mut net = Net::led(3, cfg(true, true));
    net.start_server(3, 3);
    net.isolate(0);
    let now = net.now;
    let first = net.nodes[0].propose_conf(now, ConfChange::add_learner(3));
    assert_eq!(first, Ok(2));
    assert_eq!(
        net.nodes[0].propose_conf(now, ConfChange::remove(2)),
        Err(ConfRefusal::InFlight { index: 2 }),
        "the first change has not committed"
    );
    net.heal();
    net.fire(0);
    net.settle();
    assert!(net.nodes[0].commit_index() >= 2);
    let now = net.now;
    assert!(
        net.nodes[0]
            .propose_conf(now, ConfChange::remove(2))
            .is_ok(),
        "once the first change commits the next may follow"
    );
}

#[test]
fn membership_4_1_a_server_uses_the_latest_configuration_in_its_log_committed_or_not() {
    let mut net = Net::led(3, cfg(true, true));
    net.start_server(3, 3);
    let now = net.now;
    net.nodes[0]
        .propose_conf(now, ConfChange::add_learner(3))
        .unwrap();
    assert!(
        net.nodes[0].membership().is_learner(3),
        "the leader uses it as soon as it is in its log"
    );
    // The append reaches n2 but its reply is lost: on n2 the entry is not committed.
    net.cut.push((1, 0));
    net.cut.push((2, 0));
    net.settle();
    assert_eq!(net.nodes[1].commit_index(), 1);
    assert!(net.nodes[1].membership().is_learner(3));
}

#[test]
fn log_conf_reverts_on_truncation() {
    let mut log: Log<Cmd> = Log::new(Membership::first(3));
    log.append(Entry {
        term: 1,
        body: Body::Noop,
    });
    log.append(Entry {
        term: 1,
        body: Body::Conf(ConfChange::add_learner(3)),
    });
    assert!(log.membership().is_learner(3));
    log.truncate_from(2);
    assert_eq!(log.membership(), Membership::first(3));
    assert_eq!(log.last_conf_index(), None);
}

#[test]
fn membership_noop_rule_a_new_leader_changes_nothing_before_its_noop_commits() {
    let mut net = Net::new(3, cfg(true, true));
    net.elect_without_noop(0);
    let now = net.now;
    assert_eq!(
        net.nodes[0].propose_conf(now, ConfChange::add_learner(3)),
        Err(ConfRefusal::NoOpNotCommitted)
    );
    net.fire(0);
    net.settle();
    let now = net.now;
    assert!(
        net.nodes[0]
            .propose_conf(now, ConfChange::add_learner(3))
            .is_ok(),
        "its no-op committed"
    );
}

#[test]
fn membership_noop_rule_off_a_new_leader_changes_before_its_noop_commits() {
    let mut net = Net::new(
        3,
        RaftConfig {
            conf_change_before_noop: true,
            ..cfg(true, true)
        },
    );
    net.elect_without_noop(0);
    let now = net.now;
    assert!(net.nodes[0]
        .propose_conf(now, ConfChange::add_learner(3))
        .is_ok());
}

#[test]
fn membership_4_2_1_a_learner_does_not_count_toward_a_commit_and_never_campaigns() {
    let mut net = Net::led(3, cfg(true, true));
    net.start_server(3, 3);
    // Only the leader and the learner hear each other.
    net.isolate(1);
    net.isolate(2);
    let now = net.now;
    net.nodes[0]
        .propose_conf(now, ConfChange::add_learner(3))
        .unwrap();
    net.settle();
    assert_eq!(net.nodes[3].log().last_index(), 2, "the learner has it");
    assert_eq!(
        net.nodes[0].commit_index(),
        1,
        "leader and learner are not a majority of the voters n1 n2 n3"
    );
    for _ in 0..5 {
        net.fire(3);
        net.settle();
    }
    assert_eq!(
        net.nodes[3].role(),
        Role::Follower,
        "a learner never campaigns"
    );
    assert_eq!(net.nodes[3].term(), 1);
}

#[test]
fn membership_4_2_1_a_learner_that_caught_up_is_promoted_by_a_second_change() {
    // One entry per AppendEntries: the learner catches up over several rounds.
    let mut net = Net::led(
        3,
        RaftConfig {
            max_batch: 1,
            ..cfg(true, true)
        },
    );
    for k in 1..=5 {
        net.nodes[0].propose(net.now, Cmd(k)).unwrap();
    }
    net.settle();
    net.start_server(3, 3);
    let now = net.now;
    let add = net.nodes[0]
        .propose_conf(now, ConfChange::add_learner(3))
        .unwrap();
    // Round by round: the promotion comes only once the learner holds every committed entry.
    assert!(
        net.rounds_until_appended(0, add),
        "the caught-up learner was promoted"
    );
    let leader = &net.nodes[0];
    assert!(
        leader.match_index(3) >= leader.commit_index() && leader.commit_index() >= add,
        "promoted with the learner at {} of {} committed",
        leader.match_index(3),
        leader.commit_index()
    );
    net.settle();
    net.fire(0);
    net.settle();
    let leader = &net.nodes[0];
    assert_eq!(
        leader.log().entry(add + 1).and_then(Entry::conf),
        Some(ConfChange::promote(3))
    );
    assert!(leader.membership().is_voter(3));
    assert_eq!(leader.commit_index(), add + 1);
    assert_eq!(net.nodes[3].log().last_index(), add + 1);
    assert_eq!(
        net.nodes[3].log().prefix_hash(add + 1),
        leader.log().prefix_hash(add + 1),
        "the new server holds the whole log, from index 1"
    );
}

#[test]
fn membership_4_2_2_a_removed_leader_leads_without_counting_itself_then_steps_down() {
    let mut net = Net::led(3, cfg(true, true));
    net.isolate(2);
    let now = net.now;
    let index = net.nodes[0]
        .propose_conf(now, ConfChange::remove(0))
        .unwrap();
    net.settle();
    assert!(
        net.nodes[0].is_leader(),
        "it leads until the change commits"
    );
    assert_eq!(
        net.nodes[0].commit_index(),
        index - 1,
        "n1 and n2 hold it, but n1 is not a voter of the new configuration n2 n3"
    );
    net.heal();
    for _ in 0..10 {
        if net.nodes[0].commit_index() >= index {
            break;
        }
        net.fire(0);
        net.settle();
    }
    assert!(net.nodes[0].commit_index() >= index);
    assert_eq!(net.nodes[0].role(), Role::Follower, "it stepped down");
    for _ in 0..5 {
        net.fire(0);
        net.settle();
    }
    assert_eq!(
        net.nodes[0].role(),
        Role::Follower,
        "and never campaigns again"
    );
    net.elect(1);
    assert_eq!(
        net.nodes[1].membership().voters().collect::<Vec<_>>(),
        [1, 2]
    );
}

/// A removed server that never learned of its removal times out and campaigns against the
/// cluster that left it: with pre-vote and check-quorum on, the cluster ignores it (§4.2.3).
fn removed_server_disrupts(pre_vote: bool, check_quorum: bool) -> bool {
    let mut net = Net::led(3, cfg(pre_vote, check_quorum));
    net.isolate(2);
    let now = net.now;
    let index = net.nodes[0]
        .propose_conf(now, ConfChange::remove(2))
        .unwrap();
    net.settle();
    assert_eq!(net.nodes[0].commit_index(), index);
    for _ in 0..3 {
        net.fire(2);
        net.settle();
    }
    net.heal();
    // n3 keeps campaigning; the leader keeps sending heartbeats to its members only.
    for _ in 0..5 {
        net.fire(2);
        net.settle();
        net.fire(0);
        net.settle();
    }
    !(net.nodes[0].is_leader() && net.nodes[0].term() == 1)
}

#[test]
fn membership_4_2_3_a_removed_server_cannot_disrupt_the_cluster() {
    assert!(!removed_server_disrupts(true, true));
}

#[test]
fn membership_4_2_3_without_pre_vote_and_check_quorum_a_removed_server_disrupts() {
    assert!(removed_server_disrupts(false, false));
}

#[test]
fn membership_a_removed_id_comes_back_as_a_new_empty_server() {
    let mut net = Net::led(3, cfg(true, true));
    let now = net.now;
    net.nodes[0]
        .propose_conf(now, ConfChange::remove(2))
        .unwrap();
    net.settle();
    net.fire(0);
    net.settle();
    net.start_server(2, 3);
    assert!(
        !net.nodes[2].membership().is_member(2),
        "with an empty log it does not count itself a voter of the first configuration"
    );
    for _ in 0..3 {
        net.fire(2);
        net.settle();
    }
    assert_eq!(net.nodes[2].role(), Role::Follower);
    let now = net.now;
    net.nodes[0]
        .propose_conf(now, ConfChange::add_learner(2))
        .unwrap();
    net.settle();
    net.fire(0);
    net.settle();
    assert!(net.nodes[0].membership().is_voter(2));
    assert!(net.nodes[2].membership().is_voter(2));
    assert_eq!(
        net.nodes[2].log().prefix_hash(net.nodes[0].commit_index()),
        net.nodes[0].log().prefix_hash(net.nodes[0].commit_index())
    );
}

#[test]
fn compaction_7_a_snapshot_carries_the_configuration() {
    let mut net = Net::led(3, cfg(true, true));
    net.start_server(3, 3);
    net.isolate(3);
    let now = net.now;
    net.nodes[0]
        .propose_conf(now, ConfChange::add_learner(3))
        .unwrap();
    net.settle();
    let leader = &mut net.nodes[0];
    let commit = leader.commit_index();
    leader.snapshot_taken(commit, vec![]);
    assert!(leader.snapshot().unwrap().conf.is_learner(3));
    let k = leader.propose(net.now, Cmd(1)).unwrap();
    net.settle();
    net.nodes[0].snapshot_taken(k, vec![1]);
    assert!(net.nodes[0].log().start() > 0, "compacted past the change");
    assert!(net.nodes[0].membership().is_learner(3));
    // A server that installs the snapshot learns the configuration from it.
    net.heal();
    for _ in 0..10 {
        net.fire(0);
        net.settle();
    }
    assert_eq!(net.nodes[3].log().start(), net.nodes[0].snapshot_index());
    assert!(net.nodes[3].membership().is_member(3));
    assert!(
        net.nodes[0].membership().is_voter(3),
        "promoted once caught up"
    );
}

#[test]
fn membership_a_server_that_joined_empty_votes_only_once_its_log_holds_its_addition() {
    let mut net = Net::led(3, cfg(false, false));
    net.start_server(3, 3);
    let vote = |r: &mut Raft<Cmd>, now, term| {
        r.step(
            now,
            1,
            Message::Vote {
                term,
                last_index: 50,
                last_term: 1,
                pre: false,
            },
        );
        r.take_ready()
            .messages
            .iter()
            .any(|(_, m)| matches!(m, Message::VoteReply { granted: true, .. }))
    };
    let now = net.now;
    assert!(
        !vote(&mut net.nodes[3], now, 1),
        "its log does not hold its addition"
    );
    net.nodes[0]
        .propose_conf(now, ConfChange::add_learner(3))
        .unwrap();
    net.settle();
    assert!(net.nodes[3].membership().is_member(3));
    let now = net.now;
    assert!(
        vote(&mut net.nodes[3], now, 99),
        "its addition is in its log: it votes"
    );
}

/// A leader alone holds the promotion of its learner and restarts: its configuration now counts
/// the learner among two voters, and the learner, whose log holds its addition, gives the vote
/// that lets it lead again and commit the promotion (found by the wide swarm, seed 2325).
#[test]
fn membership_a_promotion_only_the_leader_holds_survives_its_restart() {
    let mut net = Net::led(1, cfg(true, true));
    net.start_server(1, 1);
    let now = net.now;
    let add = net.nodes[0]
        .propose_conf(now, ConfChange::add_learner(1))
        .unwrap();
    // Round by round until the leader appends the promotion; it reaches no one.
    assert!(net.rounds_until_appended(0, add));
    assert_eq!(
        net.nodes[0].log().entry(add + 1).and_then(Entry::conf),
        Some(ConfChange::promote(1))
    );
    net.drop_pending();
    assert!(net.nodes[1].membership().is_learner(1));
    let hs = net.nodes[0].hard_state();
    let cfg = net.nodes[0].config().clone();
    net.nodes[0] = Raft::restart(NodeSetup::new(0, 1).cfg(cfg).rng(Rng::new(9)), hs);
    for _ in 0..5 {
        if net.nodes[0].is_leader() {
            break;
        }
        net.fire(0);
        net.settle();
    }
    assert!(net.nodes[0].is_leader(), "the learner's vote elects it");
    net.fire(0);
    net.settle();
    assert!(
        net.nodes[1].membership().is_voter(1),
        "and the promotion commits"
    );
    assert!(net.nodes[0].commit_index() > add + 1);
}

/// With the no-op rule off two leaders can commit different entries at one index; a follower
/// then overwrites a committed entry as the broken algorithm does (the checks name it), rather
/// than stop the run. Found by the membership nemesis, whose run reached this panic.
#[test]
fn membership_noop_rule_off_a_follower_may_overwrite_a_committed_entry() {
    for (on, overwrites) in [(true, true), (false, false)] {
        let mut r: Raft<Cmd> = Raft::new(NodeSetup::new(1, 3).cfg(RaftConfig {
            conf_change_before_noop: on,
            ..cfg(true, true)
        }));
        let entry = |term, x| Entry {
            term,
            body: Body::Cmd(Cmd(x)),
        };
        let append = |term, entries, commit| Message::Append {
            term,
            prev_index: 0,
            prev_term: 0,
            entries,
            commit,
        };
        r.step(0, 0, append(1, vec![entry(1, 7)], 1));
        assert_eq!(r.commit_index(), 1);
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            r.step(0, 2, append(2, vec![entry(2, 8)], 1));
            r.log().term_at(1)
        }));
        assert_eq!(run.ok() == Some(2), overwrites, "switch on: {on}");
    }
}
