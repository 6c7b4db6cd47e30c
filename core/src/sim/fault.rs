//! What the world is built from and what can happen to it, resolved: nodes and clients by
//! index, links by endpoint (nodes `0..n`, then clients, then the storage). The scenario
//! document compiles into these (`crate::scenario`), so the world knows no document, no names
//! and no validation.

use crate::client::ClientConfig;
use crate::lock::server::Switches;
use crate::raft::RaftConfig;
use crate::sim::network::NetworkSettings;
use serde::Serialize;
use std::rc::Rc;

/// A fault, or something a user does, at one moment: one vocabulary for the scenario document
/// and the world. The document ([`crate::scenario::Action`]) numbers nodes from 1 and names
/// clients and link endpoints (`C`, `E` = `String`); the world's [`Fault`] has them resolved to
/// indexes from 0 (nodes `0..n`, then clients, then the storage). [`Act::resolve`] converts one
/// into the other, at the one edge between them (`scenario::compile`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "do", rename_all = "snake_case")]
pub enum Act<C, E> {
    Crash {
        node: usize,
    },
    Restart {
        node: usize,
    },
    Pause {
        node: usize,
    },
    Resume {
        node: usize,
    },
    /// Cut every node link between groups, e.g. `[[1,2],[3,4,5]]`; heals links inside groups.
    Partition {
        groups: Vec<Vec<usize>>,
    },
    Isolate {
        node: usize,
    },
    /// Cut one direction only.
    Cut {
        from: E,
        to: E,
    },
    Heal {
        from: E,
        to: E,
    },
    HealAll,
    SetRate {
        node: usize,
        rate_ppm: u32,
    },
    Jump {
        node: usize,
        ms: i64,
    },
    ClientPause {
        client: C,
    },
    ClientResume {
        client: C,
    },
    ClientCrash {
        client: C,
    },
    ClientRestart {
        client: C,
    },
    /// Cut the client's links to and from every node (its connection breaks).
    ClientDisconnect {
        client: C,
    },
    ClientReconnect {
        client: C,
    },
    /// Jump the client's own clock forward (positive) or back (negative): its lease countdowns
    /// jump with it. A jump back past its margin makes it believe a lease it no longer has.
    ClientJump {
        client: C,
        ms: i64,
    },
    /// A user's request from the page: the client acquires `key` next (after its current step).
    ClientAcquire {
        client: C,
        key: String,
        lease_ms: u64,
    },
    /// The client releases `key` next.
    ClientRelease {
        client: C,
        key: String,
    },
    /// The leader proposes again the last Expire it committed for `key` (a duplicated or
    /// retried proposal, as a resend layer might make): it applies late, after a re-grant.
    DuplicateExpire {
        key: String,
    },
    /// Membership change (Raft dissertation §4): the leader adds a new, empty server `node` to
    /// the cluster as a learner; it is promoted to a voter once it has caught up. Refused (with
    /// a `refused` trace line, nothing changed) while another change is in flight, before the
    /// leader's no-op commits, with no leader, or for a member.
    AddNode {
        node: usize,
    },
    /// The leader removes `node` from the cluster (§4.2.2: a leader that removes itself steps
    /// down once the change commits). The server keeps running outside the cluster.
    RemoveNode {
        node: usize,
    },
    /// The end of a fault schedule: heal the network, resume and restart everything, set every
    /// clock back to rate 1, and let clients finish (they start no new step).
    Calm,
}

/// A fault as the world applies it: nodes, clients and endpoints by index.
pub type Fault = Act<usize, usize>;

