//! The versioned scenario document: everything needed to reproduce a run (seed, settings,
//! switches, clocks, clients and their scripts, a timeline of faults). Share links will encode
//! this same document. See docs/formats.md for the format and an example.

mod action_words;
pub mod builtin;
mod compile;
pub mod expect;
pub mod facts;
pub mod hunt;
pub mod lesson;
pub mod link;
pub mod nemesis;
pub mod question;
pub mod swarm;
pub mod switch;
pub mod twin;
pub mod walk;
pub mod wide;

use crate::client::{ClientConfig, Step};
use crate::lang::{both, Text};
use crate::lock::Switches;
use crate::raft::RaftConfig;
use crate::sim::clock::{RATE_PPM_MAX, RATE_PPM_MIN};
use crate::sim::network::NetworkSettings;
use serde::{Deserialize, Serialize};

pub const FORMAT_VERSION: u32 = 1;
pub const NODES_MAX: usize = 7;
pub const CLIENTS_MAX: usize = 16;
pub const LEASE_MS_MAX: u64 = 600_000;
pub const RUN_MS_MAX: u64 = 24 * 3_600_000;
pub const TIMELINE_MAX: usize = 10_000;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RaftSettings {
    pub election_timeout_ms: [u64; 2],
    pub heartbeat_ms: u64,
    pub pre_vote: bool,
    pub check_quorum: bool,
    /// Break it: the Raft paper's Figure 8 (see `RaftConfig::commit_by_counting_old_terms`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub commit_by_counting_old_terms: bool,
    /// Break it: a restarted node forgets its vote (see `RaftConfig::forget_vote_on_restart`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub forget_vote_on_restart: bool,
    /// Break it: a new leader changes the configuration before its no-op commits (see
    /// `RaftConfig::conf_change_before_noop`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub conf_change_before_noop: bool,
    /// Most entries in one AppendEntries (etcd's MaxSizePerMsg, counted in entries). With 1, a
    /// follower can hold an old-term entry without the new leader's no-op after it: the Figure 8
    /// window.
    #[serde(skip_serializing_if = "is_default_batch")]
    pub max_batch: u64,
    /// Log compaction (§7): each node snapshots its lock table every this many applied entries
    /// and drops its log before the previous snapshot; a follower that needs a dropped entry gets
    /// InstallSnapshot. 0: never.
    #[serde(skip_serializing_if = "is_default_snapshot_every")]
    pub snapshot_every: u64,
}

fn is_default_batch(b: &u64) -> bool {
    *b == RaftConfig::default().max_batch
}

fn is_default_snapshot_every(n: &u64) -> bool {
    *n == RaftConfig::default().snapshot_every
}

impl Default for RaftSettings {
    fn default() -> Self {
        let c = RaftConfig::default();
        RaftSettings {
            election_timeout_ms: [
                c.election_timeout_min_us / 1000,
                c.election_timeout_max_us / 1000,
            ],
            heartbeat_ms: c.heartbeat_us / 1000,
            pre_vote: c.pre_vote,
            check_quorum: c.check_quorum,
            commit_by_counting_old_terms: false,
            forget_vote_on_restart: false,
            conf_change_before_noop: false,
            max_batch: c.max_batch,
            snapshot_every: c.snapshot_every,
        }
    }
}

