//! The counterexample hunt: random fault schedules (the swarm's) with some design switches on,
//! until an invariant breaks; then the schedule is shrunk to the fewest timeline actions and
//! the shortest run that still break the same invariant, ready to open as a scenario or link.

use super::{swarm, wide, Action, Scenario, TimedAction};
use crate::lang::{both, tb, Text};
use crate::rng::Rng;
use crate::sim::World;

pub use super::switch::Switch;

/// The switch names (the page's and the CLI's), in [`Switch::ALL`]'s order.
pub const SWITCH_NAMES: [&str; 12] = {
    let mut names = [""; 12];
    let mut i = 0;
    while i < 12 {
        names[i] = Switch::ALL[i].name();
        i += 1;
    }
    names
};

/// Turn a named switch on or off in a document (the name comes from the CLI or the page).
pub fn set_switch(sc: &mut Scenario, name: &str, on: bool) -> Result<(), String> {
    let s = Switch::from_name(name).ok_or_else(|| {
        format!(
            "no switch named \"{name}\" (one of: {})",
            SWITCH_NAMES.join(", ")
        )
    })?;
    s.set(sc, on);
    Ok(())
}

/// Whether a named switch is on in a document (an unknown name is off).
pub fn switch_is_on(sc: &Scenario, name: &str) -> bool {
    Switch::from_name(name).is_some_and(|s| s.is_on(sc))
}

/// Which seeds of the hunt draw from the wide swarm's space (every knob over its whole range,
/// [`wide::wide_scenario`]): one in this many. The others draw the classic schedule, on which
/// the switch-specific fault mixes below (Figure 8's, the drifting clients) were tuned.
pub const WIDE_EVERY: u64 = 4;

/// A swarm schedule for the hunt: the swarm's faults (the wide swarm's, without its membership
/// changes, for one seed in [`WIDE_EVERY`]), plus duplicated Expire proposals, plus (only with `client_no_margin`)
/// client clocks drifting by up to ±50%.
pub fn hunt_scenario(seed: u64, switches: &[&str]) -> Result<Scenario, String> {
    let mut sc = if seed.is_multiple_of(WIDE_EVERY) {
        // Without the wide seeds' membership changes: the membership switch has its own
        // nemesis, and the other switches' searches (Figure 8's at seed 5516) keep their runs.
        let mut sc = wide::wide_scenario(seed);
        sc.timeline
            .retain(|t| !matches!(t.action, Action::AddNode { .. } | Action::RemoveNode { .. }));
        sc
    } else {
        swarm::random_scenario(seed)
    };
    // The membership nemesis writes its own schedule against the run (after every other
    // switch's fault mix, which it then watches): the swarm's blind faults go.
    let nemesis = switches.contains(&"conf_change_before_noop");
    if nemesis {
        sc.timeline.retain(|t| matches!(t.action, Action::Calm));
    }
    let mut r = Rng::new(seed ^ 0x4855_4e54);
    for _ in 0..r.range_inclusive(1, 4) {
        let key = ["a", "b"][r.below(2) as usize].to_string();
        sc.timeline.push(TimedAction {
            at_ms: r.range_inclusive(500, swarm::FAULTS_MS - 1),
            action: Action::DuplicateExpire { key },
        });
    }
    sc.timeline.sort_by_key(|t| t.at_ms); // stable: `calm` stays last among equals
    for s in switches {
        set_switch(&mut sc, s, true)?;
        if *s == "client_no_margin" {
            for c in &mut sc.clients {
                c.rate_ppm = r.range_inclusive(500_000, 1_500_000) as u32;
            }
        }
        if *s == "commit_by_counting_old_terms" {
            figure_8_faults(&mut sc, &mut r);
        }
        if *s == "forget_vote_on_restart" {
            double_vote_faults(&mut sc, &mut r);
        }
    }
    if nemesis {
        super::nemesis::membership_nemesis(&mut sc, &mut r);
    }
    sc.name = format!("hunt-{seed}");
    Ok(sc)
}

/// Figure 8 needs a follower that holds an entry of an earlier term without the new leader's
/// no-op after it, and then a leader change: one entry per AppendEntries, slower links, and
/// many more crashes, restarts and partitions.
fn figure_8_faults(sc: &mut Scenario, r: &mut Rng) {
    sc.raft.max_batch = 1;
    let lo = r.range_inclusive(5_000, 20_000);
    sc.network.latency_us = [lo, lo + r.range_inclusive(0, 20_000)];
    let n = sc.nodes as u64;
    let node = |r: &mut Rng| r.range_inclusive(1, n) as usize;
    for _ in 0..r.range_inclusive(100, 300) {
        let at_ms = r.range_inclusive(500, swarm::FAULTS_MS - 1);
        let action = match r.below(6) {
            0 => Action::Crash { node: node(r) },
            1 | 2 => Action::Restart { node: node(r) },
            3 => Action::Cut {
                from: format!("n{}", node(r)),
                to: format!("n{}", node(r)),
            },
            4 => Action::Isolate { node: node(r) },
            _ => Action::HealAll,
        };
        if !action.is_self_cut() {
            sc.timeline.push(TimedAction { at_ms, action });
        }
    }
    sc.timeline.sort_by_key(|t| t.at_ms);
}

