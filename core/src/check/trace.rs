//! Check a trace written by any implementation of the seed's lock service (`raftlock check`).
//!
//! The checker reads the project's JSON Lines trace one line at a time and checks what the
//! events can show:
//! - `apply` alone: every apply result derived again from the seed's rules, in log order (the
//!   token is the Grant's index, Expire deletes only on a token match, `existed`,
//!   Released/NotFound, GrantRejected); the same entry and the same result at an index on every
//!   node; each node's applies in order without gaps (a `restart` starts its applies again, a
//!   `snapshot_restored` moves them on); a Release from a client deletes only that client's lock;
//! - `role`: at most one leader per term;
//! - `write`: the storage accepts no token below the highest it accepted for that key;
//! - `client`: the clients' history as a mutex with leases (`check::history`), exactly when the
//!   events carry `invoked_us`, else with each operation starting at the client's previous event.
//!
//! Unknown kinds and fields are ignored; a check whose events are absent says so. A line that is
//! not a trace event is an error with its number. Memory: one lock table, each node's position,
//! the leaders by term, and the log entries from the lowest index a node may still apply.

mod clients;

use crate::lang::{both, t, Lang, Text};
use crate::lock::machine::{ApplyResult, LockCommand, LockMachine, LockOp};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The rules the checker names, each in the seed's words (or Raft's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Rule {
    TokenIsTheGrantsIndex,
    ExpireDeletesOnlyOnTokenMatch,
    DeletedOnlyByCommittedExpire,
    ApplyResult,
    ReleaseDeletesOnlyTheHoldersLock,
    SameEntryOnEveryNode,
    SameResultOnEveryNode,
    AppliesInOrder,
    OneLeaderPerTerm,
    StorageRejectsStaleTokens,
    ClientsSeeAMutexWithLeases,
}

impl Rule {
    pub const ALL: [Rule; 11] = [
        Rule::TokenIsTheGrantsIndex,
        Rule::ExpireDeletesOnlyOnTokenMatch,
        Rule::DeletedOnlyByCommittedExpire,
        Rule::ApplyResult,
        Rule::ReleaseDeletesOnlyTheHoldersLock,
        Rule::SameEntryOnEveryNode,
        Rule::SameResultOnEveryNode,
        Rule::AppliesInOrder,
        Rule::OneLeaderPerTerm,
        Rule::StorageRejectsStaleTokens,
        Rule::ClientsSeeAMutexWithLeases,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Rule::TokenIsTheGrantsIndex => "token_is_the_grants_index",
            Rule::ExpireDeletesOnlyOnTokenMatch => "expire_deletes_only_on_token_match",
            Rule::DeletedOnlyByCommittedExpire => "deleted_only_by_committed_expire",
            Rule::ApplyResult => "apply_result",
            Rule::ReleaseDeletesOnlyTheHoldersLock => "release_deletes_only_the_holders_lock",
            Rule::SameEntryOnEveryNode => "same_entry_on_every_node",
            Rule::SameResultOnEveryNode => "same_result_on_every_node",
            Rule::AppliesInOrder => "applies_in_order",
            Rule::OneLeaderPerTerm => "one_leader_per_term",
            Rule::StorageRejectsStaleTokens => "storage_rejects_stale_tokens",
            Rule::ClientsSeeAMutexWithLeases => "clients_see_a_mutex_with_leases",
        }
    }

    /// The rule as the seed (or the Raft paper) says it.
    pub fn words(self, lang: Lang) -> &'static str {
        match self {
            Rule::TokenIsTheGrantsIndex => t!(lang, "Grant carries no token: the token is assigned deterministically by every node's state machine at the moment it applies the entry (its log index), so all nodes compute the same token."),
            Rule::ExpireDeletesOnlyOnTokenMatch => t!(lang, "Expire: the lock is deleted only if the token matches, so a late or duplicated Expire cannot erase a lock that was granted again in between."),
            Rule::DeletedOnlyByCommittedExpire => t!(lang, "Every node tracks the remaining lease time with its own local clock, but a lock is only ever deleted through a committed Expire command."),
            Rule::ApplyResult => t!(lang, "Apply results: Granted{{token}} when the key was free; GrantRejected for a key already held; Released, or NotFound when the key was not held; Expired{{existed}} telling whether a lock was really deleted; Noop."),
            Rule::ReleaseDeletesOnlyTheHoldersLock => t!(lang, "Release: a client releases the lock it holds; the leader proposes a client's Release only for that client's lock."),
            Rule::SameEntryOnEveryNode => t!(lang, "All nodes apply the same commands in the same order (Raft's Log Matching and State Machine Safety: no two nodes apply different entries at one index)."),
            Rule::SameResultOnEveryNode => t!(lang, "Since all nodes apply the same commands in the same order, they always arrive at the same state (and the same apply result)."),
            Rule::AppliesInOrder => t!(lang, "The state machine applies committed commands in order: each node applies index after index, without gaps, except where it installs a snapshot."),
            Rule::OneLeaderPerTerm => t!(lang, "Election Safety: at most one leader can be elected in a given term."),
            Rule::StorageRejectsStaleTokens => t!(lang, "Fencing: the storage accepts a write only with a token at least as high as any it accepted for that key."),
            Rule::ClientsSeeAMutexWithLeases => t!(lang, "What the clients were told is explainable by one lock per key, held by one client at a time, each hold ending by its Release or by its lease's expiry; the fencing tokens (log indexes) order the holds. Leases assume the servers' clocks run true: with drift or a jump this can fail, and the fencing tokens are what keeps the storage safe."),
        }
    }
}

