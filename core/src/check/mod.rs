//! One function per invariant. Each returns named violations with a readable detail; the world
//! runs them after every event (in tests, debug builds and the UI) and records violations in the
//! trace as `{"ev":"violation","invariant":NAME,...}`.
//!
//! Raft (paper Figure 3): `election_safety`, `leader_append_only`, `log_matching`,
//! `leader_completeness`, `state_machine_safety`.
//! Lock service: `lock_tables_agree`, `tokens_strictly_increase`, `expire_deletes_only_on_token_match`,
//! `release_deletes_only_held_lock`, `storage_accepts_stale_token`.

pub mod history;
mod invariant;
mod membership;
pub mod trace;

pub use invariant::Invariant;

use crate::lang::{both, tb, Lang};
use crate::lock::{ApplyResult, LockCommand, LockMachine, LockOp};
use crate::raft::{Body, Index, NodeId, Role, Term};
use crate::sim::{BrokenInvariant, Observer, World};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub invariant: Invariant,
    pub detail: crate::lang::Text,
}

/// A violation of `invariant`, with what was seen.
fn violation(invariant: Invariant, detail: crate::lang::Text) -> Violation {
    Violation { invariant, detail }
}

/// A lasting state's finding, reported once: its English (the key of `reported`) is made each
/// time the state holds, its Russian only when the finding is new. `detail`'s texts are `tb!`
/// (their Russian built in): the page's build may not have its Russian texts yet.
fn report_once(
    c: &mut Checker,
    out: &mut Vec<Violation>,
    invariant: Invariant,
    detail: impl Fn(Lang) -> String,
) {
    let en = detail(Lang::En);
    if !c.reported.contains(&en) {
        let ru = detail(Lang::Ru);
        c.reported.insert(en.clone());
        out.push(violation(invariant, crate::lang::Text::new(en, ru)));
    }
}

/// History the invariants need beyond the present state.
#[derive(Clone, Debug)]
pub struct Checker {
    rules: crate::lock::machine::ApplyRules,
    /// The leader seen for each term.
    leaders: BTreeMap<Term, NodeId>,
    /// Per node, while it leads: (term, last index, prefix hash there) at the last check.
    leader_marks: Vec<Option<(Term, Index, u64)>>,
    /// Per node while it leads: (term, commit index) at the last check (`learner_never_counts`).
    commit_marks: membership::CommitMarks,
    /// For each term, the highest (index, prefix hash) known committed in it.
    committed: BTreeMap<Term, (Index, u64)>,
    /// The reference state machine, fed by the first node to apply each index.
    reference: LockMachine,
    /// Per index from `reference_from + 1`: the command's digest and the table's digest after
    /// it. Indexes no node can apply again (below every node's snapshot) are let go.
    reference_cmds: crate::chunked::Chunked<u64>,
    /// Per index, as `reference_cmds`: the term of the entry first applied there.
    reference_terms: crate::chunked::Chunked<Term>,
    reference_digests: crate::chunked::Chunked<u64>,
    reference_from: Index,
    pub pending: Vec<Violation>,
    pub violations: Vec<(u64, Violation)>,
    /// Ghost locks detected: (key, token, detecting node, its term, deadline in true µs).
    pub ghosts: Vec<(String, u64, NodeId, Term, u64)>,
    /// Details already reported by the checks that look at a lasting state (reported once).
    reported: std::collections::BTreeSet<String>,
    /// How many violations each invariant has had (kept by the world as it records them; the
    /// UI shows an invariant with any red).
    pub broken: BTreeMap<Invariant, u64>,
    /// `heard[l][p]`: when (true µs) `p` sent the latest AppendEntries reply that node `l` took
    /// in. The send time, not the arrival: a reply that waited in a paused leader's queue says
    /// nothing about the follower now.
    pub heard: Vec<Vec<u64>>,
    /// Per node while it leads: (term, true µs since when it leads or last woke from a pause).
    leading: Vec<Option<(Term, u64)>>,
    /// Per leader: since when (true µs) a majority has answered it without a gap of more than
    /// [`HEALTHY_WINDOW_US`] at any check.
    healthy_since: Vec<Option<u64>>,
    /// When (true µs) the first candidate for each term appeared.
    candidacy: BTreeMap<Term, u64>,
    /// Per node: up and not paused at the last check; and when some node last woke (resumed or
    /// restarted), in true µs.
    awake: Vec<bool>,
    /// Per node: the configuration it last used and since when (a leader's majority is that of
    /// its configuration: a change starts its count of what it heard afresh).
    confs: Vec<(crate::raft::Membership, u64)>,
    last_wake_us: Option<u64>,
    /// What the Raft checks read of each node, at their last run, and what they found then:
    /// while no node's mark changes, they would find the same again (see [`check_all`]).
    marks: Vec<NodeMark>,
    election_found: Vec<Violation>,
    /// Per pair of nodes (a × n + b, a < b): what the pairwise log checks found at the last
    /// change of either node's mark.
    log_matching_found: Vec<Option<Violation>>,
    sms_found: Vec<Option<Violation>>,
    changed: Vec<bool>,
    /// The world's `belief_epoch` when `one_believed_holder` last found no key believed held
    /// by two clients: until it moves, beliefs only lapse, and there is nothing to check.
    believed_alone_at: Option<u64>,
    /// Check incrementally (see [`check_all`]); off, every check reads the whole state at
    /// every event, as tests compare.
    pub incremental: bool,
    /// Scratch space reused at every event (no allocation per check).
    scratch: Vec<u64>,
}

