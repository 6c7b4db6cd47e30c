//! raftlock: Raft nodes replicating a lock service with fencing tokens and leases, in a deterministic simulator.
//!
//! The map of the crate:
//! - `ui`: Yew components (wasm32 only); renders snapshots of the core and dispatches actions.

#[cfg(target_arch = "wasm32")]
pub mod ui;
