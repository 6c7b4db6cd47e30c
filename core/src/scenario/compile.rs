//! The scenario document compiles into what the world is built from ([`Config`]) and what
//! happens to it ([`TimedFault`]): names become indexes, milliseconds microseconds. The world
//! knows no document; this is the one place that joins the two.

use super::{Action, EndpointRef, Scenario, ScenarioError, TimedAction};
use crate::raft::NODE_SLOTS;
use crate::sim::{ClockStart, Config, Fault, TimedFault, World};
use std::rc::Rc;

/// The endpoint a name refers to: `n1`..`nN`, a client's name, or `storage`.
pub(super) fn endpoint_in<'a>(
    nodes: usize,
    mut clients: impl Iterator<Item = &'a str>,
    name: &str,
) -> Option<EndpointRef> {
    if name == "storage" {
        return Some(EndpointRef::Storage);
    }
    if let Some(k) = name.strip_prefix('n').and_then(|d| d.parse::<usize>().ok()) {
        // `then`, not `then_some`: "n0" must not compute k - 1 (found by the link fuzzer).
        return (1..=nodes).contains(&k).then(|| EndpointRef::Node(k - 1));
    }
    clients.position(|c| c == name).map(EndpointRef::Client)
}

/// An action with its names resolved by `ep` (the caller validated it: every name resolves).
fn resolve(a: &Action, clients: usize, ep: &dyn Fn(&str) -> Option<EndpointRef>) -> Fault {
    let end = |name: &str| match ep(name) {
        Some(EndpointRef::Node(i)) => i,
        Some(EndpointRef::Client(c)) => NODE_SLOTS + c,
        _ => NODE_SLOTS + clients,
    };
    let client = |name: &str| match ep(name) {
        Some(EndpointRef::Client(c)) => c,
        _ => unreachable!("a validated action names a client"),
    };
    a.resolve(|node| node - 1, |c| client(c), |e| end(e))
}

fn timed(at_us: u64, a: &Action, fault: Fault) -> TimedFault {
    TimedFault {
        at_us,
        fault,
        what: serde_json::to_string(a).unwrap_or_default(),
    }
}

impl Scenario {
    /// One timeline entry of this document, resolved.
    pub fn compile_action(&self, t: &TimedAction) -> TimedFault {
        let f = resolve(&t.action, self.clients.len(), &|n| self.endpoint(n));
        timed(t.at_ms * 1000, &t.action, f)
    }

    /// What the world is built from (the document must be valid).
    pub fn compile(&self) -> Config {
        Config {
            seed: self.seed,
            nodes: self.nodes,
            raft: self.raft.to_config(),
            network: self.network.clone(),
            switches: self.switches,
            clocks: self
                .clocks
                .iter()
                .map(|c| ClockStart {
                    node: c.node - 1,
                    offset_us: c.offset_ms * 1000,
                    rate_ppm: c.rate_ppm,
                })
                .collect(),
            clients: self.clients.clone(),
            timeline: Rc::new(
                self.timeline
                    .iter()
                    .map(|t| self.compile_action(t))
                    .collect(),
            ),
        }
    }
}

impl World {
    /// Build the world of a scenario document at time 0 (validated first), watched by the
    /// invariant checks.
    pub fn new(sc: &Scenario, keep_trace: bool) -> Result<World, ScenarioError> {
        sc.validate()?;
        let mut w = World::build(&sc.compile(), keep_trace);
        let rules = crate::lock::machine::ApplyRules {
            expire_ignores_token: sc.switches.expire_ignores_token,
        };
        w.observer = Some(Box::new(crate::check::Checker::new(NODE_SLOTS, rules)));
        Ok(w)
    }

    /// Carry out an action now, outside the timeline (tests). Not recorded: a replay of the
    /// document will not repeat it. Names resolve against this world's nodes and clients; the
    /// caller validates the action (`Scenario::validate_action`).
    pub fn act(&mut self, a: &Action) {
        let names: Vec<String> = self
            .clients
            .iter()
            .map(|c| c.client.cfg.name.clone())
            .collect();
        let n = self.node_count;
        let f = resolve(a, names.len(), &|name| {
            endpoint_in(n, names.iter().map(String::as_str), name)
        });
        let now = self.now_us;
        self.inject(&timed(now, a, f));
    }
}
