//! What the UI must do in the browser after a command ([`Effect`]): the page model asks, the
//! components carry it out.

use crate::lang::Lang;
use std::rc::Rc;

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
    /// Check a trace in the page's worker and answer [`Command::TraceChecked`](crate::model::Command::TraceChecked) with `id`.
    CheckTrace {
        id: u32,
        text: Rc<String>,
    },
    /// The trace's check is no longer wanted (the trace was closed, or its reading cancelled or
    /// refused): stop the worker.
    StopTraceCheck,
    /// Check the clients' history in the page's worker: replay `doc` (the run's document, JSON)
    /// to its `target`-th event, where the run's trace hash is `hash` (a replay that is not the
    /// run gives no verdict), and answer [`Command::HistoryReport`](crate::model::Command::HistoryReport) with `id`.
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
    /// Fetch a built-in's document, `scenarios/NAME.json`, and answer [`Command::Fetched`](crate::model::Command::Fetched).
    Fetch(String),
    /// Fetch the interface's Russian, `ru.json`, and answer [`Command::RussianArrived`](crate::model::Command::RussianArrived).
    FetchRussian,
}
