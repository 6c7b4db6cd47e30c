//! Unit tests per Raft rule, named after the paper section they cover. A tiny harness delivers
//! messages by hand so each test controls exactly who hears what.

use super::*;

#[derive(Clone, Debug, PartialEq)]
struct Cmd(u64);
impl Command for Cmd {
    type State = Vec<u64>;
    fn digest(&self) -> u64 {
        self.0
    }
}

struct Net {
    nodes: Vec<Raft<Cmd>>,
    queue: Vec<(NodeId, NodeId, Message<Cmd>)>,
    now: i64,
    cut: Vec<(NodeId, NodeId)>,
}

fn cfg(pre_vote: bool, check_quorum: bool) -> RaftConfig {
    RaftConfig {
        pre_vote,
        check_quorum,
        ..RaftConfig::default()
    }
}

impl Net {
    fn new(n: usize, cfg: RaftConfig) -> Net {
        let nodes = (0..n)
            .map(|i| {
                Raft::new(
                    NodeSetup::new(i, n)
                        .cfg(cfg.clone())
                        .rng(Rng::new(i as u64 + 1)),
                )
            })
            .collect();
        Net {
            nodes,
            queue: Vec::new(),
            now: 0,
            cut: Vec::new(),
        }
    }

    fn collect(&mut self) {
        for i in 0..self.nodes.len() {
            for (to, m) in self.nodes[i].take_ready().messages {
                if !self.cut.contains(&(i, to)) {
                    self.queue.push((i, to, m));
                }
            }
        }
    }

    /// Deliver until quiet (bounded).
    fn settle(&mut self) {
        for _ in 0..10_000 {
            self.collect();
            if self.queue.is_empty() {
                return;
            }
            let q = std::mem::take(&mut self.queue);
            for (from, to, m) in q {
                self.nodes[to].step(self.now, from, m);
            }
        }
        panic!("did not settle");
    }

    fn fire(&mut self, i: NodeId) {
        self.now = self.now.max(self.nodes[i].next_deadline_us());
        self.nodes[i].tick(self.now);
    }

    fn elect(&mut self, i: NodeId) {
        self.fire(i);
        self.settle();
        if self.nodes[i].role() == Role::PreCandidate || self.nodes[i].role() == Role::Candidate {
            self.settle();
        }
        assert_eq!(self.nodes[i].role(), Role::Leader, "n{i} should lead");
    }

    fn isolate(&mut self, i: NodeId) {
        for p in 0..self.nodes.len() {
            self.cut.push((i, p));
            self.cut.push((p, i));
        }
    }

    fn heal(&mut self) {
        self.cut.clear();
    }
}

#[test]
fn election_5_2_first_timeout_wins_and_others_follow() {
    let mut net = Net::new(5, cfg(false, false));
    net.elect(2);
    for i in [0, 1, 3, 4] {
        assert_eq!(net.nodes[i].role(), Role::Follower);
        assert_eq!(net.nodes[i].leader(), Some(2));
        assert_eq!(net.nodes[i].term(), 1);
    }
}

#[test]
fn election_5_2_timeouts_are_randomized_within_bounds() {
    let c = RaftConfig::default();
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..50 {
        let r: Raft<Cmd> = Raft::new(NodeSetup::new(0, 3).cfg(c.clone()).rng(Rng::new(seed)));
        let d = r.next_deadline_us() as u64;
        assert!((c.election_timeout_min_us..=c.election_timeout_max_us).contains(&d));
        seen.insert(d);
    }
    assert!(seen.len() > 40, "timeouts should differ: {}", seen.len());
}

#[test]
fn noop_section_8_new_leader_appends_noop_of_its_term() {
    let mut net = Net::new(3, cfg(true, true));
    net.elect(0);
    let e = net.nodes[0].log().entry(1).unwrap();
    assert_eq!((e.term, e.cmd().cloned()), (1, None));
    net.settle();
    assert_eq!(net.nodes[0].commit_index(), 1);
}

#[test]
fn vote_5_4_1_rejects_candidate_with_stale_log() {
    let mut net = Net::new(3, cfg(false, false));
    net.elect(0);
    net.nodes[0].propose(net.now, Cmd(7)).unwrap();
    net.settle();
    // n2 misses the next entry; n1 has it.
    net.cut.push((0, 2));
    net.nodes[0].propose(net.now, Cmd(8)).unwrap();
    net.settle();
    net.heal();
    // n2 campaigns: n1 has a longer log of the same term and refuses.
    net.isolate(0);
    net.fire(2);
    net.settle();
    assert_ne!(net.nodes[2].role(), Role::Leader);
    assert_eq!(
        net.nodes[1].voted_for(),
        None,
        "n1 must not vote for the stale candidate"
    );
}

#[test]
fn step_down_5_1_on_higher_term() {
    let mut net = Net::new(3, cfg(false, false));
    net.elect(0);
    net.settle();
    net.nodes[0].step(
        net.now,
        1,
        Message::AppendReply {
            term: 9,
            success: false,
            match_index: 0,
            rejected_index: 0,
            hint_index: 0,
            hint_term: 0,
        },
    );
    assert_eq!(net.nodes[0].role(), Role::Follower);
    assert_eq!(net.nodes[0].term(), 9);
}