/// Everything the five Raft checks read of one node: its role, term and commit index, and its
/// log through the start, the last index and the prefix hash there (which covers every entry).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct NodeMark {
    up: bool,
    role: Option<Role>,
    term: Term,
    commit: Index,
    start: Index,
    last: Index,
    last_hash: u64,
}

impl NodeMark {
    fn of(slot: &crate::sim::world::NodeSlot) -> NodeMark {
        match (slot.server(), slot.persisted()) {
            (Some(s), _) => NodeMark::with_log(
                s.raft.log(),
                true,
                Some(s.raft.role()),
                s.raft.term(),
                s.raft.commit_index(),
            ),
            (None, Some(hs)) => NodeMark::with_log(&hs.log, false, None, 0, 0),
            _ => NodeMark::default(),
        }
    }

    fn with_log(
        log: &crate::raft::Log<LockCommand>,
        up: bool,
        role: Option<Role>,
        term: Term,
        commit: Index,
    ) -> NodeMark {
        NodeMark {
            up,
            role,
            term,
            commit,
            start: log.start(),
            last: log.last_index(),
            last_hash: log.prefix_hash(log.last_index()).unwrap_or(0),
        }
    }
}

/// Every invariant, in the order the page lists them.
pub const INVARIANTS: [Invariant; 16] = Invariant::ALL;

/// Whether `inv` is being checked in this run (see [`Invariant::clock_bound`]). The checks
/// themselves ask this, so one place decides; while clocks run true it costs one flag read.
pub fn is_checked(w: &World, inv: Invariant) -> bool {
    unchecked_why(w, inv).is_none()
}

/// Why `inv` is not checked in this run, in words; `None` while it is.
pub fn unchecked_why(w: &World, inv: Invariant) -> Option<crate::lang::Text> {
    if !inv.clock_bound() {
        None
    } else if w.server_clocks_disturbed {
        Some(both!("server clocks drifted or jumped"))
    } else if w.client_clock_jumped_back && inv == Invariant::OneBelievedHolder {
        Some(both!("a client's clock jumped back"))
    } else {
        None
    }
}

/// The invariants this run does not check (empty while every server clock runs true).
pub fn unchecked(w: &World) -> Vec<Invariant> {
    Invariant::ALL
        .into_iter()
        .filter(|&i| !is_checked(w, i))
        .collect()
}

impl Checker {
    /// `rules`: the apply rules of the design under test (a switch may change them); the
    /// reference machine applies with the same rules, so only the named invariant turns red.
    pub fn new(n: usize, rules: crate::lock::machine::ApplyRules) -> Self {
        Checker {
            rules,
            leaders: BTreeMap::new(),
            leader_marks: vec![None; n],
            commit_marks: vec![None; n],
            committed: BTreeMap::new(),
            reference: LockMachine::default(),
            reference_cmds: Default::default(),
            reference_terms: Default::default(),
            reference_digests: Default::default(),
            reference_from: 0,
            pending: Vec::new(),
            violations: Vec::new(),
            broken: BTreeMap::new(),
            ghosts: Vec::new(),
            reported: Default::default(),
            heard: vec![vec![0; n]; n],
            leading: vec![None; n],
            healthy_since: vec![None; n],
            candidacy: BTreeMap::new(),
            awake: vec![true; n],
            confs: vec![Default::default(); n],
            last_wake_us: None,
            marks: Vec::new(),
            election_found: Vec::new(),
            log_matching_found: Vec::new(),
            sms_found: Vec::new(),
            changed: Vec::new(),
            believed_alone_at: None,
            incremental: true,
            scratch: Vec::with_capacity(n),
        }
    }

    pub fn on_restart(&mut self, i: NodeId) {
        self.leader_marks[i] = None;
    }

