//! The safe twin beside the run: the same document and seed with one safeguard the other way,
//! at the same true time. A "Break it" lesson that checks facts on its twin shows it from the
//! start; *Compare side by side* in free play opens one for any switch. The twin follows the
//! run's document (an action recorded in the run rebuilds it) and its moment (back at once, a
//! seek from its snapshots; forward in slices with the page's jobs).

use super::focus::FocusSet;
use super::job::SLICE_EVENTS;
use super::text::{invariant_label, node_state_words};
use crate::check::Invariant;
use crate::lang::{t, Lang};
use crate::playground::Playground;
use crate::raft::Role;
use crate::scenario::switch::Switch;
use crate::scenario::twin::{broken_switches, flipped};
use crate::scenario::Scenario;
use crate::sim::World;

pub struct Twin {
    /// The twin's run: the run's document with `flips` turned the other way.
    pub playground: Playground,
    /// The switches the twin has the other way.
    pub flips: Vec<Switch>,
}

impl Twin {
    /// The twin of `main` with `flips` the other way (a document that cannot run is the
    /// error's words).
    pub fn new(main: &Scenario, flips: Vec<Switch>, lang: Lang) -> Result<Twin, String> {
        let pg = Playground::new(flipped(main, &flips)).map_err(|e| e.words(lang))?;
        Ok(Twin {
            playground: pg,
            flips,
        })
    }

    /// The twin a lesson shows from its start: one whose lesson checks facts on its safe twin.
    pub fn of_lesson(main: &Scenario) -> Option<Twin> {
        let flips = broken_switches(main);
        (main.lesson.as_ref()?.checks_twin() && !flips.is_empty())
            .then(|| Twin::new(main, flips, Lang::En).ok())
            .flatten()
    }

    /// Start again if the run's document changed (an action recorded, a switch turned).
    pub fn follow(&mut self, main: &Scenario) {
        let doc = flipped(main, &self.flips);
        if doc != self.playground.scenario {
            if let Ok(pg) = Playground::new(doc) {
                self.playground = pg;
            }
        }
    }

    /// Back to `t_us` at once if the twin is past it (the run went back).
    pub fn sync_back(&mut self, t_us: u64) {
        if self.playground.now_us() > t_us {
            self.playground.seek(t_us);
        }
    }

    /// Whether the twin is behind `t_us`.
    pub fn lags(&self, t_us: u64) -> bool {
        self.playground.now_us() < t_us.min(self.playground.end_us())
    }

    /// Catch up toward `t_us` until done or `out_of_time` says stop. Returns whether it is there.
    pub fn catch_up(&mut self, t_us: u64, out_of_time: &dyn Fn() -> bool) -> bool {
        loop {
            if self.playground.advance_bounded(t_us, SLICE_EVENTS).0 {
                return true;
            }
            if out_of_time() {
                return false;
            }
        }
    }

    /// Whether `sc` has every one of the twin's switches safe (its safeguards on).
    fn is_safe(&self, sc: &Scenario) -> bool {
        let broken = broken_switches(sc);
        self.flips.iter().all(|s| !broken.contains(s))
    }
}

/// The switch *Show the safe twin* opens again: a lesson that has a twin but hides it.
pub fn offer(run: &Scenario, shown: bool) -> Option<&'static str> {
    let wants = !shown && run.lesson.as_ref().is_some_and(|l| l.checks_twin());
    wants
        .then(|| broken_switches(run).first().map(|s| s.name()))
        .flatten()
}

