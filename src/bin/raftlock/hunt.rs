//! `raftlock hunt`: random fault schedules with design switches on, until an invariant breaks;
//! then the schedule is shrunk.

use clap::Args;

#[derive(Args)]
pub struct Hunt {
    /// A design switch to turn on (repeat for several; none: the seed's design).
    #[arg(long, value_name = "NAME", value_parser = clap::builder::PossibleValuesParser::new(raftlock::scenario::hunt::SWITCH_NAMES))]
    switch: Vec<String>,
    /// How many schedules to try.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    runs: u64,
    /// The first seed.
    #[arg(long, value_name = "S", default_value_t = 1)]
    from: u64,
    /// Write the shrunk scenario here.
    #[arg(long, value_name = "FILE.json")]
    out: Option<String>,
    /// Run the same schedules with the switches back off (the safe design must pass them all).
    #[arg(long)]
    control: bool,
}

impl Hunt {
    pub fn exec(self) -> Result<(), String> {
        let switches: Vec<&str> = self.switch.iter().map(String::as_str).collect();
        let (runs, from, out) = (self.runs, self.from, self.out.clone());
        let label = if switches.is_empty() {
            "no switch (the seed's design)".to_string()
        } else {
            switches.join(", ")
        };
        if self.control {
            let pb = crate::progress::bar(runs, "control", "runs");
            let (b, failing) = raftlock::scenario::hunt::control_batch_with(
                &switches,
                from,
                runs,
                &mut |failed| {
                    pb.inc(1);
                    pb.set_message(format!("{failed} failed"));
                },
            )?;
            pb.finish_and_clear();
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
        let pb = crate::progress::bar(runs, "hunt", "runs");
        let found = raftlock::scenario::hunt::hunt_with(&switches, from, runs, &mut || pb.inc(1))?;
        pb.finish_and_clear();
        match found {
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
                    std::fs::write(&path, f.shrunk.to_json())
                        .map_err(|e| format!("{path}: {e}"))?;
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
}