impl RaftSettings {
    pub fn to_config(&self) -> RaftConfig {
        RaftConfig {
            election_timeout_min_us: self.election_timeout_ms[0] * 1000,
            election_timeout_max_us: self.election_timeout_ms[1] * 1000,
            heartbeat_us: self.heartbeat_ms * 1000,
            pre_vote: self.pre_vote,
            check_quorum: self.check_quorum,
            commit_by_counting_old_terms: self.commit_by_counting_old_terms,
            forget_vote_on_restart: self.forget_vote_on_restart,
            conf_change_before_noop: self.conf_change_before_noop,
            max_batch: self.max_batch,
            snapshot_every: self.snapshot_every,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockSetting {
    /// Node number, from 1.
    pub node: usize,
    #[serde(default = "one_ppm")]
    pub rate_ppm: u32,
    #[serde(default)]
    pub offset_ms: i64,
}

fn one_ppm() -> u32 {
    1_000_000
}

/// A fault or change at a moment of the run, as the document says it: nodes are numbered from
/// 1, and clients and link endpoints are named (an endpoint is `n1`..`n7`, a client's name, or
/// `storage`). The world's [`crate::sim::Fault`] is the same vocabulary resolved to indexes.
/// Read through [`ActionFields`] (see there why).
pub type Action = crate::sim::fault::Act<String, String>;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TimedAction {
    pub at_ms: u64,
    #[serde(flatten)]
    pub action: Action,
}

/// An action as the document spells it: `"do"` and whichever fields that action takes (others
/// are ignored, as serde ignores them). Actions are read through this flat struct instead of
/// serde's derive for an internally tagged enum: that code (every field buffered, then one pass
/// per variant, twice over with the timeline's `flatten`) was over 100 KB of the wasm.
#[derive(Deserialize)]
struct ActionFields {
    #[serde(rename = "do")]
    what: String,
    at_ms: Option<u64>,
    node: Option<usize>,
    groups: Option<Vec<Vec<usize>>>,
    from: Option<String>,
    to: Option<String>,
    rate_ppm: Option<u32>,
    ms: Option<i64>,
    client: Option<String>,
    key: Option<String>,
    lease_ms: Option<u64>,
}

const ACTION_NAMES: &[&str] = &[
    "add_node",
    "remove_node",
    "crash",
    "restart",
    "pause",
    "resume",
    "partition",
    "isolate",
    "cut",
    "heal",
    "heal_all",
    "set_rate",
    "jump",
    "client_pause",
    "client_resume",
    "client_crash",
    "client_restart",
    "client_disconnect",
    "client_reconnect",
    "client_jump",
    "client_acquire",
    "client_release",
    "duplicate_expire",
    "calm",
];

/// A required field of an action, or serde's "missing field" error.
fn need<T, E: serde::de::Error>(v: Option<T>, name: &'static str) -> Result<T, E> {
    v.ok_or_else(|| E::missing_field(name))
}

impl ActionFields {
    fn into_action<E: serde::de::Error>(self) -> Result<Action, E> {
        let f = self;
        Ok(match f.what.as_str() {
            "crash" => Action::Crash {
                node: need(f.node, "node")?,
            },
            "restart" => Action::Restart {
                node: need(f.node, "node")?,
            },
            "pause" => Action::Pause {
                node: need(f.node, "node")?,
            },
            "resume" => Action::Resume {
                node: need(f.node, "node")?,
            },
            "partition" => Action::Partition {
                groups: need(f.groups, "groups")?,
            },
            "isolate" => Action::Isolate {
                node: need(f.node, "node")?,
            },
            "cut" => Action::Cut {
                from: need(f.from, "from")?,
                to: need(f.to, "to")?,
            },
            "heal" => Action::Heal {
                from: need(f.from, "from")?,
                to: need(f.to, "to")?,
            },
            "heal_all" => Action::HealAll,
            "set_rate" => Action::SetRate {
                node: need(f.node, "node")?,
                rate_ppm: need(f.rate_ppm, "rate_ppm")?,
            },
            "jump" => Action::Jump {
                node: need(f.node, "node")?,
                ms: need(f.ms, "ms")?,
            },
            "client_pause" => Action::ClientPause {
                client: need(f.client, "client")?,
            },
            "client_resume" => Action::ClientResume {
                client: need(f.client, "client")?,
            },
            "client_crash" => Action::ClientCrash {
                client: need(f.client, "client")?,
            },
            "client_restart" => Action::ClientRestart {
                client: need(f.client, "client")?,
            },
            "client_disconnect" => Action::ClientDisconnect {
                client: need(f.client, "client")?,
            },
            "client_reconnect" => Action::ClientReconnect {
                client: need(f.client, "client")?,
            },
            "client_jump" => Action::ClientJump {
                client: need(f.client, "client")?,
                ms: need(f.ms, "ms")?,
            },
            "client_acquire" => Action::ClientAcquire {
                client: need(f.client, "client")?,
                key: need(f.key, "key")?,
                lease_ms: need(f.lease_ms, "lease_ms")?,
            },
            "client_release" => Action::ClientRelease {
                client: need(f.client, "client")?,
                key: need(f.key, "key")?,
            },
            "duplicate_expire" => Action::DuplicateExpire {
                key: need(f.key, "key")?,
            },
            "add_node" => Action::AddNode {
                node: need(f.node, "node")?,
            },
            "remove_node" => Action::RemoveNode {
                node: need(f.node, "node")?,
            },
            "calm" => Action::Calm,
            other => return Err(E::unknown_variant(other, ACTION_NAMES)),
        })
    }
}

impl Action {
    /// A cut or heal whose two ends are the same node (refused by validation; the swarm and the
    /// hunt drop the ones they draw).
    pub fn is_self_cut(&self) -> bool {
        matches!(self, Action::Cut { from, to } | Action::Heal { from, to } if from == to)
    }
}

impl<'de> Deserialize<'de> for Action {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        ActionFields::deserialize(d)?.into_action()
    }
}

impl<'de> Deserialize<'de> for TimedAction {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let f = ActionFields::deserialize(d)?;
        let at_ms = need(f.at_ms, "at_ms")?;
        Ok(TimedAction {
            at_ms,
            action: f.into_action()?,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub version: u32,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "Text::is_empty")]
    pub description: Text,
    pub seed: u64,
    pub nodes: usize,
    #[serde(default)]
    pub raft: RaftSettings,
    #[serde(default)]
    pub network: NetworkSettings,
    #[serde(default)]
    pub switches: Switches,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clocks: Vec<ClockSetting>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clients: Vec<ClientConfig>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub timeline: Vec<TimedAction>,
    #[serde(default = "default_until")]
    pub until_ms: u64,
    /// Captions and expected outcomes (built-in scenarios and teachers' files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lesson: Option<lesson::Lesson>,
}

fn default_until() -> u64 {
    10_000
}

/// An invalid document: the field at fault and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub field: String,
    /// In both languages (the CLI and the trace use the English; the page its reader's).
    pub message: crate::lang::Text,
}

impl ScenarioError {
    /// The field and the message in `lang`.
    pub fn words(&self, lang: crate::lang::Lang) -> String {
        if self.field.is_empty() {
            self.message.get(lang).to_string()
        } else {
            format!("{}: {}", self.field, self.message.get(lang))
        }
    }
}

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.words(crate::lang::Lang::En))
    }
}

