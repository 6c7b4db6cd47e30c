//! The page model, natively: lesson stepping, Back, following a seek, focus, the lock view, and a
//! command for every control.

use super::*;
use crate::playground::Playground;
use crate::scenario::{builtin, Action};

fn page(name: &str) -> Page {
    Page::new(Playground::new(builtin::get(name).expect("a built-in")).expect("valid"))
}

/// Next to the next caption's moment, revealing its question if it asks one first.
fn next_caption(p: &mut Page) {
    p.apply(Command::LessonNext);
    if p.open_question().is_some() {
        p.apply(Command::Reveal);
    }
}

/// A page at `frag` whose built-ins come as files (the page's build), none fetched yet.
fn fetching(frag: &str) -> Page {
    Page::open_fragment(
        frag,
        std::rc::Rc::new(|| 0.0),
        Lang::En,
        library::Library::fetching(),
    )
}

fn hash(p: &Page) -> String {
    p.playground.world.trace.hash_hex()
}

#[test]
fn every_builtin_lesson_finds_every_caption_moment() {
    for name in builtin::names() {
        let p = page(name);
        let n = p
            .playground
            .scenario
            .lesson
            .as_ref()
            .map_or(0, |l| l.captions.len());
        assert_eq!(p.lesson.marks.len(), n, "{name}");
        for (i, m) in p.lesson.marks.iter().enumerate() {
            assert!(m.is_some(), "{name}: caption {} never comes", i + 1);
        }
        let times: Vec<u64> = p.lesson.marks.iter().flatten().map(|m| m.t_us).collect();
        assert!(
            times.windows(2).all(|w| w[0] <= w[1]),
            "{name}: caption moments in order"
        );
    }
}

#[test]
fn lesson_next_reaches_each_caption_and_back_restores_the_exact_state() {
    let mut p = page("gc-pause");
    let n = p.lesson.marks.len();
    assert_eq!(p.lesson_pos(), 0);
    let mut hashes = vec![hash(&p)];
    for i in 1..=n {
        next_caption(&mut p);
        assert_eq!(p.lesson_pos(), i, "Next reaches caption {i}");
        hashes.push(hash(&p));
    }
    next_caption(&mut p);
    assert_eq!(p.lesson_pos(), n, "Next at the end stays");
    for i in (0..n).rev() {
        p.apply(Command::LessonBack);
        assert_eq!(p.lesson_pos(), i, "Back to caption {i}");
        assert_eq!(
            hash(&p),
            hashes[i],
            "Back to caption {i} restores the state it was reached in"
        );
    }
    // The first time through, the lesson stopped right after each caption's event.
    let view = p.lesson_view().expect("a lesson");
    assert_eq!(view.caption, p.playground.scenario.description.en);
    assert_eq!(view.next.as_deref(), Some("until a leader is elected"));
}

#[test]
fn the_lesson_follows_a_seek_run_to_and_step_back() {
    let mut p = page("gc-pause-no-fencing");
    let marks: Vec<u64> = p.lesson.marks.iter().flatten().map(|m| m.t_us).collect();
    p.apply(Command::RunTo(4_000_000));
    let expect = marks.iter().filter(|t| **t <= 4_000_000).count();
    assert!(expect > 0);
    assert_eq!(
        p.lesson_pos(),
        expect,
        "runTo(4 s) puts the lesson at the caption of 4 s"
    );
    let v = p.lesson_view().expect("a lesson");
    assert_eq!(v.pos, expect);
    assert_ne!(v.caption, p.playground.scenario.description.en);
    p.apply(Command::Seek(0));
    assert_eq!(p.lesson_pos(), 0, "the scrubber back to 0");
    p.apply(Command::Seek(marks[1]));
    assert_eq!(p.lesson_pos(), 2, "a seek to the second caption's moment");
    p.apply(Command::Seek(marks[1] - 1));
    assert!(p.lesson_pos() <= 1, "just before it, not yet");
    // Next from a seeked position goes to the next caption, not to the one after the last Next.
    next_caption(&mut p);
    assert_eq!(p.lesson_pos(), 2);
}

#[test]
fn focus_comes_from_the_caption_or_its_event() {
    let mut p = page("gc-pause");
    assert!(p.focus().is_empty(), "no caption yet");
    while p.lesson_pos() < p.lesson.marks.len() {
        next_caption(&mut p);
    }
    let f = p.focus();
    assert!(f.storage, "the rejected write: the storage");
    assert!(f.client("A"), "and the client who wrote");
    assert!(f.key("k"));
    assert_eq!(
        f.side(),
        focus::Side::Storage,
        "the player's one side panel"
    );
}

#[test]
fn the_player_shows_the_side_panel_the_caption_names() {
    use focus::{FocusSet, Side};
    assert_eq!(FocusSet::default().side(), Side::Locks);
    let set = |f: fn(&mut FocusSet)| {
        let mut s = FocusSet::default();
        f(&mut s);
        s.side()
    };
    assert_eq!(set(|s| s.log.push(3)), Side::Log);
    assert_eq!(set(|s| s.storage = true), Side::Storage);
    assert_eq!(set(|s| s.clients.push("A".into())), Side::Clients);
    assert_eq!(
        set(|s| {
            s.clients.push("A".into());
            s.keys.push("k".into())
        }),
        Side::Locks,
        "a client and its key: the lock view shows both"
    );
    assert_eq!(set(|s| s.nodes.push(1)), Side::Locks);
}

#[test]
fn lock_view_countdowns_differ_while_the_tables_agree() {
    let mut p = page("drift-and-jump");
    let mut seen = false;
    for t in (500_000..10_000_000).step_by(100_000) {
        p.apply(Command::RunTo(t));
        let m = locks::LockMatrix::of(&p.playground.world);
        assert!(
            m.tables_agree(),
            "at {t}: tables that applied the same entries agree"
        );
        for row in &m.cells {
            let left: Vec<i64> = row.iter().flatten().filter_map(|c| c.left_us).collect();
            let same_token = row
                .iter()
                .flatten()
                .map(|c| c.token)
                .collect::<std::collections::BTreeSet<_>>()
                .len()
                == 1;
            if same_token && left.len() > 1 && left.iter().any(|l| *l != left[0]) {
                seen = true;
            }
        }
    }
    assert!(seen, "somewhere the nodes' countdowns for one lock differ");
    let mut broken = page("break-followers-delete");
    broken.apply(Command::RunTo(4_000_000));
    let mut split = false;
    for t in (0..4_000_000).step_by(50_000) {
        broken.apply(Command::Seek(t));
        split |=
            locks::LockMatrix::of(&broken.playground.world).agreement() == locks::Agreement::Split;
    }
    assert!(
        split,
        "with followers deleting on their own countdown, tables at one index split"
    );
}

