//! Lessons: captions tied to moments or to named events, and expected-outcome checks evaluated
//! live against the run. They travel inside the scenario document (`"lesson"`), so a teacher's
//! scenario file or link carries its story.

use crate::lang::{t, Lang, Text};
use crate::lock::ApplyResult;
use crate::sim::World;
use crate::trace::Event;
use serde::{Deserialize, Serialize};

pub use super::expect::Claim;

/// Named events a caption (or a "run until") can wait for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Moment {
    LeaderElected,
    GrantCommitted,
    ReleaseCommitted,
    ExpireCommitted,
    ExpireProposed,
    GhostRelease,
    WriteAccepted,
    WriteRejected,
    Violation,
    /// A node snapshotted its lock table and compacted its log (§7).
    SnapshotTaken,
    /// A follower installed the leader's snapshot (InstallSnapshot, §7).
    SnapshotInstalled,
    /// A client is told it got its lock (its box shows it holds the key).
    ClientGranted,
    /// A client is told the key is busy.
    ClientBusy,
    /// A client's request timed out (it retries, at another node).
    ClientTimeout,
    /// A client's own count of its lease ran out: it stops using the lock.
    ClientLeaseLost,
    /// A Grant / Release / Expire has been applied by every running node (up and not paused):
    /// the moment every lock table on the screen shows it. (`grant_committed` and the others
    /// come at the first node's apply, usually the leader's.)
    GrantAppliedEverywhere,
    ReleaseAppliedEverywhere,
    ExpireAppliedEverywhere,
    /// A leader became follower (a crash is not a step-down).
    LeaderSteppedDown,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Caption {
    /// Show this caption at this time (ms of true time) ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_ms: Option<u64>,
    /// ... or when this event first happens after the previous caption's moment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<Moment>,
    pub text: Text,
    /// What the caption is about, so the page brings it into view and highlights it. Without
    /// it, the page derives the focus from the caption's event (see [`focus_of`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub focus: Vec<Focus>,
    /// The facts the caption states, checked at its moment: `raftlock run` fails naming the
    /// caption when one does not hold, and the page shows each with its verdict.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<Claim>,
    /// Asked before the caption's moment is played: the student predicts, then watches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<super::question::Question>,
    /// Facts checked on the safe twin ([`super::twin`]) at the same true time: what the
    /// safeguard this "Break it" lesson turns off prevents there.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub twin_checks: Vec<Claim>,
}

/// A part of the page a caption can name: `"n2"` (a node), `"leader"` (whoever leads at that
/// moment), `"client:A"`, `"storage"`, `"key:k"` (the key's row in the lock view), `"log:5"`
/// (a log index) or `"next"` (the leader's next index and match for each follower, §5.3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Focus {
    /// Node `n` (1-based, as the page names it).
    Node(usize),
    Leader,
    Client(String),
    Storage,
    Key(String),
    LogIndex(u64),
    NextIndex,
}

impl TryFrom<String> for Focus {
    type Error = String;
    fn try_from(s: String) -> Result<Focus, String> {
        let bad = || {
            format!("\"{s}\" is not a focus (n2, leader, client:A, storage, key:k, log:5 or next)")
        };
        Ok(match s.as_str() {
            "leader" => Focus::Leader,
            "storage" => Focus::Storage,
            "next" => Focus::NextIndex,
            _ => match s.split_once(':') {
                Some(("client", c)) if !c.is_empty() => Focus::Client(c.to_string()),
                Some(("key", k)) if !k.is_empty() => Focus::Key(k.to_string()),
                Some(("log", i)) => Focus::LogIndex(i.parse().map_err(|_| bad())?),
                None => match s.strip_prefix('n').and_then(|d| d.parse::<usize>().ok()) {
                    Some(k) if k >= 1 => Focus::Node(k),
                    _ => return Err(bad()),
                },
                _ => return Err(bad()),
            },
        })
    }
}

