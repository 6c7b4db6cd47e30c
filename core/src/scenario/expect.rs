//! What a lesson claims about its run, checked against it: a lesson's expected outcomes (read
//! on the run so far) and the facts a caption states (read at the caption's moment). One
//! vocabulary for both, so a caption cannot say what the run does not do.

use crate::lang::{both, role_word, t, Lang, Text};
use crate::sim::World;
use serde::{Deserialize, Serialize};

/// A claim about the run. Outcomes such as `write_rejected` hold from the moment they happen
/// on; facts such as `lock` or `node` describe the state at the moment they are read. Read
/// through [`ClaimFields`] (as actions are: serde's derive for a tagged enum is large in the
/// wasm).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "expect", rename_all = "snake_case")]
pub enum Claim {
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
    /// Now: node `node`'s standing in the leader's configuration (Raft dissertation ch. 4):
    /// `role` is "voter", "learner" or "removed" (not a member).
    Member {
        node: usize,
        role: String,
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
    /// Now: `client` believes it holds `key` (with `token`, if given): it was granted the key
    /// and the lease has not run out on its own clock, as its box shows.
    Holds {
        client: String,
        key: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        token: Option<u64>,
    },
    /// Now: `client` does not believe it holds `key`.
    NotHolding {
        client: String,
        key: String,
    },
    /// Now: node `node`'s lock table (without `node`: every running node's) has `key`, held by
    /// `client` and with `token` where given.
    Lock {
        key: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        node: Option<usize>,
        #[serde(skip_serializing_if = "Option::is_none")]
        client: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        token: Option<u64>,
    },
    /// Now: node `node`'s lock table (without `node`: no running node's) has `key`.
    NoLock {
        key: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        node: Option<usize>,
    },
    /// Now: node `node` is in `role` (`crashed` for a crashed node), in `term`, has applied
    /// through `applied`: each where given.
    Node {
        node: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        role: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        term: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        applied: Option<u64>,
    },
    /// Now: no running node is leader.
    NoLeader,
    /// Now: node `node`'s log has at `index` an entry of `op` (`grant`, `release`, `expire`,
    /// `noop`; `none` for no entry there), of `term` where given.
    LogEntry {
        node: usize,
        index: u64,
        op: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        term: Option<u64>,
    },
    /// Now: node `node` leads and replicates to `peer` in `state` (`probe`, `replicate`,
    /// `snapshot`), will send it index `next` next and knows their logs match through
    /// `matched`: each where given (§5.3 nextIndex and matchIndex, etcd-raft's progress).
    Progress {
        node: usize,
        peer: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        state: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        next: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        matched: Option<u64>,
    },
}

/// A node's roles as a `node` check names them.
pub const ROLE_NAMES: &[&str] = &["follower", "precandidate", "candidate", "leader", "crashed"];
/// A log entry's kinds as a `log_entry` check names them.
pub const OP_NAMES: &[&str] = &[
    "grant",
    "release",
    "expire",
    "noop",
    "add_learner",
    "promote",
    "remove",
    "none",
];

/// A claim as the document spells it (an entry of a `checks` list): `"expect"` and that check's fields, no other.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClaimFields {
    expect: String,
    client: Option<String>,
    existed: Option<bool>,
    at_least: Option<u64>,
    key: Option<String>,
    invariant: Option<String>,
    node: Option<usize>,
    term: Option<u64>,
    exactly: Option<u64>,
    token: Option<u64>,
    role: Option<String>,
    applied: Option<u64>,
    index: Option<u64>,
    op: Option<String>,
    peer: Option<usize>,
    state: Option<String>,
    next: Option<u64>,
    matched: Option<u64>,
}

/// A node's standing in a `member` check.
pub const MEMBER_ROLES: &[&str] = &["voter", "learner", "removed"];

pub const CLAIM_NAMES: &[&str] = &[
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
    "member",
    "grants",
    "snapshot_installed",
    "holds",
    "not_holding",
    "lock",
    "no_lock",
    "node",
    "no_leader",
    "log_entry",
    "progress",
];

