//! The page's caps on what grows with the run, questions, clock-bound invariants.

use super::*;

/// The page keeps only the latest client operations and storage writes (memory stays flat over
/// hours of play); the history check replays the run to check every operation, and lesson checks
/// read running summaries: both agree with an uncapped run.
#[test]
fn capped_history_and_writes_still_give_the_whole_runs_verdict_and_checks() {
    // The broken release of etcd issue 22082, with a busy client C on another key: many
    // operations before the conflict.
    let mut doc: serde_json::Value = serde_json::from_str(
        &raftlock::scenario::builtin::get("break-release-without-holder-check")
            .unwrap()
            .to_json(),
    )
    .unwrap();
    doc["clients"].as_array_mut().unwrap().push(json!({"name": "C", "repeat": true, "start_ms": 300, "script": [
        {"acquire": {"key": "c", "lease_ms": 1000}}, {"work": {"key": "c", "ms": 5}}, {"release": {"key": "c"}}]}));
    let mut p = Playground::new(scenario(doc)).unwrap();
    p.world.history.set_cap(8);
    p.world.storage.set_cap(8);
    let end = p.end_us();
    while !p.at_end() {
        p.advance_to(end, false);
    }
    let full = raftlock::run_scenario(&p.scenario, true).unwrap();
    assert!(
        p.world.history.from() > 0 && p.world.storage.writes_dropped > 0,
        "the caps let early items go"
    );
    let (capped, whole) = (p.history_verdict(), full.history_verdict());
    assert!(
        matches!(whole, Some(Err(_))),
        "this run's history is not linearizable"
    );
    assert_eq!(
        capped, whole,
        "the same verdict, with the conflict's positions counted from the run's start"
    );
    for doc in ["gc-pause", "gc-pause-no-fencing", "three-clients"] {
        let mut p = Playground::new(raftlock::scenario::builtin::get(doc).unwrap()).unwrap();
        p.world.storage.set_cap(1);
        p.advance_to(p.end_us(), false);
        for c in &p.scenario.lesson.as_ref().unwrap().checks {
            assert!(c.passed(&p.world), "{doc}: {}", c.describe());
        }
    }
}

/// The hour of the memory benchmark in the page's model: more operations than the page keeps.
#[test]
fn a_long_run_keeps_a_bounded_history_in_the_page() {
    let mut p = Playground::new(two_clients_on_one_key(3_600_000)).unwrap();
    p.advance_to(30 * 60_000_000, false);
    let h = &p.world.history;
    assert!(h.from() > 0, "half an hour outgrows the cap");
    assert!(h.ops.len() <= raftlock::playground::HISTORY_KEEP + raftlock::chunked::CHUNK);
    assert!(
        p.world.storage.writes.len()
            <= raftlock::playground::HISTORY_KEEP + raftlock::chunked::CHUNK
    );
    let verdict = p.history_verdict();
    match &verdict {
        Some(Ok(holds)) => assert!(
            holds.len() * 2 > h.from() + h.ops.len() - 10,
            "every hold of the run: {}",
            holds.len()
        ),
        other => panic!("{other:?}"),
    }
    // Snapshots keep only the latest operations; seeking back and forth gives the same run.
    let (last, total, hash) = (
        format!("{:?}", h.ops.last()),
        h.from() + h.ops.len(),
        p.world.trace.hash(),
    );
    p.seek(10 * 60_000_000);
    p.seek(30 * 60_000_000);
    let h = &p.world.history;
    assert_eq!(
        (
            format!("{:?}", h.ops.last()),
            h.from() + h.ops.len(),
            p.world.trace.hash()
        ),
        (last, total, hash)
    );
    assert_eq!(p.history_verdict(), verdict);
}