#[test]
fn append_5_3_rejects_on_missing_prev_and_truncates_conflicts() {
    let mut f: Raft<Cmd> = Raft::new(NodeSetup::new(1, 3));
    // Entries 1..=3 of term 1 from leader 0.
    let e = |t, c| Entry {
        term: t,
        body: Body::Cmd(Cmd(c)),
    };
    f.step(
        0,
        0,
        Message::Append {
            term: 1,
            prev_index: 0,
            prev_term: 0,
            entries: vec![e(1, 1), e(1, 2), e(1, 3)],
            commit: 1,
        },
    );
    assert_eq!(f.log().last_index(), 3);
    assert_eq!(f.commit_index(), 1);
    f.take_ready();
    // Missing prev: rejected with a hint.
    f.step(
        0,
        0,
        Message::Append {
            term: 1,
            prev_index: 7,
            prev_term: 1,
            entries: vec![],
            commit: 1,
        },
    );
    match &f.take_ready().messages[0].1 {
        Message::AppendReply {
            success: false,
            hint_index,
            ..
        } => assert_eq!(*hint_index, 4),
        m => panic!("{m:?}"),
    }
    // A new leader of term 2 overwrites index 3 (uncommitted) with its own entry.
    f.step(
        0,
        2,
        Message::Append {
            term: 2,
            prev_index: 2,
            prev_term: 1,
            entries: vec![e(2, 9)],
            commit: 3,
        },
    );
    assert_eq!(f.log().last_index(), 3);
    assert_eq!(f.log().entry(3).unwrap(), &e(2, 9));
    assert_eq!(f.commit_index(), 3);
    // A reordered old message that repeats entries does not truncate anything.
    f.step(
        0,
        2,
        Message::Append {
            term: 2,
            prev_index: 0,
            prev_term: 0,
            entries: vec![e(1, 1)],
            commit: 3,
        },
    );
    assert_eq!(f.log().last_index(), 3);
}

#[test]
fn append_5_3_fast_backoff_skips_a_conflicting_term() {
    let mut f: Raft<Cmd> = Raft::new(NodeSetup::new(1, 3));
    let e = |t, c| Entry {
        term: t,
        body: Body::Cmd(Cmd(c)),
    };
    let entries = vec![e(1, 1), e(2, 2), e(2, 3), e(2, 4), e(2, 5)];
    f.step(
        0,
        0,
        Message::Append {
            term: 2,
            prev_index: 0,
            prev_term: 0,
            entries,
            commit: 1,
        },
    );
    f.take_ready();
    f.step(
        0,
        2,
        Message::Append {
            term: 3,
            prev_index: 5,
            prev_term: 3,
            entries: vec![],
            commit: 1,
        },
    );
    match &f.take_ready().messages[0].1 {
        Message::AppendReply {
            success: false,
            hint_index,
            hint_term,
            ..
        } => assert_eq!((*hint_index, *hint_term), (2, 2)),
        m => panic!("{m:?}"),
    }
}

#[test]
fn commit_5_4_2_leader_does_not_count_replicas_of_older_terms() {
    // The Figure 8 situation: a leader of term 3 holds an entry of term 2 that a majority has,
    // but must not commit it until an entry of its own term is replicated on a majority.
    let mut l: Raft<Cmd> = Raft::new(NodeSetup::new(0, 3));
    let e = |t, c| Entry {
        term: t,
        body: Body::Cmd(Cmd(c)),
    };
    l.step(
        0,
        1,
        Message::Append {
            term: 2,
            prev_index: 0,
            prev_term: 0,
            entries: vec![e(1, 1), e(2, 2)],
            commit: 1,
        },
    );
    assert_eq!(l.commit_index(), 1);
    l.take_ready();
    // l becomes leader of term 3 (votes from 1 and 2).
    let now = l.next_deadline_us();
    l.tick(now); // pre-vote
    l.step(
        now,
        1,
        Message::VoteReply {
            term: 3,
            granted: true,
            pre: true,
        },
    );
    assert_eq!(l.role(), Role::Candidate);
    l.step(
        now,
        1,
        Message::VoteReply {
            term: 3,
            granted: true,
            pre: false,
        },
    );
    assert_eq!(l.role(), Role::Leader);
    assert_eq!(l.log().last_index(), 3, "no-op of term 3 appended");
    // Follower 1 acknowledges index 2 only (it has the term-2 entry): a majority holds index 2.
    l.step(
        now,
        1,
        Message::AppendReply {
            term: 3,
            success: true,
            match_index: 2,
            rejected_index: 0,
            hint_index: 0,
            hint_term: 0,
        },
    );
    assert_eq!(
        l.commit_index(),
        1,
        "index 2 is of term 2: not committed by counting"
    );
    l.step(
        now,
        1,
        Message::AppendReply {
            term: 3,
            success: true,
            match_index: 3,
            rejected_index: 0,
            hint_index: 0,
            hint_term: 0,
        },
    );
    assert_eq!(
        l.commit_index(),
        3,
        "the no-op of term 3 commits, and index 2 with it"
    );
}

#[test]
fn prevote_9_6_isolated_node_does_not_inflate_its_term() {
    let mut net = Net::new(3, cfg(true, true));
    net.elect(0);
    net.settle();
    net.isolate(2);
    for _ in 0..10 {
        net.fire(2);
        net.settle();
    }
    assert_eq!(
        net.nodes[2].term(),
        1,
        "pre-vote never succeeds, so the term stays"
    );
    net.heal();
    // On rejoin it does not disturb the leader.
    assert_eq!(net.nodes[0].role(), Role::Leader);
    assert_eq!(net.nodes[0].term(), 1);
}

#[test]
fn prevote_9_6_off_isolated_node_inflates_its_term_and_disrupts_on_rejoin() {
    let mut net = Net::new(3, cfg(false, false));
    net.elect(0);
    net.settle();
    net.isolate(2);
    for _ in 0..5 {
        net.fire(2);
        net.settle();
    }
    assert_eq!(net.nodes[2].term(), 6);
    net.heal();
    net.fire(0); // heartbeat reaches n2, whose reply carries term 6
    net.settle();
    assert_eq!(net.nodes[0].term(), 6);
    assert_ne!(
        net.nodes[0].role(),
        Role::Leader,
        "the old leader stepped down"
    );
}

