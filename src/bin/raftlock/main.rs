//! The headless CLI: run scenarios, export traces, run swarms and hunts, benchmark the
//! simulator. One file per subcommand; clap reads the arguments (unknown flags are refused,
//! `--help` is generated). The page's wasm never links it.

mod bench;
mod check;
mod hunt;
mod progress;
mod run;
mod soak;
mod swarm;

use clap::{Args, Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "raftlock",
    about = "Raft nodes replicating a lock service with fencing tokens and leases, headless"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The built-in scenarios, one a line, name first.
    List,
    /// Run a scenario, a built-in or a share link: a summary, its checks, its trace.
    Run(run::Run),
    /// Print the share URL of a scenario.
    Link(Link),
    /// Random fault schedules with lock traffic, every invariant after every event.
    Swarm(swarm::Swarm),
    /// The wide swarm on every core: every knob over its whole range, until stopped or for
    /// --seeds; failing seeds with their replay command and shrunk schedule.
    Soak(soak::Soak),
    /// The simulator's speed on the benchmark workload.
    Bench(bench::Bench),
    /// Random faults with design switches on until an invariant breaks; shrink the schedule.
    Hunt(hunt::Hunt),
    /// Check a trace from any implementation against the seed's rules (exit 0 pass, 1 fail, 2 unreadable).
    Check(check::CheckTrace),
    /// Print the example scenario of docs/formats.md.
    Example,
}

#[derive(Args)]
struct Link {
    /// A scenario document (JSON).
    scenario: String,
    /// The moment the link opens at (default: the end of the run).
    #[arg(long, value_name = "T")]
    at_ms: Option<u64>,
    /// The page's address.
    #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:8080/")]
    base: String,
}

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`| head`) would panic; a command
    // line tool should just stop, as `cat` does.
    #[cfg(unix)]
    // SAFETY: called first thing, before any thread exists; SIG_DFL is a valid action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let result = match Cli::parse().command {
        Command::List => {
            for name in raftlock::scenario::builtin::names() {
                let sc = raftlock::scenario::builtin::get(name).expect("listed");
                let title = sc
                    .lesson
                    .as_ref()
                    .map_or(String::new(), |l| l.title.to_string());
                println!("{name:<24} {title}");
            }
            Ok(())
        }
        Command::Run(r) => r.exec(),
        Command::Link(l) => run::read_scenario(&l.scenario).map(|sc| {
            let at_ms = l.at_ms.unwrap_or(sc.until_ms);
            println!(
                "{}",
                raftlock::scenario::link::encode_url(&l.base, &sc, at_ms * 1000)
            );
        }),
        Command::Swarm(s) => s.exec(),
        Command::Soak(s) => s.exec(),
        Command::Bench(b) => b.exec(),
        Command::Hunt(h) => h.exec(),
        Command::Check(c) => return c.exec(),
        Command::Example => {
            print!("{}", raftlock::scenario::EXAMPLE_JSON);
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("raftlock: {e}");
            ExitCode::FAILURE
        }
    }
}