/// One problem, at its line, with the lines that show it (earliest first).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub line: u64,
    pub t_us: Option<u64>,
    pub rule: Rule,
    /// In both languages (the CLI prints the English).
    pub detail: Text,
    /// The line numbers of the smallest excerpt that shows it (this line included).
    pub excerpt: Vec<u64>,
}

/// A line that is not a trace event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineError {
    pub line: u64,
    pub message: Text,
}

impl LineError {
    /// The error in `lang`.
    pub fn words(&self, lang: Lang) -> String {
        t!(
            lang,
            "line {line}: {message}",
            line = self.line,
            message = self.message.get(lang)
        )
    }
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.words(Lang::En))
    }
}

#[derive(Deserialize)]
pub struct RawCmd {
    pub op: String,
    pub key: Option<String>,
    pub lease_ms: Option<u64>,
    pub token: Option<u64>,
    pub client: Option<String>,
}

#[derive(Deserialize)]
pub struct RawResult {
    pub r: String,
    pub token: Option<u64>,
    pub existed: Option<bool>,
}

/// A trace line with the fields any kind may carry (serde ignores the others): what the
/// checker and the page's trace view read.
#[derive(Deserialize)]
pub struct Raw {
    pub t_us: Option<u64>,
    pub ev: String,
    pub node: Option<usize>,
    pub index: Option<u64>,
    pub term: Option<u64>,
    pub role: Option<String>,
    pub cmd: Option<RawCmd>,
    pub result: Option<RawResult>,
    pub key: Option<String>,
    pub client: Option<String>,
    pub token: Option<u64>,
    pub accepted: Option<bool>,
    /// A `client` event's operation (acquire, release, work) and outcome (granted, busy,
    /// released, not_holder, timeout, lease_lost).
    pub op: Option<String>,
    pub outcome: Option<String>,
    /// When the client sent the request (optional: without it, the interval of an operation
    /// starts at the client's previous event).
    pub invoked_us: Option<u64>,
}

/// An entry as first seen applied.
struct Entry {
    term: u64,
    /// None: a no-op.
    cmd: Option<LockOp>,
    client: Option<String>,
    /// The result the seed's rules give, once the entries before it are known.
    expected: Option<ApplyResult>,
    /// The first node's result, its line, the node and the time.
    first: (ApplyResult, u64),
    first_by: (usize, Option<u64>),
}