#[test]
fn check_quorum_6_2_partitioned_leader_steps_down() {
    let mut net = Net::new(3, cfg(true, true));
    net.elect(0);
    net.settle();
    net.isolate(0);
    for _ in 0..20 {
        net.fire(0);
        net.settle();
        if net.nodes[0].role() != Role::Leader {
            break;
        }
    }
    assert_eq!(net.nodes[0].role(), Role::Follower);
}

#[test]
fn check_quorum_off_partitioned_leader_keeps_leading() {
    let mut net = Net::new(3, cfg(true, false));
    net.elect(0);
    net.settle();
    net.isolate(0);
    for _ in 0..20 {
        net.fire(0);
        net.settle();
    }
    assert_eq!(net.nodes[0].role(), Role::Leader);
}

#[test]
fn lease_4_2_3_follower_ignores_vote_while_leader_is_heard() {
    let mut net = Net::new(3, cfg(false, true));
    net.elect(0);
    net.settle();
    let now = net.now;
    net.nodes[1].step(
        now,
        2,
        Message::Vote {
            term: 5,
            last_index: 9,
            last_term: 1,
            pre: false,
        },
    );
    assert_eq!(net.nodes[1].term(), 1);
    assert!(net.nodes[1].take_ready().messages.is_empty());
}

#[test]
fn propose_to_follower_is_refused_with_leader_hint() {
    let mut net = Net::new(3, cfg(true, true));
    net.elect(1);
    net.settle();
    assert_eq!(
        net.nodes[0].propose(net.now, Cmd(1)),
        Err(NotLeader { hint: Some(1) })
    );
}

#[test]
fn replication_5_3_followers_learn_commit_from_leader() {
    let mut net = Net::new(5, cfg(true, true));
    net.elect(0);
    for c in 0..10 {
        net.nodes[0].propose(net.now, Cmd(c)).unwrap();
    }
    net.settle();
    assert_eq!(net.nodes[0].commit_index(), 11);
    net.fire(0); // heartbeat carries the commit index
    net.settle();
    for i in 1..5 {
        assert_eq!(net.nodes[i].commit_index(), 11);
        assert_eq!(
            net.nodes[i].log().prefix_hash(11),
            net.nodes[0].log().prefix_hash(11)
        );
    }
}

#[test]
fn log_grows_to_100k_entries_without_slowing_the_step() {
    let mut net = Net::new(3, cfg(true, true));
    net.elect(0);
    for c in 0..100_000 {
        net.nodes[0].propose(net.now, Cmd(c)).unwrap();
        if c % 1000 == 0 {
            net.settle();
        }
    }
    net.settle();
    net.fire(0);
    net.settle();
    assert_eq!(net.nodes[2].commit_index(), 100_001);
}

#[test]
fn prevote_9_6_leader_itself_refuses_a_prevote_while_it_leads() {
    // A follower with a fast clock times out between heartbeats; the leader must not hand it
    // the second pre-vote of a 3-node cluster.
    let mut net = Net::new(3, cfg(true, true));
    net.elect(0);
    net.settle();
    let now = net.now;
    net.nodes[0].step(
        now,
        2,
        Message::Vote {
            term: 2,
            last_index: 9,
            last_term: 1,
            pre: true,
        },
    );
    match &net.nodes[0].take_ready().messages[..] {
        [(
            2,
            Message::VoteReply {
                granted: false,
                pre: true,
                ..
            },
        )] => {}
        m => panic!("{m:?}"),
    }
    assert_eq!(net.nodes[0].role(), Role::Leader);
}

fn prevote_reply(r: &mut Raft<Cmd>) -> bool {
    match &r.take_ready().messages[..] {
        [(
            _,
            Message::VoteReply {
                granted, pre: true, ..
            },
        )] => *granted,
        m => panic!("{m:?}"),
    }
}

#[test]
fn prevote_9_6_granted_for_the_receivers_own_term_when_it_has_no_leader_and_no_vote() {
    // etcd's rule (raft.go, Step, `canVote`): a node may vote if it already voted for the
    // sender, or has neither voted nor seen a leader in this term, or the pre-vote is for a later
    // term. Here n1 reached term 1 through a message that named no leader; n2, still in term
    // 0, asks for pre-votes for term 1, which is n1's own.
    let mut net = Net::new(3, cfg(true, true));
    let now = net.now;
    let bump = Message::AppendReply {
        term: 1,
        success: false,
        match_index: 0,
        rejected_index: 0,
        hint_index: 0,
        hint_term: 0,
    };
    net.nodes[1].step(now, 0, bump);
    net.nodes[1].take_ready();
    assert_eq!((net.nodes[1].term(), net.nodes[1].leader()), (1, None));
    let ask = Message::Vote {
        term: 1,
        last_index: 0,
        last_term: 0,
        pre: true,
    };
    net.nodes[1].step(now, 2, ask.clone());
    assert!(
        prevote_reply(&mut net.nodes[1]),
        "no leader, no vote: granted"
    );
    assert_eq!(net.nodes[1].term(), 1, "a pre-vote changes no term");
    // Once n1 has voted for another node in term 1, the same pre-vote is refused.
    net.nodes[1].step(
        now,
        0,
        Message::Vote {
            term: 1,
            last_index: 0,
            last_term: 0,
            pre: false,
        },
    );
    net.nodes[1].take_ready();
    assert_eq!(net.nodes[1].voted_for(), Some(0));
    net.nodes[1].step(now, 2, ask);
    assert!(
        !prevote_reply(&mut net.nodes[1]),
        "voted for n0 in term 1: refused"
    );
}

