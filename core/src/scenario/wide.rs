//! The swarm over every knob (swarm testing, as TigerBeetle's VOPR does it): each seed draws
//! every field of the scenario format and every timeline action from its whole documented
//! range, so that what a user can reach by typing a number, the swarm reaches first.
//!
//! A knob is drawn ([`Draw::knob`]) from one of three places: an end of its range (1/8 of the
//! draws), the band where most scenarios live (the classic swarm's, 7/16), or the whole range,
//! log-uniformly where it spans orders of magnitude (7/16): a 1 ms client timeout is as legal as
//! 500 ms. The safeguards stay on (every design switch off, pre-vote and check-quorum on): the
//! swarm checks the correct design; the hunt turns safeguards off.
//!
//! Some knobs make a violation legitimate by design: a client whose clock runs slower than its
//! margin covers may believe it holds a lock after its lease ended; a network slower than the
//! election timeout never lets a leader look healthy. [`by_design`] names what such a run does
//! not check and why; everything else is checked after every event. A run stops at
//! [`EVENT_BUDGET`] events (a 1 ms heartbeat on a 100× clock is legal, and costly): its
//! convergence is then not checked, its safety is.

use super::{
    swarm, Action, ClockSetting, RaftSettings, Scenario, TimedAction, CLIENTS_MAX, FORMAT_VERSION,
    LEASE_MS_MAX, NODES_MAX, RUN_MS_MAX,
};
use crate::check::Invariant;
use crate::client::{ClientConfig, Step};
use crate::rng::Rng;
use crate::sim::clock::{RATE_PPM_MAX, RATE_PPM_MIN};
use crate::sim::network::NetworkSettings;
use crate::sim::World;

/// Events one run may take (most take far fewer; see the module's note).
pub const EVENT_BUDGET: u64 = 250_000;
/// The most timeline actions a wide run draws (the format allows 10,000; more than this in a
/// 15 s window only repeats itself).
pub const ACTIONS_MAX: u64 = 400;
/// The longest election timeout (ms) after which the run can still settle in its window.
const SETTLE_ELECTION_MAX_MS: u64 = 1_000;

const CLIENT_NAMES: [&str; CLIENTS_MAX] = [
    "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", "P",
];
/// Keys of every legal length (1 to 32 characters).
const KEYS: [&str; 3] = ["a", "b", "a_key_of_thirty_two_characters_x"];

/// Draws of knobs from one seed's generator.
pub struct Draw<'a>(pub &'a mut Rng);

impl Draw<'_> {
    pub fn uniform(&mut self, lo: u64, hi: u64) -> u64 {
        self.0.range_inclusive(lo, hi)
    }

    pub fn one_in(&mut self, n: u64) -> bool {
        self.0.below(n) == 0
    }

    /// Log-uniform over `lo..=hi` by powers of two (integers only, so a seed draws the same
    /// numbers natively and in the browser): a bit length first, then a value of that length.
    pub fn log(&mut self, lo: u64, hi: u64) -> u64 {
        debug_assert!(lo <= hi);
        let bits = |x: u64| 64 - x.leading_zeros() as u64;
        let b = self.uniform(bits(lo), bits(hi));
        let (from, to) = match b {
            0 => (0, 0),
            b => (1u64 << (b - 1), (1u64 << (b - 1)).saturating_mul(2) - 1),
        };
        self.uniform(from.max(lo), to.min(hi))
    }

    /// A knob of documented range `lo..=hi` whose usual values lie in `band` (see the module).
    pub fn knob(&mut self, lo: u64, hi: u64, band: [u64; 2]) -> u64 {
        match self.0.below(16) {
            0 => lo,
            1 => hi,
            2..=8 => self.uniform(band[0].clamp(lo, hi), band[1].clamp(lo, hi)),
            _ => self.log(lo, hi),
        }
    }

    /// A signed knob of magnitude up to `hi`.
    pub fn signed(&mut self, hi: u64, band: [u64; 2]) -> i64 {
        let m = self.knob(0, hi, band) as i64;
        if self.one_in(2) {
            -m
        } else {
            m
        }
    }

    fn rate_ppm(&mut self, band: [u64; 2]) -> u32 {
        self.knob(RATE_PPM_MIN as u64, RATE_PPM_MAX as u64, band) as u32
    }
}

