//! Lessons: captions tied to moments or to named events, and expected-outcome checks evaluated
//! live against the run. They travel inside the scenario document (`"lesson"`), so a teacher's
//! scenario file or link carries its story.

use crate::lock::ApplyResult;
use crate::sim::World;
use crate::trace::Event;
use serde::{Deserialize, Serialize};

/// Named events a caption (or a "run until") can wait for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Moment {
    LeaderElected,
    GrantCommitted,
    ReleaseCommitted,
    ExpireCommitted,
    ExpireProposed,
    GhostRelease,
    WriteAccepted,
    WriteRejected,
    Violation,
    /// A node snapshotted its lock table and compacted its log (§7).
    SnapshotTaken,
    /// A follower installed the leader's snapshot (InstallSnapshot, §7).
    SnapshotInstalled,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Caption {
    /// Show this caption at this time (ms of true time) ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_ms: Option<u64>,
    /// ... or when this event first happens after the previous caption's moment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<Moment>,
    pub text: String,
}

/// An expected outcome, evaluated on the run so far. Read through [`CheckFields`] (as actions
/// are: serde's derive for a tagged enum is large in the wasm).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "expect", rename_all = "snake_case")]
pub enum Check {
    /// A storage write by `client` was rejected (a stale token) / accepted.
    WriteRejected {
        client: String,
    },
    WriteAccepted {
        client: String,
    },
    /// Accepted storage tokens strictly increase for every key (no overlap of holders).
    TokensIncrease,
    /// Some Expire applied with this `existed`.
    Expired {
        existed: bool,
    },
    /// The leader released a ghost lock.
    GhostRelease,
    /// At least this many leader elections.
    LeaderChanges {
        at_least: u64,
    },
    /// `client` was granted `key` at least once.
    Granted {
        client: String,
        key: String,
    },
    /// No invariant was violated.
    NoViolations,
    /// This invariant was violated (the "break it" lessons).
    Violated {
        invariant: String,
    },
    /// Node `node` never went above this term.
    TermAtMost {
        node: usize,
        term: u64,
    },
    /// Exactly this many Grants were committed.
    Grants {
        exactly: u64,
    },
    /// Node `node` installed a leader's snapshot (its log lacked entries the leader compacted).
    SnapshotInstalled {
        node: usize,
    },
}

/// A check as the document spells it: `"expect"` and that check's fields, no other.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckFields {
    expect: String,
    client: Option<String>,
    existed: Option<bool>,
    at_least: Option<u64>,
    key: Option<String>,
    invariant: Option<String>,
    node: Option<usize>,
    term: Option<u64>,
    exactly: Option<u64>,
}

const CHECK_NAMES: &[&str] = &[
    "write_rejected",
    "write_accepted",
    "tokens_increase",
    "expired",
    "ghost_release",
    "leader_changes",
    "granted",
    "no_violations",
    "violated",
    "term_at_most",
    "grants",
    "snapshot_installed",
];

