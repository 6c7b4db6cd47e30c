//! `window.raftlock`: a small JavaScript handle for tests and tools. `snapshot()` returns the
//! state (roles, terms, logs' indexes, lock tables with countdowns, clocks, clients, storage
//! writes, invariants); the other functions send the page model the same [`Command`]s as the
//! buttons and redraw. They finish what they start before they return (a long replay that a
//! button starts goes on in slices; `job()` shows it), except `checkHistory()`, which returns
//! at once and leaves the check to the page's worker, as the button does.

use super::props::FrameLog;
use super::props::Shared;
use crate::lang::t;
use crate::model::Command;
use crate::model::Effect;
use crate::scenario::Action;
use wasm_bindgen::prelude::*;
use yew::Callback;

pub(super) fn set(obj: &js_sys::Object, name: &str, f: &JsValue) {
    let _ = js_sys::Reflect::set(obj, &JsValue::from_str(name), f);
}

/// Apply `cmd` now; then the app carries out its effects and draws. Returns null, or the
/// refusal, which the page also shows (and the state is left as it was).
fn command(page: &Shared, l: &Callback<Vec<Effect>>, cmd: Command) -> JsValue {
    let (fx, refused) = {
        let mut p = page.borrow_mut();
        let before = p.error.take();
        let fx = p.apply(cmd);
        p.finish_jobs();
        let refused = p.error.clone();
        if refused.is_none() {
            p.error = before;
        }
        (fx, refused)
    };
    l.emit(fx);
    refused.map_or(JsValue::NULL, |m| JsValue::from_str(&m))
}

