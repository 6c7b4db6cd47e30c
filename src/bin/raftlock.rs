//! The headless CLI: run scenarios, export traces, run swarms, benchmark the simulator.

use raftlock::scenario::{swarm, Scenario};
use std::process::ExitCode;

const USAGE: &str = "usage:
  raftlock list                                  the built-in scenarios, one a line, name first
  raftlock run SCENARIO.json [--until-ms N] [--seed S] [--trace OUT.jsonl]
  raftlock run --builtin NAME [...]              a built-in scenario, with its expected-outcome checks
                                                 and its captions' facts (--captions: the state
                                                 at each caption, for writing a lesson)
  raftlock run --link URL [...]                  what a share link holds (run to its end)
  raftlock link SCENARIO.json [--at-ms T] [--base URL]   print the share URL
  raftlock swarm [--seeds N] [--from S] [--dump DIR] [--snapshot-every E]
                                                 (E: log compaction every E entries; 0 = the seeds' own)
  raftlock bench [--hours H | --minutes M] [--runs R] [--json]
  raftlock hunt [--switch NAME]... [--runs N] [--from S] [--out FILE.json] [--control]
                                                 random faults until an invariant breaks; shrink it
  raftlock example            print the README's example scenario";

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`| head`) would panic; a command
    // line tool should just stop, as `cat` does.
    #[cfg(unix)]
    // SAFETY: called first thing, before any thread exists; SIG_DFL is a valid action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("run") => cmd_run(&args[1..]),
        Some("list") => {
            for name in raftlock::scenario::builtin::names() {
                let sc = raftlock::scenario::builtin::get(name).expect("listed");
                let title = sc
                    .lesson
                    .as_ref()
                    .map_or(String::new(), |l| l.title.clone());
                println!("{name:<24} {title}");
            }
            Ok(())
        }
        Some("link") => cmd_link(&args[1..]),
        Some("hunt") => cmd_hunt(&args[1..]),
        Some("swarm") => cmd_swarm(&args[1..]),
        Some("bench") => cmd_bench(&args[1..]),
        Some("example") => {
            print!("{}", raftlock::scenario::EXAMPLE_JSON);
            Ok(())
        }
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("raftlock: {e}");
            ExitCode::FAILURE
        }
    }
}

fn flag<T: std::str::FromStr>(args: &[String], name: &str) -> Result<Option<T>, String> {
    match args.iter().position(|a| a == name) {
        None => Ok(None),
        Some(i) => {
            let v = args.get(i + 1).ok_or(format!("{name} needs a value"))?;
            v.parse()
                .map(Some)
                .map_err(|_| format!("{name}: cannot read \"{v}\""))
        }
    }
}

fn read_scenario(path: &str) -> Result<Scenario, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    Scenario::from_json(&text).map_err(|e| format!("{path}: {e}"))
}

fn cmd_link(args: &[String]) -> Result<(), String> {
    let path = args.first().filter(|a| !a.starts_with("--")).ok_or(USAGE)?;
    let sc = read_scenario(path)?;
    let at_ms: u64 = flag(args, "--at-ms")?.unwrap_or(sc.until_ms);
    let base: String =
        flag(args, "--base")?.unwrap_or_else(|| "http://127.0.0.1:8080/".to_string());
    println!(
        "{}",
        raftlock::scenario::link::encode_url(&base, &sc, at_ms * 1000)
    );
    Ok(())
}