#[derive(Default)]
struct NodePos {
    /// The last index applied (0: none yet, or a restart).
    applied: u64,
    /// The line of that apply (or restore).
    line: u64,
}

/// What the checker saw: the counts that say which checks ran.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seen {
    pub lines: u64,
    pub applies: u64,
    pub roles: u64,
    pub writes: u64,
    pub clients: u64,
    pub ignored: u64,
}

/// The streaming checker: [`TraceCheck::line`] for each line, then [`TraceCheck::finish`].
#[derive(Default)]
pub struct TraceCheck {
    seen: Seen,
    entries: BTreeMap<u64, Entry>,
    /// The reference lock table, applied up to `machine.applied`.
    machine: LockMachine,
    clients: BTreeMap<String, u32>,
    client_names: Vec<String>,
    nodes: BTreeMap<usize, NodePos>,
    leaders: BTreeMap<u64, (usize, u64)>,
    /// Per key: the highest token the storage accepted, and its line.
    storage: BTreeMap<String, (u64, u64)>,
    findings: Vec<Finding>,
    /// Findings kept in full (the rest are counted).
    pub max_findings: usize,
    dropped: u64,
    /// An index at which the reference could not go on (the trace lacks an entry before it).
    gap_at: Option<u64>,
    /// The clients' history from `client` events.
    history: clients::ClientHistory,
}

/// What a checked trace comes to.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub seen: Seen,
    pub findings: Vec<Finding>,
    /// Findings beyond `max_findings`, counted only.
    pub more: u64,
    /// The checks that could not run, and why.
    /// What the trace could not show, in both languages.
    pub not_checked: Vec<Text>,
}

impl Report {
    pub fn ok(&self) -> bool {
        self.findings.is_empty()
    }
}

fn result_of(r: &RawResult) -> Result<ApplyResult, Text> {
    Ok(match r.r.as_str() {
        "granted" => ApplyResult::Granted {
            token: r
                .token
                .ok_or_else(|| both!("result granted without a token"))?,
        },
        "grant_rejected" => ApplyResult::GrantRejected,
        "released" => ApplyResult::Released,
        "not_found" => ApplyResult::NotFound,
        "expired" => ApplyResult::Expired {
            existed: r
                .existed
                .ok_or_else(|| both!("result expired without existed"))?,
        },
        "noop" => ApplyResult::Noop,
        other => return Err(both!("unknown apply result \"{other}\"")),
    })
}

fn op_of(c: &RawCmd) -> Result<Option<LockOp>, Text> {
    match c.op.as_str() {
        // A configuration change applies to the lock machine as a no-op (Raft dissertation
        // ch. 4; the seed's six results stay six). This checker reads it as one.
        "noop" | "add_learner" | "promote" | "remove" => Ok(None),
        op => LockOp::from_trace(op, c.key.as_deref(), c.lease_ms, c.token).map(Some),
    }
}

fn describe(op: &Option<LockOp>) -> String {
    op.as_ref().map_or_else(|| "Noop".into(), LockOp::describe)
}

fn said(r: ApplyResult) -> String {
    match r {
        ApplyResult::Granted { token } => format!("Granted{{{token}}}"),
        ApplyResult::Expired { existed } => format!("Expired{{existed: {existed}}}"),
        other => format!("{other:?}"),
    }
}

impl TraceCheck {
    pub fn new() -> TraceCheck {
        TraceCheck {
            max_findings: 100,
            ..TraceCheck::default()
        }
    }

    fn find(
        &mut self,
        line: u64,
        t_us: Option<u64>,
        rule: Rule,
        detail: Text,
        mut excerpt: Vec<u64>,
    ) {
        if self.findings.len() >= self.max_findings {
            self.dropped += 1;
            return;
        }
        excerpt.push(line);
        excerpt.sort_unstable();
        excerpt.dedup();
        self.findings.push(Finding {
            line,
            t_us,
            rule,
            detail,
            excerpt,
        });
    }

