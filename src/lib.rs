//! raftlock: Raft nodes replicating a lock service with fencing tokens and leases, in a
//! deterministic simulator that runs natively and in the browser.
//!
//! The pure core (simulator, Raft, the lock service, checks, scenarios) is the `raftlock-core`
//! crate under `core/`, re-exported here whole, so `raftlock::sim`, `raftlock::raft` and the rest
//! name it. This package adds:
//! - `model`: the page model without yew (what the page does, tested natively);
//! - `ui`: Yew components that draw it (wasm32 only), the app in `src/main.rs`;
//! - the headless CLI in `src/bin/raftlock/` (`main.rs`, a file per subcommand).

pub use raftlock_core::*;

/// The Russian texts of the page (read by the `t!` macro): an edit rebuilds the crate.
const _: &str = include_str!("../i18n/ru.json");

pub mod model;

#[cfg(target_arch = "wasm32")]
pub mod ui;
