//! What the world is built from and what can happen to it, resolved: nodes and clients by
//! index, links by endpoint (nodes `0..n`, then clients, then the storage). The scenario
//! document compiles into these (`crate::scenario`), so the world knows no document, no names
//! and no validation.

use crate::client::ClientConfig;
use crate::lock::server::Switches;
use crate::raft::RaftConfig;
use crate::sim::network::NetworkSettings;
use std::rc::Rc;

/// A fault, or something a user does, at one moment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    Crash(usize),
    Restart(usize),
    Pause(usize),
    Resume(usize),
    /// Groups of nodes; links between groups are cut, within a group healed.
    Partition(Vec<Vec<usize>>),
    Isolate(usize),
    /// One direction of one link, by endpoint.
    Cut {
        from: usize,
        to: usize,
    },
    Heal {
        from: usize,
        to: usize,
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
    ClientPause(usize),
    ClientResume(usize),
    ClientCrash(usize),
    ClientRestart(usize),
    ClientDisconnect(usize),
    ClientReconnect(usize),
    ClientJump {
        client: usize,
        ms: i64,
    },
    ClientAcquire {
        client: usize,
        key: String,
        lease_ms: u64,
    },
    ClientRelease {
        client: usize,
        key: String,
    },
    /// The leader proposes again the last committed Expire of `key`.
    DuplicateExpire {
        key: String,
    },
    /// Faults stop: heal, restart, resume, clocks true, clients finish what they do.
    Calm,
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