#[test]
fn lease_arcs_shrink_on_each_nodes_own_clock() {
    let mut p = page("gc-pause");
    p.apply(Command::RunTo(1_100_000));
    let arcs: Vec<_> = (0..p.playground.world.node_count)
        .filter_map(|i| locks::lease_arc(&p.playground.world, i))
        .collect();
    assert!(!arcs.is_empty(), "A holds k: the nodes count down");
    assert!(arcs.iter().all(|(f, k)| *f > 0.0 && *f <= 1.0 && k == "k"));
    p.apply(Command::RunTo(1_600_000));
    let later: Vec<_> = (0..p.playground.world.node_count)
        .filter_map(|i| locks::lease_arc(&p.playground.world, i))
        .collect();
    assert!(
        later.iter().zip(&arcs).all(|(a, b)| a.0 < b.0),
        "the arcs shrink"
    );
}

#[test]
fn a_command_for_every_control() {
    let mut p = Page::new(Playground::new(default_scenario()).unwrap());
    p.base_url = "https://example.org/raftlock/".into();
    assert_eq!(p.apply(Command::Play(true)), vec![Effect::StartFrames]);
    assert!(p.playing);
    assert_eq!(speed_of(p.speed_pos), 200_000, "the page starts at x1/5");
    p.apply(Command::Speed(6));
    assert!(p.play_frame(16.0, &mut || false));
    assert_eq!(
        p.playground.now_us(),
        16_000,
        "a frame of 16 ms at x1 advances 16 ms"
    );
    p.apply(Command::TogglePlay);
    assert!(!p.playing);
    let t = p.playground.now_us();
    p.apply(Command::Step);
    p.apply(Command::StepApply);
    assert!(p.playground.now_us() >= t);
    p.apply(Command::StepBack);
    p.apply(Command::Speed(99));
    assert_eq!(
        p.speed_pos,
        SPEED_STOPS.len() as i32 - 1,
        "an absurd speed is clamped"
    );
    p.apply(Command::RunTo(2_000_000));
    p.apply(Command::Seek(1_000_000));
    assert_eq!(p.playground.now_us(), 1_000_000);
    p.apply(Command::TakeOver);
    assert_eq!(p.playground.horizon_us, 1_000_000);
    p.apply(Command::Act(Action::Crash { node: 2 }));
    assert!(p.playground.world.nodes[1].server().is_none());
    p.apply(Command::Act(Action::Crash { node: 9 }));
    assert!(
        p.error.take().is_some_and(|e| e.contains("refused")),
        "a bad action is refused with a message"
    );
    p.apply(Command::Restart);
    assert_eq!(p.playground.now_us(), 0);
    p.apply(Command::Edit(edit::Edit::Seed(1234)));
    assert_eq!(p.playground.scenario.seed, 1234);
    p.apply(Command::Edit(edit::Edit::Nodes(7)));
    assert_eq!(p.playground.world.node_count, 7);
    p.apply(Command::Edit(edit::Edit::Nodes(99)));
    assert!(p.error.take().is_some());
    assert_eq!(
        p.playground.world.node_count, 7,
        "a refused node count leaves the run"
    );
    p.apply(Command::Edit(edit::Edit::Switch(
        "storage_ignores_tokens",
        true,
    )));
    assert!(crate::scenario::hunt::switch_is_on(
        &p.playground.scenario,
        "storage_ignores_tokens"
    ));
    p.apply(Command::Edit(edit::Edit::Switch("no_such_switch", true)));
    assert!(p.error.take().is_some());
    p.apply(Command::RaftDraft(RaftField::MaxBatch, "6".into()));
    assert!(p.raft_draft.is_some());
    p.apply(Command::Edit(edit::Edit::Raft(
        RaftField::MaxBatch,
        "6".into(),
    )));
    assert_eq!(p.playground.scenario.raft.max_batch, 6);
    p.apply(Command::Edit(edit::Edit::Raft(
        RaftField::SnapshotEvery,
        "2".into(),
    )));
    assert!(p.error.take().is_some(), "2 is out of range");
    p.apply(Command::Edit(edit::Edit::Raft(
        RaftField::SnapshotEvery,
        "lots".into(),
    )));
    assert!(p
        .error
        .take()
        .is_some_and(|e| e.contains("not a whole number")));
    assert_eq!(p.playground.scenario.raft.snapshot_every, 64);
    p.apply(Command::Compare(Some("storage_ignores_tokens")));
    p.apply(Command::RunTo(500_000));
    assert_eq!(
        p.twin.as_ref().map(|c| c.playground.now_us()),
        Some(500_000),
        "the twin follows"
    );
    p.apply(Command::Compare(None));
    let fx = p.apply(Command::CheckHistory);
    assert!(matches!(&fx[..], [Effect::CheckHistory { .. }]) && p.history.running.is_some());
    let fx = p.apply(Command::Share);
    assert!(
        matches!(&fx[..], [Effect::SetFragment(f), Effect::Clipboard(u)] if f.starts_with("#v1.") && u.starts_with("https://example.org/raftlock/#v1."))
    );
    let doc = p.playground.scenario.clone();
    let at = p.playground.now_us();
    let link = p.share_url.clone().unwrap();
    p.apply(Command::OpenFragment(
        link.split_once('#').unwrap().1.to_string(),
    ));
    assert_eq!(
        (&p.playground.scenario, p.playground.now_us()),
        (&doc, at),
        "the share link opens the same run at the same moment"
    );
    assert!(matches!(
        &p.apply(Command::Export(Export::Scenario))[..],
        [Effect::Download {
            mime: "application/json",
            ..
        }]
    ));
    assert!(
        matches!(&p.apply(Command::Export(Export::Trace))[..], [Effect::Download { text, .. }] if text.lines().count() > 10)
    );
    for bad in [
        Command::LoadBuiltin("nope".into()),
        Command::LoadJson("{".into()),
        Command::Import(Ok("[]".into())),
        Command::Import(Err("gone".into())),
        Command::OpenFragment("v1.garbage.0".into()),
    ] {
        let before = hash(&p);
        p.apply(bad.clone());
        assert!(p.error.take().is_some(), "{bad:?} gets a message");
        assert_eq!(hash(&p), before, "{bad:?} leaves the run");
    }
    assert_eq!(
        p.apply(Command::LoadBuiltin("gc-pause".into())),
        vec![Effect::SetFragment("#scenario=gc-pause".into())]
    );
    assert!(p.in_lesson());
    next_caption(&mut p);
    assert_eq!(p.lesson_pos(), 1);
    let fx = p.apply(Command::HuntStart(1000));
    assert!(matches!(&fx[..], [Effect::StartHunt { runs: 1000, .. }]));
    p.apply(Command::HuntReport(hunt::WorkerReport {
        kind: "progress".into(),
        done: 10,
        events: 5e4,
        ..Default::default()
    }));
    assert_eq!(p.hunt.as_ref().map(|h| h.done), Some(10));
    assert_eq!(
        p.apply(Command::HuntReport(hunt::WorkerReport {
            kind: "none".into(),
            done: 1000,
            ..Default::default()
        })),
        vec![Effect::StopHunt]
    );
    p.apply(Command::HuntCancel);
    assert!(p.hunt.is_none());
    for (cmd, check) in [
        (
            Command::Presenter(true),
            (|p: &Page| p.presenter) as fn(&Page) -> bool,
        ),
        (Command::Tools(true), |p| p.tools_open),
        (Command::Help(true), |p| p.help),
        (Command::ScenarioList(true), |p| p.list_open),
        (Command::LogFrom(Some(3)), |p| p.log_from == Some(3)),
        (Command::Error("x".into()), |p| p.error.is_some()),
        (Command::DismissError, |p| p.error.is_none() && !p.help),
    ] {
        p.apply(cmd);
        assert!(check(&p));
    }
    assert_eq!(p.shortcut(" "), Some(Command::TogglePlay));
    assert_eq!(p.shortcut("n"), Some(Command::LessonNext));
    assert_eq!(p.shortcut("z"), None);
}

