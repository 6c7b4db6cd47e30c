//! The clients' history check (`check::history::check_mutex`, one sort and one sweep per key)
//! against its definition, decided by a search that shares none of its reasoning: a history is
//! explainable by a mutex with leases when, for each key, some order of its grants, releases and
//! expiries, each at a moment it may happen, takes one lock from free to held and back. On
//! random histories: the same verdict; and a conflict names two operations of one key and ends
//! the shortest prefix that is not explainable, as the check's documentation says (what the
//! clients had observed by `at_us` is not explainable, what they had observed by `at_us - 1` is).
//!
//! The definition, from the check's documentation (and docs/cli.md: "the history check assumes
//! each client has one request at a time"):
//! - the key is free at a grant, then held by the grant's client until a release of that client
//!   or the lease's expiry frees it; grants come in token order (tokens are log indexes), each
//!   at a moment within its acquire's invocation and answer;
//! - a release answered "released" frees the key its client holds, at a moment within its
//!   invocation and answer; one never answered may do so at any moment after its invocation,
//!   or never;
//! - an expiry comes at or after the grant's invocation + lease (servers' clocks run true);
//! - "busy" and "not holder" bind nothing (the documentation's rules are about grants and
//!   releases only: the leader answers those two from its whole log, entries not yet committed
//!   included);
//! - times are µs; at equal times any order, except a client's own: each client has one request
//!   at a time, so what its answered request did comes before anything its next one does.
//!
//! The histories are of clients that keep to that: a client sends its next request once
//! answered, releases the key its last grant gave it, and sends nothing after a request never
//! answered (it crashed). So an acquire never answered is its client's last request: granted,
//! it could only stand in others' way, and the search leaves it out. Each key is searched on
//! its own (as the check does, a client's order across keys is left out: it could only order
//! moments that are equal).

use raftlock::check::history::{check_mutex, Answer, History, Op};
use raftlock::lock::{ClientId, Token};
use raftlock::rng::Rng;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// One thing a key's linearization must or may contain.
struct Step {
    client: ClientId,
    /// A grant's token and the earliest moment its lease can run out; None for a release.
    grant: Option<(Token, u64)>,
    /// The moments it may happen at: from its invocation to its answer (None: never answered,
    /// and then it may also not happen at all).
    from_us: u64,
    to_us: Option<u64>,
    /// The steps of its client's earlier requests that were answered: they come before it.
    after: u32,
}

/// Whether some order of `steps`, each at a moment it may happen, runs the lock: the key free
/// at a grant, held by the releasing client at a release. Depth first over which step comes
/// next, each at the earliest moment it may (a later one never serves better: the steps after
/// it only need time not to go back), so only orders are searched; states already found to
/// lead nowhere are not searched again.
fn some_linearization(steps: &[Step]) -> bool {
    assert!(steps.len() < 32, "a key's steps fit a u32's bits");
    let must = (0..steps.len())
        .filter(|&i| steps[i].to_us.is_some())
        .fold(0, |m, i| m | 1 << i);
    search(steps, must, 0, None, 0, &mut HashSet::new())
}

/// From the state: the steps `done`, the grant that holds the key, the moment `now`.
fn search(
    steps: &[Step],
    must: u32,
    done: u32,
    holder: Option<usize>,
    now: u64,
    dead: &mut HashSet<(u32, Option<usize>, u64)>,
) -> bool {
    if done & must == must {
        return true;
    }
    if dead.contains(&(done, holder, now)) {
        return false;
    }
    // The hold expires.
    if let Some(h) = holder {
        let (_, expiry) = steps[h].grant.expect("a grant holds");
        if search(steps, must, done, None, now.max(expiry), dead) {
            return true;
        }
    }
    // The highest token granted so far: the next grant's must be higher.
    let last = (0..steps.len())
        .filter(|&i| done & 1 << i != 0)
        .filter_map(|i| steps[i].grant.map(|g| g.0))
        .max()
        .unwrap_or(0);
    for (i, s) in steps.iter().enumerate() {
        let at = now.max(s.from_us);
        if done & 1 << i != 0 || done & s.after != s.after || s.to_us.is_some_and(|to| at > to) {
            continue;
        }
        let holder = match (s.grant, holder) {
            (Some((token, _)), None) if token > last => Some(i),
            (None, Some(h)) if steps[h].client == s.client => None,
            _ => continue,
        };
        if search(steps, must, done | 1 << i, holder, at, dead) {
            return true;
        }
    }
    dead.insert((done, holder, now));
    false
}