/// One wide seed's document: 1–7 nodes, 0–16 clients with scripts of every step, every Raft,
/// network, clock and client knob, and up to [`ACTIONS_MAX`] timeline actions of every kind in
/// the first [`swarm::FAULTS_MS`], then `calm` and a settling time.
pub fn wide_scenario(seed: u64) -> Scenario {
    let mut rng = Rng::new(seed ^ 0x5749_4445_5357_524d);
    let d = &mut Draw(&mut rng);
    let nodes = d.uniform(1, NODES_MAX as u64) as usize;
    let e_min = d.knob(2, 60_000, [150, 150]);
    let raft = RaftSettings {
        election_timeout_ms: [e_min, d.knob(e_min, 60_000, [e_min, 2 * e_min])],
        heartbeat_ms: d.knob(1, 10_000, [20, 60]),
        pre_vote: true,
        check_quorum: true,
        commit_by_counting_old_terms: false,
        forget_vote_on_restart: false,
        conf_change_before_noop: false,
        max_batch: d.knob(1, 1024, [1, 64]),
        snapshot_every: if d.one_in(4) {
            0
        } else {
            d.knob(4, 1_000_000, [4, 200])
        },
    };
    let lat_lo = d.knob(0, 10_000_000, [100, 3_000]);
    let network = NetworkSettings {
        latency_us: [
            lat_lo,
            d.knob(lat_lo, 10_000_000, [lat_lo, lat_lo + 20_000]),
        ],
        drop_ppm: if d.one_in(3) {
            0
        } else {
            d.knob(0, 1_000_000, [0, 50_000]) as u32
        },
        duplicate_ppm: if d.one_in(3) {
            0
        } else {
            d.knob(0, 1_000_000, [0, 50_000]) as u32
        },
    };
    let mut clocks = Vec::new();
    for node in 1..=nodes {
        if d.one_in(4) {
            clocks.push(ClockSetting {
                node,
                rate_ppm: d.rate_ppm([250_000, 4_000_000]),
                offset_ms: d.signed(RUN_MS_MAX, [0, 1_000]),
            });
        }
    }
    let until_ms = swarm::FAULTS_MS + settle_ms(&raft);
    let n_clients = d.knob(0, CLIENTS_MAX as u64, [2, 4]) as usize;
    let keys = d.uniform(1, KEYS.len() as u64) as usize;
    let clients = (0..n_clients)
        .map(|i| client(d, CLIENT_NAMES[i], &KEYS[..keys], until_ms))
        .collect();
    let mut sc = Scenario {
        version: FORMAT_VERSION,
        name: format!("wide-{seed}"),
        description: Default::default(),
        seed,
        nodes,
        raft,
        network,
        switches: Default::default(),
        clocks,
        clients,
        timeline: Vec::new(),
        until_ms,
        lesson: None,
    };
    let n_actions = d.knob(0, ACTIONS_MAX, [4, 24]);
    for _ in 0..n_actions {
        let at_ms = d.uniform(0, swarm::FAULTS_MS - 1);
        if let Some(action) = action(d, &sc, &KEYS[..keys]) {
            sc.timeline.push(TimedAction { at_ms, action });
        }
    }
    // Membership changes of any id 1–7 (dissertation ch. 4; many refused when they come: no
    // leader, one in flight, the last voter), on their own stream so that the draws above stay
    // those of the seeds' pinned runs before membership change existed.
    let mut m = Rng::new(seed ^ 0x5749_4445_4d45_4d42);
    for _ in 0..m.range_inclusive(0, 3) {
        let node = m.range_inclusive(1, NODES_MAX as u64) as usize;
        let action = if m.below(2) == 0 {
            Action::AddNode { node }
        } else {
            Action::RemoveNode { node }
        };
        let at_ms = m.range_inclusive(0, swarm::FAULTS_MS - 1);
        sc.timeline.push(TimedAction { at_ms, action });
    }
    sc.timeline.sort_by_key(|t| t.at_ms);
    sc.timeline.push(TimedAction {
        at_ms: swarm::FAULTS_MS,
        action: Action::Calm,
    });
    debug_assert_eq!(sc.validate(), Ok(()), "seed {seed}");
    sc
}

