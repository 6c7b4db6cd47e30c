//! The hunt's own wasm module, for its Web Worker (`www/hunt-worker.js`): the random fault
//! schedules and their shrinking from the core, without Yew and the views, so the page's module
//! does not carry them. Trunk builds it beside the page's (index.html, `data-type="worker"`) as
//! `raftlock-hunt.js` and `raftlock-hunt_bg.wasm`, fetched only when a hunt starts.

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

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("raftlock-hunt is the browser's hunt worker: `make build` builds it with the page. The native CLI is `raftlock hunt`.");
}
