//! What the clients observed: when each acquire and release was invoked and answered, and how.
//! The world records it as the run goes; `crate::check::history` checks it against a mutex with
//! leases.

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

/// How far back (in multiples of the cap) a request waiting for its answer keeps the history.
pub const PIN_SPAN: usize = 4;

/// Cloned with every scrubber snapshot: the operations live in shared chunks (a clone copies
/// the short tail), and only each client's latest request is indexed (a client retries only its
/// current request, and only its current request gets an answer recorded).
/// With a cap (the page), only the latest operations are kept, like the trace's lines: `from`
/// were let go, and a check of the whole history replays the run (`Playground::history_verdict`).
#[derive(Clone, Debug, Default)]
pub struct History {
    /// Operations `from..`: `ops[i]` is operation `from + i` of the run.
    pub ops: crate::chunked::Chunked<Op>,
    from: usize,
    /// Keep about this many operations (0: all).
    cap: usize,
    /// Per client: its latest request number and that operation's position in the run.
    latest: BTreeMap<ClientId, (u64, usize)>,
}

impl History {
    /// Keep only about the latest `keep` operations (whole chunks are let go).
    pub fn set_cap(&mut self, keep: usize) {
        self.cap = keep;
    }

    /// How many operations of the run were let go (0: the history is whole).
    pub fn from(&self) -> usize {
        self.from
    }

    pub fn invoke(&mut self, client: ClientId, req: u64, key: &str, acquire: bool, t_us: u64) {
        if self.latest.get(&client).is_some_and(|&(r, _)| r == req) {
            return; // a retry of the same request
        }
        self.latest
            .insert(client, (req, self.from + self.ops.len()));
        self.ops.push(Op {
            client,
            req,
            key: key.to_string(),
            acquire,
            invoke_us: t_us,
            answer: None,
        });
        if self.cap > 0 && self.ops.len() > self.cap + crate::chunked::CHUNK {
            self.keep_last(self.cap);
        }
    }

    /// Let go of early operations, keeping at least the latest `n` and every client's current
    /// request still waiting for its answer, as long as it is among the latest `PIN_SPAN × n`
    /// (a client that crashed or stopped never gets one: its request must not pin the history
    /// for the rest of the run). Whole chunks go, shared ones stay with the clones that hold them.
    pub fn keep_last(&mut self, n: usize) {
        let total = self.from + self.ops.len();
        let waiting = |i: usize| {
            self.ops
                .get(i - self.from)
                .is_some_and(|op| op.answer.is_none())
        };
        let current = self
            .latest
            .values()
            .map(|&(_, i)| i)
            .filter(|&i| i >= self.from && total - i <= PIN_SPAN * n && waiting(i))
            .min();
        let keep = current.map_or(n, |i| n.max(total - i));
        self.from += self.ops.drop_front(keep);
    }

    pub fn respond(&mut self, client: ClientId, req: u64, outcome: &Outcome, t_us: u64) {
        let answer = match outcome {
            Outcome::Granted {
                token, lease_ms, ..
            } => Answer::Granted {
                token: *token,
                lease_ms: *lease_ms,
            },
            Outcome::Busy { .. } => Answer::Busy,
            Outcome::Released { .. } => Answer::Released,
            Outcome::NotHolder { .. } => Answer::NotHolder,
            Outcome::NotLeader { .. } => return, // not an answer: the client asks elsewhere
        };
        if let Some(&(_, i)) = self
            .latest
            .get(&client)
            .filter(|&&(r, i)| r == req && i >= self.from)
        {
            if let Some(op) = self
                .ops
                .get_mut(i - self.from)
                .filter(|op| op.answer.is_none())
            {
                op.answer = Some((t_us, answer));
            }
        }
    }
}
