//! Whether a log entry is committed, as the log panel draws it: known to the node itself, or
//! committed in the cluster while this node does not know it (a restarted node forgets its
//! commit index until a leader tells it again, the state Raft's Figure 8 turns on).

use crate::raft::{Body, Entry, Index};
use crate::sim::World;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Commit {
    /// At or below this node's commit index.
    Known,
    /// Not known to this node, but this very entry (same term, same command) is what the
    /// cluster committed at its index: some node applied it.
    InCluster,
    /// Not committed anywhere (yet, or ever: it may be overwritten).
    No,
}

/// The commit state of `e`, the entry at `index` in node `node`'s (0-based) log, up or crashed.
pub fn of(w: &World, node: usize, index: Index, e: &Entry<crate::lock::LockCommand>) -> Commit {
    let known = w.nodes[node]
        .server()
        .is_some_and(|s| index <= s.raft.commit_index());
    if known {
        return Commit::Known;
    }
    let digest = match e.body {
        Body::Noop => 0,
        _ => e.digest(),
    };
    if w.checker().committed_entry(index) == Some((e.term, digest)) {
        Commit::InCluster
    } else {
        Commit::No
    }
}