/// The two halves' labels (the run's, the twin's), without the rest of [`view`]'s work.
pub fn labels(run: &Scenario, twin: Option<&Twin>, lang: Lang) -> Option<(String, String)> {
    let twin = twin?;
    let label = |sc: &Scenario| {
        let broken = broken_switches(sc);
        twin.flips
            .iter()
            .map(|s| safeguard_words(*s, !broken.contains(s), lang))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Some((label(run), label(&twin.playground.scenario)))
}

/// One half of the stage: which run, its safeguards in words, what is broken in it, and the
/// lines that tell it from the other half.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HalfView {
    /// "fencing off" / "fencing on".
    pub label: String,
    /// Every flipped safeguard is on in this half.
    pub safe: bool,
    /// Whether this half is the run itself (the other is its twin).
    pub is_run: bool,
    /// The invariants broken so far, in words.
    pub broken: Vec<String>,
    /// (kind: "leader", "lock", "node", "client" or "write"; text; not in the other half),
    /// what differs first.
    pub lines: Vec<(&'static str, String, bool)>,
}

/// The two halves, the run's first; `None` without a twin.
pub fn view(
    run: &Playground,
    twin: Option<&Twin>,
    focus: &FocusSet,
    lang: Lang,
) -> Option<[HalfView; 2]> {
    let twin = twin?;
    let (a, b) = (run, &twin.playground);
    let fa = facts(&a.world, &b.world, focus, lang);
    let fb = facts(&b.world, &a.world, focus, lang);
    let labels = labels(&run.scenario, Some(twin), lang)?;
    let half = |pg: &Playground, mine: &[Fact], other: &[Fact], is_run: bool| {
        let safe = twin.is_safe(&pg.scenario);
        // What differs first: a half shows a few lines.
        let mut lines: Vec<_> = mine
            .iter()
            .map(|f| {
                let same = other.iter().any(|o| o.key == f.key && o.text == f.text);
                (f.kind, f.text.clone(), !same)
            })
            .collect();
        lines.sort_by_key(|l| !l.2);
        HalfView {
            label: if is_run {
                labels.0.clone()
            } else {
                labels.1.clone()
            },
            safe,
            is_run,
            broken: broken_invariants(&pg.world)
                .into_iter()
                .map(|i| invariant_label(i, lang))
                .collect(),
            lines,
        }
    };
    Some([half(a, &fa, &fb, true), half(b, &fb, &fa, false)])
}

pub fn broken_invariants(w: &World) -> Vec<Invariant> {
    crate::check::INVARIANTS
        .into_iter()
        .filter(|n| w.checker().broken.get(n).is_some_and(|k| *k > 0))
        .collect()
}

/// One thing a half says, keyed so that the two halves' words on the same thing pair up: a
/// line is marked ≠ when the other half says something else about it, or nothing.
struct Fact {
    kind: &'static str,
    key: String,
    text: String,
}

/// What a half lists under its cluster: who leads (or that none does), each key's lock in the
/// leader's table (free where the other half holds it), what the caption names (a node's role,
/// term and table; what a client believes) and the latest storage writes, without their times
/// (the same write a few microseconds apart is the same write).
fn facts(w: &World, other: &World, focus: &super::focus::FocusSet, lang: Lang) -> Vec<Fact> {
    let mut v = Vec::new();
    let mut fact = |kind, key: String, text: String| v.push(Fact { kind, key, text });
    // Every node that believes it leads (two, where one was cut off without check-quorum).
    let leaders: Vec<String> = (0..w.node_count)
        .filter_map(|i| {
            let s = w.nodes[i]
                .server()
                .filter(|s| s.raft.role() == Role::Leader)?;
            Some(t!(
                lang,
                "n{n} leads term {term}",
                n = i + 1,
                term = s.raft.term()
            ))
        })
        .collect();
    let leaders = if leaders.is_empty() {
        t!(lang, "no leader").to_string()
    } else {
        leaders.join(", ")
    };
    fact("leader", "leader".into(), leaders);
    let table = |w: &World| {
        w.leader()
            .and_then(|l| w.nodes[l].server())
            .or_else(|| (0..w.node_count).find_map(|i| w.nodes[i].server()))
            .map(|s| s.machine.locks.clone())
            .unwrap_or_default()
    };
    let (mine, theirs) = (table(w), table(other));
    for k in mine
        .keys()
        .chain(theirs.keys().filter(|k| !mine.contains_key(*k)))
    {
        let text = match mine.get(k) {
            Some(l) => t!(
                lang,
                "{k} held by {holder} with token {token}",
                holder = l.holder.map_or("—".into(), |c| w.client_name(c)),
                token = l.token
            ),
            None => t!(lang, "{k}: free"),
        };
        fact("lock", format!("lock:{k}"), text);
    }
    for &i in focus.nodes.iter().take(2).filter(|i| **i < w.node_count) {
        let slot = &w.nodes[i];
        let text = match slot.server() {
            None => t!(lang, "n{n}: crashed", n = i + 1),
            Some(s) => {
                let locks = s
                    .machine
                    .locks
                    .iter()
                    .map(|(k, l)| {
                        format!(
                            "{k}: {}#{}",
                            l.holder.map_or("—".into(), |c| w.client_name(c)),
                            l.token
                        )
                    })
                    .collect::<Vec<_>>();
                let role = node_state_words(
                    if slot.paused {
                        "paused"
                    } else {
                        s.raft.role().name()
                    },
                    lang,
                );
                let table = if locks.is_empty() {
                    t!(lang, "no locks").to_string()
                } else {
                    locks.join(", ")
                };
                t!(
                    lang,
                    "n{n}: {role} of term {term}; {table}",
                    n = i + 1,
                    term = s.raft.term()
                )
            }
        };
        fact("node", format!("node:{i}"), text);
    }
    for name in focus.clients.iter().take(2) {
        let Some(slot) = w.clients.iter().find(|c| &c.client.cfg.name == name) else {
            continue;
        };
        let local = slot.clock.local_at(w.now_us);
        let held: Vec<String> = slot
            .client
            .held
            .iter()
            .filter(|(_, h)| h.until_local_us > local)
            .map(|(k, h)| format!("{k} #{}", h.token))
            .collect();
        let text = if held.is_empty() {
            t!(lang, "{name} believes it holds nothing")
        } else {
            t!(
                lang,
                "{name} believes it holds {keys}",
                keys = held.join(", ")
            )
        };
        fact("client", format!("client:{name}"), text);
    }
    for x in w.storage.writes.iter().rev().take(2) {
        let (client, key, token) = (w.client_name(x.client), &x.key, x.token);
        let text = if x.accepted {
            t!(lang, "{client} wrote {key} with token {token}: accepted")
        } else {
            t!(lang, "{client} wrote {key} with token {token}: rejected")
        };
        fact("write", format!("write:{client}:{key}:{token}"), text);
    }
    v
}

/// A safeguard's state in words, as each half of the stage is labelled.
pub fn safeguard_words(s: Switch, on: bool, lang: Lang) -> String {
    let name = safeguard_name(s, lang);
    if on {
        t!(lang, "{name} on")
    } else {
        t!(lang, "{name} off")
    }
}

/// The safeguard a design switch turns off, in words ("fencing", "pre-vote").
pub fn safeguard_name(s: Switch, lang: Lang) -> &'static str {
    match s {
        Switch::ExpireIgnoresToken => t!(lang, "Expire's token check"),
        Switch::FollowersDeleteOnCountdown => t!(lang, "log-only deletion"),
        Switch::TokenFromLeaderCounter => t!(lang, "log-index tokens"),
        Switch::NoGhostRelease => t!(lang, "ghost-lock release"),
        Switch::StorageIgnoresTokens => t!(lang, "fencing"),
        Switch::ReleaseWithoutHolderCheck => t!(lang, "the holder check"),
        Switch::ReleaseWithToken => t!(lang, "a plain Release"),
        Switch::NoPreVote => t!(lang, "pre-vote"),
        Switch::NoCheckQuorum => t!(lang, "check-quorum"),
        Switch::CommitByCountingOldTerms => t!(lang, "the Figure 8 rule"),
        Switch::ForgetVoteOnRestart => t!(lang, "durable votes"),
        Switch::ConfChangeBeforeNoop => t!(lang, "the no-op rule"),
        Switch::ClientNoMargin => t!(lang, "a margin for the client's drift"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Command, Page};
    use crate::scenario::builtin;

    /// Run to `t_us` (on past the moments where an invariant turns red).
    fn run_to(p: &mut Page, t_us: u64) {
        while p.playground.now_us() < t_us {
            p.apply(Command::RunTo(t_us));
            p.finish_jobs();
        }
    }

    fn lesson_page(name: &str) -> Page {
        let mut p = Page::new(Playground::new(builtin::get("gc-pause").unwrap()).unwrap());
        p.apply(Command::LoadJson(builtin::get(name).unwrap().to_json()));
        p.finish_jobs();
        p
    }

    #[test]
    fn a_break_it_lesson_opens_with_its_safe_twin_labelled_in_words() {
        let p = lesson_page("gc-pause-no-fencing");
        let [a, b] = p.twin_view().expect("a twin");
        assert_eq!(
            (a.label.as_str(), a.safe, a.is_run),
            ("fencing off", false, true)
        );
        assert_eq!(
            (b.label.as_str(), b.safe, b.is_run),
            ("fencing on", true, false)
        );
    }

    #[test]
    fn a_page_opened_on_a_break_it_lesson_has_its_twin_from_the_start() {
        // A share link or the first load makes the page with the run it opens on.
        let p = Page::new(Playground::new(builtin::get("break-token-counter").unwrap()).unwrap());
        assert!(p.twin.is_some());
    }

    #[test]
    fn a_second_leader_is_marked_on_the_half_that_has_it() {
        let mut p = lesson_page("break-no-check-quorum");
        run_to(&mut p, 2_000_000);
        let [a, b] = p.twin_view().unwrap();
        let leader = |h: &HalfView| h.lines.iter().find(|l| l.0 == "leader").cloned().unwrap();
        let (la, lb) = (leader(&a), leader(&b));
        assert!(
            la.1.contains("n2 leads term 1") && la.1.contains("n5 leads term 2") && la.2,
            "{la:?}"
        );
        assert!(!lb.1.contains("n2 leads") && lb.2, "{lb:?}");
    }

    #[test]
    fn turning_the_safeguard_back_on_in_a_break_it_lesson_leaves_one_cluster() {
        let mut p = lesson_page("break-token-counter");
        p.apply(Command::Edit(crate::model::edit::Edit::Switch(
            "token_from_leader_counter",
            false,
        )));
        assert!(p.error.is_none(), "{:?}", p.error);
        assert!(p.twin.is_none());
        assert!(!p.playground.scenario.switches.token_from_leader_counter);
    }

    #[test]
    fn a_lesson_without_twin_checks_has_no_twin() {
        // isolated-old-leader turns check-quorum off to show the old leader, but is no "Break it".
        assert!(lesson_page("isolated-old-leader").twin.is_none());
        assert!(lesson_page("gc-pause").twin.is_none());
    }

    #[test]
    fn the_twin_moves_with_the_run_forward_and_back() {
        let mut p = lesson_page("break-token-counter");
        run_to(&mut p, 3_000_000);
        assert_eq!(p.twin.as_ref().unwrap().playground.now_us(), 3_000_000);
        p.apply(Command::Seek(1_000_000));
        assert_eq!(
            p.twin.as_ref().unwrap().playground.now_us(),
            1_000_000,
            "back at once"
        );
    }

    #[test]
    fn at_the_end_of_break_token_counter_the_twin_breaks_nothing_and_differs_in_the_token() {
        let mut p = lesson_page("break-token-counter");
        run_to(&mut p, 3_200_000);
        let [a, b] = p.twin_view().unwrap();
        assert!(
            a.broken.iter().any(|x| x.contains("tokens")),
            "{:?}",
            a.broken
        );
        assert!(b.broken.is_empty(), "{:?}", b.broken);
        assert!(
            a.lines.iter().any(|(_, _, differs)| *differs),
            "{:?}",
            a.lines
        );
    }

    #[test]
    fn an_action_in_the_run_is_replayed_in_its_twin() {
        let mut p = lesson_page("gc-pause-no-fencing");
        run_to(&mut p, 1_000_000);
        p.apply(Command::Act(crate::scenario::Action::Crash { node: 1 }));
        p.finish_jobs();
        let t = p.twin.as_ref().unwrap();
        assert_eq!(
            t.playground.scenario.timeline,
            p.playground.scenario.timeline
        );
        assert!(
            t.playground.world.nodes[0].server().is_none(),
            "n1 is down in the twin too"
        );
    }

    #[test]
    fn compare_opens_a_twin_for_a_switch_and_closes_it() {
        let mut p = Page::new(Playground::new(crate::model::default_scenario()).unwrap());
        p.apply(Command::Compare(Some("storage_ignores_tokens")));
        let [a, b] = p.twin_view().unwrap();
        assert_eq!(
            (a.label.as_str(), b.label.as_str()),
            ("fencing on", "fencing off")
        );
        assert!(a.safe && !b.safe);
        p.apply(Command::Compare(None));
        assert!(p.twin_view().is_none());
    }
}
