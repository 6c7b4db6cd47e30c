//! What kind of message is on the wire: the space-time diagram and the cluster letter and
//! colour messages by it. Names appear only at the edges (CSS classes, the page's words).

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

    #[test]
    fn every_message_kind_has_its_own_name() {
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