#[test]
fn a_found_hunt_opens_its_scenario_and_makes_its_link() {
    let mut p = Page::new(Playground::new(default_scenario()).unwrap());
    p.base_url = "http://127.0.0.1/".into();
    p.apply(Command::HuntStart(10));
    let doc = builtin::get("gc-pause").unwrap().to_json();
    let fx = p.apply(Command::HuntReport(hunt::WorkerReport {
        kind: "found".into(),
        seed: 3,
        invariant: "x".into(),
        scenario: doc,
        ..Default::default()
    }));
    assert_eq!(p.playground.scenario.name, "gc-pause");
    assert!(fx.contains(&Effect::StopHunt));
    assert!(p
        .share_url
        .as_ref()
        .is_some_and(|u| u.starts_with("http://127.0.0.1/#v1.")));
}

#[test]
fn a_break_it_lesson_shows_what_is_broken_and_marks_the_expected_violation() {
    let mut p = page("gc-pause-no-fencing");
    assert!(p.lesson_view().unwrap().broken.is_empty());
    p.apply(Command::RunTo(6_000_000));
    p.apply(Command::RunTo(6_000_000));
    let v = p.lesson_view().unwrap();
    assert_eq!(v.broken, vec!["storage_accepts_stale_token"]);
    assert!(v.checks.iter().any(|(what, ok, violation)| *ok
        && *violation
        && what == "violated: the storage never accepts a stale token"));
    assert!(v
        .checks
        .iter()
        .filter(|c| !c.2)
        .all(|c| !c.0.starts_with("violated")));
}

#[test]
fn acting_after_the_last_caption_keeps_the_marks_and_acting_before_it_finds_them_again() {
    let mut p = page("gc-pause");
    let marks = p.lesson.marks.clone();
    let last = marks.iter().flatten().map(|m| m.t_us).max().unwrap();
    p.apply(Command::RunTo(last + 200_000));
    p.apply(Command::Act(Action::SetRate {
        node: 3,
        rate_ppm: 2_000_000,
    }));
    assert_eq!(
        p.lesson.marks, marks,
        "an action after every caption changes no caption's moment"
    );
    assert_eq!(p.lesson_pos(), marks.len());
    // An action before the last caption: the marks are found again in the new run.
    p.apply(Command::Seek(1_200_000));
    p.apply(Command::Act(Action::Crash { node: 2 }));
    assert_ne!(
        p.lesson.marks, marks,
        "crashing the leader at 1.2 s moves the later captions"
    );
    let fresh = lesson::LessonTrack::default();
    let mut again = fresh.clone();
    again.follow(&p.playground.scenario);
    assert!(again.walk(u64::MAX));
    assert_eq!(
        p.lesson.marks, again.marks,
        "the same marks as a fresh replay of the new document"
    );
}

#[test]
fn figure_8_shows_what_the_cluster_committed_apart_from_what_a_restarted_node_knows() {
    use crate::model::commit::{self, Commit};
    let mut p = page("break-figure-8");
    // n5 leads term 4; n1 and n2 are down; n3 and n4 restarted with commit index 0.
    p.apply(Command::RunTo(2_767_222));
    let w = &p.playground.world;
    let entry = |k: usize, i: u64| {
        let slot = &w.nodes[k];
        let log = match (slot.server(), slot.persisted()) {
            (Some(s), _) => s.raft.log(),
            (None, Some(h)) => &h.log,
            _ => panic!("n{} has no log", k + 1),
        };
        log.entry(i).cloned().expect("an entry")
    };
    let grant_on_n3 = entry(2, 2);
    assert!(
        grant_on_n3.cmd().is_some(),
        "n3 still holds the Grant of term 1 at index 2"
    );
    assert_eq!(w.nodes[2].server().unwrap().raft.commit_index(), 0);
    assert_eq!(commit::of(w, 2, 2, &grant_on_n3), Commit::InCluster);
    assert_eq!(
        commit::of(w, 1, 2, &entry(1, 2)),
        Commit::InCluster,
        "crashed n2's Grant"
    );
    let noop_on_n5 = entry(4, 2);
    assert!(noop_on_n5.is_noop());
    assert_eq!(
        commit::of(w, 4, 2, &noop_on_n5),
        Commit::No,
        "n5's no-op of term 2 was never committed"
    );
    // A healthy run: the leader's own committed entry is known committed.
    let mut g = page("gc-pause");
    g.apply(Command::RunTo(1_100_000));
    let s = g.playground.world.nodes[1].server().unwrap();
    let e = s.raft.log().entry(2).cloned().unwrap();
    assert_eq!(commit::of(&g.playground.world, 1, 2, &e), Commit::Known);
}

