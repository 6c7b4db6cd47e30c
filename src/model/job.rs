//! Long work in slices: opening a link far into its run, a seek, a lesson's Next, Run to and
//! reading a trace file (the clients' history check runs in the page's worker:
//! `history.rs`). The page never runs
//! far ahead in one go: a job advances a few milliseconds per frame (the page's
//! [`Page::clock`](crate::model::Page::clock) measures them), shows its progress (how far, how fast, how long still) and
//! can be cancelled where it stands. A link whose replay
//! would take long is announced first, with the choice to open it at the start instead.

use super::text::{fmt_count, fmt_span};
use crate::lang::{t, Lang};
use crate::playground::{Goal, Slice};

/// Events between two looks at the clock (a fraction of a millisecond in the browser).
pub const SLICE_EVENTS: u32 = 256;
/// A frame's share of work while a job runs: the rest of the frame draws and answers input.
pub const FRAME_BUDGET_MS: f64 = 8.0;

/// The slices of long work the page did between two reads (the page's `take_slices`): how
/// many, the longest as the page's clock measured it, and the budget each was given. A slice
/// checks the clock after each batch of [`SLICE_EVENTS`] events, so it ends within one batch of
/// its budget.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SliceLog {
    pub count: u64,
    pub longest_ms: f64,
    pub budget_ms: f64,
}

impl SliceLog {
    pub(super) fn add(&mut self, took_ms: f64, budget_ms: f64) {
        self.count += 1;
        self.longest_ms = self.longest_ms.max(took_ms);
        self.budget_ms = self.budget_ms.max(budget_ms);
    }
}
/// Trace lines read between two looks at the clock.
pub const READ_LINES: usize = 512;
/// A link's replay is timed from `WARM_MS` of work (the browser compiles the wasm's hot code
/// better after its first frames) to `CALIBRATE_MS`, then projected.
pub const WARM_MS: f64 = 80.0;
pub const CALIBRATE_MS: f64 = 240.0;
/// While a job runs, the panels redraw at most this often (the progress bar every frame): a
/// frame stays a few ms of work plus a small patch.
pub const REDRAW_EVERY_MS: f64 = 250.0;
/// A link whose replay is projected longer than this is announced before it goes on.
pub const ANNOUNCE_OVER_MS: f64 = 5_000.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobKind {
    /// Opening a link at its moment.
    Link,
    Seek,
    RunTo,
    /// A lesson's Next or Back.
    LessonNext,
    /// Replaying the run to check the clients' history.
    History,
    /// Replaying a lesson to find its captions' moments.
    Lesson,
    /// Reading a trace file (*Open a trace*).
    TraceRead,
}

impl JobKind {
    pub fn label(self, lang: Lang) -> &'static str {
        match self {
            JobKind::Link => t!(lang, "Opening the link"),
            JobKind::Seek => t!(lang, "Going to the moment"),
            JobKind::RunTo => t!(lang, "Running"),
            JobKind::LessonNext => t!(lang, "Going to the caption"),
            JobKind::History => t!(lang, "Checking the clients' history"),
            JobKind::Lesson => t!(lang, "Finding the lesson's moments"),
            JobKind::TraceRead => t!(lang, "Reading the trace"),
        }
    }
}

impl JobKind {
    /// What stops a job of this kind: none for a lesson's walk (Next and Back need what it
    /// finds).
    pub fn cancel(self) -> Option<JobCommand> {
        match self {
            JobKind::History => Some(JobCommand::CancelCheck),
            JobKind::TraceRead => Some(JobCommand::CancelRead),
            JobKind::Lesson => None,
            _ => Some(JobCommand::Cancel),
        }
    }
}

/// What the user says to a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobCommand {
    /// Stop the run's job where it stands (the page works from that moment).
    Cancel,
    /// Stop the history check (no verdict).
    CancelCheck,
    /// Stop reading a trace file (the page stays as it was).
    CancelRead,
    /// Go ahead with an announced replay, or go on with a cancelled one.
    Go,
    /// Open the announced link at its start instead.
    AtStart,
}

