//! The clients' history read from a trace's `client` events, checked at the end as a mutex with
//! leases ([`crate::check::history::check_mutex`], the page's own check).
//!
//! An operation runs from its invocation (`invoked_us` when the event has it, else the client's
//! previous event: wider, so the check can miss a problem but never invent one) to its answer.
//! A timeout is one attempt's: the client sends the same request again, so its start stays and
//! the request is told once as unanswered (either outcome). A grant's lease comes from the
//! `apply` of its token's index.

use super::{LineError, Raw};
use crate::check::history::{Answer, Conflict, History, Op};
use std::collections::BTreeMap;

#[derive(Default)]
pub(super) struct ClientHistory {
    history: History,
    /// The line of each operation.
    lines: Vec<u64>,
    /// Per client: its latest event's time, and the request whose attempt timed out.
    last_us: BTreeMap<u32, u64>,
    timed_out: BTreeMap<u32, (bool, String)>,
    /// The lease of each Grant, by its token (the index it was applied at).
    lease_ms: BTreeMap<u64, u64>,
    exact: bool,
    untimed: u64,
}

/// A conflict found: the line that ends it, its time, the message, the two lines.
pub(super) type Found = (u64, Option<u64>, crate::lang::Text, Vec<u64>);

impl ClientHistory {
    /// A Grant first applied at `index` with this lease.
    pub(super) fn grant(&mut self, index: u64, lease_ms: u64) {
        self.lease_ms.insert(index, lease_ms);
    }

    /// A `client` event of client `id` at line `n`.
    pub(super) fn event(&mut self, n: u64, id: u32, raw: &Raw) -> Result<(), LineError> {
        let bad = |m: &str| LineError {
            line: n,
            message: crate::lang::both!("a client event without {m}"),
        };
        let op = raw.op.as_deref().ok_or_else(|| bad("op"))?;
        let outcome = raw.outcome.as_deref().ok_or_else(|| bad("outcome"))?;
        // The history is about time: a client event without it is left out (and said so).
        let Some(t) = raw.t_us else {
            self.untimed += 1;
            return Ok(());
        };
        let timeout = outcome == "timeout";
        let since = if timeout {
            self.last_us.get(&id).copied().unwrap_or(0)
        } else {
            self.last_us.insert(id, t).unwrap_or(0)
        };
        let acquire = match op {
            "acquire" => true,
            "release" => false,
            _ => return Ok(()),
        };
        let key = raw.key.clone().ok_or_else(|| bad("key"))?;
        if timeout {
            let pending = (acquire, key.clone());
            if self.timed_out.get(&id) == Some(&pending) {
                return Ok(());
            }
            self.timed_out.insert(id, pending);
        } else {
            self.timed_out.remove(&id);
        }
        let answer = match (outcome, raw.token) {
            ("granted", Some(token)) => Some(Answer::Granted {
                token,
                lease_ms: self.lease_ms.get(&token).copied().unwrap_or(0),
            }),
            ("granted", None) => return Err(bad("the token it was granted")),
            ("busy", _) => Some(Answer::Busy),
            ("released", _) => Some(Answer::Released),
            ("not_holder" | "not_found", _) => Some(Answer::NotHolder),
            // Timed out: it may have taken effect or not.
            _ => None,
        };
        self.exact |= raw.invoked_us.is_some();
        self.history.ops.push(Op {
            client: id,
            req: self.lines.len() as u64,
            key,
            acquire,
            invoke_us: raw.invoked_us.unwrap_or(since).min(t),
            answer: answer.map(|a| (t, a)),
        });
        self.lines.push(n);
        Ok(())
    }

    /// The verdict, with what could not be checked added to `not_checked`.
    pub(super) fn finish(
        &self,
        names: &[String],
        not_checked: &mut Vec<crate::lang::Text>,
    ) -> Option<Found> {
        if self.untimed > 0 {
            not_checked.push(crate::lang::both!(
                "the clients' history: {} client event(s) without t_us were left out",
                self.untimed
            ));
        }
        if self.lines.is_empty() {
            not_checked.push(crate::lang::both!(
                "the clients' history as a mutex with leases: no client events"
            ));
            return None;
        }
        if !self.exact {
            not_checked.push(crate::lang::both!("the clients' history exactly: client events carry no invoked_us, so each operation is taken to start at the client's previous event (the check can miss a problem, never invent one)"));
        }
        let name = |c: u32| names.get(c as usize).cloned().unwrap_or_default();
        let Conflict {
            message, ru, ops, ..
        } = crate::check::history::check_mutex(&self.history, &name).err()?;
        let lines = ops.map(|i| self.lines[i]);
        let t = self
            .history
            .ops
            .get(ops[0].max(ops[1]))
            .and_then(|o| o.answer.as_ref().map(|a| a.0));
        Some((
            lines[0].max(lines[1]),
            t,
            crate::lang::Text::new(message, ru),
            lines.to_vec(),
        ))
    }
}