impl Net {
    /// Deliver what is queued now, once (no follow-ups): lets a test stop between rounds.
    fn round(&mut self) {
        self.collect();
        let q = std::mem::take(&mut self.queue);
        for (from, to, m) in q {
            self.nodes[to].step(self.now, from, m);
        }
    }
    fn drop_pending(&mut self) {
        self.collect();
        self.queue.clear();
    }
}

/// The Raft paper's Figure 8, played by hand. Returns (index 2 committed by the term-3 leader,
/// index 2 survived the next leader).
fn figure_8(counting: bool) -> (bool, bool) {
    let cfg = RaftConfig {
        pre_vote: false,
        check_quorum: false,
        max_batch: 1,
        commit_by_counting_old_terms: counting,
        ..RaftConfig::default()
    };
    let mut net = Net::new(5, cfg);
    net.elect(0);
    net.settle();
    // (a) S0 (term 1) appends X at index 2 and replicates it to S1 only.
    for p in 2..5 {
        net.cut.push((0, p));
    }
    net.nodes[0].propose(net.now, Cmd(100)).unwrap();
    net.settle();
    assert_eq!(net.nodes[1].log().last_index(), 2);
    // (b) S0 is cut off; S4 wins term 2 with S2 and S3, appends its no-op at index 2, and is cut
    // off before that reaches anyone.
    net.isolate(0);
    net.fire(4);
    net.round(); // vote requests
    net.round(); // vote replies: S4 leads term 2
    assert_eq!(net.nodes[4].role(), Role::Leader);
    net.isolate(4);
    net.drop_pending();
    // (c) S0 comes back and wins term 3 with S1, S2, S3; it brings S2 and S3 up to index 2 (one
    // entry per message), and is cut off before its own no-op (index 3) reaches a majority.
    net.heal();
    net.isolate(4);
    net.fire(0); // check-quorum is off: S0 still leads term 1 until its heartbeat meets term 2
    net.settle();
    assert_eq!(net.nodes[0].role(), Role::Follower);
    while net.nodes[0].role() != Role::Leader {
        net.fire(0);
        net.round();
        net.round();
    }
    let term = net.nodes[0].term();
    for _ in 0..4 {
        net.round();
        if net.nodes[2].log().last_index() >= 2 && net.nodes[3].log().last_index() >= 2 {
            break;
        }
    }
    net.round(); // their acknowledgements of index 2 reach S0
    let committed_2 = net.nodes[0].commit_index() >= 2 && net.nodes[0].log().term_at(2) == 1;
    assert!(
        net.nodes[0].commit_index() < 3,
        "the term-{term} no-op is not on a majority yet"
    );
    // (d) S0 is cut off; S4 returns and wins with S2 and S3 (its last term 2 beats their 1).
    net.heal();
    net.isolate(0);
    net.drop_pending();
    net.fire(4); // S4 still leads term 2 until its heartbeat meets term 3
    net.settle();
    assert_eq!(net.nodes[4].role(), Role::Follower);
    while net.nodes[4].role() != Role::Leader {
        net.fire(4);
        net.settle();
    }
    net.settle();
    net.fire(4);
    net.settle();
    let survived = net.nodes[2].log().term_at(2) == 1 && net.nodes[3].log().term_at(2) == 1;
    (committed_2, survived)
}

#[test]
fn commit_5_4_2_figure_8_counting_old_terms_loses_a_committed_entry() {
    // With the safeguard: index 2 (term 1) is never counted as committed, so overwriting it is legal.
    let (committed, _) = figure_8(false);
    assert!(
        !committed,
        "§5.4.2: an earlier term's entry is not committed by counting replicas"
    );
    // With the switch: the leader commits it by counting, and the next leader overwrites it.
    let (committed, survived) = figure_8(true);
    assert!(committed, "counting replicas committed index 2");
    assert!(
        !survived,
        "a committed entry was lost: the Figure 8 anomaly"
    );
}

/// §7: a follower that was away while the leader compacted its log gets InstallSnapshot, then
/// the entries after the snapshot, and ends with the leader's log.
#[test]
fn compaction_7_a_follower_behind_the_compacted_log_installs_the_snapshot() {
    let mut net = Net::new(3, cfg(true, true));
    net.elect(0);
    net.isolate(2);
    for k in 1..=20 {
        net.nodes[0].propose(net.now, Cmd(k)).unwrap();
        net.settle();
    }
    let leader = &mut net.nodes[0];
    assert_eq!(leader.commit_index(), 21);
    leader.snapshot_taken(10, (1..=9).collect());
    assert_eq!(
        leader.log().start(),
        0,
        "the first snapshot drops nothing yet: the log keeps what followers may need"
    );
    leader.snapshot_taken(21, (1..=20).collect());
    assert_eq!(
        (leader.log().start(), leader.log().last_index()),
        (10, 21),
        "compacted up to the previous snapshot"
    );
    assert_eq!(leader.log().entry(10), None);
    assert_eq!(
        leader.log().term(9),
        None,
        "below the start the log knows nothing"
    );
    net.heal();
    // n3's entries went out while it was cut off; once they count as lost (an election timeout
    // without an answer), a heartbeat probes n3 from its match, index 1: index 2 is gone.
    for _ in 0..10 {
        net.fire(0);
        net.collect();
        if net
            .queue
            .iter()
            .any(|(_, _, m)| matches!(m, Message::Snapshot { .. }))
        {
            break;
        }
        net.queue.clear();
    }
    assert!(
        net.queue.iter().any(|(_, to, m)| *to == 2
            && matches!(m, Message::Snapshot { snapshot, .. } if snapshot.index == 21)),
        "InstallSnapshot to n3"
    );
    let q = std::mem::take(&mut net.queue);
    for (from, to, m) in q {
        net.nodes[to].step(net.now, from, m);
    }
    let restored = net.nodes[2]
        .ready_mut()
        .restore
        .take()
        .expect("n3 is told to restore the snapshot");
    assert_eq!((restored.index, restored.state.len()), (21, 20));
    net.settle();
    net.nodes[0].propose(net.now, Cmd(21)).unwrap();
    net.settle();
    let (a, b) = (net.nodes[0].log(), net.nodes[2].log());
    assert_eq!((b.start(), b.last_index()), (21, 22));
    assert_eq!(
        a.prefix_hash(22),
        b.prefix_hash(22),
        "the same log, as far as the prefix hash can tell"
    );
    assert_eq!(net.nodes[2].commit_index(), 21);
}

