//! The clients' history check (`check::history`), run in the page's worker: the worker replays
//! the run's document to the event the check is asked at, telling how far it got, and answers
//! with the verdict. The page keeps its frame rate meanwhile and does not carry the checker. An
//! answer for a check since stopped or replaced is ignored.

use super::effect::Effect;
use super::job::{JobKind, Progress};
use super::text::fmt_count;
use crate::check::history::{verdict_from_json, Verdict};
use crate::lang::{t, Lang};
use crate::playground::Playground;
use std::rc::Rc;

/// A check in the worker.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryCheck {
    /// Its number: the worker's reports name it.
    pub id: u32,
    /// The moment of the run it is asked at (virtual µs), and the count of events it covers.
    pub at_us: u64,
    pub target: u64,
    /// Events the worker has replayed so far.
    pub events: u64,
    /// The page's clock (ms) and the events at the worker's first report, and the clock at its
    /// last: the rate counts from the first, once the worker has loaded its module.
    first: Option<(f64, u64)>,
    reported_ms: f64,
}

/// What the worker says of a check.
#[derive(Clone, Debug, PartialEq)]
pub enum HistoryReport {
    /// Events replayed so far.
    Progress(u64),
    /// The verdict as JSON (`check::history::verdict_to_json`), or why the worker gave none.
    Done(Result<String, String>),
}

impl HistoryCheck {
    /// "Checking the clients' history: 120,000 of 2,000,000 events · 900,000 events/s · about
    /// 3 s left".
    pub fn progress(&self, lang: Lang) -> Progress {
        let done = self.events.min(self.target) as f64;
        let span = self.target.max(1) as f64;
        let (from_ms, from) = self.first.unwrap_or((self.reported_ms, self.events));
        let wall_ms = self.reported_ms - from_ms;
        let per_s = if wall_ms > 0.0 {
            (done - from as f64).max(0.0) * 1000.0 / wall_ms
        } else {
            0.0
        };
        Progress {
            kind: JobKind::History,
            fraction: (done / span).clamp(0.0, 1.0),
            reached: t!(
                lang,
                "{} of {} events",
                fmt_count(done as u64),
                fmt_count(self.target)
            ),
            events: self.events,
            events_per_s: per_s,
            virtual_per_s: 0.0,
            left_ms: (wall_ms >= 50.0 && per_s > 0.0).then(|| (span - done) * 1000.0 / per_s),
            announced: None,
            stopped: false,
        }
    }
}

/// The clients' history checks: the last verdict, and the check in progress in the worker
/// (play goes on meanwhile).
#[derive(Clone, Debug, Default)]
pub struct Checks {
    /// The last check's answer: (moment checked, verdict; None: clocks drifted, not checked).
    pub last: Option<(u64, Option<Rc<Verdict>>)>,
    pub running: Option<HistoryCheck>,
    /// The checks asked for so far: the number of the latest.
    pub asked: u32,
}

impl Checks {
    /// Ask the worker for the clients' history at this moment of `run`: it replays the run's
    /// document (the scenario plus what was done during play) to this very event.
    pub fn start(&mut self, run: &Playground) -> Effect {
        self.last = None;
        self.asked += 1;
        let check = HistoryCheck {
            id: self.asked,
            at_us: run.now_us(),
            target: run.world.stats.events,
            events: 0,
            first: None,
            reported_ms: 0.0,
        };
        let effect = Effect::CheckHistory {
            id: check.id,
            doc: run.scenario.to_json(),
            target: check.target,
            hash: run.world.trace.hash_hex(),
        };
        self.running = Some(check);
        effect
    }

