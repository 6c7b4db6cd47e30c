//! A lesson played headlessly: where each caption's moment comes in the run, and whether the
//! facts the caption states hold there. The page (Next, Back, the lesson's position), `raftlock
//! run` and the tests all read the same walk.

use super::lesson::{Focus, Watch};
use super::Scenario;
use crate::lang::Lang;
use crate::sim::World;

/// Counted events a walk may spend looking for captions (the built-in lessons need well under
/// 100,000; a document whose caption never happens stops here instead of running for hours).
pub const FIND_EVENTS_MAX: u64 = 3_000_000;

/// A caption's moment in the run: right after the `events`-th counted event, at `t_us`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    pub events: u64,
    pub t_us: u64,
    /// What the caption's event names (used when the caption gives no `focus` of its own).
    pub focus: Vec<Focus>,
    /// Each of the caption's `checks`: whether it holds at this moment.
    pub facts: Vec<bool>,
    /// Each of the caption's question's `checks` (the facts its declared answer stands on).
    pub answer_facts: Vec<bool>,
    /// Each of the caption's `twin_checks`, read on the safe twin at `t_us`.
    pub twin_facts: Vec<bool>,
    /// At the last caption: each of the lesson's `twin_checks` (its expected outcomes on the
    /// twin); empty elsewhere.
    pub twin_outcomes: Vec<bool>,
}

/// Replay the document and note where each caption's moment comes: an `at_ms` caption at that
/// time (or now, if the previous caption came later), an `on` caption right after its moment,
/// the first after the previous caption's. `at` sees the run at each caption found (its index
/// and the world), for a caller that reads more than the caption's own facts. One entry per
/// caption; `None` from the first caption whose moment never comes.
pub fn walk(sc: &Scenario, mut at: impl FnMut(usize, &World)) -> Vec<Option<Mark>> {
    let mut walker = Walker::new(sc);
    while !walker.slice(u64::MAX, &mut at) {}
    walker.into_marks()
}

/// What the walk is looking for now.
#[derive(Clone)]
enum Seeking {
    /// Caption `i` comes at this moment (µs).
    At(u64),
    /// Caption `i` comes right after this moment happens.
    On(Box<Watch>),
    /// Caption `i` names no moment: it never comes.
    Never,
}

/// A [`walk`] that can stop after any number of events and go on later: the page finds a
/// long lesson's moments in slices, between frames.
#[derive(Clone)]
pub struct Walker {
    sc: Scenario,
    w: Option<Box<World>>,
    /// The safe twin, run to each caption's moment, when the lesson checks facts on it.
    twin: Option<Box<World>>,
    /// The caption looked for, and how.
    i: usize,
    seeking: Option<Seeking>,
    marks: Vec<Option<Mark>>,
    done: bool,
}

impl Walker {
    pub fn new(sc: &Scenario) -> Walker {
        let w = World::new(sc, true).ok().map(|mut w| {
            w.trace.set_cap(64);
            Box::new(w)
        });
        let checks_twin = sc.lesson.as_ref().is_some_and(|l| l.checks_twin());
        let twin = super::twin::safe_twin(sc)
            .filter(|_| checks_twin)
            .and_then(|(twin, _)| World::new(&twin, true).ok())
            .map(|mut w| {
                w.trace.set_cap(64);
                Box::new(w)
            });
        Walker {
            done: sc.lesson.is_none() || w.is_none(),
            sc: sc.clone(),
            w,
            twin,
            i: 0,
            seeking: None,
            marks: Vec::new(),
        }
    }

    pub fn done(&self) -> bool {
        self.done
    }

    /// The marks found so far, one per caption found, in order.
    pub fn found(&self) -> &[Option<Mark>] {
        &self.marks
    }

    /// Counted events the walk has run.
    pub fn events(&self) -> u64 {
        self.w.as_ref().map_or(0, |w| w.stats.events)
    }

