//! `raftlock swarm`: random fault schedules with lock traffic, every invariant after every event.

use clap::Args;
use raftlock::scenario::swarm;

#[derive(Args)]
pub struct Swarm {
    /// How many seeds.
    #[arg(long, value_name = "N", default_value_t = 100)]
    seeds: u64,
    /// The first seed.
    #[arg(long, value_name = "S", default_value_t = 1)]
    from: u64,
    /// Write each failing seed's scenario document here, to run, trace or share.
    #[arg(long, value_name = "DIR")]
    dump: Option<String>,
    /// Log compaction every E entries (0: the seeds' own setting).
    #[arg(long, value_name = "E", default_value_t = 0)]
    snapshot_every: u64,
}

impl Swarm {
    pub fn exec(self) -> Result<(), String> {
        let (n, from, dump, every) = (
            self.seeds,
            self.from,
            self.dump.clone(),
            self.snapshot_every,
        );
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
        let pb = crate::progress::bar(n, "swarm", "seeds");
        for seed in from..from + n {
            let o = swarm::run_with(seed, scenario(seed));
            pb.inc(1);
            pb.set_message(format!("{failed} failed"));
            events += o.events;
            installs += o.snapshot_installs;
            if !o.ok() {
                failed += 1;
                let again = if every > 0 {
                    format!(" --snapshot-every {every}")
                } else {
                    String::new()
                };
                pb.suspend(|| {
                    println!(
                        "seed {seed}: FAILED  (replay: raftlock swarm --seeds 1 --from {seed}{again})"
                    )
                });
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
                    println!(
                        "  scenario written to {path} (raftlock run {path} --trace OUT.jsonl)"
                    );
                }
            }
        }
        pb.finish_and_clear();
        println!(
            "swarm: {n} runs, {events} events, {installs} snapshots installed, {failed} failed"
        );
        if failed > 0 {
            return Err(format!("{failed} of {n} runs failed"));
        }
        Ok(())
    }
}
