//! The replicated state machine of the seed: a lock table built by applying committed commands
//! in log order. Apply is a pure function of (state, index, command): it never reads a clock.

use super::{ClientId, Key, Token};
use crate::raft::log::mix;
use crate::raft::{Command, Index};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A command as the seed defines it. `Grant` carries no token: every node assigns the same one
/// when it applies the entry (the entry's log index).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum LockOp {
    Grant {
        key: Key,
        lease_ms: u64,
    },
    /// The seed's Release carries only the key; `token` is set only under the
    /// `release_with_token` design switch.
    Release {
        key: Key,
        #[serde(skip_serializing_if = "Option::is_none", default)]
        token: Option<Token>,
    },
    Expire {
        key: Key,
        token: Token,
    },
}

/// A log entry's command: the seed's fields plus metadata (who asked, and the request number
/// used for deduplication). Never a token in a Grant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockCommand {
    #[serde(flatten)]
    pub op: LockOp,
    /// The client that asked; `None` for the leader's own Expire and ghost-lock Release.
    pub client: Option<ClientId>,
    /// The client's request number (0 for the leader's own commands).
    pub req: u64,
    /// Only under the `token_from_leader_counter` design switch (a broken design): the token the
    /// leader picked from its own counter. The seed's Grant never carries a token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counter_token: Option<Token>,
}

impl LockCommand {
    /// A command the leader proposes on its own (an Expire, a ghost lock's Release): no client
    /// asked for it.
    pub fn of_leader(op: LockOp) -> Self {
        LockCommand {
            op,
            client: None,
            req: 0,
            counter_token: None,
        }
    }
}

/// Fold a string into a running digest.
pub(crate) fn digest_str(h: u64, s: &str) -> u64 {
    s.as_bytes().chunks(8).fold(mix(h, s.len() as u64), |h, c| {
        let mut w = [0u8; 8];
        w[..c.len()].copy_from_slice(c);
        mix(h, u64::from_le_bytes(w))
    })
}

impl Command for LockCommand {
    /// A snapshot is the lock table with its sessions and token high-water mark, as applied.
    type State = LockMachine;
    fn digest(&self) -> u64 {
        let (tag, key, a, b) = match &self.op {
            LockOp::Grant { key, lease_ms } => (1, key, *lease_ms, 0),
            LockOp::Release { key, token } => (2, key, token.unwrap_or(0), token.is_some() as u64),
            LockOp::Expire { key, token } => (3, key, *token, 0),
        };
        let h = digest_str(mix(mix(mix(tag, a), b), self.req), key);
        let h = mix(h, self.counter_token.map_or(0, |t| t + 1));
        mix(h, self.client.map_or(u64::MAX, |c| c as u64))
    }
    /// Op tag, key, lease or token, request number, client, counter token.
    fn wire_bytes(&self) -> u64 {
        1 + 2 + self.op.key().len() as u64 + 8 + 8 + 4 + 8
    }
    /// Per lock its key, holder, token and lease; per session its client, request and result.
    fn state_wire_bytes(m: &LockMachine) -> u64 {
        24 + m
            .locks
            .keys()
            .map(|k| 2 + k.len() as u64 + 4 + 8 + 8)
            .sum::<u64>()
            + m.sessions.len() as u64 * 24
    }
}

/// The six apply results of the seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "r", rename_all = "snake_case")]
pub enum ApplyResult {
    Granted { token: Token },
    GrantRejected,
    Released,
    NotFound,
    Expired { existed: bool },
    Noop,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lock {
    pub holder: Option<ClientId>,
    pub token: Token,
    pub lease_ms: u64,
}

/// The last request applied for a client, so that a retried request gets its original result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    pub req: u64,
    pub index: Index,
    pub op: LockOp,
    pub result: ApplyResult,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LockMachine {
    /// Change it through `insert_lock` / `remove_lock` (they keep the digest's running sum).
    pub locks: BTreeMap<Key, Lock>,
    pub sessions: BTreeMap<ClientId, Session>,
    pub applied: Index,
    /// Highest token ever issued (survives deletion).
    pub max_token: Token,
    /// Running sum of the per-lock and per-session hashes: the digest in O(1) per apply.
    #[serde(skip)]
    sum: u64,
}

fn lock_hash(k: &str, l: &Lock) -> u64 {
    digest_str(
        mix(
            mix(mix(1, l.token), l.lease_ms),
            l.holder.map_or(u64::MAX, |c| c as u64),
        ),
        k,
    )
}

fn session_hash(c: ClientId, s: &Session) -> u64 {
    mix(mix(mix(2, c as u64), s.req), s.index)
}

/// Design switches that change what apply does (for the "break it" lessons); all off by default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ApplyRules {
    /// Expire deletes without checking the token.
    pub expire_ignores_token: bool,
}

