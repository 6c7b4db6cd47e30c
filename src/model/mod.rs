//! The page model, without any web crate: what the page does, built and tested natively. The Yew
//! components under `src/ui/` only draw a [`Page`] and send [`Command`]s; the keyboard and
//! `window.raftlock` send the same commands. What needs the browser (the clipboard, a download,
//! the address bar, the hunt's worker) comes back as an [`Effect`] for the UI to carry out.
//!
//! - [`lesson`]: where a lesson stands, read off the run's state;
//! - [`text`]: event descriptions, labels and number formats;
//! - [`hunt`]: the state of "Find a bug";
//! - [`locks`]: the lock view (keys × nodes) and the lease arcs on the cluster;
//! - [`focus`]: what the current caption names, resolved to parts of the page;
//! - [`edit`]: the controls that edit the scenario document and restart the run;
//! - [`job`]: long work in slices (a far link, a seek, Next);
//! - [`history`]: the clients' history check, in the page's worker;
//! - [`library`]: the built-in scenarios, fetched as files when the build does not carry them;
//! - [`embed`]: the player for a course page's `<iframe>`, and its `postMessage` API;
//! - `commands`: what each command does ([`Page::apply`] calls it).

mod commands;
pub mod commit;
pub mod edit;
pub mod embed;
pub mod focus;
pub mod history;
pub mod hunt;
pub mod job;
pub mod lesson;
pub mod library;
pub mod locks;
pub mod motion;
pub mod next;
pub mod pace;
pub mod quiz;
pub mod start;
pub mod text;
pub mod trace_view;
pub mod twin;

use crate::check::history::Verdict;
use crate::lang::{t, Lang};
use crate::playground::{Goal, Playground};
use crate::scenario::{Action, Scenario, PLAYGROUND_JSON};
use std::rc::Rc;

/// The widest window, in CSS pixels, drawn as a phone's.
pub const NARROW_PX: f64 = 560.0;

/// The speed slider's stops (in millionths of real time): 1/100× to 100×, logarithmic.
pub const SPEED_STOPS: [u64; 13] = [
    10_000,
    20_000,
    50_000,
    100_000,
    200_000,
    500_000,
    1_000_000,
    2_000_000,
    5_000_000,
    10_000_000,
    20_000_000,
    50_000_000,
    100_000_000,
];
/// The speed slider's first position: ×1/5. In free play the first leader is elected about a
/// second after Play and client A is granted at about two, and a message of 20–30 ms is still
/// seen crossing the ring (at ×1 most live less than a frame).
pub const SPEED_START: i32 = 4;

/// Virtual microseconds per real millisecond at slider stop `pos` (× 1000 = ppm of real time).
pub fn speed_of(pos: i32) -> u64 {
    SPEED_STOPS[pos.clamp(0, SPEED_STOPS.len() as i32 - 1) as usize]
}

/// The clock-rate slider's stops, in ppm: values a lesson talks about, from a quartz crystal's
/// 1000 ppm to a clock at a quarter or four times true speed. The slider snaps to them and reads
/// "×2" or "×0.999"; a scenario's rate between two stops is shown as it is, the slider at the
/// nearer one.
pub const RATE_STOPS: [u32; 15] = [
    250_000, 500_000, 750_000, 900_000, 950_000, 990_000, 999_000, 1_000_000, 1_001_000, 1_010_000,
    1_050_000, 1_100_000, 1_500_000, 2_000_000, 4_000_000,
];
/// The slider's position of ×1 (its positions run from −RATE_MID to +RATE_MID).
pub const RATE_MID: i32 = (RATE_STOPS.len() / 2) as i32;

pub fn rate_of(pos: i32) -> u32 {
    RATE_STOPS[(pos.clamp(-RATE_MID, RATE_MID) + RATE_MID) as usize]
}