    /// Called when node `i` applied `index`; `digest` is its state's digest after the apply. Returns
    /// true when this is the first apply of that index anywhere (for counting).
    pub fn on_apply(
        &mut self,
        i: NodeId,
        index: Index,
        term: Term,
        body: Body<&LockCommand>,
        result: ApplyResult,
        digest_after: u64,
    ) -> bool {
        // A no-op's digest stays 0 here, as before configuration entries.
        let digest = match body {
            Body::Noop => 0,
            _ => body.digest(),
        };
        let cmd = body.cmd();
        let known = self.reference_from + self.reference_digests.len() as Index;
        let first = index > known;
        if first {
            if index != known + 1 {
                self.pending.push(violation(
                    Invariant::StateMachineSafety,
                    both!("n{} applied index {index} out of order", i + 1),
                ));
                return false;
            }
            self.check_apply_semantics(i, index, cmd, result);
            let r = self.reference.apply_with(index, cmd, self.rules);
            if r != result {
                self.pending.push(violation(
                    Invariant::LockTablesAgree,
                    both!("n{} applied index {index} with result {result:?}, the reference gives {r:?}", i + 1),
                ));
            }
            self.reference_cmds.push(digest);
            self.reference_terms.push(term);
            self.reference_digests.push(self.reference.digest());
        }
        if index <= self.reference_from {
            // Below every snapshot: no node can apply it again (see `forget_before`).
            return first;
        }
        let k = (index - self.reference_from) as usize - 1;
        if self.reference_cmds.get(k) != Some(&digest) {
            self.pending.push(violation(
                Invariant::StateMachineSafety,
                both!(
                    "n{} applied a different command at index {index} than another node did",
                    i + 1
                ),
            ));
        } else if self.reference_digests.get(k) != Some(&digest_after) {
            self.pending.push(violation(
                Invariant::LockTablesAgree,
                both!("n{}'s lock table after index {index} differs from another node's at the same index", i + 1),
            ));
        }
        first
    }

    /// The entry the cluster committed at `index`, as (term, command digest; 0 for a no-op): the
    /// first one any node applied there. `None` when no node has applied `index` yet, or it
    /// lies below every node's snapshot. A restarted node forgets its commit index; this does not.
    pub fn committed_entry(&self, index: Index) -> Option<(Term, u64)> {
        let k = (index.checked_sub(self.reference_from + 1)?) as usize;
        Some((*self.reference_terms.get(k)?, *self.reference_cmds.get(k)?))
    }

    /// The reference digest of the lock table after `index`, if still kept.
    fn reference_digest(&self, index: Index) -> Option<u64> {
        if index <= self.reference_from {
            return None;
        }
        self.reference_digests
            .get((index - self.reference_from) as usize - 1)
            .copied()
    }

    /// Let go of the reference before `index`: every node (up or crashed) restarts from a
    /// snapshot at or after it. In steps of a few thousand, so it costs nothing per event.
    fn forget_before(&mut self, index: Index) {
        if index > self.reference_from + 4096 {
            let n = (index - 1 - self.reference_from) as usize;
            self.reference_cmds.drop_first(n);
            self.reference_terms.drop_first(n);
            self.reference_digests.drop_first(n);
            self.reference_from = index - 1;
        }
    }

    /// The seed's rules for what an apply may delete and issue, checked against the state
    /// before the apply.
    fn check_apply_semantics(
        &mut self,
        i: NodeId,
        index: Index,
        cmd: Option<&LockCommand>,
        result: ApplyResult,
    ) {
        let Some(cmd) = cmd else { return };
        let before = self.reference.locks.get(cmd.op.key());
        match (&cmd.op, result) {
            (LockOp::Grant { .. }, ApplyResult::Granted { token })
                if token <= self.reference.max_token =>
            {
                self.pending.push(violation(
                    Invariant::TokensStrictlyIncrease,
                    both!(
                        "n{} issued token {token} at index {index}; token {} was issued before",
                        i + 1,
                        self.reference.max_token
                    ),
                ));
            }
            (LockOp::Expire { key, token }, ApplyResult::Expired { existed: true })
                if before.is_none_or(|l| l.token != *token) =>
            {
                self.pending.push(violation(
                    Invariant::ExpireDeletesOnlyOnTokenMatch,
                    match before {
                        Some(l) => both!(
                            "Expire{{{key}, {token}}} at index {index} deleted the lock with token {}",
                            l.token
                        ),
                        None => both!(
                            "Expire{{{key}, {token}}} at index {index} deleted the lock with token none"
                        ),
                    },
                ));
            }
            (LockOp::Release { key, token }, ApplyResult::Released) => {
                let other_holder =
                    cmd.client.is_some() && before.is_some_and(|l| l.holder != cmd.client);
                if before.is_none()
                    || token.is_some_and(|t| before.is_some_and(|l| l.token != t))
                    || other_holder
                {
                    self.pending.push(violation(
                        Invariant::ReleaseDeletesOnlyHeldLock,
                        both!(
                            "Release{{{key}}} at index {index} from client #{} deleted a lock held by client #{} (token {})",
                            cmd.client.map_or(-1, |c| c as i64),
                            before.and_then(|l| l.holder).map_or(-1, |c| c as i64),
                            before.map_or(0, |l| l.token)
                        ),
                    ));
                }
            }
            _ => {}
        }
    }
}

