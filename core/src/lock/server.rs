//! One node of the lock service: Raft, the applied lock table, and the node's own lease
//! countdowns. The leader's duties of the seed live here:
//! - it checks every client request against the lock table that results from its *whole* log
//!   (committed and pending) before it proposes (`handle_request`, `speculative`);
//! - once its term's no-op is committed it proposes `Expire{key, token}` for every lock whose
//!   countdown has run out on its own clock (`propose_due_expiries`);
//! - when the reply to a Grant cannot reach its client it proposes `Release{key}` at once
//!   (`reply_undeliverable`, the ghost lock).
//!
//! Followers only count down; nothing is deleted except by a committed Expire or Release.

use super::machine::{ApplyResult, ApplyRules, Lock, LockCommand, LockMachine, LockOp};
use super::{ClientId, Key, Token};
use crate::raft::{HardState, Index, Message, NodeId, NodeSetup, Raft, Role, Term};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Design switches of the lock service; all off by default (the seed's design).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Switches {
    /// Release carries the holder's token and deletes only on a match (a design alternative to
    /// the seed's key-only Release).
    pub release_with_token: bool,
    /// The storage resource ignores tokens (shows the lost update that fencing prevents).
    pub storage_ignores_tokens: bool,
    /// Break it: Expire deletes without checking the token.
    pub expire_ignores_token: bool,
    /// Break it: followers delete a lock when their own countdown runs out, without a committed Expire.
    pub followers_delete_on_countdown: bool,
    /// Break it: the token comes from a counter on the leader (restarting with each leader)
    /// instead of the Grant's log index.
    pub token_from_leader_counter: bool,
    /// Break it: the leader does not release a lock whose Grant reply could not be delivered.
    pub no_ghost_release: bool,
    /// Break it: the leader proposes a client's key-only Release without checking the holder.
    pub release_without_holder_check: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum RequestOp {
    Acquire { key: Key, lease_ms: u64 },
    Release { key: Key, token: Token },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientRequest {
    pub client: ClientId,
    pub req: u64,
    pub op: RequestOp,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    Granted {
        key: Key,
        token: Token,
        lease_ms: u64,
    },
    /// The key is held (by `holder` with `token`); the client waits and retries.
    Busy {
        key: Key,
        holder: Option<ClientId>,
        token: Token,
    },
    Released {
        key: Key,
    },
    NotHolder {
        key: Key,
    },
    NotLeader {
        hint: Option<NodeId>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientReply {
    pub req: u64,
    pub outcome: Outcome,
    /// The first answer anyone gave this request: the reply of the leader that proposed the
    /// entry, sent when it applied it in the same term. A later answer (a retry answered from
    /// the session, or by a leader that inherited the entry) may follow an earlier "granted".
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub first: bool,
}

/// How a leader learns that a Granted reply did not reach its client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplyLost {
    /// The reply could not be sent: the link to the client is cut (a TCP error at send). This
    /// says nothing about other replies to the same request, so it is a ghost signal only for
    /// the request's first reply ([`ClientReply::first`]): no "granted" can have come before.
    SendFailed,
    /// The client's side reset the connection: it crashed, restarted, or no longer asks for
    /// this request and does not hold this grant ([`crate::client::Client::takes_grant`]). The
    /// client itself says it does not and will not believe it holds the lock.
    ClientGone,
}

/// A countdown started when this node applied a Grant, on this node's local clock.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Lease {
    pub token: Token,
    pub lease_ms: u64,
    pub deadline_local_us: i64,
}

impl Lease {
    /// The countdown's time left when this node's clock reads `local_now_us`: negative once
    /// over (the lock then waits for a committed Expire). The one place this is computed: the
    /// snapshot, the lock view and the rings around the nodes read it here.
    pub fn left_us(&self, local_now_us: i64) -> i64 {
        self.deadline_local_us - local_now_us
    }

    /// The fraction of the lease left, 0 to 1 (0 once over).
    pub fn fraction_left(&self, local_now_us: i64) -> f64 {
        lease_fraction(self.left_us(local_now_us), self.lease_ms)
    }
}

/// The fraction `left_us` is of a lease of `lease_ms`, 0 to 1 (0 once over).
pub fn lease_fraction(left_us: i64, lease_ms: u64) -> f64 {
    (left_us.max(0) as f64 / (lease_ms.max(1) * 1000) as f64).min(1.0)
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerEvent {
    Role {
        role: Role,
        term: Term,
    },
    /// `digest` is the lock machine's digest right after this apply (for the invariant checks).
    Applied {
        index: Index,
        term: Term,
        /// A no-op, a command, or a configuration change (applied to the lock machine as a
        /// no-op).
        body: crate::raft::Body<LockCommand>,
        result: ApplyResult,
        digest: u64,
    },
    ExpireProposed {
        key: Key,
        token: Token,
    },
    GhostRelease {
        key: Key,
        token: Token,
        client: ClientId,
    },
    /// This node snapshotted its lock table at `index` and its log now starts after `log_from`.
    SnapshotTaken {
        index: Index,
        log_from: Index,
    },
    /// This node replaced its lock table with a snapshot at `index`: one from the leader
    /// (InstallSnapshot), or its own after a restart.
    SnapshotRestored {
        index: Index,
        term: Term,
        from_leader: bool,
    },
}

/// What a call produced, for the simulator to carry out.
#[derive(Clone, Debug, Default)]
pub struct Output {
    pub messages: Vec<(NodeId, Message<LockCommand>)>,
    pub replies: Vec<(ClientId, ClientReply)>,
    pub events: Vec<ServerEvent>,
}

#[derive(Clone, Debug)]
pub struct Server {
    pub raft: Raft<LockCommand>,
    pub machine: LockMachine,
    /// Result of each index this node applied since it (re)started or restored a snapshot, as
    /// far back as its log goes: see [`Server::result_at`].
    pub results: crate::chunked::Chunked<ApplyResult>,
    /// The index just before `results[0]`.
    results_from: Index,
    pub leases: BTreeMap<Key, Lease>,
    switches: Switches,
    rules: ApplyRules,
    /// Leader only: client requests waiting for their entry to apply.
    waiters: BTreeMap<Index, (ClientId, u64)>,
    /// Leader only: expiries proposed in this term.
    expiring: BTreeSet<(Key, Token)>,
    noop_committed: bool,
    /// The leader's token counter (only under `token_from_leader_counter`; volatile, per leader).
    counter: Token,
    out: Output,
}

impl Server {
    pub fn new(setup: NodeSetup, switches: Switches) -> Self {
        Self::from_raft(Raft::new(setup), switches)
    }

    /// Back from a crash: term, vote, log and snapshot survive; the lock table restarts from the
    /// snapshot and is rebuilt by applying the log again once the commit index is learned, and
    /// leases restart at full length.
    pub fn restart(setup: NodeSetup, switches: Switches, hs: HardState<LockCommand>) -> Self {
        let local_now_us = setup.local_now_us;
        let mut s = Self::from_raft(Raft::restart(setup, hs), switches);
        if let Some(snap) = s.raft.snapshot().cloned() {
            s.restore(local_now_us, &snap.state, snap.index);
            s.out.events.push(ServerEvent::SnapshotRestored {
                index: snap.index,
                term: snap.term,
                from_leader: false,
            });
        }
        s
    }

    fn from_raft(raft: Raft<LockCommand>, switches: Switches) -> Self {
        Server {
            raft,
            machine: LockMachine::default(),
            results: Default::default(),
            results_from: 0,
            leases: BTreeMap::new(),
            switches,
            rules: ApplyRules {
                expire_ignores_token: switches.expire_ignores_token,
            },
            waiters: BTreeMap::new(),
            expiring: BTreeSet::new(),
            noop_committed: false,
            counter: 0,
            out: Output::default(),
        }
    }

    /// The result this node got applying `index` (None if it did not apply it, or no longer
    /// remembers it: compacted, or before the snapshot it restored).
    pub fn result_at(&self, index: Index) -> Option<&ApplyResult> {
        if index <= self.results_from {
            return None;
        }
        self.results.get((index - self.results_from) as usize - 1)
    }

    /// The lock table becomes a snapshot's (§7): applied up to `index`. Every node counts leases
    /// on its own clock from when it learns of a Grant: a lock this node already counts (the
    /// same key and token) keeps its running countdown, and any other held lock's countdown
    /// starts now at full length, as after a restart.
    fn restore(&mut self, local_now_us: i64, state: &LockMachine, index: Index) {
        self.machine = state.clone();
        debug_assert_eq!(self.machine.applied, index);
        self.results = Default::default();
        self.results_from = index;
        let mut running = std::mem::take(&mut self.leases);
        for (key, l) in &self.machine.locks {
            if let Some(lease) = running.remove(key).filter(|r| r.token == l.token) {
                self.leases.insert(key.clone(), lease);
                continue;
            }
            let deadline_local_us =
                local_now_us.saturating_add((l.lease_ms as i64).saturating_mul(1000));
            self.leases.insert(
                key.clone(),
                Lease {
                    token: l.token,
                    lease_ms: l.lease_ms,
                    deadline_local_us,
                },
            );
        }
        self.expiring.clear();
        self.waiters.retain(|&i, _| i > index);
    }

    /// Every `snapshot_every` applied entries: hand Raft a snapshot of the lock table, and forget
    /// the results of the entries the log dropped.
    fn maybe_snapshot(&mut self) {
        let every = self.raft.config().snapshot_every;
        let applied = self.machine.applied;
        if every == 0 || applied < self.raft.snapshot_index() + every {
            return;
        }
        self.raft.snapshot_taken(applied, self.machine.clone());
        let log_from = self.raft.log().start();
        if log_from > self.results_from {
            self.results
                .drop_first((log_from - self.results_from) as usize);
            self.results_from = log_from;
        }
        self.out.events.push(ServerEvent::SnapshotTaken {
            index: applied,
            log_from,
        });
    }

    pub fn take_output(&mut self) -> Output {
        std::mem::take(&mut self.out)
    }

    /// Swap the output with `spare` (empty, keeping its capacity): the simulator reuses two
    /// buffers instead of allocating three vectors per call.
    pub fn swap_output(&mut self, spare: &mut Output) {
        debug_assert!(
            spare.messages.is_empty() && spare.replies.is_empty() && spare.events.is_empty()
        );
        std::mem::swap(&mut self.out, spare);
    }

    pub fn switches(&self) -> Switches {
        self.switches
    }

    /// Whether this leader's no-op is committed (it may act on its countdowns only then).
    pub fn noop_committed(&self) -> bool {
        self.noop_committed
    }

    /// The local time of the next timer: Raft's, or (leader only) the earliest lease to expire.
    /// Whether this leader already proposed Expire{key, token} (the set holds a few pairs at
    /// most; a scan avoids cloning the key for a lookup on the hot path).
    fn is_expiring(&self, key: &str, token: Token) -> bool {
        self.expiring
            .iter()
            .any(|(k, t)| *t == token && &**k == key)
    }

    pub fn next_deadline_us(&self) -> i64 {
        let mut d = self.raft.next_deadline_us();
        if self.switches.followers_delete_on_countdown && !self.raft.is_leader() {
            d = self
                .leases
                .values()
                .map(|l| l.deadline_local_us)
                .fold(d, i64::min);
        }
        if self.raft.is_leader() && self.noop_committed {
            for (key, l) in &self.leases {
                if !self.is_expiring(key, l.token) {
                    d = d.min(l.deadline_local_us);
                }
            }
        }
        d
    }

    /// The node's clock was set (a jump, a rate change): Raft's timers keep what they waited
    /// ([`Raft::observe_clock`]). The lease countdowns stay on the local clock, as the seed
    /// has them.
    pub fn observe_clock(&mut self, local_now_us: i64) {
        self.raft.observe_clock(local_now_us);
    }

    pub fn tick(&mut self, local_now_us: i64) {
        self.raft.observe_clock(local_now_us);
        if local_now_us >= self.raft.next_deadline_us() {
            self.raft.tick(local_now_us);
        }
        self.process(local_now_us);
        if self.switches.followers_delete_on_countdown && !self.raft.is_leader() {
            self.delete_on_own_countdown(local_now_us);
        }
    }

    /// The broken design of the `followers_delete_on_countdown` switch: a follower deletes a
    /// lock when its own countdown runs out, outside the log, so clock drift splits the tables.
    fn delete_on_own_countdown(&mut self, local_now_us: i64) {
        let due: Vec<Key> = self
            .leases
            .iter()
            .filter(|(_, l)| l.deadline_local_us <= local_now_us)
            .map(|(k, _)| k.clone())
            .collect();
        for key in due {
            self.leases.remove(&key);
            self.machine.remove_lock(&key);
        }
    }

    pub fn step(&mut self, local_now_us: i64, from: NodeId, msg: Message<LockCommand>) {
        self.raft.step(local_now_us, from, msg);
        self.process(local_now_us);
    }

    pub fn request(&mut self, local_now_us: i64, r: ClientRequest) {
        self.handle_request(local_now_us, r);
        self.process(local_now_us);
    }

    /// The lock that a lost `reply` leaves as a ghost, if this node leads and must release it:
    /// the reply granted it, the lock is still that client's grant after the whole log, and the
    /// loss proves the client never believed it holds it ([`ReplyLost`]). The rule that must
    /// never break: no ghost Release frees a lock its client can believe it holds.
    pub fn ghost_of(
        &self,
        client: ClientId,
        reply: &ClientReply,
        how: ReplyLost,
    ) -> Option<(Key, Token)> {
        let Outcome::Granted { key, token, .. } = &reply.outcome else {
            return None;
        };
        let proves = match how {
            ReplyLost::SendFailed => reply.first,
            ReplyLost::ClientGone => true,
        };
        (proves
            && self.raft.is_leader()
            && self
                .speculative_lock(key)
                .is_some_and(|l| l.token == *token && l.holder == Some(client)))
        .then(|| (key.clone(), *token))
    }

    /// The simulator could not deliver `reply` to `client` (see [`ReplyLost`]). If the lock it
    /// granted is a ghost ([`Server::ghost_of`]), nobody will use or release it, so the leader
    /// releases it at once (the lock service's ghost-lock rule). Returns the ghost, which this
    /// leader owes a release for (under `no_ghost_release` too, which breaks that promise).
    pub fn reply_undeliverable(
        &mut self,
        local_now_us: i64,
        client: ClientId,
        reply: &ClientReply,
        how: ReplyLost,
    ) -> Option<(Key, Token)> {
        let ghost = self.ghost_of(client, reply, how);
        if let Some((key, token)) = ghost.clone().filter(|_| !self.switches.no_ghost_release) {
            let cmd = LockCommand::of_leader(LockOp::Release {
                key: key.clone(),
                token: self.switches.release_with_token.then_some(token),
            });
            if self.raft.propose(local_now_us, cmd).is_ok() {
                self.out
                    .events
                    .push(ServerEvent::GhostRelease { key, token, client });
            }
        }
        self.process(local_now_us);
        ghost
    }

    /// Leader only: propose a membership change (Raft dissertation §4.1).
    pub fn propose_conf(
        &mut self,
        local_now_us: i64,
        change: crate::raft::ConfChange,
    ) -> Result<Index, crate::raft::ConfRefusal> {
        let r = self.raft.propose_conf(local_now_us, change);
        self.process(local_now_us);
        r
    }

    /// Leader only: propose again the last committed Expire for `key` (a teaching action that
    /// imitates a duplicated proposal). Returns whether it proposed.
    pub fn duplicate_expire(&mut self, local_now_us: i64, key: &str) -> bool {
        let log = self.raft.log();
        let found = (1..=self.raft.commit_index()).rev().find_map(|i| {
            log.entry(i)
                .and_then(|e| e.cmd().cloned())
                .filter(|c| matches!(&c.op, LockOp::Expire { key: k, .. } if **k == *key))
        });
        let ok = match found {
            Some(cmd) => self.raft.propose(local_now_us, cmd).is_ok(),
            None => false,
        };
        self.process(local_now_us);
        ok
    }

    /// The state that results from the whole log, committed and pending.
    pub fn speculative(&self) -> LockMachine {
        let mut m = self.machine.clone();
        let log = self.raft.log();
        for i in m.applied + 1..=log.last_index() {
            m.apply_with(i, log.entry(i).and_then(|e| e.cmd()), self.rules);
        }
        m
    }

    /// The lock on one key after the whole log, committed and pending: the same apply function,
    /// run over only the pending entries that name this key (the hot path of every request).
    pub fn speculative_lock(&self, key: &str) -> Option<Lock> {
        let mut m = LockMachine::default();
        if let Some(l) = self.machine.locks.get(key) {
            m.insert_lock(key.into(), l.clone());
        }
        let log = self.raft.log();
        for i in self.machine.applied + 1..=log.last_index() {
            if let Some(c) = log
                .entry(i)
                .and_then(|e| e.cmd())
                .filter(|c| c.op.key() == key)
            {
                m.applied = i - 1;
                m.apply_with(i, Some(c), self.rules);
            }
        }
        m.remove_lock(key)
    }

    fn reply(&mut self, client: ClientId, req: u64, outcome: Outcome) {
        self.out.replies.push((
            client,
            ClientReply {
                req,
                outcome,
                first: false,
            },
        ));
    }

    fn handle_request(&mut self, local_now_us: i64, r: ClientRequest) {
        if !self.raft.is_leader() {
            let hint = self.raft.leader();
            self.reply(r.client, r.req, Outcome::NotLeader { hint });
            return;
        }
        // A retry of a request already applied gets the original result, not a second apply.
        if let Some(s) = self.machine.sessions.get(&r.client) {
            if s.req == r.req {
                let mut outcome = outcome_of(&s.op, s.result, &self.machine.locks);
                // A grant revoked since (ghost-released or expired) is no longer this client's:
                // answering "granted" again would make two clients believe they hold the key.
                if let Outcome::Granted { key, token, .. } = &outcome {
                    let now_held = self.speculative_lock(key);
                    if !now_held
                        .as_ref()
                        .is_some_and(|l| l.token == *token && l.holder == Some(r.client))
                    {
                        let (holder, token) = now_held.map_or((None, 0), |l| (l.holder, l.token));
                        outcome = Outcome::Busy {
                            key: key.clone(),
                            holder,
                            token,
                        };
                    }
                }
                self.reply(r.client, r.req, outcome);
                return;
            }
            if s.req > r.req {
                return; // older than what was applied: the client no longer waits for it
            }
        }
        // A retry of a request still in the log: wait for that entry.
        let log = self.raft.log();
        for i in self.machine.applied + 1..=log.last_index() {
            if let Some(c) = log.entry(i).and_then(|e| e.cmd()) {
                if c.client == Some(r.client) && c.req == r.req {
                    self.waiters.insert(i, (r.client, r.req));
                    return;
                }
            }
        }
        let cmd = match r.op {
            RequestOp::Acquire { key, lease_ms } => {
                if let Some(l) = self.speculative_lock(&key) {
                    let (holder, token) = (l.holder, l.token);
                    self.reply(r.client, r.req, Outcome::Busy { key, holder, token });
                    return;
                }
                LockOp::Grant { key, lease_ms }
            }
            RequestOp::Release { key, token } => {
                // The seed's Release names only the key: only the holder may have it proposed,
                // or a late key-only release would delete somebody else's lock.
                match self.speculative_lock(&key) {
                    Some(l) if l.holder == Some(r.client) && l.token == token => {}
                    Some(_) if self.switches.release_without_holder_check => {}
                    _ => {
                        self.reply(r.client, r.req, Outcome::NotHolder { key });
                        return;
                    }
                }
                LockOp::Release {
                    key,
                    token: self.switches.release_with_token.then_some(token),
                }
            }
        };
        let counter_token = match (&cmd, self.switches.token_from_leader_counter) {
            (LockOp::Grant { .. }, true) => {
                self.counter += 1;
                Some(self.counter)
            }
            _ => None,
        };
        if let Ok(index) = self.raft.propose(
            local_now_us,
            LockCommand {
                op: cmd,
                client: Some(r.client),
                req: r.req,
                counter_token,
            },
        ) {
            self.waiters.insert(index, (r.client, r.req));
        }
    }

    fn process(&mut self, local_now_us: i64) {
        self.drain_raft(local_now_us);
        // An Expire may commit at once (a single-node cluster): apply until nothing is new.
        loop {
            self.apply_committed(local_now_us);
            if !self.propose_due_expiries(local_now_us) {
                break;
            }
        }
        self.maybe_snapshot();
        self.drain_raft(local_now_us);
    }

    fn drain_raft(&mut self, local_now_us: i64) {
        let ready = self.raft.ready_mut();
        if let Some(snap) = ready.restore.take() {
            self.restore(local_now_us, &snap.state, snap.index);
            self.out.events.push(ServerEvent::SnapshotRestored {
                index: snap.index,
                term: snap.term,
                from_leader: true,
            });
        }
        let ready = self.raft.ready_mut();
        self.out.messages.append(&mut ready.messages);
        let changes = std::mem::take(&mut ready.role_changes);
        for (role, term) in changes {
            if role != Role::Leader {
                // Whatever this node promised as leader is void; clients time out and retry.
                self.waiters.clear();
                self.expiring.clear();
                self.noop_committed = false;
            } else {
                self.counter = 0;
            }
            self.out.events.push(ServerEvent::Role { role, term });
        }
    }

    fn apply_committed(&mut self, local_now_us: i64) {
        let commit = self.raft.commit_index();
        while self.machine.applied < commit {
            let index = self.machine.applied + 1;
            let entry = self
                .raft
                .log()
                .entry(index)
                .expect("committed entry exists")
                .clone();
            let result = self.machine.apply_with(index, entry.cmd(), self.rules);
            self.results.push(result);
            self.track_lease(local_now_us, entry.cmd(), result);
            let leader = self.raft.is_leader();
            if leader && entry.term == self.raft.term() && entry.is_noop() {
                self.noop_committed = true;
            }
            // Every waiter is answered, whatever the entry's term: a retry that found its
            // request in a log this leader inherited waits for that entry like any other.
            if let (true, Some(cmd)) = (leader, entry.cmd()) {
                if let Some((client, req)) = self.waiters.remove(&index) {
                    if cmd.client == Some(client) && cmd.req == req {
                        let outcome = outcome_of(&cmd.op, result, &self.machine.locks);
                        // Only the leader that proposed the entry answers it first: one that
                        // inherited it cannot know whether an earlier leader said "granted".
                        let first = entry.term == self.raft.term();
                        self.out.replies.push((
                            client,
                            ClientReply {
                                req,
                                outcome,
                                first,
                            },
                        ));
                    }
                }
            }
            let digest = self.machine.digest();
            self.out.events.push(ServerEvent::Applied {
                index,
                term: entry.term,
                body: entry.body,
                result,
                digest,
            });
        }
    }

    /// Every node counts each lease on its own clock from the moment it applies the Grant.
    fn track_lease(&mut self, local_now_us: i64, cmd: Option<&LockCommand>, result: ApplyResult) {
        let Some(cmd) = cmd else { return };
        match (&cmd.op, result) {
            (LockOp::Grant { key, lease_ms }, ApplyResult::Granted { token }) => {
                let deadline_local_us =
                    local_now_us.saturating_add((*lease_ms as i64).saturating_mul(1000));
                self.leases.insert(
                    key.clone(),
                    Lease {
                        token,
                        lease_ms: *lease_ms,
                        deadline_local_us,
                    },
                );
            }
            (op, ApplyResult::Released | ApplyResult::Expired { existed: true }) => {
                if let Some(l) = self.leases.remove(op.key()) {
                    self.expiring
                        .retain(|(k, t)| !(*t == l.token && &**k == op.key()));
                }
            }
            _ => {}
        }
    }

    /// The leader proposes Expire{key, token} for each lease that ran out on its own clock,
    /// but only once its term's no-op is committed (before that its table may lag the log).
    fn propose_due_expiries(&mut self, local_now_us: i64) -> bool {
        if !self.raft.is_leader() || !self.noop_committed {
            return false;
        }
        let due: Vec<(Key, Token)> = self
            .leases
            .iter()
            .filter(|(k, l)| l.deadline_local_us <= local_now_us && !self.is_expiring(k, l.token))
            .map(|(k, l)| (k.clone(), l.token))
            .collect();
        if due.is_empty() {
            return false;
        }
        let mut proposed = false;
        for (key, token) in due {
            self.expiring.insert((key.clone(), token));
            if self.speculative_lock(&key).is_none_or(|l| l.token != token) {
                continue; // already released or expiring in the pending tail
            }
            let cmd = LockCommand::of_leader(LockOp::Expire {
                key: key.clone(),
                token,
            });
            if self.raft.propose(local_now_us, cmd).is_ok() {
                self.out
                    .events
                    .push(ServerEvent::ExpireProposed { key, token });
                proposed = true;
            }
        }
        proposed
    }
}

/// What a client is told about its applied request.
fn outcome_of(op: &LockOp, result: ApplyResult, locks: &BTreeMap<Key, Lock>) -> Outcome {
    match (op, result) {
        (LockOp::Grant { key, lease_ms }, ApplyResult::Granted { token }) => Outcome::Granted {
            key: key.clone(),
            token,
            lease_ms: *lease_ms,
        },
        (LockOp::Grant { key, .. }, _) => {
            let (holder, token) = locks.get(key).map_or((None, 0), |l| (l.holder, l.token));
            Outcome::Busy {
                key: key.clone(),
                holder,
                token,
            }
        }
        (LockOp::Release { key, .. }, ApplyResult::Released) => {
            Outcome::Released { key: key.clone() }
        }
        (op, _) => Outcome::NotHolder {
            key: op.key().into(),
        },
    }
}