/// The stop nearest `rate_ppm` by ratio (×1.001 is nearer ×1 than ×0.999 is to ×0.99).
pub fn rate_pos(rate_ppm: u32) -> i32 {
    let ratio = |r: u32| {
        let (a, b) = (r.max(1) as f64, rate_ppm.max(1) as f64);
        a.max(b) / a.min(b)
    };
    let i = RATE_STOPS
        .iter()
        .enumerate()
        .min_by(|(_, a), (_, b)| ratio(**a).total_cmp(&ratio(**b)))
        .map_or(RATE_MID as usize, |(i, _)| i);
    i as i32 - RATE_MID
}

/// The Raft settings the page lets a user type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RaftField {
    MaxBatch,
    SnapshotEvery,
}

impl RaftField {
    pub fn name(self) -> &'static str {
        match self {
            RaftField::MaxBatch => "max_batch",
            RaftField::SnapshotEvery => "snapshot_every",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Export {
    Scenario,
    Trace,
}

/// Every input of the page: a control, a key, or a call of `window.raftlock`.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Play(bool),
    TogglePlay,
    /// One event.
    Step,
    StepBack,
    /// Run to the next apply.
    StepApply,
    Speed(i32),
    /// Go to a moment already simulated (the scrubber): back or forward.
    Seek(u64),
    /// Run forward to a moment (stops where an invariant turns red).
    RunTo(u64),
    TakeOver,
    Restart,
    /// What the user did to the run (recorded in the document with its time).
    Act(Action),
    /// Edit the scenario document and restart the run with it (seed, node count, a switch, a
    /// Raft setting); a refused edit gets a message and the run stays.
    Edit(edit::Edit),
    /// Text typed into a Raft setting, not yet committed (Enter or leaving the field does).
    RaftDraft(RaftField, String),
    /// Replace the run: a built-in by name, a document (JSON), a link fragment (`v1.…` or
    /// `scenario=NAME`).
    LoadBuiltin(String),
    /// A built-in's file fetched (its name, its text or why it could not be had).
    Fetched(String, Result<String, library::Missing>),
    LoadJson(String),
    /// A file the user picked: its text, or why it could not be read.
    Import(Result<String, String>),
    /// A trace file to open read-only (name, text or why it could not be read).
    OpenTrace(String, Result<String, String>),
    /// The worker's answer for a trace's check (its number, the JSON or why it could not check).
    TraceChecked(u32, Result<String, String>),
    /// The open trace: to just after this many of its lines; to just after a line of the file.
    TraceAt(usize),
    TraceLine(u64),
    CloseTrace,
    OpenFragment(String),
    /// The page's language (the switch in the bar; remembered by the browser).
    SetLang(Lang),
    /// The interface's Russian texts fetched (`ru.json`), or why they could not be had.
    RussianArrived(Result<String, library::Missing>),
    /// Close the message that the Russian texts could not be loaded.
    DismissRussian,
    LessonNext,
    LessonBack,
    /// The student's answer to the open question (a choice, from 0).
    Answer(usize),
    /// Presenter mode: show the open question's answer to the room.
    Reveal,
    CheckHistory,
    /// The worker's report for a history check (its number, how far or its answer).
    HistoryReport(u32, history::HistoryReport),
    /// Cancel, go ahead with, or open at the start a long replay.
    Job(job::JobCommand),
    Compare(Option<&'static str>),
    /// Make a share link (on the page's own address, [`Page::base_url`]).
    Share,
    /// Copy the `<iframe>` snippet of the player at this scenario and moment.
    CopyEmbed,
    Export(Export),
    HuntStart(u32),
    HuntCancel,
    HuntReport(hunt::WorkerReport),
    Presenter(bool),
    Tools(bool),
    Help(bool),
    ScenarioList(bool),
    /// The start screen's choice (the bare address opens on it).
    Start(start::Choice),
    LogFrom(Option<u64>),
    /// Open a node's own controls (its clock and process) from the cluster, or close them.
    NodeControls(Option<usize>),
    /// The window is as narrow as a phone (or no longer is): the cluster draws its nodes larger.
    Narrow(bool),
    DismissError,
    Error(String),
}

/// The key a shortcut reads: the letter typed, or on another alphabet's layout (Russian: т for
/// n) the Latin letter of the same key, so the shortcuts the help lists work on every layout.
pub fn shortcut_key(key: &str, code: &str) -> String {
    let mut chars = key.chars();
    match (chars.next(), chars.next(), code.strip_prefix("Key")) {
        (Some(c), None, Some(letter)) if c.is_alphabetic() && !c.is_ascii() => {
            letter.to_ascii_lowercase()
        }
        _ => key.to_string(),
    }
}

impl Command {
    /// Whether the command moves or changes the run in view (time, actions, the lesson's place,
    /// its document), or starts work on it. A pause is not one.
    pub fn moves_the_run(&self) -> bool {
        matches!(
            self,
            Command::Play(true)
                | Command::TogglePlay
                | Command::Step
                | Command::StepBack
                | Command::StepApply
                | Command::Seek(_)
                | Command::RunTo(_)
                | Command::TakeOver
                | Command::Restart
                | Command::Act(_)
                | Command::LessonNext
                | Command::LessonBack
                | Command::Answer(_)
                | Command::Reveal
                | Command::Edit(_)
                | Command::Compare(Some(_))
                | Command::HuntStart(_)
        )
    }

    /// The keyboard shortcut `key`, if it is one.
    pub fn from_key(key: &str, page: &Page) -> Option<Command> {
        Some(match key {
            " " => Command::TogglePlay,
            "ArrowRight" => Command::Step,
            "ArrowLeft" => Command::StepBack,
            "a" => Command::StepApply,
            "t" => Command::TakeOver,
            "p" => Command::Presenter(!page.presenter),
            "n" if page.playground.scenario.lesson.is_some() => Command::LessonNext,
            "b" if page.playground.scenario.lesson.is_some() => Command::LessonBack,
            "r" if page.open_question().is_some() => Command::Reveal,
            "1" | "2" | "3" | "4" | "5" if page.open_question().is_some() && !page.presenter => {
                Command::Answer(key.parse::<usize>().ok()? - 1)
            }
            "?" => Command::Help(!page.help),
            "Escape" => Command::DismissError,
            _ => return None,
        })
    }
}

/// What the UI must do in the browser after a command.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Start the frame loop (play).
    StartFrames,
    /// Put this fragment in the address bar without a reload (`#…`).
    SetFragment(String),
    Clipboard(String),
    Download {
        name: String,
        text: String,
        mime: &'static str,
    },
    StartHunt {
        switches: Vec<&'static str>,
        runs: u32,
    },
    StopHunt,
    /// Check a trace in the page's worker and answer [`Command::TraceChecked`] with `id`.
    CheckTrace {
        id: u32,
        text: Rc<String>,
    },
    /// The trace's check is no longer wanted (the trace was closed, or its reading cancelled or
    /// refused): stop the worker.
    StopTraceCheck,
    /// Check the clients' history in the page's worker: replay `doc` (the run's document, JSON)
    /// to its `target`-th event, where the run's trace hash is `hash` (a replay that is not the
    /// run gives no verdict), and answer [`Command::HistoryReport`] with `id`.
    CheckHistory {
        id: u32,
        doc: String,
        target: u64,
        hash: String,
    },
    /// The history check is no longer wanted (cancelled, or the document changed): stop it.
    StopHistoryCheck,
    /// The language changed: remember it, and say it to the document and the address bar.
    Lang(Lang),
    /// Say the language to the document only (`<html lang>`, the title): a Russian page whose
    /// texts did not come goes on in English without that becoming the reader's choice.
    ShowLang(Lang),
    /// Fetch a built-in's document, `scenarios/NAME.json`, and answer [`Command::Fetched`].
    Fetch(String),
    /// Fetch the interface's Russian, `ru.json`, and answer [`Command::RussianArrived`].
    FetchRussian,
}

/// The interface's Russian texts: the page's build fetches them when a reader first wants
/// Russian (an English page does not wait for them); the CLI and the tests have them compiled in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Russian {
    Here,
    NotHere,
    /// They could not be had: the message the page shows (in both languages) until dismissed
    /// or a later choice of Russian asks again.
    Failed(String),
    /// Asked for; `wanted`: switch to Russian when they come (the reader has not switched back).
    Coming {
        wanted: bool,
    },
}

