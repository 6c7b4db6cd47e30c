//! *Open a trace*: a trace file from any implementation, as a read-only run to scrub. What the
//! trace carries is drawn as of the line reached: each node's role and term, its lock table
//! (re-derived from what its applies said), its latest applies with their results, the storage's
//! writes; and the checker's findings (`raftlock check`, the same code), each with its line, the
//! rule in the seed's words, and a way to go there. What a trace does not carry (clock rates,
//! messages in flight) is not drawn.
//!
//! The page reads the lines in slices of a frame ([`Reading`]: a file that is not a trace is
//! refused at its first bad line, and a large file does not stop the page while it is read);
//! the check runs meanwhile in the page's Web Worker (`src/worker.rs`: the page's module does
//! not carry the checker), and its report comes back while the trace is read or shown.

use super::job::{JobKind, Progress, READ_LINES};
use super::text::fmt_count;
use crate::check::trace::{parse_line, Checked, Finding, LineError, Raw, Report};
use crate::lang::{t, Lang};
use std::collections::BTreeMap;
use std::rc::Rc;

/// Traces larger than this are refused in the page (`raftlock check` reads any size).
pub const TRACE_BYTES_MAX: usize = 32 * 1024 * 1024;

/// One line of the trace, as the view needs it.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// Its number in the file (from 1).
    pub n: u64,
    pub t_us: Option<u64>,
    pub kind: Kind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Role {
        node: usize,
        role: String,
        term: u64,
    },
    Apply {
        node: usize,
        index: u64,
        term: u64,
        key: Option<String>,
        client: Option<String>,
        /// grant, release, expire or noop.
        op: &'static str,
        cmd: String,
        result: String,
        token: Option<u64>,
        deletes: bool,
    },
    Write {
        client: String,
        key: String,
        token: u64,
        accepted: bool,
    },
    Restart {
        node: usize,
    },
    /// A client's acquire or release and what it was told.
    Client {
        client: String,
        op: String,
        key: String,
        /// As the trace names it (granted, busy, …), and the token it came with.
        outcome: String,
        token: Option<u64>,
    },
    Other(String),
}

/// A node as of the line reached.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceNode {
    pub role: String,
    pub term: u64,
    /// key → (holder, token), from what the node's applies said.
    pub locks: BTreeMap<String, (String, u64)>,
    /// Its latest applies: (line, index, command, result).
    pub applies: Vec<(u64, u64, String, String)>,
}

/// Where the check of the open trace stands.
#[derive(Clone, Debug, PartialEq)]
pub enum TraceCheck {
    /// In the worker; its answer names this number (an answer for a trace since closed or
    /// replaced is ignored).
    Running(u32),
    /// What it found.
    Done(Report),
    /// The worker could not check it: why (the trace stays open to read).
    Failed(String),
}

pub struct TraceView {
    pub name: String,
    pub lines: Vec<Line>,
    /// The nodes the trace names, in order.
    nodes: Vec<usize>,
    pub check: TraceCheck,
    /// How many lines are reached (0..=lines.len()).
    pub at: usize,
}

/// The applies shown per node.
pub const APPLIES_SHOWN: usize = 6;

fn refused(e: &LineError, lang: Lang) -> String {
    t!(lang, "That trace file was refused: {e}.", e = e.words(lang))
}

