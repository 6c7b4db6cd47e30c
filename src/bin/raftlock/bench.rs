//! `raftlock bench`: the simulator's speed on the benchmark workload, with its checks off and on,
//! and how the clients' history check scales with the length of the run.

use clap::Args;

#[derive(Args)]
pub struct Bench {
    /// Virtual hours to simulate.
    #[arg(
        long,
        value_name = "H",
        default_value_t = 1,
        conflicts_with = "minutes"
    )]
    hours: u64,
    /// Virtual minutes to simulate (instead of hours).
    #[arg(long, value_name = "M")]
    minutes: Option<u64>,
    /// Runs; the table shows the slowest and the median.
    #[arg(long, value_name = "R", default_value_t = 3)]
    runs: usize,
    /// One JSON line instead of the table.
    #[arg(long)]
    json: bool,
    /// Virtual minutes of the history-check workload (16 clients on 4 keys) to time the
    /// clients' history check on, comma-separated (none: skip).
    #[arg(long, value_name = "M,M,...|none", default_value = "2,5,10,20,60,120")]
    scaling: ScalingMinutes,
}

/// The `--scaling` list: minutes, comma-separated, or `none` for no history-check table. One
/// value parsed whole (not clap's `value_delimiter`), so that the word the help offers is
/// accepted rather than refused as a number.
#[derive(Clone, Debug)]
struct ScalingMinutes(Vec<u64>);

impl std::str::FromStr for ScalingMinutes {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        if s.trim().eq_ignore_ascii_case("none") {
            return Ok(ScalingMinutes(Vec::new()));
        }
        s.split(',')
            .map(|m| match m.trim().parse::<u64>() {
                Ok(0) | Err(_) => Err(format!(
                    "'{m}' is not a whole number of minutes (at least 1), and the list is not 'none'"
                )),
                Ok(m) => Ok(m),
            })
            .collect::<Result<_, _>>()
            .map(ScalingMinutes)
    }
}

/// Median (and slowest) of `runs` timed runs of `f`, as (events/s, seconds).
fn timed(
    runs: usize,
    mut f: impl FnMut() -> raftlock::sim::World,
) -> (Vec<(f64, f64)>, raftlock::sim::World) {
    let mut rates = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let t0 = std::time::Instant::now();
        let w = f();
        let secs = t0.elapsed().as_secs_f64();
        rates.push((w.stats.events as f64 / secs, secs));
        last = Some(w);
    }
    rates.sort_by(|a, b| a.0.total_cmp(&b.0));
    (rates, last.expect("at least one run"))
}

/// One row of the history-check scaling table.
struct Scaling {
    minutes: u64,
    events: u64,
    simulate_s: f64,
    check_s: f64,
    holds: usize,
}

fn scaling(minutes: u64) -> Result<Scaling, String> {
    let sc = raftlock::bench::history_scenario(minutes * 60_000);
    let t0 = std::time::Instant::now();
    let w = raftlock::bench::run_checked(&sc);
    let simulate_s = t0.elapsed().as_secs_f64();
    let t1 = std::time::Instant::now();
    let verdict = w.history_verdict();
    let check_s = t1.elapsed().as_secs_f64();
    let holds = match verdict {
        Some(Ok(holds)) => holds.len(),
        other => {
            return Err(format!(
                "the history workload of {minutes} min did not check: {other:?}"
            ))
        }
    };
    Ok(Scaling {
        minutes,
        events: w.stats.events,
        simulate_s,
        check_s,
        holds,
    })
}

impl Bench {
    pub fn exec(self) -> Result<(), String> {
        let minutes: u64 = self.minutes.unwrap_or(self.hours * 60);
        if minutes == 0 {
            return Err("--hours/--minutes must be at least 1 minute".into());
        }
        let runs = self.runs.max(1);
        let sc = raftlock::bench::bench_scenario(minutes * 60_000);
        let virtual_s = (minutes * 60) as f64;
        let sp = crate::progress::spinner("bench");
        sp.set_message(format!("{runs} runs of {minutes} min, checks off"));
        let (rates, w) = timed(runs, || raftlock::bench::run_bench(&sc));
        let events = w.stats.events;
        let traffic = (w.stats.raft_messages, w.stats.raft_bytes);
        let hash = w.trace.hash_hex();
        let median = rates[rates.len() / 2];
        let min = rates[0];
        // The same workload as users run it: every invariant after every event.
        sp.set_message(format!("{runs} runs of {minutes} min, every check on"));
        let (checked, cw) = timed(runs, || raftlock::bench::run_checked(&sc));
        if cw.trace.hash_hex() != hash {
            return Err("the checks changed the run: trace hashes differ".into());
        }
        let checked_median = checked[checked.len() / 2];
        let ratio = checked_median.0 / median.0;
        let table = self
            .scaling
            .0
            .iter()
            .map(|&m| {
                sp.set_message(format!("the history check's scaling, {m} min"));
                scaling(m)
            })
            .collect::<Result<Vec<_>, _>>()?;
        sp.finish_and_clear();
        if self.json {
            let rows: Vec<String> = table
                .iter()
                .map(|r| {
                    format!(
                        "{{\"minutes\":{},\"events\":{},\"simulate_s\":{:.3},\"check_s\":{:.4},\"holds\":{}}}",
                        r.minutes, r.events, r.simulate_s, r.check_s, r.holds
                    )
                })
                .collect();
            println!(
                "{{\"minutes\":{minutes},\"events\":{events},\"hash\":\"{hash}\",\"rate_min\":{:.0},\"rate_median\":{:.0},\"secs_median\":{:.4},\"checked_rate_min\":{:.0},\"checked_rate_median\":{:.0},\"history\":[{}]}}",
                min.0, median.0, median.1, checked[0].0, checked_median.0, rows.join(",")
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
            "| native events/s, every check on | {:.0} | {:.0} |",
            checked[0].0, checked_median.0
        );
        println!("| checks on / checks off | | {:.0}% |", ratio * 100.0);
        println!(
            "Raft traffic between nodes: {:.0} messages and {:.1} KB per virtual second",
            traffic.0 as f64 / virtual_s,
            traffic.1 as f64 / virtual_s / 1000.0
        );
        if !table.is_empty() {
            println!();
            println!("history check: 5 nodes, 16 clients on 4 keys, 1 s leases, every check on");
            println!("| virtual time | events | simulate (s) | history check (s) | holds | µs per hold |");
            println!("|---|---|---|---|---|---|");
            for r in &table {
                println!(
                    "| {} min | {} | {:.2} | {:.3} | {} | {:.2} |",
                    r.minutes,
                    r.events,
                    r.simulate_s,
                    r.check_s,
                    r.holds,
                    r.check_s * 1e6 / r.holds.max(1) as f64
                );
            }
        }
        Ok(())
    }
}
