//! The clients' history checked against a mutex with leases (in the spirit of etcd's robustness
//! tests): what clients observed — when each acquire and release was invoked and answered, and
//! how — must be explainable by one lock per key held by one client at a time, each hold ending
//! by the holder's release or by lease expiry. Requests never answered count as either outcome.
//!
//! The order of holds is the token order (tokens are log indexes). For consecutive grants g1, g2
//! of a key, g1's hold must be able to end before g2's answer: its end is at the earliest the
//! invocation of g1's successful release, or (an expiry) g1's invocation + lease, which holds
//! while the servers' clocks run true. And a client's release may succeed only while no later
//! grant to another client has already been answered.

use crate::lock::server::Outcome;
use crate::lock::{ClientId, Token};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Granted { token: Token, lease_ms: u64 },
    Busy,
    Released,
    NotHolder,
}

#[derive(Clone, Debug)]
pub struct Op {
    pub client: ClientId,
    pub req: u64,
    pub key: String,
    pub acquire: bool,
    pub invoke_us: u64,
    pub answer: Option<(u64, Answer)>,
}

#[derive(Clone, Debug, Default)]
pub struct History {
    pub ops: Vec<Op>,
    index: BTreeMap<(ClientId, u64), usize>,
}

impl History {
    pub fn invoke(&mut self, client: ClientId, req: u64, key: &str, acquire: bool, t_us: u64) {
        if self.index.contains_key(&(client, req)) {
            return; // a retry of the same request
        }
        self.index.insert((client, req), self.ops.len());
        self.ops.push(Op { client, req, key: key.to_string(), acquire, invoke_us: t_us, answer: None });
    }

    pub fn respond(&mut self, client: ClientId, req: u64, outcome: &Outcome, t_us: u64) {
        let answer = match outcome {
            Outcome::Granted { token, lease_ms, .. } => Answer::Granted { token: *token, lease_ms: *lease_ms },
            Outcome::Busy { .. } => Answer::Busy,
            Outcome::Released { .. } => Answer::Released,
            Outcome::NotHolder { .. } => Answer::NotHolder,
            Outcome::NotLeader { .. } => return, // not an answer: the client asks elsewhere
        };
        if let Some(&i) = self.index.get(&(client, req)) {
            if self.ops[i].answer.is_none() {
                self.ops[i].answer = Some((t_us, answer));
            }
        }
    }
}

/// The verdict: Ok(number of holds ordered) or the first pair of operations that no mutex with
/// leases can explain, in words.
pub fn check_mutex(h: &History, name: &dyn Fn(ClientId) -> String) -> Result<usize, String> {
    let mut grants: BTreeMap<&str, Vec<(Token, &Op, u64)>> = BTreeMap::new();
    for op in &h.ops {
        if let Some((t, Answer::Granted { token, .. })) = &op.answer {
            grants.entry(op.key.as_str()).or_default().push((*token, op, *t));
        }
    }
    let mut holds = 0;
    for (key, mut gs) in grants {
        gs.sort_by_key(|g| g.0);
        holds += gs.len();
        for w in gs.windows(2) {
            let ((t1, g1, _), (t2, g2, res2)) = (w[0], w[1]);
            let lease_us = match &g1.answer {
                Some((_, Answer::Granted { lease_ms, .. })) => lease_ms * 1000,
                _ => 0,
            };
            let expiry = g1.invoke_us + lease_us;
            // g1's release, if the client sent one after its grant.
            let release = h.ops.iter().find(|o| o.client == g1.client && o.key == g1.key && !o.acquire && o.req > g1.req);
            // A release that succeeded, or was never answered (either outcome), may have ended it.
            let end_lb = match release {
                Some(r) if matches!(r.answer, None | Some((_, Answer::Released))) => r.invoke_us.min(expiry),
                _ => expiry,
            };
            if end_lb > res2 {
                return Err(format!(
                    "{key}: {} was told it holds it (token {t2}) at {} µs, but {}'s hold (token {t1}) cannot have ended before {} µs",
                    name(g2.client),
                    res2,
                    name(g1.client),
                    end_lb
                ));
            }
        }
        // A release that succeeded must come while its client still holds the key.
        for op in h.ops.iter().filter(|o| !o.acquire && o.key == key) {
            let Some((_, Answer::Released)) = &op.answer else { continue };
            let mine = gs.iter().filter(|g| g.1.client == op.client && g.1.req < op.req).map(|g| g.0).max();
            if let Some(other) = gs.iter().find(|g| g.1.client != op.client && mine.is_none_or(|m| g.0 > m) && g.2 < op.invoke_us) {
                return Err(format!(
                    "{key}: {}'s release succeeded at {} µs though {} had been told at {} µs that it holds it (token {})",
                    name(op.client),
                    op.invoke_us,
                    name(other.1.client),
                    other.2,
                    other.0
                ));
            }
        }
    }
    Ok(holds)
}
