//! The page's Web Worker (`www/worker.js`), which loads the worker's own wasm module
//! (`src/worker.rs`: the core's hunt, trace check and history check, no Yew): one worker per
//! job, and [`Jobs`], the jobs the app keeps running. Dropping a job's worker stops it.

use crate::model::history::HistoryReport;
use crate::model::hunt::WorkerReport;
use crate::model::{Command, Effect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// The worker jobs in progress: the hunt, the open trace's check and the clients' history
/// check, each check with its number.
#[derive(Default)]
pub struct Jobs {
    hunt: Option<Worker>,
    trace_check: Option<(u32, Worker)>,
    history_check: Option<(u32, Worker)>,
}

/// What a job in the worker said.
pub enum Report {
    /// The hunt's message as the worker posted it.
    Hunt(JsValue),
    /// Trace check `id`'s answer: the JSON, or why there is none.
    Trace(u32, Result<String, String>),
    History(u32, HistoryReport),
}

impl Report {
    /// Drawn by its own panel or bar, not as a command: the hunt's reports and a history
    /// check's progress.
    pub fn is_progress(&self) -> bool {
        matches!(
            self,
            Report::Hunt(_) | Report::History(_, HistoryReport::Progress(_))
        )
    }
}

impl Jobs {
    /// Carry out an effect that is a worker's job, its reports going to `report`; any other
    /// effect comes back. `Err`: the hunt could not start.
    pub fn carry_out(
        &mut self,
        e: Effect,
        report: impl Fn(Report) + Clone + 'static,
    ) -> Result<Option<Effect>, String> {
        match e {
            Effect::StartHunt { switches, runs } => {
                self.hunt = None;
                self.hunt = Some(start_hunt(&switches, runs, move |v| {
                    report(Report::Hunt(v))
                })?);
            }
            Effect::StopHunt => self.hunt = None,
            Effect::CheckTrace { id, text } => {
                // (A check of a trace since replaced stops.)
                self.trace_check = None;
                let done = move |r| report(Report::Trace(id, r));
                match check_trace(&text, done.clone()) {
                    Ok(w) => self.trace_check = Some((id, w)),
                    Err(e) => done(Err(e)),
                }
            }
            Effect::StopTraceCheck => self.trace_check = None,
            Effect::CheckHistory {
                id,
                doc,
                target,
                hash,
            } => {
                self.history_check = None;
                let to = move |r| report(Report::History(id, r));
                match check_history(&doc, target, &hash, to.clone()) {
                    Ok(w) => self.history_check = Some((id, w)),
                    Err(e) => to(HistoryReport::Done(Err(e))),
                }
            }
            // (Also after its answer: the check is over.)
            Effect::StopHistoryCheck => self.history_check = None,
            other => return Ok(Some(other)),
        }
        Ok(None)
    }

    /// A report come: the command it makes for the page. A trace check that answered stops
    /// its worker (a newer check's goes on).
    pub fn reported(&mut self, report: Report) -> Command {
        match report {
            Report::Hunt(data) => {
                Command::HuntReport(serde_wasm_bindgen::from_value(data).unwrap_or_else(|e| {
                    WorkerReport {
                        kind: "error".into(),
                        message: e.to_string(),
                        ..Default::default()
                    }
                }))
            }
            Report::Trace(id, answer) => {
                if self
                    .trace_check
                    .as_ref()
                    .is_some_and(|(running, _)| *running == id)
                {
                    self.trace_check = None;
                }
                Command::TraceChecked(id, answer)
            }
            Report::History(id, r) => Command::HistoryReport(id, r),
        }
    }
}

/// A job in the page's Web Worker; dropping it stops the worker.
pub struct Worker {
    worker: web_sys::Worker,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Its closures go with it: nothing it might still say reaches them.
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

/// Start `job` (its fields beside the name) in a Web Worker (`www/worker.js`) that loads the
/// worker's own module and wasm (`src/worker.rs`, no Yew; Trunk builds them beside the page's as
/// `raftlock-worker.js` and `raftlock-worker_bg.wasm`); each report goes to `report`.
fn start_worker(
    job: &str,
    fields: &[(&str, JsValue)],
    report: impl Fn(JsValue) + Clone + 'static,
) -> Result<Worker, String> {
    let opts = web_sys::WorkerOptions::new();
    opts.set_type(web_sys::WorkerType::Module);
    let worker =
        web_sys::Worker::new_with_options("worker.js", &opts).map_err(|e| format!("{e:?}"))?;
    let r = report.clone();
    let on_message =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            r(e.data())
        });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_e: web_sys::Event| {
        let o = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&o, &"type".into(), &"error".into());
        let _ = js_sys::Reflect::set(&o, &"message".into(), &"the worker could not start".into());
        report(o.into());
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    let msg = js_sys::Object::new();
    let module = [
        ("module", JsValue::from_str("./raftlock-worker.js")),
        ("wasm", JsValue::from_str("./raftlock-worker_bg.wasm")),
        ("job", JsValue::from_str(job)),
    ];
    for (k, v) in module.iter().chain(fields) {
        js_sys::Reflect::set(&msg, &JsValue::from_str(k), v).map_err(|e| format!("{e:?}"))?;
    }
    worker.post_message(&msg).map_err(|e| format!("{e:?}"))?;
    Ok(Worker {
        worker,
        _on_message: on_message,
        _on_error: on_error,
    })
}

