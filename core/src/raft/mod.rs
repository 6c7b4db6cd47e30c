//! Raft as a pure state machine, in the style of etcd-raft's RawNode: the host calls
//! [`Raft::tick`] when the deadline of [`Raft::next_deadline_us`] is reached on the node's local
//! clock, [`Raft::step`] for each delivered message and [`Raft::propose`] for new commands, then
//! drains the effects with [`Raft::take_ready`] (messages to send, role changes). Log entries are
//! durable as soon as a call returns (the simulator persists synchronously); committed entries are
//! read from [`Raft::log`] up to [`Raft::commit_index`].
//!
//! No I/O, no clock reads: the local time `now` is passed in, and randomness comes from a seeded
//! [`Rng`] handed over at construction. The local clock may be set back (a jump): every timer
//! keeps the time it already waited, as on a monotonic clock ([`Raft::observe_clock`]).
//!
//! Where each rule lives:
//! - §5.2 leader election, randomized timeouts: [`Raft::tick`], `campaign`, `reset_election_deadline`;
//! - §5.4.1 election restriction (up-to-date log): `handle_vote`, `log_is_up_to_date`;
//! - §5.1 step down on a higher term: `step` (first lines);
//! - §5.3 AppendEntries consistency check, conflict truncation, fast back-off: `handle_append`,
//!   `handle_append_reply`;
//! - §5.4.2 commit only current-term entries counted by majority (Figure 8): `maybe_commit`;
//! - §8 a no-op entry at the start of each term: `become_leader`;
//! - thesis §9.6 pre-vote: `campaign`, `handle_vote`; thesis §6.2 check-quorum: `tick`;
//! - thesis §4.2.3 ignoring disruptive RequestVotes while a leader is heard: `in_leader_lease`;
//! - replication per follower in etcd-raft's progress states (probe, replicate, snapshot), so a
//!   heartbeat re-sends neither entries nor a snapshot still in flight: [`ProgressState`],
//!   `broadcast_append`, `heartbeat`, `handle_append_reply` (which ignores an old or duplicated
//!   rejection, by the index it names: etcd-raft's `MaybeDecrTo`);
//! - dissertation ch. 4, membership change one server at a time ([`membership`]): the log's
//!   latest configuration counts (`maybe_commit`, `tally`, check-quorum in `tick`); one change
//!   at a time and the no-op rule: [`Raft::can_change`], [`Raft::propose_conf`]; learners
//!   promoted once caught up: `maybe_promote`; a removed leader steps down:
//!   `maybe_step_down_removed`; who campaigns and who votes: `may_campaign`, `may_vote`;
//! - §7 log compaction: the host hands over a snapshot of its state machine with
//!   [`Raft::snapshot_taken`], the log drops the prefix before the previous snapshot, and a
//!   follower that needs a dropped entry gets InstallSnapshot instead (`send_append`,
//!   `handle_snapshot`); the host restores what [`Ready::restore`] carries.

pub mod log;
pub mod membership;
pub mod message;

pub use log::Log;
pub use membership::{ConfChange, ConfRefusal, Membership, NODE_SLOTS};
pub use message::Message;

use crate::rng::Rng;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;
use std::rc::Rc;

pub type NodeId = usize;
pub type Term = u64;
pub type Index = u64;

/// What Raft needs to know of a command: a stable digest for the log's prefix hash, and the
/// type of the state machine's snapshot that replaces a compacted prefix (§7).
pub trait Command: Clone + Debug + PartialEq {
    type State: Clone + Debug + PartialEq;
    fn digest(&self) -> u64;
    /// About how many bytes the command takes on the wire (for the message statistics).
    fn wire_bytes(&self) -> u64 {
        32
    }
    /// About how many bytes a snapshot of `state` takes on the wire.
    fn state_wire_bytes(_state: &Self::State) -> u64 {
        0
    }
}

/// A snapshot of the state machine after applying `index` (§7, Figure 13: last included index
/// and term), with the log's prefix hash there so a follower that installs it keeps comparing.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot<S> {
    pub index: Index,
    pub term: Term,
    pub hash: u64,
    /// The configuration as of `index` (dissertation §4.1, §5.4: a snapshot carries it).
    pub conf: Membership,
    pub state: S,
}

/// A log entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry<C> {
    pub term: Term,
    pub body: Body<C>,
}

/// What an entry carries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Body<C> {
    /// The leader's no-op at the start of its term (§8).
    Noop,
    /// A command for the state machine.
    Cmd(C),
    /// A configuration change (dissertation §4.1): the state machine applies it as a no-op.
    Conf(ConfChange),
}

impl<C> Body<C> {
    pub fn as_ref(&self) -> Body<&C> {
        match self {
            Body::Noop => Body::Noop,
            Body::Cmd(c) => Body::Cmd(c),
            Body::Conf(ch) => Body::Conf(*ch),
        }
    }

    /// The command, if it carries one.
    pub fn cmd(self) -> Option<C> {
        match self {
            Body::Cmd(c) => Some(c),
            _ => None,
        }
    }

    pub fn conf(&self) -> Option<ConfChange> {
        match self {
            Body::Conf(ch) => Some(*ch),
            _ => None,
        }
    }
}

impl<C: Command> Body<&C> {
    /// Its digest in the log's prefix hash and the checks: a no-op's is 0x5eed.
    pub fn digest(&self) -> u64 {
        match self {
            Body::Noop => 0x5eed,
            Body::Cmd(c) => c.digest(),
            Body::Conf(ch) => ch.digest(),
        }
    }
}

impl<C> Entry<C> {
    /// An entry carrying a command.
    pub fn cmd_entry(term: Term, cmd: C) -> Self {
        Entry {
            term,
            body: Body::Cmd(cmd),
        }
    }

    /// The command it carries, if any (a no-op and a configuration change carry none).
    pub fn cmd(&self) -> Option<&C> {
        match &self.body {
            Body::Cmd(c) => Some(c),
            _ => None,
        }
    }

    /// The configuration change it carries, if any.
    pub fn conf(&self) -> Option<ConfChange> {
        match self.body {
            Body::Conf(c) => Some(c),
            _ => None,
        }
    }

