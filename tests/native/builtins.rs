//! Built-in scenarios and lessons, share links, break-it switches, the hunt, the history check.

use super::*;

/// Every built-in scenario's expected-outcome checks pass, and its trace hash is pinned (the
/// browser test compares against the same file).
#[test]
fn builtin_scenarios_pass_their_checks_and_match_the_golden_hashes() {
    let mut got = String::new();
    for name in raftlock::scenario::builtin::names() {
        let sc = raftlock::scenario::builtin::get(name).unwrap();
        let mut w = World::new(&sc, true).unwrap();
        w.check_every_event = true;
        w.run_until(sc.until_ms * 1000);
        for c in sc.lesson.iter().flat_map(|l| l.checks.iter()) {
            assert!(c.passed(&w), "{name}: check failed: {}", c.describe());
        }
        got.push_str(&format!("{name} {}\n", w.trace.hash_hex()));
    }
    golden("builtin-hashes.txt", &got);
}

/// Every built-in lesson is true: each caption's moment comes, each fact it states holds there,
/// and at its last caption every expected outcome is already met (the lesson plays to its end).
#[test]
fn every_builtin_lesson_caption_is_true_and_the_lesson_ends_after_its_outcome() {
    let mut facts = 0;
    for name in raftlock::scenario::builtin::names() {
        let sc = raftlock::scenario::builtin::get(name).unwrap();
        let Some(lesson) = &sc.lesson else { continue };
        let v = raftlock::scenario::walk::verdict(&sc, |_, _| {});
        assert!(v.wrong.is_empty(), "{name}: {:?}", v.wrong);
        for (i, c) in lesson.captions.iter().enumerate() {
            let says_what_happened = c.on.is_some() || c.text.en.contains("Red");
            assert!(
                !c.checks.is_empty() || !says_what_happened,
                "{name}: caption {} states what happened but checks none of it",
                i + 1
            );
            facts += c.checks.len();
        }
    }
    assert!(
        facts > 200,
        "the built-in captions carry their facts ({facts})"
    );
}

#[test]
fn builtin_scenarios_checks_fail_when_the_story_does_not_happen() {
    // The checks are not vacuous: without the pause, nobody's write is rejected in gc-pause.
    let mut sc = raftlock::scenario::builtin::get("gc-pause").unwrap();
    sc.timeline.clear();
    let w = raftlock::run_scenario(&sc, true).unwrap();
    let checks = &sc.lesson.as_ref().unwrap().checks;
    assert!(checks.iter().any(|c| !c.passed(&w)));
}

#[test]
fn share_link_reproduces_the_same_run_at_the_same_moment() {
    let mut p = Playground::new(raftlock::scenario::builtin::get("playground").unwrap()).unwrap();
    p.advance_to(1_500_000, false);
    p.act(Action::Isolate { node: 1 }).unwrap();
    p.advance_to(2_700_000, false);
    p.act(Action::SetRate {
        node: 3,
        rate_ppm: 2_000_000,
    })
    .unwrap();
    p.advance_to(4_200_000, false);
    let url =
        raftlock::scenario::link::encode_url("http://127.0.0.1:8080/", &p.scenario, p.now_us());
    assert!(url.len() < 2000, "{}", url.len());
    let shared = raftlock::scenario::link::decode(&url).unwrap();
    let mut q = Playground::new(shared.scenario).unwrap();
    q.advance_to(shared.moment_us, false);
    assert_eq!(q.world.trace.hash(), p.world.trace.hash());
    assert_eq!(q.now_us(), p.now_us());
}

#[test]
fn playground_stops_at_the_end_of_the_run() {
    let mut p = Playground::new(example()).unwrap();
    p.advance_to(u64::MAX, false);
    assert_eq!(p.now_us(), 6_000_000);
    assert!(p.at_end());
    let h = p.world.trace.hash();
    p.step_event();
    assert_eq!(p.world.trace.hash(), h);
    assert_eq!(
        p.world.trace.hash_hex(),
        include_str!("../golden/gc-pause.hash").trim()
    );
}

