//! Raft scenarios as short scripts: partitions, crashes, pauses, one-way cuts, pre-vote.

use super::*;

#[test]
fn script_partition_minority_leader_steps_down_majority_elects_and_heal_converges() {
    let mut w = world(json!({"version": 1, "seed": 21, "nodes": 5, "until_ms": 6000}));
    ms(&mut w, 1_000);
    let l = leader(&w) + 1;
    let others: Vec<usize> = (1..=5).filter(|&k| k != l).collect();
    w.act(&Action::Partition {
        groups: vec![vec![l, others[0]], others[1..].to_vec()],
    });
    ms(&mut w, 2_500);
    let new = leader(&w) + 1;
    assert!(others[1..].contains(&new), "a majority-side leader: n{new}");
    assert_ne!(
        w.nodes[l - 1].server().unwrap().raft.role(),
        Role::Leader,
        "check-quorum stepped the old leader down"
    );
    w.act(&Action::HealAll);
    ms(&mut w, 4_000);
    let hashes: Vec<u64> = (0..5)
        .map(|i| {
            let r = &w.nodes[i].server().unwrap().raft;
            r.log().prefix_hash(r.log().last_index()).unwrap()
        })
        .collect();
    assert!(hashes.iter().all(|h| *h == hashes[0]));
    no_violations(&w);
}

#[test]
fn script_crash_and_restart_a_follower_catches_up() {
    let mut w = world(json!({"version": 1, "seed": 22, "nodes": 3,
        "clients": [{"name": "A", "repeat": true, "script": [{"acquire": {"key": "k", "lease_ms": 500}}, {"release": {"key": "k"}}]}],
        "until_ms": 6000}));
    ms(&mut w, 1_000);
    let f = (leader(&w) + 1) % 3;
    w.act(&Action::Crash { node: f + 1 });
    ms(&mut w, 3_000);
    assert!(w.nodes[f].server().is_none());
    w.act(&Action::Restart { node: f + 1 });
    ms(&mut w, 6_000);
    let l = leader(&w);
    let (fr, lr) = (
        &w.nodes[f].server().unwrap().raft,
        &w.nodes[l].server().unwrap().raft,
    );
    assert!(
        fr.commit_index() + 5 >= lr.commit_index(),
        "caught up: {} vs {}",
        fr.commit_index(),
        lr.commit_index()
    );
    no_violations(&w);
}

#[test]
fn script_paused_leader_wakes_and_its_stale_proposals_never_take_effect() {
    let mut w = world(json!({"version": 1, "seed": 23, "nodes": 3,
        "clients": [holder(800, 60_000, 300)], "until_ms": 8000}));
    ms(&mut w, 500);
    let l = leader(&w);
    w.act(&Action::Pause { node: l + 1 });
    ms(&mut w, 3_000);
    assert_ne!(leader(&w), l, "a new leader while the old one sleeps");
    w.act(&Action::Resume { node: l + 1 });
    ms(&mut w, 8_000);
    assert_eq!(w.nodes[l].server().unwrap().raft.role(), Role::Follower);
    no_violations(&w);
}

#[test]
fn script_one_way_cut_is_one_way() {
    let mut w = world(
        json!({"version": 1, "seed": 24, "nodes": 3, "until_ms": 3000,
        "timeline": [{"at_ms": 0, "do": "cut", "from": "n1", "to": "n2"}]}),
    );
    ms(&mut w, 3_000);
    assert!(!w.net.is_up(0, 1));
    assert!(w.net.is_up(1, 0));
    no_violations(&w);
}

#[test]
fn script_rejoining_node_with_higher_term_disrupts_only_without_prevote() {
    let run = |pre_vote: bool| {
        let mut w = world(
            json!({"version": 1, "seed": 25, "nodes": 3, "raft": {"pre_vote": pre_vote, "check_quorum": pre_vote}, "until_ms": 8000}),
        );
        ms(&mut w, 1_000);
        let l = leader(&w);
        let f = (l + 1) % 3;
        w.act(&Action::Isolate { node: f + 1 });
        ms(&mut w, 4_000);
        let term_isolated = w.nodes[f].server().unwrap().raft.term();
        w.act(&Action::HealAll);
        ms(&mut w, 8_000);
        violated_only(
            &w,
            if pre_vote {
                &[]
            } else {
                &["healthy_leader_not_deposed"]
            },
        );
        (term_isolated, w.stats.leader_changes)
    };
    let (t_pre, changes_pre) = run(true);
    let (t_nopre, changes_nopre) = run(false);
    assert_eq!(t_pre, 1, "with pre-vote the isolated node's term stays");
    assert!(t_nopre > 5, "without pre-vote it climbs: {t_nopre}");
    assert_eq!(changes_pre, 1);
    assert!(changes_nopre >= 2, "and the rejoin forces a new election");
}
