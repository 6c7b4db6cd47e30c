//! What kind of message is on the wire: the space-time diagram and the cluster letter and
//! colour messages by it. Names appear only at the edges (CSS classes, the page's words).

use super::world::Payload;
use crate::raft::Message;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MessageKind {
    PreVote,
    Vote,
    PreVoteReply,
    VoteReply,
    Heartbeat,
    Append,
    AppendReply,
    Snapshot,
    Request,
    Reply,
    Write,
}

impl MessageKind {
    pub fn of(p: &Payload) -> MessageKind {
        match p {
            Payload::Raft(m) => match m {
                Message::Vote { pre: true, .. } => MessageKind::PreVote,
                Message::Vote { .. } => MessageKind::Vote,
                Message::VoteReply { pre: true, .. } => MessageKind::PreVoteReply,
                Message::VoteReply { .. } => MessageKind::VoteReply,
                Message::Append { entries, .. } if entries.is_empty() => MessageKind::Heartbeat,
                Message::Append { .. } => MessageKind::Append,
                Message::AppendReply { .. } => MessageKind::AppendReply,
                Message::Snapshot { .. } => MessageKind::Snapshot,
            },
            Payload::Request(_) => MessageKind::Request,
            Payload::Reply(_) => MessageKind::Reply,
            Payload::Write { .. } => MessageKind::Write,
        }
    }

    /// The name (a CSS class of the page).
    pub const fn name(self) -> &'static str {
        match self {
            MessageKind::PreVote => "prevote",
            MessageKind::Vote => "vote",
            MessageKind::PreVoteReply => "prevote_reply",
            MessageKind::VoteReply => "vote_reply",
            MessageKind::Heartbeat => "heartbeat",
            MessageKind::Append => "append",
            MessageKind::AppendReply => "append_reply",
            MessageKind::Snapshot => "snapshot",
            MessageKind::Request => "request",
            MessageKind::Reply => "reply",
            MessageKind::Write => "write",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lock::LockCommand;
    use crate::raft::Entry;

    #[test]
    fn an_empty_append_is_a_heartbeat_and_every_kind_has_its_own_name() {
        let append = |entries: Vec<Entry<LockCommand>>| {
            Payload::Raft(Message::Append {
                term: 1,
                prev_index: 0,
                prev_term: 0,
                entries,
                commit: 0,
            })
        };
        assert_eq!(MessageKind::of(&append(vec![])), MessageKind::Heartbeat);
        let noop = Entry { term: 1, cmd: None };
        assert_eq!(MessageKind::of(&append(vec![noop])), MessageKind::Append);
        let write = Payload::Write {
            key: "k".into(),
            token: 2,
        };
        assert_eq!(write.kind().name(), "write");
        let all = [
            MessageKind::PreVote,
            MessageKind::Vote,
            MessageKind::PreVoteReply,
            MessageKind::VoteReply,
            MessageKind::Heartbeat,
            MessageKind::Append,
            MessageKind::AppendReply,
            MessageKind::Snapshot,
            MessageKind::Request,
            MessageKind::Reply,
            MessageKind::Write,
        ];
        let names: std::collections::BTreeSet<_> = all.iter().map(|k| k.name()).collect();
        assert_eq!(names.len(), all.len());
    }
}