fn err<T>(field: impl Into<String>, message: crate::lang::Text) -> Result<T, ScenarioError> {
    Err(ScenarioError {
        field: field.into(),
        message,
    })
}

fn check_range(field: &str, v: u64, lo: u64, hi: u64) -> Result<(), ScenarioError> {
    if v < lo || v > hi {
        return err(field, both!("{v} is out of range {lo}..={hi}"));
    }
    Ok(())
}

/// Where a message can go: a node (0-based), a client (0-based) or the storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndpointRef {
    Node(usize),
    Client(usize),
    Storage,
}

impl Scenario {
    /// Parse and validate a JSON document; errors name the field at fault.
    pub fn from_json(s: &str) -> Result<Scenario, ScenarioError> {
        // The version first, so a document of another version gets that message and not a
        // complaint about its fields.
        #[derive(Deserialize)]
        struct Version {
            version: Option<serde_json::Number>,
        }
        let v: Version = serde_json::from_str(s).map_err(|e| ScenarioError {
            field: String::new(),
            message: both!("not a JSON scenario: {e}"),
        })?;
        match v.version.as_ref().and_then(|n| n.as_u64()) {
            Some(v) if v == FORMAT_VERSION as u64 => {}
            Some(v) => {
                return err(
                    "version",
                    both!("version {v} is not supported (this build reads {FORMAT_VERSION})"),
                )
            }
            None => return err("version", both!("missing (expected 1)")),
        }
        let sc: Scenario = serde_json::from_str(s).map_err(|e| ScenarioError {
            field: String::new(),
            message: both!("the document does not fit the format: {e}"),
        })?;
        sc.validate()?;
        Ok(sc)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("scenario serializes")
    }

    /// How many node ids the run may have: its nodes, and any id an `add_node` names.
    pub fn node_slots(&self) -> usize {
        self.timeline
            .iter()
            .filter_map(|t| t.action.added_node())
            .fold(self.nodes, usize::max)
    }

