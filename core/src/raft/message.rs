//! RequestVote and AppendEntries with their replies (Raft paper Figure 2; pre-vote, thesis §9.6).

use super::{Command, Entry, Index, Snapshot, Term};
use std::rc::Rc;

#[derive(Clone, Debug, PartialEq)]
pub enum Message<C: Command> {
    /// RequestVote. With `pre`, a pre-vote: `term` is the term the sender would campaign in,
    /// and neither side changes its term (thesis §9.6).
    Vote {
        term: Term,
        last_index: Index,
        last_term: Term,
        pre: bool,
    },
    VoteReply {
        term: Term,
        granted: bool,
        pre: bool,
    },
    /// AppendEntries; a heartbeat when `entries` is empty.
    Append {
        term: Term,
        prev_index: Index,
        prev_term: Term,
        entries: Vec<Entry<C>>,
        commit: Index,
    },
    /// On success `match_index` is the last index known to match the leader's log. On failure
    /// `rejected_index` is the `prev_index` of the AppendEntries refused, so the leader can tell
    /// a fresh rejection from an old or duplicated one (etcd-raft echoes it in a rejecting
    /// `MsgAppResp`'s `Index`), and `hint_index`/`hint_term` let it skip a whole conflicting
    /// term (fast back-off).
    AppendReply {
        term: Term,
        success: bool,
        match_index: Index,
        rejected_index: Index,
        hint_index: Index,
        hint_term: Term,
    },
    /// InstallSnapshot (§7, Figure 13), in one message: the leader no longer has the entries the
    /// follower needs. Answered with an `AppendReply` whose `match_index` is the snapshot's index.
    Snapshot {
        term: Term,
        snapshot: Rc<Snapshot<C::State>>,
    },
}

impl<C: Command> Message<C> {
    pub fn term(&self) -> Term {
        match self {
            Message::Vote { term, .. }
            | Message::VoteReply { term, .. }
            | Message::Append { term, .. }
            | Message::AppendReply { term, .. }
            | Message::Snapshot { term, .. } => *term,
        }
    }

    /// About how many bytes the message takes on the wire, in a compact binary form: 24 for
    /// the kind, term and addresses, the fixed fields, and the entries or the snapshot.
    pub fn wire_bytes(&self) -> u64 {
        24 + match self {
            Message::Vote { .. } => 17,
            Message::VoteReply { .. } => 2,
            Message::Append { entries, .. } => {
                24 + entries
                    .iter()
                    .map(|e| 9 + e.cmd().map_or(0, C::wire_bytes))
                    .sum::<u64>()
            }
            Message::AppendReply { .. } => 41,
            Message::Snapshot { snapshot, .. } => 24 + C::state_wire_bytes(&snapshot.state),
        }
    }
}