/// Run every state invariant on the world as it is now.
///
/// Incrementally: the five Raft checks read only each node's [`NodeMark`]. While no mark changed
/// since their last run (most events: a heartbeat, a client's request, a timer), they would
/// find exactly what they found then: that is reported again, and the checks whose findings
/// are reported once (`leader_append_only`, `leader_completeness`) have nothing new. The
/// pairwise log checks run again only for the pairs with a changed node.
pub fn check_all(c: &mut Checker, w: &World) -> Vec<Violation> {
    let mut out = Vec::new();
    if !c.incremental {
        c.marks.clear();
        c.believed_alone_at = None;
    }
    // Which nodes' marks changed since the last run (all of them at the first).
    let mut changed = std::mem::take(&mut c.changed);
    changed.clear();
    changed.resize(w.node_count, true);
    if c.marks.len() != w.node_count {
        c.marks = w.nodes.iter().map(NodeMark::of).collect();
    } else {
        for (i, slot) in w.nodes.iter().enumerate() {
            let m = NodeMark::of(slot);
            changed[i] = m != c.marks[i];
            c.marks[i] = m;
        }
    }
    // The logs, read once for both pairwise checks, only when some node changed.
    let logs: Option<Vec<_>> = changed
        .contains(&true)
        .then(|| (0..w.node_count).map(|i| log_of(w, i)).collect());
    if logs.is_some() {
        let mut found = Vec::new();
        election_safety(c, w, &mut found);
        c.election_found = found;
    }
    out.extend(c.election_found.iter().cloned());
    if logs.is_some() {
        leader_append_only(c, w, &mut out);
    }
    let logs = logs.as_deref();
    pairwise(
        logs,
        &changed,
        &mut c.log_matching_found,
        &mut out,
        log_matching,
    );
    if logs.is_some() {
        leader_completeness(c, w, &mut out);
        membership::one_uncommitted_config_change(c, w, &mut out);
        membership::learner_never_counts(c, w, &mut out);
    }
    pairwise(
        logs,
        &changed,
        &mut c.sms_found,
        &mut out,
        state_machine_safety,
    );
    c.changed = changed;
    lock_tables_agree(c, w, &mut out);
    ghost_lock_released(c, w, &mut out);
    one_believed_holder(c, w, &mut out);
    leader_liveness(c, w, &mut out);
    out
}

impl Checker {
    /// Keep the account of what broke at `now_us`, and hand it to the world for the trace.
    fn record(&mut self, now_us: u64, vs: Vec<Violation>) -> Vec<BrokenInvariant> {
        vs.into_iter()
            .map(|v| {
                *self.broken.entry(v.invariant).or_insert(0) += 1;
                let f = BrokenInvariant {
                    invariant: v.invariant.name(),
                    detail: v.detail.en.clone(),
                };
                self.violations.push((now_us, v));
                f
            })
            .collect()
    }
}

/// The checks watch the world: it tells them what happened and runs them after every event.
impl Observer for Checker {
    fn clone_box(&self) -> Box<dyn Observer> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
    fn applied(
        &mut self,
        now_us: u64,
        node: NodeId,
        index: Index,
        term: Term,
        body: Body<&LockCommand>,
        result: ApplyResult,
        digest: u64,
    ) -> (bool, Vec<BrokenInvariant>) {
        let first = self.on_apply(node, index, term, body, result, digest);
        let pending = std::mem::take(&mut self.pending);
        (first, self.record(now_us, pending))
    }
    fn restarted(&mut self, node: NodeId) {
        self.on_restart(node);
    }
    fn heard(&mut self, leader: NodeId, from: NodeId, sent_us: u64) {
        self.heard[leader][from] = sent_us;
    }
    fn ghost_owed(&mut self, key: &str, token: u64, node: NodeId, term: Term, due_us: u64) {
        self.ghosts
            .push((key.to_string(), token, node, term, due_us));
    }
    fn woke(&mut self, node: NodeId, now_us: u64) {
        // A ghost this node must release: its second starts again now.
        let due = now_us + 1_000_000;
        for g in self.ghosts.iter_mut().filter(|g| g.2 == node) {
            g.4 = g.4.max(due);
        }
    }
    fn storage_write(
        &mut self,
        now_us: u64,
        key: &str,
        token: u64,
        before: u64,
        accepted: bool,
    ) -> Vec<BrokenInvariant> {
        let v = storage_accepts_stale_token(key, token, before, accepted);
        self.record(now_us, v.into_iter().collect())
    }
    fn after_event(&mut self, w: &World) -> Vec<BrokenInvariant> {
        let vs = check_all(self, w);
        self.record(w.now_us, vs)
    }
}