fn cmd_run(args: &[String]) -> Result<(), String> {
    let (mut sc, path) = if let Some(name) = flag::<String>(args, "--builtin")? {
        let sc = raftlock::scenario::builtin::get(&name)
            .ok_or_else(|| format!("no built-in scenario \"{name}\" (see raftlock list)"))?;
        (sc, name)
    } else if let Some(url) = flag::<String>(args, "--link")? {
        let shared = raftlock::scenario::link::decode(&url).map_err(|e| e.to_string())?;
        println!("link moment     {} µs", shared.moment_us);
        (shared.scenario, "link".to_string())
    } else {
        let path = args.first().filter(|a| !a.starts_with("--")).ok_or(USAGE)?;
        (read_scenario(path)?, path.clone())
    };
    let path = &path;
    if let Some(u) = flag::<u64>(args, "--until-ms")? {
        sc.until_ms = u;
    }
    if let Some(s) = flag::<u64>(args, "--seed")? {
        sc.seed = s;
    }
    let trace_out: Option<String> = flag(args, "--trace")?;
    sc.validate().map_err(|e| e.to_string())?;
    let mut w = raftlock::sim::World::new(&sc, true).map_err(|e| e.to_string())?;
    w.run_until(sc.until_ms * 1000);
    let s = &w.stats;
    println!(
        "scenario        {}",
        if sc.name.is_empty() {
            path.as_str()
        } else {
            &sc.name
        }
    );
    println!("seed            {}", sc.seed);
    println!("virtual time    {} ms", sc.until_ms);
    println!("events          {}", s.events);
    println!("leader changes  {}", s.leader_changes);
    println!(
        "raft messages   {} ({:.1} KB)",
        s.raft_messages,
        s.raft_bytes as f64 / 1000.0
    );
    println!("grants          {}", s.grants);
    println!("expiries        {}", s.expiries);
    println!("ghost releases  {}", s.ghost_releases);
    println!(
        "writes          {} accepted, {} rejected",
        s.writes_accepted, s.writes_rejected
    );
    println!("violations      {}", w.violations().len());
    for (t, v) in w.violations().iter().take(10) {
        println!("  t={t}us {}: {}", v.invariant, v.detail);
    }
    let unchecked = raftlock::check::unchecked(&w);
    if !unchecked.is_empty() {
        println!(
            "not checked     {} (server clocks drifted or jumped)",
            unchecked.join(", ")
        );
    }
    println!("trace events    {}", w.trace.count());
    println!("trace hash      {}", w.trace.hash_hex());
    match w.history_verdict() {
        None => println!("client history  not checked (server clocks drifted or jumped)"),
        Some(Ok(holds)) => println!(
            "client history  linearizable as a mutex with leases ({} holds)",
            holds.len()
        ),
        Some(Err(c)) => println!(
            "client history  NOT linearizable (the shortest failing prefix ends at t={}us): {c}",
            c.at_us
        ),
    }
    let mut failed = 0;
    if let Some(lesson) = &sc.lesson {
        for c in &lesson.checks {
            let ok = c.passed(&w);
            failed += !ok as usize;
            println!(
                "check           {} {}",
                if ok { "PASS" } else { "FAIL" },
                c.describe()
            );
        }
    }
    if let Some(lesson) = &sc.lesson {
        let show_state = args.iter().any(|a| a == "--captions");
        let verdict = raftlock::scenario::walk::verdict(&sc, |i, w| {
            if show_state {
                let c = &lesson.captions[i];
                println!("\ncaption {} at {} µs: {}", i + 1, w.now_us, c.text);
                for f in &c.checks {
                    println!(
                        "  fact {} {}",
                        if f.passed(w) { "true " } else { "FALSE" },
                        f.describe()
                    );
                }
                if let Some(q) = &c.question {
                    println!(
                        "  question {} → {}",
                        q.name(),
                        q.choices.get(q.answer).map_or("?", |c| c.as_str())
                    );
                    for f in &q.checks {
                        println!(
                            "  answer fact {} {}",
                            if f.passed(w) { "true " } else { "FALSE" },
                            f.describe()
                        );
                    }
                }
                for line in state_lines(w) {
                    println!("  {line}");
                }
            }
        });
        if show_state {
            println!();
        }
        let facts: usize = lesson.captions.iter().map(|c| c.checks.len()).sum();
        println!(
            "captions        {} with {facts} fact(s): {}",
            lesson.captions.len(),
            if verdict.wrong.is_empty() {
                "all true"
            } else {
                "WRONG"
            }
        );
        let questions: Vec<_> = lesson
            .captions
            .iter()
            .filter_map(|c| c.question.as_ref())
            .collect();
        if !questions.is_empty() {
            let checked = questions.iter().filter(|q| !q.checks.is_empty()).count();
            println!(
                "questions       {} ({checked} with answers checked by the run): {}",
                questions.len(),
                if verdict.wrong_answers == 0 {
                    "every declared answer is what the run does"
                } else {
                    "WRONG"
                }
            );
        }
        for (i, what) in &verdict.wrong {
            println!(
                "caption {i:<7} FAIL \"{}\": {what}",
                lesson.captions[i - 1].text
            );
        }
        failed += verdict.wrong.len();
    }
    if let Some(out) = trace_out {
        std::fs::write(&out, w.trace.to_jsonl()).map_err(|e| format!("{out}: {e}"))?;
        println!("trace written   {out}");
    }
    if failed > 0 {
        return Err(format!(
            "{failed} expected-outcome check(s) or caption fact(s) failed"
        ));
    }
    Ok(())
}

