//! The clients' history checked against a mutex with leases (in the spirit of etcd's robustness
//! tests): what clients observed — when each acquire and release was invoked and answered, and
//! how — must be explainable by one lock per key held by one client at a time, each hold ending
//! by the holder's release or by lease expiry. Requests never answered count as either outcome.
//!
//! The order of holds is the token order (tokens are log indexes). For grants g1, g2 of a key
//! with g1's token lower, g1's hold must be able to end before g2's answer: its end is at the
//! earliest the invocation of g1's successful release, or (an expiry) g1's invocation + lease,
//! which holds while the servers' clocks run true. A client sends one request after the other
//! is answered, so its grants' tokens grow with its requests. And a client's release may succeed
//! only while no later grant to another client has already been answered. Busy and not-holder
//! answers constrain nothing, except that a release refused after it was sent may, until then,
//! have ended its hold: a conflict is dated from the moment every answer it rests on is in.

use crate::lang::{tb, Lang};
use crate::lock::{ClientId, Token};
pub use crate::sim::history::{Answer, History, Op, PIN_SPAN};
use crate::sim::World;
use std::collections::BTreeMap;

/// One hold of the linearization: `client` held `key` with `token` from `point_us` (a moment
/// within its acquire's invocation and answer) to `end_us` (its release's invocation or, by
/// expiry, invocation + lease; None while it may still hold).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Conflict {
    pub message: String,
    /// The message in Russian, for the page.
    pub ru: String,
    pub ops: [usize; 2],
    pub at_us: u64,
}

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl Conflict {
    pub fn message_in(&self, lang: Lang) -> &str {
        match lang {
            Lang::Ru => &self.ru,
            Lang::En => &self.message,
        }
    }
}

/// µs of true time in seconds, for messages.
/// Inside a conflict's words, made in both languages at once: `tb!`, its Russian built in.
fn secs_in(us: u64, lang: Lang) -> String {
    let (s, ms) = (us / 1_000_000, us % 1_000_000 / 1000);
    tb!(lang, "{s}.{ms:03} s")
}

/// The holds of a linearization, or why there is none.
pub type Verdict = Result<Vec<Hold>, Conflict>;

/// A check's verdict as the page's worker sends it to the page: JSON `null` (not checked: the
/// servers' clocks drifted or jumped), `{"Ok": [hold, …]}` or `{"Err": conflict}`.
pub fn verdict_to_json(v: &Option<Verdict>) -> Result<String, String> {
    serde_json::to_string(v).map_err(|e| e.to_string())
}

/// The verdict [`verdict_to_json`] wrote, or why this text is not one.
pub fn verdict_from_json(text: &str) -> Result<Option<Verdict>, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

/// The lowest answer time among grants, and the lowest among those to any other client than
/// the first one's: enough to tell, for any client, the earliest grant answered to someone else.
#[derive(Clone, Copy)]
struct Earliest {
    first: (u64, ClientId),
    other: u64,
}

impl Earliest {
    const NONE: Earliest = Earliest {
        first: (u64::MAX, ClientId::MAX),
        other: u64::MAX,
    };

    fn with(self, answered: u64, client: ClientId) -> Earliest {
        let (t, c) = self.first;
        if client == c {
            Earliest {
                first: (t.min(answered), c),
                other: self.other,
            }
        } else if answered < t {
            Earliest {
                first: (answered, client),
                other: t.min(self.other),
            }
        } else {
            Earliest {
                first: self.first,
                other: self.other.min(answered),
            }
        }
    }

    /// The earliest answer to a client other than `client`.
    fn not_to(self, client: ClientId) -> u64 {
        if self.first.1 == client {
            self.other
        } else {
            self.first.0
        }
    }
}

/// An earlier hold of a key while later grants are checked against it.
#[derive(Clone, Copy)]
struct OpenHold {
    /// Its grant's place in token order.
    k: usize,
    answered: u64,
    /// A release of its client's sent before expiry and refused: (sent at, answered at).
    refused: Option<(u64, u64)>,
    client: ClientId,
    req: u64,
}

/// A conflict found, formatted only if it is the one reported (the earliest).
enum Found<'a> {
    /// The hold of grant `j` of `key` (in token order) cannot have ended before grant `k > j`
    /// was answered.
    Overlap {
        key: &'a str,
        j: usize,
        k: usize,
        end_us: u64,
    },
    /// Grant `j` of `key` has the lower token but answers a later request of the same client
    /// as grant `k`.
    Reordered { key: &'a str, j: usize, k: usize },
    /// The successful release at position `op` came after a later grant to another client
    /// (the first such one in token order is at or after grant `from`).
    LateRelease {
        key: &'a str,
        op: usize,
        from: usize,
    },
}

