//! The playground model the page drives: seek, replay, take over, manual client steps.

use super::*;

#[test]
fn playground_seek_back_and_forward_reproduces_the_same_moment() {
    let mut p = Playground::new(swarm::random_scenario(5)).unwrap();
    p.advance_to(12_000_000, false);
    let hash_at_end = p.world.trace.hash();
    p.seek(3_000_000);
    assert_eq!(p.now_us(), 3_000_000);
    p.seek(12_000_000);
    assert_eq!(p.world.trace.hash(), hash_at_end);
}

#[test]
fn playground_step_event_processes_one_counted_event_past_stale_timers() {
    // 16 clients on 4 keys reset many timers; a step over one of them must still be a step.
    let clients: Vec<_> = (0..16)
        .map(|i| {
            let key = format!("k{}", i % 4);
            json!({"name": format!("c{i}"), "repeat": true, "start_ms": 500 + 37 * i, "script": [
                {"acquire": {"key": key, "lease_ms": 1000}}, {"work": {"key": key, "ms": 100}},
                {"release": {"key": key}}, {"sleep": {"ms": 200}}]})
        })
        .collect();
    let doc = json!({"version": 1, "name": "busy", "seed": 1, "nodes": 7, "clients": clients, "until_ms": 60_000});
    let sc = Scenario::from_json(&doc.to_string()).unwrap();
    // The raw world skips stale timers uncounted: the run has them.
    let mut w = World::new(&sc, true).unwrap();
    let mut stale = 0;
    for _ in 0..20_000 {
        let before = w.stats.events;
        w.step();
        stale += usize::from(w.stats.events == before);
    }
    assert!(
        stale > 0,
        "the run has no stale timer: the test would show nothing"
    );
    let mut p = Playground::new(sc).unwrap();
    for _ in 0..20_000 {
        let before = p.world.stats.events;
        p.step_event();
        assert_eq!(p.world.stats.events, before + 1, "at {} us", p.now_us());
    }
    while w.stats.events < p.world.stats.events {
        w.step();
    }
    assert_eq!(
        p.world.trace.hash(),
        w.trace.hash(),
        "stepping is the same run"
    );
}

#[test]
fn playground_recorded_actions_replay_exactly_from_the_document() {
    let mut p = Playground::new(example()).unwrap();
    p.advance_to(700_000, false);
    p.act(Action::Crash { node: 2 }).unwrap();
    p.step_event();
    p.step_event();
    p.act(Action::Cut {
        from: "n1".into(),
        to: "n3".into(),
    })
    .unwrap();
    p.advance_to(3_000_000, false);
    p.act(Action::HealAll).unwrap();
    p.advance_to(6_000_000, false);
    let live = p.world.trace.hash();
    // The document alone (as a share link would carry it) reproduces the run.
    let mut replay = World::new(&p.scenario, true).unwrap();
    replay.run_until(6_000_000);
    assert_eq!(replay.trace.hash(), live);
    assert_eq!(replay.trace.to_jsonl(), p.world.trace.to_jsonl());
    // Seeking back over the recorded actions and forward again gives the same run too.
    p.seek(500_000);
    p.seek(6_000_000);
    assert_eq!(p.world.trace.hash(), live);
}

/// A node added during play, after a partition and with clients running, replays the same from
/// the link's document: the run counts the new slot only from the moment it is added, in play
/// and in the replay alike (found by the membership nemesis: the replay counted it from the
/// start, so clients and partitions saw another cluster).
#[test]
fn playground_recorded_membership_changes_replay_exactly_from_the_document() {
    let mut p = Playground::new(example()).unwrap();
    p.advance_to(1_500_000, false);
    p.act(Action::Partition {
        groups: vec![vec![1, 2, 3], vec![4, 5]],
    })
    .unwrap();
    p.advance_to(2_500_000, false);
    p.act(Action::AddNode { node: 6 }).unwrap();
    p.advance_to(4_000_000, false);
    p.act(Action::HealAll).unwrap();
    p.advance_to(6_000_000, false);
    assert!(p.world.membership().is_member(5), "n6 joined");
    let mut replay = World::new(&p.scenario, true).unwrap();
    replay.run_until(6_000_000);
    assert_eq!(replay.trace.to_jsonl(), p.world.trace.to_jsonl());
}

