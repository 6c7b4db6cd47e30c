//! "Find a bug": the state of the counterexample hunt the page runs in a Web Worker, and what the
//! worker's reports do to it. The worker itself is the UI's (see `www/worker.js`).

use super::text::fmt_count;
use crate::lang::{t, Lang};

/// What the hunt's worker reports (see `www/worker.js`).
#[derive(serde::Deserialize, Default, Debug, Clone, PartialEq)]
#[serde(default)]
pub struct WorkerReport {
    #[serde(rename = "type")]
    pub kind: String,
    pub done: u64,
    pub events: f64,
    pub seed: u64,
    pub invariant: String,
    pub detail: String,
    /// The detail in Russian (empty from an older worker: the English stands in).
    pub detail_ru: String,
    pub original_actions: usize,
    pub actions: usize,
    pub scenario: String,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq)]
pub enum HuntPhase {
    Running,
    Shrinking {
        seed: u64,
        invariant: String,
    },
    Found {
        seed: u64,
        invariant: String,
        detail: crate::lang::Text,
        original_actions: usize,
        actions: usize,
    },
    NoViolation,
    Failed(String),
}

/// The hunt running (or its last outcome).
#[derive(Clone, Debug, PartialEq)]
pub struct Hunt {
    pub switches: Vec<&'static str>,
    pub runs: u64,
    pub done: u64,
    pub events: u64,
    pub phase: HuntPhase,
}

impl Hunt {
    pub fn new(switches: Vec<&'static str>, runs: u64) -> Hunt {
        Hunt {
            switches,
            runs,
            done: 0,
            events: 0,
            phase: HuntPhase::Running,
        }
    }

    pub fn running(&self) -> bool {
        matches!(self.phase, HuntPhase::Running | HuntPhase::Shrinking { .. })
    }

    /// Take in one report; returns the found scenario's document (JSON) when the hunt found one.
    pub fn report(&mut self, r: WorkerReport) -> Option<String> {
        if r.kind != "error" {
            self.done = r.done.max(self.done);
            self.events = (r.events.max(0.0) as u64).max(self.events);
        }
        match r.kind.as_str() {
            "progress" => {}
            "shrinking" => {
                self.phase = HuntPhase::Shrinking {
                    seed: r.seed,
                    invariant: r.invariant,
                }
            }
            "none" => self.phase = HuntPhase::NoViolation,
            "found" => {
                self.phase = HuntPhase::Found {
                    seed: r.seed,
                    invariant: r.invariant,
                    detail: crate::lang::Text::new(r.detail, r.detail_ru),
                    original_actions: r.original_actions,
                    actions: r.actions,
                };
                return Some(r.scenario);
            }
            _ => {
                self.phase = HuntPhase::Failed(if r.message.is_empty() {
                    format!("unexpected report {:?}", r.kind)
                } else {
                    r.message
                })
            }
        }
        None
    }

    /// The status line under the buttons, and its class (broken, ok or none).
    pub fn status(&self, lang: Lang) -> (String, &'static str) {
        let progress = t!(
            lang,
            "{} of {} runs, {} events simulated",
            fmt_count(self.done),
            fmt_count(self.runs),
            fmt_count(self.events)
        );
        let with = describe_switches(&self.switches, lang);
        // An invariant by its words, never its code name.
        let words = |name: &str| {
            crate::check::Invariant::from_name(name).map_or_else(
                || name.to_string(),
                |i| super::text::invariant_label(i, lang),
            )
        };
        match &self.phase {
            HuntPhase::Running => (t!(lang, "Hunting with {with}: {progress}"), ""),
            HuntPhase::Shrinking { seed, invariant } => (t!(lang, "Run {seed} broke \"{invariant}\"; shrinking its fault schedule…", invariant = words(invariant)), ""),
            HuntPhase::Found { seed, invariant, detail, original_actions, actions } => (
                t!(
                    lang,
                    "Found: run {seed} broke \"{invariant}\" ({detail}). Shrunk from {original_actions} to {actions} fault actions and opened in the page; the address bar holds its share link.",
                    detail = detail.get(lang),
                    invariant = words(invariant)
                ),
                "broken",
            ),
            HuntPhase::NoViolation => {
                (t!(lang, "No violation in {} runs ({} events) with {with}.", fmt_count(self.done), fmt_count(self.events)), "ok")
            }
            HuntPhase::Failed(e) => (t!(lang, "The hunt stopped: {e}"), "broken"),
        }
    }
}

/// The switches a hunt runs with, as the safeguards they turn off (never their code names).
pub fn describe_switches(s: &[&str], lang: Lang) -> String {
    if s.is_empty() {
        t!(lang, "every safeguard on").into()
    } else {
        let off: Vec<&str> = s
            .iter()
            .map(|n| {
                crate::scenario::switch::Switch::from_name(n)
                    .map_or(*n, |sw| super::twin::safeguard_name(sw, lang))
            })
            .collect();
        t!(lang, "these safeguards off: {}", off.join(", "))
    }
}