/// §7, Figure 13: a follower whose log holds the snapshot's last entry keeps the entries after
/// it; one whose log conflicts (or is shorter) discards its log.
#[test]
fn compaction_7_install_snapshot_keeps_the_entries_after_a_matching_last_entry() {
    let entries = |terms: &[Term]| {
        terms
            .iter()
            .enumerate()
            .map(|(k, &t)| Entry {
                term: t,
                body: Body::Cmd(Cmd(k as u64)),
            })
            .collect::<Vec<_>>()
    };
    let follower = |terms: &[Term]| {
        let mut f: Raft<Cmd> =
            Raft::new(NodeSetup::new(1, 3).cfg(cfg(true, true)).rng(Rng::new(7)));
        f.step(
            0,
            0,
            Message::Append {
                term: 2,
                prev_index: 0,
                prev_term: 0,
                entries: entries(terms),
                commit: 0,
            },
        );
        f.take_ready();
        f
    };
    let snap = |f: &Raft<Cmd>, term: Term| {
        Rc::new(Snapshot {
            index: 3,
            term,
            hash: f.log().prefix_hash(3).unwrap(),
            conf: Membership::first(3),
            state: vec![0, 1, 2],
        })
    };

    let mut f = follower(&[1, 1, 1, 2, 2]);
    let s = snap(&f, 1);
    f.step(
        0,
        0,
        Message::Snapshot {
            term: 2,
            snapshot: s,
        },
    );
    assert_eq!(
        (f.log().start(), f.log().last_index(), f.commit_index()),
        (3, 5, 3),
        "entries 4 and 5 stay"
    );
    assert!(f.take_ready().restore.is_some());

    let mut f = follower(&[1, 1, 2, 2]);
    let s = Rc::new(Snapshot {
        index: 3,
        term: 1,
        hash: 99,
        conf: Membership::first(3),
        state: vec![0, 1, 2],
    });
    f.step(
        0,
        0,
        Message::Snapshot {
            term: 2,
            snapshot: s,
        },
    );
    assert_eq!(
        (f.log().start(), f.log().last_index(), f.log().last_term()),
        (3, 3, 1),
        "a conflicting log is discarded"
    );
    assert_eq!(
        f.log().prefix_hash(3),
        Some(99),
        "and continues from the snapshot's hash"
    );

    // A snapshot of what the follower already committed changes nothing.
    let mut f = follower(&[1, 1, 1, 1]);
    f.step(
        0,
        0,
        Message::Append {
            term: 2,
            prev_index: 4,
            prev_term: 1,
            entries: vec![],
            commit: 4,
        },
    );
    f.take_ready();
    let s = snap(&f, 1);
    f.step(
        0,
        0,
        Message::Snapshot {
            term: 2,
            snapshot: s,
        },
    );
    let r = f.take_ready();
    assert!(r.restore.is_none() && f.log().start() == 0);
    assert!(matches!(
        r.messages[..],
        [(
            0,
            Message::AppendReply {
                success: true,
                match_index: 3,
                ..
            }
        )]
    ));
}

// ---- progress states (etcd-raft's probe / replicate / snapshot) -------------------------------

fn to(net: &Net, peer: NodeId) -> Vec<&Message<Cmd>> {
    net.queue
        .iter()
        .filter(|(f, t, _)| *f == 0 && *t == peer)
        .map(|(_, _, m)| m)
        .collect()
}

/// A follower that answered is replicated to: new entries stream out at once, and a heartbeat
/// carries no entries while those in flight are younger than an election timeout.
#[test]
fn progress_replicate_a_heartbeat_does_not_resend_entries_in_flight() {
    let mut net = Net::new(3, cfg(true, true));
    net.elect(0);
    net.settle();
    assert_eq!(net.nodes[0].progress_state(1), ProgressState::Replicate);
    net.nodes[0].propose(net.now, Cmd(7)).unwrap();
    net.collect();
    assert!(
        matches!(to(&net, 1)[..], [Message::Append { entries, .. }] if entries.len() == 1),
        "the new entry goes out at once"
    );
    net.queue.clear(); // in flight, unanswered
    net.fire(0);
    net.collect();
    match to(&net, 1)[..] {
        [Message::Append {
            entries,
            prev_index,
            ..
        }] => {
            assert!(entries.is_empty(), "the heartbeat re-sends nothing");
            assert_eq!(*prev_index, net.nodes[0].match_index(1));
        }
        ref m => panic!("{m:?}"),
    }
}