fn cmd_hunt(args: &[String]) -> Result<(), String> {
    let switches: Vec<&str> = args
        .windows(2)
        .filter(|w| w[0] == "--switch")
        .map(|w| w[1].as_str())
        .collect();
    let runs: u64 = flag(args, "--runs")?.unwrap_or(1000);
    let from: u64 = flag(args, "--from")?.unwrap_or(1);
    let out: Option<String> = flag(args, "--out")?;
    let label = if switches.is_empty() {
        "no switch (the seed's design)".to_string()
    } else {
        switches.join(", ")
    };
    if args.iter().any(|a| a == "--control") {
        let (b, failing) = raftlock::scenario::hunt::control_batch(&switches, from, runs)?;
        println!(
            "control: the hunt's {} schedules for {label}, with the switches back off: {} failed ({} events)",
            b.runs,
            failing.len(),
            b.events
        );
        if let Some((seed, inv)) = b.failed {
            println!("  first: seed {seed}, {inv}");
            return Err("the safe design failed a control run".into());
        }
        return Ok(());
    }
    match raftlock::scenario::hunt::hunt(&switches, from, runs)? {
        None => {
            println!("hunt with {label}: no violation in {runs} runs");
            Ok(())
        }
        Some(f) => {
            println!(
                "hunt with {label}: {} broke after {} run(s) (seed {})",
                f.invariant, f.runs, f.seed
            );
            println!("  {}", f.detail);
            println!(
                "  shrunk from {} to {} timeline actions, {} ms",
                f.original_actions,
                f.shrunk.timeline.len(),
                f.shrunk.until_ms
            );
            if let Some(path) = out {
                std::fs::write(&path, f.shrunk.to_json()).map_err(|e| format!("{path}: {e}"))?;
                println!("  scenario written to {path}");
            }
            println!(
                "  link: {}",
                raftlock::scenario::link::encode_url(
                    "http://127.0.0.1:8080/",
                    &f.shrunk,
                    f.shrunk.until_ms * 1000
                )
            );
            Ok(())
        }
    }
}

fn cmd_swarm(args: &[String]) -> Result<(), String> {
    let n: u64 = flag(args, "--seeds")?.unwrap_or(100);
    let from: u64 = flag(args, "--from")?.unwrap_or(1);
    // --dump DIR writes each failing seed's scenario document there, to run, trace or share.
    let dump: Option<String> = flag(args, "--dump")?;
    let every: u64 = flag(args, "--snapshot-every")?.unwrap_or(0);
    if every != 0 && every < 4 {
        return Err("--snapshot-every: 0 (the seeds' own setting) or at least 4".into());
    }
    let scenario = |seed| {
        let mut sc = swarm::random_scenario(seed);
        if every > 0 {
            sc.raft.snapshot_every = every;
        }
        sc
    };
    let (mut failed, mut events, mut installs) = (0, 0, 0);
    for seed in from..from + n {
        let o = swarm::run_with(seed, scenario(seed));
        events += o.events;
        installs += o.snapshot_installs;
        if !o.ok() {
            failed += 1;
            let again = if every > 0 {
                format!(" --snapshot-every {every}")
            } else {
                String::new()
            };
            println!(
                "seed {seed}: FAILED  (replay: raftlock swarm --seeds 1 --from {seed}{again})"
            );
            for v in o.violations.iter().take(5) {
                println!("  violation {v}");
            }
            if let Err(e) = &o.convergence {
                println!("  not converged {} ms after calm: {e}", swarm::SETTLE_MS);
            }
            if let Some(dir) = &dump {
                let path = format!("{dir}/swarm-{seed}.json");
                std::fs::write(&path, scenario(seed).to_json())
                    .map_err(|e| format!("{path}: {e}"))?;
                println!("  scenario written to {path} (raftlock run {path} --trace OUT.jsonl)");
            }
        }
    }
    println!("swarm: {n} runs, {events} events, {installs} snapshots installed, {failed} failed");
    if failed > 0 {
        return Err(format!("{failed} of {n} runs failed"));
    }
    Ok(())
}