/// After `calm`: ten seconds, or time for twenty election timeouts when those are longer.
fn settle_ms(raft: &RaftSettings) -> u64 {
    swarm::SETTLE_MS.max(20 * raft.election_timeout_ms[1].min(SETTLE_ELECTION_MAX_MS))
}

fn client(d: &mut Draw, name: &str, keys: &[&str], until_ms: u64) -> ClientConfig {
    let key = |d: &mut Draw| keys[d.uniform(0, keys.len() as u64 - 1) as usize].to_string();
    let lease = |d: &mut Draw| d.knob(1, LEASE_MS_MAX, [200, 1_500]);
    let script = if d.one_in(2) {
        let k = key(d);
        vec![
            Step::Acquire {
                key: k.clone(),
                lease_ms: lease(d),
            },
            Step::Work {
                key: k.clone(),
                ms: d.knob(0, RUN_MS_MAX, [20, 400]),
            },
            Step::Release { key: k },
            Step::Sleep {
                ms: d.knob(0, RUN_MS_MAX, [0, 300]),
            },
        ]
    } else {
        (0..d.uniform(1, 6))
            .map(|_| match d.uniform(0, 3) {
                0 => Step::Acquire {
                    key: key(d),
                    lease_ms: lease(d),
                },
                1 => Step::Work {
                    key: key(d),
                    ms: d.knob(0, RUN_MS_MAX, [20, 400]),
                },
                2 => Step::Release { key: key(d) },
                _ => Step::Sleep {
                    ms: d.knob(0, RUN_MS_MAX, [0, 300]),
                },
            })
            .collect()
    };
    let repeat = !d.one_in(4)
        && script.iter().any(|s| {
            matches!(s, Step::Acquire { .. }) || matches!(s, Step::Sleep { ms } if *ms > 0)
        });
    ClientConfig {
        name: name.to_string(),
        script,
        repeat,
        start_ms: d.knob(0, until_ms, [0, 1_000]),
        margin_ms: d.knob(0, LEASE_MS_MAX, [0, 150]),
        timeout_ms: d.knob(1, 600_000, [200, 600]),
        retry_ms: d.knob(1, 600_000, [50, 300]),
        rate_ppm: if d.one_in(4) {
            d.rate_ppm([500_000, 2_000_000])
        } else {
            1_000_000
        },
    }
}

/// An endpoint's name: a node, a client or the storage.
fn endpoint(d: &mut Draw, sc: &Scenario) -> String {
    let k = d.uniform(0, (sc.nodes + sc.clients.len()) as u64);
    match k as usize {
        k if k < sc.nodes => format!("n{}", k + 1),
        k if k < sc.nodes + sc.clients.len() => sc.clients[k - sc.nodes].name.clone(),
        _ => "storage".into(),
    }
}