impl World {
    /// The checks this world was given (`World::new` gives them; a world built unchecked
    /// has none, and this panics).
    pub fn checker(&self) -> &Checker {
        self.observer
            .as_ref()
            .and_then(|o| o.as_any().downcast_ref::<Checker>())
            .expect("a world built by World::new is checked")
    }

    /// The checks, to change how they run (see [`World::checker`]).
    pub fn checker_mut(&mut self) -> &mut Checker {
        self.observer
            .as_mut()
            .and_then(|o| o.as_any_mut().downcast_mut::<Checker>())
            .expect("a world built by World::new is checked")
    }

    /// Every broken invariant so far, with its time.
    pub fn violations(&self) -> &[(u64, Violation)] {
        &self.checker().violations
    }
}

/// At most one leader per term (§5.2).
pub fn election_safety(c: &mut Checker, w: &World, out: &mut Vec<Violation>) {
    for i in 0..w.node_count {
        let Some(s) = w.nodes[i].server() else {
            continue;
        };
        if s.raft.role() != Role::Leader {
            continue;
        }
        let term = s.raft.term();
        match c.leaders.get(&term) {
            Some(&j) if j != i => out.push(violation(
                Invariant::ElectionSafety,
                both!("n{} and n{} both lead term {term}", j + 1, i + 1),
            )),
            Some(_) => {}
            None => {
                c.leaders.insert(term, i);
            }
        }
    }
}

/// A leader never overwrites or deletes entries in its log, only appends (§5.3).
pub fn leader_append_only(c: &mut Checker, w: &World, out: &mut Vec<Violation>) {
    for i in 0..w.node_count {
        let mark = match w.nodes[i].server() {
            Some(s) if s.raft.role() == Role::Leader => {
                let log = s.raft.log();
                let term = s.raft.term();
                if let Some((t, idx, h)) = c.leader_marks[i] {
                    // (Below a compacted start the log cannot tell; those entries were applied.)
                    let now_at = if idx < log.start() {
                        Some(h)
                    } else {
                        log.prefix_hash(idx)
                    };
                    if t == term && (log.last_index() < idx || now_at != Some(h)) {
                        out.push(violation(Invariant::LeaderAppendOnly, both!("leader n{} of term {term} changed its log at or before index {idx}", i + 1)));
                    }
                }
                Some((
                    term,
                    log.last_index(),
                    log.prefix_hash(log.last_index())
                        .expect("the last index is known"),
                ))
            }
            _ => None,
        };
        c.leader_marks[i] = mark;
    }
}

/// Node `i`'s log and commit index: a crashed node's persisted log, with nothing committed.
fn log_of(w: &World, i: NodeId) -> Option<LogView<'_>> {
    let slot = &w.nodes[i];
    let commit = slot.server().map_or(0, |s| s.raft.commit_index());
    slot.log().map(|log| (log, commit))
}

/// A node's log and commit index, as the pairwise checks read them.
type LogView<'a> = (&'a crate::raft::Log<LockCommand>, Index);

/// A check of two nodes' logs (`log_matching`, `state_machine_safety`).
type PairCheck = fn(NodeId, NodeId, LogView, LogView) -> Option<Violation>;

/// Run `check` on every pair of nodes a < b whose marks changed (`changed[a] || changed[b]`),
/// keeping each pair's finding in `found` (n × n); report the first pair's, in pair order.
/// `logs` is None when no node changed: every finding stands.
fn pairwise(
    logs: Option<&[Option<LogView>]>,
    changed: &[bool],
    found: &mut Vec<Option<Violation>>,
    out: &mut Vec<Violation>,
    check: PairCheck,
) {
    let n = changed.len();
    found.resize(n * n, None);
    if let Some(logs) = logs {
        for a in 0..n {
            for b in a + 1..n {
                if changed[a] || changed[b] {
                    found[a * n + b] = match (logs[a], logs[b]) {
                        (Some(la), Some(lb)) => check(a, b, la, lb),
                        _ => None,
                    };
                }
            }
        }
    }
    out.extend(found.iter().flatten().next().cloned());
}

/// If two logs hold an entry with the same index and term, they are identical up to it (§5.3).
/// Checked at each log's last index and commit index, through the prefix hashes, where both
/// logs still know them (not compacted).
pub fn log_matching(
    a: NodeId,
    b: NodeId,
    (la, ca): LogView,
    (lb, cb): LogView,
) -> Option<Violation> {
    for idx in [la.last_index(), lb.last_index(), ca, cb] {
        if idx == 0 || idx > la.last_index() || idx > lb.last_index() {
            continue;
        }
        let (Some(ta), Some(tb), Some(ha), Some(hb)) = (
            la.term(idx),
            lb.term(idx),
            la.prefix_hash(idx),
            lb.prefix_hash(idx),
        ) else {
            continue;
        };
        if ta == tb && ha != hb {
            return Some(violation(
                Invariant::LogMatching,
                both!(
                    "n{} and n{} agree on the term at index {idx} but not on the entries before it",
                    a + 1,
                    b + 1
                ),
            ));
        }
    }
    None
}

