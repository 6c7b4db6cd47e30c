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
    /// What the caption is about, so the page brings it into view and highlights it. Without
    /// it, the page derives the focus from the caption's event (see [`focus_of`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub focus: Vec<Focus>,
}

/// A part of the page a caption can name: `"n2"` (a node), `"leader"` (whoever leads at that
/// moment), `"client:A"`, `"storage"`, `"key:k"` (the key's row in the lock view) or `"log:5"`
/// (a log index).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Focus {
    /// Node `n` (1-based, as the page names it).
    Node(usize),
    Leader,
    Client(String),
    Storage,
    Key(String),
    LogIndex(u64),
}

impl TryFrom<String> for Focus {
    type Error = String;
    fn try_from(s: String) -> Result<Focus, String> {
        let bad =
            || format!("\"{s}\" is not a focus (n2, leader, client:A, storage, key:k or log:5)");
        Ok(match s.as_str() {
            "leader" => Focus::Leader,
            "storage" => Focus::Storage,
            _ => match s.split_once(':') {
                Some(("client", c)) if !c.is_empty() => Focus::Client(c.to_string()),
                Some(("key", k)) if !k.is_empty() => Focus::Key(k.to_string()),
                Some(("log", i)) => Focus::LogIndex(i.parse().map_err(|_| bad())?),
                None => match s.strip_prefix('n').and_then(|d| d.parse::<usize>().ok()) {
                    Some(k) if k >= 1 => Focus::Node(k),
                    _ => return Err(bad()),
                },
                _ => return Err(bad()),
            },
        })
    }
}

impl From<Focus> for String {
    fn from(f: Focus) -> String {
        match f {
            Focus::Node(k) => format!("n{k}"),
            Focus::Leader => "leader".into(),
            Focus::Client(c) => format!("client:{c}"),
            Focus::Storage => "storage".into(),
            Focus::Key(k) => format!("key:{k}"),
            Focus::LogIndex(i) => format!("log:{i}"),
        }
    }
}

/// The parts of the page a caption's event names: the node that acted, the client and the key
/// of the command, the storage of a write. A caption's own `focus` replaces this.
pub fn focus_of(e: &Event) -> Vec<Focus> {
    let key = |k: &str| Focus::Key(k.to_string());
    let client = |c: &str| Focus::Client(c.to_string());
    match e {
        Event::Role { node, .. }
        | Event::Crash { node }
        | Event::Restart { node }
        | Event::Pause { node }
        | Event::Resume { node }
        | Event::Snapshot { node, .. }
        | Event::SnapshotRestored { node, .. } => vec![Focus::Node(*node)],
        Event::Apply {
            node, index, cmd, ..
        } => {
            let mut v = vec![Focus::Node(*node), Focus::LogIndex(*index)];
            v.extend(cmd.key.as_deref().map(key));
            v.extend(cmd.client.as_deref().map(client));
            v
        }
        Event::ExpireProposed { node, key: k, .. } => vec![Focus::Node(*node), key(k)],
        Event::GhostRelease {
            node,
            key: k,
            client: c,
            ..
        } => vec![Focus::Node(*node), key(k), client(c)],
        Event::Client {
            client: c, key: k, ..
        } => vec![client(c), key(k)],
        Event::Write {
            client: c, key: k, ..
        } => vec![Focus::Storage, client(c), key(k)],
        Event::Fault { .. } | Event::Violation { .. } => Vec::new(),
    }
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
        use ApplyResult as R;
        use Event as E;
        use Moment as M;
        matches!(
            (self, e),
            (M::LeaderElected, E::Role { role: "leader", .. })
                | (
                    M::GrantCommitted,
                    E::Apply {
                        result: R::Granted { .. },
                        ..
                    }
                )
                | (
                    M::ReleaseCommitted,
                    E::Apply {
                        result: R::Released,
                        ..
                    }
                )
                | (
                    M::ExpireCommitted,
                    E::Apply {
                        result: R::Expired { .. },
                        ..
                    }
                )
                | (M::ExpireProposed, E::ExpireProposed { .. })
                | (M::GhostRelease, E::GhostRelease { .. })
                | (M::WriteAccepted, E::Write { accepted: true, .. })
                | (
                    M::WriteRejected,
                    E::Write {
                        accepted: false,
                        ..
                    }
                )
                | (M::Violation, E::Violation { .. })
                | (M::SnapshotTaken, E::Snapshot { .. })
                | (
                    M::SnapshotInstalled,
                    E::SnapshotRestored {
                        source: "leader",
                        ..
                    }
                )
        )
    }
}

#[cfg(test)]
mod focus_tests {
    use super::*;

    #[test]
    fn a_caption_focus_round_trips_and_a_bad_one_is_refused_with_the_forms_it_takes() {
        for text in ["n2", "leader", "client:A", "storage", "key:k", "log:5"] {
            let f: Focus = serde_json::from_str(&format!("\"{text}\"")).expect(text);
            assert_eq!(serde_json::to_string(&f).unwrap(), format!("\"{text}\""));
        }
        for bad in ["n0", "node2", "client:", "log:x", "key:", ""] {
            let e = serde_json::from_str::<Focus>(&format!("\"{bad}\""))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("is not a focus (n2, leader, client:A, storage, key:k or log:5)"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn a_focus_must_name_a_node_and_a_client_of_the_scenario() {
        let mut sc = crate::scenario::builtin::get("gc-pause").unwrap();
        sc.lesson.as_mut().unwrap().captions[0].focus = vec![Focus::Node(6)];
        assert!(sc
            .validate()
            .unwrap_err()
            .to_string()
            .contains("lesson.captions[0].focus[0]"));
        sc.lesson.as_mut().unwrap().captions[0].focus = vec![Focus::Client("Z".into())];
        assert!(sc
            .validate()
            .unwrap_err()
            .to_string()
            .contains("there is no client \"Z\""));
        sc.lesson.as_mut().unwrap().captions[0].focus =
            vec![Focus::Node(5), Focus::Client("A".into()), Focus::Leader];
        assert!(sc.validate().is_ok());
    }
}