/// One timeline action of any kind the format knows but `calm` (which ends the schedule).
/// None when the draw names what this document lacks (a client action without clients, a
/// link from an endpoint to itself).
fn action(d: &mut Draw, sc: &Scenario, keys: &[&str]) -> Option<Action> {
    let n = sc.nodes as u64;
    let node = |d: &mut Draw| d.uniform(1, n) as usize;
    let clients = sc.clients.len() as u64;
    let client = |d: &mut Draw| -> Option<String> {
        (clients > 0).then(|| sc.clients[d.uniform(0, clients - 1) as usize].name.clone())
    };
    let key = |d: &mut Draw| keys[d.uniform(0, keys.len() as u64 - 1) as usize].to_string();
    Some(match d.uniform(0, 19) {
        0 => Action::Crash { node: node(d) },
        1 => Action::Restart { node: node(d) },
        2 => Action::Pause { node: node(d) },
        3 => Action::Resume { node: node(d) },
        4 => {
            let parts = d.uniform(2, 3);
            let mut groups = vec![Vec::new(); parts as usize];
            for k in 1..=sc.nodes {
                groups[d.uniform(0, parts - 1) as usize].push(k);
            }
            Action::Partition { groups }
        }
        5 => Action::Isolate { node: node(d) },
        6 | 7 => {
            let (from, to) = (endpoint(d, sc), endpoint(d, sc));
            if from == to {
                return None;
            }
            if d.one_in(3) {
                Action::Heal { from, to }
            } else {
                Action::Cut { from, to }
            }
        }
        8 => Action::HealAll,
        9 => Action::SetRate {
            node: node(d),
            rate_ppm: d.rate_ppm([250_000, 4_000_000]),
        },
        10 => Action::Jump {
            node: node(d),
            ms: d.signed(RUN_MS_MAX, [0, 500]),
        },
        11 => Action::ClientPause { client: client(d)? },
        12 => Action::ClientResume { client: client(d)? },
        13 => Action::ClientCrash { client: client(d)? },
        14 => Action::ClientRestart { client: client(d)? },
        15 => Action::ClientDisconnect { client: client(d)? },
        16 => Action::ClientReconnect { client: client(d)? },
        17 => Action::ClientAcquire {
            client: client(d)?,
            key: key(d),
            lease_ms: d.knob(1, LEASE_MS_MAX, [200, 1_500]),
        },
        18 => Action::ClientRelease {
            client: client(d)?,
            key: key(d),
        },
        _ => Action::DuplicateExpire { key: key(d) },
    })
}

/// What a run of this document does not check, and why: the invariants that its knobs make
/// legitimately breakable by design. (Those that compare durations across machines are also
/// skipped by the checker itself once a server clock drifts or jumps: see
/// [`Invariant::clock_bound`].)
pub fn by_design(sc: &Scenario) -> Vec<(Invariant, &'static str)> {
    let mut out = Vec::new();
    if let Some(why) = believed_past_lease(sc) {
        out.push((Invariant::OneBelievedHolder, why));
    }
    if let Err(why) = timely(sc) {
        out.push((Invariant::HealthyLeaderNotDeposed, why));
        out.push((Invariant::IsolatedLeaderStepsDown, why));
    }
    if let Err(why) = ghost_release_in_a_second(sc) {
        out.push((Invariant::GhostLockReleased, why));
    }
    out
}

/// A client believes it holds a key for `lease − margin` on its own clock from when it first
/// asked; the servers count the whole lease from a later moment. A client clock at rate r < 1
/// stretches the belief to (lease − margin) / r of true time: safe only while the margin covers
/// `lease × (1 − r)`.
fn believed_past_lease<'a>(sc: &'a Scenario) -> Option<&'static str> {
    let covered = |c: &ClientConfig, lease_ms: u64| {
        let r = c.rate_ppm as u128;
        r >= 1_000_000 || (c.margin_ms as u128) * 1_000_000 >= (lease_ms as u128) * (1_000_000 - r)
    };
    let leases = |name: &'a str| {
        sc.timeline.iter().filter_map(move |t| match &t.action {
            Action::ClientAcquire {
                client, lease_ms, ..
            } if client == name => Some(*lease_ms),
            _ => None,
        })
    };
    sc.clients
        .iter()
        .any(|c| {
            c.script
                .iter()
                .filter_map(|s| match s {
                    Step::Acquire { lease_ms, .. } => Some(*lease_ms),
                    _ => None,
                })
                .chain(leases(&c.name))
                .any(|l| !covered(c, l))
        })
        .then_some("a client's clock runs slower than its safety margin covers")
}

/// Whether Raft's timing lets a leader be healthy, be heard and be replaced as the liveness
/// checks assume: heartbeats well inside the election timeout, messages faster than a quarter
/// of it, little loss, and an election timeout longer than the checks' 100 ms health window.
fn timely(sc: &Scenario) -> Result<(), &'static str> {
    let [e_min, _] = sc.raft.election_timeout_ms;
    if e_min * 1000 <= crate::check::HEALTHY_WINDOW_US {
        return Err("the election timeout is not longer than the 100 ms health window");
    }
    if sc.raft.heartbeat_ms * 2 > e_min {
        return Err("heartbeats are more than half an election timeout apart");
    }
    if sc.network.latency_us[1] * 4 > e_min * 1000 {
        return Err("a message can take over a quarter of an election timeout");
    }
    if sc.network.drop_ppm > 50_000 {
        return Err("over 5% of messages are lost");
    }
    Ok(())
}