/// Every committed entry is in the log of every leader of a later term (§5.4). A leader that
/// compacted past that index holds it in its snapshot (compared at apply, `state_machine_safety`).
pub fn leader_completeness(c: &mut Checker, w: &World, out: &mut Vec<Violation>) {
    for i in 0..w.node_count {
        let Some(s) = w.nodes[i].server() else {
            continue;
        };
        let (commit, log) = (s.raft.commit_index(), s.raft.log());
        if commit > 0 {
            let term = s.raft.term();
            let e = c.committed.entry(term).or_insert((0, 0));
            // (Under the Figure 8 switch a follower's log can end below its commit index.)
            if let (true, Some(h)) = (commit > e.0, log.prefix_hash(commit)) {
                *e = (commit, h);
            }
        }
    }
    for i in 0..w.node_count {
        let Some(s) = w.nodes[i].server() else {
            continue;
        };
        if !s.raft.is_leader() {
            continue;
        }
        let term = s.raft.term();
        if let Some((&t, &(idx, h))) = c.committed.range(..term).next_back() {
            let log = s.raft.log();
            if log.last_index() < idx || (idx >= log.start() && log.prefix_hash(idx) != Some(h)) {
                // A lasting state: reported once per leader and term.
                report_once(c, out, Invariant::LeaderCompleteness, |lang| {
                    tb!(lang, "leader n{} of term {term} lacks entries up to index {idx} committed in term {t}", i + 1)
                });
            }
        }
    }
}

/// No two nodes ever hold different committed entries at the same index (§5.4.3). Compared at
/// the lower of the two commit indexes where both logs still know it; applies are compared one
/// by one against the reference in [`Checker::on_apply`].
pub fn state_machine_safety(
    a: NodeId,
    b: NodeId,
    (la, ca): LogView,
    (lb, cb): LogView,
) -> Option<Violation> {
    let idx = ca.min(cb);
    let (Some(ha), Some(hb)) = (la.prefix_hash(idx), lb.prefix_hash(idx)) else {
        return None;
    };
    (idx > 0 && ha != hb).then(|| {
        violation(
            Invariant::StateMachineSafety,
            both!(
                "n{} and n{} committed different entries at or before index {idx}",
                a + 1,
                b + 1
            ),
        )
    })
}

/// Between applies too: every node's lock table equals the reference table at the node's applied
/// index (a table changed outside the log, e.g. by a follower's own countdown, shows here).
pub fn lock_tables_agree(c: &mut Checker, w: &World, out: &mut Vec<Violation>) {
    let lowest_restart = w
        .nodes
        .iter()
        .map(|slot| slot.snapshot_index())
        .min()
        .unwrap_or(0);
    c.forget_before(lowest_restart);
    for i in 0..w.node_count {
        let Some(s) = w.nodes[i].server() else {
            continue;
        };
        let applied = s.machine.applied as usize;
        if applied == 0 {
            continue;
        }
        if let Some(want) = c.reference_digest(applied as Index) {
            if s.machine.digest() != want {
                report_once(c, out, Invariant::LockTablesAgree, |lang| {
                    tb!(lang, "n{}'s lock table at applied index {applied} differs from the other nodes' at that index", i + 1)
                });
            }
        }
    }
}

/// A lock whose Grant reply could not reach its client is released soon (the seed's ghost-lock
/// rule): checked one second after the leader learned it, while that node still leads in the
/// same term (a leader that lost office cannot be held to it). A paused leader can do nothing:
/// its second starts again when it wakes.
pub fn ghost_lock_released(c: &mut Checker, w: &World, out: &mut Vec<Violation>) {
    let now = w.now_us;
    // A paused leader's ghost stays owed; `woke` restarts its second.
    let is_due = |g: &(String, u64, NodeId, Term, u64)| g.4 <= now && !w.nodes[g.2].paused;
    let due: Vec<_> = c.ghosts.iter().filter(|g| is_due(g)).cloned().collect();
    if due.is_empty() {
        return;
    }
    c.ghosts.retain(|g| !is_due(g));
    for (key, token, node, term, _) in due {
        let Some(s) = w.nodes[node].server() else {
            continue;
        };
        if !s.raft.is_leader() || s.raft.term() != term {
            continue;
        }
        if s.machine
            .locks
            .get(key.as_str())
            .is_some_and(|l| l.token == token)
        {
            out.push(violation(
                Invariant::GhostLockReleased,
                both!("n{} could not tell the client it got {key} (token {token}), and the lock is still held 1 s later", node + 1),
            ));
        }
    }
}

