//! Membership change one server at a time (Raft dissertation, chapter 4).
//!
//! A configuration is who votes and who only listens: [`Membership`], two bitsets over the
//! node ids `0..NODE_SLOTS`. It changes by log entries, one server per entry ([`ConfChange`]):
//! a new server joins as a *learner* (§4.2.1: it receives the log but does not vote or count
//! toward a majority), is promoted to a voter once it has caught up, and a voter may be removed.
//! A server uses the latest configuration in its log, committed or not (§4.1); the log keeps
//! track of them ([`super::Log::membership`]) and a truncation reverts one.

use super::NodeId;
use crate::lang::{t, Lang};
use serde::{Deserialize, Serialize};

/// Node ids are `0..NODE_SLOTS` (named n1…n7 on the page and in documents).
pub const NODE_SLOTS: usize = 7;

/// Who votes and who only receives the log.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Membership {
    /// Bit `i`: node `i` votes and counts toward a majority.
    pub voters: u8,
    /// Bit `i`: node `i` receives the log but does not vote (§4.2.1).
    pub learners: u8,
}

/// One server added, promoted or removed: the one kind of change Raft's single-server
/// membership change allows (§4.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfChange {
    /// A new server joins as a learner.
    AddLearner { node: u8 },
    /// A learner that caught up becomes a voter.
    Promote { node: u8 },
    /// A voter or a learner leaves.
    Remove { node: u8 },
}

/// Why a configuration change is refused (nothing is proposed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfRefusal {
    /// Only a leader proposes.
    NotLeader,
    /// §4.1: the previous change, at this index, has not committed yet.
    InFlight {
        index: u64,
    },
    /// The leader has not yet committed an entry of its own term (its no-op).
    NoOpNotCommitted,
    /// The id is outside `1..=7`.
    OutOfRange,
    AlreadyMember,
    NotMember,
    /// A promotion names a server that is not a learner.
    NotLearner,
    /// Removing it would leave no voter.
    LastVoter,
}

impl ConfRefusal {
    const ALL: [ConfRefusal; 8] = [
        ConfRefusal::NotLeader,
        ConfRefusal::InFlight { index: 0 },
        ConfRefusal::NoOpNotCommitted,
        ConfRefusal::OutOfRange,
        ConfRefusal::AlreadyMember,
        ConfRefusal::NotMember,
        ConfRefusal::NotLearner,
        ConfRefusal::LastVoter,
    ];

    /// Why, in English: the trace's `why`.
    pub fn reason(self) -> &'static str {
        self.reason_in(Lang::En)
    }

    /// Why, for the page and the CLI.
    pub fn reason_in(self, lang: Lang) -> &'static str {
        match self {
            ConfRefusal::NotLeader => t!(lang, "no leader to propose it"),
            ConfRefusal::InFlight { .. } => t!(
                lang,
                "another change is in flight: one at a time, after the previous one commits"
            ),
            ConfRefusal::NoOpNotCommitted => {
                t!(lang, "the leader has not yet committed its no-op")
            }
            ConfRefusal::OutOfRange => t!(lang, "node ids are 1 to 7"),
            ConfRefusal::AlreadyMember => t!(lang, "it is already in the cluster"),
            ConfRefusal::NotMember => t!(lang, "it is not in the cluster"),
            ConfRefusal::NotLearner => t!(lang, "it is not a learner"),
            ConfRefusal::LastVoter => t!(lang, "it is the last voter"),
        }
    }

    /// The refusal a trace's `why` names.
    pub fn from_reason(why: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.reason() == why)
    }
}

impl ConfChange {
    pub fn add_learner(node: NodeId) -> Self {
        ConfChange::AddLearner { node: node as u8 }
    }
    pub fn promote(node: NodeId) -> Self {
        ConfChange::Promote { node: node as u8 }
    }
    pub fn remove(node: NodeId) -> Self {
        ConfChange::Remove { node: node as u8 }
    }

    /// The server it changes.
    pub fn node(self) -> NodeId {
        match self {
            ConfChange::AddLearner { node }
            | ConfChange::Promote { node }
            | ConfChange::Remove { node } => node as NodeId,
        }
    }

    /// Its name in the trace and on the page.
    pub fn name(self) -> &'static str {
        match self {
            ConfChange::AddLearner { .. } => "add_learner",
            ConfChange::Promote { .. } => "promote",
            ConfChange::Remove { .. } => "remove",
        }
    }

    pub fn from_name(name: &str, node: NodeId) -> Option<Self> {
        Some(match name {
            "add_learner" => Self::add_learner(node),
            "promote" => Self::promote(node),
            "remove" => Self::remove(node),
            _ => return None,
        })
    }

    /// For the log's prefix hash: distinct from every command's digest and the no-op's.
    pub fn digest(self) -> u64 {
        let kind = match self {
            ConfChange::AddLearner { .. } => 1,
            ConfChange::Promote { .. } => 2,
            ConfChange::Remove { .. } => 3,
        };
        0xc0f1_0000_0000_0000 | (kind << 8) | self.node() as u64
    }
}