#[test]
fn fuzz_finding_endpoint_n0_is_refused_not_a_panic() {
    let doc = json!({"version": 1, "seed": 1, "nodes": 3, "timeline": [{"at_ms": 5, "do": "cut", "from": "n0", "to": "n1"}]});
    let e = Scenario::from_json(&doc.to_string()).unwrap_err();
    assert_eq!(e.field, "timeline[0].from");
    let corpus_link = include_str!("../corpus/links.txt").lines().last().unwrap();
    assert!(raftlock::scenario::link::decode(corpus_link)
        .unwrap_err()
        .to_string()
        .contains("timeline[0].from"));
}

/// The hunt finds a violation for each switch within a bounded number of random schedules, and
/// the shrunk schedule still shows it (figures for the closing note: `raftlock hunt --switch X`).
#[test]
fn hunt_finds_each_switch_within_bounded_runs_and_shrinks_it() {
    use raftlock::scenario::hunt;
    for (switch, invariant, bound) in [
        (
            "expire_ignores_token",
            "expire_deletes_only_on_token_match",
            30,
        ),
        ("followers_delete_on_countdown", "lock_tables_agree", 5),
        ("token_from_leader_counter", "tokens_strictly_increase", 5),
        ("no_ghost_release", "ghost_lock_released", 60),
        ("storage_ignores_tokens", "storage_accepts_stale_token", 100),
        (
            "release_without_holder_check",
            "release_deletes_only_held_lock",
            40,
        ),
        ("client_no_margin", "one_believed_holder", 80),
        ("no_pre_vote", "healthy_leader_not_deposed", 40),
        ("no_check_quorum", "isolated_leader_steps_down", 20),
        // Figure 8 needs a precise schedule: found at seed 5516 (a wide seed).
        ("commit_by_counting_old_terms", "leader_completeness", 5600),
        // Quick crash-and-restarts during overlapping elections: found at seed 34.
        ("forget_vote_on_restart", "election_safety", 60),
        // The membership nemesis's plan (a promotion that reaches the learner alone, a new
        // leader whose no-op cannot commit): found at seed 2.
        ("conf_change_before_noop", "leader_completeness", 30),
    ] {
        let found = hunt::hunt(&[switch], 1, bound)
            .unwrap()
            .unwrap_or_else(|| panic!("{switch}: nothing in {bound} runs"));
        assert_eq!(found.invariant, invariant, "{switch}");
        assert_eq!(
            hunt::Switch::from_name(switch).and_then(|s| s.breaks()),
            raftlock::check::Invariant::from_name(invariant),
            "{switch}: the invariant its safeguard protects"
        );
        assert!(found.shrunk.timeline.len() <= found.original_actions);
        // The found lesson reads in both languages.
        for lang in raftlock::lang::Lang::ALL {
            assert!(
                raftlock::scenario::lesson::has_lang(&found.shrunk, lang),
                "{switch}: the hunt's lesson in {}",
                lang.code()
            );
        }
        assert_eq!(
            hunt::first_violation(&found.shrunk).map(|v| v.0),
            Some(invariant),
            "{switch}: the shrunk schedule still fails"
        );
    }
    assert!(
        hunt::hunt(&[], 1, 100).unwrap().is_none(),
        "the seed's design: no violation in 100 hunt runs"
    );
    // The control: Figure 8's schedules (one entry per message, dense crashes) with Raft's rule.
    let (b, failing) = hunt::control_batch(&["commit_by_counting_old_terms"], 1, 300).unwrap();
    assert_eq!((b.runs, failing), (300, vec![]));
    // And the double vote's schedules (quick crash-and-restarts) with votes kept on disk.
    let (b, failing) = hunt::control_batch(&["forget_vote_on_restart"], 1, 300).unwrap();
    assert_eq!((b.runs, failing), (300, vec![]));
    // And the membership nemesis's plans with the no-op rule kept.
    let (b, failing) = hunt::control_batch(&["conf_change_before_noop"], 1, 300).unwrap();
    assert_eq!((b.runs, failing), (300, vec![]));
    assert!(hunt::set_switch(&mut swarm::random_scenario(1), "nonsense", true).is_err());
}