/// Start the hunt in the worker: seeds 1..=runs with these switches, in slices of 10.
fn start_hunt(
    switches: &[&'static str],
    runs: u32,
    report: impl Fn(JsValue) + Clone + 'static,
) -> Result<Worker, String> {
    let fields = [
        ("switches", JsValue::from_str(&switches.join(","))),
        ("from", JsValue::from(1)),
        ("runs", JsValue::from(runs)),
        ("slice", JsValue::from(10)),
    ];
    start_worker("hunt", &fields, report)
}

/// Check a trace in the worker; `done` gets its JSON answer (`check::trace::Checked`) or why
/// the worker could not check it.
fn check_trace(
    text: &str,
    done: impl Fn(Result<String, String>) + Clone + 'static,
) -> Result<Worker, String> {
    start_worker(
        "check-trace",
        &[("text", JsValue::from_str(text))],
        move |v| {
            let field = |k: &str| {
                js_sys::Reflect::get(&v, &k.into())
                    .ok()
                    .and_then(|x| x.as_string())
            };
            done(
                match (field("type").as_deref(), field("json"), field("message")) {
                    (Some("checked"), Some(json), _) => Ok(json),
                    (_, _, Some(m)) => Err(m),
                    _ => Err("the worker gave no answer".into()),
                },
            )
        },
    )
}

/// Check the clients' history in the worker; `report` gets its progress and then its JSON
/// answer (`check::history::verdict_to_json`) or why the worker could not check.
fn check_history(
    doc: &str,
    target: u64,
    hash: &str,
    report: impl Fn(HistoryReport) + Clone + 'static,
) -> Result<Worker, String> {
    let fields = [
        ("doc", JsValue::from_str(doc)),
        ("target", JsValue::from_f64(target as f64)),
        ("hash", JsValue::from_str(hash)),
    ];
    start_worker("check-history", &fields, move |v| {
        let get = |k: &str| js_sys::Reflect::get(&v, &k.into()).ok();
        let text = |k: &str| get(k).and_then(|x| x.as_string());
        report(
            match (
                text("type").as_deref(),
                get("events").and_then(|x| x.as_f64()),
            ) {
                (Some("progress"), Some(n)) => HistoryReport::Progress(n as u64),
                (Some("history"), _) => HistoryReport::Done(
                    text("json").ok_or_else(|| "the worker gave no verdict".to_string()),
                ),
                _ => HistoryReport::Done(Err(
                    text("message").unwrap_or_else(|| "the worker gave no answer".into())
                )),
            },
        )
    })
}