/// What goes unanswered for the shortest election timeout is presumed lost and sent again,
/// from the follower's match (it is probed again).
#[test]
fn progress_replicate_entries_unanswered_for_an_election_timeout_are_sent_again() {
    let mut net = Net::new(3, cfg(true, true));
    net.elect(0);
    net.settle();
    let sent_at = net.now;
    net.nodes[0].propose(net.now, Cmd(7)).unwrap();
    net.collect();
    net.queue.clear(); // lost
    let min = net.nodes[0].config().election_timeout_min_us as i64;
    while net.now < sent_at + min {
        net.fire(0);
        net.collect();
        let resent = to(&net, 1)
            .iter()
            .any(|m| matches!(m, Message::Append { entries, .. } if !entries.is_empty()));
        assert_eq!(
            resent,
            net.now >= sent_at + min,
            "at {} µs after the send",
            net.now - sent_at
        );
        net.queue.clear();
    }
    assert_eq!(net.nodes[0].progress_state(1), ProgressState::Probe);
    net.fire(0);
    net.settle();
    assert_eq!(net.nodes[0].progress_state(1), ProgressState::Replicate);
    assert_eq!(
        net.nodes[1].log().last_index(),
        net.nodes[0].log().last_index()
    );
}

/// §7 with progress: a snapshot in flight is not sent again on each heartbeat, only when the
/// longest election timeout passes without an answer.
#[test]
fn progress_snapshot_in_flight_is_not_sent_again_until_answered_or_timeout() {
    // Without check-quorum, so the leader stays while this test drops every answer.
    let mut net = Net::new(3, cfg(true, false));
    net.elect(0);
    net.isolate(2);
    for k in 1..=20 {
        net.nodes[0].propose(net.now, Cmd(k)).unwrap();
        net.settle();
    }
    net.nodes[0].snapshot_taken(10, (1..=9).collect());
    net.nodes[0].snapshot_taken(21, (1..=20).collect());
    net.heal();
    let snaps = |net: &Net| {
        to(net, 2)
            .iter()
            .filter(|m| matches!(m, Message::Snapshot { .. }))
            .count()
    };
    // n3's entries went out while it was cut off; once they count as lost, it is probed from
    // its match, which is compacted: InstallSnapshot.
    let mut sent = 0;
    for _ in 0..20 {
        net.fire(0);
        net.collect();
        sent = snaps(&net);
        net.queue.clear(); // the snapshot is slow (here: never arrives)
        if sent > 0 {
            break;
        }
    }
    let first = net.now;
    let max = net.nodes[0].config().election_timeout_max_us as i64;
    assert_eq!(sent, 1);
    assert_eq!(net.nodes[0].progress_state(2), ProgressState::Snapshot);
    let mut heartbeats = 0;
    while net.now < first + max {
        net.fire(0);
        net.collect();
        let s = snaps(&net);
        assert!(
            s == 0 || net.now >= first + max,
            "sent again {} µs after",
            net.now - first
        );
        if s > 0 {
            break; // sent again: this one arrives
        }
        heartbeats += 1;
        net.queue.clear();
    }
    assert!(
        heartbeats >= 4,
        "{heartbeats} heartbeats without a second snapshot"
    );
    net.settle();
    assert_eq!(net.nodes[0].progress_state(2), ProgressState::Replicate);
    assert_eq!(net.nodes[2].commit_index(), 21);
}

/// The messages from `from` to `to` in the queue, taken out of it (the test decides their fate).
fn take(net: &mut Net, from: NodeId, to: NodeId) -> Vec<Message<Cmd>> {
    let (mut taken, mut kept) = (Vec::new(), Vec::new());
    for (f, t, m) in std::mem::take(&mut net.queue) {
        if (f, t) == (from, to) {
            taken.push(m);
        } else {
            kept.push((f, t, m));
        }
    }
    net.queue = kept;
    taken
}

/// etcd-raft's `MaybeDecrTo`: a rejection names the append it refuses, and one of an append
/// at or below the follower's match is older than what matched (reordered or duplicated): it
/// leaves the follower in replicate. A fresh one (the follower missed an append and refuses
/// the next) sends it back to probe.
#[test]
fn progress_replicate_a_rejection_at_or_below_match_is_stale_and_ignored() {
    let mut net = Net::new(3, cfg(true, true));
    net.elect(0);
    for k in 1..=3 {
        net.nodes[0].propose(net.now, Cmd(k)).unwrap();
        net.settle();
    }
    let m = net.nodes[0].match_index(1);
    assert_eq!(m, 4);
    let term = net.nodes[0].term();
    for stale in [1, m - 1, m] {
        net.nodes[0].step(
            net.now,
            1,
            Message::AppendReply {
                term,
                success: false,
                match_index: 0,
                rejected_index: stale,
                hint_index: 2,
                hint_term: 0,
            },
        );
        net.collect();
        assert_eq!(
            net.nodes[0].progress_state(1),
            ProgressState::Replicate,
            "a rejection of an append at {stale}, match {m}"
        );
        assert!(to(&net, 1).is_empty(), "nothing is sent again");
    }
    net.nodes[0].propose(net.now, Cmd(4)).unwrap();
    net.nodes[0].propose(net.now, Cmd(5)).unwrap();
    net.collect();
    let appends = take(&mut net, 0, 1);
    assert_eq!(appends.len(), 2, "both stream out in replicate");
    // The first is lost; the second is refused.
    net.nodes[1].step(net.now, 0, appends[1].clone());
    let reply = net.nodes[1].take_ready().messages.pop().unwrap().1;
    assert!(
        matches!(reply, Message::AppendReply { success: false, rejected_index, .. } if rejected_index == m + 1),
        "{reply:?}"
    );
    net.nodes[0].step(net.now, 1, reply);
    assert_eq!(net.nodes[0].progress_state(1), ProgressState::Probe);
    net.settle();
    assert_eq!(net.nodes[0].progress_state(1), ProgressState::Replicate);
    assert_eq!(net.nodes[1].log().last_index(), m + 2);
}