impl JobCommand {
    /// The command by the name `window.raftlock.jobCommand` takes.
    pub fn from_name(name: &str) -> Option<JobCommand> {
        Some(match name {
            "cancel" => JobCommand::Cancel,
            "go" => JobCommand::Go,
            "atStart" => JobCommand::AtStart,
            "cancelCheck" => JobCommand::CancelCheck,
            "cancelRead" => JobCommand::CancelRead,
            _ => return None,
        })
    }
}

pub struct Job {
    pub kind: JobKind,
    /// The page's run goes toward this.
    goal: Goal,
    /// Where the job started and where it goes (virtual µs).
    pub from: u64,
    pub to: u64,
    /// Wall time spent so far (ms) and events processed.
    pub wall_ms: f64,
    pub events: u64,
    /// Waiting for the user's go-ahead, with the projected replay time (ms).
    pub announced: Option<f64>,
    /// Cancelled: the job waits for Go (a run job only).
    pub stopped: bool,
    /// Announced once: a job the user let go on is not announced again.
    confirmed: bool,
    /// Where the replay stood after `WARM_MS` of work: (wall ms, virtual µs).
    warm: Option<(f64, u64)>,
}

/// The progress bar's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    pub kind: JobKind,
    /// 0 to 1.
    pub fraction: f64,
    /// "3 min 10 s of 24 h" (a run) or "120,000 of 2,000,000 events" (the history check).
    pub reached: String,
    /// Events processed so far.
    pub events: u64,
    pub events_per_s: f64,
    /// Virtual seconds per wall second (a run).
    pub virtual_per_s: f64,
    /// Projected wall time left (ms), once it can be measured.
    pub left_ms: Option<f64>,
    pub announced: Option<f64>,
    pub stopped: bool,
}

impl Job {
    pub fn run(kind: JobKind, goal: Goal, from_us: u64) -> Job {
        Job {
            kind,
            goal,
            from: from_us,
            to: goal.t_us.max(from_us),
            wall_ms: 0.0,
            events: 0,
            announced: None,
            stopped: false,
            // Only a link is announced: the other jobs are asked for by a click on this page.
            confirmed: kind != JobKind::Link,
            warm: None,
        }
    }

    pub fn waiting(&self) -> bool {
        self.stopped || self.announced.is_some()
    }

    /// Slices of the job's work on the page's run until `budget_ms` since
    /// `t0` is spent, counting events and wall time. Returns how the job ended, if it did. A
    /// link not yet confirmed is timed and, when projected long, announced (it then waits).
    pub(super) fn work_for(
        &mut self,
        pg: &mut crate::playground::Playground,
        clock: &dyn Fn() -> f64,
        t0: f64,
        budget_ms: f64,
    ) -> Option<Slice> {
        let mut start = clock();
        loop {
            let before = pg.world.stats.events;
            let slice = pg.work_toward(self.goal, SLICE_EVENTS);
            let events = pg.world.stats.events - before;
            self.events += events;
            let now = clock();
            self.wall_ms += now - start;
            start = now;
            if slice != Slice::More {
                return Some(slice);
            }
            if !self.confirmed {
                self.calibrate(pg.now_us());
                if self.announced.is_some() {
                    return None;
                }
            }
            if now - t0 >= budget_ms {
                return None;
            }
        }
    }

    /// Time a link's replay from `WARM_MS` to `CALIBRATE_MS` of work, then announce it if the
    /// rest is projected over `ANNOUNCE_OVER_MS`.
    fn calibrate(&mut self, now_us: u64) {
        if self.warm.is_none() && self.wall_ms >= WARM_MS {
            self.warm = Some((self.wall_ms, now_us));
        }
        if self.wall_ms >= CALIBRATE_MS {
            self.confirmed = true;
            let (w0, t0) = self.warm.unwrap_or((0.0, self.from));
            let rate = now_us.saturating_sub(t0) as f64 / (self.wall_ms - w0).max(1.0);
            let left = self.to.saturating_sub(now_us) as f64 / rate.max(1e-9);
            if left > ANNOUNCE_OVER_MS {
                self.announced = Some(left);
            }
        }
    }