    pub fn endpoint(&self, name: &str) -> Option<EndpointRef> {
        compile::endpoint_in(
            self.node_slots(),
            self.clients.iter().map(|c| c.name.as_str()),
            name,
        )
    }

    pub fn validate(&self) -> Result<(), ScenarioError> {
        if self.version != FORMAT_VERSION {
            return err("version", both!("{} is not supported", self.version));
        }
        check_range("nodes", self.nodes as u64, 1, NODES_MAX as u64)?;
        check_range("until_ms", self.until_ms, 1, RUN_MS_MAX)?;
        let r = &self.raft;
        check_range("raft.heartbeat_ms", r.heartbeat_ms, 1, 10_000)?;
        check_range(
            "raft.election_timeout_ms[0]",
            r.election_timeout_ms[0],
            2,
            60_000,
        )?;
        check_range(
            "raft.election_timeout_ms[1]",
            r.election_timeout_ms[1],
            r.election_timeout_ms[0],
            60_000,
        )?;
        check_range("raft.max_batch", r.max_batch, 1, 1024)?;
        if r.snapshot_every != 0 {
            check_range("raft.snapshot_every", r.snapshot_every, 4, 1_000_000)?;
        }
        let n = &self.network;
        check_range("network.latency_us[0]", n.latency_us[0], 0, 10_000_000)?;
        check_range(
            "network.latency_us[1]",
            n.latency_us[1],
            n.latency_us[0],
            10_000_000,
        )?;
        check_range("network.drop_ppm", n.drop_ppm as u64, 0, 1_000_000)?;
        check_range(
            "network.duplicate_ppm",
            n.duplicate_ppm as u64,
            0,
            1_000_000,
        )?;
        for (i, c) in self.clocks.iter().enumerate() {
            check_range(
                &format!("clocks[{i}].node"),
                c.node as u64,
                1,
                self.nodes as u64,
            )?;
            check_range(
                &format!("clocks[{i}].rate_ppm"),
                c.rate_ppm as u64,
                RATE_PPM_MIN as u64,
                RATE_PPM_MAX as u64,
            )?;
            check_range(
                &format!("clocks[{i}].offset_ms"),
                c.offset_ms.unsigned_abs(),
                0,
                RUN_MS_MAX,
            )?;
        }
        check_range(
            "clients (count)",
            self.clients.len() as u64,
            0,
            CLIENTS_MAX as u64,
        )?;
        for (i, c) in self.clients.iter().enumerate() {
            let f = format!("clients[{i}]");
            if c.name.is_empty()
                || c.name.len() > 16
                || !c
                    .name
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
            {
                return err(
                    format!("{f}.name"),
                    both!("must be 1 to 16 letters, digits or _"),
                );
            }
            if c.name == "storage"
                || (c.name.starts_with('n') && c.name[1..].parse::<u64>().is_ok())
            {
                return err(
                    format!("{f}.name"),
                    both!("\"{}\" is reserved for an endpoint", c.name),
                );
            }
            if self.clients[..i].iter().any(|o| o.name == c.name) {
                return err(format!("{f}.name"), both!("\"{}\" is used twice", c.name));
            }
            check_range(
                &format!("{f}.script (length)"),
                c.script.len() as u64,
                0,
                100,
            )?;
            check_range(&format!("{f}.timeout_ms"), c.timeout_ms, 1, 600_000)?;
            check_range(&format!("{f}.retry_ms"), c.retry_ms, 1, 600_000)?;
            check_range(&format!("{f}.margin_ms"), c.margin_ms, 0, LEASE_MS_MAX)?;
            check_range(&format!("{f}.start_ms"), c.start_ms, 0, RUN_MS_MAX)?;
            check_range(
                &format!("{f}.rate_ppm"),
                c.rate_ppm as u64,
                RATE_PPM_MIN as u64,
                RATE_PPM_MAX as u64,
            )?;
            for (j, s) in c.script.iter().enumerate() {
                let g = format!("{f}.script[{j}]");
                match s {
                    Step::Acquire { key, lease_ms } => {
                        check_key(&format!("{g}.acquire.key"), key)?;
                        check_range(&format!("{g}.acquire.lease_ms"), *lease_ms, 1, LEASE_MS_MAX)?;
                    }
                    Step::Work { key, ms } => {
                        check_key(&format!("{g}.work.key"), key)?;
                        check_range(&format!("{g}.work.ms"), *ms, 0, RUN_MS_MAX)?;
                    }
                    Step::Release { key } => check_key(&format!("{g}.release.key"), key)?,
                    Step::Sleep { ms } => {
                        check_range(&format!("{g}.sleep.ms"), *ms, 0, RUN_MS_MAX)?
                    }
                }
            }
            if c.repeat
                && !c.script.iter().any(|s| {
                    matches!(s, Step::Sleep { ms } if *ms > 0) || matches!(s, Step::Acquire { .. })
                })
            {
                return err(
                    format!("{f}.repeat"),
                    both!("a repeating script needs an acquire or a sleep of more than 0 ms"),
                );
            }
        }
        if let Some(l) = &self.lesson {
            check_range("lesson.captions (length)", l.captions.len() as u64, 0, 100)?;
            check_range("lesson.checks (length)", l.checks.len() as u64, 0, 50)?;
            check_range(
                "lesson.twin_checks (length)",
                l.twin_checks.len() as u64,
                0,
                50,
            )?;
            for (j, c) in l.checks.iter().enumerate() {
                self.validate_check(&format!("lesson.checks[{j}]"), c)?;
            }
            for (j, c) in l.twin_checks.iter().enumerate() {
                self.validate_check(&format!("lesson.twin_checks[{j}]"), c)?;
            }
            for (i, c) in l.captions.iter().enumerate() {
                if c.at_ms.is_some() == c.on.is_some() {
                    return err(
                        format!("lesson.captions[{i}]"),
                        both!("give either at_ms or on"),
                    );
                }
                check_range(
                    &format!("lesson.captions[{i}].text (length)"),
                    c.text.len() as u64,
                    1,
                    2000,
                )?;
                check_range(
                    &format!("lesson.captions[{i}].focus (length)"),
                    c.focus.len() as u64,
                    0,
                    16,
                )?;
                for (j, f) in c.checks.iter().enumerate() {
                    self.validate_check(&format!("lesson.captions[{i}].checks[{j}]"), f)?;
                }
                for (j, f) in c.twin_checks.iter().enumerate() {
                    self.validate_check(&format!("lesson.captions[{i}].twin_checks[{j}]"), f)?;
                }
                if let Some(q) = &c.question {
                    let g = format!("lesson.captions[{i}].question");
                    if let Some((field, message)) = q.mistake() {
                        return err(format!("{g}.{field}"), message);
                    }
                    for (j, f) in q.checks.iter().enumerate() {
                        self.validate_check(&format!("{g}.checks[{j}]"), f)?;
                    }
                }
                for (j, f) in c.focus.iter().enumerate() {
                    let g = format!("lesson.captions[{i}].focus[{j}]");
                    match f {
                        lesson::Focus::Node(k) => {
                            check_range(&g, *k as u64, 1, self.node_slots() as u64)?
                        }
                        lesson::Focus::Client(name)
                            if !self.clients.iter().any(|c| &c.name == name) =>
                        {
                            return err(g, both!("there is no client \"{name}\""));
                        }
                        lesson::Focus::Key(k) => check_key(&g, k)?,
                        _ => {}
                    }
                }
            }
        }
        check_range(
            "timeline (length)",
            self.timeline.len() as u64,
            0,
            TIMELINE_MAX as u64,
        )?;
        for (i, t) in self.timeline.iter().enumerate() {
            let f = format!("timeline[{i}]");
            check_range(&format!("{f}.at_ms"), t.at_ms, 0, RUN_MS_MAX)?;
            self.validate_action(&f, &t.action)?;
        }
        Ok(())
    }