/// The verdict: the holds in token order per key (a linearization), or the conflict that ends
/// the shortest prefix of the history no mutex with leases can explain. (On a capped history,
/// `from() > 0`, only the operations kept: check the whole one by replaying the run.)
///
/// Tokens order the holds of a key, so each grant is checked against the earlier holds still
/// open at its answer, and each release against the client's own operations: one sort and one
/// sweep per key, O(n log n) for n operations when few holds overlap (a history that holds).
pub fn check_mutex(h: &History, name: &dyn Fn(ClientId) -> String) -> Result<Vec<Hold>, Conflict> {
    let ops: Vec<&Op> = h.ops.iter().collect();
    // Per key, its grants as (token, position, answer time), in history order, then by token.
    let mut grants: BTreeMap<&str, Vec<(Token, usize, u64)>> = BTreeMap::new();
    // Each client's releases per key, in request order (a client's requests are numbered in the
    // order it sends them): a grant's release is the first one after it, found by bisection.
    let mut releases: BTreeMap<(ClientId, &str), Vec<usize>> = BTreeMap::new();
    // Per key, the releases that succeeded, in history order.
    let mut released: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, op) in ops.iter().enumerate() {
        match &op.answer {
            Some((t, Answer::Granted { token, .. })) => {
                grants
                    .entry(op.key.as_str())
                    .or_default()
                    .push((*token, i, *t));
            }
            Some((_, Answer::Released)) => released.entry(op.key.as_str()).or_default().push(i),
            _ => {}
        }
        if !op.acquire {
            releases
                .entry((op.client, op.key.as_str()))
                .or_default()
                .push(i);
        }
    }
    let mut holds = Vec::new();
    // The earliest conflict (the first found among equals, keys in order).
    let mut earliest: Option<(u64, Found)> = None;
    for (key, mut gs) in grants {
        gs.sort_by_key(|g| g.0);
        // The earlier holds by the lower bound of their end. Holds follow one another in token
        // order, so every earlier hold must have been able to end before a grant's answer, not
        // only the previous one; in a history that holds, few earlier holds are still open at
        // a grant's answer, so the range below stays short.
        let mut open: BTreeMap<u64, Vec<OpenHold>> = BTreeMap::new();
        // The latest end bound so far: a hold starts after every earlier one ended.
        let mut prev_end = 0;
        for (k, &(token, gi, answered)) in gs.iter().enumerate() {
            let g = ops[gi];
            let lease_us = match &g.answer {
                Some((_, Answer::Granted { lease_ms, .. })) => lease_ms.saturating_mul(1000),
                _ => 0,
            };
            // Saturating: a trace's values come from anywhere.
            let expiry = g.invoke_us.saturating_add(lease_us);
            // g's release, if the client sent one after its grant.
            let release = releases.get(&(g.client, key)).and_then(|rs| {
                rs.get(rs.partition_point(|&o| ops[o].req <= g.req))
                    .map(|&o| ops[o])
            });
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
            // A release sent before expiry and refused: until its answer it might have ended
            // the hold (sent at, answered at).
            let refused = match release {
                Some(r) if r.invoke_us < expiry => match r.answer {
                    Some((t, Answer::NotHolder)) => Some((r.invoke_us, t)),
                    _ => None,
                },
                _ => None,
            };
            // A conflict is dated at or after both answers: none later than the earliest found
            // can replace it, so a broken history's long tail is not scanned.
            let cut = earliest.as_ref().map_or(u64::MAX, |e| e.0);
            let dated = |t: u64| t >= cut;
            let mut found = None;
            let scanned = (!dated(answered)).then(|| open.range(answered..));
            for (&end_j, js) in scanned.into_iter().flatten() {
                for h in js.iter().filter(|h| !dated(h.answered)) {
                    // g's client asked for g before j, yet j's token is lower: a client sends one
                    // request after the other is answered, so its tokens grow with its requests.
                    let reordered = h.client == g.client && h.req > g.req;
                    // Else: hold j cannot have ended before g was answered.
                    if end_j == answered && !reordered {
                        continue;
                    }
                    // From when on the two are in the history, and j's end bound is known.
                    let both = h.answered.max(answered);
                    let at = match h.refused {
                        Some((sent, told)) if sent <= answered => both.max(told),
                        _ => both,
                    };
                    if found.as_ref().is_none_or(|f: &(u64, Found)| at < f.0) {
                        let (j, end_us) = (h.k, end_j);
                        found = Some((
                            at,
                            if reordered {
                                Found::Reordered { key, j, k }
                            } else {
                                Found::Overlap { key, j, k, end_us }
                            },
                        ));
                    }
                }
            }
            if let Some(f) = found.filter(|f| !dated(f.0)) {
                earliest = Some(f);
            }
            let cut = earliest.as_ref().map_or(u64::MAX, |e| e.0);
            let point = g.invoke_us.max(prev_end).min(answered);
            holds.push(Hold {
                key: key.to_string(),
                token,
                client: g.client,
                point_us: point,
                end_us: Some(end_lb.max(point)),
                by_expiry,
            });
            prev_end = prev_end.max(end_lb);
            if answered >= cut {
                // Every conflict with it would be dated later than the one found.
                continue;
            }
            open.entry(end_lb).or_default().push(OpenHold {
                k,
                answered,
                refused,
                client: g.client,
                req: g.req,
            });
        }
        // A release that succeeded must come while its client still holds the key: no grant to
        // another client with a higher token than the client's own last grant before it may
        // have been answered before the release was sent.
        let Some(rs) = released.get(key) else {
            continue;
        };
        // After[k]: the earliest answers among grants k.. (in token order).
        let mut after = vec![Earliest::NONE; gs.len() + 1];
        for k in (0..gs.len()).rev() {
            after[k] = after[k + 1].with(gs[k].2, ops[gs[k].1].client);
        }
        // Per client, its grants of this key by request number, with the highest token so far.
        let mut mine: BTreeMap<ClientId, Vec<(u64, Token)>> = BTreeMap::new();
        for &(token, gi, _) in &gs {
            mine.entry(ops[gi].client)
                .or_default()
                .push((ops[gi].req, token));
        }
        for own in mine.values_mut() {
            own.sort_by_key(|&(req, _)| req);
            let mut top = 0;
            for g in own.iter_mut() {
                top = top.max(g.1);
                g.1 = top;
            }
        }
        for &ri in rs {
            let op = ops[ri];
            let Some((answered, _)) = op.answer else {
                continue;
            };
            let own = mine.get(&op.client).and_then(|own| {
                let n = own.partition_point(|&(req, _)| req < op.req);
                n.checked_sub(1).map(|i| own[i].1)
            });
            let from = own.map_or(0, |m| gs.partition_point(|g| g.0 <= m));
            if after[from].not_to(op.client) < op.invoke_us
                && earliest.as_ref().is_none_or(|e| answered < e.0)
            {
                earliest = Some((answered, Found::LateRelease { key, op: ri, from }));
            }
        }
    }
    match earliest {
        None => Ok(holds),
        Some((at_us, f)) => Err(describe(h, &ops, at_us, f, name)),
    }
}

