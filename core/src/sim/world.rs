//! The simulated world. Virtual time is in integer microseconds; one event queue ordered by
//! (time, sequence number) so that ties never depend on memory addresses or hash order.
//! [`World::step`] processes exactly one event. The world is `Clone`: a clone is a snapshot,
//! and replaying from it reproduces the run exactly.

use super::clock::{Clock, PPM_ONE};
use super::fault::{Config, Fault, TimedFault};
use super::kind::MessageKind;
use super::network::Network;
use super::observe::{BrokenInvariant, Observer};
use crate::client::{Client, ClientOutput, Storage};
use crate::lock::server::Switches;
use crate::lock::server::{ClientReply, ClientRequest, Output, ReplyLost, Server, ServerEvent};
use crate::lock::{ApplyResult, ClientId, Key, LockCommand, Token};
use crate::raft::{
    ConfChange, ConfRefusal, HardState, Membership, Message, NodeId, NodeSetup, RaftConfig,
    NODE_SLOTS,
};
use crate::rng::Rng;
use crate::trace::{CmdView, Event as TraceEvent, Trace};
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::rc::Rc;

#[derive(Clone, Debug)]
pub enum Payload {
    Raft(Message<LockCommand>),
    Request(ClientRequest),
    Reply(ClientReply),
    Write { key: String, token: u64 },
}

impl Payload {
    pub fn kind(&self) -> MessageKind {
        match self {
            Payload::Raft(m) => match m {
                Message::Vote { pre: true, .. } => MessageKind::PreVote,
                Message::Vote { .. } => MessageKind::Vote,
                Message::VoteReply { pre: true, .. } => MessageKind::PreVoteReply,
                Message::VoteReply { .. } => MessageKind::VoteReply,
                Message::Append { entries, .. } if entries.is_empty() => MessageKind::Heartbeat,
                Message::Append { .. } => MessageKind::Append,
                Message::AppendReply { .. } => MessageKind::AppendReply,
                Message::Snapshot { .. } => MessageKind::Snapshot,
            },
            Payload::Request(_) => MessageKind::Request,
            Payload::Reply(_) => MessageKind::Reply,
            Payload::Write { .. } => MessageKind::Write,
        }
    }
}

/// A message in flight, as the page draws it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flight {
    /// Its place in the send order: the same message keeps it while it flies.
    pub seq: u64,
    pub from: usize,
    pub to: usize,
    pub kind: MessageKind,
    pub sent_us: u64,
    /// When it is delivered (true time).
    pub at_us: u64,
}

/// A message on the wire. Endpoints: nodes `0..n`, clients `n..n+c`, the storage `n+c`.
#[derive(Clone, Debug)]
pub struct Packet {
    pub from: u32,
    pub to: u32,
    pub sent_us: u64,
    pub payload: Payload,
}

/// What falls due at a queued moment: a delivery, a timer, a timeline fault.
#[derive(Clone, Debug)]
enum Due {
    /// A message in flight: its slot in `World::packets`.
    Deliver(u32),
    NodeTimer {
        node: u32,
        gen: u64,
    },
    ClientTimer {
        client: u32,
        gen: u64,
    },
    Fault(u32),
}

#[derive(Clone, Debug)]
struct Queued {
    at: u64,
    seq: u64,
    ev: Due,
}

impl PartialEq for Queued {
    fn eq(&self, o: &Self) -> bool {
        self.key() == o.key()
    }
}
impl Eq for Queued {}
impl PartialOrd for Queued {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Queued {
    /// At equal times, timeline actions come before everything else, so an action recorded
    /// during play lands at the same place in the order when the run is replayed from the
    /// scenario document (where it was queued first).
    fn key(&self) -> (u64, u8, u64) {
        (self.at, !matches!(self.ev, Due::Fault(_)) as u8, self.seq)
    }
}

impl Ord for Queued {
    // BinaryHeap is a max-heap: the earliest key must compare greatest.
    fn cmp(&self, o: &Self) -> Ordering {
        o.key().cmp(&self.key())
    }
}

/// Timer bookkeeping shared by nodes and clients: one live queue event at a time. A deadline
/// that moves later leaves the event in place (it re-plans when it fires); one that moves
/// earlier, a pause, a crash or a clock change invalidates it by bumping `gen`.
#[derive(Clone, Debug, Default)]
struct TimerSlot {
    gen: u64,
    at: Option<u64>,
}

impl TimerSlot {
    /// Forget the live queue event (it will fire as stale): after a pause, crash or clock change.
    fn invalidate(&mut self) {
        self.gen += 1;
        self.at = None;
    }

    /// Plan the timer for local deadline `d` on `clock`: returns the (time, generation) of a new
    /// queue event when one is needed (none is when the live event is already early enough).
    fn plan(&mut self, clock: &Clock, d: i64, now_us: u64) -> Option<(u64, u64)> {
        if d == i64::MAX {
            return None;
        }
        let at = clock.true_when(d, now_us);
        if self.at.is_some_and(|s| s <= at) {
            return None;
        }
        self.gen += 1;
        self.at = Some(at);
        Some((at, self.gen))
    }
}

/// A node is up, running its server, or crashed, keeping only what survives a crash; or no
/// server has that id yet (an id a membership change adds later).
#[derive(Clone, Debug)]
pub enum NodeState {
    Up(Box<Server>),
    Crashed(HardState<LockCommand>),
    Absent,
}

#[derive(Clone, Debug)]
pub struct NodeSlot {
    pub state: NodeState,
    pub clock: Clock,
    pub paused: bool,
    /// How many times the node came back from a crash in this run.
    pub restarts: u32,
    held: Vec<Packet>,
    /// Connection resets that reached this node while it was paused: a Granted reply that its
    /// client did not take ([`ReplyLost::ClientGone`]), handled when the node wakes.
    held_resets: Vec<(ClientId, ClientReply)>,
    timer: TimerSlot,
}

/// What a node's state holds for the moment it is moved out (never seen by anyone else).
fn placeholder() -> NodeState {
    NodeState::Crashed(HardState {
        term: 0,
        voted_for: None,
        joined: false,
        log: Default::default(),
        snapshot: None,
    })
}

impl NodeSlot {
    /// A slot no server has filled yet.
    fn absent() -> Self {
        NodeSlot {
            state: NodeState::Absent,
            clock: Clock::default(),
            paused: false,
            restarts: 0,
            held: Vec::new(),
            held_resets: Vec::new(),
            timer: TimerSlot::default(),
        }
    }

