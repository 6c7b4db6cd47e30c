//! The headless CLI: run scenarios, export traces, run swarms, benchmark the simulator.

use raftlock::scenario::{swarm, Scenario};
use std::process::ExitCode;

const USAGE: &str = "usage:
  raftlock run SCENARIO.json [--until-ms N] [--seed S] [--trace OUT.jsonl]
  raftlock swarm [--seeds N] [--from S]
  raftlock bench [--hours H | --minutes M] [--runs R]
  raftlock example            print the README's example scenario";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("run") => cmd_run(&args[1..]),
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
            v.parse().map(Some).map_err(|_| format!("{name}: cannot read \"{v}\""))
        }
    }
}

fn cmd_run(args: &[String]) -> Result<(), String> {
    let path = args.first().filter(|a| !a.starts_with("--")).ok_or(USAGE)?;
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut sc = Scenario::from_json(&text).map_err(|e| format!("{path}: {e}"))?;
    if let Some(u) = flag::<u64>(args, "--until-ms")? {
        sc.until_ms = u;
    }
    if let Some(s) = flag::<u64>(args, "--seed")? {
        sc.seed = s;
    }
    let trace_out: Option<String> = flag(args, "--trace")?;
    sc.validate().map_err(|e| e.to_string())?;
    let mut w = raftlock::sim::World::new(&sc, trace_out.is_some()).map_err(|e| e.to_string())?;
    w.check_every_event = true;
    w.run_until(sc.until_ms * 1000);
    let s = &w.stats;
    println!("scenario        {}", if sc.name.is_empty() { path.as_str() } else { &sc.name });
    println!("seed            {}", sc.seed);
    println!("virtual time    {} ms", sc.until_ms);
    println!("events          {}", s.events);
    println!("leader changes  {}", s.leader_changes);
    println!("grants          {}", s.grants);
    println!("expiries        {}", s.expiries);
    println!("ghost releases  {}", s.ghost_releases);
    println!("writes          {} accepted, {} rejected", s.writes_accepted, s.writes_rejected);
    println!("violations      {}", w.violations().len());
    for (t, v) in w.violations().iter().take(10) {
        println!("  t={t}us {}: {}", v.invariant, v.detail);
    }
    println!("trace events    {}", w.trace.count());
    println!("trace hash      {}", w.trace.hash_hex());
    if let Some(out) = trace_out {
        std::fs::write(&out, w.trace.to_jsonl()).map_err(|e| format!("{out}: {e}"))?;
        println!("trace written   {out}");
    }
    Ok(())
}

fn cmd_swarm(args: &[String]) -> Result<(), String> {
    let n: u64 = flag(args, "--seeds")?.unwrap_or(100);
    let from: u64 = flag(args, "--from")?.unwrap_or(1);
    let mut failed = 0;
    let mut events = 0;
    for seed in from..from + n {
        let o = swarm::run_one(seed);
        events += o.events;
        if !o.ok() {
            failed += 1;
            println!("seed {seed}: FAILED  (replay: raftlock swarm --seeds 1 --from {seed})");
            for v in o.violations.iter().take(5) {
                println!("  violation {v}");
            }
            if let Err(e) = &o.convergence {
                println!("  not converged {} ms after calm: {e}", swarm::SETTLE_MS);
            }
        }
    }
    println!("swarm: {n} runs, {events} events, {failed} failed");
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
    for _ in 0..runs {
        let t0 = std::time::Instant::now();
        let w = raftlock::bench::run_bench(&sc);
        let secs = t0.elapsed().as_secs_f64();
        events = w.stats.events;
        hash = w.trace.hash_hex();
        rates.push((events as f64 / secs, secs));
    }
    rates.sort_by(|a, b| a.0.total_cmp(&b.0));
    let median = rates[rates.len() / 2];
    let min = rates[0];
    println!("bench: 5 nodes, 10 clients, {minutes} min virtual time, {events} events, trace hash {hash}");
    println!("| figure | min | median |");
    println!("|---|---|---|");
    println!("| native events/s | {:.0} | {:.0} |", min.0, median.0);
    println!("| wall time for {minutes} min virtual (s) | {:.3} | {:.3} |", rates.last().unwrap().1, median.1);
    println!("| virtual/real time ratio | {:.0}x | {:.0}x |", virtual_s / rates.last().unwrap().1, virtual_s / median.1);
    Ok(())
}