/// Install the fetched Russian texts (`crate::lang::install`), or say why there are none, in
/// English (the reader's Russian is what is missing).
pub fn install_russian(texts: Result<String, library::Missing>) -> Result<(), String> {
    let texts = texts.map_err(|why| why.words(Lang::En))?;
    crate::lang::install(&texts).map_err(|e| format!("the file is not this version's texts ({e})"))
}

impl Default for Russian {
    fn default() -> Russian {
        if crate::lang::russian_ready() {
            Russian::Here
        } else {
            Russian::NotHere
        }
    }
}

/// The whole page's state.
pub struct Page {
    /// The run in view: its document, its world, its snapshots.
    pub playground: Playground,
    pub playing: bool,
    pub speed_pos: i32,
    /// Carried virtual time below one microsecond between frames.
    carry_us: f64,
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
    /// A window as narrow as a phone ([`NARROW_PX`]): the cluster, scaled down to its width, draws
    /// its nodes and their words larger so that they stay readable.
    pub narrow: bool,
    /// The last history check: (moment checked, verdict; None: clocks drifted, not checked).
    pub history: Option<(u64, Option<Rc<Verdict>>)>,
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
    /// The run's long work in progress (a far link, a seek, Next, Run to).
    pub job: Option<job::Job>,
    /// A trace file opened read-only (*Open a trace*): shown instead of the run while open.
    pub trace: Option<trace_view::TraceView>,
    /// A trace file being read (in slices, as a job): shown once read.
    pub trace_reading: Option<trace_view::Reading>,
    /// Effects asked for by work that has no command's return to put them in (a reading
    /// refused in a frame stops the worker's check): the app takes them after each frame, and
    /// `apply` with its own.
    pending: Vec<Effect>,
    /// The traces opened so far: the number of the latest one's check.
    trace_checks: u32,
    /// The history check in progress, in the worker (play goes on meanwhile).
    pub checking: Option<history::HistoryCheck>,
    /// The history checks asked for so far: the number of the latest.
    history_checks: u32,
    /// Wall-clock milliseconds (performance.now() in the browser): jobs measure their slices
    /// with it. The default never moves, so a job finishes in the command that starts it.
    pub clock: Rc<dyn Fn() -> f64>,
    /// Bumped by every frame of a job (the progress bar follows it; the panels follow
    /// `version`, bumped a few times a second during a job).
    pub job_tick: u64,
    redrawn_at: f64,
    /// The slices of long work since a test last asked ([`Page::take_slices`]).
    slices: job::SliceLog,
    /// Counts the jobs started (a command that starts one keeps it).
    job_serial: u64,
    /// The player for a course page's `<iframe>` (`#embed/…`): the lesson only.
    pub embed: bool,
    /// The `<iframe>` snippet last copied (*Copy embed code*).
    pub embed_code: Option<String>,
    /// Bumped when the run is replaced (a scenario loaded): the embed's host hears of it.
    pub loaded: u64,
    /// The language of every word on the page (and of a lesson that has it).
    pub lang: Lang,
    /// The built-in scenarios' documents, compiled in or fetched.
    pub library: library::Library,
    /// The interface's Russian texts: here, or fetched on the first switch to Russian.
    pub russian: Russian,
}