impl From<Focus> for String {
    fn from(f: Focus) -> String {
        match f {
            Focus::Node(k) => format!("n{k}"),
            Focus::Leader => "leader".into(),
            Focus::Client(c) => format!("client:{c}"),
            Focus::Storage => "storage".into(),
            Focus::Key(k) => format!("key:{k}"),
            Focus::LogIndex(i) => format!("log:{i}"),
            Focus::NextIndex => "next".into(),
        }
    }
}

/// The parts of the page a caption's event names: the node that acted, the client and the key
/// of the command, the storage of a write. A caption's own `focus` replaces this.
pub fn focus_of(e: &Event) -> Vec<Focus> {
    let key = |k: &str| Focus::Key(k.to_string());
    let client = |c: &str| Focus::Client(c.to_string());
    match e {
        Event::Role { node, .. }
        | Event::Crash { node }
        | Event::Restart { node }
        | Event::Pause { node }
        | Event::Resume { node }
        | Event::Snapshot { node, .. }
        | Event::SnapshotRestored { node, .. } => vec![Focus::Node(*node)],
        Event::Apply {
            node, index, cmd, ..
        } => {
            let mut v = vec![Focus::Node(*node), Focus::LogIndex(*index)];
            v.extend(cmd.key.as_deref().map(key));
            v.extend(cmd.client.as_deref().map(client));
            v
        }
        Event::ExpireProposed { node, key: k, .. } => vec![Focus::Node(*node), key(k)],
        Event::GhostRelease {
            node,
            key: k,
            client: c,
            ..
        } => vec![Focus::Node(*node), key(k), client(c)],
        Event::Client {
            client: c, key: k, ..
        } => vec![client(c), key(k)],
        Event::Write {
            client: c, key: k, ..
        } => vec![Focus::Storage, client(c), key(k)],
        Event::Fault { .. } | Event::Violation { .. } | Event::Refused { .. } => Vec::new(),
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lesson {
    #[serde(default, skip_serializing_if = "Text::is_empty")]
    pub title: Text,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub captions: Vec<Caption>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<Claim>,
    /// The expected outcomes on the safe twin ([`super::twin`]), read at the same moments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub twin_checks: Vec<Claim>,
}

impl Lesson {
    /// Whether the lesson states facts about its safe twin (on a caption or as an outcome): the
    /// page then shows the twin beside the run, and the walk reads them on it.
    pub fn checks_twin(&self) -> bool {
        !self.twin_checks.is_empty() || self.captions.iter().any(|c| !c.twin_checks.is_empty())
    }
}

impl Moment {
    /// Whether trace event `e` is this moment (for an `_everywhere` moment: the first apply of
    /// it, after which [`Watch`] waits for the other running nodes).
    pub fn matches(self, e: &Event) -> bool {
        use ApplyResult as R;
        use Event as E;
        use Moment as M;
        matches!(
            (self, e),
            (M::LeaderElected, E::Role { role: "leader", .. })
                | (
                    M::GrantCommitted | M::GrantAppliedEverywhere,
                    E::Apply {
                        result: R::Granted { .. },
                        ..
                    }
                )
                | (
                    M::ReleaseCommitted | M::ReleaseAppliedEverywhere,
                    E::Apply {
                        result: R::Released,
                        ..
                    }
                )
                | (
                    M::ExpireCommitted | M::ExpireAppliedEverywhere,
                    E::Apply {
                        result: R::Expired { .. },
                        ..
                    }
                )
                | (M::ExpireProposed, E::ExpireProposed { .. })
                | (M::GhostRelease, E::GhostRelease { .. })
                | (M::WriteAccepted, E::Write { accepted: true, .. })
                | (
                    M::WriteRejected,
                    E::Write {
                        accepted: false,
                        ..
                    }
                )
                | (M::Violation, E::Violation { .. })
                | (M::SnapshotTaken, E::Snapshot { .. })
                | (
                    M::SnapshotInstalled,
                    E::SnapshotRestored {
                        source: "leader",
                        ..
                    }
                )
                | (
                    M::ClientGranted,
                    E::Client {
                        outcome: "granted",
                        ..
                    }
                )
                | (
                    M::ClientBusy,
                    E::Client {
                        outcome: "busy",
                        ..
                    }
                )
                | (
                    M::ClientTimeout,
                    E::Client {
                        outcome: "timeout",
                        ..
                    }
                )
                | (
                    M::ClientLeaseLost,
                    E::Client {
                        outcome: "lease_lost",
                        ..
                    }
                )
        )
    }

    fn everywhere(self) -> bool {
        matches!(
            self,
            Moment::GrantAppliedEverywhere
                | Moment::ReleaseAppliedEverywhere
                | Moment::ExpireAppliedEverywhere
        )
    }

    /// The moment in words, as the lesson's "Next" names it.
    pub fn words(self, lang: Lang) -> &'static str {
        match self {
            Moment::LeaderElected => t!(lang, "a leader is elected"),
            Moment::GrantCommitted => t!(lang, "a node applies a Grant"),
            Moment::ReleaseCommitted => t!(lang, "a node applies a Release"),
            Moment::ExpireCommitted => t!(lang, "a node applies an Expire"),
            Moment::ExpireProposed => t!(lang, "the leader proposes Expire"),
            Moment::GhostRelease => t!(lang, "the leader releases a ghost lock"),
            Moment::WriteAccepted => t!(lang, "the storage accepts a write"),
            Moment::WriteRejected => t!(lang, "the storage rejects a write"),
            Moment::Violation => t!(lang, "an invariant breaks"),
            Moment::SnapshotTaken => t!(lang, "a node takes a snapshot"),
            Moment::SnapshotInstalled => t!(lang, "a follower installs a snapshot"),
            Moment::ClientGranted => t!(lang, "a client is granted its lock"),
            Moment::ClientBusy => t!(lang, "a client is told busy"),
            Moment::ClientTimeout => t!(lang, "a client times out"),
            Moment::ClientLeaseLost => t!(lang, "a client's lease runs out"),
            Moment::GrantAppliedEverywhere => t!(lang, "every running node applies the Grant"),
            Moment::ReleaseAppliedEverywhere => t!(lang, "every running node applies the Release"),
            Moment::ExpireAppliedEverywhere => t!(lang, "every running node applies the Expire"),
            Moment::LeaderSteppedDown => t!(lang, "a leader steps down"),
        }
    }
}

/// Whether every text of a scenario's lesson (its description, title, captions and questions)
/// is given in `lang`.
pub fn has_lang(sc: &super::Scenario, lang: Lang) -> bool {
    let Some(l) = &sc.lesson else {
        return sc.description.is_empty() || sc.description.has(lang);
    };
    let texts = std::iter::once(&sc.description)
        .chain([&l.title])
        .filter(|t| !t.is_empty())
        .chain(l.captions.iter().flat_map(|c| {
            std::iter::once(&c.text).chain(c.question.iter().flat_map(|q| {
                [&q.prompt, &q.explain]
                    .into_iter()
                    .filter(|t| !t.is_empty())
                    .chain(&q.choices)
            }))
        }));
    texts.into_iter().all(|t| t.has(lang))
}

/// Waits for a moment in a run: after each step, give it the step's trace lines and the world.
#[derive(Clone, Debug)]
pub struct Watch {
    moment: Moment,
    /// An `_everywhere` moment's entry (index, focus) once its first apply has been seen.
    pending: Option<(u64, Vec<Focus>)>,
    /// The nodes (1-based) leading now, for `leader_stepped_down`.
    leaders: std::collections::BTreeSet<usize>,
}

impl Watch {
    pub fn new(moment: Moment, w: &World) -> Watch {
        Watch {
            moment,
            pending: None,
            leaders: (0..w.node_count)
                .filter(|&k| w.nodes[k].server().is_some_and(|s| s.raft.is_leader()))
                .map(|k| k + 1)
                .collect(),
        }
    }

    /// Whether the moment came with this step, and what it names (for the page's focus).
    pub fn after_step<'a>(
        &mut self,
        lines: impl Iterator<Item = &'a crate::trace::Line>,
        w: &World,
    ) -> Option<Vec<Focus>> {
        for l in lines {
            match (&l.ev, self.moment) {
                (Event::Role { node, role, .. }, Moment::LeaderSteppedDown) => {
                    if *role == "leader" {
                        self.leaders.insert(*node);
                    } else if self.leaders.remove(node) {
                        return Some(vec![Focus::Node(*node)]);
                    }
                }
                (Event::Crash { node }, Moment::LeaderSteppedDown) => {
                    self.leaders.remove(node);
                }
                (Event::Apply { index, .. }, m)
                    if m.everywhere() && m.matches(&l.ev) && self.pending.is_none() =>
                {
                    let focus = focus_of(&l.ev)
                        .into_iter()
                        .filter(|f| !matches!(f, Focus::Node(_)))
                        .collect();
                    self.pending = Some((*index, focus));
                }
                (e, m) if !m.everywhere() && m.matches(e) => return Some(focus_of(e)),
                _ => {}
            }
        }
        let (index, _) = self.pending.as_ref()?;
        let everywhere = (0..w.node_count).all(|k| {
            w.nodes[k].paused
                || w.nodes[k]
                    .server()
                    .is_none_or(|s| s.machine.applied >= *index)
        });
        everywhere.then(|| self.pending.take().map(|(_, f)| f).unwrap_or_default())
    }
}