    pub fn progress(&self, page_now_us: u64, lang: Lang) -> Progress {
        let reached = page_now_us.clamp(self.from, self.to);
        let done = (reached - self.from) as f64;
        let span = (self.to - self.from).max(1) as f64;
        let secs = self.wall_ms / 1000.0;
        let rate = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
        let left_ms =
            (self.wall_ms >= 50.0 && done > 0.0).then(|| (span - done) * self.wall_ms / done);
        Progress {
            kind: self.kind,
            fraction: (done / span).clamp(0.0, 1.0),
            reached: t!(
                lang,
                "{} of {}",
                fmt_span(reached, lang),
                fmt_span(self.to, lang)
            ),
            events: self.events,
            events_per_s: rate(self.events as f64),
            virtual_per_s: rate(done / 1e6),
            left_ms,
            announced: self.announced,
            stopped: self.stopped,
        }
    }
}

/// How long a wall time reads: "about 40 s", "about 3 min", "about 2 h 10 min" (rounded to
/// what matters at that length).
pub fn fmt_wall(ms: f64, lang: Lang) -> String {
    // (At most 100 days: a projection from a rate near zero reads as that.)
    let s = if ms.is_nan() {
        1
    } else {
        (ms / 1000.0).clamp(1.0, 8_640_000.0) as u64
    };
    let s = match s {
        0..=89 => s,
        90..=5399 => (s + 30) / 60 * 60,
        _ => (s + 300) / 600 * 600,
    };
    t!(lang, "about {}", fmt_span(s * 1_000_000, lang))
}

impl Progress {
    /// "Opening the link: 3 min 10 s of 24 h · 412,000 events/s · ×95 · about 14 min left".
    pub fn line(&self, lang: Lang) -> String {
        let mut out = format!("{}: {}", self.kind.label(lang), self.reached);
        if self.events_per_s > 0.0 {
            out += &t!(lang, " · {} events/s", fmt_count(self.events_per_s as u64));
        }
        if self.virtual_per_s >= 1.0 {
            out += &format!(" · ×{}", self.virtual_per_s as u64);
        }
        if let Some(left) = self.left_ms {
            out += &t!(lang, " · {} left", fmt_wall(left, lang));
        }
        out
    }
}

/// The run's long work: the job in progress, and what the page keeps of its jobs.
pub struct Jobs {
    /// The run's job (a far link, a seek, Next, Run to).
    pub run: Option<Job>,
    /// Bumped by every frame of a job (the progress bar follows it; the panels follow the
    /// page's `version`, bumped a few times a second during a job).
    pub tick: u64,
    /// When the panels were last asked to redraw during a job (the page's clock, ms).
    pub redrawn_at: f64,
    /// The slices of long work since a test last asked (the page's `take_slices`).
    pub slices: SliceLog,
    /// Counts the jobs started (a command that starts one keeps it).
    pub serial: u64,
}

impl Jobs {
    /// `job` becomes the run's job, replacing one in progress.
    pub fn start(&mut self, job: Job) {
        self.serial += 1;
        self.run = Some(job);
    }

    /// Cancel: the job stops where it stands (an announced one is not started); a second
    /// Cancel forgets the stopped job.
    pub fn cancel(&mut self) {
        if let Some(j) = self.run.as_mut() {
            if j.announced.take().is_some() || !j.stopped {
                j.stopped = true;
            } else {
                self.run = None;
            }
        }
    }

    /// Go ahead: an announced or stopped job goes on, confirmed.
    pub fn go(&mut self) {
        if let Some(j) = self.run.as_mut() {
            j.announced = None;
            j.stopped = false;
            j.confirmed = true;
        }
    }