/// The clients' history is linearizable as a mutex with leases in every swarm run whose server
/// clocks run true, and the key-only release without the holder check is caught by it.
#[test]
fn history_checker_swarm_runs_are_linearizable_and_the_broken_release_is_not() {
    let mut checked = 0;
    let n: u64 = std::env::var("RAFTLOCK_HISTORY_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    for seed in 1..=n {
        let sc = swarm::random_scenario(seed);
        let w = raftlock::run_scenario(&sc, true).unwrap();
        match w.history_verdict() {
            None => {}
            Some(Ok(_)) => checked += 1,
            Some(Err(e)) => panic!("seed {seed}: {e}\n  replay: cargo run --release -- swarm --seeds 1 --from {seed} --dump /tmp"),
        }
    }
    assert!(checked > 50, "{checked} runs had true server clocks");
    let broken = raftlock::run_scenario(
        &raftlock::scenario::builtin::get("break-release-without-holder-check").unwrap(),
        true,
    )
    .unwrap();
    let conflict = broken.history_verdict().unwrap().unwrap_err();
    assert!(conflict.message.contains("succeeded though"), "{conflict}");
    // The shortest failing prefix ends when the release was answered, after the other's grant.
    let [a, b] = conflict.ops;
    let op = |i: usize| broken.history.ops.get(i).unwrap();
    assert!(op(a).acquire && !op(b).acquire);
    assert_eq!(Some(conflict.at_us), op(b).answer.as_ref().map(|x| x.0));
    let fine = raftlock::run_scenario(
        &raftlock::scenario::builtin::get("three-clients").unwrap(),
        true,
    )
    .unwrap();
    let holds = fine.history_verdict().unwrap().unwrap();
    assert_eq!(holds.len(), 46);
    // The linearization: per key, holds in token order, each starting after the previous ended.
    for w in holds.windows(2).filter(|w| w[0].key == w[1].key) {
        assert!(
            w[0].token < w[1].token && w[0].end_us.unwrap() <= w[1].point_us,
            "{w:?}"
        );
    }
}

/// A client that crashes while its request waits for an answer never gets one: that request
/// must not pin the page's history for the rest of the run (it did, and the history grew again).
#[test]
fn a_crashed_clients_unanswered_request_does_not_pin_the_history() {
    let mut doc: serde_json::Value =
        serde_json::from_str(&two_clients_on_one_key(600_000).to_json()).unwrap();
    doc["clients"].as_array_mut().unwrap().push(json!({"name": "C", "start_ms": 300, "script": [{"acquire": {"key": "c", "lease_ms": 1000}}]}));
    doc["timeline"] = json!([{"at_ms": 301, "do": "client_crash", "client": "C"}]);
    let mut p = Playground::new(scenario(doc)).unwrap();
    let cap = 64;
    p.world.history.set_cap(cap);
    p.advance_to(p.end_us(), false);
    let h = &p.world.history;
    let c = p
        .world
        .clients
        .iter()
        .position(|s| s.client.cfg.name == "C")
        .unwrap() as raftlock::lock::ClientId;
    let full = raftlock::run_scenario(&p.scenario, true).unwrap();
    let first_c = full
        .history
        .ops
        .iter()
        .find(|op| op.client == c)
        .expect("C invoked its acquire");
    assert!(
        first_c.answer.is_none(),
        "C crashed before its answer: {first_c:?}"
    );
    assert!(h.from() > 0, "ten minutes outgrow the cap");
    let bound = raftlock::check::history::PIN_SPAN * cap + raftlock::chunked::CHUNK;
    assert!(
        h.ops.len() <= bound,
        "{} operations kept, at most {bound}",
        h.ops.len()
    );
    assert!(
        h.from() + h.ops.len() > 2 * bound,
        "the run has more operations than the bound: {}",
        h.from() + h.ops.len()
    );
    assert!(
        p.history_verdict() == full.history_verdict(),
        "the whole run's verdict is unchanged"
    );
}