/// A handle function that takes one number (or a bool) and sends the command it makes.
type Simple = (&'static str, fn(f64) -> Command);

/// A moment given from JavaScript: a finite, non-negative number of microseconds.
fn moment(t_us: f64) -> u64 {
    if t_us.is_finite() && t_us > 0.0 {
        t_us as u64
    } else {
        0
    }
}

/// Put the handle on `window`; `applied` carries out a command's effects and redraws.
pub fn install(pg: Shared, link: Callback<Vec<Effect>>, frames: FrameLog) {
    let obj = js_sys::Object::new();

    // frameWork(): the main thread's work (ms) of each frame played since the last call, as
    // [advance the simulation, build the views and patch the DOM, total]; the rest of a frame is
    // the browser's (style, layout, paint).
    let frame_work = Closure::<dyn Fn() -> JsValue>::new(move || {
        let a = js_sys::Array::new();
        for x in frames.borrow_mut().drain(..) {
            a.push(
                &x.iter()
                    .map(|v| JsValue::from_f64(*v))
                    .collect::<js_sys::Array>(),
            );
        }
        a.into()
    });
    set(&obj, "frameWork", frame_work.as_ref());
    frame_work.forget();

    let p = pg.clone();
    let snapshot = Closure::<dyn Fn() -> JsValue>::new(move || {
        let s = crate::snapshot::snapshot(&p.borrow().playground.world);
        serde_wasm_bindgen::to_value(&s).unwrap_or(JsValue::NULL)
    });
    set(&obj, "snapshot", snapshot.as_ref());
    snapshot.forget();

    // twin(): the safe twin's snapshot() (the same document with the safeguard the other way,
    // at the same true time), or null when the stage shows none.
    let p = pg.clone();
    let twin = Closure::<dyn Fn() -> JsValue>::new(move || match &p.borrow().twin {
        Some(t) => serde_wasm_bindgen::to_value(&crate::snapshot::snapshot(&t.playground.world))
            .unwrap_or(JsValue::NULL),
        None => JsValue::NULL,
    });
    set(&obj, "twin", twin.as_ref());
    twin.forget();

    // lesson(): where the lesson stands, {pos, count, caption, next, focus, facts: [{what, ok}],
    // question: {caption, prompt, choices, state: asking|settled, answer, picked, checked} or
    // null, score: {right, answered, questions} or null}, or null.
    let p = pg.clone();
    let lesson = Closure::<dyn Fn() -> JsValue>::new(move || {
        let page = p.borrow();
        let Some(v) = page.lesson_view() else {
            return JsValue::NULL;
        };
        let f = page.focus();
        let out = serde_json::json!({
            "pos": v.pos, "count": v.count, "caption": v.caption, "next": v.next,
            "focus": { "nodes": f.nodes.iter().map(|i| i + 1).collect::<Vec<_>>(), "clients": f.clients, "storage": f.storage, "keys": f.keys, "log": f.log },
            "facts": v.facts.iter().map(|(what, ok)| serde_json::json!({ "what": what, "ok": ok })).collect::<Vec<_>>(),
            "question": v.question.as_ref().map(|q| {
                let (state, answer, picked) = match &q.state {
                    crate::model::quiz::QuestionState::Asking => ("asking", None, None),
                    crate::model::quiz::QuestionState::Settled { answer, picked, .. } => ("settled", Some(*answer), *picked),
                };
                serde_json::json!({ "caption": q.caption, "prompt": q.prompt, "choices": q.choices, "state": state,
                    "answer": answer, "picked": picked, "checked": q.checked })
            }),
            "score": v.score.map(|(right, answered, questions)| serde_json::json!({ "right": right, "answered": answered, "questions": questions })),
        });
        js_sys::JSON::parse(&out.to_string()).unwrap_or(JsValue::NULL)
    });
    set(&obj, "lesson", lesson.as_ref());
    lesson.forget();

    // act(json): one action in the scenario format, e.g. {"do":"crash","node":2}. Returns null
    // or an error message; a refused action leaves the state as it was.
    let (p, l) = (pg.clone(), link.clone());
    let act = Closure::<dyn Fn(String) -> JsValue>::new(move |json: String| {
        match serde_json::from_str::<Action>(&json) {
            Ok(a) => command(&p, &l, Command::Act(a)),
            Err(e) => {
                let lang = p.borrow().lang;
                command(
                    &p,
                    &l,
                    Command::Error(t!(lang, "That is not an action: {e}")),
                )
            }
        }
    });
    set(&obj, "act", act.as_ref());
    act.forget();

    let (p, l) = (pg.clone(), link.clone());
    let run_to = Closure::<dyn Fn(f64)>::new(move |t_us: f64| {
        command(&p, &l, Command::RunTo(moment(t_us)));
    });
    set(&obj, "runTo", run_to.as_ref());
    run_to.forget();

    let (p, l) = (pg.clone(), link.clone());
    let seek = Closure::<dyn Fn(f64)>::new(move |t_us: f64| {
        command(&p, &l, Command::Seek(moment(t_us)));
    });
    set(&obj, "seek", seek.as_ref());
    seek.forget();

    // command-like calls without an argument or with a simple one.
    let simple: [Simple; 8] = [
        ("step", |_| Command::Step),
        ("takeOver", |_| Command::TakeOver),
        ("lessonNext", |_| Command::LessonNext),
        ("lessonBack", |_| Command::LessonBack),
        ("setSpeed", |pos| {
            Command::Speed(if pos.is_finite() { pos as i32 } else { 0 })
        }),
        ("presenter", |on| Command::Presenter(on != 0.0)),
        // answer(k): the open question's choice k, from 0 (anything else gets a message).
        ("answer", |k| {
            Command::Answer(if (0.0..100.0).contains(&k) {
                k as usize
            } else {
                usize::MAX
            })
        }),
        ("reveal", |_| Command::Reveal),
    ];
    for (name, make) in simple {
        let (p, l) = (pg.clone(), link.clone());
        let f = Closure::<dyn Fn(JsValue) -> JsValue>::new(move |arg: JsValue| {
            let x = arg
                .as_f64()
                .or_else(|| arg.as_bool().map(|b| b as u8 as f64))
                .unwrap_or(0.0);
            command(&p, &l, make(x))
        });
        set(&obj, name, f.as_ref());
        f.forget();
    }

    // loading(): the built-in whose file the page is fetching to open it, or null.
    let p = pg.clone();
    let loading = Closure::<dyn Fn() -> JsValue>::new(move || {
        p.borrow()
            .library
            .loading
            .as_deref()
            .map_or(JsValue::NULL, JsValue::from_str)
    });
    set(&obj, "loading", loading.as_ref());
    loading.forget();

    // lang(): the page's language, "en" or "ru". setLang(code): switch it, as the bar's menu does
    // (a code the page does not have gets a message and changes nothing). The first switch to
    // Russian fetches its texts: lang() says "ru" once they came.
    let p = pg.clone();
    let lang =
        Closure::<dyn Fn() -> JsValue>::new(move || JsValue::from_str(p.borrow().lang.code()));
    set(&obj, "lang", lang.as_ref());
    lang.forget();
    let (p, l) = (pg.clone(), link.clone());
    let set_lang = Closure::<dyn Fn(String) -> JsValue>::new(move |code: String| {
        let cmd = match crate::lang::Lang::parse(&code) {
            Some(lang) => Command::SetLang(lang),
            None => {
                let lang = p.borrow().lang;
                Command::Error(t!(
                    lang,
                    "There is no language \"{code}\": the page has en and ru."
                ))
            }
        };
        command(&p, &l, cmd)
    });
    set(&obj, "setLang", set_lang.as_ref());
    set_lang.forget();

    let (p, l) = (pg.clone(), link.clone());
    let play = Closure::<dyn Fn(bool)>::new(move |on: bool| {
        command(&p, &l, Command::Play(on));
    });
    set(&obj, "play", play.as_ref());
    play.forget();

    // job(): {jobs: [{kind, fraction, reached, line, events, eventsPerS, virtualPerS, leftMs,
    // announced, stopped}] (empty when none), announcement, busy, snapshots: the moments the
    // scrubber's snapshots hold (a seek replays from the latest before its moment)}.
    let p = pg.clone();
    let job = Closure::<dyn Fn() -> JsValue>::new(move || {
        js_sys::JSON::parse(&p.borrow().job_report().to_string()).unwrap_or(JsValue::NULL)
    });
    set(&obj, "job", job.as_ref());
    job.forget();

    // slices(): the slices of long work (a replay, a lesson's walk, a trace read, the twin
    // catching up) since the last call, as the page's own clock measured them: {count,
    // longestMs, budgetMs}. A test asks that the work was split, not how long the machine took.
    let p = pg.clone();
    let slices = Closure::<dyn Fn() -> JsValue>::new(move || {
        let s = p.borrow_mut().take_slices();
        let v = serde_json::json!({ "count": s.count, "longestMs": s.longest_ms, "budgetMs": s.budget_ms });
        js_sys::JSON::parse(&v.to_string()).unwrap_or(JsValue::NULL)
    });
    set(&obj, "slices", slices.as_ref());
    slices.forget();

    // jobCommand(name): "cancel", "go", "atStart", "cancelCheck" or "cancelRead", as the progress
    // bar's buttons (a Go does not finish the replay before it returns).
    let p = pg.clone();
    let l = link.clone();
    let job_command = Closure::<dyn Fn(String) -> JsValue>::new(move |name: String| {
        let Some(c) = crate::model::job::JobCommand::from_name(&name) else {
            return JsValue::from_str("unknown job command");
        };
        let fx = p.borrow_mut().apply(Command::Job(c));
        l.emit(fx);
        JsValue::NULL
    });
    set(&obj, "jobCommand", job_command.as_ref());
    job_command.forget();

    // trace(): the open trace (*Open a trace*) or null: {name, lines, at, line (the file's line
    // reached), check (running, done or failed: the worker's check), ok (null until done),
    // findings: [{line, rule}], notChecked, nodes: {n: {role, term, locks: {key: [holder,
    // token]}}}}.
    let p = pg.clone();
    let trace_fn = Closure::<dyn Fn() -> JsValue>::new(move || {
        let page = p.borrow();
        let Some(v) = &page.traces.open else {
            return JsValue::NULL;
        };
        js_sys::JSON::parse(&v.summary().to_string()).unwrap_or(JsValue::NULL)
    });
    set(&obj, "trace", trace_fn.as_ref());
    trace_fn.forget();

    // checkHistory(): as the button: the page's worker checks; job() shows it.
    let (p, l) = (pg.clone(), link.clone());
    let check = Closure::<dyn Fn()>::new(move || {
        let fx = p.borrow_mut().apply(Command::CheckHistory);
        l.emit(fx);
    });
    set(&obj, "checkHistory", check.as_ref());
    check.forget();

    let p = pg.clone();
    let trace =
        Closure::<dyn Fn() -> String>::new(move || p.borrow().playground.full_trace_jsonl());
    set(&obj, "traceJsonl", trace.as_ref());
    trace.forget();

    // runScenario(json): run a document headless and return its trace hash (the
    // determinism check between native and browser).
    let run = Closure::<dyn Fn(String) -> String>::new(move |json: String| {
        match crate::scenario::Scenario::from_json(&json) {
            Ok(sc) => crate::run_scenario(&sc, false)
                .map(|w| w.trace.hash_hex())
                .unwrap_or_else(|e| e.to_string()),
            Err(e) => format!("error: {e}"),
        }
    });
    set(&obj, "runScenario", run.as_ref());
    run.forget();

    // loadScenario(json): replace the run with a document; errors leave the current run.
    let (p, l) = (pg, link);
    let load = Closure::<dyn Fn(String) -> JsValue>::new(move |json: String| {
        command(&p, &l, Command::LoadJson(json))
    });
    set(&obj, "loadScenario", load.as_ref());
    load.forget();

    for (name, f) in super::api_bench::functions() {
        set(&obj, name, &f);
    }

    if let Some(w) = web_sys::window() {
        let _ = js_sys::Reflect::set(&w, &JsValue::from_str("raftlock"), &obj);
    }
}
