//! The whole page's state ([`Page`]): the run in view and each concern's own state. What the
//! commands do to it is `commands.rs`; long work, `work.rs`; opening, `open.rs`.

use super::effect::Effect;
use super::russian::Russian;
use super::{
    edit::RaftField, embed, history, hunt, job, lesson, library, quiz, start, text, trace_view,
    twin,
};
use crate::lang::Lang;
use crate::playground::Playground;
use std::rc::Rc;

/// The whole page's state.
pub struct Page {
    /// The run in view: its document, its world, its snapshots.
    pub playground: Playground,
    pub playing: bool,
    pub speed_pos: i32,
    /// Carried virtual time below one microsecond between frames.
    pub(super) carry_us: f64,
    pub presenter: bool,
    /// Lesson mode shows the lesson's controls only; the tools (seed, nodes, files, switches,
    /// Raft settings, the hunt) open with this.
    pub tools_open: bool,
    pub help: bool,
    pub list_open: bool,
    /// The start screen, and the lesson a returning reader left.
    pub start: start::Start,
    pub error: Option<String>,
    /// Where play stopped at a broken invariant.
    pub stopped_at: Option<String>,
    pub share_url: Option<String>,
    pub log_from: Option<u64>,
    /// The node whose own controls are open under the cluster (a click on the node).
    pub node_controls: Option<usize>,
    /// A window as narrow as a phone ([`NARROW_PX`](crate::model::NARROW_PX)): the cluster, scaled down to its width, draws
    /// its nodes and their words larger so that they stay readable.
    pub narrow: bool,
    /// The clients' history checks: the last verdict and the one in progress, in the worker.
    pub history: history::Checks,
    /// The safe twin beside the run (a "Break it" lesson's, or *Compare side by side*).
    pub twin: Option<twin::Twin>,
    pub hunt: Option<hunt::Hunt>,
    pub raft_draft: Option<(RaftField, String)>,
    pub lesson: lesson::LessonTrack,
    pub quiz: quiz::Quiz,
    /// Bumped on every change: components compare it instead of the world.
    pub version: u64,
    /// Bumped by every command but not by a played frame (unless play stops): the panels that
    /// show only what commands change (the scenario bar, the tools, the switches, the hunt,
    /// messages and dialogs) compare this one and stay still while the run plays.
    pub settled: u64,
    /// The page's own address, on which share links are made.
    pub base_url: String,
    /// The run's long work in progress (a far link, a seek, Next, Run to), its progress and
    /// the slices it was done in.
    pub jobs: job::Jobs,
    /// A trace file opened read-only (*Open a trace*), or being read.
    pub traces: trace_view::Traces,
    /// Effects asked for by work that has no command's return to put them in (a reading
    /// refused in a frame stops the worker's check): the app takes them after each frame, and
    /// `apply` with its own.
    pub(super) pending: Vec<Effect>,
    /// Wall-clock milliseconds (performance.now() in the browser): jobs measure their slices
    /// with it. The default never moves, so a job finishes in the command that starts it.
    pub clock: Rc<dyn Fn() -> f64>,
    /// The player for a course page's `<iframe>` (`#embed/…`), and the snippet last copied.
    pub embed: embed::Embed,
    /// Bumped when the run is replaced (a scenario loaded): the embed's host hears of it.
    pub loaded: u64,
    /// The language of every word on the page (and of a lesson that has it).
    pub lang: Lang,
    /// The built-in scenarios' documents, compiled in or fetched.
    pub library: library::Library,
    /// The interface's Russian texts: here, or fetched on the first switch to Russian.
    pub russian: Russian,
}

impl Page {
    /// The run's moment, virtual µs.
    pub fn now_us(&self) -> u64 {
        self.playground.now_us()
    }

    /// What the scenario menu shows: the built-in running ("" for a document of the user's
    /// own), also while another one loads (a banner says so) or after one failed to.
    pub fn scenario_choice(&self) -> &str {
        let name = &self.playground.scenario.name;
        if crate::scenario::builtin::is_builtin(name) {
            name
        } else {
            ""
        }
    }

    /// The node whose controls are open, while it is still in the run (another scenario may
    /// have fewer nodes).
    pub fn node_controls_open(&self) -> Option<usize> {
        self.node_controls
            .filter(|&i| i < self.playground.world.node_count)
    }

    pub fn in_lesson(&self) -> bool {
        self.playground
            .scenario
            .lesson
            .as_ref()
            .is_some_and(|l| !l.captions.is_empty())
    }

    /// Where the reader is, as the start screen will offer it back: a built-in lesson and its
    /// position.
    pub fn left_here(&self) -> Option<start::Left> {
        let name = self.scenario_choice();
        (self.in_lesson() && !name.is_empty()).then(|| start::Left {
            name: name.to_string(),
            pos: self.lesson_pos(),
        })
    }

    /// How many of the lesson's captions the run has reached.
    pub fn lesson_pos(&self) -> usize {
        self.lesson.position(&self.playground.world)
    }

    /// The effects asked for outside a command's return since the last look.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.pending)
    }

    /// A trace file's reading ends without a trace to show (cancelled or refused): its check
    /// in the worker stops too.
    pub(super) fn drop_reading(&mut self) {
        if self.traces.reading.take().is_some() {
            self.pending.push(Effect::StopTraceCheck);
        }
    }

    /// The twin follows the run's moment: back at once (a seek from its snapshots); forward
    /// in slices with the jobs ([`Page::twin_lags`]).
    pub(super) fn sync_twin_back(&mut self) {
        let t = self.playground.now_us();
        if let Some(twin) = &mut self.twin {
            twin.sync_back(t);
        }
    }

    /// Whether the twin is behind the run.
    pub fn twin_lags(&self) -> bool {
        let t = self.playground.now_us();
        self.twin.as_ref().is_some_and(|twin| twin.lags(t))
    }

    /// Where the run stands: a command that changes it stops a long replay in progress.
    pub(super) fn run_mark(&self) -> (u64, u64) {
        (self.playground.world.stats.events, self.playground.now_us())
    }

    /// The document's recorded actions, as far as a command can change them (one appended,
    /// or the future cut).
    pub(super) fn doc_mark(&self) -> (usize, Option<u64>) {
        let t = &self.playground.scenario.timeline;
        (t.len(), t.last().map(|a| a.at_ms))
    }

    pub(super) fn note_violation(&mut self) {
        let w = &self.playground.world;
        self.stopped_at = w.violations().last().map(|(t, v)| {
            format!(
                "t = {} : {} — {}",
                text::fmt_us(*t as i64, self.lang),
                text::invariant_label(v.invariant, self.lang),
                v.detail.get(self.lang)
            )
        });
        self.playing = false;
    }
}