fn kind_of(v: Raw) -> Kind {
    let node = v.node.unwrap_or(0);
    match v.ev.as_str() {
        "role" => Kind::Role {
            node,
            role: v.role.unwrap_or_default(),
            term: v.term.unwrap_or(0),
        },
        "apply" => {
            let (op, key, lease, ctoken, client) =
                v.cmd.map_or((String::new(), None, 0, 0, None), |c| {
                    (
                        c.op,
                        c.key,
                        c.lease_ms.unwrap_or(0),
                        c.token.unwrap_or(0),
                        c.client,
                    )
                });
            let k = key.clone().unwrap_or_default();
            let (op, cmd) = match op.as_str() {
                "grant" => ("grant", format!("Grant{{{k}, {lease} ms}}")),
                "release" => ("release", format!("Release{{{k}}}")),
                "expire" => ("expire", format!("Expire{{{k}, {ctoken}}}")),
                _ => ("noop", "Noop".into()),
            };
            let (r, rtoken, existed) = v
                .result
                .map_or((String::new(), None, None), |r| (r.r, r.token, r.existed));
            let result = match r.as_str() {
                "granted" => format!("Granted{{{}}}", rtoken.unwrap_or(0)),
                "expired" => format!("Expired{{existed: {}}}", existed.unwrap_or(false)),
                "grant_rejected" => "GrantRejected".into(),
                "released" => "Released".into(),
                "not_found" => "NotFound".into(),
                _ => "Noop".into(),
            };
            Kind::Apply {
                node,
                index: v.index.unwrap_or(0),
                term: v.term.unwrap_or(0),
                key,
                client,
                op,
                cmd,
                token: if r == "granted" { rtoken } else { None },
                deletes: r == "released" || (r == "expired" && existed == Some(true)),
                result,
            }
        }
        "write" => Kind::Write {
            client: v.client.unwrap_or_default(),
            key: v.key.unwrap_or_default(),
            token: v.token.unwrap_or(0),
            accepted: v.accepted.unwrap_or(false),
        },
        "restart" => Kind::Restart { node },
        "client" => Kind::Client {
            client: v.client.unwrap_or_default(),
            op: v.op.unwrap_or_default(),
            key: v.key.unwrap_or_default(),
            outcome: v.outcome.unwrap_or_default(),
            token: v.token,
        },
        _ => Kind::Other(v.ev),
    }
}

/// A trace file being read, a slice of lines at a time.
pub struct Reading {
    pub name: String,
    text: Rc<String>,
    /// Bytes read so far, and lines.
    pos: usize,
    n: u64,
    lines: Vec<Line>,
    /// The number of its check in the worker, and the worker's answer if it came first.
    pub id: u32,
    answer: Option<Result<String, String>>,
}

impl Reading {
    /// Start reading a trace file (one over [`TRACE_BYTES_MAX`] is refused); its check is
    /// number `id`.
    pub fn new(name: &str, text: String, id: u32, lang: Lang) -> Result<Reading, String> {
        if text.len() > TRACE_BYTES_MAX {
            return Err(t!(
                lang,
                "That trace is {} MB; the page opens traces of at most {} MB (raftlock check reads any size).",
                text.len() / 1_048_576,
                TRACE_BYTES_MAX / 1_048_576
            ));
        }
        Ok(Reading {
            name: name.to_string(),
            text: Rc::new(text),
            pos: 0,
            n: 0,
            lines: Vec::new(),
            id,
            answer: None,
        })
    }

    /// The file's text (the worker checks it too).
    pub fn text(&self) -> Rc<String> {
        Rc::clone(&self.text)
    }

    /// Up to `max` more lines (as `str::lines` splits them); true once the whole file is read,
    /// or why the file is refused (its first bad line, in `lang`).
    /// Read on until the file is read (true), `budget_ms` since `t0` is spent (false), or a
    /// line refuses the file.
    pub fn read_for(
        &mut self,
        clock: &dyn Fn() -> f64,
        t0: f64,
        budget_ms: f64,
        lang: Lang,
    ) -> Result<bool, String> {
        loop {
            if self.read(READ_LINES, lang)? {
                return Ok(true);
            }
            if clock() - t0 >= budget_ms {
                return Ok(false);
            }
        }
    }

    pub fn read(&mut self, max: usize, lang: Lang) -> Result<bool, String> {
        let text = Rc::clone(&self.text);
        for line in text[self.pos..].split_inclusive('\n').take(max) {
            self.pos += line.len();
            self.n += 1;
            let line = line.strip_suffix('\n').unwrap_or(line);
            let line = line.strip_suffix('\r').unwrap_or(line);
            if let Some(v) = parse_line(self.n, line).map_err(|e| refused(&e, lang))? {
                self.lines.push(Line {
                    n: self.n,
                    t_us: v.t_us,
                    kind: kind_of(v),
                });
            }
        }
        Ok(self.pos >= self.text.len())
    }

    /// Its progress bar: "Reading the trace: 6.0 of 13.4 MB, 45,568 lines".
    pub fn progress(&self, lang: Lang) -> Progress {
        let (read, of) = (self.pos, self.text.len());
        // Tenths of a MB, in integers (the decimal sign is the language's).
        let (a, b) = (read as u64 * 10 / 1_048_576, of as u64 * 10 / 1_048_576);
        Progress {
            kind: JobKind::TraceRead,
            fraction: read as f64 / of.max(1) as f64,
            reached: t!(
                lang,
                "{}.{} of {}.{} MB, {} lines",
                a / 10,
                a % 10,
                b / 10,
                b % 10,
                fmt_count(self.n)
            ),
            events: 0,
            events_per_s: 0.0,
            virtual_per_s: 0.0,
            left_ms: None,
            announced: None,
            stopped: false,
        }
    }

