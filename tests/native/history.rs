//! The clients' history check (`check::history::check_mutex`, one sort and one sweep per key)
//! against the check it replaced, kept here as the oracle: it compares every pair of grants and
//! releases. Same verdicts, same holds, same conflict named, on random histories.

use raftlock::check::history::{check_mutex, Answer, Conflict, History, Hold, Op};
use raftlock::lock::{ClientId, Token};
use raftlock::rng::Rng;
use std::collections::BTreeMap;

fn secs(us: u64) -> String {
    format!("{}.{:03} s", us / 1_000_000, us % 1_000_000 / 1000)
}

/// The position of `op` (a reference into `h.ops`) in the run; only for conflicts.
fn op_index(h: &History, op: &Op) -> usize {
    h.from() + h.ops.iter().position(|o| std::ptr::eq(o, op)).unwrap_or(0)
}

/// The verdict: the holds in token order per key (a linearization), or the conflict that ends
/// the shortest prefix of the history no mutex with leases can explain. (On a capped history,
/// `from() > 0`, only the operations kept: check the whole one by replaying the run.)
fn quadratic_check(h: &History, name: &dyn Fn(ClientId) -> String) -> Result<Vec<Hold>, Conflict> {
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
                        ru: String::new(),
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
                    ru: String::new(),
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

/// A random history of a few clients on a few keys: tokens mostly in answer order, some out of
/// it, leases short and long, answers missing, releases of keys not held; times on a 100 ms
/// grid, so that ties test every comparison's edge. Most are not linearizable.
fn random_history(rng: &mut Rng) -> History {
    let mut h = History::default();
    let clients = 1 + rng.below(5) as ClientId;
    let keys = 1 + rng.below(3);
    let n = rng.below(40);
    let mut req = vec![0u64; clients as usize];
    let mut t = 0;
    let mut token: Token = 0;
    for _ in 0..n {
        let client = rng.below(clients as u64) as ClientId;
        req[client as usize] += 1 + rng.below(2);
        t += 100_000 * rng.below(4);
        let acquire = rng.below(2) == 0;
        let at = t + 100_000 * rng.below(3);
        let answer = match rng.below(8) {
            0 => None,
            1 => Some((
                at,
                if acquire {
                    Answer::Busy
                } else {
                    Answer::NotHolder
                },
            )),
            _ if acquire => {
                token += 1 + rng.below(3);
                // Now and then a token issued out of answer order.
                let tk = if rng.below(6) == 0 {
                    token.saturating_sub(rng.below(6))
                } else {
                    token
                };
                Some((
                    at,
                    Answer::Granted {
                        token: tk,
                        lease_ms: 100 * (1 + rng.below(15)),
                    },
                ))
            }
            _ => Some((at, Answer::Released)),
        };
        h.ops.push(Op {
            client,
            req: req[client as usize],
            key: format!("k{}", rng.below(keys)),
            acquire,
            invoke_us: t,
            answer,
        });
    }
    h
}

#[test]
fn history_check_gives_the_quadratic_checks_verdicts_on_random_histories() {
    let name = |c: ClientId| format!("client {c}");
    let mut rng = Rng::new(23);
    let (mut fine, mut broken) = (0, 0);
    for i in 0..4000 {
        let h = random_history(&mut rng);
        let (fast, slow) = (check_mutex(&h, &name), quadratic_check(&h, &name));
        // The oracle writes the English message only.
        let fast = fast.map_err(|c| Conflict {
            ru: String::new(),
            ..c
        });
        assert_eq!(
            fast,
            slow,
            "history {i}: {:?}",
            h.ops.iter().collect::<Vec<_>>()
        );
        match fast {
            Ok(_) => fine += 1,
            Err(_) => broken += 1,
        }
    }
    assert!(
        fine > 400 && broken > 400,
        "{fine} linearizable, {broken} not"
    );
}
