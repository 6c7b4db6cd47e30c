//! Simulated clients and the fenced storage resource.
//!
//! A client runs a small script on its own local clock: acquire a key with a lease, work while
//! it believes it holds the key and then write the result to the storage with its token,
//! release, sleep. It finds the leader through redirects, times out and retries (keeping the
//! request number so the leader can deduplicate), and believes it holds a key until
//! `time it first sent the request + lease - safety margin`, on its own clock.

use crate::lock::server::{ClientReply, ClientRequest, Outcome, RequestOp};
use crate::lock::{ClientId, Token};
use crate::raft::NodeId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    Acquire {
        key: String,
        lease_ms: u64,
    },
    /// Check the lease, work for `ms`, then write to the storage with the token. A pause in the
    /// middle of the work is the GC pause of the fencing-token argument.
    Work {
        key: String,
        ms: u64,
    },
    Release {
        key: String,
    },
    Sleep {
        ms: u64,
    },
}

fn default_margin() -> u64 {
    100
}
fn default_timeout() -> u64 {
    500
}
fn default_retry() -> u64 {
    200
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientConfig {
    pub name: String,
    pub script: Vec<Step>,
    /// Run the script again from the top when it ends.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub repeat: bool,
    #[serde(default)]
    pub start_ms: u64,
    /// Safety margin subtracted from the lease the client believes it has.
    #[serde(default = "default_margin")]
    pub margin_ms: u64,
    #[serde(default = "default_timeout")]
    pub timeout_ms: u64,
    /// Wait before asking again after "busy" or when no leader is known.
    #[serde(default = "default_retry")]
    pub retry_ms: u64,
    /// The rate of the client's own clock, in ppm (1,000,000 = true time).
    #[serde(default = "default_rate", skip_serializing_if = "is_default_rate")]
    pub rate_ppm: u32,
}

fn default_rate() -> u32 {
    1_000_000
}

fn is_default_rate(r: &u32) -> bool {
    *r == 1_000_000
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Held {
    pub token: Token,
    pub until_local_us: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum Phase {
    Starting,
    Waiting {
        req: u64,
        op: RequestOp,
        first_sent_us: i64,
    },
    Backoff {
        req: u64,
        op: RequestOp,
        first_sent_us: i64,
    },
    Working {
        key: String,
        token: Token,
    },
    Sleeping,
    Done,
}

/// What a client did, for the trace (`ev: "client"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientEvent {
    pub op: &'static str,
    pub key: String,
    pub outcome: &'static str,
    pub token: Option<Token>,
}

#[derive(Clone, Debug, Default)]
pub struct ClientOutput {
    pub requests: Vec<(NodeId, ClientRequest)>,
    pub writes: Vec<(String, Token)>,
    pub events: Vec<ClientEvent>,
}

#[derive(Clone, Debug)]
pub struct Client {
    pub id: ClientId,
    pub cfg: ClientConfig,
    n_nodes: usize,
    pub pc: usize,
    pub phase: Phase,
    pub req_seq: u64,
    pub target: NodeId,
    pub held: BTreeMap<String, Held>,
    /// Steps a user asked for from the page, run when the script is done.
    pub manual: std::collections::VecDeque<Step>,
    /// The run winds down: finish the request in hand, acquire nothing new.
    winding_down: bool,
    deadline_us: i64,
    out: ClientOutput,
}

impl Client {
    /// The cluster gained node ids up to `n_nodes`: the client may try them too.
    pub fn set_nodes(&mut self, n_nodes: usize) {
        self.n_nodes = n_nodes;
    }

    pub fn new(id: ClientId, cfg: ClientConfig, n_nodes: usize, req_seq: u64) -> Self {
        let deadline_us = (cfg.start_ms as i64) * 1000;
        Client {
            id,
            target: id as usize % n_nodes,
            cfg,
            n_nodes,
            pc: 0,
            phase: Phase::Starting,
            req_seq,
            held: BTreeMap::new(),
            manual: Default::default(),
            winding_down: false,
            deadline_us,
            out: ClientOutput::default(),
        }
    }

    pub fn next_deadline_us(&self) -> i64 {
        self.deadline_us
    }

    pub fn take_output(&mut self) -> ClientOutput {
        std::mem::take(&mut self.out)
    }

    /// Whether the client believes it holds `key` at local time `now`.
    pub fn believes_holding(&self, key: &str, local_now_us: i64) -> bool {
        self.held
            .get(key)
            .is_some_and(|h| h.until_local_us > local_now_us)
    }

    /// Whether a Granted reply still has a taker here: the client waits for (or will retry)
    /// that request, or already holds that very grant (a duplicate reply). Otherwise the
    /// grant reached a client that restarted or gave up on the request, and nobody will use
    /// or release the lock: a ghost.
    pub fn takes_grant(&self, req: u64, key: &str, token: Token) -> bool {
        let asked = match &self.phase {
            Phase::Waiting { req: r, .. } | Phase::Backoff { req: r, .. } => *r == req,
            _ => false,
        };
        asked || self.held.get(key).is_some_and(|h| h.token == token)
    }

    /// Queue a step asked for from the page; a client that has finished starts it at once.
    pub fn push_manual(&mut self, local_now_us: i64, step: Step) {
        self.manual.push_back(step);
        if self.phase == Phase::Done {
            self.pc = self.cfg.script.len();
            self.deadline_us = local_now_us;
        }
    }

    /// Stop now: used when a run winds down and the client waits for no answer.
    pub fn stop(&mut self) {
        self.phase = Phase::Done;
        self.deadline_us = i64::MAX;
    }

    /// The run winds down: the request in hand is seen through (retries included), locks held
    /// are released as the script says, and the client stops instead of acquiring again (a
    /// script of requests only, with no work or sleep between them, would otherwise never stop).
    pub fn wind_down(&mut self) {
        self.winding_down = true;
    }

    pub fn tick(&mut self, local_now_us: i64) {
        if local_now_us < self.deadline_us {
            return;
        }
        match std::mem::replace(&mut self.phase, Phase::Done) {
            Phase::Starting => self.run_step(local_now_us),
            Phase::Waiting {
                req,
                op,
                first_sent_us,
            } => {
                let key = op_key(&op).to_string();
                self.event(op_name(&op), key, "timeout", None);
                self.target = (self.target + 1) % self.n_nodes;
                self.send(local_now_us, req, op, first_sent_us);
            }
            Phase::Backoff {
                req,
                op,
                first_sent_us,
            } => self.send(local_now_us, req, op, first_sent_us),
            Phase::Working { key, token } => {
                self.out.writes.push((key, token));
                self.pc += 1;
                self.run_step(local_now_us);
            }
            Phase::Sleeping => {
                self.pc += 1;
                self.run_step(local_now_us);
            }
            Phase::Done => {
                if self.manual.is_empty() {
                    self.deadline_us = i64::MAX;
                } else {
                    self.run_step(local_now_us);
                }
            }
        }
    }

    pub fn on_reply(&mut self, local_now_us: i64, from: NodeId, reply: ClientReply) {
        let (req, op, first_sent_us) = match &self.phase {
            Phase::Waiting {
                req,
                op,
                first_sent_us,
            } if *req == reply.req => (*req, op.clone(), *first_sent_us),
            _ => return, // a late answer to a request the client gave up on
        };
        match reply.outcome {
            Outcome::Granted {
                key,
                token,
                lease_ms,
            } => {
                let lease_us = (lease_ms as i64) * 1000;
                let until_local_us = first_sent_us + lease_us - (self.cfg.margin_ms as i64) * 1000;
                self.held.insert(
                    key.to_string(),
                    Held {
                        token,
                        until_local_us,
                    },
                );
                self.event("acquire", key.to_string(), "granted", Some(token));
                self.target = from;
                self.pc += 1;
                self.run_step(local_now_us);
            }
            Outcome::Busy { key, token, .. } => {
                self.event("acquire", key.to_string(), "busy", Some(token));
                // Busy is a final answer to this request: ask again later with a new number.
                self.req_seq += 1;
                self.backoff(local_now_us, self.req_seq, op, local_now_us);
            }
            Outcome::Released { key } => {
                self.held.remove(&*key);
                self.event("release", key.to_string(), "released", None);
                self.pc += 1;
                self.run_step(local_now_us);
            }
            Outcome::NotHolder { key } => {
                self.held.remove(&*key);
                self.event("release", key.to_string(), "not_holder", None);
                self.pc += 1;
                self.run_step(local_now_us);
            }
            Outcome::NotLeader { hint } => match hint {
                Some(h) if h != from => {
                    self.target = h;
                    self.send(local_now_us, req, op, first_sent_us);
                }
                _ => {
                    self.target = (from + 1) % self.n_nodes;
                    self.backoff(local_now_us, req, op, first_sent_us);
                }
            },
        }
    }

    fn backoff(&mut self, local_now_us: i64, req: u64, op: RequestOp, first_sent_us: i64) {
        self.phase = Phase::Backoff {
            req,
            op,
            first_sent_us,
        };
        self.deadline_us = local_now_us + (self.cfg.retry_ms as i64) * 1000;
    }

    fn send(&mut self, local_now_us: i64, req: u64, op: RequestOp, first_sent_us: i64) {
        self.out.requests.push((
            self.target,
            ClientRequest {
                client: self.id,
                req,
                op: op.clone(),
            },
        ));
        self.phase = Phase::Waiting {
            req,
            op,
            first_sent_us,
        };
        self.deadline_us = local_now_us + (self.cfg.timeout_ms as i64) * 1000;
    }

    fn event(
        &mut self,
        op: &'static str,
        key: String,
        outcome: &'static str,
        token: Option<Token>,
    ) {
        self.out.events.push(ClientEvent {
            op,
            key,
            outcome,
            token,
        });
    }

    fn run_step(&mut self, local_now_us: i64) {
        // Steps that finish at once (a work step without a lease) may follow each other; stop
        // after one pass over the script so a repeating script cannot spin.
        for _ in 0..=self.cfg.script.len() {
            if self.pc >= self.cfg.script.len() && !self.cfg.repeat {
                if let Some(step) = self.manual.pop_front() {
                    self.cfg.script = vec![step];
                    self.pc = 0;
                }
            }
            if self.pc >= self.cfg.script.len() {
                if !self.cfg.repeat || self.cfg.script.is_empty() {
                    self.phase = Phase::Done;
                    self.deadline_us = i64::MAX;
                    return;
                }
                self.pc = 0;
            }
            // Borrowed, not cloned: each arm copies only what it keeps.
            match &self.cfg.script[self.pc] {
                Step::Acquire { .. } if self.winding_down => return self.stop(),
                Step::Acquire { key, lease_ms } => {
                    let op = RequestOp::Acquire {
                        key: key.as_str().into(),
                        lease_ms: *lease_ms,
                    };
                    self.req_seq += 1;
                    self.send(local_now_us, self.req_seq, op, local_now_us);
                    return;
                }
                Step::Work { key, ms } => {
                    let (key, ms) = (key.clone(), *ms);
                    if let Some(h) = self
                        .held
                        .get(&key)
                        .filter(|h| h.until_local_us > local_now_us)
                    {
                        self.phase = Phase::Working {
                            key,
                            token: h.token,
                        };
                        self.deadline_us = local_now_us + (ms as i64) * 1000;
                        return;
                    }
                    self.event("work", key, "lease_lost", None);
                    self.pc += 1;
                }
                Step::Release { key } => {
                    let key = key.clone();
                    // A client that asks to release stops relying on the lock at once.
                    if let Some(h) = self.held.remove(&key) {
                        self.req_seq += 1;
                        let token = h.token;
                        self.send(
                            local_now_us,
                            self.req_seq,
                            RequestOp::Release {
                                key: key.into(),
                                token,
                            },
                            local_now_us,
                        );
                        return;
                    }
                    self.pc += 1;
                }
                Step::Sleep { ms } => {
                    self.phase = Phase::Sleeping;
                    self.deadline_us = local_now_us + (*ms as i64) * 1000;
                    return;
                }
            }
        }
        self.phase = Phase::Sleeping;
        self.pc = self.pc.saturating_sub(1);
        self.deadline_us = local_now_us + (self.cfg.retry_ms as i64) * 1000;
    }
}

fn op_key(op: &RequestOp) -> &str {
    match op {
        RequestOp::Acquire { key, .. } | RequestOp::Release { key, .. } => key,
    }
}

fn op_name(op: &RequestOp) -> &'static str {
    match op {
        RequestOp::Acquire { .. } => "acquire",
        RequestOp::Release { .. } => "release",
    }
}

/// A write the storage received.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StorageWrite {
    pub t_us: u64,
    pub client: ClientId,
    pub key: String,
    pub token: Token,
    pub accepted: bool,
}