    /// The worker's answer for check `id`, come before the reading ended: kept for the view, or
    /// (a line the checker refused) the file refused at once.
    pub fn answered(
        &mut self,
        id: u32,
        answer: Result<String, String>,
        lang: Lang,
    ) -> Result<(), String> {
        if id != self.id {
            return Ok(());
        }
        if let Some(Ok(Checked::Refused(e))) = answer.as_deref().ok().map(Checked::from_json) {
            return Err(refused(&e, lang));
        }
        self.answer = Some(answer);
        Ok(())
    }

    /// The whole file read: the trace to show (with the worker's answer if it came), or why it
    /// is refused (in `lang`).
    pub fn finish(self, lang: Lang) -> Result<TraceView, String> {
        let lines = self.lines;
        if lines.is_empty() {
            return Err(t!(lang, "That trace file was refused: it has no events.").into());
        }
        let at = lines.len();
        let mut nodes: Vec<usize> = lines
            .iter()
            .filter_map(|l| match &l.kind {
                Kind::Role { node, .. } | Kind::Apply { node, .. } | Kind::Restart { node } => {
                    Some(*node)
                }
                _ => None,
            })
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        nodes.shrink_to_fit();
        let mut v = TraceView {
            name: self.name,
            nodes,
            lines,
            check: TraceCheck::Running(self.id),
            at,
        };
        if let Some(answer) = self.answer {
            v.checked(self.id, answer, lang)?;
        }
        Ok(v)
    }
}

impl TraceView {
    /// Read a whole trace at once (the tests; the page reads in slices); a file that is not a
    /// trace is refused with its line. Its check is `Running(check)` until
    /// [`TraceView::checked`] gives the worker's answer.
    #[cfg(test)]
    pub fn open(name: &str, text: &str, check: u32, lang: Lang) -> Result<TraceView, String> {
        let mut r = Reading::new(name, text.to_string(), check, lang)?;
        while !r.read(usize::MAX, lang)? {}
        r.finish(lang)
    }

    /// The worker's answer for check number `id` (its JSON, or why it could not check): the
    /// report, or the line the checker refused (then the trace is refused: `Err` with the
    /// message). An answer for another check changes nothing.
    pub fn checked(
        &mut self,
        id: u32,
        answer: Result<String, String>,
        lang: Lang,
    ) -> Result<(), String> {
        if self.check != TraceCheck::Running(id) {
            return Ok(());
        }
        match answer.and_then(|json| Checked::from_json(&json)) {
            Ok(Checked::Report(r)) => self.check = TraceCheck::Done(r),
            Ok(Checked::Refused(e)) => return Err(refused(&e, lang)),
            Err(e) => self.check = TraceCheck::Failed(e),
        }
        Ok(())
    }

    /// The checker's report, once the worker has answered.
    pub fn report(&self) -> Option<&Report> {
        match &self.check {
            TraceCheck::Done(r) => Some(r),
            _ => None,
        }
    }

    /// What the checker found (none until it has answered).
    pub fn findings(&self) -> &[Finding] {
        self.report().map_or(&[], |r| &r.findings)
    }

    /// The nodes the trace names, in order.
    pub fn nodes(&self) -> &[usize] {
        &self.nodes
    }