/// Not a test: what a long play keeps (`cargo test --release --test native memory_census -- --ignored --nocapture`).
#[test]
#[ignore]
fn memory_census() {
    let mut p = Playground::new(two_clients_on_one_key(7_200_000)).unwrap();
    for min in [1u64, 10, 60] {
        p.advance_to(min * 60_000_000, false);
        let w = &p.world;
        let log = w.nodes[0].server().unwrap().raft.log().last_index();
        println!(
            "{min} min: trace lines {} (Line {} B), history ops {}, log entries {log} (Entry {} B) x {} nodes, snapshots {}, {}",
            w.trace.lines.len(),
            std::mem::size_of::<raftlock::trace::Line>(),
            w.history.ops.len(),
            std::mem::size_of::<raftlock::raft::Entry<raftlock::lock::LockCommand>>(),
            w.node_count,
            p.snapshot_count(),
            std::fs::read_to_string("/proc/self/status")
                .unwrap_or_default()
                .lines()
                .filter(|l| l.starts_with("VmRSS") || l.starts_with("VmHWM"))
                .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}

/// The page keeps a bounded number of trace lines, snapshots keep a few, and the full trace is
/// still exported exactly (by a replay); lesson checks read the running summary.
#[test]
fn playground_trace_is_capped_and_the_export_is_still_whole() {
    let mut p =
        Playground::new(raftlock::scenario::builtin::get("three-clients").unwrap()).unwrap();
    let mut sc = p.scenario.clone();
    sc.until_ms = 600_000;
    p = Playground::new(sc.clone()).unwrap();
    p.advance_to(300_000_000, false);
    let kept = p.world.trace.lines.len();
    assert!(
        kept <= raftlock::playground::TRACE_KEEP + raftlock::chunked::CHUNK,
        "kept {kept}"
    );
    assert!(
        p.world.trace.dropped() > 0,
        "a 5-minute busy run outgrows the cap"
    );
    let jsonl = p.full_trace_jsonl();
    assert_eq!(
        jsonl.lines().count() as u64,
        p.world.trace.position(),
        "every line, by replay"
    );
    let full = raftlock::run_scenario(
        &{
            let mut s = sc.clone();
            s.until_ms = 300_000;
            s
        },
        true,
    )
    .unwrap();
    assert_eq!(jsonl, full.trace.to_jsonl());
    // Seeking back restores a snapshot with a short trace and replays: same hash as before.
    let h = p.world.trace.hash();
    p.seek(100_000_000);
    p.seek(300_000_000);
    assert_eq!(p.world.trace.hash(), h);
    // Checks that ask about the whole run still see its beginning.
    for c in &raftlock::scenario::builtin::get("three-clients")
        .unwrap()
        .lesson
        .unwrap()
        .checks
    {
        assert!(c.passed(&p.world), "{}", c.describe());
    }
}

/// Playing pauses where an invariant turns red, once per invariant: the Figure 8 run, whose lost
/// entry makes many later applies differ, stops once for each invariant it breaks.
#[test]
fn play_pauses_once_per_invariant_turning_red() {
    let mut p =
        Playground::new(raftlock::scenario::builtin::get("break-figure-8").unwrap()).unwrap();
    let end = p.end_us();
    let (mut stops, mut seen, mut red) = (0, 0, std::collections::BTreeSet::new());
    while p.advance_to(end, true) {
        stops += 1;
        let vs = p.world.violations();
        let newly: Vec<&str> = vs[seen..]
            .iter()
            .map(|(_, v)| v.invariant.name())
            .filter(|i| red.insert(*i))
            .collect();
        assert!(!newly.is_empty(), "stop {stops} turned no invariant red");
        seen = vs.len();
        assert!(stops < 20);
    }
    assert_eq!(p.now_us(), end);
    let all: std::collections::BTreeSet<&str> = p
        .world
        .violations()
        .iter()
        .map(|(_, v)| v.invariant.name())
        .collect();
    assert_eq!(all, red, "every red invariant had its stop");
    assert!(
        p.world.violations().len() > stops,
        "repeats of a red invariant did not stop the run"
    );
    assert_eq!(p.world.violations()[0].1.invariant, "leader_completeness");
}

/// A leader paused while nothing else happens (its only follower crashed) wakes 4 s later at
/// `calm`: the check gives it its own timeout from the moment it wakes to notice it has no
/// majority, instead of counting the pause against it (the wide swarm's seed 50158).
#[test]
fn isolated_leader_steps_down_counts_from_when_a_paused_leader_wakes() {
    let mut w = world(json!({"version": 1, "seed": 3, "nodes": 2, "until_ms": 8000}));
    ms(&mut w, 1000);
    let l = leader(&w);
    w.act(&Action::Crash { node: 2 - l });
    w.act(&Action::Pause { node: l + 1 });
    ms(&mut w, 5000);
    assert!(
        w.next_event_time().is_none_or(|t| t > 5_000_000),
        "nothing happens meanwhile"
    );
    w.act(&Action::Calm);
    ms(&mut w, 8000);
    no_violations(&w);
}

/// `healthy_leader_not_deposed` is about needless elections only: here n3 leads term 1, is cut
/// off at 0.667 s, and the majority side (n2, n4, n5) starts an election for term 2 while it
/// cannot hear n3. The network heals at 0.828 s; n3's heartbeats reach a majority again for a
/// few ms, then the term-2 campaign deposes it. That election was begun for a good reason (found
/// by the Figure 8 hunt as a false alarm), so no invariant breaks.
#[test]
fn healthy_leader_not_deposed_allows_a_term_campaigned_for_while_the_leader_was_cut_off() {
    let sc = Scenario::from_json(r#"{"version":1,"name":"partition-heals-mid-election","description":"","seed":4269,"nodes":5,"raft":{"election_timeout_ms":[150,300],"heartbeat_ms":50,"pre_vote":true,"check_quorum":true,"commit_by_counting_old_terms":false},"network":{"latency_us":[1704,10638],"drop_ppm":0,"duplicate_ppm":37373},"switches":{"release_with_token":false,"storage_ignores_tokens":false,"expire_ignores_token":false,"followers_delete_on_countdown":false,"token_from_leader_counter":false,"no_ghost_release":false,"release_without_holder_check":false},"clients":[{"name":"A","script":[{"acquire":{"key":"b","lease_ms":900}},{"work":{"key":"b","ms":193}},{"release":{"key":"b"}},{"sleep":{"ms":188}}],"repeat":true,"start_ms":385,"margin_ms":3,"timeout_ms":564,"retry_ms":71},{"name":"B","script":[{"acquire":{"key":"a","lease_ms":1446}},{"work":{"key":"a","ms":45}},{"release":{"key":"a"}},{"sleep":{"ms":206}}],"repeat":true,"start_ms":224,"margin_ms":58,"timeout_ms":577,"retry_ms":109},{"name":"C","script":[{"acquire":{"key":"a","lease_ms":1232}},{"work":{"key":"a","ms":116}},{"release":{"key":"a"}},{"sleep":{"ms":258}}],"repeat":true,"start_ms":973,"margin_ms":116,"timeout_ms":563,"retry_ms":282}],"timeline":[{"at_ms":667,"do":"isolate","node":3},{"at_ms":763,"do":"isolate","node":1},{"at_ms":828,"do":"heal_all"}],"until_ms":1500}"#).unwrap();
    let mut w = World::new(&sc, true).unwrap();
    w.check_every_event = true;
    w.run_until(sc.until_ms * 1000);
    let roles: Vec<(u64, usize, &str, u64)> = w
        .trace
        .lines
        .iter()
        .filter_map(|l| match &l.ev {
            Event::Role { node, role, term } => Some((l.t_us, *node, *role, *term)),
            _ => None,
        })
        .collect();
    assert!(
        roles.contains(&(190_225, 3, "leader", 1)),
        "n3 led term 1: {roles:?}"
    );
    assert!(
        roles
            .iter()
            .any(|r| r.1 != 3 && r.2 == "candidate" && r.3 == 2 && r.0 < 828_000),
        "term 2 was campaigned for during the cut"
    );
    assert!(
        roles
            .iter()
            .any(|r| r.1 == 3 && r.2 == "follower" && r.3 == 2 && r.0 > 828_000),
        "n3 was deposed after the heal"
    );
    assert_eq!(w.violations().len(), 0, "{:?}", w.violations());
}

/// Every "Break it" lesson stands beside its safe twin (the same document and seed with the
/// safeguard on): the twin breaks no invariant from start to end, checked after every event,
/// the lesson says so in its outcomes, and its last caption states what the safeguard
/// prevented as a fact checked on the twin (`verdict` above holds every such fact true).
#[test]
fn every_break_it_lesson_has_a_safe_twin_that_breaks_nothing_and_ends_on_what_it_prevented() {
    let mut lessons = 0;
    for name in raftlock::scenario::builtin::names() {
        let sc = raftlock::scenario::builtin::get(name).unwrap();
        let Some(lesson) = &sc.lesson else { continue };
        if !raftlock::scenario::builtin::is_break_it(name) {
            continue;
        }
        lessons += 1;
        let red = raftlock::run_scenario(&sc, true).unwrap();
        assert!(
            !red.violations().is_empty(),
            "{name}: the broken design shows a violation"
        );
        let (twin, flips) = raftlock::scenario::twin::safe_twin(&sc)
            .unwrap_or_else(|| panic!("{name}: a Break-it lesson turns a safeguard off"));
        let mut w = World::new(&twin, true).unwrap();
        w.check_every_event = true;
        w.run_until(twin.until_ms * 1000);
        assert!(
            w.violations().is_empty(),
            "{name} with {flips:?} on: {:?}",
            w.violations()
        );
        assert!(
            lesson
                .twin_checks
                .contains(&raftlock::scenario::lesson::Claim::NoViolations),
            "{name}: its outcomes say the twin breaks nothing"
        );
        let last = lesson.captions.last().unwrap();
        assert!(
            !last.twin_checks.is_empty(),
            "{name}: the last caption checks the twin"
        );
        assert!(
            last.text.en.contains("twin") && last.text.ru.contains("двойник"),
            "{name}"
        );
    }
    assert_eq!(lessons, 12, "the twelve Break-it lessons");
}

/// The built-in questions do not reward guessing: as shown, no position holds the right
/// answer in more than 40% of them, and the right answer is the longest choice (or tied for
/// it) in at most 40%, in each language.
#[test]
fn the_right_answer_is_neither_in_one_place_nor_the_longest_choice() {
    use raftlock::lang::Lang;
    let mut at = [0usize; 5];
    let (mut longest_en, mut longest_ru, mut questions) = (0, 0, 0);
    for name in raftlock::scenario::builtin::names() {
        let sc = raftlock::scenario::builtin::get(name).unwrap();
        for q in sc
            .lesson
            .iter()
            .flat_map(|l| &l.captions)
            .filter_map(|c| c.question.as_ref())
        {
            questions += 1;
            at[q.answer] += 1;
            let longest = |lang| {
                let len = |k: usize| q.choices[k].get(lang).chars().count();
                (0..q.choices.len()).all(|k| len(k) <= len(q.answer))
            };
            longest_en += longest(Lang::En) as usize;
            longest_ru += longest(Lang::Ru) as usize;
        }
    }
    let most = questions * 2 / 5;
    assert!(questions >= 50, "{questions}");
    assert!(
        at.iter().all(|n| *n <= most),
        "right answers by position: {at:?} of {questions}"
    );
    assert!(
        longest_en <= most && longest_ru <= most,
        "the longest choice is right in {longest_en} (en), {longest_ru} (ru) of {questions}"
    );
}