/// The definition, key by key.
fn explainable(h: &History) -> bool {
    let mut keys: BTreeMap<&str, Vec<&Op>> = BTreeMap::new();
    for op in h.ops.iter() {
        keys.entry(op.key.as_str()).or_default().push(op);
    }
    keys.values().all(|ops| {
        let mut steps: Vec<Step> = Vec::new();
        for op in ops {
            let (grant, to_us) = match &op.answer {
                Some((t, Answer::Granted { token, lease_ms })) => {
                    (Some((*token, op.invoke_us + lease_ms * 1000)), Some(*t))
                }
                Some((t, Answer::Released)) => (None, Some(*t)),
                None if !op.acquire => (None, None),
                // Busy, not holder, an acquire never answered: nothing to place.
                _ => continue,
            };
            let after = (0..steps.len())
                .filter(|&i| steps[i].client == op.client && steps[i].to_us.is_some())
                .fold(0, |m, i| m | 1 << i);
            steps.push(Step {
                client: op.client,
                grant,
                from_us: op.invoke_us,
                to_us,
                after,
            });
        }
        some_linearization(&steps)
    })
}

/// What the clients had observed at `t_us`: the requests sent by then, with the answers given
/// by then.
fn prefix(h: &History, t_us: u64) -> History {
    let mut p = History::default();
    for op in h.ops.iter().filter(|op| op.invoke_us <= t_us) {
        p.ops.push(Op {
            answer: op.answer.clone().filter(|a| a.0 <= t_us),
            ..op.clone()
        });
    }
    p
}