#[test]
fn a_question_is_asked_before_its_moment_scored_once_and_revealed_in_presenter_mode() {
    use crate::model::quiz::QuestionState;
    let mut p = page("gc-pause");
    // Up to the caption before the first question (caption 4 asks what happens to A's lock).
    while p.lesson_pos() < 3 {
        p.apply(Command::LessonNext);
    }
    assert!(p.question_view().is_none());
    let button = |p: &Page| p.lesson_view().unwrap().button;
    assert_eq!(
        button(&p),
        ("Next: a question".into(), true),
        "where the moment comes would give the answer away"
    );
    let h3 = hash(&p);
    p.apply(Command::LessonNext);
    assert_eq!(p.lesson_pos(), 3, "Next asks first and plays nothing");
    assert_eq!(hash(&p), h3);
    let q = p.question_view().expect("the question is open");
    assert_eq!((q.caption, q.state.clone()), (4, QuestionState::Asking));
    assert_eq!(button(&p), ("Answer the question".into(), false));
    p.apply(Command::LessonNext);
    assert_eq!(
        p.lesson_pos(),
        3,
        "a student answers; Next does not skip it"
    );
    // A wrong answer: scored, explained, and the moment plays.
    p.apply(Command::Answer(0));
    assert_eq!(p.lesson_pos(), 4);
    match p.question_view().unwrap().state {
        QuestionState::Settled {
            answer,
            picked,
            explain,
        } => {
            assert_eq!((answer, picked), (1, Some(0)));
            assert!(explain.contains("that entry commits"));
        }
        s => panic!("{s:?}"),
    }
    let lesson = p.playground.scenario.lesson.clone().unwrap();
    assert_eq!(p.quiz.score(&lesson), (0, 1, 3));
    assert_eq!(
        p.lesson_view().unwrap().score_line.as_deref(),
        Some("0 of 1 right on the first try · 3 questions")
    );
    // Back over the question, and Next again: straight to the moment, the score unchanged.
    p.apply(Command::LessonBack);
    assert_eq!(p.lesson_pos(), 3);
    p.apply(Command::LessonNext);
    assert_eq!(p.lesson_pos(), 4);
    assert_eq!(p.quiz.score(&lesson), (0, 1, 3));
    // Caption 5 asks nothing; caption 6 asks B's token, answered right with its key.
    p.apply(Command::LessonNext);
    assert_eq!(p.lesson_pos(), 5);
    p.apply(Command::LessonNext);
    assert_eq!(p.lesson_pos(), 5);
    let key = p.shortcut("2").expect("keys answer an open question");
    assert_eq!(key, Command::Answer(1));
    p.apply(key);
    assert_eq!(p.lesson_pos(), 6);
    assert_eq!(p.quiz.score(&lesson), (1, 2, 3));
    // Bad input: no open question, or a choice out of range, leaves the run as it is.
    let h6 = hash(&p);
    p.apply(Command::Answer(0));
    assert!(p.error.as_deref().unwrap().contains("no question"));
    p.apply(Command::LessonNext);
    p.apply(Command::Answer(7));
    assert!(p.error.as_deref().unwrap().contains("one of the 3 answers"));
    assert_eq!((p.lesson_pos(), hash(&p)), (6, h6));
    // Presenter mode: Next on the asked question reveals it, unscored, and plays the moment.
    p.apply(Command::Presenter(true));
    assert_eq!(button(&p), ("Reveal the answer".into(), true));
    p.apply(Command::LessonNext);
    assert_eq!(p.lesson_pos(), 7);
    assert_eq!(button(&p), ("The end".into(), false));
    assert!(matches!(
        p.question_view().unwrap().state,
        QuestionState::Settled { picked: None, .. }
    ));
    assert_eq!(p.quiz.score(&lesson), (1, 2, 3));
    // A new scenario forgets the answers.
    p.apply(Command::LoadBuiltin("late-expire".into()));
    assert_eq!(p.quiz, Default::default());
}

#[test]
fn a_precandidate_reads_as_asking_for_pre_votes_in_the_term_it_stays_in() {
    use crate::trace::Event as TraceEvent;
    let p = page("rejoin-with-prevote");
    let ev = TraceEvent::Role {
        node: 4,
        role: "precandidate",
        term: 2,
    };
    assert_eq!(
        text::describe(&p.playground.world, &ev, crate::lang::Lang::En).unwrap(),
        "n4 asks for pre-votes for term 2 (it stays in term 1)"
    );
}

#[test]
fn set_lang_switches_every_word_keeps_the_run_and_rides_in_the_share_link() {
    let mut p = page("gc-pause");
    next_caption(&mut p);
    let (h, now) = (hash(&p), p.playground.world.now_us);
    let en = p.lesson_view().unwrap().caption;
    let fx = p.apply(Command::SetLang(Lang::Ru));
    assert!(fx.contains(&Effect::Lang(Lang::Ru)));
    assert_eq!(
        (hash(&p), p.playground.world.now_us),
        (h, now),
        "the same run, the same moment"
    );
    let ru = p.lesson_view().unwrap().caption;
    assert_ne!(ru, en);
    assert!(ru.chars().any(|c| ('а'..='я').contains(&c)), "{ru}");
    let fx = p.apply(Command::Share);
    let frag = fx
        .iter()
        .find_map(|e| match e {
            Effect::SetFragment(f) => Some(f.clone()),
            _ => None,
        })
        .expect("Share sets the fragment");
    assert!(frag.ends_with("&lang=ru"), "{frag}");
    // The link opens in Russian for a reader whose browser says English, at the same moment.
    let q = Page::from_fragment_with_clock(&frag, std::rc::Rc::new(|| 0.0), Lang::En);
    assert_eq!(q.lang, Lang::Ru);
    // A `lang` in a link wins over the reader's language; without one the reader's decides.
    let (rest, l) = split_lang(&frag);
    assert_eq!(l, Some(Lang::Ru));
    assert_eq!(
        with_lang(&rest, Lang::En),
        rest,
        "English links carry no language"
    );
    let q = Page::from_fragment_with_clock(
        "#scenario=gc-pause&lang=en",
        std::rc::Rc::new(|| 0.0),
        Lang::Ru,
    );
    assert_eq!(q.lang, Lang::En);
    let q =
        Page::from_fragment_with_clock("#scenario=gc-pause", std::rc::Rc::new(|| 0.0), Lang::Ru);
    assert_eq!(q.lang, Lang::Ru);
}