    /// The worker's report for check `id`, at `now_ms` on the page's clock. Returns whether
    /// the check moved on (its bar redraws), or why it could not answer.
    pub fn report(
        &mut self,
        id: u32,
        report: HistoryReport,
        now_ms: f64,
        lang: Lang,
    ) -> Result<bool, String> {
        let Some(check) = self.running.as_mut().filter(|c| c.id == id) else {
            return Ok(false);
        };
        match report {
            HistoryReport::Progress(events) => {
                check.events = events;
                check.reported_ms = now_ms;
                check.first.get_or_insert((now_ms, events));
                Ok(true)
            }
            HistoryReport::Done(answer) => {
                let at = check.at_us;
                self.running = None;
                match answer.and_then(|json| verdict_from_json(&json)) {
                    Ok(verdict) => {
                        self.last = Some((at, verdict.map(Rc::new)));
                        Ok(false)
                    }
                    Err(e) => Err(t!(lang, "The clients' history could not be checked: {e}")),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::job::JobCommand;
    use crate::model::{Command, Page};
    use crate::playground::HistoryReplay;
    use crate::scenario::Scenario;

    /// What the worker does (src/worker.rs): replay the document to its event, then the verdict
    /// (or why the replay is not the run).
    fn worker(fx: &[Effect]) -> Result<String, String> {
        let [Effect::CheckHistory {
            doc, target, hash, ..
        }] = fx
        else {
            panic!("{fx:?}")
        };
        let sc = Scenario::from_json(doc).unwrap();
        let mut r = HistoryReplay::of_document(&sc, *target).unwrap();
        while !r.slice(10_000) {}
        r.verdict_json(hash)
    }

    fn ran(ms: u64) -> Page {
        let sc = crate::bench::history_scenario(ms);
        let mut p = Page::new(crate::playground::Playground::new(sc).unwrap());
        p.apply(Command::RunTo(ms * 1000));
        p.finish_jobs();
        p
    }

    #[test]
    fn the_history_check_is_the_workers_replay_of_the_document_and_gives_the_verdict_of_the_run() {
        let mut p = ran(120_000);
        assert!(
            p.playground.world.history.from() > 0,
            "the page let early operations go"
        );
        let whole = p.playground.history_verdict();
        assert!(whole.as_ref().is_some_and(|v| v.is_ok()));
        let fx = p.apply(Command::CheckHistory);
        let [Effect::CheckHistory { id, target, .. }] = fx[..] else {
            panic!("{fx:?}")
        };
        assert_eq!(target, p.playground.world.stats.events);
        assert!(p.history.running.is_some() && p.history.last.is_none());
        // The page's frames do not carry it: it is the worker's.
        assert!(!p.busy());
        let (version, tick) = (p.version, p.jobs.tick);
        p.apply(Command::HistoryReport(
            id,
            HistoryReport::Progress(target / 2),
        ));
        // Its bar draws again, and nothing else.
        assert_eq!((p.version, p.jobs.tick), (version, tick + 1));
        let g = &p.progress()[0];
        assert_eq!(g.kind, JobKind::History);
        assert!((g.fraction - 0.5).abs() < 0.01, "{}", g.fraction);
        let json = worker(&fx);
        p.apply(Command::HistoryReport(id, HistoryReport::Done(json)));
        let (at, verdict) = p.history.last.clone().unwrap();
        assert_eq!(at, 120_000_000);
        assert_eq!(verdict.as_deref(), whole.as_ref());
        assert!(p.history.running.is_none() && p.progress().is_empty());
    }

    #[test]
    fn the_workers_replay_is_the_run_after_actions_and_a_take_over_or_it_gives_no_verdict() {
        let mut p = ran(8_000);
        p.apply(Command::Act(crate::scenario::Action::Crash { node: 2 }));
        p.apply(Command::RunTo(9_000_000));
        p.apply(Command::Seek(4_000_000));
        p.apply(Command::TakeOver);
        p.apply(Command::Act(crate::scenario::Action::Isolate { node: 1 }));
        p.apply(Command::RunTo(6_000_000));
        assert_eq!(
            (p.error.as_deref(), p.playground.scenario.timeline.len()),
            (None, 1)
        );
        let fx = p.apply(Command::CheckHistory);
        let whole = p.playground.history_verdict();
        let json = worker(&fx).unwrap();
        assert_eq!(verdict_from_json(&json).unwrap(), whole);
        // A replay that is not the run (here: its hash told wrong) gives no verdict.
        let mut wrong = fx.clone();
        if let [Effect::CheckHistory { hash, .. }] = &mut wrong[..] {
            *hash = "0000000000000000".into();
        }
        let e = worker(&wrong).unwrap_err();
        assert!(e.contains("not the run's 0000000000000000"), "{e}");
    }

    #[test]
    fn the_history_checks_rate_counts_from_the_workers_first_report() {
        // (The worker loads its module before it replays: that wait is not its rate.)
        let now = Rc::new(std::cell::Cell::new(0.0));
        let clock = Rc::clone(&now);
        let pg = crate::playground::Playground::new(crate::bench::history_scenario(5_000));
        let mut p = Page::with_clock(pg.unwrap(), Rc::new(move || clock.get()));
        p.apply(Command::RunTo(5_000_000));
        p.finish_jobs();
        let fx = p.apply(Command::CheckHistory);
        let [Effect::CheckHistory { id, target, .. }] = fx[..] else {
            panic!("{fx:?}")
        };
        now.set(900.0);
        p.apply(Command::HistoryReport(id, HistoryReport::Progress(10)));
        let g = &p.progress()[0];
        assert_eq!((g.events_per_s, g.left_ms), (0.0, None));
        now.set(1000.0);
        p.apply(Command::HistoryReport(id, HistoryReport::Progress(1_010)));
        let g = &p.progress()[0];
        assert_eq!(g.events_per_s, 10_000.0);
        let left = g.left_ms.unwrap();
        assert!(
            (left - (target - 1_010) as f64 / 10.0).abs() < 1e-6,
            "{left}"
        );
        assert!(
            g.line(Lang::En).contains(" · 10,000 events/s · "),
            "{}",
            g.line(Lang::En)
        );
    }

    #[test]
    fn a_history_answer_for_a_check_since_stopped_or_replaced_is_ignored() {
        let mut p = ran(5_000);
        let fx = p.apply(Command::CheckHistory);
        let [Effect::CheckHistory { id: first, .. }] = &fx[..] else {
            panic!("{fx:?}")
        };
        let json = worker(&fx).unwrap();
        // Cancel stops it, and tells the worker.
        let fx = p.apply(Command::Job(JobCommand::CancelCheck));
        assert_eq!(fx, vec![Effect::StopHistoryCheck]);
        p.apply(Command::HistoryReport(
            *first,
            HistoryReport::Done(Ok(json.clone())),
        ));
        assert!(p.history.last.is_none() && p.history.running.is_none());
        // A second check, answered by the first one's number: still checking.
        let fx = p.apply(Command::CheckHistory);
        let [Effect::CheckHistory { id: second, .. }] = &fx[..] else {
            panic!("{fx:?}")
        };
        assert_ne!(first, second);
        p.apply(Command::HistoryReport(
            *first,
            HistoryReport::Done(Ok(json.clone())),
        ));
        assert!(p.history.last.is_none() && p.history.running.is_some());
        // A changed document stops it too.
        let fx = p.apply(Command::LoadJson(
            crate::bench::history_scenario(1_000).to_json(),
        ));
        assert!(fx.contains(&Effect::StopHistoryCheck), "{fx:?}");
        p.apply(Command::HistoryReport(
            *second,
            HistoryReport::Done(Ok(json)),
        ));
        assert!(p.history.last.is_none() && p.history.running.is_none());
    }

    #[test]
    fn a_history_check_the_worker_could_not_make_says_why_and_leaves_the_run() {
        let mut p = ran(5_000);
        let now = p.playground.now_us();
        for answer in [
            Err("the worker could not start".to_string()),
            Ok("{".into()),
        ] {
            let fx = p.apply(Command::CheckHistory);
            let [Effect::CheckHistory { id, .. }] = &fx[..] else {
                panic!("{fx:?}")
            };
            p.apply(Command::HistoryReport(*id, HistoryReport::Done(answer)));
            assert!(p.history.running.is_none() && p.history.last.is_none());
            let e = p.error.take().unwrap();
            assert!(
                e.starts_with("The clients' history could not be checked: "),
                "{e}"
            );
            assert_eq!(p.playground.now_us(), now);
        }
    }
}
