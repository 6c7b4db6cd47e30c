//! The page's long work, done in slices between frames: the run's job (a far link, a seek, a
//! lesson's Next, Run to), the safe twin catching up, a lesson's walk finding its moments, a
//! trace file's reading; and the history check's reports from the worker.

use super::effect::Effect;
use super::history::HistoryReport;
use super::job::{
    fmt_wall, Job, JobCommand, JobKind, Progress, SliceLog, FRAME_BUDGET_MS, REDRAW_EVERY_MS,
    SLICE_EVENTS,
};
use super::page::Page;
use super::text::{fmt_count, fmt_span};
use crate::lang::t;
use crate::playground::Slice;
use std::rc::Rc;

impl Page {
    /// Start `job` as the run's job (replacing one in progress) and do its first slice now: a
    /// short one finishes before the page draws again, as if it had run in one go.
    pub(super) fn start_job(&mut self, job: Job) {
        self.playing = false;
        self.jobs.start(job);
        self.work_jobs(FRAME_BUDGET_MS);
    }

    /// Whether a job still has work to do (the UI keeps its frame loop running).
    pub fn busy(&self) -> bool {
        self.jobs.run.as_ref().is_some_and(|j| !j.waiting())
            || self.lesson.walking.is_some()
            || self.twin_lags()
            || self.traces.reading.is_some()
    }

    /// Run the run's jobs to their end now (the `window.raftlock` handle's synchronous calls,
    /// and the native tests); a history check goes on in the worker, a trace file's reading in
    /// the frames.
    pub fn finish_jobs(&mut self) {
        let reading = self.traces.reading.take();
        while self.busy() {
            self.work_jobs(f64::INFINITY);
        }
        self.traces.reading = reading;
    }

    /// Work on the jobs for about `budget_ms` of wall time. Returns whether work is left.
    pub fn work_jobs(&mut self, budget_ms: f64) -> bool {
        let clock = Rc::clone(&self.clock);
        let t0 = clock();
        let settled = self.settled;
        let mut worked = false;
        if self.jobs.run.as_ref().is_some_and(|j| !j.waiting()) {
            worked = true;
            self.work_run(&*clock, t0, budget_ms);
        }
        if self.twin_lags() {
            worked = true;
            let t = self.playground.now_us();
            if let Some(twin) = &mut self.twin {
                twin.catch_up(t, &|| clock() - t0 >= budget_ms);
            }
        }
        if self.traces.reading.is_some() {
            worked = true;
            self.work_reading(&*clock, t0, budget_ms);
        }
        if self.lesson.walking.is_some() {
            worked = true;
            while !self.lesson.walk(SLICE_EVENTS as u64) {
                if clock() - t0 >= budget_ms {
                    break;
                }
            }
            if self.lesson.walking.is_none() {
                self.settled += 1;
            }
        }
        if worked {
            if budget_ms.is_finite() {
                self.jobs.slices.add(clock() - t0, budget_ms);
            }
            self.jobs.tick += 1;
            // The panels follow a long replay a few times a second, and at once when it ends.
            let now = clock();
            if self.settled != settled || now - self.jobs.redrawn_at >= REDRAW_EVERY_MS {
                self.jobs.redrawn_at = now;
                self.version += 1;
            }
        }
        self.busy()
    }

    pub(super) fn work_run(&mut self, clock: &dyn Fn() -> f64, t0: f64, budget_ms: f64) {
        let Some(job) = self.jobs.run.as_mut() else {
            return;
        };
        match job.work_for(&mut self.playground, clock, t0, budget_ms) {
            None => {
                if job.announced.is_some() {
                    self.settled += 1;
                }
            }
            Some(end) => {
                self.jobs.run = None;
                self.settled += 1;
                if end == Slice::Violated {
                    self.note_violation();
                }
            }
        }
    }

    pub(super) fn job_command(&mut self, c: JobCommand) {
        match c {
            JobCommand::Cancel => self.jobs.cancel(),
            // (`apply` tells the worker to stop.)
            JobCommand::CancelCheck => self.history.running = None,
            JobCommand::CancelRead => self.drop_reading(),
            JobCommand::Go => {
                self.jobs.go();
                self.work_jobs(FRAME_BUDGET_MS);
            }
            JobCommand::AtStart => {
                if self.jobs.drop_link() {
                    self.playground.seek(0);
                }
            }
        }
    }