#[test]
fn the_players_link_to_the_whole_page_is_the_share_link_at_this_moment_in_the_pages_language() {
    let mut p = page("gc-pause");
    p.base_url = "https://example.org/raftlock/".into();
    p.apply(Command::RunTo(1_500_000));
    let link = p.share_link();
    assert!(
        link.starts_with("https://example.org/raftlock/#v1."),
        "{link}"
    );
    p.apply(Command::Share);
    assert_eq!(p.share_url.as_deref(), Some(link.as_str()));
    p.apply(Command::SetLang(Lang::Ru));
    assert!(p.share_link().ends_with("&lang=ru"));
    let (frag, _) = split_lang(link.split_once('#').unwrap().1);
    let q = Page::from_fragment_with_clock(&frag, std::rc::Rc::new(|| 0.0), Lang::En);
    assert_eq!(q.playground.now_us(), 1_500_000, "it opens at this moment");
}

/// `ru.json` as the page's build serves it (scripts/ru-texts.mjs): the values by sorted key.
fn ru_file() -> String {
    let map: std::collections::BTreeMap<String, String> =
        serde_json::from_str(include_str!("../../i18n/ru.json")).unwrap();
    let mut file = vec![format!("{:08x}", crate::lang::RU_KEYS)];
    file.extend(map.into_values());
    serde_json::to_string(&file).unwrap()
}

#[test]
fn the_first_switch_to_russian_fetches_its_texts_and_switches_when_they_come() {
    let mut p = page("gc-pause");
    // The page's build: no Russian until it is fetched.
    p.russian = Russian::NotHere;
    let h = hash(&p);
    let fx = p.apply(Command::SetLang(Lang::Ru));
    assert_eq!(fx, vec![Effect::FetchRussian]);
    assert_eq!(p.lang, Lang::En, "English until the texts come");
    // Asking again does not fetch twice.
    assert!(p.apply(Command::SetLang(Lang::Ru)).is_empty());
    let fx = p.apply(Command::RussianArrived(Ok(ru_file())));
    assert!(fx.contains(&Effect::Lang(Lang::Ru)), "{fx:?}");
    assert_eq!((p.lang, p.russian.clone()), (Lang::Ru, Russian::Here));
    assert_eq!(hash(&p), h, "the run stays");
    // Here now: back and forth at once.
    assert_eq!(
        p.apply(Command::SetLang(Lang::En)),
        vec![Effect::Lang(Lang::En)]
    );
    assert_eq!(
        p.apply(Command::SetLang(Lang::Ru)),
        vec![Effect::Lang(Lang::Ru)]
    );

    // A reader who switched back before the texts came stays in English.
    let mut p = page("gc-pause");
    p.russian = Russian::NotHere;
    p.apply(Command::SetLang(Lang::Ru));
    assert!(p.apply(Command::SetLang(Lang::En)).is_empty());
    assert!(p.apply(Command::RussianArrived(Ok(ru_file()))).is_empty());
    assert_eq!((p.lang, p.russian.clone()), (Lang::En, Russian::Here));

    // A link with `lang=ru` takes the same road.
    let mut p = page("gc-pause");
    p.russian = Russian::NotHere;
    let fx = p.apply(Command::OpenFragment("#lang=ru".into()));
    assert_eq!(fx, vec![Effect::FetchRussian]);
}