fn bit(id: NodeId) -> u8 {
    if id < NODE_SLOTS {
        1 << id
    } else {
        0
    }
}

/// Ids of the set bits, ascending.
fn ids(bits: u8) -> impl Iterator<Item = NodeId> {
    (0..NODE_SLOTS).filter(move |&i| bits & (1 << i) != 0)
}

impl Membership {
    /// The first configuration of a run: `nodes` voters, ids `0..nodes`.
    pub fn first(nodes: usize) -> Self {
        Membership {
            voters: ((1u16 << nodes.min(NODE_SLOTS)) - 1) as u8,
            learners: 0,
        }
    }

    pub fn is_voter(self, id: NodeId) -> bool {
        self.voters & bit(id) != 0
    }
    pub fn is_learner(self, id: NodeId) -> bool {
        self.learners & bit(id) != 0
    }
    pub fn is_member(self, id: NodeId) -> bool {
        (self.voters | self.learners) & bit(id) != 0
    }

    /// Voters and learners, ascending.
    pub fn members(self) -> impl Iterator<Item = NodeId> {
        ids(self.voters | self.learners)
    }
    pub fn voters(self) -> impl Iterator<Item = NodeId> {
        ids(self.voters)
    }
    pub fn learners(self) -> impl Iterator<Item = NodeId> {
        ids(self.learners)
    }

    pub fn voter_count(self) -> usize {
        self.voters.count_ones() as usize
    }

    /// How many voters make a majority of this configuration.
    pub fn majority(self) -> usize {
        self.voter_count() / 2 + 1
    }

    /// The same configuration without `id`: what a server joining with an empty log assumes of
    /// the configurations before it joined, so that it never counts itself a voter of them (an
    /// id removed and added back is a new, empty server).
    pub fn without(self, id: NodeId) -> Self {
        Membership {
            voters: self.voters & !bit(id),
            learners: self.learners & !bit(id),
        }
    }

    /// Whether `change` may follow this configuration, and why not.
    pub fn check(self, change: ConfChange) -> Result<(), ConfRefusal> {
        let id = change.node();
        if id >= NODE_SLOTS {
            return Err(ConfRefusal::OutOfRange);
        }
        match change {
            ConfChange::AddLearner { .. } if self.is_member(id) => Err(ConfRefusal::AlreadyMember),
            ConfChange::Promote { .. } if !self.is_learner(id) => Err(ConfRefusal::NotLearner),
            ConfChange::Remove { .. } if !self.is_member(id) => Err(ConfRefusal::NotMember),
            ConfChange::Remove { .. } if self.is_voter(id) && self.voter_count() == 1 => {
                Err(ConfRefusal::LastVoter)
            }
            _ => Ok(()),
        }
    }

    /// The configuration after `change` (a change that does not apply changes nothing).
    pub fn apply(self, change: ConfChange) -> Self {
        let b = bit(change.node());
        match change {
            ConfChange::AddLearner { .. } if !self.is_member(change.node()) => Membership {
                learners: self.learners | b,
                ..self
            },
            ConfChange::Promote { .. } if self.is_learner(change.node()) => Membership {
                voters: self.voters | b,
                learners: self.learners & !b,
            },
            ConfChange::Remove { .. } => self.without(change.node()),
            _ => self,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_server_joins_as_a_learner_and_is_promoted_by_a_second_change() {
        let m = Membership::first(3);
        assert_eq!(m.majority(), 2);
        let m = m.apply(ConfChange::add_learner(3));
        assert!(m.is_learner(3) && !m.is_voter(3));
        assert_eq!(
            m.majority(),
            2,
            "a learner does not count toward a majority"
        );
        let m = m.apply(ConfChange::promote(3));
        assert!(m.is_voter(3) && !m.is_learner(3));
        assert_eq!(m.majority(), 3);
        assert_eq!(m.members().collect::<Vec<_>>(), [0, 1, 2, 3]);
    }

    #[test]
    fn refusals_name_the_reason() {
        let m = Membership::first(1);
        assert_eq!(
            m.check(ConfChange::add_learner(0)),
            Err(ConfRefusal::AlreadyMember)
        );
        assert_eq!(m.check(ConfChange::remove(4)), Err(ConfRefusal::NotMember));
        assert_eq!(m.check(ConfChange::remove(0)), Err(ConfRefusal::LastVoter));
        assert_eq!(
            m.check(ConfChange::promote(0)),
            Err(ConfRefusal::NotLearner)
        );
        assert_eq!(
            m.check(ConfChange::add_learner(7)),
            Err(ConfRefusal::OutOfRange)
        );
        assert_eq!(m.check(ConfChange::add_learner(6)), Ok(()));
    }

    #[test]
    fn change_digests_differ_from_each_other_and_from_the_noop() {
        let all = [
            ConfChange::add_learner(1),
            ConfChange::promote(1),
            ConfChange::remove(1),
            ConfChange::remove(2),
        ];
        for (i, a) in all.iter().enumerate() {
            assert_ne!(a.digest(), 0x5eed);
            for b in &all[i + 1..] {
                assert_ne!(a.digest(), b.digest());
            }
        }
    }
}
