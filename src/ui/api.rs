//! `window.raftlock`: a small JavaScript handle for tests and tools. `snapshot()` returns the
//! state (roles, terms, logs' indexes, lock tables with countdowns, clocks, clients, storage
//! writes, invariants); the other functions perform what the buttons do and re-render.

use super::app::{App, FrameLog, Msg, Shared};
use crate::scenario::Action;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}
use yew::html::Scope;

fn set(obj: &js_sys::Object, name: &str, f: &JsValue) {
    let _ = js_sys::Reflect::set(obj, &JsValue::from_str(name), f);
}

/// The handle's answer to a call that changes the run: null, or the refusal, also shown in the
/// page (and the state left as it was).
fn answer(l: &Scope<App>, r: Result<(), String>, done: Msg) -> JsValue {
    match r {
        Ok(()) => {
            l.send_message(done);
            JsValue::NULL
        }
        Err(m) => {
            l.send_message(Msg::Error(m.clone()));
            JsValue::from_str(&m)
        }
    }
}

pub fn install(pg: Shared, link: Scope<App>, frames: FrameLog) {
    let obj = js_sys::Object::new();

    // frameWork(): the main thread's work (ms) of each frame played since the last call, as
    // [advance the simulation, build the view, total with the DOM patch]; the rest of a frame is
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
        let s = crate::snapshot::snapshot(&p.borrow().world);
        serde_wasm_bindgen::to_value(&s).unwrap_or(JsValue::NULL)
    });
    set(&obj, "snapshot", snapshot.as_ref());
    snapshot.forget();

    // act(json): one action in the scenario format, e.g. {"do":"crash","node":2}. Returns null
    // or an error message; a refused action leaves the state as it was.
    let (p, l) = (pg.clone(), link.clone());
    let act = Closure::<dyn Fn(String) -> JsValue>::new(move |json: String| {
        let action: Action = match serde_json::from_str(&json) {
            Ok(a) => a,
            Err(e) => return answer(&l, Err(format!("That is not an action: {e}")), Msg::Refresh),
        };
        let r = p
            .borrow_mut()
            .act(action)
            .map_err(|e| format!("That action was refused: {e}"));
        answer(&l, r, Msg::Refresh)
    });
    set(&obj, "act", act.as_ref());
    act.forget();

    let (p, l) = (pg.clone(), link.clone());
    let run_to = Closure::<dyn Fn(f64)>::new(move |t_us: f64| {
        let t = if t_us.is_finite() && t_us > 0.0 {
            t_us as u64
        } else {
            0
        };
        p.borrow_mut().advance_to(t, true);
        l.send_message(Msg::Refresh);
    });
    set(&obj, "runTo", run_to.as_ref());
    run_to.forget();

    let l = link.clone();
    let seek = Closure::<dyn Fn(f64)>::new(move |t_us: f64| {
        let t = if t_us.is_finite() && t_us > 0.0 {
            t_us as u64
        } else {
            0
        };
        l.send_message(Msg::Seek(t));
    });
    set(&obj, "seek", seek.as_ref());
    seek.forget();

    let l = link.clone();
    let play = Closure::<dyn Fn(bool)>::new(move |on: bool| l.send_message(Msg::Play(on)));
    set(&obj, "play", play.as_ref());
    play.forget();

    let l = link.clone();
    let step = Closure::<dyn Fn()>::new(move || l.send_message(Msg::Step));
    set(&obj, "step", step.as_ref());
    step.forget();

    let l = link.clone();
    let take_over = Closure::<dyn Fn()>::new(move || l.send_message(Msg::TakeOver));
    set(&obj, "takeOver", take_over.as_ref());
    take_over.forget();

    let l = link.clone();
    let speed = Closure::<dyn Fn(i32)>::new(move |pos: i32| l.send_message(Msg::Speed(pos)));
    set(&obj, "setSpeed", speed.as_ref());
    speed.forget();

    let p = pg.clone();
    let trace = Closure::<dyn Fn() -> String>::new(move || p.borrow().full_trace_jsonl());
    set(&obj, "traceJsonl", trace.as_ref());
    trace.forget();

    // runScenario(json, until_ms): run a document headless and return its trace hash (the
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
        let r = crate::scenario::Scenario::from_json(&json)
            .and_then(crate::playground::Playground::new)
            .map(|new| *p.borrow_mut() = new)
            .map_err(|e| format!("That scenario was refused: {e}"));
        answer(&l, r, Msg::Loaded)
    });
    set(&obj, "loadScenario", load.as_ref());
    load.forget();

    // Benchmarks (scripts/bench.mjs): the native benchmark's workload, timed in the browser.
    let bench = Closure::<dyn Fn(u32) -> JsValue>::new(move |minutes: u32| {
        let sc = crate::bench::bench_scenario(minutes.max(1) as u64 * 60_000);
        let t0 = now_ms();
        let w = crate::bench::run_bench(&sc);
        let ms = now_ms() - t0;
        let out = js_sys::Object::new();
        set(&out, "events", &JsValue::from_f64(w.stats.events as f64));
        set(&out, "ms", &JsValue::from_f64(ms));
        set(&out, "hash", &JsValue::from_str(&w.trace.hash_hex()));
        out.into()
    });
    set(&obj, "bench", bench.as_ref());
    bench.forget();

    // seekBench(minutes, n): a page-like run (checks on, trace kept) of `minutes`, then n seeks to
    // pseudo-random moments; returns each seek's wall time in ms.
    let seek_bench = Closure::<dyn Fn(u32, u32) -> JsValue>::new(move |minutes: u32, n: u32| {
        let sc = crate::bench::bench_scenario(minutes.max(1) as u64 * 60_000);
        let Ok(mut p) = crate::playground::Playground::new(sc) else {
            return JsValue::NULL;
        };
        let end = p.end_us();
        p.advance_to(end, false);
        let mut rng = crate::sim::rng::Rng::new(42);
        let times = js_sys::Array::new();
        for _ in 0..n {
            let t = rng.below(end);
            let t0 = now_ms();
            p.seek(t);
            times.push(&JsValue::from_f64(now_ms() - t0));
        }
        times.into()
    });
    set(&obj, "seekBench", seek_bench.as_ref());
    seek_bench.forget();

    let memory = Closure::<dyn Fn() -> f64>::new(move || {
        wasm_bindgen::memory()
            .dyn_into::<js_sys::WebAssembly::Memory>()
            .map_or(0.0, |m| {
                m.buffer()
                    .dyn_into::<js_sys::ArrayBuffer>()
                    .map_or(0.0, |b| b.byte_length() as f64)
            })
    });
    set(&obj, "memoryBytes", memory.as_ref());
    memory.forget();

    if let Some(w) = web_sys::window() {
        let _ = js_sys::Reflect::set(&w, &JsValue::from_str("raftlock"), &obj);
    }
}