/// The grants of `key` in token order, as (token, position, answer time).
fn grants_of(ops: &[&Op], key: &str) -> Vec<(Token, usize, u64)> {
    let mut gs: Vec<_> = ops
        .iter()
        .enumerate()
        .filter_map(|(i, op)| match &op.answer {
            Some((t, Answer::Granted { token, .. })) if op.key == key => Some((*token, i, *t)),
            _ => None,
        })
        .collect();
    gs.sort_by_key(|g| g.0);
    gs
}

/// The conflict reported, in words.
fn describe(
    h: &History,
    ops: &[&Op],
    at_us: u64,
    f: Found<'_>,
    name: &dyn Fn(ClientId) -> String,
) -> Conflict {
    let (en, ru, [a, b]) = match f {
        Found::Overlap { key, j, k, end_us } => {
            let gs = grants_of(ops, key);
            let ((token, gi, _), (t2, gi2, res2)) = (gs[j], gs[k]);
            let words = |lang: Lang| {
                tb!(
                    lang,
                    "{key}: {} was told it holds it (token {t2}) at {}, but {}'s hold (token {token}) cannot have ended before {}",
                    name(ops[gi2].client),
                    secs_in(res2, lang),
                    name(ops[gi].client),
                    secs_in(end_us, lang)
                )
            };
            (words(Lang::En), words(Lang::Ru), [gi, gi2])
        }
        Found::Reordered { key, j, k } => {
            let gs = grants_of(ops, key);
            let ((tj, gj, _), (tk, gk, answered_k)) = (gs[j], gs[k]);
            let words = |lang: Lang| {
                tb!(
                    lang,
                    "{key}: {}'s request sent at {} was granted token {tj}, lower than token {tk} it had been granted at {} for an earlier request (a client's tokens grow with its requests)",
                    name(ops[gj].client),
                    secs_in(ops[gj].invoke_us, lang),
                    secs_in(answered_k, lang)
                )
            };
            (words(Lang::En), words(Lang::Ru), [gk, gj])
        }
        Found::LateRelease { key, op, from } => {
            let gs = grants_of(ops, key);
            let r = ops[op];
            let &(token, gi, answered) = gs[from..]
                .iter()
                .find(|g| ops[g.1].client != r.client && g.2 < r.invoke_us)
                .expect("the sweep found such a grant");
            let words = |lang: Lang| {
                tb!(
                    lang,
                    "{key}: {}'s release, sent at {}, succeeded though {} had been told at {} that it holds it (token {})",
                    name(r.client),
                    secs_in(r.invoke_us, lang),
                    name(ops[gi].client),
                    secs_in(answered, lang),
                    token
                )
            };
            (words(Lang::En), words(Lang::Ru), [gi, op])
        }
    };
    Conflict {
        message: en,
        ru,
        ops: [h.from() + a, h.from() + b],
        at_us,
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