/// A double vote needs a node that votes, restarts before it hears of a winner, and is asked
/// again in the same term by a second candidate whose log is as long: elections that overlap
/// (close timeouts, slow links) and many quick crash-and-restarts.
fn double_vote_faults(sc: &mut Scenario, r: &mut Rng) {
    let lo = r.range_inclusive(100, 200);
    sc.raft.election_timeout_ms = [lo, lo + r.range_inclusive(5, 30)];
    let lat = r.range_inclusive(5_000, 30_000);
    sc.network.latency_us = [lat, lat + r.range_inclusive(0, 10_000)];
    let n = sc.nodes as u64;
    for _ in 0..r.range_inclusive(50, 150) {
        let at_ms = r.range_inclusive(500, swarm::FAULTS_MS - 100);
        let node = r.range_inclusive(1, n) as usize;
        let action = match r.below(3) {
            0 => Action::Isolate { node },
            1 => Action::HealAll,
            _ => {
                sc.timeline.push(TimedAction {
                    at_ms: at_ms + r.range_inclusive(1, 40),
                    action: Action::Restart { node },
                });
                Action::Crash { node }
            }
        };
        sc.timeline.push(TimedAction { at_ms, action });
    }
    sc.timeline.sort_by_key(|t| t.at_ms);
}

/// The first violation of a run, if any: (invariant, detail, true time µs).
pub fn first_violation(sc: &Scenario) -> Option<(&'static str, Text, u64)> {
    run_to_violation(sc).0
}

/// Run until the first violation (or the end, or the wide swarm's event budget); also the
/// number of events simulated. A violation that the document's knobs make legitimate by design
/// ([`wide::by_design`]) does not count, unless a switch that is on is the safeguard of that
/// invariant: that is what the hunt looks for (`raftlock hunt --control` runs the same
/// schedules with the switches off).
pub fn run_to_violation(sc: &Scenario) -> (Option<(&'static str, Text, u64)>, u64) {
    let hunted: Vec<_> = Switch::ALL
        .into_iter()
        .filter(|s| s.is_on(sc))
        .filter_map(Switch::breaks)
        .collect();
    let excused: Vec<_> = wide::by_design(sc)
        .into_iter()
        .map(|(i, _)| i)
        .filter(|i| !hunted.contains(i))
        .collect();
    let mut events = 0;
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut w = World::new(sc, false).ok()?;
        let end = sc.until_ms * 1000;
        // Violations looked at so far: each step looks only at the new ones (a run may pile up
        // thousands of excused ones).
        let mut seen = 0;
        while events < wide::EVENT_BUDGET && w.next_event_time().is_some_and(|t| t <= end) {
            w.step();
            events += 1;
            let all = w.violations();
            let found = all[seen..]
                .iter()
                .find(|(_, v)| !excused.contains(&v.invariant));
            seen = all.len();
            if let Some((t, v)) = found {
                return Some((v.invariant.name(), v.detail.clone(), *t));
            }
        }
        None
    }));
    (
        run.unwrap_or(Some(("panic", both!("the run panicked"), 0))),
        events,
    )
}

/// One slice of a hunt (the page's worker runs the hunt in slices to report progress).
#[derive(Debug, Default, serde::Serialize)]
pub struct Batch {
    pub runs: u64,
    pub events: u64,
    /// The first failing seed of the slice and its invariant.
    pub failed: Option<(u64, &'static str)>,
}

/// Run the schedules of seeds `from..from + runs`, stopping at the first that fails.
pub fn hunt_batch(switches: &[&str], from: u64, runs: u64) -> Result<Batch, String> {
    run_schedules(switches, from, runs, true, &mut |_| {}).map(|(b, _)| b)
}

/// The control experiment: the same schedules as [`hunt_batch`] (the switches' fault mix
/// included: one entry per message and dense crashes for Figure 8, drifting client clocks for
/// `client_no_margin`), with the switches back off. Runs them all; returns the count and the
/// failing seeds.
pub fn control_batch(switches: &[&str], from: u64, runs: u64) -> Result<(Batch, Vec<u64>), String> {
    run_schedules(switches, from, runs, false, &mut |_| {})
}

/// [`control_batch`], telling `progress` the failing count after each run (the CLI's bar).
pub fn control_batch_with(
    switches: &[&str],
    from: u64,
    runs: u64,
    progress: &mut dyn FnMut(usize),
) -> Result<(Batch, Vec<u64>), String> {
    run_schedules(switches, from, runs, false, progress)
}

/// The hunt's schedules with the switches on (stopping at the first failure) or back off (all
/// of them run): the batch, and every failing seed.
fn run_schedules(
    switches: &[&str],
    from: u64,
    runs: u64,
    on: bool,
    progress: &mut dyn FnMut(usize),
) -> Result<(Batch, Vec<u64>), String> {
    let mut b = Batch::default();
    let mut failing = Vec::new();
    for seed in from..from + runs {
        let mut sc = hunt_scenario(seed, switches)?;
        if !on {
            for s in switches {
                set_switch(&mut sc, s, false)?;
            }
        }
        let (v, events) = run_to_violation(&sc);
        b.runs += 1;
        b.events += events;
        if let Some((inv, _, _)) = v {
            b.failed.get_or_insert((seed, inv));
            failing.push(seed);
            if on {
                break;
            }
        }
        progress(failing.len());
    }
    Ok((b, failing))
}

/// The names of the switches that are on in a document (what the page hunts with).
pub fn switches_on(sc: &Scenario) -> Vec<&'static str> {
    Switch::ALL
        .into_iter()
        .filter(|s| s.is_on(sc))
        .map(Switch::name)
        .collect()
}

