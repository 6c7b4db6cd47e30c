//! `raftlock bench`: the simulator's speed on the benchmark workload (checks off).

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
        if self.json {
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
}