/// n1 leads term 2 with five entries; n2, cut off meanwhile, holds index 1 only and is probed
/// where n1's log ended when elected, at 4 (its no-op is 5). Without pre-vote and check-quorum,
/// so n1 takes over from n0 at once.
fn n1_leads_and_probes_n2_behind() -> Net {
    let mut net = Net::new(3, cfg(false, false));
    net.elect(0);
    net.settle();
    net.isolate(2);
    for k in 1..=3 {
        net.nodes[0].propose(net.now, Cmd(k)).unwrap();
        net.settle();
    }
    net.elect(1);
    net.settle();
    net.heal();
    assert_eq!(net.nodes[1].progress_state(2), ProgressState::Probe);
    net
}

/// etcd-raft's `MaybeDecrTo`, in probe: one probe is out, at `next - 1`; a rejection of any
/// other append (here a duplicate of the one that moved `next` back) answers a probe since
/// replaced, and sends no second probe.
#[test]
fn progress_probe_a_rejection_not_answering_the_probe_out_is_ignored() {
    let mut net = n1_leads_and_probes_n2_behind();
    net.fire(1);
    net.collect();
    let probe = take(&mut net, 1, 2);
    assert!(
        matches!(probe[..], [Message::Append { prev_index: 4, .. }]),
        "{probe:?}"
    );
    net.nodes[2].step(net.now, 1, probe[0].clone());
    let reply = net.nodes[2].take_ready().messages.pop().unwrap().1;
    assert!(
        matches!(
            reply,
            Message::AppendReply {
                success: false,
                rejected_index: 4,
                hint_index: 2,
                ..
            }
        ),
        "{reply:?}"
    );
    net.nodes[1].step(net.now, 2, reply.clone());
    net.collect();
    let next_probe = take(&mut net, 1, 2);
    assert!(
        matches!(next_probe[..], [Message::Append { prev_index: 1, .. }]),
        "the fresh rejection moves the probe back: {next_probe:?}"
    );
    net.nodes[1].step(net.now, 2, reply);
    net.collect();
    assert!(
        take(&mut net, 1, 2).is_empty(),
        "the duplicate is ignored: one probe stays out"
    );
    assert_eq!(net.nodes[1].progress_state(2), ProgressState::Probe);
    net.nodes[2].step(net.now, 1, next_probe[0].clone());
    net.settle();
    assert_eq!(net.nodes[1].progress_state(2), ProgressState::Replicate);
    assert_eq!(net.nodes[2].log().last_index(), 5);
}

/// etcd-raft's probe: one message, then a pause until the follower answers. To a follower that
/// does not answer, a probe goes out at most once per heartbeat interval and carries at most
/// one entry (not a batch each heartbeat); new entries wait. Once it answers, it is replicated
/// to again and catches up in batches.
#[test]
fn progress_probe_sends_one_entry_at_most_once_per_heartbeat_until_answered() {
    let mut net = Net::new(3, cfg(true, true));
    net.elect(0);
    net.settle();
    net.cut.push((0, 2));
    for k in 1..=10 {
        net.nodes[0].propose(net.now, Cmd(k)).unwrap();
        net.settle();
    }
    net.heal();
    let heartbeat = net.nodes[0].config().heartbeat_us as i64;
    let mut probes: Vec<(i64, Message<Cmd>)> = Vec::new();
    for round in 0..40 {
        net.fire(0);
        if round == 20 {
            net.nodes[0].propose(net.now, Cmd(11)).unwrap();
        }
        net.collect();
        let sent = take(&mut net, 0, 2); // n2 hears nothing, answers nothing
        net.settle();
        assert!(sent.len() <= 1, "one message at a time: {sent:?}");
        if net.nodes[0].progress_state(2) == ProgressState::Probe {
            probes.extend(sent.into_iter().map(|m| (net.now, m)));
        }
    }
    assert!(probes.len() >= 10, "probed {} times", probes.len());
    for (at, m) in &probes {
        let Message::Append { entries, .. } = m else {
            panic!("{m:?}")
        };
        assert!(
            entries.len() <= 1,
            "at {at} µs a probe of {}",
            entries.len()
        );
    }
    for w in probes.windows(2) {
        assert!(
            w[1].0 - w[0].0 >= heartbeat,
            "probes at {} and {} µs",
            w[0].0,
            w[1].0
        );
    }
    // n2 answers the last probe: it is replicated to again and catches up.
    let (_, last) = probes.pop().unwrap();
    net.nodes[2].step(net.now, 0, last);
    net.settle();
    assert_eq!(net.nodes[0].progress_state(2), ProgressState::Replicate);
    assert_eq!(
        net.nodes[2].log().last_index(),
        net.nodes[0].log().last_index()
    );
}

/// A probe sent on a rejection between two heartbeats stands for the interval's message: the
/// next heartbeat sends no second probe, the one after re-sends it if it is still unanswered.
#[test]
fn progress_probe_sent_within_the_heartbeat_interval_is_not_repeated_by_the_heartbeat() {
    let mut net = n1_leads_and_probes_n2_behind();
    let heartbeat = net.nodes[1].config().heartbeat_us as i64;
    net.fire(1);
    net.collect();
    let probe = take(&mut net, 1, 2);
    net.nodes[2].step(net.now, 1, probe[0].clone());
    let reply = net.nodes[2].take_ready().messages.pop().unwrap().1;
    net.now += heartbeat / 2;
    net.nodes[1].step(net.now, 2, reply);
    net.collect();
    let sent_at = net.now;
    assert_eq!(
        take(&mut net, 1, 2).len(),
        1,
        "the rejection moves the probe back at once"
    );
    net.fire(1);
    net.collect();
    assert_eq!(net.now - sent_at, heartbeat / 2, "the next heartbeat");
    assert!(
        take(&mut net, 1, 2).is_empty(),
        "no second probe within the interval"
    );
    net.fire(1);
    net.collect();
    assert_eq!(net.now - sent_at, heartbeat * 3 / 2);
    assert!(
        matches!(take(&mut net, 1, 2)[..], [Message::Append { prev_index: 1, ref entries, .. }] if entries.len() == 1),
        "unanswered for an interval: the probe again"
    );
}

