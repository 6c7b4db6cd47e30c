//! `raftlock run`: a scenario, a built-in lesson or a share link, with its checks and captions.

use clap::Args;
use raftlock::scenario::Scenario;

#[derive(Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["scenario", "builtin", "link"])))]
pub struct Run {
    /// A scenario document (JSON).
    scenario: Option<String>,
    /// A built-in scenario by name, with its expected-outcome checks and its captions' facts.
    #[arg(long, value_name = "NAME")]
    builtin: Option<String>,
    /// What a share link holds (run to its end).
    #[arg(long, value_name = "URL")]
    link: Option<String>,
    /// Run until this virtual time instead of the scenario's own.
    #[arg(long, value_name = "N")]
    until_ms: Option<u64>,
    /// Another seed for the same scenario.
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// Write the trace as JSON Lines.
    #[arg(long, value_name = "OUT.jsonl")]
    trace: Option<String>,
    /// Print the state at each caption (for writing a lesson).
    #[arg(long)]
    captions: bool,
    /// Print the facts true at this virtual time, each as a caption's check (JSON) with its
    /// words: what a lesson may state there.
    #[arg(long, value_name = "MS")]
    facts_at: Option<u64>,
}

pub fn read_scenario(path: &str) -> Result<Scenario, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    Scenario::from_json(&text).map_err(|e| format!("{path}: {e}"))
}

impl Run {
    pub fn exec(self) -> Result<(), String> {
        let (mut sc, path) = if let Some(name) = &self.builtin {
            let sc = raftlock::scenario::builtin::get(name)
                .ok_or_else(|| format!("no built-in scenario \"{name}\" (see raftlock list)"))?;
            (sc, name.clone())
        } else if let Some(url) = &self.link {
            let shared = raftlock::scenario::link::decode(url).map_err(|e| e.to_string())?;
            match shared.past_end_us {
                Some(asked) => println!(
                    "link moment     {} µs (the link asks for {asked} µs, past the run's end)",
                    shared.moment_us
                ),
                None => println!("link moment     {} µs", shared.moment_us),
            }
            (shared.scenario, "link".to_string())
        } else {
            let path = self.scenario.clone().expect("clap requires a source");
            (read_scenario(&path)?, path)
        };
        let path = &path;
        if let Some(u) = self.until_ms {
            sc.until_ms = u;
        }
        if let Some(s) = self.seed {
            sc.seed = s;
        }
        let trace_out = self.trace;
        sc.validate().map_err(|e| e.to_string())?;
        if let Some(ms) = self.facts_at {
            let mut w = raftlock::sim::World::new(&sc, false).map_err(|e| e.to_string())?;
            w.run_until(ms.min(sc.until_ms) * 1000);
            println!(
                "facts at {} ms (each a caption's check, with its words):",
                w.now_us / 1000
            );
            for f in raftlock::scenario::facts::facts_now(&w, &sc) {
                let json = serde_json::to_string(&f).map_err(|e| e.to_string())?;
                println!("  {json}  {}", f.describe());
            }
            println!();
        }
        let mut w = raftlock::sim::World::new(&sc, true).map_err(|e| e.to_string())?;
        // In steps of virtual time, for the progress bar (the run is the same as in one go:
        // events happen at their own moments).
        let end = sc.until_ms * 1000;
        let pb = crate::progress::bar(end / 1_000_000, "run", "s virtual");
        let step = (end / 500).max(100_000);
        while w.now_us < end {
            w.run_until((w.now_us + step).min(end));
            pb.set_position(w.now_us / 1_000_000);
            pb.set_message(format!("{} events", w.stats.events));
        }
        pb.finish_and_clear();
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
        for inv in raftlock::check::unchecked(&w) {
            if let Some(why) = raftlock::check::unchecked_why(&w, inv) {
                println!("not checked     {} ({})", inv.name(), why.en);
            }
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
            let show_state = self.captions;
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
                            q.choices
                                .get(q.answer)
                                .map_or("?", |c| c.get(raftlock::lang::Lang::En))
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
            let facts: usize = lesson
                .captions
                .iter()
                .map(|c| c.checks.len() + c.twin_checks.len())
                .sum();
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
}

/// The state a caption can talk about, one line per node and client, for `run --captions`.
fn state_lines(w: &raftlock::sim::World) -> Vec<String> {
    let mut out = Vec::new();
    for (k, slot) in w.nodes.iter().enumerate() {
        let Some(s) = slot.server() else {
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
        let progress: String = if s.raft.is_leader() {
            (0..w.node_count)
                .filter(|&p| p != k)
                .map(|p| {
                    format!(
                        " n{}:{}/next {}/match {}",
                        p + 1,
                        s.raft.progress_state(p).name(),
                        s.raft.next_index(p),
                        s.raft.match_index(p)
                    )
                })
                .collect()
        } else {
            String::new()
        };
        out.push(format!(
            "n{} {}{} term {} log ..{} commit {} applied {} locks [{}]{progress}",
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