/// A fragment's language (`…&lang=ru`, as share links carry it, or a hand-made `#lang=ru`), and
/// the fragment without it.
pub fn split_lang(frag: &str) -> (String, Option<Lang>) {
    let (hash, body) = frag.strip_prefix('#').map_or(("", frag), |b| ("#", b));
    let mut lang = None;
    let mut rest = Vec::new();
    for part in body.split('&') {
        match part.strip_prefix("lang=") {
            Some(code) => lang = Lang::parse(code).or(lang),
            None => rest.push(part),
        }
    }
    let rest = rest.join("&");
    (
        if rest.is_empty() {
            rest
        } else {
            format!("{hash}{rest}")
        },
        lang,
    )
}

/// The fragment with the page's language: English links carry none (the reader's remembered
/// choice, else their browser's, decides), Russian ones `&lang=ru`.
pub fn with_lang(frag: &str, lang: Lang) -> String {
    let (frag, _) = split_lang(frag);
    match lang {
        Lang::En => frag,
        _ if frag.trim_start_matches('#').is_empty() => frag,
        l => format!("{frag}&lang={}", l.code()),
    }
}

/// A whole URL with the page's language in its fragment (its query, if any, untouched).
pub fn url_with_lang(url: &str, lang: Lang) -> String {
    match url.split_once('#') {
        Some((base, frag)) => format!("{base}{}", with_lang(&format!("#{frag}"), lang)),
        None => url.to_string(),
    }
}

