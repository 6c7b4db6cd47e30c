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

    /// What such messages are, in words (the diagram's tooltips).
    pub fn words(self, lang: crate::lang::Lang) -> &'static str {
        use crate::lang::t;
        match self {
            MessageKind::PreVote => t!(lang, "PreVote requests"),
            MessageKind::Vote => t!(lang, "vote requests (RequestVote)"),
            MessageKind::PreVoteReply => t!(lang, "PreVote replies"),
            MessageKind::VoteReply => t!(lang, "vote replies"),
            MessageKind::Heartbeat => t!(lang, "heartbeats"),
            MessageKind::Append => t!(lang, "AppendEntries messages"),
            MessageKind::AppendReply => t!(lang, "AppendEntries replies"),
            MessageKind::Snapshot => t!(lang, "InstallSnapshot messages"),
            MessageKind::Request => t!(lang, "client requests"),
            MessageKind::Reply => t!(lang, "replies to clients"),
            MessageKind::Write => t!(lang, "storage writes"),
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
