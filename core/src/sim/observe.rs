//! What watches the world: the invariant checks (`crate::check::Checker`) are given to the
//! world as an observer, so the world tells what happened and runs them after every event
//! without knowing them. A world without an observer runs unchecked.

use super::World;
use crate::lock::{ApplyResult, LockCommand};
use crate::raft::{Body, Index, NodeId, Term};

/// A broken invariant, as the world writes it into the trace (`ev: "violation"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrokenInvariant {
    pub invariant: &'static str,
    pub detail: String,
}

pub trait Observer: std::fmt::Debug {
    /// A copy for a copy of the world (the scrubber's snapshots).
    fn clone_box(&self) -> Box<dyn Observer>;
    fn as_any(&self) -> &dyn std::any::Any;
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
    /// Node `node` applied `index`; `digest` is its table's digest after. Returns whether this
    /// is the first apply of `index` anywhere (the world counts grants and expiries by it), and
    /// what broke.
    #[allow(clippy::too_many_arguments)]
    fn applied(
        &mut self,
        now_us: u64,
        node: NodeId,
        index: Index,
        term: Term,
        body: Body<&LockCommand>,
        result: ApplyResult,
        digest: u64,
    ) -> (bool, Vec<BrokenInvariant>);
    /// Node `node` restarted from what it persisted.
    fn restarted(&mut self, node: NodeId);
    /// Leader `leader` took in an AppendEntries reply that `from` sent at `sent_us`.
    fn heard(&mut self, leader: NodeId, from: NodeId, sent_us: u64);
    /// Leader `node` (of `term`) learned that its grant of `key` to `token` reached nobody: it
    /// owes a release by `due_us`.
    fn ghost_owed(&mut self, key: &str, token: u64, node: NodeId, term: Term, due_us: u64);
    /// Node `node` woke from a pause at `now_us`.
    fn woke(&mut self, node: NodeId, now_us: u64);
    /// The storage took (or refused) a write; `before` is the highest token it had seen.
    fn storage_write(
        &mut self,
        now_us: u64,
        key: &str,
        token: u64,
        before: u64,
        accepted: bool,
    ) -> Vec<BrokenInvariant>;
    /// After every counted event (and an injected fault): what broke.
    fn after_event(&mut self, w: &World) -> Vec<BrokenInvariant>;
}

impl Clone for Box<dyn Observer> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}