pub fn default_scenario() -> Scenario {
    Scenario::from_json(PLAYGROUND_JSON).expect("the built-in playground scenario is valid")
}

/// The built-in a fragment names (`scenario=NAME`): it opens through the page's library
/// (compiled in, fetched before, or fetched now).
fn builtin_in(frag: &str) -> Option<&str> {
    let name = frag.trim_start_matches('#').strip_prefix("scenario=")?;
    crate::scenario::builtin::is_builtin(name).then_some(name)
}

/// What a URL fragment opened: the run, the moment to show, and a note for the reader when the
/// link's moment was past the end of its run (it opens at the end).
pub struct Opened {
    pub playground: Playground,
    pub moment_us: u64,
    pub note: Option<String>,
}

/// What a URL fragment asks for: a share link (`v1.…`) with its moment, a built-in
/// (`scenario=NAME`) at its start, or nothing. An error is why the link could not be opened, in
/// plain words, for the caller to say what it shows instead ([`link_refused`]). The run is not
/// advanced here: the page replays to the moment in slices.
pub fn playground_from_fragment(frag: &str, lang: Lang) -> Result<Option<Opened>, String> {
    let frag = frag.trim_start_matches('#');
    if frag.is_empty() || frag == "scenarios" {
        return Ok(None);
    }
    if let Some(name) = frag.strip_prefix("scenario=") {
        // A built-in's name is not asked for here ([`builtin_in`]).
        return Err(t!(lang, "there is no built-in scenario \"{name}\""));
    }
    // The link's own faults in plain words; a fault of the document it carries names its field.
    let why = |e: crate::scenario::ScenarioError| match e.field.as_str() {
        "link" => e.message.get(lang).to_string(),
        _ => t!(lang, "its scenario is not valid ({e})", e = e.words(lang)),
    };
    let shared = crate::scenario::link::decode(frag).map_err(why)?;
    let end_us = shared.scenario.until_ms.saturating_mul(1000);
    let pg = Playground::new(shared.scenario).map_err(why)?;
    let note = shared.past_end_us.map(|asked| {
        t!(
            lang,
            "This link's moment, {asked}, is past the end of its {end} run: it is opened at its end.",
            asked = text::fmt_us(asked.min(i64::MAX as u64) as i64, lang),
            end = text::fmt_span(end_us, lang)
        )
    });
    Ok(Some(Opened {
        playground: pg,
        moment_us: shared.moment_us,
        note,
    }))
}

/// The message for a link that could not be opened: why, and what the page shows instead (the
/// default scenario as the page opens; the run the reader had when a link is pasted into an open
/// tab).
pub fn link_refused(why: &str, kept_run: bool, lang: Lang) -> String {
    if kept_run {
        t!(
            lang,
            "This link could not be opened: {why}. The run you had is kept."
        )
    } else {
        t!(
            lang,
            "This link could not be opened: {why}. The default scenario is shown instead."
        )
    }
}

