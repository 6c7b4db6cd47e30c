//! The two invariants of membership change (Raft dissertation ch. 4), read off the leaders'
//! logs after every event that changed a node:
//! - `one_uncommitted_config_change`: a leader's log holds at most one configuration entry
//!   above the highest index ever known committed (§4.1: the next change waits until the
//!   previous one commits);
//! - `learner_never_counts`: when a leader's commit index moves up, a majority of its voters
//!   hold the entry there; a learner (or a removed leader, §4.2.2) is not one of them (§4.2.1).

use super::{report_once, Checker, Violation};
use crate::check::Invariant;
use crate::lang::tb;
use crate::raft::{Index, Term};
use crate::sim::World;

/// Per node while it leads: (term, commit index) at the last check.
pub(super) type CommitMarks = Vec<Option<(Term, Index)>>;

pub(super) fn one_uncommitted_config_change(c: &mut Checker, w: &World, out: &mut Vec<Violation>) {
    for i in 0..w.node_count {
        let Some(s) = w.nodes[i].server().filter(|s| s.raft.is_leader()) else {
            continue;
        };
        let log = s.raft.log();
        // Above its own commit index first (most often none or one: nothing more to read).
        if log
            .conf_indexes()
            .filter(|&k| k > s.raft.commit_index())
            .nth(1)
            .is_none()
        {
            continue;
        }
        // The highest index ever known committed: commit indexes are volatile (a restarted
        // server starts again from its snapshot), and a crash or two could hide it.
        let committed = (0..w.node_count)
            .filter_map(|j| w.nodes[j].server())
            .map(|s| s.raft.commit_index())
            .chain(c.committed.values().map(|e| e.0))
            .max()
            .unwrap_or(0);
        let above: Vec<Index> = log.conf_indexes().filter(|&k| k > committed).collect();
        if above.len() > 1 {
            let term = s.raft.term();
            report_once(c, out, Invariant::OneUncommittedConfigChange, |lang| {
                let list = above
                    .iter()
                    .map(|k| k.to_string())
                    .collect::<Vec<_>>()
                    .join(", ");
                tb!(lang, "leader n{} of term {term} holds uncommitted configuration changes at indexes {list}", i + 1)
            });
        }
    }
}

pub(super) fn learner_never_counts(c: &mut Checker, w: &World, out: &mut Vec<Violation>) {
    c.commit_marks.resize(w.node_count, None);
    for i in 0..w.node_count {
        let lead = w.nodes[i].server().filter(|s| s.raft.is_leader());
        let Some(s) = lead else {
            c.commit_marks[i] = None;
            continue;
        };
        let (term, commit) = (s.raft.term(), s.raft.commit_index());
        let before = c.commit_marks[i].replace((term, commit));
        if before.is_none_or(|(t, k)| t != term || k >= commit) {
            continue; // (its first moment as leader, or nothing newly committed)
        }
        let log = s.raft.log();
        let Some(hash) = log.prefix_hash(commit) else {
            continue;
        };
        let conf = s.raft.membership();
        // (A log compacted past the index applied it: it holds it.)
        let holds = |j: usize| {
            w.nodes[j]
                .log()
                .is_some_and(|log| commit < log.start() || log.prefix_hash(commit) == Some(hash))
        };
        let holders = conf.voters().filter(|&j| holds(j)).count();
        if holders < conf.majority() {
            let voters = conf.voter_count();
            report_once(c, out, Invariant::LearnerNeverCounts, |lang| {
                tb!(lang, "leader n{} of term {term} committed index {commit}, which only {holders} of its {voters} voters hold", i + 1)
            });
        }
    }
}