impl<C, E> Act<C, E> {
    /// The same act with its nodes renumbered by `node`, its clients by `client` and its link
    /// endpoints by `end`.
    pub fn resolve<C2, E2>(
        &self,
        node: impl Fn(usize) -> usize,
        client: impl Fn(&C) -> C2,
        end: impl Fn(&E) -> E2,
    ) -> Act<C2, E2> {
        match self {
            Act::Crash { node: n } => Act::Crash { node: node(*n) },
            Act::Restart { node: n } => Act::Restart { node: node(*n) },
            Act::Pause { node: n } => Act::Pause { node: node(*n) },
            Act::Resume { node: n } => Act::Resume { node: node(*n) },
            Act::Partition { groups } => Act::Partition {
                groups: groups
                    .iter()
                    .map(|g| g.iter().map(|k| node(*k)).collect())
                    .collect(),
            },
            Act::Isolate { node: n } => Act::Isolate { node: node(*n) },
            Act::Cut { from, to } => Act::Cut {
                from: end(from),
                to: end(to),
            },
            Act::Heal { from, to } => Act::Heal {
                from: end(from),
                to: end(to),
            },
            Act::HealAll => Act::HealAll,
            Act::SetRate { node: n, rate_ppm } => Act::SetRate {
                node: node(*n),
                rate_ppm: *rate_ppm,
            },
            Act::Jump { node: n, ms } => Act::Jump {
                node: node(*n),
                ms: *ms,
            },
            Act::ClientPause { client: c } => Act::ClientPause { client: client(c) },
            Act::ClientResume { client: c } => Act::ClientResume { client: client(c) },
            Act::ClientCrash { client: c } => Act::ClientCrash { client: client(c) },
            Act::ClientRestart { client: c } => Act::ClientRestart { client: client(c) },
            Act::ClientDisconnect { client: c } => Act::ClientDisconnect { client: client(c) },
            Act::ClientReconnect { client: c } => Act::ClientReconnect { client: client(c) },
            Act::ClientJump { client: c, ms } => Act::ClientJump {
                client: client(c),
                ms: *ms,
            },
            Act::ClientAcquire {
                client: c,
                key,
                lease_ms,
            } => Act::ClientAcquire {
                client: client(c),
                key: key.clone(),
                lease_ms: *lease_ms,
            },
            Act::ClientRelease { client: c, key } => Act::ClientRelease {
                client: client(c),
                key: key.clone(),
            },
            Act::DuplicateExpire { key } => Act::DuplicateExpire { key: key.clone() },
            Act::AddNode { node: n } => Act::AddNode { node: node(*n) },
            Act::RemoveNode { node: n } => Act::RemoveNode { node: node(*n) },
            Act::Calm => Act::Calm,
        }
    }
}

/// A fault on the timeline. `what` is how the trace names it (`ev: "fault"`): the document's
/// own form of the action, so a trace reads like the scenario that made it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimedFault {
    pub at_us: u64,
    pub fault: Fault,
    pub what: String,
}

/// A node's clock at time 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockStart {
    pub node: usize,
    pub offset_us: i64,
    pub rate_ppm: u32,
}

impl<C, E> Act<C, E> {
    /// The highest node an `add_node` names (nodes of the run that are not there yet).
    pub fn added_node(&self) -> Option<usize> {
        match self {
            Act::AddNode { node } => Some(*node),
            _ => None,
        }
    }

    /// The node whose process or clock it acts on, if any.
    pub fn node(&self) -> Option<usize> {
        match self {
            Act::Crash { node }
            | Act::Restart { node }
            | Act::Pause { node }
            | Act::Resume { node }
            | Act::SetRate { node, .. }
            | Act::Jump { node, .. }
            | Act::AddNode { node }
            | Act::RemoveNode { node } => Some(*node),
            _ => None,
        }
    }
}

/// Everything a world is built from.
#[derive(Clone, Debug)]
pub struct Config {
    pub seed: u64,
    pub nodes: usize,
    pub raft: RaftConfig,
    pub network: NetworkSettings,
    pub switches: Switches,
    pub clocks: Vec<ClockStart>,
    pub clients: Vec<ClientConfig>,
    pub timeline: Rc<Vec<TimedFault>>,
}
