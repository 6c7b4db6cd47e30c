//! Membership change on the whole simulated system (Raft dissertation ch. 4): documents with
//! `add_node` and `remove_node`, refusals with their reasons, and the swarm with changes drawn.

use super::*;
use raftlock::raft::{ConfChange, ConfRefusal};

fn grow_doc(timeline: serde_json::Value) -> serde_json::Value {
    json!({
        "version": 1, "seed": 7, "nodes": 3,
        "clients": [{ "name": "A", "script": [{ "acquire": { "key": "k", "lease_ms": 60000 } }] }],
        "timeline": timeline,
        "until_ms": 8000
    })
}

fn refusals(w: &World) -> Vec<(String, &'static str)> {
    w.trace
        .lines
        .iter()
        .filter_map(|l| match &l.ev {
            Event::Refused { what, why } => Some((what.clone(), *why)),
            _ => None,
        })
        .collect()
}

fn voters(w: &World) -> Vec<usize> {
    w.membership().voters().map(|i| i + 1).collect()
}

#[test]
fn membership_grows_3_to_5_with_learners_then_removes_the_leader_and_the_lock_keeps_its_token() {
    let mut w = world(grow_doc(json!([
        { "at_ms": 1000, "do": "add_node", "node": 4 },
        { "at_ms": 2000, "do": "add_node", "node": 5 }
    ])));
    ms(&mut w, 1001);
    assert!(
        w.membership().is_learner(3),
        "n4 joins as a learner: {:?}",
        w.membership()
    );
    ms(&mut w, 3000);
    assert_eq!(voters(&w), [1, 2, 3, 4, 5]);
    let granted = |w: &World| {
        w.trace.lines.iter().find_map(|l| match &l.ev {
            Event::Client {
                outcome: "granted",
                token,
                ..
            } => *token,
            _ => None,
        })
    };
    let token = granted(&w).expect("A holds k");
    let leader = w.leader().unwrap();
    w.act(&Action::RemoveNode { node: leader + 1 });
    ms(&mut w, 8000);
    no_violations(&w);
    assert_eq!(voters(&w).len(), 4);
    assert!(!w.membership().is_member(leader), "the old leader left");
    let new_leader = w.leader().expect("a new leader");
    assert_ne!(new_leader, leader);
    let s = w.nodes[new_leader].server().unwrap();
    assert_eq!(
        s.machine.locks.get("k").map(|l| l.token),
        Some(token),
        "the lock held across the changes keeps its token"
    );
    assert_eq!(swarm::check_converged(&w), Ok(()));
}

#[test]
fn membership_changes_that_may_not_happen_are_refused_with_the_reason_and_change_nothing() {
    let mut w = world(grow_doc(json!([
        { "at_ms": 1000, "do": "add_node", "node": 2 },
        { "at_ms": 1000, "do": "remove_node", "node": 6 },
        { "at_ms": 2000, "do": "add_node", "node": 4 },
        { "at_ms": 2000, "do": "add_node", "node": 5 }
    ])));
    ms(&mut w, 6000);
    let got = refusals(&w);
    let why: Vec<_> = got.iter().map(|r| r.1).collect();
    assert_eq!(
        why,
        [
            ConfRefusal::AlreadyMember.reason(),
            ConfRefusal::NotMember.reason(),
            ConfRefusal::InFlight { index: 0 }.reason(),
        ],
        "{got:?}"
    );
    assert_eq!(voters(&w), [1, 2, 3, 4], "only n4 was added");
    assert!(w.nodes[4].is_absent(), "no server was started for n5");
    no_violations(&w);
}

#[test]
fn membership_before_the_first_leader_is_refused_for_want_of_one() {
    let mut w = world(grow_doc(
        json!([{ "at_ms": 1, "do": "add_node", "node": 4 }]),
    ));
    ms(&mut w, 100);
    assert_eq!(
        refusals(&w).iter().map(|r| r.1).collect::<Vec<_>>(),
        [ConfRefusal::NotLeader.reason()]
    );
    assert_eq!(
        w.can_change(ConfChange::add_learner(3)),
        Err(ConfRefusal::NotLeader)
    );
}

#[test]
fn membership_the_last_voter_cannot_be_removed() {
    let mut w = world(json!({ "version": 1, "seed": 1, "nodes": 1, "until_ms": 2000 }));
    ms(&mut w, 1000);
    assert_eq!(
        w.can_change(ConfChange::remove(0)),
        Err(ConfRefusal::LastVoter)
    );
}

