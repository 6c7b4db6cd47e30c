//! The page's second wasm module, for its Web Worker (`www/worker.js`): the heavy work from the
//! core, without Yew and the views, so the page's module does not carry it and the page keeps
//! its frame rate while it runs:
//! - the hunt: random fault schedules and the shrinking of a failing one;
//! - *Open a trace*'s check against the seed's rules (`raftlock check`, the same code);
//! - the clients' history check: a replay of the run's document to the event asked, in slices,
//!   then its verdict;
//! - `make bench`'s history workload in the browser (scripts/bench.mjs loads this module).
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

/// The clients' history check of a run: its document replayed to its `target`-th event in
/// slices (the worker tells the page how far it got between them), then the verdict.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub struct HistoryCheck(raftlock_core::playground::HistoryReplay);

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
impl HistoryCheck {
    /// `doc`: the run's document (JSON); `target`: the count of events the check covers.
    #[wasm_bindgen::prelude::wasm_bindgen(constructor)]
    pub fn new(doc: &str, target: f64) -> Result<HistoryCheck, String> {
        let sc = raftlock_core::scenario::Scenario::from_json(doc).map_err(|e| e.to_string())?;
        raftlock_core::playground::HistoryReplay::of_document(&sc, target as u64)
            .map(HistoryCheck)
            .map_err(|e| e.to_string())
    }

    /// At most `events` more events; true when the replay reached its target.
    pub fn slice(&mut self, events: u32) -> bool {
        self.0.slice(events)
    }

    /// Events replayed so far.
    pub fn events(&self) -> f64 {
        self.0.world.stats.events as f64
    }

    /// The verdict at the target (`check::history::verdict_to_json`), once the replay is the
    /// page's run (its trace hash is `run_hash`); else it throws why not.
    pub fn verdict(&self, run_hash: &str) -> Result<String, String> {
        self.0.verdict_json(run_hash)
    }
}

/// `make bench`'s history workload (5 nodes, 16 clients on 4 keys, `minutes` of virtual time)
/// run with every check on, then its clients' history checked: JSON `{"events", "simulateMs",
/// "checkMs", "holds"}`.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn history_bench(minutes: u32) -> String {
    use raftlock_core::bench;
    // performance.now(), on the page or in a worker (Date.now() counts whole ms).
    let perf = js_sys::Reflect::get(&js_sys::global(), &"performance".into()).ok();
    let now_fn = perf
        .as_ref()
        .and_then(|p| js_sys::Reflect::get(p, &"now".into()).ok())
        .and_then(|f| wasm_bindgen::JsCast::dyn_into::<js_sys::Function>(f).ok());
    let now = || match (&now_fn, &perf) {
        (Some(f), Some(p)) => f.call0(p).ok().and_then(|v| v.as_f64()).unwrap_or(0.0),
        _ => js_sys::Date::now(),
    };
    let sc = bench::history_scenario(minutes.max(1) as u64 * 60_000);
    let t0 = now();
    let w = bench::run_checked(&sc);
    let t1 = now();
    let verdict = w.history_verdict();
    let t2 = now();
    let holds = verdict.and_then(|v| v.ok()).map_or(0, |h| h.len());
    serde_json::json!({
        "events": w.stats.events, "simulateMs": t1 - t0, "checkMs": t2 - t1, "holds": holds,
    })
    .to_string()
}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("raftlock-worker is the page's Web Worker module: `make build` builds it with the page. The native CLI is `raftlock hunt` and `raftlock check`.");
}
