//! `raftlock soak`: the wide swarm (every knob of the format over its whole range, see
//! `raftlock::scenario::wide`) on every core, until stopped or for a given count. Prints the
//! rate every ten seconds, and each failing seed with the command that replays it and its
//! schedule shrunk to the fewest timeline actions that still break the same invariant (the
//! hunt's shrinking, which counts violations as the soak does: by-design ones do not).

use clap::Args;
use raftlock::scenario::{hunt, wide};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct Soak {
    /// How many seeds (default: until stopped).
    #[arg(long, value_name = "N")]
    seeds: Option<u64>,
    /// The first seed.
    #[arg(long, value_name = "S", default_value_t = 1)]
    from: u64,
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// Write each failing seed's document and its shrunk schedule here, to run or share.
    #[arg(long, value_name = "DIR")]
    dump: Option<String>,
    /// Stop at the first failing seed.
    #[arg(long)]
    first: bool,
    /// Also print each violation a run's knobs make legitimate by design, with the reason.
    #[arg(long)]
    excused: bool,
}

impl Soak {
    pub fn exec(self) -> Result<(), String> {
        let threads = self
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        if threads == 0 {
            return Err("--threads: at least 1".into());
        }
        let end = self.seeds.map(|n| self.from.saturating_add(n));
        let next = AtomicU64::new(self.from);
        let stop = AtomicBool::new(false);
        let (tx, rx) = mpsc::channel::<wide::WideOutcome>();
        let t0 = Instant::now();
        let mut stats = Stats::default();
        std::thread::scope(|s| -> Result<(), String> {
            for _ in 0..threads {
                let (tx, next, stop) = (tx.clone(), &next, &stop);
                s.spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        let seed = next.fetch_add(1, Ordering::Relaxed);
                        if end.is_some_and(|e| seed >= e) || tx.send(wide::run_wide(seed)).is_err()
                        {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            let mut last_print = Instant::now();
            let result = loop {
                match rx.recv_timeout(Duration::from_secs(1)) {
                    Ok(o) => {
                        stats.add(&o);
                        if self.excused {
                            for e in &o.excused {
                                println!("seed {}: excused {e}", o.seed);
                            }
                        }
                        if !o.ok() {
                            if let Err(e) = report(&o, self.dump.as_deref()) {
                                break Err(e);
                            }
                            if self.first {
                                break Ok(());
                            }
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    Err(mpsc::RecvTimeoutError::Disconnected) => break Ok(()),
                }
                if last_print.elapsed() >= Duration::from_secs(10) {
                    println!("{}", stats.line(t0.elapsed()));
                    last_print = Instant::now();
                }
            };
            stop.store(true, Ordering::Relaxed);
            result
        })?;
        println!("{} (done)", stats.line(t0.elapsed()));
        if stats.failed > 0 {
            return Err(format!("{} of {} seeds failed", stats.failed, stats.seeds));
        }
        Ok(())
    }
}

#[derive(Default)]
struct Stats {
    seeds: u64,
    events: u64,
    failed: u64,
    excused: u64,
    budget: u64,
}

impl Stats {
    fn add(&mut self, o: &wide::WideOutcome) {
        self.seeds += 1;
        self.events += o.events;
        self.failed += !o.ok() as u64;
        self.excused += !o.excused.is_empty() as u64;
        self.budget += (o.convergence_skipped == Some(wide::BUDGET_REACHED)) as u64;
    }

    fn line(&self, elapsed: Duration) -> String {
        let s = elapsed.as_secs_f64().max(1e-9);
        format!(
            "soak: {} seeds in {:.0} s · {:.0} seeds/s · {:.1} M events ({:.2} M/s) · {} failed · {} with a by-design violation excused · {} at the event budget",
            self.seeds,
            s,
            self.seeds as f64 / s,
            self.events as f64 / 1e6,
            self.events as f64 / s / 1e6,
            self.failed,
            self.excused,
            self.budget
        )
    }
}

/// A failing seed: what broke, how to replay it, and its shrunk schedule.
fn report(o: &wide::WideOutcome, dump: Option<&str>) -> Result<(), String> {
    let seed = o.seed;
    println!(
        "seed {seed}: FAILED  (replay: raftlock soak --seeds 1 --from {seed}; document: raftlock soak --seeds 1 --from {seed} --dump DIR)"
    );
    for v in o.violations.iter().take(5) {
        println!("  violation {v}");
    }
    if let Err(e) = &o.convergence {
        println!("  not converged after calm: {e}");
    }
    let sc = wide::wide_scenario(seed);
    let shrunk = o
        .broken
        .first()
        .map(|&invariant| hunt::shrink(&sc, invariant));
    if let Some(shrunk) = &shrunk {
        println!(
            "  shrunk from {} to {} timeline actions, until {} ms:",
            sc.timeline.len(),
            shrunk.timeline.len(),
            shrunk.until_ms
        );
        for t in &shrunk.timeline {
            println!(
                "    {} ms {}",
                t.at_ms,
                serde_json::to_string(&t.action).expect("an action serializes")
            );
        }
    }
    if let Some(dir) = dump {
        let docs = [("wide", Some(&sc)), ("wide-shrunk", shrunk.as_ref())];
        for (name, doc) in docs.into_iter().filter_map(|(n, d)| Some((n, d?))) {
            let path = format!("{dir}/{name}-{seed}.json");
            std::fs::write(&path, doc.to_json()).map_err(|e| format!("{path}: {e}"))?;
            println!("  written to {path} (raftlock run {path} --trace OUT.jsonl)");
        }
    }
    Ok(())
}
