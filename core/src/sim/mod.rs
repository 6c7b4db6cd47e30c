//! The world: the only place that knows time and randomness (drawn from the pinned PRNG,
//! [`crate::rng`], which every layer below takes as a seeded value).
//!
//! - [`clock`]: per-endpoint local clocks (rate in ppm, offset, jumps);
//! - [`network`]: per directed link up/down, latency, drop and duplicate;
//! - [`world`]: the event queue ordered by (time, sequence number), nodes, clients, storage,
//!   faults, and the invariant checks after every event.

pub mod clock;
pub mod fault;
pub mod history;
pub mod kind;
pub mod network;
pub mod observe;
pub mod world;

pub use fault::{ClockStart, Config, Fault, TimedFault};
pub use kind::MessageKind;
pub use observe::{BrokenInvariant, Observer};
pub use world::{Flight, World, WorldStats};
