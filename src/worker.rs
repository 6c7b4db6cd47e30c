//! The page's second wasm module, for its Web Worker (`www/worker.js`): the heavy work from the
//! core, without Yew and the views, so the page's module does not carry it and the page keeps
//! its frame rate while it runs:
//! - the hunt: random fault schedules and the shrinking of a failing one;
//! - *Open a trace*'s check against the seed's rules (`raftlock check`, the same code).
//!
//! Trunk builds it beside the page's (index.html, `data-type="worker"`) as `raftlock-worker.js`
//! and `raftlock-worker_bg.wasm`, fetched only when a job starts (and precached for offline use).

/// The hunt, one slice at a time, for the worker: `switches` comma-separated, seeds
/// `from..from + runs`. Answers JSON `{"runs","events","failed":[seed, invariant]|null}` or
/// `{"error"}`.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hunt_batch(switches: &str, from: u32, runs: u32) -> String {
    let names: Vec<&str> = switches.split(',').filter(|s| !s.is_empty()).collect();
    match raftlock_core::scenario::hunt::hunt_batch(&names, from as u64, runs as u64) {
        Ok(b) => serde_json::to_string(&b).unwrap_or_default(),
        Err(e) => serde_json::json!({ "error": e }).to_string(),
    }
}

/// Shrink a failing seed's schedule for the worker: JSON `{"invariant","detail","seed",
/// "original_actions","actions","scenario"}` (the scenario document as JSON text) or `{"error"}`.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hunt_shrink(switches: &str, seed: u32) -> String {
    let names: Vec<&str> = switches.split(',').filter(|s| !s.is_empty()).collect();
    match raftlock_core::scenario::hunt::shrink_seed(&names, seed as u64) {
        Ok(Some(f)) => serde_json::json!({
            "invariant": f.invariant,
            "detail": f.detail.en,
            "detail_ru": f.detail.ru,
            "seed": f.seed,
            "original_actions": f.original_actions,
            "actions": f.shrunk.timeline.len(),
            "scenario": f.shrunk.to_json(),
        })
        .to_string(),
        Ok(None) => {
            serde_json::json!({ "error": format!("seed {seed} no longer fails") }).to_string()
        }
        Err(e) => serde_json::json!({ "error": e }).to_string(),
    }
}

/// Check a trace's text: JSON `{"report": …}` or `{"refused": {"line", "message"}}`
/// (`check::trace::Checked`, which the page reads back).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn check_trace(text: &str) -> String {
    raftlock_core::check::trace::Checked::of_text_json(text)
}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("raftlock-worker is the page's Web Worker module: `make build` builds it with the page. The native CLI is `raftlock hunt` and `raftlock check`.");
}