/// The ghost check gives the leader one second to commit its Release; a run whose leader may
/// need longer, while still leading, is not held to it.
fn ghost_release_in_a_second(sc: &Scenario) -> Result<(), &'static str> {
    timely(sc)?;
    if sc.raft.election_timeout_ms[1] > 300 || sc.raft.heartbeat_ms > 100 {
        return Err("a cut-off leader may lead for over a second");
    }
    if sc.network.latency_us[1] > 100_000 {
        return Err("a Release may take over a second to commit");
    }
    // Check-quorum deposes a cut-off leader after an election timeout on its own clock: a
    // slow clock stretches that in true time.
    let slowest_ppm = sc
        .clocks
        .iter()
        .map(|c| c.rate_ppm)
        .chain(sc.timeline.iter().filter_map(|t| match t.action {
            Action::SetRate { rate_ppm, .. } => Some(rate_ppm),
            _ => None,
        }))
        .fold(1_000_000, u32::min) as u64;
    let [_, e_max] = sc.raft.election_timeout_ms;
    if (e_max + sc.raft.heartbeat_ms) * 1_000_000 > 1_000 * slowest_ppm {
        return Err("a server clock runs so slow that a cut-off leader leads for over a second");
    }
    Ok(())
}

/// Why a run's convergence after `calm` is not checked, if it is not.
pub fn convergence_unchecked(sc: &Scenario) -> Option<&'static str> {
    if let Err(why) = timely(sc) {
        return Some(why);
    }
    let [e_min, e_max] = sc.raft.election_timeout_ms;
    if (e_max - e_min) * 1000 < 4 * sc.network.latency_us[1] + 1000 {
        // Raft breaks split votes by the spread of its random timeouts (§5.2): with none, the
        // nodes may time out together forever.
        return Some("the election timeouts spread over less than 1 ms and four message times");
    }
    (e_max > SETTLE_ELECTION_MAX_MS).then_some("an election may take longer than the settling time")
}

/// After the settling time, how long the cluster may take to reach a moment of convergence:
/// a lease that runs out late (the format allows 600 s) has its Expire replicated then.
const CONVERGE_GRACE_US: u64 = 2_000_000;

/// Whether the cluster is converged ([`swarm::check_converged`]) at some moment before
/// `deadline_us`, looked at every 10 ms.
fn converged_by(w: &mut World, deadline_us: u64) -> Result<(), String> {
    loop {
        let now = swarm::check_converged(w);
        if now.is_ok() || w.now_us >= deadline_us {
            return now;
        }
        w.run_until(w.now_us + 10_000);
    }
}

/// Why a run stopped early (and its convergence went unchecked).
pub const BUDGET_REACHED: &str = "the run reached its event budget";

/// One wide run's outcome.
#[derive(Debug)]
pub struct WideOutcome {
    pub seed: u64,
    /// Violations of what the run checks (by-design ones left out).
    pub violations: Vec<String>,
    /// The invariant of each violation, in order ("panic" for a run that panicked).
    pub broken: Vec<&'static str>,
    /// The invariants broken that [`by_design`] excused, with the reason.
    pub excused: Vec<String>,
    pub convergence: Result<(), String>,
    /// Why convergence was not checked (the knobs, or the event budget ran out).
    pub convergence_skipped: Option<&'static str>,
    pub events: u64,
    pub trace_hash: String,
}

impl WideOutcome {
    pub fn ok(&self) -> bool {
        self.violations.is_empty() && self.convergence.is_ok()
    }
}