    fn client_id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.clients.get(name) {
            return id;
        }
        let id = self.client_names.len() as u32;
        self.clients.insert(name.to_string(), id);
        self.client_names.push(name.to_string());
        id
    }

    /// Check one line (numbered from 1). Blank lines are skipped.
    pub fn line(&mut self, n: u64, text: &str) -> Result<(), LineError> {
        match parse_line(n, text)? {
            Some(raw) => self.event(n, &raw),
            None => Ok(()),
        }
    }

    /// Check one event, read from line `n` by [`parse_line`].
    pub fn event(&mut self, n: u64, raw: &Raw) -> Result<(), LineError> {
        self.seen.lines += 1;
        let bad = |m: Text| LineError {
            line: n,
            message: m,
        };
        let need = |what: &str, v: Option<u64>| {
            v.ok_or_else(|| LineError {
                line: n,
                message: both!("a {} event without {what}", raw.ev),
            })
        };
        match raw.ev.as_str() {
            "role" => {
                self.seen.roles += 1;
                let node = need("node", raw.node.map(|x| x as u64))? as usize;
                let term = need("term", raw.term)?;
                if raw.role.as_deref() == Some("leader") {
                    match self.leaders.get(&term) {
                        Some(&(other, at)) if other != node => self.find(
                            n,
                            raw.t_us,
                            Rule::OneLeaderPerTerm,
                            both!("n{node} became leader of term {term}; n{other} already led it"),
                            vec![at],
                        ),
                        Some(_) => {}
                        None => {
                            self.leaders.insert(term, (node, n));
                        }
                    }
                }
            }
            "restart" => {
                let node = need("node", raw.node.map(|x| x as u64))? as usize;
                self.nodes.insert(
                    node,
                    NodePos {
                        applied: 0,
                        line: n,
                    },
                );
            }
            "snapshot_restored" => {
                let node = need("node", raw.node.map(|x| x as u64))? as usize;
                let index = need("index", raw.index)?;
                self.nodes.insert(
                    node,
                    NodePos {
                        applied: index,
                        line: n,
                    },
                );
            }
            "write" => {
                self.seen.writes += 1;
                let key = raw
                    .key
                    .clone()
                    .ok_or_else(|| bad(both!("a write without a key")))?;
                let token = need("token", raw.token)?;
                let accepted = raw
                    .accepted
                    .ok_or_else(|| bad(both!("a write without accepted")))?;
                let highest = self.storage.get(&key).copied();
                if accepted {
                    if let Some((h, at)) = highest.filter(|(h, _)| token < *h) {
                        self.find(
                            n,
                            raw.t_us,
                            Rule::StorageRejectsStaleTokens,
                            both!("the storage accepted token {token} for {key} after accepting token {h}"),
                            vec![at],
                        );
                    } else {
                        self.storage.insert(key, (token, n));
                    }
                }
            }
            "apply" => self.apply(n, raw)?,
            "client" => self.client(n, raw)?,
            _ => self.seen.ignored += 1,
        }
        Ok(())
    }

    /// A client's acquire or release and what it was told, for the history check at the end.
    fn client(&mut self, n: u64, raw: &Raw) -> Result<(), LineError> {
        self.seen.clients += 1;
        let name = raw.client.as_deref().ok_or_else(|| LineError {
            line: n,
            message: both!("a client event without client"),
        })?;
        let id = self.client_id(name);
        self.history.event(n, id, raw)
    }

    fn apply(&mut self, n: u64, raw: &Raw) -> Result<(), LineError> {
        self.seen.applies += 1;
        let bad = |m: Text| LineError {
            line: n,
            message: m,
        };
        let node = raw
            .node
            .ok_or_else(|| bad(both!("an apply without node")))?;
        let index = raw
            .index
            .ok_or_else(|| bad(both!("an apply without index")))?;
        let term = raw.term.unwrap_or(0);
        let cmd = raw
            .cmd
            .as_ref()
            .ok_or_else(|| bad(both!("an apply without cmd")))?;
        let op = op_of(cmd).map_err(bad)?;
        let result = result_of(
            raw.result
                .as_ref()
                .ok_or_else(|| bad(both!("an apply without result")))?,
        )
        .map_err(bad)?;
        let t = raw.t_us;
        // This node's order.
        let pos = self.nodes.entry(node).or_default();
        let (before, before_line) = (pos.applied, pos.line);
        pos.applied = index;
        pos.line = n;
        if index != before + 1 {
            let what = if index > before + 1 {
                both!(
                    "n{node} applied index {index} after {before}: skipped {}",
                    before + 1
                )
            } else {
                both!("n{node} applied index {index} again after {before}")
            };
            self.find(n, t, Rule::AppliesInOrder, what, vec![before_line]);
        }
        // The same entry everywhere.
        if let Some(e) = self.entries.get(&index) {
            let (first_line, first_result) = (e.first.1, e.first.0);
            if e.term != term || e.cmd != op || (op.is_some() && e.client != cmd.client) {
                let seen = describe(&e.cmd);
                self.find(
                    n,
                    t,
                    Rule::SameEntryOnEveryNode,
                    both!(
                        "n{node} applied {} (term {term}) at index {index}; {seen} (term {}) was applied there before",
                        describe(&op),
                        e.term
                    ),
                    vec![first_line],
                );
                return Ok(());
            }
            match e.expected {
                Some(exp) if exp != result => {
                    self.wrong_result(n, t, node, index, &op, exp, result, first_line)
                }
                None if first_result != result => self.find(
                    n,
                    t,
                    Rule::SameResultOnEveryNode,
                    both!(
                        "n{node}'s {} at index {index} gave {}; it gave {} before",
                        describe(&op),
                        said(result),
                        said(first_result)
                    ),
                    vec![first_line],
                ),
                _ => {}
            }
            return Ok(());
        }
        if let Some(LockOp::Grant { lease_ms, .. }) = &op {
            self.history.grant(index, *lease_ms);
        }
        self.entries.insert(
            index,
            Entry {
                term,
                cmd: op,
                client: cmd.client.clone(),
                expected: None,
                first: (result, n),
                first_by: (node, t),
            },
        );
        self.advance();
        self.forget();
        Ok(())
    }

    /// Apply the entries that follow the reference's position; compare each first result.
    fn advance(&mut self) {
        loop {
            let next = self.machine.applied + 1;
            let Some(e) = self.entries.get(&next) else {
                if self.entries.range(next..).next().is_some() && self.gap_at.is_none() {
                    self.gap_at = Some(next);
                }
                return;
            };
            let (name, op) = (e.client.clone(), e.cmd.clone());
            let client = name.map(|name| self.client_id(&name));
            let cmd = op.map(|op| LockCommand {
                op,
                client,
                req: 0,
                counter_token: None,
            });
            let before = cmd
                .as_ref()
                .and_then(|c| self.machine.locks.get(c.op.key()).cloned());
            let expected = self.machine.apply(next, cmd.as_ref());
            let e = self.entries.get_mut(&next).expect("present");
            e.expected = Some(expected);
            let (first, line) = e.first;
            let (by_node, by_t) = e.first_by;
            let op = e.cmd.clone();
            // A client's Release deletes only the lock that client holds.
            if let (Some(LockOp::Release { key, .. }), ApplyResult::Released, Some(l)) =
                (&op, expected, &before)
            {
                let by = cmd.as_ref().and_then(|c| c.client);
                if by.is_some() && l.holder != by {
                    let holder = l.holder.map_or("the leader".to_string(), |h| {
                        self.client_names[h as usize].clone()
                    });
                    let client = e.client.clone().unwrap_or_default();
                    self.find(
                        line,
                        by_t,
                        Rule::ReleaseDeletesOnlyTheHoldersLock,
                        both!("{client}'s Release{{{key}}} at index {next} deleted the lock {holder} held (token {})", l.token),
                        vec![],
                    );
                }
            }
            if first != expected {
                self.wrong_result(line, by_t, by_node, next, &op, expected, first, line);
            }
        }
    }

    /// Entries no node can apply again: below every node's position.
    fn forget(&mut self) {
        let low = self.nodes.values().map(|p| p.applied).min().unwrap_or(0);
        let first = self.entries.keys().next().copied().unwrap_or(0);
        if low > first + 4096 && low <= self.machine.applied {
            self.entries = self.entries.split_off(&low);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn wrong_result(
        &mut self,
        n: u64,
        t: Option<u64>,
        node: usize,
        index: u64,
        op: &Option<LockOp>,
        expected: ApplyResult,
        got: ApplyResult,
        first_line: u64,
    ) {
        use ApplyResult::*;
        let rule = match (op, expected, got) {
            (Some(LockOp::Grant { .. }), Granted { .. }, Granted { .. }) => {
                Rule::TokenIsTheGrantsIndex
            }
            (
                Some(LockOp::Expire { .. }),
                Expired { existed: false },
                Expired { existed: true },
            ) => Rule::ExpireDeletesOnlyOnTokenMatch,
            // The node's table had lost a lock the log never deleted.
            (Some(LockOp::Grant { .. }), GrantRejected, Granted { .. })
            | (
                Some(LockOp::Expire { .. }),
                Expired { existed: true },
                Expired { existed: false },
            )
            | (Some(LockOp::Release { .. }), Released, NotFound) => {
                Rule::DeletedOnlyByCommittedExpire
            }
            _ => Rule::ApplyResult,
        };
        self.find(
            n,
            t,
            rule,
            both!(
                "n{node}'s {} at index {index} gave {}; the seed's rules give {}",
                describe(op),
                said(got),
                said(expected)
            ),
            vec![first_line],
        );
    }

    pub fn finish(mut self) -> Report {
        let mut not_checked = Vec::new();
        if let Some((line, t, message, lines)) =
            self.history.finish(&self.client_names, &mut not_checked)
        {
            self.find(line, t, Rule::ClientsSeeAMutexWithLeases, message, lines);
        }
        self.findings.sort_by_key(|f| f.line);
        if self.seen.applies == 0 {
            not_checked.push(both!(
                "apply results, the same entry on every node, order: no apply events"
            ));
        }
        if let Some(i) = self.gap_at {
            not_checked.push(both!(
                "apply results from index {i} on: the trace has no apply of index {i}"
            ));
        }
        if self.seen.roles == 0 {
            not_checked.push(both!("one leader per term: no role events"));
        }
        if self.seen.writes == 0 {
            not_checked.push(both!("fencing at the storage: no write events"));
        }
        Report {
            seen: self.seen,
            findings: self.findings,
            more: self.dropped,
            not_checked,
        }
    }
}

/// Read line `n` of a trace: None for a blank line, an error for one that is not an event.
pub fn parse_line(n: u64, text: &str) -> Result<Option<Raw>, LineError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    serde_json::from_str(text).map(Some).map_err(|e| LineError {
        line: n,
        message: both!("not a trace event: {e}"),
    })
}

/// Check a whole trace held as text.
pub fn check_text(text: &str) -> Result<Report, LineError> {
    let mut c = TraceCheck::new();
    for (i, l) in text.lines().enumerate() {
        c.line(i as u64 + 1, l)?;
    }
    Ok(c.finish())
}

/// A check's outcome as it crosses from the page's worker to the page: the report, or the line
/// the checker refused.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Checked {
    Report(Report),
    Refused(LineError),
}

impl Checked {
    /// Check a whole trace and write the outcome as JSON (the worker's answer).
    pub fn of_text_json(text: &str) -> String {
        let c = match check_text(text) {
            Ok(r) => Checked::Report(r),
            Err(e) => Checked::Refused(e),
        };
        serde_json::to_string(&c).unwrap_or_default()
    }

    /// Read the worker's answer; anything else is refused with serde's words.
    pub fn from_json(json: &str) -> Result<Checked, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }
}