impl<'de> Deserialize<'de> for Claim {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let f = ClaimFields::deserialize(d)?;
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
            ("token", f.token.is_some()),
            ("role", f.role.is_some()),
            ("applied", f.applied.is_some()),
            ("index", f.index.is_some()),
            ("op", f.op.is_some()),
            ("peer", f.peer.is_some()),
            ("state", f.state.is_some()),
            ("next", f.next.is_some()),
            ("matched", f.matched.is_some()),
        ];
        let (check, takes): (Claim, &[&str]) = match f.expect.as_str() {
            "write_rejected" => (
                Claim::WriteRejected {
                    client: need(f.client, "client")?,
                },
                &["client"],
            ),
            "write_accepted" => (
                Claim::WriteAccepted {
                    client: need(f.client, "client")?,
                },
                &["client"],
            ),
            "tokens_increase" => (Claim::TokensIncrease, &[]),
            "expired" => (
                Claim::Expired {
                    existed: need(f.existed, "existed")?,
                },
                &["existed"],
            ),
            "ghost_release" => (Claim::GhostRelease, &[]),
            "leader_changes" => (
                Claim::LeaderChanges {
                    at_least: need(f.at_least, "at_least")?,
                },
                &["at_least"],
            ),
            "granted" => (
                Claim::Granted {
                    client: need(f.client, "client")?,
                    key: need(f.key, "key")?,
                },
                &["client", "key"],
            ),
            "no_violations" => (Claim::NoViolations, &[]),
            "violated" => (
                Claim::Violated {
                    invariant: need(f.invariant, "invariant")?,
                },
                &["invariant"],
            ),
            "term_at_most" => (
                Claim::TermAtMost {
                    node: need(f.node, "node")?,
                    term: need(f.term, "term")?,
                },
                &["node", "term"],
            ),
            "member" => (
                Claim::Member {
                    node: need(f.node, "node")?,
                    role: need(f.role, "role")?,
                },
                &["node", "role"],
            ),
            "grants" => (
                Claim::Grants {
                    exactly: need(f.exactly, "exactly")?,
                },
                &["exactly"],
            ),
            "snapshot_installed" => (
                Claim::SnapshotInstalled {
                    node: need(f.node, "node")?,
                },
                &["node"],
            ),
            "holds" => (
                Claim::Holds {
                    client: need(f.client, "client")?,
                    key: need(f.key, "key")?,
                    token: f.token,
                },
                &["client", "key", "token"],
            ),
            "not_holding" => (
                Claim::NotHolding {
                    client: need(f.client, "client")?,
                    key: need(f.key, "key")?,
                },
                &["client", "key"],
            ),
            "lock" => (
                Claim::Lock {
                    key: need(f.key, "key")?,
                    node: f.node,
                    client: f.client,
                    token: f.token,
                },
                &["key", "node", "client", "token"],
            ),
            "no_lock" => (
                Claim::NoLock {
                    key: need(f.key, "key")?,
                    node: f.node,
                },
                &["key", "node"],
            ),
            "node" => (
                Claim::Node {
                    node: need(f.node, "node")?,
                    role: f.role,
                    term: f.term,
                    applied: f.applied,
                },
                &["node", "role", "term", "applied"],
            ),
            "no_leader" => (Claim::NoLeader, &[]),
            "log_entry" => (
                Claim::LogEntry {
                    node: need(f.node, "node")?,
                    index: need(f.index, "index")?,
                    op: need(f.op, "op")?,
                    term: f.term,
                },
                &["node", "index", "op", "term"],
            ),
            "progress" => (
                Claim::Progress {
                    node: need(f.node, "node")?,
                    peer: need(f.peer, "peer")?,
                    state: f.state,
                    next: f.next,
                    matched: f.matched,
                },
                &["node", "peer", "state", "next", "matched"],
            ),
            other => return Err(D::Error::unknown_variant(other, CLAIM_NAMES)),
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

/// A log entry's kind as a `log_entry` check names it.
pub(super) fn op_name(e: &crate::raft::Entry<crate::lock::LockCommand>) -> &'static str {
    match e.conf() {
        Some(change) => change.name(),
        None => crate::lock::LockOp::name_of(e.cmd().map(|c| &c.op)),
    }
}

/// What `client` believes of `key` now: the token, while its lease runs on its own clock.
pub(super) fn belief(w: &World, client: &str, key: &str) -> Option<u64> {
    let slot = w.clients.iter().find(|c| c.client.cfg.name == client)?;
    let local = slot.clock.local_at(w.now_us);
    let h = slot.client.held.get(key)?;
    (h.until_local_us > local).then_some(h.token)
}