    /// Every node as of the line reached.
    pub fn state(&self) -> BTreeMap<usize, TraceNode> {
        let mut out: BTreeMap<usize, TraceNode> = self
            .nodes
            .iter()
            .map(|&n| (n, TraceNode::default()))
            .collect();
        for l in &self.lines[..self.at] {
            match &l.kind {
                Kind::Role { node, role, term } => {
                    let st = out.entry(*node).or_default();
                    st.role = role.clone();
                    st.term = *term;
                }
                Kind::Restart { node } => {
                    let st = out.entry(*node).or_default();
                    st.locks.clear();
                    st.role = "follower".into();
                }
                Kind::Apply {
                    node,
                    index,
                    key,
                    client,
                    cmd,
                    result,
                    token,
                    deletes,
                    ..
                } => {
                    let st = out.entry(*node).or_default();
                    if let (Some(k), Some(t)) = (key, token) {
                        st.locks
                            .insert(k.clone(), (client.clone().unwrap_or_default(), *t));
                    } else if let (Some(k), true) = (key, deletes) {
                        st.locks.remove(k);
                    }
                    st.applies.push((l.n, *index, cmd.clone(), result.clone()));
                    if st.applies.len() > APPLIES_SHOWN {
                        st.applies.remove(0);
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The storage's writes up to the line reached, latest first (at most `n`).
    pub fn writes(&self, n: usize) -> Vec<&Line> {
        self.lines[..self.at]
            .iter()
            .rev()
            .filter(|l| matches!(l.kind, Kind::Write { .. }))
            .take(n)
            .collect()
    }

    /// The line reached (its number in the file) and its time.
    pub fn reached(&self) -> Option<&Line> {
        self.at.checked_sub(1).map(|i| &self.lines[i])
    }

    /// Go to just after the line numbered `n` in the file.
    pub fn go_to_line(&mut self, n: u64) {
        self.at = self.lines.partition_point(|l| l.n <= n);
    }

    /// What `window.raftlock.trace()` returns: {name, lines, at, line (the file's line reached),
    /// check (running, done or failed: the worker's check), ok (null until done), findings:
    /// [{line, rule}], notChecked, nodes: {n: {role, term, locks: {key: [holder, token]}}}}.
    pub fn summary(&self) -> serde_json::Value {
        let nodes: serde_json::Map<String, serde_json::Value> = self
            .state()
            .into_iter()
            .map(|(n, st)| {
                let st = serde_json::json!({ "role": st.role, "term": st.term, "locks": st.locks });
                (n.to_string(), st)
            })
            .collect();
        serde_json::json!({
            "name": self.name, "lines": self.lines.len(), "at": self.at, "line": self.reached().map(|l| l.n),
            "check": match &self.check { TraceCheck::Running(_) => "running", TraceCheck::Done(_) => "done", TraceCheck::Failed(_) => "failed" },
            "ok": self.report().map(Report::ok), "notChecked": self.report().map_or(&[][..], |r| &r.not_checked).iter().map(|m| &m.en).collect::<Vec<_>>(),
            "findings": self.findings().iter().map(|f| serde_json::json!({ "line": f.line, "rule": f.rule.name() })).collect::<Vec<_>>(),
            "nodes": nodes,
        })
    }

    /// The findings at or before the line reached.
    pub fn findings_so_far(&self) -> impl Iterator<Item = &Finding> {
        let last = self.reached().map_or(0, |l| l.n);
        self.findings().iter().filter(move |f| f.line <= last)
    }
}

/// What a node applied at an index, for the log grid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GridCell {
    /// The line that says so.
    pub line: u64,
    pub term: u64,
    pub cmd: String,
    pub result: String,
    /// Another node applied something else at this index (an entry that differs).
    pub differs: bool,
}

/// The replicated log as the trace shows it (applies only): the latest `cols` indices applied
/// by the line reached, one row per index, one column per node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogGrid {
    pub nodes: Vec<usize>,
    pub indices: Vec<u64>,
    /// `cells[row][column]`: None where that node had not applied that index.
    pub cells: Vec<Vec<Option<GridCell>>>,
}

/// A mark on the trace's space-time diagram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    pub lane: usize,
    /// Where on the axis: true time in µs, or the line's number when the trace has no times.
    pub at: u64,
    pub line: u64,
    /// role, grant, release, expire, noop, restart, accepted, rejected, finding.
    pub class: &'static str,
    pub label: String,
}

/// The space-time diagram of the lines before the one reached: a lane per node and one for the
/// storage, over the last `window` of true time (or of lines, in a trace without times).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagram {
    pub lanes: Vec<String>,
    pub from: u64,
    pub to: u64,
    /// The axis counts lines, not microseconds.
    pub by_line: bool,
    pub marks: Vec<Mark>,
}

/// The marks a diagram draws at most (the newest).
pub const DIAGRAM_MARKS: usize = 800;

impl TraceView {
    /// The log grid of the latest `cols` indices applied by the line reached.
    pub fn log_grid(&self, cols: usize) -> LogGrid {
        let nodes = self.nodes.clone();
        let seen = &self.lines[..self.at];
        let last = seen
            .iter()
            .filter_map(|l| match &l.kind {
                Kind::Apply { index, .. } => Some(*index),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let first = last.saturating_sub(cols.max(1) as u64 - 1).max(1);
        let indices: Vec<u64> = if last == 0 {
            Vec::new()
        } else {
            (first..=last).collect()
        };
        let mut cells = vec![vec![None; nodes.len()]; indices.len()];
        for l in seen {
            if let Kind::Apply {
                node,
                index,
                term,
                cmd,
                result,
                ..
            } = &l.kind
            {
                let (Some(col), true) = (
                    nodes.iter().position(|n| n == node),
                    *index >= first && *index <= last,
                ) else {
                    continue;
                };
                cells[(*index - first) as usize][col] = Some(GridCell {
                    line: l.n,
                    term: *term,
                    cmd: cmd.clone(),
                    result: result.clone(),
                    differs: false,
                });
            }
        }
        for row in &mut cells {
            let mut kinds = row
                .iter()
                .flatten()
                .map(|c| (c.term, c.cmd.clone()))
                .collect::<Vec<_>>();
            kinds.sort();
            kinds.dedup();
            if kinds.len() > 1 {
                row.iter_mut().flatten().for_each(|c| c.differs = true);
            }
        }
        LogGrid {
            nodes,
            indices,
            cells,
        }
    }

    /// The space-time diagram up to the line reached: `window_us` of true time, or the last
    /// `window_lines` lines when the trace carries no times. The checker's findings in it are
    /// marks of their own (class `finding`).
    pub fn diagram(&self, window_us: u64, window_lines: u64, lang: Lang) -> Diagram {
        let nodes = &self.nodes;
        let mut lanes: Vec<String> = nodes.iter().map(|n| format!("n{n}")).collect();
        lanes.push(t!(lang, "storage").into());
        lanes.push(t!(lang, "clients").into());
        let (storage, clients) = (nodes.len(), nodes.len() + 1);
        let seen = &self.lines[..self.at];
        // The axis is time when the trace has times (the last line reached that has one).
        let timed = seen.iter().rev().find_map(|l| l.t_us);
        let by_line = timed.is_none();
        let to = timed.unwrap_or_else(|| seen.last().map_or(0, |l| l.n));
        let from = to.saturating_sub(if by_line { window_lines } else { window_us });
        let lane_of = |node: &usize| nodes.iter().position(|n| n == node).unwrap_or(0);
        let mut marks = Vec::new();
        for l in seen.iter().rev() {
            let at = if by_line { Some(l.n) } else { l.t_us };
            let Some(at) = at else { continue };
            if at < from || marks.len() >= DIAGRAM_MARKS {
                break;
            }
            let (lane, class, label) = match &l.kind {
                Kind::Role { node, role, term } => (lane_of(node), "role", {
                    let role = crate::lang::role_word(role, lang);
                    t!(lang, "n{node} becomes {role} in term {term}")
                }),
                Kind::Apply {
                    node,
                    index,
                    op,
                    cmd,
                    result,
                    ..
                } => (
                    lane_of(node),
                    *op,
                    t!(lang, "n{node} applies {index}: {cmd} → {result}"),
                ),
                Kind::Restart { node } => (lane_of(node), "restart", t!(lang, "n{node} restarts")),
                Kind::Write {
                    client,
                    key,
                    token,
                    accepted,
                } => (
                    storage,
                    if *accepted { "accepted" } else { "rejected" },
                    if *accepted {
                        t!(lang, "{client} writes {key} with token {token}: accepted")
                    } else {
                        t!(lang, "{client} writes {key} with token {token}: rejected")
                    },
                ),
                Kind::Client {
                    client,
                    op,
                    key,
                    outcome,
                    token,
                } => (
                    clients,
                    if outcome.starts_with("granted") {
                        "granted"
                    } else {
                        "client"
                    },
                    {
                        let op = super::text::client_word(op, lang);
                        let outcome = match token {
                            Some(t) => t!(
                                lang,
                                "{outcome} (token {t})",
                                outcome = super::text::client_word(outcome, lang)
                            ),
                            None => super::text::client_word(outcome, lang),
                        };
                        t!(lang, "{client} {op} {key}: {outcome}")
                    },
                ),
                Kind::Other(_) => continue,
            };
            marks.push(Mark {
                lane,
                at,
                line: l.n,
                class,
                label,
            });
        }
        marks.reverse();
        // Each finding in the window, on the lane of its line.
        for f in self.findings_so_far() {
            let Some(m) = marks.iter().find(|m| m.line == f.line) else {
                continue;
            };
            marks.push(Mark {
                lane: m.lane,
                at: m.at,
                line: f.line,
                class: "finding",
                label: t!(
                    lang,
                    "line {}: {} — {}",
                    f.line,
                    f.rule.name(),
                    f.rule.words(lang)
                ),
            });
        }
        Diagram {
            lanes,
            from,
            to,
            by_line,
            marks,
        }
    }

    /// Each finding's place along the whole trace (0..1, by line), for marks on the scrubber.
    pub fn finding_marks(&self) -> Vec<(f64, u64, &'static str)> {
        let len = self.lines.len().max(1) as f64;
        self.findings()
            .iter()
            .map(|f| {
                let i = self.lines.partition_point(|l| l.n < f.line);
                (i as f64 / len, f.line, f.rule.name())
            })
            .collect()
    }
}

/// A trace file opened read-only (*Open a trace*), shown instead of the run while open; or one
/// being read, in slices as a job, shown once read.
#[derive(Default)]
pub struct Traces {
    pub open: Option<TraceView>,
    pub reading: Option<Reading>,
    /// The traces opened so far: the number of the latest one's check.
    pub checks: u32,
}

impl Traces {
    /// Read the trace file on in slices for `budget_ms` of `clock` from `t0`. Returns None
    /// while reading goes on (or nothing is read); once read, it is open (Ok), or refused with
    /// why (its check in the worker must then stop).
    pub fn read_on(
        &mut self,
        clock: &dyn Fn() -> f64,
        t0: f64,
        budget_ms: f64,
        lang: Lang,
    ) -> Option<Result<(), String>> {
        let read = self.reading.as_mut()?.read_for(clock, t0, budget_ms, lang);
        if read == Ok(false) {
            return None;
        }
        let r = self.reading.take()?;
        Some(
            read.and_then(|_| r.finish(lang))
                .map(|v| self.open = Some(v)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Open a trace and check it as the worker does (the same code, natively).
    fn opened(name: &str, text: &str) -> Result<TraceView, String> {
        let mut v = TraceView::open(name, text, 1, Lang::En)?;
        let answer = Ok(Checked::of_text_json(text));
        v.checked(1, answer, Lang::En)?;
        assert!(matches!(v.check, TraceCheck::Done(_)));
        Ok(v)
    }

    fn gc_pause_trace() -> String {
        let sc = crate::scenario::builtin::get("gc-pause").unwrap();
        let mut w = crate::sim::World::new(&sc, true).unwrap();
        w.run_until(sc.until_ms * 1000);
        w.trace.to_jsonl()
    }

    #[test]
    fn a_trace_read_in_slices_numbers_its_lines_as_str_lines_does() {
        // CRLF endings, a blank line and no final newline: the same lines, the same numbers.
        let lf = gc_pause_trace();
        let mut text = lf.replace('\n', "\r\n").replacen("\r\n", "\r\n\r\n", 3);
        text.truncate(text.len() - 2);
        let expected: Vec<(u64, Option<u64>)> = text
            .lines()
            .enumerate()
            .filter_map(|(i, l)| {
                parse_line(i as u64 + 1, l)
                    .unwrap()
                    .map(|v| (i as u64 + 1, v.t_us))
            })
            .collect();
        let mut r = Reading::new("crlf.jsonl", text.clone(), 1, Lang::En).unwrap();
        while !r.read(7, Lang::En).unwrap() {}
        let v = r.finish(Lang::En).unwrap();
        let got: Vec<_> = v.lines.iter().map(|l| (l.n, l.t_us)).collect();
        assert_eq!(got, expected);
        assert_eq!(v.lines.len(), lf.lines().count());
    }

    #[test]
    fn a_trace_opens_as_a_run_to_scrub_with_each_nodes_lock_table() {
        let mut v = opened("gc.jsonl", &gc_pause_trace()).unwrap();
        assert!(v.report().unwrap().ok());
        assert_eq!(v.nodes(), [1, 2, 3, 4, 5]);
        // The line where n1 applies A's Grant: n1 holds k for A with token 2.
        let n = v
            .lines
            .iter()
            .find(|l| {
                matches!(
                    &l.kind,
                    Kind::Apply {
                        node: 1,
                        token: Some(2),
                        ..
                    }
                )
            })
            .unwrap()
            .n;
        v.go_to_line(n);
        assert_eq!(v.reached().unwrap().n, n);
        let st = v.state();
        assert_eq!(st[&1].locks.get("k"), Some(&("A".to_string(), 2)));
        assert_eq!(st[&2].role, "leader");
        assert_eq!(st[&1].applies.last().unwrap().3, "Granted{2}");
        // At the end the Expire removed it and B's lock came and went.
        v.at = v.lines.len();
        assert!(v.state()[&1].locks.is_empty());
        assert_eq!(v.writes(8).len(), 2);
    }

    #[test]
    fn a_broken_trace_shows_its_findings_and_a_malformed_one_is_refused() {
        let text = gc_pause_trace().replacen(r#""accepted":false"#, r#""accepted":true"#, 1);
        let mut v = opened("bad.jsonl", &text).unwrap();
        let f = v.report().unwrap().findings[0].clone();
        assert_eq!(f.rule.name(), "storage_rejects_stale_tokens");
        v.go_to_line(1);
        assert_eq!(v.findings_so_far().count(), 0);
        v.go_to_line(f.line);
        assert_eq!(v.findings_so_far().count(), 1);
        let e = opened(
            "x",
            "{\"ev\":\"role\",\"node\":1,\"role\":\"leader\",\"term\":1}\nnope",
        )
        .err()
        .unwrap();
        assert!(e.contains("line 2"), "{e}");
        assert!(opened("x", "\n\n").is_err());
    }

    #[test]
    fn the_check_runs_in_the_worker_and_its_answer_comes_while_the_trace_is_shown() {
        let text = gc_pause_trace().replacen(r#""accepted":false"#, r#""accepted":true"#, 1);
        let mut v = TraceView::open("bad.jsonl", &text, 7, Lang::En).unwrap();
        // Readable at once; nothing found yet, and the API says it is running.
        assert_eq!(v.check, TraceCheck::Running(7));
        assert!(!v.state().is_empty() && v.findings().is_empty());
        assert_eq!(v.summary()["check"], "running");
        assert!(v.summary()["ok"].is_null());
        // An answer for another check (a trace since replaced) changes nothing.
        let answer = || Ok(Checked::of_text_json(&text));
        v.checked(6, answer(), Lang::En).unwrap();
        assert_eq!(v.check, TraceCheck::Running(7));
        v.checked(7, answer(), Lang::En).unwrap();
        assert!(matches!(v.check, TraceCheck::Done(_)));
        assert_eq!(v.summary()["ok"], false);
        assert_eq!(
            v.report().unwrap().findings[0].rule.name(),
            "storage_rejects_stale_tokens"
        );
        // A second answer (none comes; if it did) is ignored too.
        v.checked(7, Err("late".into()), Lang::En).unwrap();
        assert!(matches!(v.check, TraceCheck::Done(_)));
    }

    #[test]
    fn a_line_the_checker_refuses_refuses_the_trace_and_a_failed_check_leaves_it_readable() {
        // Every line parses, but an apply without its node is not a trace event to the checker.
        let refused =
            "{\"ev\":\"role\",\"node\":1,\"role\":\"leader\",\"term\":1}\n{\"ev\":\"apply\"}\n";
        let mut v = TraceView::open("r.jsonl", refused, 1, Lang::En).unwrap();
        let e = v
            .checked(1, Ok(Checked::of_text_json(refused)), Lang::En)
            .unwrap_err();
        assert!(e.starts_with("That trace file was refused: line 2"), "{e}");
        // The worker could not start, or its answer is not a check: the trace stays, with why.
        for (answer, why) in [
            (
                Err("the worker could not start".to_string()),
                "the worker could not start",
            ),
            (Ok("{\"report\": 3}".to_string()), "invalid type"),
        ] {
            let mut v = TraceView::open("g.jsonl", &gc_pause_trace(), 2, Lang::En).unwrap();
            v.checked(2, answer, Lang::En).unwrap();
            assert!(
                matches!(&v.check, TraceCheck::Failed(e) if e.contains(why)),
                "{:?}",
                v.check
            );
            assert_eq!(v.summary()["check"], "failed");
            assert!(v.report().is_none() && v.findings().is_empty());
        }
    }

    #[test]
    fn the_trace_log_grid_shows_each_nodes_applies_and_marks_an_entry_that_differs() {
        let mut v = opened("gc.jsonl", &gc_pause_trace()).unwrap();
        let g = v.log_grid(8);
        assert_eq!(g.nodes, vec![1, 2, 3, 4, 5]);
        let last = *g.indices.last().unwrap();
        assert_eq!(
            g.indices,
            (last.saturating_sub(7).max(1)..=last).collect::<Vec<_>>()
        );
        assert!(
            g.cells.iter().flatten().flatten().all(|c| !c.differs),
            "a correct run agrees"
        );
        // Every running node applied the last index, with the same command.
        let row = g.cells.last().unwrap();
        assert!(row.iter().flatten().count() >= 3);
        // Before any apply: an empty grid.
        v.at = 0;
        assert!(v.log_grid(8).indices.is_empty());
        // A trace where n3 applied something else at an index: that row is marked.
        let text = gc_pause_trace();
        let (i, line) = text
            .lines()
            .enumerate()
            .find(|(_, l)| l.contains(r#""ev":"apply","node":3,"#) && l.contains(r#""op":"grant""#))
            .unwrap();
        let bad = line.replacen(r#""lease_ms":"#, r#""lease_ms":9"#, 1);
        let text: Vec<&str> = text.lines().collect();
        let mut edited = text.clone();
        edited[i] = &bad;
        let v = opened("bad.jsonl", &edited.join("\n")).unwrap();
        let g = v.log_grid(last as usize);
        let differs: Vec<_> = g
            .cells
            .iter()
            .flatten()
            .flatten()
            .filter(|c| c.differs)
            .collect();
        assert!(
            differs.iter().any(|c| c.line == i as u64 + 1),
            "n3's cell is marked"
        );
        assert!(!v.report().unwrap().ok(), "and the checker says so too");
    }

    #[test]
    fn the_trace_diagram_draws_the_window_before_the_line_reached_with_its_findings() {
        let text = gc_pause_trace().replacen(r#""accepted":false"#, r#""accepted":true"#, 1);
        let mut v = opened("bad.jsonl", &text).unwrap();
        let d = v.diagram(2_000_000, 200, Lang::En);
        assert!(!d.by_line);
        assert_eq!(
            d.lanes,
            ["n1", "n2", "n3", "n4", "n5", "storage", "clients"]
        );
        assert!(
            d.marks.iter().any(|m| m.class == "granted" && m.lane == 6),
            "the clients' lane"
        );
        assert_eq!(d.to - d.from, 2_000_000);
        assert!(d.marks.iter().all(|m| m.at >= d.from && m.at <= d.to));
        assert!(d.marks.iter().any(|m| m.class == "accepted" && m.lane == 5));
        let f = d
            .marks
            .iter()
            .find(|m| m.class == "finding")
            .expect("the finding is marked");
        assert_eq!(f.line, v.report().unwrap().findings[0].line);
        assert!(f.label.contains("storage_rejects_stale_tokens"));
        // Before the finding's line, no finding mark.
        v.go_to_line(v.report().unwrap().findings[0].line - 1);
        assert!(v
            .diagram(2_000_000, 200, Lang::En)
            .marks
            .iter()
            .all(|m| m.class != "finding"));
        // The scrubber's marks: one per finding, at its place along the file.
        let marks = v.finding_marks();
        assert_eq!(marks.len(), 1);
        assert!(marks[0].0 > 0.5 && marks[0].0 < 1.0, "{marks:?}");
        // A finding of the clients' history sits on a client line: marked on the clients' lane.
        let history = [
            r#"{"t_us":100,"ev":"role","node":1,"role":"leader","term":1}"#,
            r#"{"t_us":900000,"ev":"apply","node":1,"index":1,"term":1,"cmd":{"op":"grant","key":"k","lease_ms":1000,"client":"A"},"result":{"r":"granted","token":1}}"#,
            r#"{"t_us":1000000,"ev":"client","client":"A","op":"acquire","key":"k","outcome":"granted","token":1,"invoked_us":800000}"#,
            r#"{"t_us":1200000,"ev":"client","client":"B","op":"acquire","key":"k","outcome":"granted","token":2,"invoked_us":1050000}"#,
        ]
        .join("\n");
        let v = opened("h.jsonl", &history).unwrap();
        let d = v.diagram(2_000_000, 200, Lang::En);
        let f = d
            .marks
            .iter()
            .find(|m| m.class == "finding")
            .expect("marked");
        assert_eq!((f.line, f.lane), (4, 2), "B's line, on the clients' lane");
        // A trace without times: the axis counts lines.
        let untimed: String = gc_pause_trace()
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                let mut v = v.as_object().unwrap().clone();
                v.remove("t_us");
                serde_json::Value::Object(v).to_string() + "\n"
            })
            .collect();
        let v = opened("untimed.jsonl", &untimed).unwrap();
        let d = v.diagram(2_000_000, 10, Lang::En);
        assert!(d.by_line);
        assert!(!d.marks.is_empty());
        assert_eq!(d.to, v.lines.last().unwrap().n);
        assert!(d.marks.iter().all(|m| m.at + 10 >= d.to));
    }
}