#[test]
fn russian_texts_that_do_not_come_leave_the_page_in_english_with_the_reason() {
    use library::Missing;
    for (answer, why) in [
        (Err(Missing::Status(404)), "HTTP 404"),
        (Err(Missing::Unreachable), "could not be reached"),
        (Ok("[\"один\"]".to_string()), "not this version's texts"),
        (
            Ok(r#"["00000001", "один"]"#.to_string()),
            "not this version's texts",
        ),
        (Ok("{broken".to_string()), "not this version's texts"),
    ] {
        let mut p = page("gc-pause");
        p.russian = Russian::NotHere;
        let h = hash(&p);
        p.apply(Command::SetLang(Lang::Ru));
        p.apply(Command::RussianArrived(answer));
        assert_eq!(p.lang, Lang::En);
        let Russian::Failed(e) = p.russian.clone() else {
            panic!("a message: {:?}", p.russian)
        };
        assert!(e.contains("Русские тексты") && e.contains(why), "{e}");
        assert!(e.contains("The Russian texts could not be loaded"), "{e}");
        assert_eq!(hash(&p), h, "the run stays");
        // A second choice of Русский asks again.
        assert_eq!(
            p.apply(Command::SetLang(Lang::Ru)),
            vec![Effect::FetchRussian]
        );
    }
    // A page that opened in Russian (index.html chose it) without its texts goes on in English,
    // and says so to the document without making English the reader's choice.
    let mut p =
        Page::from_fragment_with_clock("#scenario=gc-pause", std::rc::Rc::new(|| 0.0), Lang::Ru);
    p.russian = Russian::NotHere;
    let fx = p.start_russian(Some(install_russian(Err(Missing::Slow))));
    assert_eq!(fx, vec![Effect::ShowLang(Lang::En)]);
    assert_eq!(p.lang, Lang::En);
    assert!(matches!(p.russian, Russian::Failed(_)));
    // A lesson opening later (which clears old errors) leaves the message; its ✕ closes it,
    // and the other banner's does not.
    p.apply(Command::LoadBuiltin("ghost-lock".into()));
    assert_eq!(p.playground.scenario.name, "ghost-lock");
    p.apply(Command::DismissError);
    assert!(matches!(p.russian, Russian::Failed(_)));
    p.apply(Command::DismissRussian);
    assert_eq!(p.russian, Russian::NotHere);
    // Its texts came: nothing to do. It opened in Russian without asking (a link index.html read
    // otherwise): it asks now, in English meanwhile.
    let mut p =
        Page::from_fragment_with_clock("#scenario=gc-pause", std::rc::Rc::new(|| 0.0), Lang::Ru);
    p.russian = Russian::NotHere;
    assert!(p
        .start_russian(Some(install_russian(Ok(ru_file()))))
        .is_empty());
    assert_eq!((p.lang, p.russian.clone()), (Lang::Ru, Russian::Here));
    let mut p =
        Page::from_fragment_with_clock("#scenario=gc-pause", std::rc::Rc::new(|| 0.0), Lang::Ru);
    p.russian = Russian::NotHere;
    assert_eq!(
        p.start_russian(None),
        vec![Effect::ShowLang(Lang::En), Effect::FetchRussian]
    );
    assert_eq!(p.lang, Lang::En);
    p.apply(Command::RussianArrived(Ok(ru_file())));
    assert_eq!(p.lang, Lang::Ru);
}

#[test]
fn a_bad_link_or_file_is_refused_in_the_readers_language() {
    let clock = || std::rc::Rc::new(|| 0.0);
    let p = Page::from_fragment_with_clock("#v7.abc.0", clock(), Lang::Ru);
    let e = p.error.clone().expect("refused");
    assert!(e.contains("ссылка в формате v7"), "{e}");
    assert!(!e.contains("this link"), "{e}");
    let p = Page::from_fragment_with_clock("#v7.abc.0", clock(), Lang::En);
    assert!(p.error.unwrap().contains("this link is format v7"));
    let mut p = page("gc-pause");
    p.apply(Command::SetLang(Lang::Ru));
    let h = hash(&p);
    p.apply(Command::Import(Ok(
        r#"{"version":1,"seed":1,"nodes":9}"#.into()
    )));
    let e = p.error.clone().expect("refused");
    assert!(e.contains("nodes: 9 вне диапазона 1..=7"), "{e}");
    assert_eq!(hash(&p), h, "the run stays");
}

#[test]
fn a_violation_reads_in_the_readers_language_and_the_trace_keeps_the_english() {
    use crate::trace::Event as TraceEvent;
    let mut p = page("break-token-counter");
    p.apply(Command::RunTo(u64::MAX));
    let (_, v) = p
        .playground
        .world
        .violations()
        .first()
        .cloned()
        .expect("the counter repeats a token");
    let ev = TraceEvent::Violation {
        invariant: v.invariant.name(),
        detail: v.detail.en.clone(),
    };
    let ru = text::describe(&p.playground.world, &ev, Lang::Ru).unwrap();
    assert!(ru.starts_with("НАРУШЕНИЕ"), "{ru}");
    assert!(ru.contains("выдал токен"), "{ru}");
    let en = text::describe(&p.playground.world, &ev, Lang::En).unwrap();
    assert!(en.contains("issued token"), "{en}");
}

#[test]
fn shortcuts_work_on_a_russian_keyboard_layout() {
    assert_eq!(shortcut_key("т", "KeyN"), "n");
    assert_eq!(shortcut_key("и", "KeyB"), "b");
    assert_eq!(shortcut_key("n", "KeyN"), "n");
    assert_eq!(shortcut_key("?", "Slash"), "?");
    assert_eq!(shortcut_key("ArrowRight", "ArrowRight"), "ArrowRight");
    let p = page("gc-pause");
    assert_eq!(p.shortcut(&shortcut_key("т", "KeyN")), p.shortcut("n"));
}

#[test]
fn a_hand_made_lang_link_opens_the_default_page_in_that_language() {
    assert_eq!(split_lang("#lang=ru"), (String::new(), Some(Lang::Ru)));
    assert_eq!(
        split_lang("#lang=ru&scenario=gc-pause"),
        ("#scenario=gc-pause".to_string(), Some(Lang::Ru))
    );
    let p = Page::from_fragment_with_clock("#lang=ru", std::rc::Rc::new(|| 0.0), Lang::En);
    assert_eq!((p.lang, p.error.clone()), (Lang::Ru, None));
    // A share link with the page's language still decodes (the CLI's --link too).
    let mut q = page("gc-pause");
    q.apply(Command::SetLang(Lang::Ru));
    q.apply(Command::Share);
    let url = q.share_url.clone().unwrap();
    assert!(url.ends_with("&lang=ru"), "{url}");
    assert!(crate::scenario::link::decode(&url).is_ok());
    // Switching back drops the links made in Russian.
    q.apply(Command::SetLang(Lang::En));
    assert_eq!(q.share_url, None);
}

#[test]
fn node_link_and_answer_words_are_in_the_readers_language() {
    use crate::sim::history::Answer;
    assert_eq!(text::node_label("follower", Lang::Ru), "ведомый");
    assert_eq!(text::node_label("leader", Lang::En), "LEADER");
    assert_eq!(
        text::node_state_words("paused", Lang::Ru),
        t!(Lang::Ru, "paused")
    );
    assert_eq!(
        text::link_label(1, 2, true, Lang::En),
        "link n1 to n2: up; click to cut"
    );
    assert!(text::link_label(1, 2, false, Lang::Ru).contains("n1 → n2"));
    let granted = Answer::Granted {
        token: 4,
        lease_ms: 1500,
    };
    assert_eq!(
        text::answer_words(&granted, Lang::En),
        "Granted{4} with a 1500 ms lease"
    );
    assert_eq!(
        text::answer_words(&granted, Lang::Ru),
        "Granted{4} с арендой 1500\u{a0}мс"
    );
}

#[test]
fn a_lasting_violation_is_reported_once_in_both_languages() {
    use crate::check::Invariant;
    let mut p = page("break-followers-delete");
    p.apply(Command::RunTo(u64::MAX));
    let details: Vec<_> = p
        .playground
        .world
        .violations()
        .iter()
        .filter(|(_, v)| v.invariant == Invariant::LockTablesAgree)
        .map(|(_, v)| v.detail.clone())
        .collect();
    assert!(
        !details.is_empty(),
        "followers deleting on their own clock split the tables"
    );
    let unique: std::collections::BTreeSet<_> = details.iter().map(|d| d.en.clone()).collect();
    assert_eq!(
        unique.len(),
        details.len(),
        "each lasting split reported once"
    );
    assert!(
        details.iter().all(|d| d.ru.contains("таблица блокировок")),
        "{details:?}"
    );
}

#[test]
fn a_trace_opens_at_once_and_the_worker_checks_it() {
    // Open a trace: shown read-only at once, its check handed to the worker; the worker's answer
    // fills the verdict; a trace opened again answers to its own check only; closing stops it.
    let mut w = crate::sim::World::new(&builtin::get("gc-pause").unwrap(), true).unwrap();
    w.run_until(20_000_000);
    let text = w
        .trace
        .to_jsonl()
        .replacen(r#""accepted":false"#, r#""accepted":true"#, 1);
    let mut p = page("gc-pause");
    let before = hash(&p);
    let fx = p.apply(Command::OpenTrace("a.jsonl".into(), Ok(text.clone())));
    assert_eq!(
        fx,
        vec![Effect::CheckTrace {
            id: 1,
            text: text.clone().into()
        }]
    );
    assert!(p.traces.open.as_ref().unwrap().findings().is_empty());
    // Opened again before the answer: the first check's answer is stale.
    let fx = p.apply(Command::OpenTrace("b.jsonl".into(), Ok(text.clone())));
    assert!(matches!(&fx[..], [Effect::CheckTrace { id: 2, .. }]));
    let answer = || Ok(crate::check::trace::Checked::of_text_json(&text));
    p.apply(Command::TraceChecked(1, answer()));
    assert_eq!(
        p.traces.open.as_ref().unwrap().check,
        trace_view::TraceCheck::Running(2)
    );
    p.apply(Command::TraceChecked(2, answer()));
    let v = p.traces.open.as_ref().unwrap();
    assert_eq!(v.name, "b.jsonl");
    assert_eq!(
        v.report().unwrap().findings[0].rule.name(),
        "storage_rejects_stale_tokens"
    );
    // Closed: the worker is told to stop, a late answer finds no trace, and the run is as it was.
    assert_eq!(p.apply(Command::CloseTrace), vec![Effect::StopTraceCheck]);
    p.apply(Command::TraceChecked(2, answer()));
    assert!(p.traces.open.is_none() && p.error.is_none());
    assert_eq!(hash(&p), before);
    // A malformed file is refused at once and asks the worker nothing.
    let fx = p.apply(Command::OpenTrace(
        "c.jsonl".into(),
        Ok("{\"ev\": oops}".into()),
    ));
    assert!(fx.is_empty() && p.traces.open.is_none());
    assert!(p.error.as_deref().unwrap().contains("line 1"));
}

/// The bare address opens on the start screen; its choices open the first lesson, a numbered
/// one, the one a reader left, or free play; a deep link or a share link opens on its run.
#[test]
fn the_start_screen_opens_on_the_bare_address_and_each_choice_leads_somewhere() {
    use crate::model::start::{Choice, Left};
    let p = Page::from_fragment("");
    assert!(p.start.open, "the bare address");
    assert!(!Page::from_fragment("#scenario=gc-pause").start.open);
    assert!(!Page::from_fragment("#embed").start.open);
    assert!(!Page::from_fragment("#scenarios").start.open);
    let mut p = Page::from_fragment("");
    // Free play: the playground, already there.
    let mut free = Page::from_fragment("");
    assert!(free.apply(Command::Start(Choice::FreePlay)).is_empty());
    assert!(!free.start.open && free.playground.scenario.name == "playground");
    // The first lesson is fetched, and opens when it comes.
    p.apply(Command::Start(Choice::FirstLesson));
    let opened = |p: &Page| {
        p.library
            .loading
            .clone()
            .unwrap_or(p.playground.scenario.name.clone())
    };
    assert!(!p.start.open);
    assert_eq!(opened(&p), "gc-pause");
    // A returning reader's lesson.
    let mut back = Page::from_fragment("");
    back.start.left = Left::parse("drift-and-jump 3");
    back.apply(Command::Start(Choice::Continue));
    assert_eq!(opened(&back), "drift-and-jump");
}

/// A lesson starts at "step 1 of N": its story before the first caption is a step, so no
/// reader ever sees "step 0".
#[test]
fn a_lesson_starts_at_step_1_and_ends_at_its_last_step() {
    use crate::model::lesson::step_label;
    assert_eq!(step_label(0, 7), (1, 8));
    assert_eq!(step_label(7, 7), (8, 8));
}

/// The cluster in words, as a screen reader hears it: who leads, and which links are cut.
#[test]
fn the_cluster_in_words_says_who_leads_and_what_is_cut() {
    use crate::model::text::cluster_words;
    let mut p = Page::from_fragment("");
    assert!(
        cluster_words(&p.playground.world, Lang::En).ends_with("No node leads. Every link is up.")
    );
    p.apply(Command::Act(crate::scenario::Action::Cut {
        from: "n1".into(),
        to: "n2".into(),
    }));
    p.playground.advance_to(1_000_000, false);
    let words = cluster_words(&p.playground.world, Lang::En);
    assert!(words.contains(" leads term "), "{words}");
    assert!(words.ends_with("Cut: n1 → n2."), "{words}");
}

/// The clock-rate slider snaps to the rates a lesson talks about and reads them as a teacher
/// says them ("×2", "×0.999"); a scenario's rate between two stops is shown as it is.
#[test]
fn the_rate_slider_snaps_to_meaningful_rates_and_reads_x2() {
    use crate::model::text::{fmt_rate, rate_tooltip};
    assert_eq!(rate_of(0), 1_000_000, "the middle is true time");
    assert_eq!(rate_of(-RATE_MID), 250_000);
    assert_eq!(rate_of(RATE_MID), 4_000_000);
    assert_eq!(rate_of(99), 4_000_000, "an absurd position is clamped");
    for (i, &stop) in RATE_STOPS.iter().enumerate() {
        assert_eq!(
            rate_pos(stop),
            i as i32 - RATE_MID,
            "every stop is its own position"
        );
    }
    assert!(RATE_STOPS.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(rate_pos(1_900_000), rate_pos(2_000_000), "nearest by ratio");
    assert_eq!(rate_pos(1_000_400), 0);
    assert_eq!(rate_pos(0), -RATE_MID);
    assert_eq!(fmt_rate(2_000_000, Lang::En), "×2");
    assert_eq!(fmt_rate(1_000_000, Lang::En), "×1");
    assert_eq!(fmt_rate(999_000, Lang::En), "×0.999");
    assert_eq!(fmt_rate(250_000, Lang::Ru), "×0,25");
    assert_eq!(fmt_rate(1_071_773, Lang::En), "×1.0718");
    assert_eq!(
        fmt_rate(1_000_040, Lang::En),
        "×1",
        "below a tenth of a permille"
    );
    assert_eq!(
        rate_tooltip(2_000_000, Lang::En),
        "2000000 ppm of true time (+1000000 ppm drift)"
    );
    assert_eq!(
        rate_tooltip(999_000, Lang::En),
        "999000 ppm of true time (-1000 ppm drift)"
    );
}

/// A click on a node opens its controls; Esc (or ✕) closes them, and a node the run no longer
/// has has none open.
#[test]
fn a_node_click_opens_its_controls_and_esc_closes_them() {
    let mut p = Page::from_fragment("");
    p.apply(Command::NodeControls(Some(2)));
    assert_eq!(p.node_controls_open(), Some(2));
    p.apply(Command::Act(crate::scenario::Action::SetRate {
        node: 3,
        rate_ppm: rate_of(RATE_MID - 1),
    }));
    assert_eq!(p.playground.world.nodes[2].clock.rate_ppm(), 2_000_000);
    assert_eq!(p.node_controls_open(), Some(2), "an action keeps them open");
    p.apply(Command::DismissError);
    assert_eq!(p.node_controls_open(), None, "Esc closes them");
    p.apply(Command::NodeControls(Some(7)));
    assert_eq!(p.node_controls_open(), None, "n8 is not in a 5-node run");
    p.apply(Command::NodeControls(Some(4)));
    p.apply(Command::NodeControls(None));
    assert_eq!(p.node_controls_open(), None);
}

/// Bad links in plain words, one message and one unit: a link whose moment is past the end of its
/// run opens at its end and says so (a lesson link opens the lesson at its last step); a bad link
/// pasted into an open tab says that the run there is kept, and keeps it.
#[test]
fn a_link_past_its_end_opens_at_the_end_and_a_bad_link_says_what_it_kept() {
    let sc = builtin::get("gc-pause").unwrap();
    let end = sc.until_ms * 1000;
    let frag = crate::scenario::link::encode_fragment(&sc, end + 3_500_000);
    let mut p = Page::from_fragment(&frag);
    p.finish_jobs();
    assert_eq!(p.playground.now_us(), end, "opened at the end");
    let note = p.error.clone().expect("a note");
    assert_eq!(
        note,
        format!(
            "This link's moment, {}, is past the end of its {} run: it is opened at its end.",
            text::fmt_us((end + 3_500_000) as i64, Lang::En),
            text::fmt_span(end, Lang::En)
        )
    );
    assert!(
        !note.contains("µs") && !note.contains(" ms"),
        "one unit: {note}"
    );
    let v = p.lesson_view().expect("the lesson is kept");
    assert_eq!(v.pos, v.count, "at its last step");
    // The same link pasted into an open tab.
    let mut q = page("drift-and-jump");
    next_caption(&mut q);
    q.apply(Command::OpenFragment(frag.clone()));
    q.finish_jobs();
    assert_eq!(
        (q.playground.scenario.name.as_str(), q.playground.now_us()),
        ("gc-pause", end)
    );
    assert!(q.error.take().unwrap().contains("past the end"));
    // A broken link pasted into an open tab keeps the run and says so.
    let before = (hash(&q), q.playground.now_us());
    q.apply(Command::OpenFragment(frag[..frag.len() / 2].to_string()));
    assert_eq!((hash(&q), q.playground.now_us()), before);
    let e = q.error.take().unwrap();
    assert!(
        e.starts_with("This link could not be opened: the link is cut short"),
        "{e}"
    );
    assert!(e.ends_with("The run you had is kept."), "{e}");
    assert!(!e.contains("link: "), "no field name: {e}");
    // The same broken link as the page opens shows the default scenario, and says that.
    let r = Page::from_fragment(&frag[..frag.len() / 2]);
    assert!(r
        .error
        .unwrap()
        .ends_with("The default scenario is shown instead."));
}

/// The test handle and the buttons never drop a call silently: a seek past what has run runs
/// on to it, and a command for the run while a built-in is still loading is refused with the
/// reason (it would be done to the run about to be replaced).
#[test]
fn a_seek_past_what_has_run_runs_there_and_a_command_while_loading_says_why() {
    let mut p = page("gc-pause");
    p.apply(Command::RunTo(2_000_000));
    p.finish_jobs();
    p.apply(Command::Seek(3_500_000));
    p.finish_jobs();
    assert_eq!(p.playground.now_us(), 3_500_000, "the seek ran on");
    assert!(p.error.is_none());
    p.apply(Command::Seek(u64::MAX));
    p.finish_jobs();
    assert_eq!(
        p.playground.now_us(),
        p.playground.end_us(),
        "up to the run's end"
    );
    // A deep link's built-in still coming: the run shown meanwhile is not touched.
    let mut q = fetching("#scenario=gc-pause");
    assert_eq!(q.library.loading.as_deref(), Some("gc-pause"));
    let before = hash(&q);
    for cmd in [
        Command::RunTo(5_000_000),
        Command::Play(true),
        Command::LessonNext,
    ] {
        assert!(cmd.moves_the_run());
        q.apply(cmd.clone());
        q.finish_jobs();
        let e = q.error.take().unwrap_or_default();
        assert!(
            e.contains("\"GC pause and fencing tokens\" is still loading"),
            "{cmd:?}: {e}"
        );
        assert_eq!(hash(&q), before, "{cmd:?}");
        assert!(!q.playing);
    }
    assert!(
        !Command::Presenter(true).moves_the_run(),
        "the rest of the page still works"
    );
    // A pause is never refused, and choosing a lesson still to come pauses the run shown.
    let mut r = fetching("");
    r.apply(Command::Play(true));
    r.apply(Command::LoadBuiltin("ghost-lock".into()));
    assert!(!r.playing, "the run about to be replaced waits");
    r.playing = true;
    r.apply(Command::TogglePlay);
    assert!(
        !r.playing && r.error.is_none(),
        "Space pauses while a lesson loads"
    );
    // A run replaced closes a node's controls (another lesson's n5 is another node).
    r.apply(Command::Fetched(
        "ghost-lock".into(),
        Ok(builtin::get("ghost-lock").unwrap().to_json()),
    ));
    r.apply(Command::NodeControls(Some(1)));
    r.apply(Command::LoadBuiltin("playground".into()));
    assert_eq!(r.node_controls_open(), None);
}

#[test]
fn the_time_bar_reads_the_moment_what_has_run_and_offers_take_over_only_in_the_past() {
    let mut p = page("gc-pause");
    p.apply(Command::RunTo(3_000_000));
    let bar = p.time_bar();
    assert_eq!((bar.now_us, bar.horizon_us), (3_000_000, 3_000_000));
    assert_eq!(bar.events, p.playground.world.stats.events);
    assert!(
        !bar.can_take_over,
        "at the end of what has run there is no future to discard"
    );
    p.apply(Command::Seek(1_000_000));
    p.finish_jobs();
    let bar = p.time_bar();
    assert_eq!((bar.now_us, bar.horizon_us), (1_000_000, 3_000_000));
    assert!(bar.can_take_over);
    assert_eq!(bar.events, p.playground.world.stats.events);
    assert_eq!(bar.in_flight, p.playground.world.in_flight().len());
}
