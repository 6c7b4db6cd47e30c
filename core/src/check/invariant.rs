//! The sixteen invariants, by name. Strings appear only at the edges (the trace, scenario
//! documents, the page's text): a new invariant is one variant here plus its check.

use serde::{Serialize, Serializer};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Invariant {
    ElectionSafety,
    LeaderAppendOnly,
    LogMatching,
    LeaderCompleteness,
    StateMachineSafety,
    LockTablesAgree,
    TokensStrictlyIncrease,
    ExpireDeletesOnlyOnTokenMatch,
    ReleaseDeletesOnlyHeldLock,
    StorageAcceptsStaleToken,
    GhostLockReleased,
    OneBelievedHolder,
    HealthyLeaderNotDeposed,
    IsolatedLeaderStepsDown,
    OneUncommittedConfigChange,
    LearnerNeverCounts,
}

impl Invariant {
    /// Every invariant, in the order the page lists them.
    pub const ALL: [Invariant; 16] = [
        Invariant::ElectionSafety,
        Invariant::LeaderAppendOnly,
        Invariant::LogMatching,
        Invariant::LeaderCompleteness,
        Invariant::StateMachineSafety,
        Invariant::LockTablesAgree,
        Invariant::TokensStrictlyIncrease,
        Invariant::ExpireDeletesOnlyOnTokenMatch,
        Invariant::ReleaseDeletesOnlyHeldLock,
        Invariant::StorageAcceptsStaleToken,
        Invariant::GhostLockReleased,
        Invariant::OneBelievedHolder,
        Invariant::HealthyLeaderNotDeposed,
        Invariant::IsolatedLeaderStepsDown,
        Invariant::OneUncommittedConfigChange,
        Invariant::LearnerNeverCounts,
    ];

    /// The name in traces, scenario documents and links.
    pub const fn name(self) -> &'static str {
        match self {
            Invariant::ElectionSafety => "election_safety",
            Invariant::LeaderAppendOnly => "leader_append_only",
            Invariant::LogMatching => "log_matching",
            Invariant::LeaderCompleteness => "leader_completeness",
            Invariant::StateMachineSafety => "state_machine_safety",
            Invariant::LockTablesAgree => "lock_tables_agree",
            Invariant::TokensStrictlyIncrease => "tokens_strictly_increase",
            Invariant::ExpireDeletesOnlyOnTokenMatch => "expire_deletes_only_on_token_match",
            Invariant::ReleaseDeletesOnlyHeldLock => "release_deletes_only_held_lock",
            Invariant::StorageAcceptsStaleToken => "storage_accepts_stale_token",
            Invariant::GhostLockReleased => "ghost_lock_released",
            Invariant::OneBelievedHolder => "one_believed_holder",
            Invariant::HealthyLeaderNotDeposed => "healthy_leader_not_deposed",
            Invariant::IsolatedLeaderStepsDown => "isolated_leader_steps_down",
            Invariant::OneUncommittedConfigChange => "one_uncommitted_config_change",
            Invariant::LearnerNeverCounts => "learner_never_counts",
        }
    }

    pub fn from_name(name: &str) -> Option<Invariant> {
        Invariant::ALL.into_iter().find(|i| i.name() == name)
    }

    /// Whether the invariant says nothing once a server clock drifted or jumped: each of these
    /// compares durations measured on different machines (a lease, an election timeout). The
    /// checker skips them then, and the page says "not checked" instead of showing them green.
    pub const fn clock_bound(self) -> bool {
        matches!(
            self,
            Invariant::OneBelievedHolder
                | Invariant::HealthyLeaderNotDeposed
                | Invariant::IsolatedLeaderStepsDown
        )
    }
}

impl std::fmt::Display for Invariant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl PartialEq<&str> for Invariant {
    fn eq(&self, other: &&str) -> bool {
        self.name() == *other
    }
}

impl PartialEq<str> for Invariant {
    fn eq(&self, other: &str) -> bool {
        self.name() == other
    }
}

impl Serialize for Invariant {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_invariant_has_one_name_and_is_found_by_it() {
        let names: std::collections::BTreeSet<_> =
            Invariant::ALL.iter().map(|i| i.name()).collect();
        assert_eq!(names.len(), Invariant::ALL.len());
        for i in Invariant::ALL {
            assert_eq!(Invariant::from_name(i.name()), Some(i));
        }
        assert_eq!(Invariant::from_name("no_such_invariant"), None);
    }
}