impl LockMachine {
    /// Apply the entry at `index` (which must be `applied + 1`). `cmd == None` is a no-op entry.
    pub fn apply(&mut self, index: Index, cmd: Option<&LockCommand>) -> ApplyResult {
        self.apply_with(index, cmd, ApplyRules::default())
    }

    pub fn apply_with(
        &mut self,
        index: Index,
        cmd: Option<&LockCommand>,
        rules: ApplyRules,
    ) -> ApplyResult {
        assert_eq!(
            index,
            self.applied + 1,
            "entries are applied one after another"
        );
        self.applied = index;
        let Some(cmd) = cmd else {
            return ApplyResult::Noop;
        };
        let result = match &cmd.op {
            LockOp::Grant { key, lease_ms } => {
                if self.locks.contains_key(key) {
                    ApplyResult::GrantRejected
                } else {
                    // The token is the Grant's log index: equal on every node, only growing.
                    let token = cmd.counter_token.unwrap_or(index);
                    self.insert_lock(
                        key.clone(),
                        Lock {
                            holder: cmd.client,
                            token,
                            lease_ms: *lease_ms,
                        },
                    );
                    self.max_token = self.max_token.max(token);
                    ApplyResult::Granted { token }
                }
            }
            LockOp::Release { key, token } => match self.locks.get(key) {
                Some(l) if token.is_none_or(|t| t == l.token) => {
                    self.remove_lock(key);
                    ApplyResult::Released
                }
                _ => ApplyResult::NotFound,
            },
            LockOp::Expire { key, token } => match self.locks.get(key) {
                Some(l) if l.token == *token || rules.expire_ignores_token => {
                    self.remove_lock(key);
                    ApplyResult::Expired { existed: true }
                }
                _ => ApplyResult::Expired { existed: false },
            },
        };
        if let Some(c) = cmd.client {
            let s = Session {
                req: cmd.req,
                index,
                op: cmd.op.clone(),
                result,
            };
            self.sum = self.sum.wrapping_add(session_hash(c, &s));
            if let Some(old) = self.sessions.insert(c, s) {
                self.sum = self.sum.wrapping_sub(session_hash(c, &old));
            }
        }
        result
    }

    pub fn insert_lock(&mut self, key: Key, lock: Lock) {
        self.sum = self.sum.wrapping_add(lock_hash(&key, &lock));
        if let Some(old) = self.locks.insert(key.clone(), lock) {
            self.sum = self.sum.wrapping_sub(lock_hash(&key, &old));
        }
    }

    pub fn remove_lock(&mut self, key: &str) -> Option<Lock> {
        let old = self.locks.remove(key)?;
        self.sum = self.sum.wrapping_sub(lock_hash(key, &old));
        Some(old)
    }

    fn recomputed_sum(&self) -> u64 {
        let locks = self
            .locks
            .iter()
            .fold(0u64, |h, (k, l)| h.wrapping_add(lock_hash(k, l)));
        self.sessions
            .iter()
            .fold(locks, |h, (c, s)| h.wrapping_add(session_hash(*c, s)))
    }

    /// A digest of the whole replicated state, to compare nodes at equal applied indexes.
    pub fn digest(&self) -> u64 {
        debug_assert_eq!(
            self.sum,
            self.recomputed_sum(),
            "locks and sessions change only through insert_lock, remove_lock and apply"
        );
        mix(mix(mix(0, self.applied), self.sum), self.max_token)
    }
}
