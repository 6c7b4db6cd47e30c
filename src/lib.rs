//! raftlock: Raft nodes replicating a lock service with fencing tokens and leases, in a
//! deterministic simulator that runs natively and in the browser.
//!
//! The map of the crate:
//! - [`sim`]: the world: virtual time, the event queue, the pinned PRNG, the network, clocks and
//!   faults. The only place that knows time and randomness.
//! - [`raft`]: consensus as a pure state machine (tick / step / propose → Ready).
//! - [`lock`]: the seed's lock service: commands, apply results, the node that hosts Raft, the
//!   lock table and the leases.
//! - [`client`]: simulated clients and the fenced storage resource.
//! - [`check`]: one function per invariant.
//! - [`scenario`]: the versioned scenario document and the swarm's random fault schedules.
//! - [`trace`]: trace events and their JSON Lines export.
//! - `ui`: Yew components (wasm32 only).

pub mod bench;
pub mod check;
pub mod chunked;
pub mod client;
pub mod lock;
pub mod playground;
pub mod raft;
pub mod scenario;
pub mod sim;
pub mod snapshot;
pub mod trace;

#[cfg(target_arch = "wasm32")]
pub mod ui;

/// Run a scenario to its end and return the world (the CLI, tests and the browser share it).
pub fn run_scenario(sc: &scenario::Scenario, keep_trace: bool) -> Result<sim::World, scenario::ScenarioError> {
    let mut w = sim::World::new(sc, keep_trace)?;
    w.run_until(sc.until_ms * 1000);
    Ok(w)
}