/// A wide seed's document with its clients' own clocks jumping too (`client_jump`, forward and
/// back, up to the format's bound): drawn from a stream of their own, so the wide seeds' other
/// draws, documents and golden hashes stay as they are.
pub fn with_client_jumps(seed: u64, mut sc: Scenario) -> Scenario {
    if sc.clients.is_empty() {
        return sc;
    }
    let mut rng = Rng::new(seed ^ 0x434c_4a4d_5053);
    let d = &mut Draw(&mut rng);
    let end = sc.until_ms.saturating_sub(1).max(1);
    for _ in 0..d.uniform(1, 4) {
        let client = sc.clients[d.uniform(0, sc.clients.len() as u64 - 1) as usize]
            .name
            .clone();
        sc.timeline.push(TimedAction {
            at_ms: d.uniform(0, end),
            action: Action::ClientJump {
                client,
                ms: d.signed(RUN_MS_MAX, [0, 2_000]),
            },
        });
    }
    sc.timeline.sort_by_key(|t| t.at_ms); // stable: `calm` keeps its place among equals
    sc
}

/// Run one wide seed's document with every invariant checked after every event.
pub fn run_wide(seed: u64) -> WideOutcome {
    run_wide_with(seed, &wide_scenario(seed))
}

/// [`run_wide`] on a given document (a shrunk one, say).
pub fn run_wide_with(seed: u64, sc: &Scenario) -> WideOutcome {
    let excused_invariants = by_design(sc);
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut w = World::new(sc, false).expect("generated scenarios are valid");
        let end_us = sc.until_ms * 1000;
        while w.stats.events < EVENT_BUDGET && w.next_event_time().is_some_and(|t| t <= end_us) {
            w.step();
        }
        let done = w.next_event_time().is_none_or(|t| t > end_us);
        (w, done)
    }));
    let (mut w, done) = match run {
        Ok(x) => x,
        Err(p) => {
            return WideOutcome {
                seed,
                violations: vec![format!("panic: {}", swarm::panic_message(&*p))],
                broken: vec!["panic"],
                excused: Vec::new(),
                convergence: Err("the run panicked".into()),
                convergence_skipped: None,
                events: 0,
                trace_hash: String::new(),
            };
        }
    };
    let (mut violations, mut broken, mut excused) = (Vec::new(), Vec::new(), Vec::new());
    for (t, v) in w.violations() {
        let line = format!("t={}us {}: {}", t, v.invariant, v.detail);
        match excused_invariants.iter().find(|(i, _)| *i == v.invariant) {
            Some((_, why)) => excused.push(format!("{line} (not checked: {why})")),
            None => {
                violations.push(line);
                broken.push(v.invariant.name());
            }
        }
    }
    let convergence_skipped = if done {
        convergence_unchecked(sc)
    } else {
        Some(BUDGET_REACHED)
    };
    let convergence = match convergence_skipped {
        Some(_) => Ok(()),
        None => converged_by(&mut w, sc.until_ms * 1000 + CONVERGE_GRACE_US),
    };
    WideOutcome {
        seed,
        violations,
        broken,
        excused,
        convergence,
        convergence_skipped,
        events: w.stats.events,
        trace_hash: w.trace.hash_hex(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_swarm_every_seed_is_a_valid_document() {
        for seed in 0..2_000 {
            let sc = wide_scenario(seed);
            assert_eq!(sc.validate(), Ok(()), "seed {seed}");
            assert_eq!(Scenario::from_json(&sc.to_json()).as_ref(), Ok(&sc));
        }
    }

    #[test]
    fn wide_swarm_draws_every_knob_to_both_ends_of_its_range() {
        let scs: Vec<Scenario> = (0..3_000).map(wide_scenario).collect();
        let clients = || scs.iter().flat_map(|s| s.clients.iter());
        let min = |f: &dyn Fn(&Scenario) -> Option<u64>| scs.iter().filter_map(f).min();
        let max = |f: &dyn Fn(&Scenario) -> Option<u64>| scs.iter().filter_map(f).max();
        assert_eq!(clients().map(|c| c.timeout_ms).min(), Some(1));
        assert_eq!(clients().map(|c| c.timeout_ms).max(), Some(600_000));
        assert_eq!(clients().map(|c| c.retry_ms).min(), Some(1));
        assert_eq!(clients().map(|c| c.margin_ms).min(), Some(0));
        assert_eq!(clients().map(|c| c.margin_ms).max(), Some(LEASE_MS_MAX));
        assert_eq!(min(&|s| Some(s.nodes as u64)), Some(1));
        assert_eq!(max(&|s| Some(s.nodes as u64)), Some(NODES_MAX as u64));
        assert_eq!(
            max(&|s| Some(s.clients.len() as u64)),
            Some(CLIENTS_MAX as u64)
        );
        assert_eq!(min(&|s| Some(s.raft.election_timeout_ms[0])), Some(2));
        assert_eq!(max(&|s| Some(s.raft.election_timeout_ms[1])), Some(60_000));
        assert_eq!(min(&|s| Some(s.raft.heartbeat_ms)), Some(1));
        assert_eq!(max(&|s| Some(s.raft.heartbeat_ms)), Some(10_000));
        assert_eq!(min(&|s| Some(s.raft.max_batch)), Some(1));
        assert_eq!(max(&|s| Some(s.raft.max_batch)), Some(1024));
        assert_eq!(min(&|s| Some(s.network.latency_us[0])), Some(0));
        assert_eq!(max(&|s| Some(s.network.latency_us[1])), Some(10_000_000));
        assert_eq!(max(&|s| Some(s.network.drop_ppm as u64)), Some(1_000_000));
        assert_eq!(
            max(&|s| Some(s.network.duplicate_ppm as u64)),
            Some(1_000_000)
        );
        let leases = || {
            clients().flat_map(|c| {
                c.script.iter().filter_map(|s| match s {
                    Step::Acquire { lease_ms, .. } => Some(*lease_ms),
                    _ => None,
                })
            })
        };
        assert_eq!(leases().min(), Some(1));
        assert_eq!(leases().max(), Some(LEASE_MS_MAX));
        let rates = || scs.iter().flat_map(|s| s.clocks.iter().map(|c| c.rate_ppm));
        assert_eq!(rates().min(), Some(RATE_PPM_MIN));
        assert_eq!(rates().max(), Some(RATE_PPM_MAX));
        // Every timeline action, and cuts between nodes and clients in both directions.
        let actions: std::collections::BTreeSet<String> = scs
            .iter()
            .flat_map(|s| s.timeline.iter())
            .map(|t| serde_json::to_value(&t.action).unwrap()["do"].to_string())
            .collect();
        assert_eq!(actions.len(), 23, "{actions:?}");
        let cut = |from_node: bool| {
            scs.iter().any(|s| {
                s.timeline.iter().any(|t| match &t.action {
                    Action::Cut { from, to } => {
                        let node = |e: &str| e.starts_with('n') && e[1..].parse::<u8>().is_ok();
                        let client = |e: &str| s.clients.iter().any(|c| c.name == e);
                        if from_node {
                            node(from) && client(to)
                        } else {
                            client(from) && node(to)
                        }
                    }
                    _ => false,
                })
            })
        };
        assert!(cut(true) && cut(false));
    }

    #[test]
    fn wide_swarm_log_draws_stay_in_range_and_reach_every_power_of_two() {
        let mut r = Rng::new(7);
        let d = &mut Draw(&mut r);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..20_000 {
            let x = d.log(0, 600_000);
            assert!(x <= 600_000);
            seen.insert(64 - x.leading_zeros());
        }
        assert_eq!(seen.len(), 21, "0 and every bit length up to 600,000's");
    }

    #[test]
    fn by_design_a_client_clock_slower_than_its_margin_covers_is_not_held_to_one_holder() {
        let mut sc = wide_scenario(1);
        sc.timeline.clear();
        sc.clients = vec![ClientConfig {
            name: "A".into(),
            script: vec![Step::Acquire {
                key: "k".into(),
                lease_ms: 1_000,
            }],
            repeat: false,
            start_ms: 0,
            margin_ms: 100,
            timeout_ms: 500,
            retry_ms: 200,
            rate_ppm: 900_000,
        }];
        let excused = |sc: &Scenario| {
            by_design(sc)
                .iter()
                .any(|(i, _)| *i == Invariant::OneBelievedHolder)
        };
        assert!(!excused(&sc), "10% slow, 10% margin: covered");
        sc.clients[0].rate_ppm = 899_999;
        assert!(excused(&sc));
    }
}
