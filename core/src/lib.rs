//! raftlock-core: Raft nodes replicating a lock service with fencing tokens and leases, in a
//! deterministic simulator that runs natively and in the browser. No web crate: the `raftlock`
//! package adds the Yew UI, the wasm app and the CLI on top (and re-exports all of this).
//!
//! A crate of its own so that it can be optimised for speed (opt-level 2 natively) while the UI is
//! optimised for size.
//!
//! The map of the crate:
//! - [`rng`] (the pinned PRNG) and [`chunked`]: the base every layer may use.
//! - [`sim`]: the world: virtual time, the event queue, the pinned PRNG, the network, clocks and
//!   faults. The only place that knows time and randomness.
//! - [`raft`]: consensus as a pure state machine (tick / step / propose → Ready), with log
//!   compaction and InstallSnapshot.
//! - [`lock`]: the seed's lock service: commands, apply results, the node that hosts Raft, the
//!   lock table and the leases.
//! - [`client`]: simulated clients and the fenced storage resource.
//! - [`check`]: one function per invariant, and the clients' history against a mutex.
//! - [`scenario`]: the versioned scenario document, built-ins, share links, the swarm's random
//!   fault schedules and the bug hunt.
//! - [`trace`]: trace events and their JSON Lines export.
//! - [`playground`]: the page's model (play, step, seek, take over) and [`snapshot`], what the
//!   page's handle reports.

pub mod bench;
pub mod check;
pub mod chunked;
pub mod client;
pub mod lang;
pub mod lock;
pub mod playground;
pub mod raft;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod snapshot;
pub mod trace;

/// Run a scenario to its end and return the world (the CLI, tests and the browser share it).
pub fn run_scenario(
    sc: &scenario::Scenario,
    keep_trace: bool,
) -> Result<sim::World, scenario::ScenarioError> {
    let mut w = sim::World::new(sc, keep_trace)?;
    w.run_until(sc.until_ms * 1000);
    Ok(w)
}