    /// The captions to find.
    pub fn captions(&self) -> usize {
        self.sc.lesson.as_ref().map_or(0, |l| l.captions.len())
    }

    /// One entry per caption: `None` for those not found.
    pub fn into_marks(mut self) -> Vec<Option<Mark>> {
        let n = self.captions();
        self.marks.resize(n, None);
        self.marks
    }

    /// Walk on for at most `max_events` events. Returns whether the walk is over.
    pub fn slice(&mut self, max_events: u64, at: &mut dyn FnMut(usize, &World)) -> bool {
        let (Some(lesson), Some(w)) = (&self.sc.lesson, self.w.as_mut()) else {
            self.done = true;
            return true;
        };
        let end = self.sc.until_ms.saturating_mul(1000);
        let mut budget = max_events;
        while !self.done {
            let Some(c) = lesson.captions.get(self.i) else {
                self.done = true;
                break;
            };
            let seeking = self.seeking.get_or_insert_with(|| match (c.at_ms, c.on) {
                (Some(t), _) => Seeking::At(t.saturating_mul(1000).max(w.now_us).min(end)),
                (None, Some(moment)) => Seeking::On(Box::new(Watch::new(moment, w))),
                _ => Seeking::Never,
            });
            let found = match seeking {
                Seeking::Never => None,
                Seeking::At(t) => {
                    let t = *t;
                    while w.next_event_time().is_some_and(|x| x <= t)
                        && w.stats.events < FIND_EVENTS_MAX
                    {
                        if budget == 0 {
                            return false;
                        }
                        budget -= 1;
                        w.step();
                    }
                    (w.stats.events < FIND_EVENTS_MAX).then(|| {
                        w.run_until(t);
                        Vec::new()
                    })
                }
                Seeking::On(watch) => {
                    let mut hit = None;
                    while hit.is_none()
                        && w.next_event_time().is_some_and(|x| x <= end)
                        && w.stats.events < FIND_EVENTS_MAX
                    {
                        if budget == 0 {
                            return false;
                        }
                        budget -= 1;
                        let before = w.trace.position();
                        w.step();
                        hit = watch.after_step(w.trace.lines_since(before), w);
                    }
                    hit
                }
            };
            self.seeking = None;
            let Some(focus) = found else {
                self.done = true;
                break;
            };
            at(self.i, w);
            // The twin at the same true time, as the page shows it beside the run.
            let last = self.i + 1 == lesson.captions.len();
            let (twin_facts, twin_outcomes) = match self.twin.as_mut() {
                Some(twin) => {
                    twin.run_until(w.now_us);
                    let read = |cs: &[super::lesson::Claim]| -> Vec<bool> {
                        cs.iter().map(|f| f.passed(twin)).collect()
                    };
                    let outcomes = if last {
                        read(&lesson.twin_checks)
                    } else {
                        Vec::new()
                    };
                    (read(&c.twin_checks), outcomes)
                }
                None => (Vec::new(), Vec::new()),
            };
            self.marks.push(Some(Mark {
                events: w.stats.events,
                t_us: w.now_us,
                focus,
                facts: c.checks.iter().map(|f| f.passed(w)).collect(),
                answer_facts: c
                    .question
                    .iter()
                    .flat_map(|q| q.checks.iter().map(|f| f.passed(w)))
                    .collect(),
                twin_facts,
                twin_outcomes,
            }));
            self.i += 1;
        }
        // The worlds are no longer needed.
        self.w = None;
        self.twin = None;
        true
    }
}

/// A lesson's verdict on its own run: every caption reached, every fact it states true there,
/// and at the last caption ("The end") every expected outcome met.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    /// (caption number from 1, what is wrong), in caption order.
    pub wrong: Vec<(usize, String)>,
    /// How many of `wrong` are questions whose declared answer the run contradicts.
    pub wrong_answers: usize,
}