    fn validate_check(&self, f: &str, c: &lesson::Claim) -> Result<(), ScenarioError> {
        let has_client = |name: &str| self.clients.iter().any(|c| c.name == name);
        if let Some((field, message)) = c.mistake(self.node_slots(), has_client) {
            return err(format!("{f}.{field}"), message);
        }
        match c {
            lesson::Claim::Lock { key, .. }
            | lesson::Claim::NoLock { key, .. }
            | lesson::Claim::Holds { key, .. }
            | lesson::Claim::NotHolding { key, .. }
            | lesson::Claim::Granted { key, .. } => check_key(&format!("{f}.key"), key),
            _ => Ok(()),
        }
    }

    pub fn validate_action(&self, f: &str, a: &Action) -> Result<(), ScenarioError> {
        let slots = self.node_slots() as u64;
        let node = |k: usize| check_range(&format!("{f}.node"), k as u64, 1, slots);
        let client = |name: &str| match self.endpoint(name) {
            Some(EndpointRef::Client(_)) => Ok(()),
            _ => err(format!("{f}.client"), both!("no client named \"{name}\"")),
        };
        let endpoint = |field: &str, name: &str| match self.endpoint(name) {
            Some(_) => Ok(()),
            None => err(
                format!("{f}.{field}"),
                both!("\"{name}\" is not n1..n{}, a client or storage", slots),
            ),
        };
        match a {
            Action::Crash { node: k }
            | Action::Restart { node: k }
            | Action::Pause { node: k }
            | Action::Resume { node: k }
            | Action::Isolate { node: k } => node(*k),
            Action::Partition { groups } => {
                for (gi, g) in groups.iter().enumerate() {
                    for k in g {
                        check_range(&format!("{f}.groups[{gi}]"), *k as u64, 1, slots)?;
                    }
                }
                Ok(())
            }
            Action::Cut { from, to } | Action::Heal { from, to } => {
                endpoint("from", from)?;
                endpoint("to", to)?;
                if self.endpoint(from) == self.endpoint(to) {
                    return err(
                        format!("{f}.to"),
                        both!("\"{to}\" is the same as \"from\": a link joins two ends"),
                    );
                }
                Ok(())
            }
            Action::SetRate { node: k, rate_ppm } => {
                node(*k)?;
                check_range(
                    &format!("{f}.rate_ppm"),
                    *rate_ppm as u64,
                    RATE_PPM_MIN as u64,
                    RATE_PPM_MAX as u64,
                )
            }
            Action::Jump { node: k, ms } => {
                node(*k)?;
                check_range(&format!("{f}.ms"), ms.unsigned_abs(), 0, RUN_MS_MAX)
            }
            Action::ClientPause { client: c }
            | Action::ClientResume { client: c }
            | Action::ClientCrash { client: c }
            | Action::ClientRestart { client: c }
            | Action::ClientDisconnect { client: c }
            | Action::ClientReconnect { client: c } => client(c),
            Action::ClientJump { client: c, ms } => {
                client(c)?;
                check_range(&format!("{f}.ms"), ms.unsigned_abs(), 0, RUN_MS_MAX)
            }
            Action::ClientAcquire {
                client: c,
                key,
                lease_ms,
            } => {
                client(c)?;
                check_key(&format!("{f}.key"), key)?;
                check_range(&format!("{f}.lease_ms"), *lease_ms, 1, LEASE_MS_MAX)
            }
            Action::ClientRelease { client: c, key } => {
                client(c)?;
                check_key(&format!("{f}.key"), key)
            }
            Action::DuplicateExpire { key } => check_key(&format!("{f}.key"), key),
            Action::HealAll | Action::Calm => Ok(()),
            // Whether the change may happen then (a member, another in flight) is the run's to
            // say: it is refused there with the reason.
            Action::AddNode { node: k } | Action::RemoveNode { node: k } => {
                check_range(&format!("{f}.node"), *k as u64, 1, NODES_MAX as u64)
            }
        }
    }
}

fn check_key(field: &str, key: &str) -> Result<(), ScenarioError> {
    if key.is_empty() || key.len() > 32 {
        return err(field, both!("a key has 1 to 32 characters"));
    }
    Ok(())
}

/// The example scenario of docs/formats.md: the GC pause that fencing tokens defend against.
pub const EXAMPLE_JSON: &str = include_str!("../../../scenarios/gc-pause.json");

/// The scenario the page opens with.
pub const PLAYGROUND_JSON: &str = include_str!("../../../scenarios/playground.json");