impl Page {
    pub fn new(pg: Playground) -> Page {
        Page::with_clock(pg, Rc::new(|| 0.0))
    }

    /// A page whose long work (a lesson's walk, a far moment) goes in slices timed by `clock`.
    pub fn with_clock(pg: Playground, clock: Rc<dyn Fn() -> f64>) -> Page {
        let twin = twin::Twin::of_lesson(&pg.scenario);
        let mut page = Page {
            playground: pg,
            playing: false,
            speed_pos: SPEED_START,
            carry_us: 0.0,
            presenter: false,
            tools_open: false,
            help: false,
            list_open: false,
            start: start::Start::default(),
            error: None,
            stopped_at: None,
            share_url: None,
            log_from: None,
            node_controls: None,
            narrow: false,
            history: None,
            twin,
            hunt: None,
            raft_draft: None,
            lesson: lesson::LessonTrack::default(),
            quiz: quiz::Quiz::default(),
            version: 0,
            settled: 0,
            base_url: String::new(),
            job: None,
            trace: None,
            trace_checks: 0,
            trace_reading: None,
            pending: Vec::new(),
            checking: None,
            history_checks: 0,
            clock,
            job_tick: 0,
            redrawn_at: f64::NEG_INFINITY,
            slices: job::SliceLog::default(),
            job_serial: 0,
            embed: false,
            embed_code: None,
            loaded: 0,
            lang: Lang::En,
            library: library::Library::default(),
            russian: Russian::default(),
        };
        page.lesson.follow(&page.playground.scenario);
        page.work_jobs(job::FRAME_BUDGET_MS);
        page
    }

    /// The page a URL fragment opens: the default scenario, with a message when the fragment
    /// was refused.
    pub fn from_fragment(frag: &str) -> Page {
        Page::from_fragment_with_clock(frag, Rc::new(|| 0.0), Lang::En)
    }

    /// The same, with the page's wall clock (a far moment is reached by a job, in slices) and
    /// the reader's language (a `lang` in the fragment wins over it).
    pub fn from_fragment_with_clock(frag: &str, clock: Rc<dyn Fn() -> f64>, lang: Lang) -> Page {
        Page::open_fragment(frag, clock, lang, library::Library::default())
    }

    /// The same, with the built-ins' documents as `library` has them.
    pub fn open_fragment(
        frag: &str,
        clock: Rc<dyn Fn() -> f64>,
        lang: Lang,
        library: library::Library,
    ) -> Page {
        let (frag, in_link) = split_lang(frag);
        let lang = in_link.unwrap_or(lang);
        let (embed, frag) = embed::split(&frag);
        let builtin = builtin_in(frag);
        let here = builtin.and_then(|n| library.get(n));
        let fetch = builtin.filter(|_| here.is_none());
        let opened = match here {
            Some(sc) => Playground::new(sc)
                .map(|pg| {
                    Some(Opened {
                        playground: pg,
                        moment_us: 0,
                        note: None,
                    })
                })
                .map_err(|e| e.words(lang)),
            None => playground_from_fragment(if builtin.is_some() { "" } else { frag }, lang),
        };
        let (pg, moment, error) = match opened {
            Ok(Some(o)) => (o.playground, o.moment_us, o.note),
            Ok(None) => (Playground::new(default_scenario()).expect("valid"), 0, None),
            Err(why) => (
                Playground::new(default_scenario()).expect("valid"),
                0,
                Some(link_refused(&why, false, lang)),
            ),
        };
        let mut page = Page::with_clock(pg, clock);
        page.lang = lang;
        page.error = error;
        page.embed = embed;
        page.list_open = frag.trim_start_matches('#') == "scenarios";
        page.start.open = start::opens_on(frag, embed) && page.error.is_none();
        page.library = library;
        page.library.loading = fetch.map(str::to_string);
        page.open_at(moment);
        page
    }