// ---- a local clock set back (a jump): timers keep what they waited ---------------------------

/// The node's clock is set back 10 s; the host tells it at once (as the simulator does on a
/// jump), then time runs on in steps of 10 ms. Returns the local time when `done` first holds,
/// if it does within `limit_us` of the jump.
fn after_jump_back(
    net: &mut Net,
    i: NodeId,
    limit_us: i64,
    mut done: impl FnMut(&mut Net) -> bool,
) -> Option<i64> {
    net.now -= 10_000_000;
    let jumped = net.now;
    net.nodes[i].tick(net.now);
    while net.now <= jumped + limit_us {
        net.now += 10_000;
        net.nodes[i].tick(net.now);
        if done(net) {
            return Some(net.now - jumped);
        }
    }
    None
}

/// Thesis §6.2 under a clock set back: a partitioned leader whose clock jumps back 10 s still
/// steps down within two election timeouts of the jump (the lease it counts does not grow by
/// the jump).
#[test]
fn check_quorum_6_2_a_leader_whose_clock_jumps_back_10_s_still_steps_down() {
    let mut net = Net::new(3, cfg(true, true));
    net.elect(0);
    net.settle();
    net.isolate(0);
    let min = net.nodes[0].config().election_timeout_min_us as i64;
    let took = after_jump_back(&mut net, 0, 2 * min, |net| {
        net.settle();
        net.nodes[0].role() == Role::Follower
    });
    assert!(
        took.is_some(),
        "still leading {} µs after the jump",
        2 * min
    );
}

/// Progress under a clock set back: entries lost just before the leader's clock jumps back
/// 10 s are still sent again once they have waited the shortest election timeout (plus a
/// heartbeat), not 10 s later.
#[test]
fn progress_replicate_a_clock_jump_back_of_10_s_does_not_delay_the_resend() {
    let mut net = Net::new(3, cfg(true, true));
    net.elect(0);
    net.settle();
    net.nodes[0].propose(net.now, Cmd(7)).unwrap();
    net.collect();
    net.queue.clear(); // lost
    let cfg = net.nodes[0].config().clone();
    let limit = (cfg.election_timeout_min_us + cfg.heartbeat_us) as i64;
    let took = after_jump_back(&mut net, 0, limit, |net| {
        net.collect();
        let resent = to(net, 1)
            .iter()
            .any(|m| matches!(m, Message::Append { entries, .. } if !entries.is_empty()));
        net.queue.clear();
        resent
    });
    assert!(took.is_some(), "not sent again {limit} µs after the jump");
}

/// §5.2 under a clock set back: a follower whose leader is gone and whose clock jumps back
/// 10 s still times out within its election timeout of the jump.
#[test]
fn election_5_2_a_follower_whose_clock_jumps_back_10_s_still_campaigns_within_its_timeout() {
    let mut net = Net::new(3, cfg(true, true));
    net.elect(0);
    net.settle();
    net.isolate(0);
    let max = net.nodes[1].config().election_timeout_max_us as i64;
    let took = after_jump_back(&mut net, 1, max, |net| {
        net.nodes[1].role() != Role::Follower
    });
    assert!(took.is_some(), "no campaign {max} µs after the jump");
}

/// n1 votes for n0 in term 1, restarts, and is asked by n2 for its vote in the same term.
/// Returns whether it granted that second vote.
fn votes_twice_after_restart(forget: bool) -> bool {
    let c = RaftConfig {
        forget_vote_on_restart: forget,
        ..cfg(true, true)
    };
    let mut net = Net::new(3, c.clone());
    let now = net.now;
    let ask = |pre| Message::Vote {
        term: 1,
        last_index: 0,
        last_term: 0,
        pre,
    };
    net.nodes[1].step(now, 0, ask(false));
    net.nodes[1].take_ready();
    assert_eq!(
        (net.nodes[1].term(), net.nodes[1].voted_for()),
        (1, Some(0))
    );
    let hs = net.nodes[1].hard_state();
    net.nodes[1] = Raft::restart(NodeSetup::new(1, 3).cfg(c).rng(Rng::new(9)).at(now), hs);
    net.nodes[1].step(now, 2, ask(true));
    let pre = prevote_reply(&mut net.nodes[1]);
    net.nodes[1].step(now, 2, ask(false));
    let granted = match &net.nodes[1].take_ready().messages[..] {
        [(
            _,
            Message::VoteReply {
                granted,
                pre: false,
                ..
            },
        )] => *granted,
        m => panic!("{m:?}"),
    };
    assert_eq!(pre, granted, "the pre-vote and the vote agree");
    granted
}

#[test]
fn persistent_state_5_figure_2_a_restarted_node_remembers_its_vote() {
    assert!(
        !votes_twice_after_restart(false),
        "votedFor is persistent: one vote per term, across a restart"
    );
}

#[test]
fn forget_vote_on_restart_a_restarted_node_votes_twice_in_one_term() {
    assert!(
        votes_twice_after_restart(true),
        "with the switch, the restarted node has no vote in term 1 and grants a second one"
    );
}

#[path = "tests/membership.rs"]
mod membership;