    /// The progress of the run's job, of the history check and of a lesson's walk, for the
    /// progress bars.
    pub fn progress(&self) -> Vec<Progress> {
        let now = self.playground.now_us();
        let walk = self.lesson.walking.as_ref().map(|w| {
            let (found, of) = (w.found().len(), w.captions().max(1));
            Progress {
                kind: JobKind::Lesson,
                fraction: found as f64 / of as f64,
                reached: t!(
                    self.lang,
                    "{found} of {of} captions ({} events replayed)",
                    fmt_count(w.events())
                ),
                events: w.events(),
                events_per_s: 0.0,
                virtual_per_s: 0.0,
                left_ms: None,
                announced: None,
                stopped: false,
            }
        });
        let check = self.history.running.as_ref().map(|c| c.progress(self.lang));
        let reading = self.traces.reading.as_ref().map(|r| r.progress(self.lang));
        self.jobs
            .run
            .iter()
            .map(|j| j.progress(now, self.lang))
            .chain(check)
            .chain(reading)
            .chain(walk)
            .collect()
    }

    /// What `window.raftlock.job()` returns: {jobs: [{kind, fraction, reached, line, events,
    /// eventsPerS, virtualPerS, leftMs, announced, stopped}] (empty when none), announcement,
    /// busy, snapshots: the moments the scrubber's snapshots hold (a seek replays from the
    /// latest before its moment)}.
    pub fn job_report(&self) -> serde_json::Value {
        let jobs: Vec<_> = self
            .progress()
            .into_iter()
            .map(|g| {
                serde_json::json!({
                    "kind": format!("{:?}", g.kind), "fraction": g.fraction, "reached": g.reached,
                    "line": g.line(self.lang), "eventsPerS": g.events_per_s, "virtualPerS": g.virtual_per_s,
                    "leftMs": g.left_ms, "announced": g.announced, "stopped": g.stopped, "events": g.events,
                })
            })
            .collect();
        serde_json::json!({ "jobs": jobs, "announcement": self.announcement(), "busy": self.busy(),
            "snapshots": self.playground.snapshot_times() })
    }

    /// The slices of long work since the last call, as the page's clock measured them (and a
    /// new count from here): a test asks that the work was split and each slice kept near its
    /// budget, which a busy machine does not change the way it stretches the gaps between frames.
    pub fn take_slices(&mut self) -> SliceLog {
        std::mem::take(&mut self.jobs.slices)
    }

    /// What the announcement says: "This link replays 24 h of a 7-node cluster with 16
    /// clients: about 3 min here."
    pub fn announcement(&self) -> Option<String> {
        let j = self.jobs.run.as_ref()?;
        let left = j.announced?;
        let sc = &self.playground.scenario;
        let (lang, span, nodes, wall) = (
            self.lang,
            fmt_span(j.to, self.lang),
            sc.nodes,
            fmt_wall(left, self.lang),
        );
        Some(match sc.clients.len() {
            1 => t!(
                lang,
                "This link replays {span} of a {nodes}-node cluster with 1 client: {wall} here."
            ),
            n => t!(
                lang,
                "This link replays {span} of a {nodes}-node cluster with {n} clients: {wall} here."
            ),
        })
    }

    /// Read the trace file on in slices; once read, it is shown, or refused (the worker's check
    /// then stops too).
    pub(super) fn work_reading(&mut self, clock: &dyn Fn() -> f64, t0: f64, budget_ms: f64) {
        let Some(read) = self.traces.read_on(clock, t0, budget_ms, self.lang) else {
            return;
        };
        self.settled += 1;
        match read {
            Ok(()) => self.playing = false,
            Err(e) => {
                self.pending.push(Effect::StopTraceCheck);
                self.error = Some(e);
            }
        }
    }

    /// Ask the worker for the clients' history at this moment.
    pub(super) fn start_check(&mut self) -> Effect {
        self.history.start(&self.playground)
    }

    /// The worker's report for check `id`.
    pub(super) fn history_report(&mut self, id: u32, report: HistoryReport) {
        match self.history.report(id, report, (self.clock)(), self.lang) {
            Ok(true) => self.jobs.tick += 1,
            Ok(false) => {}
            Err(e) => self.error = Some(e),
        }
    }
}
