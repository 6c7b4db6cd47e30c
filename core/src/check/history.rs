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

use crate::lock::{ClientId, Token};
pub use crate::sim::history::{Answer, History, Op, PIN_SPAN};
use crate::sim::World;
use std::collections::BTreeMap;

/// One hold of the linearization: `client` held `key` with `token` from `point_us` (a moment
/// within its acquire's invocation and answer) to `end_us` (its release's invocation or, by
/// expiry, invocation + lease; None while it may still hold).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hold {
    pub key: String,
    pub token: Token,
    pub client: ClientId,
    pub point_us: u64,
    pub end_us: Option<u64>,
    pub by_expiry: bool,
}

/// Why no mutex with leases explains the history: the two operations (positions in the run,
/// `History::from()` + index into `History::ops`) and the moment from which the prefix of the
/// history is already unexplainable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    pub message: String,
    pub ops: [usize; 2],
    pub at_us: u64,
}

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// µs of true time in seconds, for messages.
fn secs(us: u64) -> String {
    format!("{}.{:03} s", us / 1_000_000, us % 1_000_000 / 1000)
}

/// The holds of a linearization, or why there is none.
pub type Verdict = Result<Vec<Hold>, Conflict>;

/// The position of `op` (a reference into `h.ops`) in the run; only for conflicts.
fn op_index(h: &History, op: &Op) -> usize {
    h.from() + h.ops.iter().position(|o| std::ptr::eq(o, op)).unwrap_or(0)
}

/// The verdict: the holds in token order per key (a linearization), or the conflict that ends
/// the shortest prefix of the history no mutex with leases can explain. (On a capped history,
/// `from() > 0`, only the operations kept: check the whole one by replaying the run.)
pub fn check_mutex(h: &History, name: &dyn Fn(ClientId) -> String) -> Result<Vec<Hold>, Conflict> {
    let mut grants: BTreeMap<&str, Vec<(Token, &Op, u64)>> = BTreeMap::new();
    // Each client's releases per key, in request order (a client's requests are numbered in the
    // order it sends them): a grant's release is the first one after it, found by bisection.
    let mut releases: BTreeMap<(ClientId, &str), Vec<&Op>> = BTreeMap::new();
    for op in h.ops.iter() {
        if let Some((t, Answer::Granted { token, .. })) = &op.answer {
            grants
                .entry(op.key.as_str())
                .or_default()
                .push((*token, op, *t));
        }
        if !op.acquire {
            releases
                .entry((op.client, op.key.as_str()))
                .or_default()
                .push(op);
        }
    }
    let mut holds = Vec::new();
    let mut conflicts: Vec<Conflict> = Vec::new();
    for (key, mut gs) in grants {
        gs.sort_by_key(|g| g.0);
        let mut prev_end = 0;
        for (k, &(token, g, answered)) in gs.iter().enumerate() {
            let lease_us = match &g.answer {
                Some((_, Answer::Granted { lease_ms, .. })) => lease_ms * 1000,
                _ => 0,
            };
            let expiry = g.invoke_us + lease_us;
            // g's release, if the client sent one after its grant.
            let release = releases
                .get(&(g.client, g.key.as_str()))
                .and_then(|rs| rs.get(rs.partition_point(|o| o.req <= g.req)).copied());
            // A release that succeeded, or was never answered (either outcome), may have ended it.
            let (end_lb, by_expiry) = match release {
                Some(r)
                    if matches!(r.answer, None | Some((_, Answer::Released)))
                        && r.invoke_us < expiry =>
                {
                    (r.invoke_us, false)
                }
                _ => (expiry, true),
            };
            let point = g.invoke_us.max(prev_end).min(answered);
            holds.push(Hold {
                key: key.to_string(),
                token,
                client: g.client,
                point_us: point,
                end_us: Some(end_lb),
                by_expiry,
            });
            prev_end = end_lb;
            if let Some(&(t2, g2, res2)) = gs.get(k + 1) {
                if end_lb > res2 {
                    conflicts.push(Conflict {
                        message: format!(
                            "{key}: {} was told it holds it (token {t2}) at {}, but {}'s hold (token {token}) cannot have ended before {}",
                            name(g2.client),
                            secs(res2),
                            name(g.client),
                            secs(end_lb)
                        ),
                        ops: [op_index(h, g), op_index(h, g2)],
                        at_us: res2,
                    });
                }
            }
        }
        // A release that succeeded must come while its client still holds the key.
        for op in h.ops.iter().filter(|o| !o.acquire && o.key == key) {
            let Some((answered, Answer::Released)) = &op.answer else {
                continue;
            };
            let mine = gs
                .iter()
                .filter(|g| g.1.client == op.client && g.1.req < op.req)
                .map(|g| g.0)
                .max();
            if let Some(other) = gs.iter().find(|g| {
                g.1.client != op.client && mine.is_none_or(|m| g.0 > m) && g.2 < op.invoke_us
            }) {
                conflicts.push(Conflict {
                    message: format!(
                        "{key}: {}'s release, sent at {}, succeeded though {} had been told at {} that it holds it (token {})",
                        name(op.client),
                        secs(op.invoke_us),
                        name(other.1.client),
                        secs(other.2),
                        other.0
                    ),
                    ops: [op_index(h, other.1), op_index(h, op)],
                    at_us: *answered,
                });
            }
        }
    }
    match conflicts.into_iter().min_by_key(|c| c.at_us) {
        Some(c) => Err(c),
        None => Ok(holds),
    }
}

impl World {
    /// The clients' history against a mutex with leases; `None` when server clocks drifted or
    /// jumped (expiry times then say nothing about true time).
    pub fn history_verdict(&self) -> Option<Result<Vec<Hold>, Conflict>> {
        if self.server_clocks_disturbed {
            return None;
        }
        Some(check_mutex(&self.history, &|c| self.client_name(c)))
    }
}