    /// What the page needs fetched as it opens: the built-in its link names, the stories of
    /// the scenario list (the start screen's cards come with the page).
    pub fn start_effects(&mut self) -> Vec<Effect> {
        let mut fx: Vec<Effect> = self
            .library
            .loading
            .clone()
            .and_then(|n| self.library.request(&n))
            .into_iter()
            .collect();
        if self.list_open {
            fx.extend(self.library.request_all());
        }
        fx
    }

    /// Go to a link's moment: a job, announced when it would take long.
    fn open_at(&mut self, moment_us: u64) {
        if moment_us > 0 {
            self.replay_job(job::JobKind::Link, |pg| {
                Goal::at(moment_us.min(pg.end_us()), false)
            });
        }
    }

    /// A seek (the scrubber, a step back, the handle): a job when the replay is long.
    fn seek_job(&mut self, t_us: u64) {
        // From the nearest snapshot; a moment past what has run runs on to it (the handle may
        // ask for one), up to the run's end.
        self.replay_job(job::JobKind::Seek, |pg| {
            let t = t_us.min(pg.end_us());
            pg.rewind(t);
            Goal::at(t, false)
        });
    }

    /// A job of `kind` toward the goal `rewind` returns, having restored a snapshot if it
    /// needed one: the bar counts from where the replay starts.
    pub(super) fn replay_job(
        &mut self,
        kind: job::JobKind,
        rewind: impl FnOnce(&mut Playground) -> Goal,
    ) {
        let before = self.playground.now_us();
        let goal = rewind(&mut self.playground);
        let from = before.min(self.playground.now_us());
        self.start_job(job::Job::run(kind, goal, from));
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

    /// Replace the run, forgetting what belonged to the previous one.
    fn replace(&mut self, pg: Playground) {
        self.start.open = false;
        self.twin = twin::Twin::of_lesson(&pg.scenario);
        self.playground = pg;
        self.library.loading = None;
        self.job = None;
        self.checking = None;
        self.history = None;
        self.stopped_at = None;
        self.log_from = None;
        self.share_url = None;
        self.embed_code = None;
        self.node_controls = None;
        self.loaded += 1;
        self.playing = false;
        self.raft_draft = None;
        self.quiz = quiz::Quiz::default();
    }

    /// Restart with an edited document, or keep the run and say why not.
    fn restart_with(&mut self, sc: Result<Scenario, String>, refused: &str) {
        let lang = self.lang;
        match sc.and_then(|sc| Playground::new(sc).map_err(|e| e.words(lang))) {
            Ok(pg) => {
                self.replace(pg);
                self.error = None;
            }
            Err(e) => self.error = Some(format!("{refused}{e}")),
        }
    }

    /// Carry out one command. Returns what the UI must do in the browser.
    pub fn apply(&mut self, cmd: Command) -> Vec<Effect> {
        // A history check's progress moves its bar only: no panel draws again for it.
        if let Command::HistoryReport(id, report @ history::HistoryReport::Progress(_)) = cmd {
            self.history_report(id, report);
            return Vec::new();
        }
        // Space and the Play buttons toggle: said as what they do now (a pause is never refused).
        let cmd = match cmd {
            Command::TogglePlay => Command::Play(!self.playing),
            cmd => cmd,
        };
        // While a built-in's document is coming, a command for the run is refused with the
        // reason (the run shown meanwhile is about to be replaced: doing it there would be lost).
        if let Some(name) = self.library.loading.clone().filter(|_| cmd.moves_the_run()) {
            let title = crate::scenario::builtin::title(&name)
                .map(|t| t.get(self.lang).to_string())
                .filter(|t| !t.is_empty())
                .unwrap_or(name);
            self.error = Some(t!(
                self.lang,
                "The lesson \"{title}\" is still loading: try again when it has come."
            ));
            self.version += 1;
            self.settled += 1;
            return Vec::new();
        }
        let play = matches!(cmd, Command::Play(true) | Command::TogglePlay);
        let own = matches!(cmd, Command::Job(_));
        let (run, doc, serial) = (self.run_mark(), self.doc_mark(), self.job_serial);
        let checking = self.checking.is_some();
        let mut effects = self.run_command(cmd);
        // The run's long work stops where it stands when the user took the run elsewhere (a
        // refused or idle command leaves it going); a history check stops when the document
        // it checks changed.
        if !own && self.job_serial == serial && (play || self.run_mark() != run) {
            self.job = None;
        }
        if self.doc_mark() != doc {
            self.checking = None;
        }
        if checking && self.checking.is_none() && !effects.contains(&Effect::StopHistoryCheck) {
            effects.push(Effect::StopHistoryCheck);
        }
        self.lesson.follow(&self.playground.scenario);
        if let Some(t) = &mut self.twin {
            t.follow(&self.playground.scenario);
        }
        self.sync_twin_back();
        if self.lesson.walking.is_some() || self.twin_lags() {
            self.work_jobs(job::FRAME_BUDGET_MS);
        }
        self.version += 1;
        self.settled += 1;
        // The player keeps its address a player's, and a Russian page its language.
        for e in &mut effects {
            if let Effect::SetFragment(f) = e {
                if self.embed {
                    *f = embed::fragment(f);
                }
                *f = with_lang(f, self.lang);
            }
        }
        if self.busy() && !effects.contains(&Effect::StartFrames) {
            effects.push(Effect::StartFrames);
        }
        for e in self.take_effects() {
            if !effects.contains(&e) {
                effects.push(e);
            }
        }
        effects
    }

    /// The effects asked for outside a command's return since the last look.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.pending)
    }