/// A random history of a few clients on one or two keys, each client as the definition has it:
/// one request at a time, a release of the key just granted, nothing after a request never
/// answered. The servers' answers are random: tokens mostly in request order, now and then not,
/// never one twice; leases short and long; half the answers late (a lost reply, the retry
/// answered); "released" whatever happened. Times on a 100 ms grid, so that ties test every
/// comparison's edge. Few operations, so that the search stays short.
fn random_history(rng: &mut Rng) -> History {
    let mut h = History::default();
    let clients = 1 + rng.below(4) as usize;
    let keys = 1 + rng.below(2);
    let n = rng.below(14);
    // Per client: its latest request number, when it may send the next, the key it holds.
    let mut req = vec![0u64; clients];
    let mut free_at = vec![0u64; clients];
    let mut holds: Vec<Option<String>> = vec![None; clients];
    let mut gone = vec![false; clients];
    let mut t = 0;
    let mut token: Token = 0;
    let mut tokens = BTreeSet::new();
    for _ in 0..n {
        let c = rng.below(clients as u64) as usize;
        if gone[c] {
            continue;
        }
        req[c] += 1;
        t = (t + 100_000 * rng.below(4)).max(free_at[c]);
        let late = if rng.below(2) == 0 { 20 } else { 3 };
        let at = t + 100_000 * rng.below(late);
        let (key, acquire) = match holds[c].take() {
            Some(key) => (key, false),
            None => (format!("k{}", rng.below(keys)), true),
        };
        let answer = match rng.below(8) {
            0 => {
                gone[c] = true;
                None
            }
            1 if acquire => Some((at, Answer::Busy)),
            1 => Some((at, Answer::NotHolder)),
            _ if acquire => {
                token += 1 + rng.below(3);
                let back = token.saturating_sub(rng.below(6));
                let tk = if rng.below(6) == 0 && back > 0 && !tokens.contains(&back) {
                    back
                } else {
                    token
                };
                tokens.insert(tk);
                holds[c] = Some(key.clone());
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
        free_at[c] = at;
        h.ops.push(Op {
            client: c as ClientId,
            req: req[c],
            key,
            acquire,
            invoke_us: t,
            answer,
        });
    }
    h
}

/// A history one operation a line, times in ms.
fn lines(h: &History) -> String {
    let ms = |us: u64| us / 1000;
    h.ops
        .iter()
        .map(|op| {
            let answer = op
                .answer
                .as_ref()
                .map_or("never answered".into(), |(t, a)| {
                    format!("{a:?} at {}", ms(*t))
                });
            let what = if op.acquire { "acquire" } else { "release" };
            format!(
                "\n  client {} #{} {what} {} at {}: {answer}",
                op.client,
                op.req,
                op.key,
                ms(op.invoke_us)
            )
        })
        .collect()
}

#[test]
fn history_check_agrees_with_a_search_over_every_linearization() {
    let name = |c: ClientId| format!("client {c}");
    let mut rng = Rng::new(23);
    let (mut fine, mut broken) = (0, 0);
    // Per disagreement: how many histories, and the shortest.
    let mut wrong: BTreeMap<&str, (usize, String, usize)> = BTreeMap::new();
    for i in 0..20_000 {
        let h = random_history(&mut rng);
        let verdict = check_mutex(&h, &name);
        let mut found = |what, ops: usize| {
            let e = wrong.entry(what).or_insert((0, String::new(), usize::MAX));
            e.0 += 1;
            if ops < e.2 {
                let said = verdict.as_ref().map(|_| "explainable");
                *e = (
                    e.0,
                    format!("history {i}: {}\n  check: {said:?}", lines(&h)),
                    ops,
                );
            }
        };
        let explained = explainable(&h);
        if verdict.is_ok() != explained {
            found("verdicts differ", h.ops.len());
        }
        if let Err(c) = &verdict {
            let [a, b] = c.ops.map(|i| &h.ops.get(i).expect("an operation").key);
            if a != b {
                found("the conflict names two keys", h.ops.len());
            }
            if explainable(&prefix(&h, c.at_us)) {
                found("explainable up to at_us", h.ops.len());
            }
            if c.at_us > 0 && !explainable(&prefix(&h, c.at_us - 1)) {
                found("not explainable already before at_us", h.ops.len());
            }
        }
        match explained {
            true => fine += 1,
            false => broken += 1,
        }
    }
    let report: String = wrong
        .iter()
        .map(|(what, (n, shortest, _))| {
            format!("\n{what}: {n} histories; the shortest, {shortest}")
        })
        .collect();
    assert!(report.is_empty(), "{report}");
    assert!(
        fine > 2000 && broken > 2000,
        "{fine} linearizable, {broken} not"
    );
}

fn granted(
    client: ClientId,
    req: u64,
    invoke_ms: u64,
    answered_ms: u64,
    token: Token,
    lease_ms: u64,
) -> Op {
    Op {
        client,
        req,
        key: "k".into(),
        acquire: true,
        invoke_us: invoke_ms * 1000,
        answer: Some((answered_ms * 1000, Answer::Granted { token, lease_ms })),
    }
}

#[test]
fn every_earlier_hold_must_end_before_a_later_tokens_answer_not_only_the_previous_ones() {
    // Token 1 is held from 0 until at least 300 ms (its lease); token 2's short hold cannot
    // start before that; yet token 3 was answered at 200 ms.
    let mut h = History::default();
    h.ops.push(granted(0, 1, 0, 0, 1, 300));
    h.ops.push(granted(1, 1, 0, 500, 2, 100));
    h.ops.push(granted(2, 1, 0, 200, 3, 10_000));
    let c = check_mutex(&h, &|c| format!("client {c}")).unwrap_err();
    assert_eq!((c.ops, c.at_us), ([0, 2], 200_000), "{c}");
    assert!(!explainable(&h));
}

#[test]
fn a_clients_tokens_grow_with_its_requests() {
    // Client 0's third request, sent after its first was answered (and released), got a lower
    // token than the first: the log would have to hold it before a request sent earlier.
    let mut h = History::default();
    h.ops.push(granted(0, 1, 0, 100, 5, 1000));
    h.ops.push(Op {
        client: 0,
        req: 2,
        key: "k".into(),
        acquire: false,
        invoke_us: 100_000,
        answer: Some((150_000, Answer::Released)),
    });
    h.ops.push(granted(0, 3, 200, 300, 3, 1000));
    let c = check_mutex(&h, &|c| format!("client {c}")).unwrap_err();
    assert!(c.message.contains("lower than token 5"), "{c}");
    assert_eq!((c.ops, c.at_us), ([0, 2], 300_000));
    assert!(!explainable(&h));
    // The same requests with the tokens in request order are explained.
    let mut h2 = History::default();
    for op in h.ops.iter().take(2) {
        h2.ops.push(op.clone());
    }
    h2.ops.push(granted(0, 3, 200, 300, 7, 1000));
    let h = h2;
    assert!(check_mutex(&h, &|c| format!("client {c}")).is_ok() && explainable(&h));
}