    pub fn is_noop(&self) -> bool {
        matches!(self.body, Body::Noop)
    }

    /// Its digest in the log's prefix hash.
    pub fn digest(&self) -> u64
    where
        C: Command,
    {
        self.body.as_ref().digest()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Follower,
    PreCandidate,
    Candidate,
    Leader,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Follower => "follower",
            Role::PreCandidate => "precandidate",
            Role::Candidate => "candidate",
            Role::Leader => "leader",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RaftConfig {
    pub election_timeout_min_us: u64,
    pub election_timeout_max_us: u64,
    pub heartbeat_us: u64,
    pub pre_vote: bool,
    pub check_quorum: bool,
    /// Most entries carried by one AppendEntries.
    pub max_batch: u64,
    /// Break it (the Raft paper's Figure 8): commit an entry of an earlier term as soon as a
    /// majority holds it, instead of only entries of the leader's own term. Off by default.
    pub commit_by_counting_old_terms: bool,
    /// Break it: a node forgets the vote it cast when it restarts, as if `votedFor` were kept in
    /// memory only (§5 Figure 2 lists it as persistent state). It may then vote twice in one
    /// term, and two candidates win the same term. Off by default.
    pub forget_vote_on_restart: bool,
    /// Log compaction (§7): every this many applied entries a node snapshots its state machine
    /// and drops the log before its previous snapshot (so the log keeps at least this many
    /// entries for followers to catch up from). 0: never.
    pub snapshot_every: u64,
    /// Break it (the bug found in the single-server change after publication, dissertation
    /// §4.1 and its errata): a new leader may change the configuration before an entry of its
    /// own term has committed. Two changes from leaders of different terms can then form
    /// configurations whose majorities do not overlap: two leaders in one term. Off by default.
    pub conf_change_before_noop: bool,
}

impl RaftConfig {
    /// Whether a switch that lets a committed entry be overwritten is on: Figure 8's, the
    /// forgotten vote's (two leaders of one term) or the early configuration change's (two
    /// configurations without a common majority).
    pub fn may_lose_committed(&self) -> bool {
        self.commit_by_counting_old_terms
            || self.forget_vote_on_restart
            || self.conf_change_before_noop
    }
}

impl Default for RaftConfig {
    fn default() -> Self {
        RaftConfig {
            election_timeout_min_us: 150_000,
            election_timeout_max_us: 300_000,
            heartbeat_us: 50_000,
            pre_vote: true,
            check_quorum: true,
            max_batch: 64,
            commit_by_counting_old_terms: false,
            forget_vote_on_restart: false,
            snapshot_every: 64,
            conf_change_before_noop: false,
        }
    }
}

/// Effects produced by calls since the last [`Raft::take_ready`].
#[derive(Clone, Debug)]
pub struct Ready<C: Command> {
    pub messages: Vec<(NodeId, Message<C>)>,
    pub role_changes: Vec<(Role, Term)>,
    /// A snapshot from the leader that replaced this follower's log (§7): the host replaces its
    /// state machine with it.
    pub restore: Option<Rc<Snapshot<C::State>>>,
}

impl<C: Command> Default for Ready<C> {
    fn default() -> Self {
        Ready {
            messages: Vec::new(),
            role_changes: Vec::new(),
            restore: None,
        }
    }
}

/// A proposal to a node that is not the leader is refused with the leader it knows of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotLeader {
    pub hint: Option<NodeId>,
}

/// What survives a crash (§5 Figure 2 "persistent state on all servers", and §7's snapshot).
#[derive(Clone, Debug)]
pub struct HardState<C: Command> {
    pub term: Term,
    pub voted_for: Option<NodeId>,
    /// It joined the cluster empty (a membership change added it): see `Raft::may_vote`.
    pub joined: bool,
    pub log: Log<C>,
    pub snapshot: Option<Rc<Snapshot<C::State>>>,
}

impl<C: Command> HardState<C> {
    /// The index the state machine restarts from (0: the beginning of the log).
    pub fn snapshot_index(&self) -> Index {
        self.snapshot.as_ref().map_or(0, |s| s.index)
    }
}

/// The leader's view of one follower's replication, after etcd-raft's `tracker.Progress`:
/// - **probe**: where the follower's log matches is not known yet. One AppendEntries goes out,
///   carrying at most one entry, then nothing more until it is answered; unanswered, it is sent
///   again at a heartbeat, at most once per heartbeat interval (etcd-raft: a probe pauses the
///   flow, an answer resumes it);
/// - **replicate**: the follower is known to match. New entries stream out as they are proposed.
///   A heartbeat re-sends nothing, unless what was sent has gone the shortest election timeout
///   without any progress (presumed lost): then the follower is probed again;
/// - **snapshot**: InstallSnapshot is on its way. Nothing more is sent until it is answered, or
///   the longest election timeout passes without an answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ProgressState {
    #[default]
    Probe,
    Replicate,
    Snapshot,
}