impl<'de> Deserialize<'de> for Check {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let f = CheckFields::deserialize(d)?;
        fn need<T, E: Error>(v: Option<T>, name: &'static str) -> Result<T, E> {
            v.ok_or_else(|| E::missing_field(name))
        }
        let given = [
            ("client", f.client.is_some()),
            ("existed", f.existed.is_some()),
            ("at_least", f.at_least.is_some()),
            ("key", f.key.is_some()),
            ("invariant", f.invariant.is_some()),
            ("node", f.node.is_some()),
            ("term", f.term.is_some()),
            ("exactly", f.exactly.is_some()),
        ];
        let (check, takes): (Check, &[&str]) = match f.expect.as_str() {
            "write_rejected" => (
                Check::WriteRejected {
                    client: need(f.client, "client")?,
                },
                &["client"],
            ),
            "write_accepted" => (
                Check::WriteAccepted {
                    client: need(f.client, "client")?,
                },
                &["client"],
            ),
            "tokens_increase" => (Check::TokensIncrease, &[]),
            "expired" => (
                Check::Expired {
                    existed: need(f.existed, "existed")?,
                },
                &["existed"],
            ),
            "ghost_release" => (Check::GhostRelease, &[]),
            "leader_changes" => (
                Check::LeaderChanges {
                    at_least: need(f.at_least, "at_least")?,
                },
                &["at_least"],
            ),
            "granted" => (
                Check::Granted {
                    client: need(f.client, "client")?,
                    key: need(f.key, "key")?,
                },
                &["client", "key"],
            ),
            "no_violations" => (Check::NoViolations, &[]),
            "violated" => (
                Check::Violated {
                    invariant: need(f.invariant, "invariant")?,
                },
                &["invariant"],
            ),
            "term_at_most" => (
                Check::TermAtMost {
                    node: need(f.node, "node")?,
                    term: need(f.term, "term")?,
                },
                &["node", "term"],
            ),
            "grants" => (
                Check::Grants {
                    exactly: need(f.exactly, "exactly")?,
                },
                &["exactly"],
            ),
            "snapshot_installed" => (
                Check::SnapshotInstalled {
                    node: need(f.node, "node")?,
                },
                &["node"],
            ),
            other => return Err(D::Error::unknown_variant(other, CHECK_NAMES)),
        };
        // As serde's deny_unknown_fields would: a field of another kind of check is an error.
        match given
            .iter()
            .find(|(name, present)| *present && !takes.contains(name))
        {
            Some((name, _)) => Err(D::Error::unknown_field(name, takes)),
            None => Ok(check),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lesson {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub captions: Vec<Caption>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<Check>,
}

impl Check {
    pub fn describe(&self) -> String {
        match self {
            Check::WriteRejected { client } => format!("the storage rejects a write by {client}"),
            Check::WriteAccepted { client } => format!("the storage accepts a write by {client}"),
            Check::TokensIncrease => "accepted tokens strictly increase".into(),
            Check::Expired { existed } => format!("an Expire applies with existed: {existed}"),
            Check::GhostRelease => "the leader releases a ghost lock".into(),
            Check::LeaderChanges { at_least } => format!("at least {at_least} leader election(s)"),
            Check::Granted { client, key } => format!("{client} is granted {key}"),
            Check::NoViolations => "no invariant is violated".into(),
            Check::Violated { invariant } => format!("{invariant} is violated"),
            Check::TermAtMost { node, term } => format!("n{node} stays at term {term} or below"),
            Check::Grants { exactly } => format!("exactly {exactly} Grant(s) commit"),
            Check::SnapshotInstalled { node } => format!("n{node} installs the leader's snapshot"),
        }
    }

    /// Whether the run so far satisfies the check (from the trace's running summary, so it
    /// holds however few lines are kept).
    pub fn passed(&self, w: &World) -> bool {
        let name = |c: u32| w.client_name(c);
        match self {
            Check::WriteRejected { client } => w
                .storage
                .summary
                .rejected_from
                .iter()
                .any(|&c| name(c) == *client),
            Check::WriteAccepted { client } => w
                .storage
                .summary
                .accepted_from
                .iter()
                .any(|&c| name(c) == *client),
            Check::TokensIncrease => !w.storage.summary.accepted_tokens_not_increasing,
            Check::Expired { existed } => w.trace.summary.expire_applies[*existed as usize] > 0,
            Check::GhostRelease => w.trace.summary.ghost_releases > 0,
            Check::LeaderChanges { at_least } => w.stats.leader_changes >= *at_least,
            Check::Granted { client, key } => w
                .trace
                .summary
                .granted
                .iter()
                .any(|(c, k)| c == client && k == key),
            Check::NoViolations => w.violations().is_empty(),
            Check::Violated { invariant } => {
                w.violations().iter().any(|(_, v)| v.invariant == invariant)
            }
            // A pre-candidate's event names the term it would campaign in; it does not adopt it.
            Check::TermAtMost { node, term } => {
                w.trace.summary.max_term.get(node).is_none_or(|t| t <= term)
            }
            Check::Grants { exactly } => w.stats.grants == *exactly,
            Check::SnapshotInstalled { node } => w.trace.summary.installed_snapshot.contains(node),
        }
    }
}

impl Moment {
    /// Whether trace event `e` is this moment.
    pub fn matches(self, e: &Event) -> bool {
        match (self, e) {
            (Moment::LeaderElected, Event::Role { role: "leader", .. }) => true,
            (
                Moment::GrantCommitted,
                Event::Apply {
                    result: ApplyResult::Granted { .. },
                    ..
                },
            ) => true,
            (
                Moment::ReleaseCommitted,
                Event::Apply {
                    result: ApplyResult::Released,
                    ..
                },
            ) => true,
            (
                Moment::ExpireCommitted,
                Event::Apply {
                    result: ApplyResult::Expired { .. },
                    ..
                },
            ) => true,
            (Moment::ExpireProposed, Event::ExpireProposed { .. }) => true,
            (Moment::GhostRelease, Event::GhostRelease { .. }) => true,
            (Moment::WriteAccepted, Event::Write { accepted: true, .. }) => true,
            (
                Moment::WriteRejected,
                Event::Write {
                    accepted: false, ..
                },
            ) => true,
            (Moment::Violation, Event::Violation { .. }) => true,
            (Moment::SnapshotTaken, Event::Snapshot { .. }) => true,
            (
                Moment::SnapshotInstalled,
                Event::SnapshotRestored {
                    source: "leader", ..
                },
            ) => true,
            _ => false,
        }
    }
}