/// At no moment do two clients believe they hold the same key (each by its own clock, with its
/// margin), as long as the servers' clocks run true: a lease is a promise about durations, and
/// the client's margin must cover its own clock's drift. Reported once per key and tokens.
pub fn one_believed_holder(c: &mut Checker, w: &World, out: &mut Vec<Violation>) {
    if !is_checked(w, Invariant::OneBelievedHolder) {
        return;
    }
    if c.believed_alone_at == Some(w.belief_epoch) {
        return;
    }
    let now = w.now_us;
    fn believed(
        cs: &crate::sim::world::ClientSlot,
        now: u64,
    ) -> impl Iterator<Item = (&String, &crate::client::Held)> {
        let local = cs.clock.local_at(now);
        cs.client
            .held
            .iter()
            .filter(move |(_, h)| h.until_local_us > local)
    }
    // First, cheaply: do two believers share a key's digest? (Nearly never: then no names.)
    c.scratch.clear();
    for cs in w.clients.iter().filter(|cs| !cs.crashed) {
        c.scratch
            .extend(believed(cs, now).map(|(k, _)| crate::lock::machine::digest_str(0, k)));
    }
    c.scratch.sort_unstable();
    if !c.scratch.windows(2).any(|d| d[0] == d[1]) {
        c.believed_alone_at = Some(w.belief_epoch);
        return;
    }
    c.believed_alone_at = None;
    let mut believers: BTreeMap<&str, Vec<(String, u64)>> = BTreeMap::new();
    for cs in w.clients.iter().filter(|cs| !cs.crashed) {
        for (k, h) in believed(cs, now) {
            believers
                .entry(k.as_str())
                .or_default()
                .push((cs.client.cfg.name.clone(), h.token));
        }
    }
    for (k, b) in believers {
        if b.len() > 1 {
            report_once(c, out, Invariant::OneBelievedHolder, |lang| {
                let who: Vec<String> = b
                    .iter()
                    .map(|(n, t)| tb!(lang, "{n} (token {t})"))
                    .collect();
                let who = who.join(tb!(lang, " and "));
                tb!(lang, "{who} all believe they hold {k}")
            });
        }
    }
}

/// How recently a majority must have answered a leader for it to count as healthy: under the
/// minimum election timeout, so a majority that legitimately elected someone else (each voter
/// had not heard the leader for a minimum election timeout when it granted its pre-vote, and
/// answered nothing after) cannot look healthy.
pub const HEALTHY_WINDOW_US: u64 = 100_000;

/// When node `i` last heard from a majority (itself included), counting only replies taken in
/// since `since`.
fn majority_heard_at(c: &mut Checker, w: &World, i: NodeId, since: u64) -> u64 {
    // The voters of the leader's own configuration (dissertation §4.1).
    let conf = w.nodes[i]
        .server()
        .map_or(crate::raft::Membership::first(w.node_count), |s| {
            s.raft.membership()
        });
    let times = &mut c.scratch;
    times.clear();
    times.extend(
        conf.voters()
            .filter(|&p| p != i)
            .map(|p| c.heard[i][p])
            .filter(|&t| t >= since),
    );
    times.sort_unstable_by(|a, b| b.cmp(a));
    // A majority of the voters, minus the leader itself while it is one.
    let others = conf.majority() - usize::from(conf.is_voter(i));
    if others == 0 {
        w.now_us
    } else {
        times.get(others - 1).copied().unwrap_or(since)
    }
}