#[test]
fn membership_actions_in_a_document_are_checked_and_read_back() {
    let bad = |timeline: serde_json::Value| {
        Scenario::from_json(&grow_doc(timeline).to_string())
            .and_then(|s| s.validate().map(|_| s))
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    let e = bad(json!([{ "at_ms": 10, "do": "add_node", "node": 8 }])).unwrap_err();
    assert!(e.contains("timeline[0].node"), "{e}");
    let e = bad(json!([{ "at_ms": 10, "do": "remove_node" }])).unwrap_err();
    assert!(e.contains("node"), "{e}");
    // An id an add_node names may be acted on (crash n6 after adding it).
    assert_eq!(
        bad(json!([
            { "at_ms": 10, "do": "add_node", "node": 6 },
            { "at_ms": 20, "do": "crash", "node": 6 }
        ])),
        Ok(())
    );
    let sc = scenario(grow_doc(
        json!([{ "at_ms": 10, "do": "remove_node", "node": 2 }]),
    ));
    let back = Scenario::from_json(&sc.to_json()).unwrap();
    assert_eq!(back, sc);
}

#[test]
fn membership_an_action_on_a_node_whose_add_was_refused_changes_nothing() {
    let mut w = world(grow_doc(json!([
        { "at_ms": 1, "do": "add_node", "node": 7 },
        { "at_ms": 500, "do": "crash", "node": 7 },
        { "at_ms": 600, "do": "set_rate", "node": 7, "rate_ppm": 2000000 },
        { "at_ms": 700, "do": "restart", "node": 7 }
    ])));
    ms(&mut w, 3000);
    assert!(w.nodes[6].is_absent());
    no_violations(&w);
}

/// The swarm with membership changes drawn (safeguards on): every invariant after every event,
/// then convergence of the members. `RAFTLOCK_MEMBERSHIP_SEEDS` sets how many seeds. Seed 220
/// found an id added back voting with an empty log; seed 400, a cluster stuck when a leader
/// that removed itself lost office before the change committed.
/// The two membership invariants on runs made to tempt them: a leader cut from both its voters
/// holds a learner's reply (`learner_never_counts`: the addition must not commit on it), and a
/// leader asked for a second change while the first is in flight (`one_uncommitted_config_
/// change`: refused). Each breaks when its rule is taken out of the core (the closing note of
/// issue 42 lists the mutations tried).
#[test]
fn membership_invariants_a_learner_never_counts_and_one_change_at_a_time_hold_when_tempted() {
    let mut p =
        Playground::new(Scenario::from_json(&grow_doc(json!([])).to_string()).unwrap()).unwrap();
    p.advance_to(1_000_000, false);
    let l = p.world.leader().expect("a leader by 1 s") + 1;
    // Cut the leader from its voters, then add n4 and let the two talk.
    p.act(Action::Isolate { node: l }).unwrap();
    p.act(Action::AddNode { node: 4 }).unwrap();
    for (from, to) in [(l, 4), (4, l)] {
        let (from, to) = (format!("n{from}"), format!("n{to}"));
        p.act(Action::Heal { from, to }).unwrap();
    }
    let e = p.act(Action::AddNode { node: 5 }).unwrap_err();
    assert!(e.to_string().contains("in flight"), "{e}");
    p.advance_to(1_120_000, false);
    assert_eq!(p.world.violations().len(), 0, "{:?}", p.world.violations());
    let s = p.world.nodes[l - 1].server().unwrap();
    assert!(s.raft.is_leader(), "n{l} still leads (check-quorum waits)");
    assert!(
        s.raft.match_index(3) >= s.raft.log().last_conf_index().unwrap(),
        "the learner holds the addition"
    );
    assert!(
        s.raft.commit_index() < s.raft.log().last_conf_index().unwrap(),
        "yet it does not commit on the learner"
    );
}

/// A partition names every id it cuts, those not added yet too: a node added while it holds is
/// on the side the partition put it on, and one it names nowhere is cut off on its own.
#[test]
fn membership_a_node_added_during_a_partition_is_on_the_side_it_names() {
    let mut w = world(grow_doc(json!([
        { "at_ms": 1000, "do": "partition", "groups": [[1, 2, 3, 4], [5]] },
        { "at_ms": 1200, "do": "add_node", "node": 4 },
        { "at_ms": 1400, "do": "add_node", "node": 5 }
    ])));
    ms(&mut w, 1500);
    assert!(w.membership().is_member(3), "n4 joined");
    assert!(w.net.is_up(3, 0) && w.net.is_up(0, 3), "n4 is with n1");
    assert!(
        !w.net.is_up(4, 0) && !w.net.is_up(0, 4),
        "n5 is on the other side"
    );
    assert!(!w.net.is_up(4, 3), "and cut from n4");
}

#[test]
fn membership_swarm_finds_no_violation() {
    let n: u64 = std::env::var("RAFTLOCK_MEMBERSHIP_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(500);
    for seed in 0..n {
        let sc = swarm::membership_scenario(seed, false);
        let out = swarm::run_membership(seed, sc);
        assert!(
            out.ok(),
            "seed {seed}: {:?} {:?}",
            out.violations,
            out.convergence
        );
    }
}