impl ProgressState {
    pub const NAMES: [&'static str; 3] = ["probe", "replicate", "snapshot"];

    /// The name in documents and snapshots.
    pub const fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Progress {
    state: ProgressState,
    /// Probe: an AppendEntries is out and unanswered.
    paused: bool,
    /// Since when (local µs) what was sent has waited: in probe the probe out, in replicate and
    /// snapshot what was sent, for progress; `i64::MAX` while nothing is outstanding.
    waiting_since_us: i64,
}

impl Default for Progress {
    fn default() -> Self {
        Progress {
            state: ProgressState::Probe,
            paused: false,
            waiting_since_us: i64::MAX,
        }
    }
}

/// The fields of an `AppendReply` the leader acts on (see [`Message::AppendReply`]).
#[derive(Clone, Copy, Debug)]
struct AppendOutcome {
    success: bool,
    match_index: Index,
    rejected_index: Index,
    hint_index: Index,
    hint_term: Term,
}

#[derive(Clone, Debug)]
pub struct Raft<C: Command> {
    id: NodeId,
    cfg: RaftConfig,
    rng: Rng,
    // persistent
    term: Term,
    voted_for: Option<NodeId>,
    /// It joined empty, by a membership change (see [`Raft::may_vote`]).
    joined: bool,
    log: Log<C>,
    /// The latest snapshot of the state machine (shared with snapshots of the world and sent
    /// as it is to followers that need it).
    snapshot: Option<Rc<Snapshot<C::State>>>,
    // volatile
    role: Role,
    leader: Option<NodeId>,
    commit: Index,
    votes: Vec<Option<bool>>,
    next: Vec<Index>,
    matched: Vec<Index>,
    /// How the leader replicates to each follower (etcd-raft's progress states).
    progress: Vec<Progress>,
    /// Scratch space for `maybe_commit` (allocated once, so committing never allocates).
    sorted: Vec<Index>,
    recently_active: Vec<bool>,
    election_deadline_us: i64,
    heartbeat_deadline_us: i64,
    quorum_deadline_us: i64,
    leader_contact_us: Option<i64>,
    /// The latest local time seen, to notice the clock going back ([`Raft::observe_clock`]).
    last_local_now_us: i64,
    ready: Ready<C>,
}

/// How a node starts: who it is among how many, its settings, its random source (election
/// timeouts) and its own clock's reading. [`NodeSetup::new`] gives the defaults; the builder
/// methods change one each.
#[derive(Clone, Debug)]
pub struct NodeSetup {
    pub id: NodeId,
    /// How many nodes the cluster started with (ids `0..nodes`): its first configuration.
    pub nodes: usize,
    pub cfg: RaftConfig,
    pub rng: Rng,
    pub local_now_us: i64,
    /// A server added later, with an empty log: it does not count itself a member of the
    /// configurations before it joined (it learns its place from the entries that add it).
    pub joining: bool,
}

impl NodeSetup {
    /// Node `id` of `nodes`, with the default settings, seed 1 and its clock reading 0.
    pub fn new(id: NodeId, nodes: usize) -> Self {
        NodeSetup {
            id,
            nodes,
            cfg: RaftConfig::default(),
            rng: Rng::new(1),
            local_now_us: 0,
            joining: false,
        }
    }

    /// A server that joins the cluster later, with an empty log (dissertation §4.2.1).
    pub fn joining(self) -> Self {
        NodeSetup {
            joining: true,
            ..self
        }
    }

    pub fn cfg(self, cfg: RaftConfig) -> Self {
        NodeSetup { cfg, ..self }
    }

    pub fn rng(self, rng: Rng) -> Self {
        NodeSetup { rng, ..self }
    }

    /// The node's own clock reads `local_now_us` as it starts.
    pub fn at(self, local_now_us: i64) -> Self {
        NodeSetup {
            local_now_us,
            ..self
        }
    }
}

impl<C: Command> Raft<C> {
    pub fn new(setup: NodeSetup) -> Self {
        let first = Membership::first(setup.nodes);
        let joined = setup.joining;
        let conf = if setup.joining {
            first.without(setup.id)
        } else {
            first
        };
        Self::restart(
            setup,
            HardState {
                term: 0,
                voted_for: None,
                joined,
                log: Log::new(conf),
                snapshot: None,
            },
        )
    }

    /// A node coming back from a crash: persistent state kept, volatile state fresh (§5.1). The
    /// snapshot's index counts as committed: the host restarts its state machine from it.
    pub fn restart(setup: NodeSetup, hs: HardState<C>) -> Self {
        let NodeSetup {
            id,
            cfg,
            rng,
            local_now_us,
            ..
        } = setup;
        let n = NODE_SLOTS;
        let forget_vote = cfg.forget_vote_on_restart;
        let mut r = Raft {
            id,
            cfg,
            rng,
            term: hs.term,
            voted_for: if forget_vote { None } else { hs.voted_for },
            joined: hs.joined,
            log: hs.log,
            commit: hs.snapshot.as_ref().map_or(0, |s| s.index),
            snapshot: hs.snapshot,
            role: Role::Follower,
            leader: None,
            votes: vec![None; n],
            next: vec![1; n],
            matched: vec![0; n],
            progress: vec![Progress::default(); n],
            sorted: Vec::with_capacity(n),
            recently_active: vec![false; n],
            election_deadline_us: 0,
            heartbeat_deadline_us: i64::MAX,
            quorum_deadline_us: i64::MAX,
            leader_contact_us: None,
            last_local_now_us: local_now_us,
            ready: Ready::default(),
        };
        r.reset_election_deadline(local_now_us);
        r
    }

    pub fn hard_state(&self) -> HardState<C> {
        HardState {
            term: self.term,
            voted_for: self.voted_for,
            joined: self.joined,
            log: self.log.clone(),
            snapshot: self.snapshot.clone(),
        }
    }

    pub fn into_hard_state(self) -> HardState<C> {
        HardState {
            term: self.term,
            voted_for: self.voted_for,
            joined: self.joined,
            log: self.log,
            snapshot: self.snapshot,
        }
    }

    /// The latest snapshot of the state machine, if any.
    pub fn snapshot(&self) -> Option<&Rc<Snapshot<C::State>>> {
        self.snapshot.as_ref()
    }

    pub fn snapshot_index(&self) -> Index {
        self.snapshot.as_ref().map_or(0, |s| s.index)
    }

    /// The host applied up to `index` and hands over its state machine there (§7). The log
    /// drops everything up to the previous snapshot: the entries since then stay, so a follower
    /// a little behind still catches up from the log rather than by a whole snapshot.
    pub fn snapshot_taken(&mut self, index: Index, state: C::State) {
        assert!(
            index <= self.commit && index > self.snapshot_index(),
            "snapshot at {index} of a committed, newer index"
        );
        let previous = self.snapshot_index();
        let (term, hash) = (
            self.log.term_at(index),
            self.log
                .prefix_hash(index)
                .expect("applied index is in the log"),
        );
        let conf = self.log.membership_at(index);
        self.snapshot = Some(Rc::new(Snapshot {
            index,
            term,
            hash,
            conf,
            state,
        }));
        self.log.compact(previous);
    }

    pub fn id(&self) -> NodeId {
        self.id
    }
    pub fn term(&self) -> Term {
        self.term
    }
    pub fn role(&self) -> Role {
        self.role
    }
    pub fn leader(&self) -> Option<NodeId> {
        self.leader
    }
    pub fn voted_for(&self) -> Option<NodeId> {
        self.voted_for
    }
    pub fn commit_index(&self) -> Index {
        self.commit
    }
    pub fn log(&self) -> &Log<C> {
        &self.log
    }
    pub fn config(&self) -> &RaftConfig {
        &self.cfg
    }
    pub fn match_index(&self, peer: NodeId) -> Index {
        self.matched[peer]
    }

    /// Leader only: how it replicates to `peer` now.
    pub fn progress_state(&self, peer: NodeId) -> ProgressState {
        self.progress[peer].state
    }

    /// Leader only: the next index it will send `peer` (§5.3 nextIndex).
    pub fn next_index(&self, peer: NodeId) -> Index {
        self.next[peer]
    }
    pub fn is_leader(&self) -> bool {
        self.role == Role::Leader
    }

    /// The pending effects, to drain in place (keeps the buffers' capacity).
    pub fn ready_mut(&mut self) -> &mut Ready<C> {
        &mut self.ready
    }

    pub fn take_ready(&mut self) -> Ready<C> {
        std::mem::take(&mut self.ready)
    }

    /// The local time at which [`Raft::tick`] must next be called.
    pub fn next_deadline_us(&self) -> i64 {
        match self.role {
            Role::Leader => self.heartbeat_deadline_us.min(self.quorum_deadline_us),
            _ => self.election_deadline_us,
        }
    }

    /// The host tells of the local time, as every call does; it calls this when the node's clock
    /// is set, so that a clock set back is noticed at once. Local time going back by `d` moves
    /// every remembered instant (deadlines, last contact, what waits since when) back by `d`:
    /// what was waited keeps counting and nothing waits longer than its own timeout, as on the
    /// monotonic clock real nodes time their timers with. Otherwise a jump back of 10 s would
    /// stall the heartbeat, check-quorum (thesis §6.2), the lost-append and snapshot timeouts
    /// and the election timer (§5.2) for 10 s. A jump forward fires what it passes at once.
    pub fn observe_clock(&mut self, local_now_us: i64) {
        if local_now_us < self.last_local_now_us {
            let back = self.last_local_now_us - local_now_us;
            let shift = |t: &mut i64| {
                if *t != i64::MAX {
                    *t = t.saturating_sub(back);
                }
            };
            shift(&mut self.election_deadline_us);
            shift(&mut self.heartbeat_deadline_us);
            shift(&mut self.quorum_deadline_us);
            if let Some(t) = self.leader_contact_us.as_mut() {
                shift(t);
            }
            for pr in &mut self.progress {
                shift(&mut pr.waiting_since_us);
            }
        }
        self.last_local_now_us = local_now_us;
    }

    pub fn tick(&mut self, local_now_us: i64) {
        self.observe_clock(local_now_us);
        if self.role == Role::Leader {
            if local_now_us >= self.quorum_deadline_us {
                // Check-quorum (thesis §6.2): a leader that has not heard from a majority
                // within an election timeout steps down, so a partitioned leader stops serving.
                let conf = self.log.membership();
                let heard = conf
                    .voters()
                    .filter(|&p| p == self.id || self.recently_active[p])
                    .count();
                if heard < self.majority() {
                    let term = self.term;
                    self.become_follower(local_now_us, term, None);
                    return;
                }
                self.recently_active.iter_mut().for_each(|a| *a = false);
                self.quorum_deadline_us = local_now_us + self.cfg.election_timeout_min_us as i64;
            }
            if local_now_us >= self.heartbeat_deadline_us {
                self.heartbeat(local_now_us);
                self.heartbeat_deadline_us = local_now_us + self.cfg.heartbeat_us as i64;
            }
        } else if local_now_us >= self.election_deadline_us {
            if self.may_campaign() {
                self.campaign(local_now_us);
            } else {
                // A learner or a removed server never campaigns (§4.2.1, §4.2.3).
                self.reset_election_deadline(local_now_us);
            }
        }
    }

    /// Append a command to the leader's log and start replicating it.
    pub fn propose(&mut self, local_now_us: i64, cmd: C) -> Result<Index, NotLeader> {
        self.observe_clock(local_now_us);
        if self.role != Role::Leader {
            return Err(NotLeader { hint: self.leader });
        }
        let index = self.log.append(Entry::cmd_entry(self.term, cmd));
        self.matched[self.id] = index;
        self.maybe_commit();
        self.broadcast_append(local_now_us);
        self.maybe_step_down_removed(local_now_us);
        Ok(index)
    }

    /// The configuration this node uses: the latest in its log, committed or not (§4.1).
    pub fn membership(&self) -> Membership {
        self.log.membership()
    }

    /// Whether the leader may propose `change` now, and why not (dissertation §4.1): one change
    /// at a time, after the previous one commits; and only once an entry of its own term has
    /// committed (its no-op), unless the `conf_change_before_noop` switch is on.
    pub fn can_change(&self, change: ConfChange) -> Result<(), ConfRefusal> {
        if self.role != Role::Leader {
            return Err(ConfRefusal::NotLeader);
        }
        if let Some(index) = self.log.last_conf_index().filter(|&i| i > self.commit) {
            return Err(ConfRefusal::InFlight { index });
        }
        if self.log.term_at(self.commit) != self.term && !self.cfg.conf_change_before_noop {
            return Err(ConfRefusal::NoOpNotCommitted);
        }
        self.log.membership().check(change)
    }

    /// Leader only: append a configuration change and start replicating it. The leader uses
    /// the new configuration at once (§4.1). A server added starts from nothing: what an earlier
    /// server of the same id matched says nothing of it.
    pub fn propose_conf(
        &mut self,
        local_now_us: i64,
        change: ConfChange,
    ) -> Result<Index, ConfRefusal> {
        self.observe_clock(local_now_us);
        self.can_change(change)?;
        if let ConfChange::AddLearner { .. } = change {
            let p = change.node();
            self.matched[p] = 0;
            self.next[p] = self.log.last_index() + 1;
            self.progress[p] = Progress::default();
            self.recently_active[p] = false;
        }
        let index = self.log.append(Entry {
            term: self.term,
            body: Body::Conf(change),
        });
        self.matched[self.id] = index;
        self.maybe_commit();
        self.broadcast_append(local_now_us);
        self.maybe_step_down_removed(local_now_us);
        Ok(index)
    }

    /// §4.2.1: a learner that holds every committed entry is promoted by a second change.
    fn maybe_promote(&mut self, local_now_us: i64, learner: NodeId) {
        let change = ConfChange::promote(learner);
        if self.matched[learner] >= self.commit && self.can_change(change).is_ok() {
            let _ = self.propose_conf(local_now_us, change);
        }
    }

    /// §4.2.2: a leader that is not in the configuration keeps leading (without counting
    /// itself) until that configuration commits, then steps down.
    fn maybe_step_down_removed(&mut self, local_now_us: i64) {
        if self.role == Role::Leader
            && !self.log.membership().is_voter(self.id)
            && self.log.last_conf_index().is_none_or(|i| i <= self.commit)
        {
            let term = self.term;
            self.become_follower(local_now_us, term, None);
        }
    }

    pub fn step(&mut self, local_now_us: i64, from: NodeId, msg: Message<C>) {
        self.observe_clock(local_now_us);
        let mterm = msg.term();
        if mterm > self.term {
            match &msg {
                // A pre-vote never changes anybody's term (thesis §9.6).
                Message::Vote { pre: true, .. }
                | Message::VoteReply {
                    pre: true,
                    granted: true,
                    ..
                } => {}
                // §4.2.3: ignore a RequestVote while a current leader is heard from.
                Message::Vote { pre: false, .. }
                    if self.cfg.check_quorum && self.in_leader_lease(local_now_us) =>
                {
                    return
                }
                _ => {
                    let leader = matches!(msg, Message::Append { .. } | Message::Snapshot { .. })
                        .then_some(from);
                    self.become_follower(local_now_us, mterm, leader);
                }
            }
        } else if mterm < self.term {
            // A stale sender learns the newer term from our reply and steps down (§5.1).
            match msg {
                Message::Append { .. } | Message::Snapshot { .. } => {
                    let rejected_index = match msg {
                        Message::Append { prev_index, .. } => prev_index,
                        _ => 0,
                    };
                    self.send(
                        from,
                        Message::AppendReply {
                            term: self.term,
                            success: false,
                            match_index: 0,
                            rejected_index,
                            hint_index: 0,
                            hint_term: 0,
                        },
                    )
                }
                Message::Vote { pre, .. } => self.send(
                    from,
                    Message::VoteReply {
                        term: self.term,
                        granted: false,
                        pre,
                    },
                ),
                _ => {}
            }
            return;
        }
        match msg {
            Message::Vote {
                term,
                last_index,
                last_term,
                pre,
            } => self.handle_vote(local_now_us, from, term, last_index, last_term, pre),
            Message::VoteReply { term, granted, pre } => {
                self.handle_vote_reply(local_now_us, from, term, granted, pre)
            }
            Message::Append {
                prev_index,
                prev_term,
                entries,
                commit,
                ..
            } => self.handle_append(local_now_us, from, prev_index, prev_term, entries, commit),
            Message::AppendReply {
                success,
                match_index,
                rejected_index,
                hint_index,
                hint_term,
                ..
            } => self.handle_append_reply(
                local_now_us,
                from,
                AppendOutcome {
                    success,
                    match_index,
                    rejected_index,
                    hint_index,
                    hint_term,
                },
            ),
            Message::Snapshot { snapshot, .. } => {
                self.handle_snapshot(local_now_us, from, snapshot)
            }
        }
    }

    // ---- elections -------------------------------------------------------------------------

    fn majority(&self) -> usize {
        self.log.membership().majority()
    }

    fn reset_election_deadline(&mut self, local_now_us: i64) {
        let t = self.rng.range_inclusive(
            self.cfg.election_timeout_min_us,
            self.cfg.election_timeout_max_us,
        );
        self.election_deadline_us = local_now_us + t as i64;
    }

    /// Thesis §4.2.3: a follower that heard from a leader less than the minimum election timeout
    /// ago does not let a candidate disturb it. Active with check-quorum (as in etcd) and, for
    /// pre-votes, with pre-vote.
    /// A leader is always in its own lease (etcd does the same): otherwise a node whose fast
    /// clock times out early would win a pre-vote from the leader itself.
    fn in_leader_lease(&self, local_now_us: i64) -> bool {
        match self.role {
            Role::Leader => true,
            Role::Follower => {
                self.leader.is_some()
                    && self
                        .leader_contact_us
                        .is_some_and(|t| local_now_us - t < self.cfg.election_timeout_min_us as i64)
            }
            _ => false,
        }
    }

    fn campaign(&mut self, local_now_us: i64) {
        if self.cfg.pre_vote {
            // Every timeout starts a new pre-vote; only a won pre-vote leads to a real election.
            if self.role != Role::PreCandidate {
                self.set_role(Role::PreCandidate);
            }
            self.leader = None;
            self.start_poll(local_now_us, self.term + 1, true);
        } else {
            self.become_candidate(local_now_us);
        }
    }

    fn become_candidate(&mut self, local_now_us: i64) {
        self.term += 1;
        self.voted_for = Some(self.id);
        self.leader = None;
        self.set_role(Role::Candidate);
        self.start_poll(local_now_us, self.term, false);
    }

    fn start_poll(&mut self, local_now_us: i64, term: Term, pre: bool) {
        self.reset_election_deadline(local_now_us);
        self.votes.iter_mut().for_each(|v| *v = None);
        self.votes[self.id] = Some(true);
        let (last_index, last_term) = (self.log.last_index(), self.log.last_term());
        for p in self.log.membership().voters() {
            if p != self.id {
                self.send(
                    p,
                    Message::Vote {
                        term,
                        last_index,
                        last_term,
                        pre,
                    },
                );
            }
        }
        self.tally(local_now_us, pre);
    }

    /// A voter of its latest configuration campaigns; so does a voter of the one before while
    /// the latest is not committed: a leader that removed itself and lost office before the
    /// change committed may be the only one holding it, and the others need it to lead once
    /// more to commit it (found by the membership swarm, seed 400). Its votes then count by
    /// its latest configuration, as every server's do.
    fn may_campaign(&self) -> bool {
        let conf = self.log.membership();
        conf.is_voter(self.id)
            || self
                .log
                .last_conf_index()
                .filter(|&i| i > self.commit)
                .is_some_and(|i| self.log.membership_at(i - 1).is_voter(self.id))
    }

    /// A server that joined empty votes only once its log holds its own addition. An id removed
    /// and added back is a new server that remembers nothing: a candidate whose log predates the
    /// removal still counts that id among its voters, and the empty server's vote (its log is
    /// behind every candidate's) would elect it without the majority that holds what the
    /// cluster committed since (found by the membership swarm, seed 220). Once its log holds
    /// its addition, which came after the removal committed, §5.4.1's up-to-date check covers
    /// it. Waiting until its log shows it a voter instead deadlocked a cluster whose leader
    /// alone held the promotion and restarted: the leader then counted the learner among its
    /// voters, and the learner would not vote (found by the wide swarm, seed 2325).
    fn may_vote(&self) -> bool {
        !self.joined || self.log.membership().is_member(self.id)
    }

    /// §5.4.1: vote only for a candidate whose log is at least as up-to-date as ours.
    fn log_is_up_to_date(&self, last_index: Index, last_term: Term) -> bool {
        (last_term, last_index) >= (self.log.last_term(), self.log.last_index())
    }

    fn handle_vote(
        &mut self,
        local_now_us: i64,
        from: NodeId,
        term: Term,
        last_index: Index,
        last_term: Term,
        pre: bool,
    ) {
        // As etcd (raft.go, Step, `canVote`): a repeat of the vote cast, or no vote and no
        // leader in this term; a pre-vote also for a later term when no leader is heard (§9.6,
        // §4.2.3). So a pre-vote for this node's own term is granted when it has neither a leader
        // nor a vote in it (it got there through a message that named no leader).
        let this_term =
            self.voted_for == Some(from) || (self.voted_for.is_none() && self.leader.is_none());
        let can_vote = if pre {
            (term > self.term && !(self.cfg.pre_vote && self.in_leader_lease(local_now_us)))
                || (term == self.term && this_term)
        } else {
            this_term
        };
        let granted = can_vote && self.may_vote() && self.log_is_up_to_date(last_index, last_term);
        if granted && !pre {
            self.voted_for = Some(from);
            self.reset_election_deadline(local_now_us);
        }
        let reply_term = if pre && granted { term } else { self.term };
        self.send(
            from,
            Message::VoteReply {
                term: reply_term,
                granted,
                pre,
            },
        );
    }

    fn handle_vote_reply(
        &mut self,
        local_now_us: i64,
        from: NodeId,
        term: Term,
        granted: bool,
        pre: bool,
    ) {
        let expecting = match self.role {
            Role::PreCandidate => pre && (term == self.term + 1 || !granted),
            Role::Candidate => !pre && term == self.term,
            _ => false,
        };
        if !expecting {
            return;
        }
        self.votes[from] = Some(granted);
        self.tally(local_now_us, pre);
    }

    fn tally(&mut self, local_now_us: i64, pre: bool) {
        // Only the votes of the candidate's own configuration count (§4.1).
        let conf = self.log.membership();
        let yes = conf
            .voters()
            .filter(|&v| self.votes[v] == Some(true))
            .count();
        let no = conf
            .voters()
            .filter(|&v| self.votes[v] == Some(false))
            .count();
        if yes >= self.majority() {
            if pre {
                self.become_candidate(local_now_us);
            } else {
                self.become_leader(local_now_us);
            }
        } else if no >= self.majority() {
            let term = self.term;
            self.become_follower(local_now_us, term, None);
        }
    }

    fn become_follower(&mut self, local_now_us: i64, term: Term, leader: Option<NodeId>) {
        let term_changed = term > self.term;
        if term_changed {
            self.term = term;
            self.voted_for = None;
        }
        let was = self.role;
        self.role = Role::Follower;
        self.leader = leader;
        if leader.is_some() {
            self.leader_contact_us = Some(local_now_us);
        }
        self.heartbeat_deadline_us = i64::MAX;
        self.quorum_deadline_us = i64::MAX;
        self.reset_election_deadline(local_now_us);
        if was != Role::Follower || term_changed {
            self.ready.role_changes.push((Role::Follower, self.term));
        }
    }

    fn set_role(&mut self, role: Role) {
        self.role = role;
        self.ready.role_changes.push((
            role,
            if role == Role::PreCandidate {
                self.term + 1
            } else {
                self.term
            },
        ));
    }

    fn become_leader(&mut self, local_now_us: i64) {
        self.set_role(Role::Leader);
        self.leader = Some(self.id);
        let last = self.log.last_index();
        self.next.iter_mut().for_each(|x| *x = last + 1);
        self.matched.iter_mut().for_each(|x| *x = 0);
        self.progress
            .iter_mut()
            .for_each(|p| *p = Progress::default());
        self.recently_active.iter_mut().for_each(|a| *a = false);
        // §8: a no-op of the new term lets the leader commit (and learn) everything before it.
        let index = self.log.append(Entry {
            term: self.term,
            body: Body::Noop,
        });
        self.matched[self.id] = index;
        self.maybe_commit();
        self.broadcast_append(local_now_us);
        self.heartbeat_deadline_us = local_now_us + self.cfg.heartbeat_us as i64;
        self.quorum_deadline_us = if self.cfg.check_quorum {
            local_now_us + self.cfg.election_timeout_min_us as i64
        } else {
            i64::MAX
        };
    }

    // ---- replication -----------------------------------------------------------------------

    /// New entries: each follower that takes them now gets what it lacks (a paused probe and a
    /// snapshot in flight wait).
    fn broadcast_append(&mut self, local_now_us: i64) {
        for p in self.log.membership().members() {
            if p != self.id {
                let pr = self.progress[p];
                let waits = match pr.state {
                    ProgressState::Probe => pr.paused,
                    ProgressState::Replicate => false,
                    ProgressState::Snapshot => true,
                };
                if !waits && self.next[p] <= self.log.last_index() {
                    self.send_append(local_now_us, p);
                }
            }
        }
    }

    /// Every heartbeat interval each follower hears from the leader. A probe unanswered for a
    /// heartbeat interval is sent again (one sent more recently, after a rejection, stands for
    /// this interval's message: a follower that does not answer gets one probe per interval,
    /// not more); a follower in replicate or snapshot gets only an empty AppendEntries at the
    /// index it is known to match (which carries the commit index), unless what it was sent has
    /// waited too long for an answer: then it is probed again from there.
    fn heartbeat(&mut self, local_now_us: i64) {
        // Answers normally come within a round trip; one not come within the shortest election
        // timeout is presumed lost (a slower link than that cannot keep a leader anyway).
        let lost_after = self.cfg.election_timeout_min_us as i64;
        let snapshot_timeout = self.cfg.election_timeout_max_us as i64;
        let probe_again_after = self.cfg.heartbeat_us as i64;
        for p in self.log.membership().members() {
            if p == self.id {
                continue;
            }
            let pr = self.progress[p];
            if pr.state == ProgressState::Probe
                && pr.paused
                && local_now_us - pr.waiting_since_us < probe_again_after
            {
                continue;
            }
            let stale = match pr.state {
                ProgressState::Probe => true,
                ProgressState::Replicate => {
                    pr.waiting_since_us != i64::MAX
                        && local_now_us - pr.waiting_since_us >= lost_after
                }
                ProgressState::Snapshot => local_now_us - pr.waiting_since_us >= snapshot_timeout,
            };
            if stale {
                // A probe is sent again from where it probes; what was presumed lost is sent
                // again from the follower's match.
                if pr.state != ProgressState::Probe {
                    self.next[p] = self.matched[p] + 1;
                }
                self.progress[p] = Progress::default();
                self.send_append(local_now_us, p);
            } else {
                self.send_heartbeat(p);
            }
        }
    }

    /// An empty AppendEntries at the follower's match index, which its log is known to hold
    /// (or at 0 where this leader's log no longer knows that index's term: it then keeps only
    /// the follower's election timer, and carries no commit).
    fn send_heartbeat(&mut self, to: NodeId) {
        let m = self.matched[to];
        let (prev_index, prev_term) = match self.log.term(m) {
            Some(t) => (m, t),
            None => (0, 0),
        };
        self.send(
            to,
            Message::Append {
                term: self.term,
                prev_index,
                prev_term,
                entries: Vec::new(),
                commit: self.commit,
            },
        );
    }

    fn send_append(&mut self, local_now_us: i64, to: NodeId) {
        let prev_index = self.next[to] - 1;
        if prev_index < self.log.start() {
            // The entries this follower needs are compacted: it gets the snapshot (§7).
            let snap = self
                .snapshot
                .clone()
                .expect("a compacted log has a snapshot");
            self.next[to] = snap.index + 1;
            self.progress[to] = Progress {
                state: ProgressState::Snapshot,
                paused: false,
                waiting_since_us: local_now_us,
            };
            self.send(
                to,
                Message::Snapshot {
                    term: self.term,
                    snapshot: snap,
                },
            );
            return;
        }
        // A probe carries one entry at most: where the logs match is not known yet, and a
        // batch to a follower that cannot take it (or cannot be reached) is wasted.
        let batch = match self.progress[to].state {
            ProgressState::Probe => 1,
            _ => self.cfg.max_batch,
        };
        let last = self.log.last_index().min(prev_index + batch);
        let entries = self.log.slice(prev_index + 1, last);
        let pr = &mut self.progress[to];
        match pr.state {
            ProgressState::Probe => {
                pr.paused = true;
                pr.waiting_since_us = local_now_us;
            }
            _ => {
                self.next[to] = last + 1;
                if !entries.is_empty() && pr.waiting_since_us == i64::MAX {
                    pr.waiting_since_us = local_now_us;
                }
            }
        }
        let msg = Message::Append {
            term: self.term,
            prev_index,
            prev_term: self.log.term_at(prev_index),
            entries,
            commit: self.commit,
        };
        self.send(to, msg);
    }

    fn handle_append(
        &mut self,
        local_now_us: i64,
        from: NodeId,
        prev_index: Index,
        prev_term: Term,
        entries: Vec<Entry<C>>,
        commit: Index,
    ) {
        self.heard_from_leader(local_now_us, from);
        // A rejection names the append it refuses, as the leader sent it.
        let rejected_index = prev_index;
        let (mut prev_index, mut prev_term, mut entries) = (prev_index, prev_term, entries);
        if prev_index < self.log.start() {
            // Entries up to `start` are committed here and so in the leader's log too (§5.4):
            // skip them and check consistency at `start`.
            let skip = ((self.log.start() - prev_index) as usize).min(entries.len());
            entries.drain(..skip);
            prev_index += skip as Index;
            if prev_index < self.log.start() {
                let match_index = prev_index;
                self.send(
                    from,
                    Message::AppendReply {
                        term: self.term,
                        success: true,
                        match_index,
                        rejected_index: 0,
                        hint_index: 0,
                        hint_term: 0,
                    },
                );
                return;
            }
            prev_term = self.log.term_at(prev_index);
        }

        // §5.3 consistency check.
        if prev_index > self.log.last_index() {
            let hint_index = self.log.last_index() + 1;
            self.send(
                from,
                Message::AppendReply {
                    term: self.term,
                    success: false,
                    match_index: 0,
                    rejected_index,
                    hint_index,
                    hint_term: 0,
                },
            );
            return;
        }
        let have = self.log.term_at(prev_index);
        if have != prev_term {
            let hint_index = self.log.first_index_of_term(have, prev_index);
            self.send(
                from,
                Message::AppendReply {
                    term: self.term,
                    success: false,
                    match_index: 0,
                    rejected_index,
                    hint_index,
                    hint_term: have,
                },
            );
            return;
        }
        // Append, truncating only at the first conflicting entry (never on a mere repeat, which a
        // reordered old message could be).
        let mut index = prev_index;
        for e in entries {
            index += 1;
            if index <= self.log.last_index() {
                if self.log.term_at(index) == e.term {
                    continue;
                }
                // Never in Raft; possible only with a safeguard switched off (two leaders of one
                // term, or a committed entry missing from a later leader's log), where the checks
                // name it and the run goes on, as the broken algorithm would.
                assert!(
                    index > self.commit || self.cfg.may_lose_committed(),
                    "node {} would truncate committed index {index}",
                    self.id
                );
                self.log.truncate_from(index);
            }
            self.log.append(e);
        }
        let last_new = index;
        if commit > self.commit {
            self.commit = commit.min(last_new).max(self.commit);
        }
        self.send(
            from,
            Message::AppendReply {
                term: self.term,
                success: true,
                match_index: last_new,
                rejected_index: 0,
                hint_index: 0,
                hint_term: 0,
            },
        );
    }

    /// A message from the leader of the current term: follow it and restart the election timer.
    fn heard_from_leader(&mut self, local_now_us: i64, from: NodeId) {
        if self.role != Role::Follower {
            let term = self.term;
            self.become_follower(local_now_us, term, Some(from));
        }
        debug_assert_ne!(self.role, Role::Leader, "two leaders in one term");
        self.leader = Some(from);
        self.leader_contact_us = Some(local_now_us);
        self.reset_election_deadline(local_now_us);
    }

    /// InstallSnapshot (§7, Figure 13). A snapshot of what this node already committed changes
    /// nothing. Otherwise the log keeps the entries after the snapshot if it holds the
    /// snapshot's last entry, else it is discarded; the host restores its state machine.
    fn handle_snapshot(&mut self, local_now_us: i64, from: NodeId, snap: Rc<Snapshot<C::State>>) {
        self.heard_from_leader(local_now_us, from);
        if snap.index <= self.commit {
            // The snapshot's index, not our commit: under the Figure 8 switch entries we count
            // as committed may be missing from the leader's log.
            let match_index = snap.index;
            self.send(
                from,
                Message::AppendReply {
                    term: self.term,
                    success: true,
                    match_index,
                    rejected_index: 0,
                    hint_index: 0,
                    hint_term: 0,
                },
            );
            return;
        }
        if self.log.term(snap.index) == Some(snap.term) {
            self.log.compact(snap.index);
        } else {
            self.log
                .reset_to(snap.index, snap.term, snap.hash, snap.conf);
        }
        self.commit = snap.index;
        let match_index = snap.index;
        self.snapshot = Some(snap.clone());
        self.ready.restore = Some(snap);
        self.send(
            from,
            Message::AppendReply {
                term: self.term,
                success: true,
                match_index,
                rejected_index: 0,
                hint_index: 0,
                hint_term: 0,
            },
        );
    }

    fn handle_append_reply(&mut self, local_now_us: i64, from: NodeId, reply: AppendOutcome) {
        let AppendOutcome {
            success,
            match_index,
            rejected_index,
            hint_index,
            hint_term,
        } = reply;
        if self.role != Role::Leader {
            return;
        }
        self.recently_active[from] = true;
        let pr = self.progress[from];
        if success {
            let progressed = match_index > self.matched[from];
            if progressed {
                self.matched[from] = match_index;
                self.maybe_commit();
            }
            if self.next[from] <= self.matched[from] {
                self.next[from] = self.matched[from] + 1;
            }
            let caught_up = self.next[from] - 1 <= self.matched[from];
            match pr.state {
                ProgressState::Probe if progressed => self.become_replicate(local_now_us, from),
                ProgressState::Probe => self.progress[from].paused = false,
                ProgressState::Replicate if progressed => {
                    self.progress[from].waiting_since_us =
                        if caught_up { i64::MAX } else { local_now_us };
                }
                ProgressState::Replicate => {}
                ProgressState::Snapshot if self.matched[from] + 1 >= self.next[from] => {
                    self.become_replicate(local_now_us, from)
                }
                ProgressState::Snapshot => return,
            }
            if self.next[from] <= self.log.last_index() {
                self.send_append(local_now_us, from);
            }
            if self.log.membership().is_learner(from) {
                self.maybe_promote(local_now_us, from);
            }
            self.maybe_step_down_removed(local_now_us);
        } else {
            // A rejection answers one append, which it names; an old or duplicated one must not
            // move the follower back (etcd-raft's `MaybeDecrTo`). In replicate, one of an append
            // at or below the match is older than what matched; in probe, only the probe out
            // (at `next - 1`) is awaited; in snapshot, it answers what was sent before.
            let stale = match pr.state {
                ProgressState::Replicate => rejected_index <= self.matched[from],
                ProgressState::Probe => rejected_index != self.next[from] - 1,
                ProgressState::Snapshot => true,
            };
            if stale {
                return;
            }
            // Fast back-off (§5.3, end): skip the follower's whole conflicting term.
            let next = if hint_term > 0 {
                match self.log.last_index_of_term(hint_term) {
                    Some(i) => i + 1,
                    None => hint_index,
                }
            } else {
                hint_index
            };
            self.next[from] = next.clamp(self.matched[from] + 1, self.log.last_index() + 1);
            self.progress[from] = Progress::default();
            self.send_append(local_now_us, from);
        }
    }

    fn become_replicate(&mut self, local_now_us: i64, to: NodeId) {
        let caught_up = self.next[to] - 1 <= self.matched[to];
        self.next[to] = self.next[to].max(self.matched[to] + 1);
        self.progress[to] = Progress {
            state: ProgressState::Replicate,
            paused: false,
            waiting_since_us: if caught_up { i64::MAX } else { local_now_us },
        };
    }

    /// §5.4.2: the leader commits an index replicated on a majority only if that entry is of its
    /// own term; earlier entries commit indirectly with it (the Figure 8 case).
    fn maybe_commit(&mut self) {
        // The highest index a majority holds.
        // Only voters count (§4.2.1), the leader among them only while it is one (§4.2.2).
        let conf = self.log.membership();
        self.sorted.clear();
        self.sorted.extend(conf.voters().map(|v| self.matched[v]));
        if self.sorted.is_empty() {
            return;
        }
        self.sorted.sort_unstable_by(|a, b| b.cmp(a));
        let n = self.sorted[conf.majority() - 1];
        if n > self.commit
            && (self.log.term_at(n) == self.term || self.cfg.commit_by_counting_old_terms)
        {
            self.commit = n;
        }
    }

    fn send(&mut self, to: NodeId, msg: Message<C>) {
        self.ready.messages.push((to, msg));
    }
}

#[cfg(test)]
mod tests;