/// Walk the lesson and list what is not true. `at` also sees each caption's world.
pub fn verdict(sc: &Scenario, mut at: impl FnMut(usize, &World)) -> Verdict {
    let Some(lesson) = &sc.lesson else {
        return Verdict::default();
    };
    let last = lesson.captions.len().checked_sub(1);
    let mut end_checks = Vec::new();
    let marks = walk(sc, |i, w| {
        if Some(i) == last {
            end_checks = lesson.checks.iter().map(|c| c.passed(w)).collect();
        }
        at(i, w)
    });
    let (mut wrong, mut wrong_answers) = (Vec::new(), 0);
    for (i, (c, m)) in lesson.captions.iter().zip(&marks).enumerate() {
        match m {
            None => {
                wrong.push((i + 1, "its moment never comes in the run".to_string()));
                break;
            }
            Some(m) => {
                for (f, ok) in c.checks.iter().zip(&m.facts) {
                    if !ok {
                        wrong.push((i + 1, format!("not true there: {}", f.describe())));
                    }
                }
                for (f, ok) in c.twin_checks.iter().zip(&m.twin_facts) {
                    if !ok {
                        wrong.push((
                            i + 1,
                            format!("not true on the safe twin there: {}", f.describe()),
                        ));
                    }
                }
                if let Some(q) = &c.question {
                    for (f, ok) in q.checks.iter().zip(&m.answer_facts) {
                        if !ok {
                            wrong_answers += 1;
                            wrong.push((
                                i + 1,
                                format!(
                                    "question {}: the declared answer ({}) is not what the run does: not true there: {}",
                                    q.name(),
                                    q.choices.get(q.answer).map_or("?", |c| c.get(Lang::En)),
                                    f.describe()
                                ),
                            ));
                        }
                    }
                }
            }
        }
    }
    if let (Some(last), true) = (last, marks.last().is_some_and(|m| m.is_some())) {
        for (c, ok) in lesson.checks.iter().zip(&end_checks) {
            if !ok {
                wrong.push((
                    last + 1,
                    format!("the lesson ends here, but not yet: {}", c.describe()),
                ));
            }
        }
        let twin_outcomes = marks
            .last()
            .and_then(|m| m.as_ref())
            .map(|m| &m.twin_outcomes);
        for (c, ok) in lesson
            .twin_checks
            .iter()
            .zip(twin_outcomes.into_iter().flatten())
        {
            if !ok {
                wrong.push((
                    last + 1,
                    format!(
                        "the lesson ends here, but not yet on the safe twin: {}",
                        c.describe()
                    ),
                ));
            }
        }
    }
    Verdict {
        wrong,
        wrong_answers,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::lesson::{Claim, Moment};

    fn gc_pause() -> Scenario {
        crate::scenario::builtin::get("gc-pause").unwrap()
    }

    /// §5.3: a `progress` fact reads the leader's nextIndex and matchIndex for one follower, and
    /// is false on a node that does not lead.
    #[test]
    fn a_progress_fact_reads_the_leaders_next_and_match_index_for_a_follower() {
        let sc = crate::scenario::builtin::get("consistency-check").unwrap();
        let mut w = crate::sim::World::new(&sc, false).unwrap();
        w.run_until(2_100_000);
        let fact = |s: &str| serde_json::from_str::<Claim>(s).unwrap().passed(&w);
        assert!(fact(
            r#"{"expect":"progress","node":4,"peer":2,"state":"probe","next":9}"#
        ));
        assert!(!fact(r#"{"expect":"progress","node":4,"peer":2,"next":5}"#));
        assert!(fact(
            r#"{"expect":"progress","node":4,"peer":1,"state":"replicate","matched":9}"#
        ));
        assert!(
            !fact(r#"{"expect":"progress","node":1,"peer":2,"state":"probe"}"#),
            "n1 does not lead"
        );
        w.run_until(2_260_000);
        let fact = |s: &str| serde_json::from_str::<Claim>(s).unwrap().passed(&w);
        assert!(fact(
            r#"{"expect":"progress","node":4,"peer":2,"state":"replicate","next":10,"matched":9}"#
        ));
    }

    #[test]
    fn a_twin_fact_is_read_on_the_safe_twin_at_the_captions_moment() {
        let mut sc = crate::scenario::builtin::get("gc-pause-no-fencing").unwrap();
        assert!(verdict(&sc, |_, _| {}).wrong.is_empty());
        // With fencing off A's late write is accepted; on the twin it is rejected.
        let lesson = sc.lesson.as_mut().unwrap();
        let last = lesson.captions.last_mut().unwrap();
        last.twin_checks = vec![Claim::WriteAccepted { client: "A".into() }];
        lesson.twin_checks.push(Claim::Violated {
            invariant: "storage_accepts_stale_token".into(),
        });
        let wrong = verdict(&sc, |_, _| {}).wrong;
        assert_eq!(wrong.len(), 2, "{wrong:?}");
        assert!(
            wrong[0].1.contains("not true on the safe twin there"),
            "{wrong:?}"
        );
        assert!(wrong[1].1.contains("not yet on the safe twin"), "{wrong:?}");
    }

    #[test]
    fn a_walk_in_slices_finds_the_marks_of_a_walk_in_one_go() {
        for name in crate::scenario::builtin::names() {
            let sc = crate::scenario::builtin::get(name).unwrap();
            let whole = walk(&sc, |_, _| {});
            let mut seen = Vec::new();
            let mut walker = Walker::new(&sc);
            let mut slices = 0;
            while !walker.slice(17, &mut |i, w| seen.push((i, w.stats.events))) {
                slices += 1;
                assert!(walker.found().len() <= whole.len());
            }
            assert!(sc.lesson.is_none() || slices > 3, "{name}: {slices} slices");
            assert_eq!(walker.into_marks(), whole, "{name}");
            let found: Vec<_> = whole
                .iter()
                .enumerate()
                .filter_map(|(i, m)| m.as_ref().map(|m| (i, m.events)))
                .collect();
            assert_eq!(seen, found, "{name}");
        }
    }

    fn fact(json: &str) -> Claim {
        serde_json::from_str(json).expect(json)
    }

    #[test]
    fn a_caption_fact_is_checked_at_its_moment_and_a_false_one_names_the_caption() {
        let mut sc = gc_pause();
        let l = sc.lesson.as_mut().unwrap();
        l.captions[2].checks = vec![
            fact(r#"{"expect":"holds","client":"A","key":"k","token":2}"#),
            fact(r#"{"expect":"lock","key":"k","client":"A","token":2}"#),
        ];
        assert!(verdict(&sc, |_, _| {}).wrong.is_empty());
        let marks = walk(&sc, |_, _| {});
        assert_eq!(marks[2].as_ref().unwrap().facts, vec![true, true]);
        // The same facts are false at the first caption, before any Grant.
        let l = sc.lesson.as_mut().unwrap();
        l.captions[0].checks = l.captions[2].checks.clone();
        let v = verdict(&sc, |_, _| {});
        assert_eq!(v.wrong.len(), 2, "{v:?}");
        assert_eq!(v.wrong[0].0, 1);
        assert!(v.wrong[0].1.contains("A believes it holds k with token 2"));
    }

    #[test]
    fn an_applied_everywhere_moment_waits_until_every_running_node_applied_the_entry() {
        let mut sc = gc_pause();
        sc.lesson.as_mut().unwrap().captions[3].checks =
            vec![fact(r#"{"expect":"no_lock","key":"k"}"#)];
        // At the first apply of the Expire (the leader's), the followers still hold the lock.
        assert_eq!(walk(&sc, |_, _| {})[3].as_ref().unwrap().facts, vec![false]);
        sc.lesson.as_mut().unwrap().captions[3].on = Some(Moment::ExpireAppliedEverywhere);
        let marks = walk(&sc, |_, _| {});
        let m = marks[3].as_ref().unwrap();
        assert_eq!(m.facts, vec![true]);
        assert!(m.focus.contains(&Focus::Key("k".into())), "{:?}", m.focus);
    }

    #[test]
    fn a_client_granted_moment_comes_when_the_client_is_told_not_when_the_leader_applies() {
        let mut sc = gc_pause();
        let holds = fact(r#"{"expect":"holds","client":"A","key":"k","token":2}"#);
        sc.lesson.as_mut().unwrap().captions[1].checks = vec![holds];
        sc.lesson.as_mut().unwrap().captions[1].on = Some(Moment::GrantCommitted);
        assert_eq!(walk(&sc, |_, _| {})[1].as_ref().unwrap().facts, vec![false]);
        sc.lesson.as_mut().unwrap().captions[1].on = Some(Moment::ClientGranted);
        assert_eq!(walk(&sc, |_, _| {})[1].as_ref().unwrap().facts, vec![true]);
    }

    #[test]
    fn leader_stepped_down_comes_when_a_leader_becomes_follower() {
        let mut sc = crate::scenario::builtin::get("isolated-old-leader").unwrap();
        sc.until_ms = 8000;
        let l = sc.lesson.as_mut().unwrap();
        l.captions.truncate(1);
        l.captions[0].at_ms = None;
        l.captions[0].on = Some(Moment::LeaderSteppedDown);
        let mut role = None;
        let marks = walk(&sc, |_, w| {
            role = Some(
                (0..w.node_count)
                    .map(|k| w.nodes[k].server().map(|s| s.raft.role()))
                    .collect::<Vec<_>>(),
            )
        });
        let Some(Focus::Node(n)) = marks[0].as_ref().unwrap().focus.first().cloned() else {
            panic!("{marks:?}")
        };
        assert_eq!(role.unwrap()[n - 1], Some(crate::raft::Role::Follower));
    }

    #[test]
    fn a_lesson_that_ends_before_its_outcome_is_named_at_its_last_caption() {
        let mut sc = gc_pause();
        sc.lesson.as_mut().unwrap().captions.truncate(3);
        let v = verdict(&sc, |_, _| {});
        assert!(v.wrong.iter().all(|(i, _)| *i == 3), "{v:?}");
        assert!(v
            .wrong
            .iter()
            .any(|(_, s)| s.contains("not yet: B is granted k")));
    }

    #[test]
    fn a_caption_fact_naming_what_the_scenario_lacks_is_refused_naming_its_field() {
        for (json, field) in [
            (
                r#"{"expect":"node","node":9,"role":"leader"}"#,
                "checks[0].node",
            ),
            (
                r#"{"expect":"node","node":2,"role":"boss"}"#,
                "checks[0].role",
            ),
            (r#"{"expect":"node","node":2}"#, "checks[0].node"),
            (
                r#"{"expect":"holds","client":"Z","key":"k"}"#,
                "checks[0].client",
            ),
            (
                r#"{"expect":"log_entry","node":2,"index":3,"op":"put"}"#,
                "checks[0].op",
            ),
            (
                r#"{"expect":"progress","node":2,"peer":3,"state":"waiting"}"#,
                "checks[0].state",
            ),
            (
                r#"{"expect":"progress","node":2,"peer":2,"next":4}"#,
                "checks[0].peer",
            ),
            (
                r#"{"expect":"progress","node":2,"peer":3}"#,
                "checks[0].node",
            ),
        ] {
            let mut sc = gc_pause();
            sc.lesson.as_mut().unwrap().captions[1].checks = vec![fact(json)];
            let e = sc.validate().unwrap_err();
            assert_eq!(e.field, format!("lesson.captions[1].{field}"), "{json}");
        }
        let e = serde_json::from_str::<Claim>(r#"{"expect":"no_leader","node":2}"#).unwrap_err();
        assert!(e.to_string().contains("unknown field `node`"), "{e}");
    }
}
