//! The seed's lock service (`shared/seed/lock-commands.*`): commands replicated through Raft,
//! the pure apply function, and the node that hosts Raft, the lock table and the leases.
//!
//! - [`machine`]: `Grant{key, lease_ms}` / `Release{key}` / `Expire{key, token}`, the six apply
//!   results, the token = log index of the Grant, deletion by Expire only on token match.
//! - [`server`]: one node of the service: applies committed entries, counts leases on its own
//!   clock, and, as leader, checks requests against its whole log, proposes Expire and releases
//!   ghost locks.

pub mod machine;
pub mod server;
pub mod words;

pub use machine::{ApplyResult, Lock, LockCommand, LockMachine, LockOp};
pub use server::{ClientReply, ClientRequest, ReplyLost, RequestOp, Server, ServerEvent, Switches};

/// Clients are numbered from 0 in the order of the scenario's `clients` list.
pub type ClientId = u32;
pub type Token = u64;
/// A lock key. Shared, not copied: commands travel in every AppendEntries and sit in five logs
/// and lock tables, and cloning a `String` each time was a tenth of a benchmark run.
pub type Key = std::rc::Rc<str>;

#[cfg(test)]
mod tests;
