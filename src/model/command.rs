//! Every input of the page: a control, a key, or a call of `window.raftlock`
//! ([`Command`]). What each one does is `commands.rs`.

use super::edit::{self, RaftField};
use super::{history, hunt, job, library, start};
use crate::lang::Lang;

/// What the user does to the run (cut a link, crash a node, a client's acquire): the core's
/// action, which [`Command::Act`] carries and the scenario document records with its time.
pub use crate::scenario::Action;

/// The largest scenario file [`Command::Import`] takes (a link's document has the same bound).
pub use crate::scenario::link::DOC_BYTES_MAX;

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
    /// Make a share link (on the page's own address, [`Page::base_url`](crate::model::Page::base_url)).
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
}