fn cmd_bench(args: &[String]) -> Result<(), String> {
    let hours: u64 = flag(args, "--hours")?.unwrap_or(1);
    let minutes: u64 = flag(args, "--minutes")?.unwrap_or(hours * 60);
    if minutes == 0 {
        return Err("--hours/--minutes must be at least 1 minute".into());
    }
    let runs: usize = flag::<usize>(args, "--runs")?.unwrap_or(3).max(1);
    let sc = raftlock::bench::bench_scenario(minutes * 60_000);
    let virtual_s = (minutes * 60) as f64;
    let mut rates = Vec::new();
    let mut hash = String::new();
    let mut events = 0;
    let mut traffic = (0, 0);
    for _ in 0..runs {
        let t0 = std::time::Instant::now();
        let w = raftlock::bench::run_bench(&sc);
        let secs = t0.elapsed().as_secs_f64();
        events = w.stats.events;
        traffic = (w.stats.raft_messages, w.stats.raft_bytes);
        hash = w.trace.hash_hex();
        rates.push((events as f64 / secs, secs));
    }
    rates.sort_by(|a, b| a.0.total_cmp(&b.0));
    let median = rates[rates.len() / 2];
    let min = rates[0];
    if args.iter().any(|a| a == "--json") {
        println!(
            "{{\"minutes\":{minutes},\"events\":{events},\"hash\":\"{hash}\",\"rate_min\":{:.0},\"rate_median\":{:.0},\"secs_median\":{:.4}}}",
            min.0, median.0, median.1
        );
        return Ok(());
    }
    println!("bench: 5 nodes, 10 clients, {minutes} min virtual time, {events} events, trace hash {hash}");
    println!("| figure | min | median |");
    println!("|---|---|---|");
    println!("| native events/s | {:.0} | {:.0} |", min.0, median.0);
    println!(
        "| wall time for {minutes} min virtual (s) | {:.3} | {:.3} |",
        rates.last().unwrap().1,
        median.1
    );
    println!(
        "| virtual/real time ratio | {:.0}x | {:.0}x |",
        virtual_s / rates.last().unwrap().1,
        virtual_s / median.1
    );
    println!(
        "Raft traffic between nodes: {:.0} messages and {:.1} KB per virtual second",
        traffic.0 as f64 / virtual_s,
        traffic.1 as f64 / virtual_s / 1000.0
    );
    Ok(())
}

/// The state a caption can talk about, one line per node and client, for `run --captions`.
fn state_lines(w: &raftlock::sim::World) -> Vec<String> {
    let mut out = Vec::new();
    for (k, slot) in w.nodes.iter().enumerate() {
        let Some(s) = &slot.server else {
            out.push(format!("n{} crashed", k + 1));
            continue;
        };
        let locks: Vec<String> = s
            .machine
            .locks
            .iter()
            .map(|(key, l)| {
                let holder = l.holder.map_or("-".to_string(), |h| w.client_name(h));
                format!("{key}={holder}#{}", l.token)
            })
            .collect();
        let log = s.raft.log();
        out.push(format!(
            "n{} {}{} term {} log ..{} commit {} applied {} locks [{}]",
            k + 1,
            s.raft.role().name(),
            if slot.paused { " (paused)" } else { "" },
            s.raft.term(),
            log.last_index(),
            s.raft.commit_index(),
            s.machine.applied,
            locks.join(" ")
        ));
    }
    for c in &w.clients {
        let held: Vec<String> = c
            .client
            .held
            .iter()
            .map(|(k, h)| format!("{k}#{}", h.token))
            .collect();
        out.push(format!(
            "client {}{} {:?} holds [{}]",
            c.client.cfg.name,
            if c.paused {
                " (paused)"
            } else if c.crashed {
                " (crashed)"
            } else {
                ""
            },
            c.client.phase,
            held.join(" ")
        ));
    }
    let s = &w.stats;
    out.push(format!(
        "storage {} accepted, {} rejected",
        s.writes_accepted, s.writes_rejected
    ));
    out
}