/// Two liveness rules that pre-vote and check-quorum exist for, checked while the servers'
/// clocks run true (timeouts are durations on each machine's clock):
/// - `healthy_leader_not_deposed`: a leader that a majority has answered in its own term, with no
///   gap over 100 ms, for at least the last maximum election timeout does not lose office to a
///   term first campaigned for after that (a needless election, e.g. a rejoining node with an
///   inflated term), unless a node woke from a pause or crash within the last maximum election
///   timeout;
/// - `isolated_leader_steps_down`: a leader that has not heard from a majority for three maximum
///   election timeouts has stepped down (otherwise its clients wait on it forever).
pub fn leader_liveness(c: &mut Checker, w: &World, out: &mut Vec<Violation>) {
    let now = w.now_us;
    let limit = 3 * w.raft_cfg.election_timeout_max_us;
    // The nodes that woke at this event (n ≤ 7: one bit each).
    let mut woke: u8 = 0;
    for i in 0..w.node_count {
        let awake = w.nodes[i].server().is_some() && !w.nodes[i].paused;
        if awake && !c.awake[i] {
            c.last_wake_us = Some(now);
            woke |= 1 << i;
        }
        c.awake[i] = awake;
    }
    // A node that wakes has no leader lease yet and grants pre-votes at once, before the
    // leader's next heartbeat reaches it: an election right after is not one pre-vote prevents.
    let recent_wake = c
        .last_wake_us
        .is_some_and(|t| now - t < w.raft_cfg.election_timeout_max_us);
    for s in w.nodes.iter().filter_map(|x| x.server()) {
        if s.raft.role() == Role::Candidate {
            c.candidacy.entry(s.raft.term()).or_insert(now);
        }
    }
    for i in 0..w.node_count {
        let (paused, lead) = match w.nodes[i].server() {
            None => {
                c.leading[i] = None;
                c.healthy_since[i] = None;
                continue;
            }
            Some(s) => (w.nodes[i].paused, s.raft.is_leader().then(|| s.raft.term())),
        };
        let was = c.leading[i];
        if let Some((term, since)) = was {
            // Healthy for a whole maximum election timeout: every node of that majority has
            // heard from it since before any election timer of theirs could have run out. (A
            // partition that heals during the other side's election deposes a leader that a
            // majority answered only for the last few ms: that election is not needless.)
            let settled_at = c.healthy_since[i].map(|h| h + w.raft_cfg.election_timeout_max_us);
            // And the term that deposed it was first campaigned for after that: a candidacy
            // from before (say, granted pre-votes while there was no leader, then cut off) is
            // a disruption Raft accepts, not one pre-vote could have prevented.
            let new_term = w.nodes[i].server().map_or(term, |s| s.raft.term());
            let campaigned = c.candidacy.get(&new_term).copied();
            let needless = settled_at.is_some_and(|at| {
                at <= now && (new_term == term || campaigned.is_none_or(|c| c >= at))
            });
            // A leader that removed itself steps down on purpose once that commits (§4.2.2).
            let removed = w.nodes[i]
                .server()
                .is_some_and(|s| !s.raft.membership().is_voter(i));
            if lead != Some(term)
                && is_checked(w, Invariant::HealthyLeaderNotDeposed)
                && !recent_wake
                && !removed
                && needless
            {
                let heard = majority_heard_at(c, w, i, since);
                if now.saturating_sub(heard) <= HEALTHY_WINDOW_US && heard > since {
                    report_once(c, out, Invariant::HealthyLeaderNotDeposed, |lang| {
                        tb!(lang, "n{} lost the leadership of term {term} although a majority answered it {} ms ago: a needless election",
                        i + 1,
                        (now - heard) / 1000)
                    });
                }
            }
        }
        c.leading[i] = match (lead, was) {
            (None, _) => None,
            // A paused leader can do nothing, and one that wakes has yet to run the timers that
            // passed meanwhile: its time to step down starts now (found by the wide swarm, seed
            // 50158: a leader woke at an event that came after 4 s without any).
            (Some(t), _) if paused || woke & (1 << i) != 0 => Some((t, now)),
            (Some(t), Some((t0, since))) if t0 == t => Some((t, since)),
            (Some(t), _) => Some((t, now)),
        };
        let Some((term, since)) = c.leading[i] else {
            c.healthy_since[i] = None;
            continue;
        };
        let conf = w.nodes[i].server().map(|s| s.raft.membership());
        if let Some(m) = conf.filter(|&m| m != c.confs[i].0) {
            c.confs[i] = (m, now);
        }
        let heard = majority_heard_at(c, w, i, since);
        let healthy = heard > since && now.saturating_sub(heard) <= HEALTHY_WINDOW_US;
        // Its time to step down for want of a majority starts again at a change of its
        // configuration (check-quorum counts the new voters from then on).
        let since = since.max(c.confs[i].1);
        c.healthy_since[i] = if healthy {
            Some(c.healthy_since[i].unwrap_or(now))
        } else {
            None
        };
        if is_checked(w, Invariant::IsolatedLeaderStepsDown)
            && now.saturating_sub(heard.max(since)) > limit
        {
            report_once(c, out, Invariant::IsolatedLeaderStepsDown, |lang| {
                tb!(
                    lang,
                    "n{} still leads term {term} but has not heard from a majority for over {} ms",
                    i + 1,
                    limit / 1000
                )
            });
        }
    }
}

/// With fencing on, the storage never accepts a token lower than one it accepted before.
pub fn storage_accepts_stale_token(
    key: &str,
    token: u64,
    highest_before: u64,
    accepted: bool,
) -> Option<Violation> {
    (accepted && token < highest_before).then(|| {
        violation(
            Invariant::StorageAcceptsStaleToken,
            both!("the storage accepted a write to {key} with token {token} after one with token {highest_before}"),
        )
    })
}