/// Whether node `k` (0-based) is up and not paused: what "every running node" ranges over.
pub(super) fn running(w: &World, k: usize) -> bool {
    w.nodes[k].server().is_some() && !w.nodes[k].paused
}

impl Claim {
    /// The fact in English (the CLI's words).
    pub fn describe(&self) -> String {
        self.describe_in(Lang::En)
    }

    pub fn describe_in(&self, lang: Lang) -> String {
        let on = |node: &Option<usize>| match node {
            Some(n) => t!(lang, "n{n}'s table"),
            None => t!(lang, "every running node's table").into(),
        };
        match self {
            Claim::WriteRejected { client } => t!(lang, "the storage rejects a write by {client}"),
            Claim::WriteAccepted { client } => t!(lang, "the storage accepts a write by {client}"),
            Claim::TokensIncrease => t!(lang, "accepted tokens strictly increase").into(),
            Claim::Expired { existed } => t!(lang, "an Expire applies with existed: {existed}"),
            Claim::GhostRelease => t!(lang, "the leader releases a ghost lock").into(),
            Claim::LeaderChanges { at_least } => t!(lang, "at least {at_least} leader election(s)"),
            Claim::Granted { client, key } => t!(lang, "{client} is granted {key}"),
            Claim::NoViolations => t!(lang, "no invariant is violated").into(),
            Claim::Violated { invariant } => t!(lang, "{invariant} is violated"),
            Claim::TermAtMost { node, term } => t!(lang, "n{node} stays at term {term} or below"),
            Claim::Member { node, role } => match role.as_str() {
                "voter" => t!(lang, "n{node} is a voter of the cluster"),
                "learner" => t!(lang, "n{node} is a learner of the cluster"),
                _ => t!(lang, "n{node} is not in the cluster"),
            },
            Claim::Grants { exactly } => t!(lang, "exactly {exactly} Grant(s) commit"),
            Claim::SnapshotInstalled { node } => t!(lang, "n{node} installs the leader's snapshot"),
            Claim::Holds { client, key, token } => match token {
                Some(t) => t!(lang, "{client} believes it holds {key} with token {t}"),
                None => t!(lang, "{client} believes it holds {key}"),
            },
            Claim::NotHolding { client, key } => {
                t!(lang, "{client} does not believe it holds {key}")
            }
            Claim::Lock {
                key,
                node,
                client,
                token,
            } => {
                let table = on(node);
                match (client, token) {
                    (Some(c), Some(t)) => t!(lang, "{table} has {key} held by {c} with token {t}"),
                    (Some(c), None) => t!(lang, "{table} has {key} held by {c}"),
                    (None, Some(t)) => t!(lang, "{table} has {key} with token {t}"),
                    (None, None) => t!(lang, "{table} has {key}"),
                }
            }
            Claim::NoLock { key, node } => t!(lang, "{} has no lock on {key}", on(node)),
            Claim::Node {
                node,
                role,
                term,
                applied,
            } => {
                let mut parts = Vec::new();
                if let Some(r) = role {
                    let r = role_word(r, lang);
                    parts.push(t!(lang, "is {r}"));
                }
                if let Some(t) = term {
                    parts.push(t!(lang, "is in term {t}"));
                }
                if let Some(a) = applied {
                    parts.push(t!(lang, "has applied through index {a}"));
                }
                format!("n{node} {}", parts.join(", "))
            }
            Claim::NoLeader => t!(lang, "no running node is leader").into(),
            Claim::LogEntry {
                node,
                index,
                op,
                term,
            } => {
                let what = match op.as_str() {
                    "grant" => t!(lang, "a Grant"),
                    "release" => t!(lang, "a Release"),
                    "expire" => t!(lang, "an Expire"),
                    "noop" => t!(lang, "a no-op"),
                    "add_learner" => t!(lang, "a change adding a learner"),
                    "promote" => t!(lang, "a change promoting a learner"),
                    "remove" => t!(lang, "a change removing a server"),
                    _ => return t!(lang, "n{node}'s log has no entry at index {index}"),
                };
                match term {
                    Some(t) => t!(
                        lang,
                        "n{node}'s log has {what} of term {t} at index {index}"
                    ),
                    None => t!(lang, "n{node}'s log has {what} at index {index}"),
                }
            }
            Claim::Progress {
                node,
                peer,
                state,
                next,
                matched,
            } => {
                let mut parts = vec![t!(lang, "n{node} leads").to_string()];
                if let Some(s) = state {
                    parts.push(t!(lang, "replicates to n{peer} in state {s}"));
                }
                if let Some(n) = next {
                    parts.push(t!(lang, "will send n{peer} index {n} next"));
                }
                if let Some(m) = matched {
                    parts.push(t!(lang, "knows n{peer}'s log matches through {m}"));
                }
                parts.join(", ")
            }
        }
    }