/// Every timeline action reads back as written (actions are parsed through a flat struct, not
/// serde's tagged-enum derive), and a wrong one is refused with serde's own words.
#[test]
fn every_action_round_trips_through_the_document() {
    use raftlock::scenario::TimedAction;
    let s = |x: &str| x.to_string();
    let all = vec![
        Action::Crash { node: 1 },
        Action::Restart { node: 2 },
        Action::Pause { node: 3 },
        Action::Resume { node: 4 },
        Action::Partition {
            groups: vec![vec![1, 2], vec![3]],
        },
        Action::Isolate { node: 5 },
        Action::Cut {
            from: s("n1"),
            to: s("A"),
        },
        Action::Heal {
            from: s("storage"),
            to: s("n2"),
        },
        Action::HealAll,
        Action::SetRate {
            node: 1,
            rate_ppm: 1_500_000,
        },
        Action::Jump { node: 2, ms: -300 },
        Action::ClientPause { client: s("A") },
        Action::ClientResume { client: s("A") },
        Action::ClientCrash { client: s("B") },
        Action::ClientRestart { client: s("B") },
        Action::ClientDisconnect { client: s("C") },
        Action::ClientReconnect { client: s("C") },
        Action::ClientAcquire {
            client: s("A"),
            key: s("k"),
            lease_ms: 900,
        },
        Action::ClientRelease {
            client: s("A"),
            key: s("k"),
        },
        Action::DuplicateExpire { key: s("k") },
        Action::Calm,
    ];
    for (i, action) in all.into_iter().enumerate() {
        let timed = TimedAction {
            at_ms: i as u64,
            action: action.clone(),
        };
        let text = serde_json::to_string(&timed).unwrap();
        assert_eq!(
            serde_json::from_str::<TimedAction>(&text).unwrap(),
            timed,
            "{text}"
        );
        assert_eq!(
            serde_json::from_str::<Action>(&serde_json::to_string(&action).unwrap()).unwrap(),
            action
        );
    }
    let e = serde_json::from_str::<Action>(r#"{"do":"crsh","node":1}"#)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unknown variant `crsh`") && e.contains("`crash`"),
        "{e}"
    );
    let e = serde_json::from_str::<Action>(r#"{"do":"crash"}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing field `node`"), "{e}");
    let e = serde_json::from_str::<TimedAction>(r#"{"do":"calm"}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing field `at_ms`"), "{e}");
    let e = serde_json::from_str::<Action>(r#"{"do":"crash","node":"one"}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("invalid type"), "{e}");
}

/// Lesson checks read back as written, and a misspelt or misplaced field is refused.
#[test]
fn every_lesson_check_round_trips_and_strays_are_refused() {
    use raftlock::scenario::lesson::Claim;
    let mut seen = std::collections::BTreeSet::new();
    for name in raftlock::scenario::builtin::names() {
        for c in raftlock::scenario::builtin::get(name)
            .unwrap()
            .lesson
            .map(|l| l.checks)
            .unwrap_or_default()
        {
            let text = serde_json::to_string(&c).unwrap();
            assert_eq!(serde_json::from_str::<Claim>(&text).unwrap(), c, "{text}");
            seen.insert(text.split('"').nth(3).unwrap().to_string());
        }
    }
    for c in [
        Claim::TokensIncrease,
        Claim::LeaderChanges { at_least: 2 },
        Claim::TermAtMost { node: 1, term: 3 },
        Claim::Grants { exactly: 1 },
    ] {
        assert_eq!(
            serde_json::from_str::<Claim>(&serde_json::to_string(&c).unwrap()).unwrap(),
            c
        );
    }
    assert!(
        seen.len() >= 8,
        "the built-ins use many kinds of check: {seen:?}"
    );
    let e = |t: &str| serde_json::from_str::<Claim>(t).unwrap_err().to_string();
    assert!(e(r#"{"expect":"granted","client":"A"}"#).contains("missing field `key`"));
    assert!(
        e(r#"{"expect":"granted","client":"A","key":"k","existed":true}"#)
            .contains("unknown field `existed`")
    );
    assert!(
        e(r#"{"expect":"granted","client":"A","key":"k","bogus":1}"#)
            .contains("unknown field `bogus`")
    );
    assert!(e(r#"{"expect":"grantd"}"#).contains("unknown variant `grantd`"));
}

/// Every built-in lesson asks at least two questions, and a question whose declared answer is
/// not what the run does is refused by `raftlock run`, which names it; so is a malformed one.
#[test]
fn every_lesson_asks_two_questions_and_raftlock_run_refuses_a_wrong_declared_answer() {
    for name in raftlock::scenario::builtin::names() {
        let sc = raftlock::scenario::builtin::get(name).unwrap();
        let Some(lesson) = &sc.lesson else { continue };
        let n = lesson
            .captions
            .iter()
            .filter(|c| c.question.is_some())
            .count();
        assert!(n >= 2, "{name}: {n} question(s)");
    }
    let mut sc = raftlock::scenario::builtin::get("gc-pause").unwrap();
    // Questions ride in share links and files like the rest of the document.
    let url = raftlock::scenario::link::encode_url("http://127.0.0.1:8080/", &sc, 2_000_000);
    let back = raftlock::scenario::link::decode(&url).unwrap().scenario;
    assert_eq!(back, sc);
    assert_eq!(
        raftlock::scenario::Scenario::from_json(&sc.to_json()).unwrap(),
        sc
    );
    let q = sc.lesson.as_mut().unwrap().captions[5]
        .question
        .as_mut()
        .expect("gc-pause asks B's token before caption 6");
    assert_eq!(q.choices[q.answer].get(raftlock::lang::Lang::En), "4");
    // A teacher edits the question and declares the wrong answer, with its fact.
    q.answer = 0;
    q.checks = vec![
        serde_json::from_str(r#"{"expect":"holds","client":"B","key":"k","token":3}"#).unwrap(),
    ];
    let dir = std::env::temp_dir().join(format!("raftlock-q-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("wrong.json");
    std::fs::write(&path, sc.to_json()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_raftlock"))
        .arg("run")
        .arg(&path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !out.status.success(),
        "a wrong declared answer fails the run"
    );
    assert!(
        stdout.contains("question \"B asks for k now. Which token will B get?\": the declared answer (3: the next number after A's 2) is not what the run does"),
        "{stdout}"
    );
    // A malformed question: one choice.
    let q = sc.lesson.as_mut().unwrap().captions[5]
        .question
        .as_mut()
        .unwrap();
    q.choices.truncate(1);
    q.answer = 0;
    let err = raftlock::scenario::Scenario::from_json(&sc.to_json()).unwrap_err();
    assert!(
        err.to_string()
            .contains("lesson.captions[5].question.choices"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The invariants that compare durations across machines are not checked once a server clock
/// drifts or jumps, and the run says which (the checks and the page read the same list).
#[test]
fn invariants_bound_to_true_clocks_are_not_checked_once_a_server_clock_drifts() {
    use raftlock::check::Invariant;
    let clock_bound: Vec<Invariant> = Invariant::ALL
        .into_iter()
        .filter(|i| i.clock_bound())
        .collect();
    assert_eq!(
        clock_bound,
        [
            Invariant::OneBelievedHolder,
            Invariant::HealthyLeaderNotDeposed,
            Invariant::IsolatedLeaderStepsDown
        ]
    );
    let run = |name: &str| {
        let sc = raftlock::scenario::builtin::get(name).unwrap();
        let mut w = World::new(&sc, true).unwrap();
        w.check_every_event = true;
        w.run_until(sc.until_ms * 1000);
        w
    };
    let drift = run("drift-and-jump");
    assert_eq!(raftlock::check::unchecked(&drift), clock_bound);
    assert!(drift
        .violations()
        .iter()
        .all(|(_, v)| !v.invariant.clock_bound()));
    assert!(raftlock::check::unchecked(&run("gc-pause")).is_empty());
    // With true clocks the same invariants do break where the design is broken.
    let broken = run("break-client-no-margin");
    assert!(broken
        .violations()
        .iter()
        .any(|(_, v)| v.invariant == "one_believed_holder"));
}

/// The CLI reads its arguments with clap: every subcommand has `--help`, an unknown flag or a
/// misspelt switch is refused with a message and exit code 2, and a run still works.
#[test]
fn cli_refuses_unknown_flags_and_offers_help() {
    let cli = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_raftlock"))
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, _, err) = cli(&["run", "--builtin", "gc-pause", "--bogus"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("unexpected argument '--bogus'"), "{err}");
    let (code, _, err) = cli(&["hunt", "--switch", "expire_ignore_token"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("expire_ignores_token"),
        "the valid names are listed: {err}"
    );
    let (code, out, _) = cli(&["swarm", "--help"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("--snapshot-every"), "{out}");
    let (code, out, _) = cli(&["run", "--builtin", "gc-pause"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("check           PASS"), "{out}");
}

/// `raftlock bench --help` offers `none` for `--scaling` to skip the history check's table:
/// `none` is taken (it was refused as not a number) and the table is skipped, a list still times
/// each length, and any other word is refused with the usage error.
#[test]
fn cli_bench_scaling_none_skips_the_history_table_as_its_help_says() {
    let bench = |scaling: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_raftlock"))
            .args(["bench", "--minutes", "1", "--runs", "1", "--json"])
            .args(["--scaling", scaling])
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, out, err) = bench("none");
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("\"history\":[]"), "{out}");
    let (code, out, err) = bench("1");
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("\"history\":[{\"minutes\":1,"), "{out}");
    let (code, _, err) = bench("nothing");
    assert_eq!(code, Some(2));
    assert!(err.contains("'none'"), "{err}");
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_raftlock"))
        .args(["bench", "--help"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&help.stdout).contains("none: skip"));
}

/// The long commands show progress on stderr when it is a terminal, and nothing when it is
/// piped: scripts and CI read the same output as before. (`script` from util-linux gives the
/// command a terminal.)
#[test]
fn cli_progress_shows_on_a_terminal_and_stays_quiet_when_piped() {
    let bin = env!("CARGO_BIN_EXE_raftlock");
    for args in [
        &["swarm", "--seeds", "3"][..],
        &["run", "--builtin", "gc-pause"],
        &["hunt", "--runs", "2"],
    ] {
        let out = std::process::Command::new(bin).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?} piped");
    }
    if !std::path::Path::new("/usr/bin/script").exists() {
        return;
    }
    let out = std::process::Command::new("/usr/bin/script")
        .args(["-qec", &format!("{bin} swarm --seeds 20"), "/dev/null"])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.contains("swarm [") && shown.contains("/20 seeds"),
        "{shown}"
    );
    assert!(shown.contains("swarm: 20 runs"), "{shown}");
}

/// `raftlock run --facts-at MS` prints the facts of that moment as a caption's checks; pasted
/// into a caption at that moment, they make a lesson whose captions are all true.
#[test]
fn cli_facts_at_prints_checks_a_caption_at_that_moment_passes() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_raftlock"))
        .args(["run", "--builtin", "gc-pause", "--facts-at", "2500"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let checks: Vec<serde_json::Value> = stdout
        .lines()
        .take_while(|l| !l.is_empty())
        .skip(1)
        .map(|l| {
            let json = l.trim().split("}  ").next().unwrap().to_string() + "}";
            serde_json::from_str(&json).unwrap()
        })
        .collect();
    assert!(checks.len() >= 8, "{stdout}");
    assert!(stdout.contains("n2 is leader, is in term 1"), "{stdout}");
    let mut sc = example();
    sc.lesson = Some(
        serde_json::from_value(json!({
            "title": "Mine",
            "captions": [{ "at_ms": 2500, "text": "What the stage shows.", "checks": checks }]
        }))
        .unwrap(),
    );
    let verdict = raftlock::scenario::walk::verdict(&sc, |_, _| {});
    assert!(verdict.wrong.is_empty(), "{:?}", verdict.wrong);
}