#[cfg(test)]
mod focus_tests {
    use super::*;

    #[test]
    fn a_caption_focus_round_trips_and_a_bad_one_is_refused_with_the_forms_it_takes() {
        for text in [
            "n2", "leader", "client:A", "storage", "key:k", "log:5", "next",
        ] {
            let f: Focus = serde_json::from_str(&format!("\"{text}\"")).expect(text);
            assert_eq!(serde_json::to_string(&f).unwrap(), format!("\"{text}\""));
        }
        for bad in ["n0", "node2", "client:", "log:x", "key:", ""] {
            let e = serde_json::from_str::<Focus>(&format!("\"{bad}\""))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("is not a focus (n2, leader, client:A, storage, key:k, log:5 or next)"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn every_builtin_scenario_has_every_text_in_english_and_in_russian() {
        for name in crate::scenario::builtin::names() {
            let sc = crate::scenario::builtin::get(name).expect(name);
            for lang in Lang::ALL {
                assert!(has_lang(&sc, lang), "{name} lacks {}", lang.code());
            }
        }
    }

    #[test]
    fn a_lesson_without_russian_falls_back_to_english_and_is_told_apart() {
        let mut sc = crate::scenario::builtin::get("gc-pause").unwrap();
        let caption = &mut sc.lesson.as_mut().unwrap().captions[0].text;
        let en = caption.en.clone();
        caption.ru.clear();
        assert_eq!(caption.get(Lang::Ru), en);
        assert!(!has_lang(&sc, Lang::Ru));
        assert!(has_lang(&sc, Lang::En));
    }

    #[test]
    fn a_focus_must_name_a_node_and_a_client_of_the_scenario() {
        let mut sc = crate::scenario::builtin::get("gc-pause").unwrap();
        sc.lesson.as_mut().unwrap().captions[0].focus = vec![Focus::Node(6)];
        assert!(sc
            .validate()
            .unwrap_err()
            .to_string()
            .contains("lesson.captions[0].focus[0]"));
        sc.lesson.as_mut().unwrap().captions[0].focus = vec![Focus::Client("Z".into())];
        assert!(sc
            .validate()
            .unwrap_err()
            .to_string()
            .contains("there is no client \"Z\""));
        sc.lesson.as_mut().unwrap().captions[0].focus =
            vec![Focus::Node(5), Focus::Client("A".into()), Focus::Leader];
        assert!(sc.validate().is_ok());
    }
}