    /// Whether the run so far satisfies the check (outcomes from the trace's running summary,
    /// so they hold however few lines are kept; facts from the state now).
    pub fn passed(&self, w: &World) -> bool {
        let name = |c: u32| w.client_name(c);
        let nodes = |node: &Option<usize>| -> Vec<usize> {
            match node {
                Some(n) => vec![n.wrapping_sub(1)],
                None => (0..w.node_count).filter(|&k| running(w, k)).collect(),
            }
        };
        let lock_of = |k: usize, key: &str| {
            w.nodes
                .get(k)
                .and_then(|s| s.server())
                .and_then(|s| s.machine.locks.get(key))
        };
        match self {
            Claim::WriteRejected { client } => w
                .storage
                .summary
                .rejected_from
                .iter()
                .any(|&c| name(c) == *client),
            Claim::WriteAccepted { client } => w
                .storage
                .summary
                .accepted_from
                .iter()
                .any(|&c| name(c) == *client),
            Claim::TokensIncrease => !w.storage.summary.accepted_tokens_not_increasing,
            Claim::Expired { existed } => w.trace.summary.expire_applies[*existed as usize] > 0,
            Claim::GhostRelease => w.trace.summary.ghost_releases > 0,
            Claim::LeaderChanges { at_least } => w.stats.leader_changes >= *at_least,
            Claim::Granted { client, key } => w
                .trace
                .summary
                .granted
                .iter()
                .any(|(c, k)| c == client && k == key),
            Claim::NoViolations => w.violations().is_empty(),
            Claim::Violated { invariant } => w
                .violations()
                .iter()
                .any(|(_, v)| v.invariant == invariant.as_str()),
            // A pre-candidate's event names the term it would campaign in; it does not adopt it.
            Claim::TermAtMost { node, term } => {
                w.trace.summary.max_term.get(node).is_none_or(|t| t <= term)
            }
            Claim::Member { node, role } => {
                let (conf, i) = (w.membership(), node.wrapping_sub(1));
                match role.as_str() {
                    "voter" => conf.is_voter(i),
                    "learner" => conf.is_learner(i),
                    _ => !conf.is_member(i),
                }
            }
            Claim::Grants { exactly } => w.stats.grants == *exactly,
            Claim::SnapshotInstalled { node } => w.trace.summary.installed_snapshot.contains(node),
            Claim::Holds { client, key, token } => {
                belief(w, client, key).is_some_and(|t| token.is_none_or(|want| t == want))
            }
            Claim::NotHolding { client, key } => belief(w, client, key).is_none(),
            Claim::Lock {
                key,
                node,
                client,
                token,
            } => {
                let on = nodes(node);
                !on.is_empty()
                    && on.into_iter().all(|k| {
                        lock_of(k, key).is_some_and(|l| {
                            token.is_none_or(|t| l.token == t)
                                && client
                                    .as_ref()
                                    .is_none_or(|c| l.holder.is_some_and(|h| name(h) == *c))
                        })
                    })
            }
            Claim::NoLock { key, node } => {
                let on = nodes(node);
                !on.is_empty() && on.into_iter().all(|k| lock_of(k, key).is_none())
            }
            Claim::Node {
                node,
                role,
                term,
                applied,
            } => match w.nodes.get(node.wrapping_sub(1)).and_then(|s| s.server()) {
                None => role.as_deref() == Some("crashed") && term.is_none() && applied.is_none(),
                Some(s) => {
                    role.as_deref().is_none_or(|r| r == s.raft.role().name())
                        && term.is_none_or(|t| t == s.raft.term())
                        && applied.is_none_or(|a| a == s.machine.applied)
                }
            },
            Claim::NoLeader => !(0..w.node_count)
                .any(|k| running(w, k) && w.nodes[k].server().unwrap().raft.is_leader()),
            Claim::LogEntry {
                node,
                index,
                op,
                term,
            } => {
                // A crashed node's log is on its disk: it survives the crash.
                let Some(log) = w.nodes.get(node.wrapping_sub(1)).and_then(|s| s.log()) else {
                    return false;
                };
                match log.entry(*index) {
                    None => op == "none",
                    Some(e) => op_name(e) == op && term.is_none_or(|t| t == e.term),
                }
            }
            Claim::Progress {
                node,
                peer,
                state,
                next,
                matched,
            } => {
                let (k, p) = (node.wrapping_sub(1), peer.wrapping_sub(1));
                let Some(s) = w.nodes.get(k).and_then(|s| s.server()) else {
                    return false;
                };
                s.raft.is_leader()
                    && p < w.node_count
                    && p != k
                    && state
                        .as_deref()
                        .is_none_or(|st| st == s.raft.progress_state(p).name())
                    && next.is_none_or(|n| n == s.raft.next_index(p))
                    && matched.is_none_or(|m| m == s.raft.match_index(p))
            }
        }
    }

