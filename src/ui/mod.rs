//! The Yew UI (wasm32 only): renders the playground model and dispatches actions. It holds no
//! rule of its own: every number on the page comes from the simulator's state.
//!
//! - [`app`]: the root component: controls, the frame loop, keyboard shortcuts;
//! - [`views`]: the cluster ring, clocks, replicated log, lock tables, clients and storage,
//!   space-time diagram, event log and invariants, as functions of the world;
//! - [`api`]: `window.raftlock`, the JavaScript handle for tests and tools.

pub mod api;
pub mod app;
pub mod views;

pub use app::App;