    /// A trace file's reading ends without a trace to show (cancelled or refused): its check
    /// in the worker stops too.
    pub(super) fn drop_reading(&mut self) {
        if self.trace_reading.take().is_some() {
            self.pending.push(Effect::StopTraceCheck);
        }
    }

    /// One frame: the jobs' slices, or play. Returns whether the frame loop goes on.
    pub fn frame(&mut self, dt_ms: f64) -> bool {
        let clock = Rc::clone(&self.clock);
        let t0 = clock();
        let playing = self.job.is_none() && self.play_frame(dt_ms, &mut || clock() - t0 > 10.0);
        // While playing, the work left (a lesson's walk, the second pane) takes a few ms of it.
        let budget = if playing { 4.0 } else { job::FRAME_BUDGET_MS };
        let busy = self.work_jobs(budget);
        playing || busy
    }

    /// One frame of play: `dt_ms` of real time at the current speed, in batches of events
    /// until the run reaches its target or `out_of_time` says the frame's budget is spent (a slow
    /// machine plays slower, never janky). Returns whether play goes on.
    pub fn play_frame(&mut self, dt_ms: f64, out_of_time: &mut dyn FnMut() -> bool) -> bool {
        if !self.playing {
            return false;
        }
        self.carry_us += dt_ms.clamp(0.0, 100.0) * speed_of(self.speed_pos) as f64 / 1000.0;
        let step_us = self.carry_us.floor();
        self.carry_us -= step_us;
        let target = self.playground.now_us() + step_us as u64;
        loop {
            let (reached, violated) = self.playground.advance_bounded(target, 400);
            if violated {
                self.note_violation();
                break;
            }
            if reached || out_of_time() {
                break;
            }
        }
        if self.playground.at_end() {
            self.playing = false;
        }
        self.sync_twin_back();
        self.version += 1;
        if !self.playing {
            self.settled += 1;
        }
        self.playing
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
    fn run_mark(&self) -> (u64, u64) {
        (self.playground.world.stats.events, self.playground.now_us())
    }

    /// The document's recorded actions, as far as a command can change them (one appended,
    /// or the future cut).
    fn doc_mark(&self) -> (usize, Option<u64>) {
        let t = &self.playground.scenario.timeline;
        (t.len(), t.last().map(|a| a.at_ms))
    }
}

#[cfg(test)]
mod tests;
