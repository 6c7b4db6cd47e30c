//! Browser tests (wasm-bindgen-test in headless Chromium): the core gives the same trace hash as
//! natively, and the app mounts, renders the cluster and reacts to its controls.
#![cfg(target_arch = "wasm32")]

use raftlock::scenario::{swarm, wide, Scenario};
use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn determinism_example_scenario_has_the_native_golden_hash_in_the_browser() {
    let sc = Scenario::from_json(raftlock::scenario::EXAMPLE_JSON).unwrap();
    let w = raftlock::run_scenario(&sc, true).unwrap();
    assert_eq!(
        w.trace.hash_hex(),
        include_str!("golden/gc-pause.hash").trim()
    );
    assert_eq!(w.trace.to_jsonl(), include_str!("golden/gc-pause.jsonl"));
}

#[wasm_bindgen_test]
fn determinism_swarm_seeds_have_the_native_golden_hashes_in_the_browser() {
    each_golden_seed(include_str!("golden/swarm-hashes.txt"), |seed| {
        let o = swarm::run_one(seed);
        (
            o.ok(),
            o.trace_hash.clone(),
            format!("{:?} {:?}", o.violations, o.convergence),
        )
    });
}

/// The wide swarm draws its documents with integers only: a seed is the same document, and the
/// same run, in the browser as natively (seed 10418 is the ghost-release race of issue 38).
#[wasm_bindgen_test]
fn determinism_wide_swarm_seeds_have_the_native_golden_hashes_in_the_browser() {
    each_golden_seed(include_str!("golden/wide-hashes.txt"), |seed| {
        let o = wide::run_wide(seed);
        (
            o.ok(),
            o.trace_hash.clone(),
            format!("{:?} {:?}", o.violations, o.convergence),
        )
    });
}

/// Run each seed of a golden file: (passes, its trace hash, what went wrong) against the file.
fn each_golden_seed(text: &str, run: impl Fn(u64) -> (bool, String, String)) {
    for (seed, hash) in golden_seeds(text) {
        let (ok, got, why) = run(seed);
        assert!(ok, "seed {seed}: {why}");
        assert_eq!(got, hash, "seed {seed}");
    }
}

/// The lines of a golden file of trace hashes: `SEED HASH`.
fn golden_seeds(text: &str) -> impl Iterator<Item = (u64, &str)> {
    text.lines().map(|line| {
        let (seed, hash) = line.split_once(' ').unwrap();
        (seed.parse().unwrap(), hash)
    })
}

fn doc() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

async fn tick() {
    yew::platform::time::sleep(Duration::from_millis(30)).await;
}

#[wasm_bindgen_test]
async fn app_mounts_and_draws_the_cluster_and_steps_on_click() {
    let root = doc().create_element("div").unwrap();
    doc().body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<raftlock::ui::App>::with_root(root.clone()).render();
    tick().await;
    assert_eq!(
        root.query_selector_all("svg.cluster g.node")
            .unwrap()
            .length(),
        5,
        "five nodes on the ring"
    );
    assert!(root.text_content().unwrap().contains("raftlock"));
    let now = || {
        root.query_selector("#now")
            .unwrap()
            .unwrap()
            .text_content()
            .unwrap()
    };
    assert_eq!(now(), "0.000 s");
    let step: web_sys::HtmlElement = root
        .query_selector("#step-apply")
        .unwrap()
        .unwrap()
        .dyn_into()
        .unwrap();
    step.click();
    tick().await;
    assert_ne!(now(), "0.000 s", "running to the first apply moved time");
    assert!(
        root.query_selector("td.entry.noop").unwrap().is_some(),
        "the leader's no-op is in the log view"
    );
    // The JS handle sees the same state.
    let api = js_sys::Reflect::get(&web_sys::window().unwrap(), &"raftlock".into()).unwrap();
    let f: js_sys::Function = js_sys::Reflect::get(&api, &"act".into())
        .unwrap()
        .dyn_into()
        .unwrap();
    let refused = f
        .call1(&api, &r#"{"do":"set_rate","node":1,"rate_ppm":5}"#.into())
        .unwrap();
    assert!(
        refused.as_string().unwrap().contains("rate_ppm"),
        "an absurd rate is refused with a message"
    );
    tick().await;
    assert!(
        root.query_selector("#error").unwrap().is_some(),
        "and the message is shown"
    );
    assert_eq!(
        root.query_selector_all("svg.cluster g.node")
            .unwrap()
            .length(),
        5,
        "the state is intact"
    );
}