    /// *Open at the start* instead of a link's far moment: forgets a link's job. Returns
    /// whether there was one.
    pub fn drop_link(&mut self) -> bool {
        let link = self.run.as_ref().is_some_and(|j| j.kind == JobKind::Link);
        if link {
            self.run = None;
        }
        link
    }
}

impl Default for Jobs {
    fn default() -> Jobs {
        Jobs {
            run: None,
            tick: 0,
            redrawn_at: f64::NEG_INFINITY,
            slices: SliceLog::default(),
            serial: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Effect, Page};
    use std::rc::Rc;

    #[test]
    fn wall_times_and_counts_read_as_people_say_them() {
        assert_eq!(fmt_wall(400.0, Lang::En), "about 1 s");
        assert_eq!(fmt_wall(42_300.0, Lang::En), "about 42 s");
        assert_eq!(fmt_wall(200_000.0, Lang::En), "about 3 min");
        assert_eq!(
            fmt_wall(2.0 * 3600e3 + 9.0 * 60e3, Lang::En),
            "about 2 h 10 min"
        );
        assert_eq!(fmt_wall(1e20, Lang::En), "about 2400 h");
        assert_eq!(fmt_wall(f64::NAN, Lang::En), "about 1 s");
        assert_eq!(fmt_count(0), "0");
        assert_eq!(fmt_count(1_234_567), "1,234,567");
        assert_eq!(fmt_span(86_400_000_000, Lang::En), "24 h");
        assert_eq!(fmt_span(86_400_000_000, Lang::Ru), "24 ч");
        assert_eq!(fmt_wall(200_000.0, Lang::Ru), "около 3\u{a0}мин");
        assert_eq!(fmt_span(190_000_000, Lang::En), "3 min 10 s");
    }
    use crate::model::Command;
    use std::cell::Cell;

    /// A page whose clock moves `ms_per_look` each time it is read.
    fn page_with_clock(frag: &str, ms_per_look: f64) -> Page {
        let t = Rc::new(Cell::new(0.0));
        Page::from_fragment_with_clock(
            frag,
            Rc::new(move || {
                t.set(t.get() + ms_per_look);
                t.get()
            }),
            crate::lang::Lang::En,
        )
    }

    fn long_link() -> String {
        let sc = crate::bench::history_scenario(600_000);
        crate::scenario::link::encode_url("", &sc, 600_000_000)
    }

    #[test]
    fn a_far_link_opens_at_once_and_replays_in_slices_to_the_same_run() {
        let frag = long_link();
        let mut p = page_with_clock(frag.split_once('#').unwrap().1, 0.1);
        // Opened: nothing ran yet beyond one slice.
        assert!(p.jobs.run.is_some(), "a far link becomes a job");
        let mut frames = 0;
        while p.busy() {
            p.work_jobs(FRAME_BUDGET_MS);
            frames += 1;
            if let Some(j) = &p.jobs.run {
                if j.announced.is_some() {
                    assert!(p.announcement().unwrap().contains("10 min"));
                    p.apply(Command::Job(JobCommand::Go));
                }
            }
        }
        assert!(frames > 10, "in slices: {frames} frames");
        // As the page's clock measured them: every frame a slice (and one as the link opened),
        // each ending within one batch of its budget (the clock moves 0.1 ms a look here).
        let s = p.take_slices();
        assert_eq!(s.count, frames + 1);
        assert_eq!(s.budget_ms, FRAME_BUDGET_MS);
        assert!(s.longest_ms <= FRAME_BUDGET_MS + 0.5, "{s:?}");
        assert_eq!(p.take_slices(), SliceLog::default(), "read once");
        assert_eq!(p.playground.now_us(), 600_000_000);
        let mut whole = crate::playground::Playground::new(p.playground.scenario.clone()).unwrap();
        whole.advance_to(600_000_000, false);
        assert_eq!(p.playground.world.trace.hash(), whole.world.trace.hash());
    }

    #[test]
    fn a_link_projected_over_five_seconds_is_announced_and_can_open_at_the_start() {
        let frag = long_link();
        // 10 ms per look of the clock: far slower than any machine, so the replay is long.
        let mut p = page_with_clock(frag.split_once('#').unwrap().1, 10.0);
        while p.busy() {
            p.work_jobs(FRAME_BUDGET_MS);
        }
        let j = p.jobs.run.as_ref().expect("the job waits");
        assert!(j.announced.unwrap() > ANNOUNCE_OVER_MS);
        assert!(p
            .announcement()
            .unwrap()
            .starts_with("This link replays 10 min"));
        p.apply(Command::Job(JobCommand::AtStart));
        assert!(p.jobs.run.is_none());
        assert_eq!(p.playground.now_us(), 0);
    }

    #[test]
    fn cancel_stops_where_the_replay_stands_and_go_reaches_the_same_run() {
        let frag = long_link();
        let mut p = page_with_clock(frag.split_once('#').unwrap().1, 0.1);
        for _ in 0..5 {
            p.work_jobs(FRAME_BUDGET_MS);
        }
        p.apply(Command::Job(JobCommand::Cancel));
        let at = p.playground.now_us();
        assert!(at > 0 && at < 600_000_000, "stopped at {at}");
        assert!(!p.busy());
        p.work_jobs(FRAME_BUDGET_MS);
        assert_eq!(p.playground.now_us(), at, "a stopped job does not move");
        p.apply(Command::Job(JobCommand::Go));
        p.finish_jobs();
        let mut whole = crate::playground::Playground::new(p.playground.scenario.clone()).unwrap();
        whole.advance_to(600_000_000, false);
        assert_eq!(p.playground.world.trace.hash(), whole.world.trace.hash());
    }

    #[test]
    fn a_command_that_moves_the_run_stops_the_job_where_it_stands() {
        let frag = long_link();
        let mut p = page_with_clock(frag.split_once('#').unwrap().1, 0.1);
        p.work_jobs(FRAME_BUDGET_MS);
        // Refused or idle commands leave it going.
        for idle in [
            Command::LoadBuiltin("no-such-lesson".into()),
            Command::Import(Err("unreadable".into())),
            Command::OpenFragment(String::new()),
            Command::Edit(crate::model::edit::Edit::Nodes(99)),
            Command::LessonBack,
            Command::Presenter(true),
            Command::Speed(4),
        ] {
            p.apply(idle.clone());
            assert!(p.jobs.run.is_some(), "{idle:?} stopped the replay");
        }
        p.apply(Command::Step);
        assert!(p.jobs.run.is_none());
        assert!(p.playground.now_us() < 600_000_000);
        // Play, too, stops a replay: it plays on from where the replay stood.
        let mut p = page_with_clock(frag.split_once('#').unwrap().1, 0.1);
        p.apply(Command::Play(true));
        assert!(p.jobs.run.is_none() && p.playing);
    }

    #[test]
    fn the_twin_catches_up_in_slices() {
        let mut p = page_with_clock("", 0.1);
        p.apply(Command::LoadJson(
            crate::bench::history_scenario(300_000).to_json(),
        ));
        p.apply(Command::Compare(Some("no_ghost_release")));
        p.apply(Command::RunTo(240_000_000));
        assert!(p.twin_lags(), "the twin follows in slices");
        let mut frames = 0;
        while p.busy() {
            p.work_jobs(FRAME_BUDGET_MS);
            frames += 1;
        }
        assert!(frames > 3, "{frames}");
        assert_eq!(p.twin.as_ref().unwrap().playground.now_us(), 240_000_000);
        // Back: at once.
        p.apply(Command::Seek(1_000_000));
        p.finish_jobs();
        assert_eq!(p.twin.as_ref().unwrap().playground.now_us(), 1_000_000);
    }

    #[test]
    fn a_long_lesson_finds_its_moments_in_slices_and_next_waits_for_them() {
        let mut sc = crate::bench::history_scenario(300_000);
        sc.lesson = Some(
            serde_json::from_str(
                r#"{"title": "Far", "captions": [{"at_ms": 1000, "text": "one"}, {"at_ms": 240000, "text": "four minutes"}]}"#,
            )
            .unwrap(),
        );
        let frag = crate::scenario::link::encode_url("", &sc, 0);
        let mut p = page_with_clock(frag.split_once('#').unwrap().1, 0.1);
        assert!(
            p.lesson.walking.is_some(),
            "the walk goes on after the page opens"
        );
        let bar = &p.progress()[0];
        assert_eq!(bar.kind, JobKind::Lesson);
        assert!(
            bar.reached.starts_with("1 of 2 captions"),
            "{}",
            bar.reached
        );
        p.apply(Command::LessonNext);
        p.apply(Command::LessonNext);
        assert!(p.error.as_deref().unwrap().contains("still being found"));
        let mut frames = 0;
        while p.busy() {
            p.work_jobs(FRAME_BUDGET_MS);
            frames += 1;
        }
        assert!(frames > 5, "{frames}");
        assert_eq!(
            p.lesson.marks,
            crate::scenario::walk::walk(&p.playground.scenario, |_, _| {})
        );
        p.apply(Command::LessonNext);
        p.apply(Command::LessonNext);
        p.finish_jobs();
        assert_eq!(p.lesson_pos(), 2);
        assert_eq!(p.playground.now_us(), 240_000_000);
    }

    /// A trace of the benchmark's history workload: `ms` of 5 nodes and 16 clients.
    fn big_trace(ms: u64) -> String {
        let sc = crate::bench::history_scenario(ms);
        let mut w = crate::sim::World::new(&sc, true).unwrap();
        w.run_until(ms * 1000);
        w.trace.to_jsonl()
    }

    #[test]
    fn a_large_trace_is_read_in_slices_and_shown_as_if_read_at_once() {
        use super::super::trace_view::TraceView;
        use crate::check::trace::Checked;
        let text = big_trace(20_000);
        let mut p = page_with_clock("", 4.0);
        let fx = p.apply(Command::OpenTrace("big.jsonl".into(), Ok(text.clone())));
        // It reads on in the page's frames, the worker checks meanwhile.
        assert!(matches!(
            &fx[..],
            [Effect::CheckTrace { id: 1, .. }, Effect::StartFrames]
        ));
        assert!(p.traces.open.is_none() && p.busy());
        let g = &p.progress()[0];
        assert_eq!(g.kind, JobKind::TraceRead);
        assert!(g.fraction > 0.0 && g.fraction < 1.0, "{}", g.fraction);
        let line = g.line(Lang::En);
        // The whole file's size in tenths of a MB, from the text (not pinned: the trace's
        // length moves with the simulator's behaviour).
        let tenths = text.len() * 10 / 1_048_576;
        assert!(
            line.starts_with("Reading the trace: 0.")
                && line.contains(&format!(" of {}.{} MB, ", tenths / 10, tenths % 10)),
            "{line}"
        );
        // The worker may answer before the page has read the file: its answer is kept.
        p.apply(Command::TraceChecked(1, Ok(Checked::of_text_json(&text))));
        let mut frames = 0;
        while p.busy() {
            p.work_jobs(FRAME_BUDGET_MS);
            frames += 1;
        }
        assert!(frames > 3, "{frames}");
        let whole = TraceView::open("big.jsonl", &text, 1, Lang::En).unwrap();
        let v = p.traces.open.as_ref().unwrap();
        assert_eq!((v.lines.len(), v.at), (whole.lines.len(), whole.at));
        assert_eq!(v.lines, whole.lines);
        assert!(v.report().is_some_and(|r| r.ok()));
        assert!(p.progress().is_empty() && p.error.is_none());
    }

    #[test]
    fn a_trace_refused_or_cancelled_while_it_is_read_leaves_the_page_as_it_was() {
        let text = big_trace(20_000);
        let mut p = page_with_clock("", 4.0);
        let hash = p.playground.world.trace.hash();
        // A bad line near the end: refused there, once the page has read that far.
        let n = text.lines().count() - 3;
        let bad: String = text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                if i + 1 == n {
                    "{not json\n".to_string()
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        p.apply(Command::OpenTrace("bad.jsonl".into(), Ok(bad)));
        assert!(p.traces.reading.is_some() && p.error.is_none());
        while p.busy() {
            p.work_jobs(FRAME_BUDGET_MS);
        }
        let e = p.error.take().unwrap();
        assert!(e.contains(&format!("line {n}")), "{e}");
        assert!(p.traces.open.is_none());
        assert_eq!(p.playground.world.trace.hash(), hash);
        assert_eq!(
            p.take_effects(),
            vec![Effect::StopTraceCheck],
            "its check stops"
        );
        // Cancelled: the worker is told to stop, and a late answer finds nothing.
        p.apply(Command::OpenTrace("big.jsonl".into(), Ok(text.clone())));
        let fx = p.apply(Command::Job(JobCommand::CancelRead));
        assert_eq!(fx, vec![Effect::StopTraceCheck]);
        p.apply(Command::TraceChecked(2, Ok(String::new())));
        assert!(p.traces.open.is_none() && p.traces.reading.is_none() && !p.busy());
        assert!(p.error.is_none());
        // A short file opened while a large one is read: its own check goes on (the large
        // one's worker is replaced by its), and it gets its verdict.
        let short: String = text.lines().take(200).map(|l| format!("{l}\n")).collect();
        p.apply(Command::OpenTrace("big.jsonl".into(), Ok(text.clone())));
        let fx = p.apply(Command::OpenTrace("short.jsonl".into(), Ok(short.clone())));
        assert!(
            matches!(&fx[..], [Effect::CheckTrace { id: 4, .. }]),
            "{:?}",
            fx.len()
        );
        assert!(p.traces.reading.is_none());
        let answer = crate::check::trace::Checked::of_text_json(&short);
        p.apply(Command::TraceChecked(4, Ok(answer)));
        assert!(p
            .traces
            .open
            .as_ref()
            .is_some_and(|v| v.name == "short.jsonl" && v.report().is_some()));
        // A file refused in its first lines leaves the trace shown as it was.
        p.apply(Command::OpenTrace(
            "c.jsonl".into(),
            Ok("{not json\n".into()),
        ));
        assert!(p.error.take().is_some());
        assert!(p
            .traces
            .open
            .as_ref()
            .is_some_and(|v| v.name == "short.jsonl"));
        // The worker's refusal, come while the file is read, refuses it at once.
        p.apply(Command::OpenTrace("big.jsonl".into(), Ok(text.clone())));
        let refusal = crate::check::trace::Checked::Refused(crate::check::trace::LineError {
            line: 7,
            message: "a bad line".into(),
        });
        let fx = p.apply(Command::TraceChecked(
            5,
            Ok(serde_json::to_string(&refusal).unwrap()),
        ));
        assert_eq!(fx, vec![Effect::StopTraceCheck]);
        assert!(p.traces.reading.is_none() && p.traces.open.is_none());
        assert!(p.error.take().is_some_and(|e| e.contains("line 7")));
        // A short trace opens in the command that opens it.
        let short: String = text.lines().take(200).map(|l| format!("{l}\n")).collect();
        let mut p = Page::new(
            crate::playground::Playground::new(crate::bench::history_scenario(1_000)).unwrap(),
        );
        let fx = p.apply(Command::OpenTrace("short.jsonl".into(), Ok(short)));
        assert!(matches!(&fx[..], [Effect::CheckTrace { id: 1, .. }]));
        assert!(p.traces.open.is_some() && p.traces.reading.is_none());
    }
}
