//! A plain-data view of the world for the page and for tests (the JavaScript handle returns it
//! through serde-wasm-bindgen). Everything the UI draws comes from here or from the World.

use crate::check::INVARIANTS;
use crate::sim::World;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct LeaseView {
    pub key: String,
    pub token: u64,
    /// Remaining lease on this node's own clock (negative once it ran out).
    pub remaining_local_us: i64,
}

#[derive(Clone, Debug, Serialize)]
pub struct LockView {
    pub key: String,
    pub holder: Option<String>,
    pub token: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct NodeView {
    pub id: usize,
    pub up: bool,
    pub paused: bool,
    pub role: &'static str,
    pub term: u64,
    pub leader: Option<usize>,
    pub commit: u64,
    pub applied: u64,
    pub last_index: u64,
    pub local_us: i64,
    pub rate_ppm: u32,
    pub leases: Vec<LeaseView>,
    pub locks: Vec<LockView>,
    /// Digest of the applied lock state, to compare nodes at a glance.
    pub table_digest: String,
    /// A leader's view of each follower (§5.3 nextIndex and matchIndex); empty on the others.
    pub progress: Vec<ProgressView>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ProgressView {
    pub peer: usize,
    /// `probe`, `replicate` or `snapshot`.
    pub state: &'static str,
    pub next: u64,
    pub matched: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct HeldView {
    pub key: String,
    pub token: u64,
    pub believes_until_local_us: i64,
    pub believes_holding: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct ClientView {
    pub name: String,
    pub state: String,
    pub crashed: bool,
    pub paused: bool,
    pub target: usize,
    pub local_us: i64,
    pub held: Vec<HeldView>,
}

#[derive(Clone, Debug, Serialize)]
pub struct WriteView {
    pub t_us: u64,
    pub client: String,
    pub key: String,
    pub token: u64,
    pub accepted: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct InvariantView {
    pub name: &'static str,
    pub ok: bool,
    pub violations: usize,
    /// False while the run cannot check it (server clocks drifted or jumped).
    pub checked: bool,
}

/// Who votes and who only listens, by node number from 1.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MembershipView {
    pub voters: Vec<usize>,
    pub learners: Vec<usize>,
}

impl MembershipView {
    pub fn of(m: crate::raft::Membership) -> Self {
        MembershipView {
            voters: m.voters().map(|i| i + 1).collect(),
            learners: m.learners().map(|i| i + 1).collect(),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Snapshot {
    pub now_us: u64,
    pub seed: u64,
    pub leader: Option<usize>,
    /// The configuration the leader uses (Raft dissertation ch. 4): voters and learners, from 1.
    pub membership: MembershipView,
    pub nodes: Vec<NodeView>,
    pub clients: Vec<ClientView>,
    pub writes: Vec<WriteView>,
    pub invariants: Vec<InvariantView>,
    pub in_flight: usize,
    pub events: u64,
    pub trace_hash: String,
    pub trace_count: u64,
}

/// What a client is doing, in words (the API's snapshot keeps English; the page its reader's).
pub fn client_state(c: &crate::client::Client, lang: crate::lang::Lang) -> String {
    use crate::client::Phase;
    use crate::lang::t;
    use crate::lock::server::RequestOp;
    match &c.phase {
        Phase::Starting => t!(lang, "starting").into(),
        Phase::Waiting {
            op: RequestOp::Acquire { key, .. },
            ..
        } => t!(lang, "acquiring {key}"),
        Phase::Waiting {
            op: RequestOp::Release { key, .. },
            ..
        } => t!(lang, "releasing {key}"),
        Phase::Backoff { op, .. } => match op {
            RequestOp::Acquire { key, .. } => t!(lang, "waiting to retry {key}"),
            RequestOp::Release { key, .. } => t!(lang, "waiting to release {key}"),
        },
        Phase::Working { key, token } => t!(lang, "working on {key} with token {token}"),
        Phase::Sleeping => t!(lang, "sleeping").into(),
        Phase::Done => t!(lang, "done").into(),
    }
}

pub fn snapshot(w: &World) -> Snapshot {
    let nodes = (0..w.node_count)
        .map(|i| {
            let slot = &w.nodes[i];
            let local = w.local_now(i);
            match slot.server() {
                Some(s) => NodeView {
                    id: i + 1,
                    up: true,
                    paused: slot.paused,
                    role: s.raft.role().name(),
                    term: s.raft.term(),
                    leader: s.raft.leader().map(|l| l + 1),
                    commit: s.raft.commit_index(),
                    applied: s.machine.applied,
                    last_index: s.raft.log().last_index(),
                    local_us: local,
                    rate_ppm: slot.clock.rate_ppm(),
                    leases: s
                        .leases
                        .iter()
                        .map(|(k, l)| LeaseView {
                            key: k.to_string(),
                            token: l.token,
                            remaining_local_us: l.left_us(local),
                        })
                        .collect(),
                    locks: s
                        .machine
                        .locks
                        .iter()
                        .map(|(k, l)| LockView {
                            key: k.to_string(),
                            holder: l.holder.map(|c| w.client_name(c)),
                            token: l.token,
                        })
                        .collect(),
                    table_digest: format!("{:04x}", s.machine.digest() & 0xffff),
                    progress: if s.raft.is_leader() {
                        (0..w.node_count)
                            .filter(|&p| p != i)
                            .map(|p| ProgressView {
                                peer: p + 1,
                                state: s.raft.progress_state(p).name(),
                                next: s.raft.next_index(p),
                                matched: s.raft.match_index(p),
                            })
                            .collect()
                    } else {
                        Vec::new()
                    },
                },
                None => {
                    let hs = slot.persisted();
                    NodeView {
                        id: i + 1,
                        up: false,
                        paused: false,
                        role: if slot.is_absent() {
                            "absent"
                        } else {
                            "crashed"
                        },
                        term: hs.map_or(0, |h| h.term),
                        leader: None,
                        commit: 0,
                        applied: 0,
                        last_index: hs.map_or(0, |h| h.log.last_index()),
                        local_us: local,
                        rate_ppm: slot.clock.rate_ppm(),
                        leases: Vec::new(),
                        locks: Vec::new(),
                        table_digest: String::new(),
                        progress: Vec::new(),
                    }
                }
            }
        })
        .collect();
    let clients = w
        .clients
        .iter()
        .map(|c| {
            let local = c.clock.local_at(w.now_us);
            ClientView {
                name: c.client.cfg.name.clone(),
                state: if c.crashed {
                    "crashed".into()
                } else {
                    client_state(&c.client, crate::lang::Lang::En)
                },
                crashed: c.crashed,
                paused: c.paused,
                target: c.client.target + 1,
                local_us: local,
                held: c
                    .client
                    .held
                    .iter()
                    .map(|(k, h)| HeldView {
                        key: k.clone(),
                        token: h.token,
                        believes_until_local_us: h.until_local_us,
                        believes_holding: h.until_local_us > local,
                    })
                    .collect(),
            }
        })
        .collect();
    let writes = w
        .storage
        .writes
        .iter()
        .map(|x| WriteView {
            t_us: x.t_us,
            client: w.client_name(x.client),
            key: x.key.clone(),
            token: x.token,
            accepted: x.accepted,
        })
        .collect();
    let invariants = INVARIANTS
        .iter()
        .map(|&inv| {
            let n = w.checker().broken.get(&inv).copied().unwrap_or(0) as usize;
            InvariantView {
                name: inv.name(),
                ok: n == 0,
                violations: n,
                checked: crate::check::is_checked(w, inv),
            }
        })
        .collect();
    Snapshot {
        membership: MembershipView::of(w.membership()),
        now_us: w.now_us,
        seed: w.seed,
        leader: w.leader().map(|l| l + 1),
        nodes,
        clients,
        writes,
        invariants,
        in_flight: w.in_flight_count(),
        events: w.stats.events,
        trace_hash: w.trace.hash_hex(),
        trace_count: w.trace.count(),
    }
}