    /// The server, while the node is up.
    pub fn server(&self) -> Option<&Server> {
        match &self.state {
            NodeState::Up(s) => Some(s),
            _ => None,
        }
    }

    pub fn server_mut(&mut self) -> Option<&mut Server> {
        match &mut self.state {
            NodeState::Up(s) => Some(s),
            _ => None,
        }
    }

    /// No server has this id yet.
    pub fn is_absent(&self) -> bool {
        matches!(self.state, NodeState::Absent)
    }

    /// What survived, while the node is crashed.
    pub fn persisted(&self) -> Option<&HardState<LockCommand>> {
        match &self.state {
            NodeState::Crashed(h) => Some(h),
            _ => None,
        }
    }

    /// Its log, up or crashed (a crashed node's log is on its disk); none while absent.
    pub fn log(&self) -> Option<&crate::raft::Log<LockCommand>> {
        match &self.state {
            NodeState::Up(s) => Some(s.raft.log()),
            NodeState::Crashed(h) => Some(&h.log),
            NodeState::Absent => None,
        }
    }

    /// The index of this node's latest snapshot, up or crashed (0: none).
    pub fn snapshot_index(&self) -> crate::raft::Index {
        match &self.state {
            NodeState::Up(s) => s.raft.snapshot_index(),
            NodeState::Crashed(h) => h.snapshot_index(),
            NodeState::Absent => 0,
        }
    }
}

#[derive(Clone, Debug)]
pub struct ClientSlot {
    pub client: Client,
    pub clock: Clock,
    pub crashed: bool,
    pub paused: bool,
    held: Vec<Packet>,
    timer: TimerSlot,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorldStats {
    pub events: u64,
    pub messages_sent: u64,
    pub messages_dropped: u64,
    /// Raft messages sent between nodes, and about how many bytes they took
    /// ([`crate::raft::Message::wire_bytes`]).
    pub raft_messages: u64,
    pub raft_bytes: u64,
    pub leader_changes: u64,
    pub grants: u64,
    pub expiries: u64,
    pub ghost_releases: u64,
    pub writes_accepted: u64,
    pub writes_rejected: u64,
    /// Followers that installed a leader's snapshot (§7).
    pub snapshot_installs: u64,
}

#[derive(Clone, Debug)]
pub struct World {
    pub now_us: u64,
    seq: u64,
    queue: BinaryHeap<Queued>,
    rng: Rng,
    /// How many node slots the run has (ids 1..=node_count; 0-based 0..node_count): the nodes
    /// it starts with, and any id a membership change adds (absent until then).
    pub node_count: usize,
    /// How many nodes the run started with: its first configuration, voters `0..first_nodes`.
    pub first_nodes: usize,
    pub raft_cfg: RaftConfig,
    pub seed: u64,
    switches: Switches,
    /// The faults of this run in the order they were added (the queue holds their indexes).
    timeline: Rc<Vec<TimedFault>>,
    pub nodes: Vec<NodeSlot>,
    pub clients: Vec<ClientSlot>,
    pub storage: Storage,
    pub net: Network,
    pub trace: Trace,
    /// The invariant checks (`crate::check`), given by `World::new`; none: unchecked.
    pub observer: Option<Box<dyn Observer>>,
    /// The highest index applied anywhere (counts grants and expiries when unobserved).
    highest_applied: u64,
    /// Run the invariant checks after every event: on from `World::new` in every build; the
    /// benchmark turns it off.
    pub check_every_event: bool,
    pub stats: WorldStats,
    /// Clients start no new step (after `calm`).
    quiesced: bool,
    /// The latest deliveries (from, to, kind, sent, delivered), for the space-time diagram;
    /// kept only when the trace keeps its lines (the page), capped at `RECENT_MAX`.
    pub recent: std::collections::VecDeque<(u32, u32, MessageKind, u64, u64)>,
    /// Some server clock ran at a rate other than 1 or jumped: lease durations measured on
    /// different machines no longer agree, so `one_believed_holder` is not expected to hold.
    pub server_clocks_disturbed: bool,
    /// Some client's clock jumped back: it may count a lease past its end by more than its
    /// margin covers, so `one_believed_holder` is not expected to hold either.
    pub client_clock_jumped_back: bool,
    /// What the clients observed (the page, tests and the CLI check it against a mutex).
    pub history: super::history::History,
    /// Counts what can make a client believe it holds a key it did not believe it held: a
    /// reply handed to a client, and a fault (a client's clock may jump back). Beliefs otherwise
    /// only lapse, so a check of them may skip the events in between.
    pub belief_epoch: u64,
    /// Record `history`: on where the trace keeps its lines (the page, the CLI); the benchmark
    /// of the checks turns it on without them.
    pub record_history: bool,
    /// An empty node output with capacity, swapped with a server's (see `after_node`).
    spare_out: Output,
    /// Messages in flight, by slot (the queue holds slot numbers: no allocation per message).
    packets: Slab<Packet>,
}

/// Slots reused through a free list.
#[derive(Clone, Debug)]
struct Slab<T> {
    slots: Vec<Option<T>>,
    free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab {
            slots: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<T> Slab<T> {
    fn put(&mut self, x: T) -> u32 {
        match self.free.pop() {
            Some(k) => {
                self.slots[k as usize] = Some(x);
                k
            }
            None => {
                self.slots.push(Some(x));
                (self.slots.len() - 1) as u32
            }
        }
    }
    fn take(&mut self, k: u32) -> T {
        self.free.push(k);
        self.slots[k as usize]
            .take()
            .expect("a queued packet's slot is full")
    }
    fn get(&self, k: u32) -> &T {
        self.slots[k as usize]
            .as_ref()
            .expect("a queued packet's slot is full")
    }
}

pub const RECENT_MAX: usize = 3000;

impl World {
    /// Build the world of a configuration at time 0 (a scenario document compiles into one:
    /// `World::new` in [`crate::scenario`]).
    pub fn build(cfg: &Config, keep_trace: bool) -> World {
        let n = cfg.nodes;
        // Slots for ids the timeline adds later grow when the run reaches them (`grow_slots`),
        // never here: a run recorded action by action in the page and its replay from the
        // document must count the same nodes at every moment (clients pick their nodes by
        // that count), or the link would not reproduce the run.
        let slots = n;
        let mut rng = Rng::new(cfg.seed);
        let raft_cfg = cfg.raft.clone();
        let mut nodes = Vec::with_capacity(slots);
        for id in 0..n {
            let mut clock = Clock::default();
            for c in cfg.clocks.iter().filter(|c| c.node == id) {
                clock = Clock::new(c.offset_us, c.rate_ppm);
            }
            let setup = NodeSetup::new(id, n)
                .cfg(raft_cfg.clone())
                .rng(rng.fork())
                .at(clock.local_at(0));
            let server = Server::new(setup, cfg.switches);
            nodes.push(NodeSlot {
                state: NodeState::Up(Box::new(server)),
                clock,
                paused: false,
                restarts: 0,
                held: Vec::new(),
                held_resets: Vec::new(),
                timer: TimerSlot::default(),
            });
        }
        nodes.resize_with(slots, NodeSlot::absent);
        let clients = cfg
            .clients
            .iter()
            .enumerate()
            .map(|(i, c)| ClientSlot {
                client: Client::new(i as ClientId, c.clone(), n, 0),
                clock: Clock::new(0, c.rate_ppm),
                crashed: false,
                paused: false,
                held: Vec::new(),
                timer: TimerSlot::default(),
            })
            .collect::<Vec<_>>();
        // Clients come after every node id a run may have, so a node added later renumbers
        // nothing.
        let endpoints = NODE_SLOTS + clients.len() + 1;
        let mut w = World {
            now_us: 0,
            seq: 0,
            queue: BinaryHeap::new(),
            rng,
            node_count: slots,
            first_nodes: n,
            raft_cfg,
            seed: cfg.seed,
            switches: cfg.switches,
            timeline: cfg.timeline.clone(),
            nodes,
            clients,
            storage: Storage {
                ignores_tokens: cfg.switches.storage_ignores_tokens,
                ..Storage::default()
            },
            net: Network::new(endpoints, cfg.network.clone()),
            trace: Trace::new(keep_trace),
            observer: None,
            highest_applied: 0,
            // On in every build: violations are trace events, so a debug and a release run of
            // one scenario must check alike to give one trace.
            check_every_event: true,
            stats: WorldStats::default(),
            quiesced: false,
            recent: Default::default(),
            server_clocks_disturbed: cfg.clocks.iter().any(|c| c.rate_ppm != PPM_ONE),
            client_clock_jumped_back: false,
            history: Default::default(),
            record_history: keep_trace,
            belief_epoch: 0,
            spare_out: Output::default(),
            packets: Slab::default(),
        };
        for (i, t) in cfg.timeline.iter().enumerate() {
            w.push(t.at_us, Due::Fault(i as u32));
        }
        for i in 0..n {
            w.reschedule_node(i);
        }
        for c in 0..w.clients.len() {
            w.reschedule_client(c);
        }
        w
    }

    pub fn storage_endpoint(&self) -> usize {
        NODE_SLOTS + self.clients.len()
    }

    /// The network endpoint of client `c` (nodes are endpoints `0..NODE_SLOTS`).
    pub fn client_endpoint(&self, c: usize) -> usize {
        NODE_SLOTS + c
    }

    /// The client at endpoint `e`, if it is one.
    pub fn endpoint_client(&self, e: usize) -> Option<usize> {
        (NODE_SLOTS..self.storage_endpoint())
            .contains(&e)
            .then(|| e - NODE_SLOTS)
    }

    pub fn endpoint_name(&self, e: usize) -> String {
        if e < NODE_SLOTS {
            format!("n{}", e + 1)
        } else if let Some(c) = self.endpoint_client(e) {
            self.clients[c].client.cfg.name.clone()
        } else {
            "storage".to_string()
        }
    }

    pub fn client_name(&self, c: ClientId) -> String {
        self.clients
            .get(c as usize)
            .map_or_else(|| format!("client{c}"), |s| s.client.cfg.name.clone())
    }

    /// Messages in flight, in the order they were sent.
    pub fn in_flight(&self) -> Vec<Flight> {
        let mut v: Vec<Flight> = self
            .queue
            .iter()
            .filter_map(|q| match &q.ev {
                Due::Deliver(k) => {
                    let p = self.packets.get(*k);
                    Some(Flight {
                        seq: q.seq,
                        from: p.from as usize,
                        to: p.to as usize,
                        kind: p.payload.kind(),
                        sent_us: p.sent_us,
                        at_us: q.at,
                    })
                }
                _ => None,
            })
            .collect();
        v.sort_by_key(|m| m.seq);
        v
    }

    /// How many messages are in flight.
    pub fn in_flight_count(&self) -> usize {
        self.queue
            .iter()
            .filter(|q| matches!(q.ev, Due::Deliver(_)))
            .count()
    }

    pub fn next_event_time(&self) -> Option<u64> {
        self.queue.peek().map(|q| q.at)
    }

    fn push_packet(&mut self, at: u64, p: Packet) {
        let k = self.packets.put(p);
        self.push(at, Due::Deliver(k));
    }

    fn push(&mut self, at: u64, ev: Due) {
        self.seq += 1;
        self.queue.push(Queued {
            at,
            seq: self.seq,
            ev,
        });
    }

    /// Process exactly one event. Returns false when the queue is empty.
    pub fn step(&mut self) -> bool {
        let Some(q) = self.queue.pop() else {
            return false;
        };
        debug_assert!(q.at >= self.now_us);
        self.now_us = q.at;
        let counted = match q.ev {
            Due::Deliver(k) => {
                let p = self.packets.take(k);
                self.deliver(p);
                true
            }
            Due::NodeTimer { node, gen } => self.fire_node_timer(node as usize, gen),
            Due::ClientTimer { client, gen } => self.fire_client_timer(client as usize, gen),
            Due::Fault(i) => {
                // The timeline is shared (Rc): a clone of the handle, not of the fault.
                let timeline = Rc::clone(&self.timeline);
                self.apply_fault(&timeline[i as usize]);
                true
            }
        };
        if counted {
            self.stats.events += 1;
            if self.check_every_event {
                self.run_checks();
            }
        }
        true
    }

    /// The observer's checks after an event.
    fn run_checks(&mut self) {
        if let Some(mut o) = self.observer.take() {
            let found = o.after_event(self);
            self.observer = Some(o);
            self.record_violations(found);
        }
    }

    /// Process every event before or at `t_us`, then set the clock to `t_us`.
    pub fn run_until(&mut self, t_us: u64) {
        while self.queue.peek().is_some_and(|q| q.at <= t_us) {
            self.step();
        }
        self.now_us = self.now_us.max(t_us);
    }

    /// Process `n` counted events (or until the queue is empty).
    pub fn run_events(&mut self, n: u64) {
        let target = self.stats.events + n;
        while self.stats.events < target && self.step() {}
    }

    /// Broken invariants go into the trace (the observer keeps its own account of them).
    fn record_violations(&mut self, found: Vec<BrokenInvariant>) {
        for f in found {
            self.trace.push(
                self.now_us,
                TraceEvent::Violation {
                    invariant: f.invariant,
                    detail: f.detail,
                },
            );
        }
    }

    // ---- delivery ---------------------------------------------------------------------------

    fn send(&mut self, from: usize, to: usize, payload: Payload) {
        self.stats.messages_sent += 1;
        if let Payload::Raft(m) = &payload {
            self.stats.raft_messages += 1;
            self.stats.raft_bytes += m.wire_bytes();
        }
        if !self.net.is_up(from, to) {
            self.stats.messages_dropped += 1;
            return;
        }
        let raft = matches!(payload, Payload::Raft(_));
        let s = &self.net.settings;
        let (lo, hi, drop_ppm, dup_ppm) = (
            s.latency_us[0],
            s.latency_us[1],
            s.drop_ppm,
            s.duplicate_ppm,
        );
        if raft && self.rng.chance_ppm(drop_ppm) {
            self.stats.messages_dropped += 1;
            return;
        }
        if raft && self.rng.chance_ppm(dup_ppm) {
            let at = self.now_us + self.rng.range_inclusive(lo, hi);
            let p = Packet {
                from: from as u32,
                to: to as u32,
                sent_us: self.now_us,
                payload: payload.clone(),
            };
            self.push_packet(at, p);
        }
        let at = self.now_us + self.rng.range_inclusive(lo, hi);
        let p = Packet {
            from: from as u32,
            to: to as u32,
            sent_us: self.now_us,
            payload,
        };
        self.push_packet(at, p);
    }

    fn deliver(&mut self, p: Packet) {
        let to = p.to as usize;
        if self.trace.keep {
            if self.recent.len() >= RECENT_MAX {
                self.recent.pop_front();
            }
            self.recent
                .push_back((p.from, p.to, p.payload.kind(), p.sent_us, self.now_us));
        }
        if to < self.node_count {
            let slot = &mut self.nodes[to];
            if slot.server().is_none() {
                return;
            }
            if slot.paused {
                slot.held.push(p);
                return;
            }
            let local = slot.clock.local_at(self.now_us);
            let server = slot.server_mut().expect("checked above");
            if let Payload::Raft(crate::raft::Message::AppendReply { term, .. }) = &p.payload {
                if *term == server.raft.term() {
                    if let Some(o) = self.observer.as_mut() {
                        o.heard(to, p.from as usize, p.sent_us);
                    }
                }
            }
            match p.payload {
                Payload::Raft(m) => server.step(local, p.from as usize, m),
                Payload::Request(r) => server.request(local, r),
                _ => {}
            }
            self.after_node(to);
        } else if to < self.storage_endpoint() {
            let c = to - NODE_SLOTS;
            let slot = &mut self.clients[c];
            if let Payload::Reply(r) = &p.payload {
                // A grant that reaches a crashed client, or one that restarted or gave up on
                // that request, is a ghost: the connection it came on is gone, and the reset
                // reaches the node that sent it.
                if let crate::lock::server::Outcome::Granted { key, token, .. } = &r.outcome {
                    if slot.crashed || !slot.client.takes_grant(r.req, key, *token) {
                        let reply = r.clone();
                        self.grant_undeliverable(p.from as usize, c as ClientId, reply);
                        return;
                    }
                }
            }
            let slot = &mut self.clients[c];
            if slot.crashed {
                return;
            }
            if slot.paused {
                slot.held.push(p);
                return;
            }
            if let Payload::Reply(r) = p.payload {
                let waiting = matches!(&slot.client.phase, crate::client::Phase::Waiting { req, .. } if *req == r.req);
                if waiting && self.record_history {
                    self.history
                        .respond(c as ClientId, r.req, &r.outcome, self.now_us);
                }
                let slot = &mut self.clients[c];
                let local = slot.clock.local_at(self.now_us);
                slot.client.on_reply(local, p.from as usize, r);
                self.belief_epoch += 1;
                self.after_client(c);
            }
        } else if let Payload::Write { key, token } = p.payload {
            let client = (p.from as usize - NODE_SLOTS) as ClientId;
            let before = self.storage.highest.get(&key).copied().unwrap_or(0);
            let accepted = self.storage.write(self.now_us, client, &key, token);
            if accepted {
                self.stats.writes_accepted += 1;
            } else {
                self.stats.writes_rejected += 1;
            }
            let name = self.client_name(client);
            self.trace.push(
                self.now_us,
                TraceEvent::Write {
                    client: name,
                    key: key.clone(),
                    token,
                    accepted,
                },
            );
            if let Some(o) = self.observer.as_mut() {
                let found = o.storage_write(self.now_us, &key, token, before, accepted);
                self.record_violations(found);
            }
        }
    }

    // ---- nodes ------------------------------------------------------------------------------

    fn fire_node_timer(&mut self, i: usize, gen: u64) -> bool {
        let slot = &mut self.nodes[i];
        if gen != slot.timer.gen {
            return false; // superseded
        }
        slot.timer.at = None;
        if slot.paused {
            return false;
        }
        let local = slot.clock.local_at(self.now_us);
        let Some(server) = slot.server_mut() else {
            return false;
        };
        server.tick(local);
        self.after_node(i);
        true
    }

    /// Carry out what a node's call produced, then re-plan its timer.
    fn after_node(&mut self, i: usize) {
        loop {
            let Some(server) = self.nodes[i].server_mut() else {
                return;
            };
            let mut out: Output = std::mem::take(&mut self.spare_out);
            server.swap_output(&mut out);
            if out.messages.is_empty() && out.replies.is_empty() && out.events.is_empty() {
                self.spare_out = out;
                break;
            }
            for (to, m) in out.messages.drain(..) {
                self.send(i, to, Payload::Raft(m));
            }
            for ev in out.events.drain(..) {
                self.node_event(i, ev);
            }
            let mut replies = std::mem::take(&mut out.replies);
            for (c, reply) in replies.drain(..) {
                let ep = NODE_SLOTS + c as usize;
                // The connection is gone: the server learns it at once (a TCP error). A crashed
                // client believes nothing; a cut link says nothing of other replies.
                if self.clients[c as usize].crashed {
                    self.undeliverable(i, c, &reply, ReplyLost::ClientGone);
                } else if !self.net.is_up(i, ep) {
                    self.undeliverable(i, c, &reply, ReplyLost::SendFailed);
                } else {
                    self.send(i, ep, Payload::Reply(reply));
                }
            }
            out.replies = replies;
            self.spare_out = out;
        }
        self.reschedule_node(i);
    }

    /// Node `i` learns that `reply` never reached client `c` and acts on it; the checker is told
    /// of the ghost it found, if any.
    fn undeliverable(&mut self, i: usize, c: ClientId, reply: &ClientReply, how: ReplyLost) {
        let local = self.nodes[i].clock.local_at(self.now_us);
        let Some(s) = self.nodes[i].server_mut() else {
            return;
        };
        let term = s.raft.term();
        if let Some(ghost) = s.reply_undeliverable(local, c, reply, how) {
            self.owe_ghost(i, term, ghost);
        }
    }

    /// Leader `i` of `term` owes a release for `ghost`: the checker expects it released within
    /// a second of the leader being able to act (a paused leader's second starts when it wakes).
    fn owe_ghost(&mut self, i: usize, term: crate::raft::Term, (key, token): (Key, Token)) {
        if let Some(o) = self.observer.as_mut() {
            o.ghost_owed(&key, token, i, term, self.now_us + 1_000_000);
        }
    }

    /// A grant arrived where nobody takes it (see [`World::deliver`]), or waited in the buffer
    /// of a client that crashed or restarted: the sender hears of it as it would of a reset
    /// connection, and carries out what that makes it do. A paused sender hears it when it
    /// wakes; a crashed one never (it leads no more).
    fn grant_undeliverable(&mut self, i: usize, c: ClientId, reply: ClientReply) {
        if i >= self.node_count || self.nodes[i].server().is_none() {
            return;
        }
        if self.nodes[i].paused {
            // It hears the reset when it wakes; the release is owed from now.
            let s = self.nodes[i].server().expect("checked above");
            if let Some(ghost) = s.ghost_of(c, &reply, ReplyLost::ClientGone) {
                let term = s.raft.term();
                self.owe_ghost(i, term, ghost);
            }
            self.nodes[i].held_resets.push((c, reply));
            return;
        }
        self.undeliverable(i, c, &reply, ReplyLost::ClientGone);
        self.after_node(i);
    }

    /// A client crashed or restarted while replies waited in its paused buffer: each Granted
    /// among them reaches a client that will not take it.
    fn drop_client_buffer(&mut self, c: usize) {
        for p in std::mem::take(&mut self.clients[c].held) {
            if let Payload::Reply(r) = p.payload {
                if matches!(r.outcome, crate::lock::server::Outcome::Granted { .. }) {
                    self.grant_undeliverable(p.from as usize, c as ClientId, r);
                }
            }
        }
    }

    fn node_event(&mut self, i: usize, ev: ServerEvent) {
        let node = i + 1;
        let t = self.now_us;
        match ev {
            ServerEvent::Role { role, term } => {
                if role == crate::raft::Role::Leader {
                    self.stats.leader_changes += 1;
                }
                self.trace.push(
                    t,
                    TraceEvent::Role {
                        node,
                        role: role.name(),
                        term,
                    },
                );
            }
            ServerEvent::Applied {
                index,
                term,
                body,
                result,
                digest,
            } => {
                let (cmd, conf) = (body.as_ref().cmd(), body.conf());
                let (first, found) = match self.observer.as_mut() {
                    Some(o) => o.applied(t, i, index, term, body.as_ref(), result, digest),
                    None => (index > self.highest_applied, Vec::new()),
                };
                self.highest_applied = self.highest_applied.max(index);
                if first {
                    match result {
                        ApplyResult::Granted { .. } => self.stats.grants += 1,
                        ApplyResult::Expired { existed: true } => self.stats.expiries += 1,
                        _ => {}
                    }
                }
                if self.trace.keep {
                    let view = self.cmd_view(cmd, conf);
                    self.trace.push(
                        t,
                        TraceEvent::Apply {
                            node,
                            index,
                            term,
                            cmd: view,
                            result,
                        },
                    );
                } else {
                    let r = cmd_ref(&self.clients, cmd, conf);
                    self.trace.push_apply_ref(t, node, index, term, &r, result);
                }
                self.record_violations(found);
            }
            ServerEvent::ExpireProposed { key, token } => {
                self.trace.push(
                    t,
                    TraceEvent::ExpireProposed {
                        node,
                        key: key.to_string(),
                        token,
                    },
                );
            }
            ServerEvent::GhostRelease { key, token, client } => {
                self.stats.ghost_releases += 1;
                let client = self.client_name(client);
                self.trace.push(
                    t,
                    TraceEvent::GhostRelease {
                        node,
                        key: key.to_string(),
                        token,
                        client,
                    },
                );
            }
            ServerEvent::SnapshotTaken { index, log_from } => {
                self.trace.push(
                    t,
                    TraceEvent::Snapshot {
                        node,
                        index,
                        log_from,
                    },
                );
            }
            ServerEvent::SnapshotRestored {
                index,
                term,
                from_leader,
            } => {
                self.stats.snapshot_installs += from_leader as u64;
                let source = if from_leader { "leader" } else { "disk" };
                self.trace.push(
                    t,
                    TraceEvent::SnapshotRestored {
                        node,
                        index,
                        term,
                        source,
                    },
                );
            }
        }
    }

    pub fn cmd_view(&self, cmd: Option<&LockCommand>, conf: Option<ConfChange>) -> CmdView {
        let r = cmd_ref(&self.clients, cmd, conf);

        CmdView {
            op: r.op,
            key: r.key.map(str::to_string),
            lease_ms: r.lease_ms,
            token: r.token,
            client: r.client.map(str::to_string),
            node: r.node,
        }
    }

    fn reschedule_node(&mut self, i: usize) {
        let slot = &mut self.nodes[i];
        let Some(server) = slot.server() else {
            return;
        };
        if slot.paused {
            return;
        }
        if let Some((at, gen)) =
            slot.timer
                .plan(&slot.clock, server.next_deadline_us(), self.now_us)
        {
            self.push(
                at,
                Due::NodeTimer {
                    node: i as u32,
                    gen,
                },
            );
        }
    }

    fn invalidate_node_timer(&mut self, i: usize) {
        self.nodes[i].timer.invalidate();
    }

    // ---- clients ----------------------------------------------------------------------------

    fn fire_client_timer(&mut self, c: usize, gen: u64) -> bool {
        let slot = &mut self.clients[c];
        if gen != slot.timer.gen {
            return false;
        }
        slot.timer.at = None;
        if slot.paused || slot.crashed {
            return false;
        }
        let local = slot.clock.local_at(self.now_us);
        slot.client.tick(local);
        self.after_client(c);
        true
    }

    fn after_client(&mut self, c: usize) {
        let out: ClientOutput = self.clients[c].client.take_output();
        let ep = NODE_SLOTS + c;
        let name = self.clients[c].client.cfg.name.clone();
        for e in out.events {
            self.trace.push(
                self.now_us,
                TraceEvent::Client {
                    client: name.clone(),
                    op: e.op,
                    key: e.key,
                    outcome: e.outcome,
                    token: e.token,
                },
            );
        }
        for (to, r) in out.requests {
            if self.record_history {
                let (key, acquire) = match &r.op {
                    crate::lock::server::RequestOp::Acquire { key, .. } => (&**key, true),
                    crate::lock::server::RequestOp::Release { key, .. } => (&**key, false),
                };
                self.history
                    .invoke(r.client, r.req, key, acquire, self.now_us);
            }
            self.send(ep, to, Payload::Request(r));
        }
        for (key, token) in out.writes {
            let storage = self.storage_endpoint();
            self.send(ep, storage, Payload::Write { key, token });
        }
        if self.quiesced
            && !matches!(
                self.clients[c].client.phase,
                crate::client::Phase::Waiting { .. }
            )
        {
            self.clients[c].client.stop();
        }
        self.reschedule_client(c);
    }

    fn reschedule_client(&mut self, c: usize) {
        let slot = &mut self.clients[c];
        if slot.paused || slot.crashed {
            return;
        }
        if let Some((at, gen)) =
            slot.timer
                .plan(&slot.clock, slot.client.next_deadline_us(), self.now_us)
        {
            self.push(
                at,
                Due::ClientTimer {
                    client: c as u32,
                    gen,
                },
            );
        }
    }

    // ---- faults -----------------------------------------------------------------------------

    /// How many faults this run's timeline holds.
    pub fn timeline_len(&self) -> usize {
        self.timeline.len()
    }

    /// Add faults to this run's timeline (not before the present): what a user does during
    /// play, or what a document recorded beyond a snapshot of this world. Each meets the event
    /// order where a replay of the document meets it.
    pub fn schedule(&mut self, faults: impl IntoIterator<Item = TimedFault>) {
        let timeline = Rc::make_mut(&mut self.timeline);
        for t in faults {
            debug_assert!(t.at_us >= self.now_us, "a fault in the past");
            timeline.push(t);
            let i = timeline.len() - 1;
            self.seq += 1;
            self.queue.push(Queued {
                at: timeline[i].at_us,
                seq: self.seq,
                ev: Due::Fault(i as u32),
            });
        }
    }

    /// Carry out a fault now, outside the timeline (tests): a replay of the document will not
    /// repeat it.
    pub fn inject(&mut self, t: &TimedFault) {
        self.apply_fault(t);
        if self.check_every_event {
            self.run_checks();
        }
    }

    fn apply_fault(&mut self, t: &TimedFault) {
        if let Some(i) = t.fault.node().filter(|&i| i >= self.nodes.len()) {
            // An id no server has had yet (an add_node was refused): nothing there to act on.
            self.grow_slots(i.min(NODE_SLOTS - 1) + 1);
        }
        self.belief_epoch += 1;
        let now = self.now_us;
        let what = t.what.clone();
        match &t.fault {
            Fault::Crash { node: i } => self.crash(*i),
            Fault::Restart { node: i } => self.restart(*i),
            Fault::Pause { node: i } => self.pause(*i),
            Fault::Resume { node: i } => self.resume(*i),
            // Partitions, isolations and disconnections set the links of every id a run may
            // have, not only of the servers there now: a node added later joins the side the
            // partition put it on (or none, cut off, if it names it nowhere), in play and in the
            // replay alike.
            Fault::Partition { groups } => {
                self.net.partition(NODE_SLOTS, groups);
                self.fault(what);
            }
            Fault::Isolate { node: i } => {
                self.net.isolate(NODE_SLOTS, *i, false);
                self.fault(what);
            }
            Fault::Cut { from, to } => {
                self.net.set(*from, *to, false);
                self.fault(what);
            }
            Fault::Heal { from, to } => {
                self.net.set(*from, *to, true);
                self.fault(what);
            }
            Fault::HealAll => {
                self.net.heal_all();
                self.fault(what);
            }
            Fault::SetRate { node, rate_ppm } => {
                self.server_clocks_disturbed |= *rate_ppm != PPM_ONE;
                self.nodes[*node].clock.set_rate(now, *rate_ppm);
                self.clock_changed(*node);
                self.fault(what);
            }
            Fault::Jump { node, ms } => {
                self.server_clocks_disturbed |= *ms != 0;
                self.nodes[*node].clock.jump(now, ms * 1000);
                self.clock_changed(*node);
                self.fault(what);
            }
            Fault::ClientPause { client: c } => {
                self.clients[*c].paused = true;
                self.clients[*c].timer.invalidate();
                self.fault(what);
            }
            Fault::ClientJump { client, ms } => {
                let c = *client;
                self.client_clock_jumped_back |= *ms < 0;
                self.clients[c].clock.jump(now, ms * 1000);
                self.clients[c].timer.invalidate();
                self.reschedule_client(c);
                self.fault(what);
            }
            Fault::ClientResume { client: c } => {
                self.resume_client(*c);
                self.fault(what);
            }
            Fault::ClientCrash { client: c } => {
                let c = *c;
                self.clients[c].crashed = true;
                self.drop_client_buffer(c);
                self.clients[c].timer.invalidate();
                self.fault(what);
            }
            Fault::ClientRestart { client: c } => {
                self.restart_client(*c);
                self.fault(what);
            }
            Fault::ClientDisconnect { client: c } | Fault::ClientReconnect { client: c } => {
                let up = matches!(t.fault, Fault::ClientReconnect { .. });
                let e = NODE_SLOTS + c;
                for p in 0..NODE_SLOTS {
                    self.net.set(e, p, up);
                    self.net.set(p, e, up);
                }
                self.fault(what);
            }
            Fault::ClientAcquire { client, .. } | Fault::ClientRelease { client, .. } => {
                let step = match &t.fault {
                    Fault::ClientAcquire { key, lease_ms, .. } => crate::client::Step::Acquire {
                        key: key.clone(),
                        lease_ms: *lease_ms,
                    },
                    Fault::ClientRelease { key, .. } => {
                        crate::client::Step::Release { key: key.clone() }
                    }
                    _ => unreachable!("matched above"),
                };
                let c = *client;
                let local = self.clients[c].clock.local_at(now);
                self.clients[c].client.push_manual(local, step);
                self.fault(what);
                self.after_client(c);
            }
            Fault::DuplicateExpire { key } => {
                self.fault(what);
                if let Some(l) = self.leader() {
                    let local = self.local_now(l);
                    if let Some(s) = self.nodes[l].server_mut() {
                        s.duplicate_expire(local, key);
                    }
                    self.after_node(l);
                }
            }
            Fault::AddNode { node } => self.change_membership(ConfChange::add_learner(*node), what),
            Fault::RemoveNode { node } => self.change_membership(ConfChange::remove(*node), what),
            Fault::Calm => {
                self.fault(what);
                self.net.heal_all();
                self.quiesced = true;
                for i in 0..self.node_count {
                    if self.nodes[i].server().is_none() {
                        self.restart(i);
                    }
                    if self.nodes[i].paused {
                        self.resume(i);
                    }
                    if self.nodes[i].clock.rate_ppm() != PPM_ONE {
                        self.nodes[i].clock.set_rate(now, PPM_ONE);
                        self.clock_changed(i);
                    }
                }
                for c in 0..self.clients.len() {
                    if self.clients[c].crashed {
                        self.restart_client(c);
                    }
                    if self.clients[c].paused {
                        self.resume_client(c);
                    }
                    self.clients[c].client.wind_down();
                    if !matches!(
                        self.clients[c].client.phase,
                        crate::client::Phase::Waiting { .. }
                    ) {
                        self.clients[c].client.stop();
                    }
                }
            }
        }
    }

    fn fault(&mut self, what: String) {
        self.trace.push(self.now_us, TraceEvent::Fault { what });
    }

    /// Whether the leader would propose `change` now: the leader, or why not.
    pub fn can_change(&self, change: ConfChange) -> Result<NodeId, ConfRefusal> {
        if change.node() >= NODE_SLOTS {
            return Err(ConfRefusal::OutOfRange);
        }
        let leader = self.leader().ok_or(ConfRefusal::NotLeader)?;
        let server = self.nodes[leader].server().ok_or(ConfRefusal::NotLeader)?;
        server.raft.can_change(change)?;
        Ok(leader)
    }

    /// The configuration the current leader uses (or, with none, the highest-term node's).
    pub fn membership(&self) -> Membership {
        self.leader()
            .or_else(|| {
                (0..self.node_count)
                    .filter(|&i| self.nodes[i].server().is_some())
                    .max_by_key(|&i| self.nodes[i].server().map(|s| s.raft.term()))
            })
            .and_then(|i| self.nodes[i].server())
            .map_or(Membership::first(self.first_nodes), |s| s.raft.membership())
    }

    /// A membership change from the timeline: the leader proposes it, or it is refused with
    /// the reason and nothing changes. A server added starts empty, on a fresh clock.
    fn change_membership(&mut self, change: ConfChange, what: String) {
        let leader = match self.can_change(change) {
            Ok(l) => l,
            Err(why) => {
                self.trace.push(
                    self.now_us,
                    TraceEvent::Refused {
                        what,
                        why: why.reason(),
                    },
                );
                return;
            }
        };
        self.fault(what);
        if let ConfChange::AddLearner { .. } = change {
            self.start_server(change.node());
        }
        let local = self.local_now(leader);
        if let Some(s) = self.nodes[leader].server_mut() {
            let proposed = s.propose_conf(local, change);
            debug_assert!(proposed.is_ok(), "checked by can_change");
        }
        self.after_node(leader);
    }

    /// Node ids up to `slots` exist (absent until a server starts there).
    fn grow_slots(&mut self, slots: usize) {
        if slots > self.nodes.len() {
            self.nodes.resize_with(slots, NodeSlot::absent);
            self.node_count = slots;
            for c in &mut self.clients {
                c.client.set_nodes(slots);
            }
        }
    }

    /// A new, empty server with id `i` (§4.2.1): it replaces whatever had that id.
    fn start_server(&mut self, i: usize) {
        self.grow_slots(i + 1);
        self.invalidate_node_timer(i);
        let clock = Clock::default();
        let setup = NodeSetup::new(i, self.first_nodes)
            .cfg(self.raft_cfg.clone())
            .rng(self.rng.fork())
            .at(clock.local_at(self.now_us))
            .joining();
        let slot = &mut self.nodes[i];
        slot.state = NodeState::Up(Box::new(Server::new(setup, self.switches)));
        slot.clock = clock;
        slot.paused = false;
        slot.held.clear();
        slot.held_resets.clear();
        if let Some(o) = self.observer.as_mut() {
            o.restarted(i);
        }
        self.reschedule_node(i);
    }

    pub fn crash(&mut self, i: usize) {
        let slot = &mut self.nodes[i];
        if slot.server().is_none() {
            return;
        }
        let NodeState::Up(server) = std::mem::replace(&mut slot.state, placeholder()) else {
            unreachable!("up, checked above")
        };
        slot.state = NodeState::Crashed(server.raft.into_hard_state());
        slot.paused = false;
        slot.held.clear();
        slot.held_resets.clear();
        self.invalidate_node_timer(i);
        self.trace
            .push(self.now_us, TraceEvent::Crash { node: i + 1 });
    }

    pub fn restart(&mut self, i: usize) {
        if self.nodes[i].server().is_some() {
            return;
        }
        let hs = match std::mem::replace(&mut self.nodes[i].state, placeholder()) {
            NodeState::Crashed(hs) => hs,
            other => {
                // Absent: no server to restart.
                self.nodes[i].state = other;
                return;
            }
        };
        let local = self.nodes[i].clock.local_at(self.now_us);
        let rng = self.rng.fork();
        let setup = NodeSetup::new(i, self.node_count)
            .cfg(self.raft_cfg.clone())
            .rng(rng)
            .at(local);
        let server = Server::restart(setup, self.switches, hs);
        self.nodes[i].state = NodeState::Up(Box::new(server));
        self.nodes[i].restarts += 1;
        if let Some(o) = self.observer.as_mut() {
            o.restarted(i);
        }
        self.trace
            .push(self.now_us, TraceEvent::Restart { node: i + 1 });
        self.after_node(i);
    }

    pub fn pause(&mut self, i: usize) {
        if self.nodes[i].server().is_none() || self.nodes[i].paused {
            return;
        }
        self.nodes[i].paused = true;
        self.invalidate_node_timer(i);
        self.trace
            .push(self.now_us, TraceEvent::Pause { node: i + 1 });
    }

    /// A paused process wakes: the messages that waited are delivered now, in arrival order,
    /// and timers that passed fire at once.
    pub fn resume(&mut self, i: usize) {
        if !self.nodes[i].paused {
            return;
        }
        self.nodes[i].paused = false;
        if let Some(o) = self.observer.as_mut() {
            o.woke(i, self.now_us);
        }
        self.trace
            .push(self.now_us, TraceEvent::Resume { node: i + 1 });
        for p in std::mem::take(&mut self.nodes[i].held) {
            self.push_packet(self.now_us, p);
        }
        let resets = std::mem::take(&mut self.nodes[i].held_resets);
        let local = self.nodes[i].clock.local_at(self.now_us);
        for (c, reply) in resets {
            if let Some(s) = self.nodes[i].server_mut() {
                // The checker was told of this ghost when the reset arrived.
                s.reply_undeliverable(local, c, &reply, ReplyLost::ClientGone);
            }
        }
        self.after_node(i);
    }

    fn resume_client(&mut self, c: usize) {
        if !self.clients[c].paused {
            return;
        }
        self.clients[c].paused = false;
        for p in std::mem::take(&mut self.clients[c].held) {
            self.push_packet(self.now_us, p);
        }
        self.reschedule_client(c);
    }

    fn restart_client(&mut self, c: usize) {
        self.drop_client_buffer(c);
        let slot = &mut self.clients[c];
        // A new incarnation keeps counting requests, so the leader's dedup never mistakes a
        // new request for an old one.
        let seq = slot.client.req_seq;
        let mut cfg = slot.client.cfg.clone();
        cfg.start_ms = 0;
        slot.client = Client::new(c as ClientId, cfg, self.node_count, seq);
        slot.crashed = false;
        slot.paused = false;
        slot.held.clear();
        slot.timer.invalidate();
        if self.quiesced {
            slot.client.stop();
        }
        self.reschedule_client(c);
    }

    fn clock_changed(&mut self, i: usize) {
        let local = self.nodes[i].clock.local_at(self.now_us);
        if let Some(server) = self.nodes[i].server_mut() {
            // A clock set back must not hold the node's Raft timers back by as much.
            server.observe_clock(local);
        }
        self.invalidate_node_timer(i);
        self.reschedule_node(i);
    }

    /// The node's local clock reading now.
    pub fn local_now(&self, i: usize) -> i64 {
        self.nodes[i].clock.local_at(self.now_us)
    }

    /// Current leader: the up node in role leader with the highest term.
    pub fn leader(&self) -> Option<NodeId> {
        (0..self.node_count)
            .filter_map(|i| self.nodes[i].server().map(|s| (i, s)))
            .filter(|(_, s)| s.raft.is_leader())
            .max_by_key(|(_, s)| s.raft.term())
            .map(|(i, _)| i)
    }
}

/// A command's trace fields, borrowed (client names come from the clients' configurations).
fn cmd_ref<'a>(
    clients: &'a [ClientSlot],
    cmd: Option<&'a LockCommand>,
    conf: Option<ConfChange>,
) -> crate::trace::CmdRef<'a> {
    if let Some(change) = conf {
        return crate::trace::CmdRef {
            op: change.name(),
            key: None,
            lease_ms: None,
            token: None,
            client: None,
            node: Some(change.node() + 1),
        };
    }
    let client = cmd.and_then(|c| c.client).map(|c| {
        clients
            .get(c as usize)
            .map_or("?", |s| s.client.cfg.name.as_str())
    });
    match cmd {
        None => crate::trace::CmdRef {
            op: "noop",
            key: None,
            lease_ms: None,
            token: None,
            client: None,
            node: None,
        },
        Some(c) => {
            let f = c.op.trace_fields();
            crate::trace::CmdRef {
                op: f.op,
                key: Some(&**f.key),
                lease_ms: f.lease_ms,
                // A Grant carries a token only under `token_from_leader_counter`.
                token: f.token.or(c.counter_token),
                client,
                node: None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raft::Entry;

    #[test]
    fn an_empty_append_is_a_heartbeat() {
        let append = |entries: Vec<Entry<LockCommand>>| {
            Payload::Raft(Message::Append {
                term: 1,
                prev_index: 0,
                prev_term: 0,
                entries,
                commit: 0,
            })
        };
        assert_eq!(append(vec![]).kind(), MessageKind::Heartbeat);
        let noop = Entry {
            term: 1,
            body: crate::raft::Body::Noop,
        };
        assert_eq!(append(vec![noop]).kind(), MessageKind::Append);
        let write = Payload::Write {
            key: "k".into(),
            token: 2,
        };
        assert_eq!(write.kind().name(), "write");
    }
}