/// Acting in the past of a lesson drops its later actions; when its captions name a node that a
/// dropped action adds, the action is refused with the reason and nothing changes (it used to
/// panic: found by an outside review).
#[test]
fn playground_taking_over_before_a_needed_add_node_is_refused_and_changes_nothing() {
    let sc = raftlock::scenario::builtin::get("break-conf-before-noop").unwrap();
    let mut p = Playground::new(sc).unwrap();
    p.advance_to(1_200_000, false);
    p.seek(500_000);
    let (before, now) = (p.scenario.clone(), p.now_us());
    let e = p.act(Action::Crash { node: 1 }).unwrap_err();
    assert!(
        e.to_string()
            .contains("taking over here would drop actions"),
        "{e}"
    );
    assert_eq!(p.scenario, before);
    assert_eq!(p.now_us(), now);
    assert!(p.take_over().is_err());
    // Later than the add, taking over works.
    p.seek(1_050_000);
    p.act(Action::Crash { node: 1 }).unwrap();
}

#[test]
fn playground_an_action_after_24_h_is_refused_and_the_document_stays_valid() {
    let mut sc =
        Scenario::from_json(r#"{"version":1,"name":"day","seed":1,"nodes":1,"until_ms":86400000}"#)
            .unwrap();
    sc.until_ms = raftlock::scenario::RUN_MS_MAX;
    let mut p = Playground::new(sc).unwrap();
    p.advance_to(p.end_us(), false);
    assert!(p.at_end());
    let e = p.act(Action::Crash { node: 1 }).unwrap_err();
    assert!(e.to_string().contains("a run ends at 24 h"), "{e}");
    assert!(p.scenario.timeline.is_empty());
    assert!(Scenario::from_json(&p.scenario.to_json()).is_ok());
    // A moment before it still takes one.
    p.seek(p.end_us() - 5_000);
    p.act(Action::Crash { node: 1 }).unwrap();
    assert!(Scenario::from_json(&p.scenario.to_json()).is_ok());
}

#[test]
fn playground_take_over_discards_the_future_and_continues_with_new_actions() {
    let mut p = Playground::new(example()).unwrap();
    p.advance_to(1_000_000, false);
    p.act(Action::Pause { node: 1 }).unwrap();
    p.advance_to(5_000_000, false);
    p.seek(500_000);
    p.act(Action::Crash { node: 3 }).unwrap(); // acting in the past takes over
    assert_eq!(
        p.scenario
            .timeline
            .iter()
            .filter(|t| matches!(t.action, Action::Pause { .. }))
            .count(),
        0,
        "the future pause is gone"
    );
    assert!(p.horizon_us < 1_000_000);
    p.advance_to(4_000_000, false);
    let mut replay = World::new(&p.scenario, true).unwrap();
    replay.run_until(4_000_000);
    assert_eq!(replay.trace.hash(), p.world.trace.hash());
}

#[test]
fn playground_step_back_and_step_to_next_apply() {
    let mut p = Playground::new(example()).unwrap();
    p.step_to_next_apply(10_000_000);
    assert!(matches!(
        p.world.trace.lines.last().unwrap().ev,
        Event::Apply { .. }
    ));
    let t = p.now_us();
    p.step_back();
    assert!(p.now_us() < t);
}

#[test]
fn a_user_can_make_an_idle_client_acquire_and_release_from_the_page() {
    let mut p = Playground::new(scenario(json!({"version": 1, "seed": 3, "nodes": 3, "clients": [{"name": "A", "script": []}], "until_ms": 60000}))).unwrap();
    p.advance_to(1_000_000, false);
    p.act(Action::ClientAcquire {
        client: "A".into(),
        key: "door".into(),
        lease_ms: 5000,
    })
    .unwrap();
    p.advance_to(1_500_000, false);
    assert!(p.world.clients[0].client.held.contains_key("door"));
    assert!(p.world.nodes[0]
        .server()
        .unwrap()
        .machine
        .locks
        .contains_key("door"));
    p.act(Action::ClientRelease {
        client: "A".into(),
        key: "door".into(),
    })
    .unwrap();
    p.advance_to(2_000_000, false);
    assert!(p.world.clients[0].client.held.is_empty());
    assert!(p
        .world
        .nodes
        .iter()
        .all(|n| n.server().unwrap().machine.locks.is_empty()));
    assert!(
        p.act(Action::ClientAcquire {
            client: "Z".into(),
            key: "k".into(),
            lease_ms: 5
        })
        .is_err(),
        "unknown client refused"
    );
    assert!(
        p.act(Action::SetRate {
            node: 1,
            rate_ppm: 1
        })
        .is_err(),
        "absurd rate refused"
    );
    assert!(p.world.violations().is_empty());
}

/// Swarm trace hashes, shared with the browser test: the same seeds give the same hashes there.
#[test]
fn determinism_swarm_seeds_match_the_golden_hashes() {
    let mut got = String::new();
    for seed in 1..=8 {
        got.push_str(&format!("{seed} {}\n", swarm::run_one(seed).trace_hash));
    }
    golden("swarm-hashes.txt", &got);
}
