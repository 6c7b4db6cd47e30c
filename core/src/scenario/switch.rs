//! The design switches, by name: the lock service's (`Switches`), Raft's (pre-vote,
//! check-quorum, the Figure 8 rule), and `client_no_margin`. Strings appear only at the edges
//! (the CLI, the page, scenario documents): a new switch is one variant here, its field, and the
//! invariant it breaks.

use super::Scenario;
use crate::check::Invariant;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Switch {
    ExpireIgnoresToken,
    FollowersDeleteOnCountdown,
    TokenFromLeaderCounter,
    NoGhostRelease,
    StorageIgnoresTokens,
    ReleaseWithoutHolderCheck,
    ReleaseWithToken,
    NoPreVote,
    NoCheckQuorum,
    CommitByCountingOldTerms,
    ForgetVoteOnRestart,
    ConfChangeBeforeNoop,
    ClientNoMargin,
}

impl Switch {
    /// Every switch, in the order the page lists them (`client_no_margin`, the hunt's, last).
    pub const ALL: [Switch; 13] = [
        Switch::ExpireIgnoresToken,
        Switch::FollowersDeleteOnCountdown,
        Switch::TokenFromLeaderCounter,
        Switch::NoGhostRelease,
        Switch::StorageIgnoresTokens,
        Switch::ReleaseWithoutHolderCheck,
        Switch::ReleaseWithToken,
        Switch::NoPreVote,
        Switch::CommitByCountingOldTerms,
        Switch::NoCheckQuorum,
        Switch::ForgetVoteOnRestart,
        Switch::ConfChangeBeforeNoop,
        Switch::ClientNoMargin,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Switch::ExpireIgnoresToken => "expire_ignores_token",
            Switch::FollowersDeleteOnCountdown => "followers_delete_on_countdown",
            Switch::TokenFromLeaderCounter => "token_from_leader_counter",
            Switch::NoGhostRelease => "no_ghost_release",
            Switch::StorageIgnoresTokens => "storage_ignores_tokens",
            Switch::ReleaseWithoutHolderCheck => "release_without_holder_check",
            Switch::ReleaseWithToken => "release_with_token",
            Switch::NoPreVote => "no_pre_vote",
            Switch::NoCheckQuorum => "no_check_quorum",
            Switch::CommitByCountingOldTerms => "commit_by_counting_old_terms",
            Switch::ForgetVoteOnRestart => "forget_vote_on_restart",
            Switch::ConfChangeBeforeNoop => "conf_change_before_noop",
            Switch::ClientNoMargin => "client_no_margin",
        }
    }

    pub fn from_name(name: &str) -> Option<Switch> {
        Switch::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The invariant this switch breaks when on: what the safeguard it removes protects.
    /// `release_with_token` is a design alternative, not a broken safeguard.
    pub const fn breaks(self) -> Option<Invariant> {
        Some(match self {
            Switch::ExpireIgnoresToken => Invariant::ExpireDeletesOnlyOnTokenMatch,
            Switch::FollowersDeleteOnCountdown => Invariant::LockTablesAgree,
            Switch::TokenFromLeaderCounter => Invariant::TokensStrictlyIncrease,
            Switch::NoGhostRelease => Invariant::GhostLockReleased,
            Switch::StorageIgnoresTokens => Invariant::StorageAcceptsStaleToken,
            Switch::ReleaseWithoutHolderCheck => Invariant::ReleaseDeletesOnlyHeldLock,
            Switch::ReleaseWithToken => return None,
            Switch::NoPreVote => Invariant::HealthyLeaderNotDeposed,
            Switch::NoCheckQuorum => Invariant::IsolatedLeaderStepsDown,
            Switch::CommitByCountingOldTerms => Invariant::LeaderCompleteness,
            Switch::ForgetVoteOnRestart => Invariant::ElectionSafety,
            Switch::ConfChangeBeforeNoop => Invariant::LeaderCompleteness,
            Switch::ClientNoMargin => Invariant::OneBelievedHolder,
        })
    }

    /// Turn this switch on or off in a document.
    pub fn set(self, sc: &mut Scenario, on: bool) {
        let sw = &mut sc.switches;
        match self {
            Switch::ExpireIgnoresToken => sw.expire_ignores_token = on,
            Switch::FollowersDeleteOnCountdown => sw.followers_delete_on_countdown = on,
            Switch::TokenFromLeaderCounter => sw.token_from_leader_counter = on,
            Switch::NoGhostRelease => sw.no_ghost_release = on,
            Switch::StorageIgnoresTokens => sw.storage_ignores_tokens = on,
            Switch::ReleaseWithoutHolderCheck => sw.release_without_holder_check = on,
            Switch::ReleaseWithToken => sw.release_with_token = on,
            Switch::NoPreVote => sc.raft.pre_vote = !on,
            Switch::NoCheckQuorum => sc.raft.check_quorum = !on,
            Switch::CommitByCountingOldTerms => sc.raft.commit_by_counting_old_terms = on,
            Switch::ForgetVoteOnRestart => sc.raft.forget_vote_on_restart = on,
            Switch::ConfChangeBeforeNoop => sc.raft.conf_change_before_noop = on,
            Switch::ClientNoMargin => {
                for c in &mut sc.clients {
                    c.margin_ms = if on { 0 } else { c.margin_ms.max(100) };
                }
            }
        }
    }

    /// Whether this switch is on in a document.
    pub fn is_on(self, sc: &Scenario) -> bool {
        let sw = &sc.switches;
        match self {
            Switch::ExpireIgnoresToken => sw.expire_ignores_token,
            Switch::FollowersDeleteOnCountdown => sw.followers_delete_on_countdown,
            Switch::TokenFromLeaderCounter => sw.token_from_leader_counter,
            Switch::NoGhostRelease => sw.no_ghost_release,
            Switch::StorageIgnoresTokens => sw.storage_ignores_tokens,
            Switch::ReleaseWithoutHolderCheck => sw.release_without_holder_check,
            Switch::ReleaseWithToken => sw.release_with_token,
            Switch::NoPreVote => !sc.raft.pre_vote,
            Switch::NoCheckQuorum => !sc.raft.check_quorum,
            Switch::CommitByCountingOldTerms => sc.raft.commit_by_counting_old_terms,
            Switch::ForgetVoteOnRestart => sc.raft.forget_vote_on_restart,
            Switch::ConfChangeBeforeNoop => sc.raft.conf_change_before_noop,
            Switch::ClientNoMargin => {
                !sc.clients.is_empty() && sc.clients.iter().all(|c| c.margin_ms == 0)
            }
        }
    }
}

impl std::fmt::Display for Switch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_switch_has_one_name_and_turns_on_and_off_in_a_document() {
        let names: std::collections::BTreeSet<_> = Switch::ALL.iter().map(|s| s.name()).collect();
        assert_eq!(names.len(), Switch::ALL.len());
        let mut sc = super::super::swarm::random_scenario(1);
        for s in Switch::ALL {
            assert_eq!(Switch::from_name(s.name()), Some(s));
            assert!(!s.is_on(&sc), "{s} is off in the seed's design");
            s.set(&mut sc, true);
            assert!(s.is_on(&sc), "{s}");
            s.set(&mut sc, false);
            assert!(!s.is_on(&sc), "{s}");
        }
        assert_eq!(Switch::from_name("nonsense"), None);
    }
}