/// Shrink a failing schedule: drop runs of timeline actions (half of them, then a quarter, …,
/// then one at a time) while the same invariant still breaks, then end the run just after the
/// violation. Long runs go first because a schedule written against a live run (the membership
/// nemesis) often needs none of its early history, yet removing any one early action shifts
/// every later moment.
pub fn shrink(sc: &Scenario, invariant: &str) -> Scenario {
    let mut best = sc.clone();
    let mut chunk = (best.timeline.len() / 2).max(1);
    loop {
        let mut i = 0;
        while i < best.timeline.len() {
            let mut candidate = best.clone();
            let end = (i + chunk).min(candidate.timeline.len());
            candidate.timeline.drain(i..end);
            match first_violation(&candidate) {
                Some((inv, _, _)) if inv == invariant => best = candidate,
                _ => i += chunk,
            }
        }
        if chunk == 1 {
            break;
        }
        chunk /= 2;
    }
    if let Some((_, _, t)) = first_violation(&best) {
        best.until_ms = (t / 1000 + 100).min(best.until_ms);
    }
    best
}

#[derive(Debug)]
pub struct Found {
    pub seed: u64,
    pub runs: u64,
    pub invariant: &'static str,
    /// In both languages (the CLI prints the English).
    pub detail: Text,
    pub original_actions: usize,
    pub shrunk: Scenario,
}

/// Run up to `runs` schedules from seed `from`; stop at the first violation and shrink it.
pub fn hunt(switches: &[&str], from: u64, runs: u64) -> Result<Option<Found>, String> {
    hunt_with(switches, from, runs, &mut || {})
}

/// [`hunt`], calling `progress` after each run that found nothing (the CLI's bar).
pub fn hunt_with(
    switches: &[&str],
    from: u64,
    runs: u64,
    progress: &mut dyn FnMut(),
) -> Result<Option<Found>, String> {
    for k in 0..runs {
        let seed = from + k;
        if let Some(mut found) = shrink_seed(switches, seed)? {
            found.runs = k + 1;
            return Ok(Some(found));
        }
        progress();
    }
    Ok(None)
}

/// If seed `seed`'s hunt schedule fails, shrink it into a scenario with a lesson naming the
/// broken invariant.
pub fn shrink_seed(switches: &[&str], seed: u64) -> Result<Option<Found>, String> {
    let sc = hunt_scenario(seed, switches)?;
    let Some((invariant, detail, _)) = first_violation(&sc) else {
        return Ok(None);
    };
    let mut shrunk = shrink(&sc, invariant);
    let list = switches.join(", ");
    let (before, after) = (sc.timeline.len(), shrunk.timeline.len());
    shrunk.description = Text::by_lang(|lang| {
        let with = if switches.is_empty() {
            String::new()
        } else {
            tb!(lang, ", switches: {list}")
        };
        tb!(
            lang,
            "Found by the hunt (seed {seed}{with}): {detail}. The fault schedule was shrunk from {before} to {after} actions.",
            detail = detail.get(lang)
        )
    });
    shrunk.lesson = Some(super::lesson::Lesson {
        title: both!("Found by the hunt: {invariant}"),
        captions: vec![super::lesson::Caption {
            at_ms: None,
            on: Some(super::lesson::Moment::Violation),
            text: detail.clone(),
            focus: Vec::new(),
            checks: Vec::new(),
            question: None,
            twin_checks: Vec::new(),
        }],
        checks: vec![super::lesson::Claim::Violated {
            invariant: invariant.to_string(),
        }],
        twin_checks: Vec::new(),
    });
    Ok(Some(Found {
        seed,
        runs: 1,
        invariant,
        detail,
        original_actions: sc.timeline.len(),
        shrunk,
    }))
}