    /// The check's mistakes a document can make that its fields' types do not catch: a node
    /// out of range, a client or role that does not exist. Returns (field, message).
    pub fn mistake(
        &self,
        nodes: usize,
        has_client: impl Fn(&str) -> bool,
    ) -> Option<(&'static str, Text)> {
        let node_ok = |n: usize| (1..=nodes).contains(&n);
        let (node, client) = match self {
            Claim::TermAtMost { node, .. } | Claim::SnapshotInstalled { node } => {
                (Some(*node), None)
            }
            Claim::Member { node, role } => {
                if !MEMBER_ROLES.contains(&role.as_str()) {
                    return Some((
                        "role",
                        both!("\"{role}\" is not a standing ({})", MEMBER_ROLES.join(", ")),
                    ));
                }
                (Some(*node), None)
            }
            Claim::WriteRejected { client }
            | Claim::WriteAccepted { client }
            | Claim::Granted { client, .. }
            | Claim::Holds { client, .. }
            | Claim::NotHolding { client, .. } => (None, Some(client.as_str())),
            Claim::Lock { node, client, .. } => (*node, client.as_deref()),
            Claim::NoLock { node, .. } => (*node, None),
            Claim::Node {
                node,
                role,
                term,
                applied,
            } => {
                if let Some(r) = role.as_deref().filter(|r| !ROLE_NAMES.contains(r)) {
                    return Some((
                        "role",
                        both!("\"{r}\" is not a role ({})", ROLE_NAMES.join(", ")),
                    ));
                }
                if role.is_none() && term.is_none() && applied.is_none() {
                    return Some(("node", both!("give role, term or applied")));
                }
                (Some(*node), None)
            }
            Claim::Progress {
                node,
                peer,
                state,
                next,
                matched,
            } => {
                if let Some(s) = state
                    .as_deref()
                    .filter(|s| !crate::raft::ProgressState::NAMES.contains(s))
                {
                    return Some((
                        "state",
                        both!(
                            "\"{s}\" is not a replication state ({})",
                            crate::raft::ProgressState::NAMES.join(", ")
                        ),
                    ));
                }
                if state.is_none() && next.is_none() && matched.is_none() {
                    return Some(("node", both!("give state, next or matched")));
                }
                if !node_ok(*peer) || peer == node {
                    return Some(("peer", both!("{peer} is not another node of 1..={nodes}")));
                }
                (Some(*node), None)
            }
            Claim::LogEntry { node, op, .. } => {
                if !OP_NAMES.contains(&op.as_str()) {
                    return Some((
                        "op",
                        both!("\"{op}\" is not an entry ({})", OP_NAMES.join(", ")),
                    ));
                }
                (Some(*node), None)
            }
            _ => (None, None),
        };
        if let Some(n) = node.filter(|&n| !node_ok(n)) {
            return Some(("node", both!("{n} is out of range 1..={nodes}")));
        }
        if let Some(c) = client.filter(|c| !has_client(c)) {
            return Some(("client", both!("there is no client \"{c}\"")));
        }
        None
    }
}
