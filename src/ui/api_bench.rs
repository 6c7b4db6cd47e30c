//! The benchmarks' part of `window.raftlock` (scripts/bench.mjs): the native benchmark's
//! workloads timed in the browser, and the wasm memory's size.

use super::effects::now_ms;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// One field of a result object.
fn put(obj: &js_sys::Object, name: &str, v: &JsValue) {
    let _ = js_sys::Reflect::set(obj, &JsValue::from_str(name), v);
}

/// The benchmarks' functions, by the name the handle gives each (`api.rs` puts them on it).
pub fn functions() -> [(&'static str, JsValue); 3] {
    // Benchmarks (scripts/bench.mjs): the native benchmark's workload, timed in the browser.
    let bench = Closure::<dyn Fn(u32) -> JsValue>::new(move |minutes: u32| {
        let sc = crate::bench::bench_scenario(minutes.max(1) as u64 * 60_000);
        let t0 = now_ms();
        let w = crate::bench::run_bench(&sc);
        let ms = now_ms() - t0;
        let out = js_sys::Object::new();
        put(&out, "events", &JsValue::from_f64(w.stats.events as f64));
        put(&out, "ms", &JsValue::from_f64(ms));
        put(&out, "hash", &JsValue::from_str(&w.trace.hash_hex()));
        out.into()
    });

    // seekBench(minutes, n): a page-like run (checks on, trace kept) of `minutes`, then n seeks to
    // pseudo-random moments; returns each seek's wall time in ms.
    let seek_bench = Closure::<dyn Fn(u32, u32) -> JsValue>::new(move |minutes: u32, n: u32| {
        let sc = crate::bench::bench_scenario(minutes.max(1) as u64 * 60_000);
        let Ok(mut p) = crate::playground::Playground::new(sc) else {
            return JsValue::NULL;
        };
        let end = p.end_us();
        p.advance_to(end, false);
        let mut rng = crate::rng::Rng::new(42);
        let times = js_sys::Array::new();
        for _ in 0..n {
            let t = rng.below(end);
            let t0 = now_ms();
            p.seek(t);
            times.push(&JsValue::from_f64(now_ms() - t0));
        }
        times.into()
    });

    let memory = Closure::<dyn Fn() -> f64>::new(move || {
        wasm_bindgen::memory()
            .dyn_into::<js_sys::WebAssembly::Memory>()
            .map_or(0.0, |m| {
                m.buffer()
                    .dyn_into::<js_sys::ArrayBuffer>()
                    .map_or(0.0, |b| b.byte_length() as f64)
            })
    });
    [
        ("bench", bench.into_js_value()),
        ("seekBench", seek_bench.into_js_value()),
        ("memoryBytes", memory.into_js_value()),
    ]
}