/// The fenced resource: a write for a key is accepted only with a token at least as high as the
/// highest it has seen for that key (unless the `storage_ignores_tokens` switch is on).
#[derive(Clone, Debug, Default)]
pub struct Storage {
    pub ignores_tokens: bool,
    pub highest: BTreeMap<String, Token>,
    /// The writes in order, in shared chunks (scrubber snapshots copy only the tail); with a
    /// cap (the page) only about the latest `cap` (`writes_dropped` were let go).
    pub writes: crate::chunked::Chunked<StorageWrite>,
    pub writes_dropped: usize,
    /// Keep about this many writes (0: all; see `set_cap`).
    pub cap: usize,
    /// What lesson checks ask about every write of the run, kept as writes pass.
    pub summary: WriteSummary,
}

#[derive(Clone, Debug, Default)]
pub struct WriteSummary {
    pub accepted_from: std::collections::BTreeSet<ClientId>,
    pub rejected_from: std::collections::BTreeSet<ClientId>,
    /// The last accepted token per key, and whether an accepted token ever failed to exceed it.
    last_accepted: BTreeMap<String, Token>,
    pub accepted_tokens_not_increasing: bool,
}

impl Storage {
    pub fn set_cap(&mut self, keep: usize) {
        self.cap = keep;
    }

    pub fn write(&mut self, t_us: u64, client: ClientId, key: &str, token: Token) -> bool {
        let highest = self.highest.get(key).copied().unwrap_or(0);
        let accepted = self.ignores_tokens || token >= highest;
        let s = &mut self.summary;
        if accepted {
            self.highest.insert(key.to_string(), highest.max(token));
            s.accepted_from.insert(client);
            if s.last_accepted
                .insert(key.to_string(), token)
                .is_some_and(|prev| prev >= token)
            {
                s.accepted_tokens_not_increasing = true;
            }
        } else {
            s.rejected_from.insert(client);
        }
        self.writes.push(StorageWrite {
            t_us,
            client,
            key: key.to_string(),
            token,
            accepted,
        });
        if self.cap > 0 && self.writes.len() > self.cap + crate::chunked::CHUNK {
            self.keep_last(self.cap);
        }
        accepted
    }

    /// Let go of all but (about) the latest `n` writes.
    pub fn keep_last(&mut self, n: usize) {
        self.writes_dropped += self.writes.drop_front(n);
    }
}
