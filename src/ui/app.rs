//! The root component. The simulation advances in bounded batches inside requestAnimationFrame.

use super::{api, views};
use crate::playground::Playground;
use crate::scenario::{Action, Scenario, PLAYGROUND_JSON};
use gloo::events::{EventListener, EventListenerOptions};
use gloo::render::{request_animation_frame, AnimationFrame};
use std::cell::RefCell;
use std::rc::Rc;
pub use views::Verdict;
use wasm_bindgen::JsCast;
use yew::prelude::*;

pub type Shared = Rc<RefCell<Playground>>;
/// The main thread's work per played frame in ms, [advance, view, total with the DOM patch], the latest
/// `FRAME_LOG_MAX`: `window.raftlock.frameWork()` reads and clears it.
pub type FrameLog = Rc<RefCell<std::collections::VecDeque<[f64; 3]>>>;
const FRAME_LOG_MAX: usize = 1000;

/// The speed slider's stops (in millionths of real time): 1/100× to 100×, logarithmic.
pub const SPEED_STOPS: [u64; 13] = [
    10_000,
    20_000,
    50_000,
    100_000,
    200_000,
    500_000,
    1_000_000,
    2_000_000,
    5_000_000,
    10_000_000,
    20_000_000,
    50_000_000,
    100_000_000,
];

/// Virtual microseconds per real millisecond at slider stop `pos` (× 1000 = ppm of real time).
pub fn speed_of(pos: i32) -> u64 {
    SPEED_STOPS[pos.clamp(0, SPEED_STOPS.len() as i32 - 1) as usize]
}

pub enum Msg {
    Frame(f64),
    TogglePlay,
    Play(bool),
    Step,
    StepBack,
    StepApply,
    Speed(i32),
    Seek(u64),
    TakeOver,
    Restart,
    NewSeed,
    Nodes(usize),
    Act(Action),
    Key(String),
    Help(bool),
    Presenter,
    LogFrom(Option<u64>),
    Refresh,
    /// The JavaScript handle put a new run in `pg`: reset what belonged to the old one.
    Loaded,
    DismissError,
    Error(String),
    /// The URL fragment changed (a pasted share link).
    LoadHash,
    /// Turn a design switch on or off: the run restarts with the changed document.
    SetSwitch(&'static str, bool),
    /// A Raft setting typed into the page (`max_batch`, `snapshot_every`): the run restarts with
    /// it, or the value is refused with a message and the run stays as it is.
    SetRaft(&'static str, String),
    /// Text typed into a Raft setting, not yet committed (Enter or leaving the field does).
    RaftDraft(&'static str, String),
    LoadBuiltin(String),
    /// Check what the clients observed against a mutex with leases.
    CheckHistory,
    /// Show or hide the page listing every built-in scenario.
    ScenarioList(bool),
    /// Side by side: the same document with this switch flipped, advancing together (None closes).
    Compare(Option<&'static str>),
    LessonNext,
    LessonBack,
    Share,
    Export(&'static str),
    ImportFile(web_sys::File),
    Imported(Result<String, String>),
    /// "Find a bug": hunt with the current switches over this many random schedules.
    HuntStart(u32),
    HuntCancel,
    /// A message from the hunt's worker.
    HuntReport(wasm_bindgen::JsValue),
}

/// What the hunt's worker reports (see `www/hunt-worker.js`).
#[derive(serde::Deserialize, Default, Debug)]
#[serde(default)]
struct WorkerReport {
    #[serde(rename = "type")]
    kind: String,
    done: u64,
    events: f64,
    seed: u64,
    invariant: String,
    detail: String,
    original_actions: usize,
    actions: usize,
    scenario: String,
    message: String,
}

#[derive(Clone, Debug, PartialEq)]
pub enum HuntPhase {
    Running,
    Shrinking {
        seed: u64,
        invariant: String,
    },
    Found {
        seed: u64,
        invariant: String,
        detail: String,
        original_actions: usize,
        actions: usize,
    },
    NoViolation,
    Failed(String),
}

/// The counterexample hunt running in a Web Worker (or its last outcome).
pub struct Hunt {
    pub switches: Vec<&'static str>,
    pub runs: u64,
    pub done: u64,
    pub events: u64,
    pub phase: HuntPhase,
    worker: Option<web_sys::Worker>,
    _on_message: Option<wasm_bindgen::closure::Closure<dyn FnMut(web_sys::MessageEvent)>>,
}

impl Drop for Hunt {
    fn drop(&mut self) {
        if let Some(w) = &self.worker {
            w.terminate();
        }
    }
}

/// The absolute URL in the `href` of the first element matching `selector`.
fn linked_url(selector: &str) -> Option<String> {
    let doc = web_sys::window()?.document()?;
    let href = doc.query_selector(selector).ok()??.get_attribute("href")?;
    let base = location()?.href().ok()?;
    web_sys::Url::new_with_base(&href, &base)
        .ok()
        .map(|u| u.href())
}

fn start_worker(
    link: &yew::html::Scope<App>,
    switches: &[&'static str],
    runs: u32,
) -> Result<Hunt, String> {
    use wasm_bindgen::JsCast;
    // The app's own JS module and wasm (Trunk names them with a hash and preloads both).
    let module = linked_url("link[rel=modulepreload]").ok_or("the page's module was not found")?;
    let wasm = linked_url("link[rel=preload][type='application/wasm']")
        .ok_or("the page's wasm was not found")?;
    let opts = web_sys::WorkerOptions::new();
    opts.set_type(web_sys::WorkerType::Module);
    let worker =
        web_sys::Worker::new_with_options("hunt-worker.js", &opts).map_err(|e| format!("{e:?}"))?;
    let l = link.clone();
    let on_message = wasm_bindgen::closure::Closure::<dyn FnMut(web_sys::MessageEvent)>::new(
        move |e: web_sys::MessageEvent| {
            l.send_message(Msg::HuntReport(e.data()));
        },
    );
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    let l = link.clone();
    let on_error = wasm_bindgen::closure::Closure::<dyn FnMut(web_sys::Event)>::new(
        move |_e: web_sys::Event| {
            let o = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&o, &"type".into(), &"error".into());
            let _ =
                js_sys::Reflect::set(&o, &"message".into(), &"the worker could not start".into());
            l.send_message(Msg::HuntReport(o.into()));
        },
    );
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget(); // one small closure per hunt started
    let msg = serde_json::json!({ "module": module, "wasm": wasm, "switches": switches.join(","), "from": 1, "runs": runs, "slice": 10 });
    let js = js_sys::JSON::parse(&msg.to_string()).map_err(|e| format!("{e:?}"))?;
    worker.post_message(&js).map_err(|e| format!("{e:?}"))?;
    Ok(Hunt {
        switches: switches.to_vec(),
        runs: runs as u64,
        done: 0,
        events: 0,
        phase: HuntPhase::Running,
        worker: Some(worker),
        _on_message: Some(on_message),
    })
}

pub struct App {
    pub pg: Shared,
    pub playing: bool,
    pub speed_pos: i32,
    last_ts: Option<f64>,
    carry_us: f64,
    raf: Option<AnimationFrame>,
    _keys: EventListener,
    pub error: Option<String>,
    pub help: bool,
    pub presenter: bool,
    pub log_from: Option<u64>,
    pub stopped_at: Option<String>,
    /// Work time of recent frames in ms (shown in the status line and read by the e2e test).
    pub frame_work_ms: f64,
    /// When the frame being drawn started (set by a played frame, taken after its render).
    frame_t0: Option<f64>,
    frame_log: FrameLog,
    /// How long the latest `view` took (ms).
    view_ms: std::cell::Cell<f64>,
    /// Whether each of [`LAZY_PANELS`] is on screen (an IntersectionObserver keeps it), and the
    /// tick each was last drawn at: while playing with a panel off screen its tick stays, and
    /// the panel is neither rebuilt nor diffed.
    on_screen: Rc<[std::cell::Cell<bool>; LAZY_PANELS.len()]>,
    ticks: [std::cell::Cell<u64>; LAZY_PANELS.len()],
    _observer: Option<(
        web_sys::IntersectionObserver,
        wasm_bindgen::closure::Closure<dyn FnMut(js_sys::Array)>,
    )>,
    /// Lesson mode: how many captions have been reached, and when each was.
    pub lesson_pos: usize,
    pub caption_times: Vec<u64>,
    pub share_url: Option<String>,
    pub list_open: bool,
    /// The last history check: (moment checked, verdict).
    pub history: Option<(u64, Option<Rc<Verdict>>)>,
    /// The second pane of the side-by-side view and the switch it flips.
    pub compare: Option<(Shared, &'static str)>,
    _hash: EventListener,
    reader: Option<gloo::file::callbacks::FileReader>,
    pub hunt: Option<Hunt>,
    /// A Raft setting being typed: the field shows this text until its change event, so that
    /// frames drawn meanwhile (while playing) do not put the current value back.
    pub raft_draft: Option<(&'static str, String)>,
}

fn default_scenario() -> Scenario {
    Scenario::from_json(PLAYGROUND_JSON).expect("the built-in playground scenario is valid")
}

fn location() -> Option<web_sys::Location> {
    web_sys::window().map(|w| w.location())
}

/// What the URL fragment asks for: a share link (`#v1.…`), a built-in (`#scenario=NAME`), or
/// nothing. Errors are messages for the page.
fn playground_from_hash() -> Result<Option<Playground>, String> {
    let hash = location().and_then(|l| l.hash().ok()).unwrap_or_default();
    let frag = hash.trim_start_matches('#');
    if frag.is_empty() || frag == "scenarios" {
        return Ok(None);
    }
    if let Some(name) = frag.strip_prefix("scenario=") {
        let sc = crate::scenario::builtin::get(name)
            .ok_or_else(|| format!("There is no built-in scenario \"{name}\"."))?;
        return Playground::new(sc).map(Some).map_err(|e| e.to_string());
    }
    let shared = crate::scenario::link::decode(frag).map_err(|e| {
        format!("This link could not be opened: {e}. The default scenario is shown instead.")
    })?;
    let mut pg = Playground::new(shared.scenario).map_err(|e| e.to_string())?;
    pg.advance_to(shared.moment_us, false);
    Ok(Some(pg))
}

fn download(name: &str, text: &str, mime: &str) -> Result<(), wasm_bindgen::JsValue> {
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let a: web_sys::HtmlAnchorElement = doc.create_element("a")?.dyn_into()?;
    a.set_href(&url);
    a.set_download(name);
    a.click();
    web_sys::Url::revoke_object_url(&url)
}

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

impl App {
    fn replace(&mut self, pg: Playground) {
        *self.pg.borrow_mut() = pg;
        self.reset_run_state();
    }

    /// Forget what belonged to the previous run (lesson position, comparison, history verdict,
    /// share link, a violation banner); the run itself is already in `pg`.
    fn reset_run_state(&mut self) {
        self.compare = None;
        self.history = None;
        self.stopped_at = None;
        self.log_from = None;
        self.lesson_pos = 0;
        self.caption_times.clear();
        self.share_url = None;
        self.playing = false;
        self.raft_draft = None;
    }

    fn start_frames(&mut self, ctx: &Context<Self>) {
        if self.raf.is_none() {
            let link = ctx.link().clone();
            self.raf = Some(request_animation_frame(move |ts| {
                link.send_message(Msg::Frame(ts))
            }));
        }
    }

    fn act(&mut self, a: Action) {
        let r = self.pg.borrow_mut().act(a);
        if let Err(e) = r {
            self.error = Some(format!("That action was refused: {e}"));
        }
    }
}

/// The panels (by element id) drawn during play only while on screen: the log (the page's
/// largest table), the space-time diagram, the event list and the clocks table.
pub const LAZY_PANELS: [&str; 4] = [
    "log-panel",
    "spacetime-panel",
    "events-panel",
    "clocks-panel",
];

/// Watch whether each of [`LAZY_PANELS`] is on screen (with a margin, so that it is drawn
/// before it scrolls in); a change re-renders the page.
fn observe_panels(
    on_screen: Rc<[std::cell::Cell<bool>; LAZY_PANELS.len()]>,
    link: yew::html::Scope<App>,
) -> Option<(
    web_sys::IntersectionObserver,
    wasm_bindgen::closure::Closure<dyn FnMut(js_sys::Array)>,
)> {
    let doc = web_sys::window()?.document()?;
    let cb = wasm_bindgen::closure::Closure::<dyn FnMut(js_sys::Array)>::new(
        move |entries: js_sys::Array| {
            let mut changed = false;
            for e in entries.iter() {
                if let Ok(e) = e.dyn_into::<web_sys::IntersectionObserverEntry>() {
                    let id = e.target().id();
                    if let Some(i) = LAZY_PANELS.iter().position(|p| *p == id) {
                        changed |= on_screen[i].replace(e.is_intersecting()) != e.is_intersecting();
                    }
                }
            }
            if changed {
                link.send_message(Msg::Refresh);
            }
        },
    );
    let init = web_sys::IntersectionObserverInit::new();
    init.set_root_margin("300px");
    let obs =
        web_sys::IntersectionObserver::new_with_options(cb.as_ref().unchecked_ref(), &init).ok()?;
    for id in LAZY_PANELS {
        if let Some(panel) = doc.get_element_by_id(id) {
            obs.observe(&panel);
        }
    }
    Some((obs, cb))
}

impl App {
    /// The drawing tick of the panel with element id `id` (one of [`LAZY_PANELS`]) for this
    /// render: it advances, unless the run is playing with the panel off screen.
    pub fn panel_tick(&self, id: &str) -> u64 {
        let i = LAZY_PANELS
            .iter()
            .position(|p| *p == id)
            .expect("a lazy panel");
        if !(self.playing && !self.on_screen[i].get()) {
            self.ticks[i].set(self.ticks[i].get() + 1);
        }
        self.ticks[i].get()
    }
}

impl Component for App {
    type Message = Msg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        let (first, error) = match playground_from_hash() {
            Ok(Some(pg)) => (pg, None),
            Ok(None) => (Playground::new(default_scenario()).expect("valid"), None),
            Err(e) => (Playground::new(default_scenario()).expect("valid"), Some(e)),
        };
        let pg: Shared = Rc::new(RefCell::new(first));
        let frame_log: FrameLog = Rc::default();
        api::install(pg.clone(), ctx.link().clone(), frame_log.clone());
        let link = ctx.link().clone();
        let doc = web_sys::window()
            .and_then(|w| w.document())
            .expect("a document");
        let opts = EventListenerOptions::enable_prevent_default();
        let keys = EventListener::new_with_options(&doc, "keydown", opts, move |e| {
            let Some(e) = e.dyn_ref::<web_sys::KeyboardEvent>() else {
                return;
            };
            if e.ctrl_key() || e.meta_key() || e.alt_key() {
                return;
            }
            let tag = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .map(|el| el.tag_name())
                .unwrap_or_default();
            if tag == "SELECT" || tag == "TEXTAREA" || (tag == "INPUT" && e.key() != "Escape") {
                return;
            }
            let key = e.key();
            if matches!(
                key.as_str(),
                " " | "ArrowRight" | "ArrowLeft" | "?" | "a" | "p" | "Escape" | "t"
            ) {
                e.prevent_default();
                link.send_message(Msg::Key(key));
            }
        });
        let l = ctx.link().clone();
        let win = web_sys::window().expect("a window");
        let hash = EventListener::new(&win, "hashchange", move |_| l.send_message(Msg::LoadHash));
        App {
            lesson_pos: 0,
            caption_times: Vec::new(),
            share_url: None,
            compare: None,
            history: None,
            list_open: location()
                .and_then(|l| l.hash().ok())
                .is_some_and(|h| h == "#scenarios"),
            _hash: hash,
            reader: None,
            hunt: None,
            raft_draft: None,
            pg,
            playing: false,
            speed_pos: 2,
            last_ts: None,
            carry_us: 0.0,
            raf: None,
            _keys: keys,
            error,
            help: false,
            presenter: false,
            log_from: None,
            stopped_at: None,
            frame_work_ms: 0.0,
            frame_t0: None,
            frame_log,
            view_ms: std::cell::Cell::new(0.0),
            on_screen: Rc::new(std::array::from_fn(|_| std::cell::Cell::new(true))),
            ticks: Default::default(),
            _observer: None,
        }
    }

    fn rendered(&mut self, ctx: &Context<Self>, first_render: bool) {
        if first_render {
            self._observer = observe_panels(self.on_screen.clone(), ctx.link().clone());
        }
        if let Some(t0) = self.frame_t0.take() {
            let mut log = self.frame_log.borrow_mut();
            if log.len() >= FRAME_LOG_MAX {
                log.pop_front();
            }
            log.push_back([self.frame_work_ms, self.view_ms.get(), now_ms() - t0]);
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        let changed = self.handle(ctx, msg);
        self.sync_compare();
        changed
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let t0 = now_ms();
        let pg = self.pg.borrow();
        let html = views::page(self, &pg, ctx.link());
        self.view_ms.set(now_ms() - t0);
        html
    }
}

impl App {
    fn handle(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Frame(ts) => {
                self.raf = None;
                if !self.playing {
                    self.last_ts = None;
                    return false;
                }
                let dt_ms = self.last_ts.map_or(0.0, |l| (ts - l).clamp(0.0, 100.0));
                self.last_ts = Some(ts);
                let t0 = now_ms();
                self.frame_t0 = Some(t0);
                self.carry_us += dt_ms * speed_of(self.speed_pos) as f64 / 1000.0;
                let step_us = self.carry_us.floor();
                self.carry_us -= step_us;
                let mut pg = self.pg.borrow_mut();
                let target = pg.now_us() + step_us as u64;
                loop {
                    let (reached, violated) = pg.advance_bounded(target, 400);
                    if violated {
                        let v = pg.world.violations().last().map(|(t, v)| {
                            format!(
                                "t = {} : {} — {}",
                                views::fmt_us(*t as i64),
                                v.invariant,
                                v.detail
                            )
                        });
                        self.stopped_at = v;
                        self.playing = false;
                        break;
                    }
                    // Keep each frame's work near 10 ms: a slow machine plays slower, never janky.
                    if reached || now_ms() - t0 > 10.0 {
                        break;
                    }
                }
                if pg.at_end() {
                    self.playing = false;
                }
                drop(pg);
                self.frame_work_ms = now_ms() - t0;
                if self.playing {
                    self.start_frames(ctx);
                }
                true
            }
            Msg::TogglePlay => {
                let p = !self.playing;
                Component::update(self, ctx, Msg::Play(p))
            }
            Msg::Play(p) => {
                self.playing = p;
                self.last_ts = None;
                if p {
                    self.stopped_at = None;
                    self.start_frames(ctx);
                }
                true
            }
            Msg::Step => {
                self.playing = false;
                self.pg.borrow_mut().step_event();
                true
            }
            Msg::StepBack => {
                self.playing = false;
                self.pg.borrow_mut().step_back();
                true
            }
            Msg::StepApply => {
                self.playing = false;
                self.pg.borrow_mut().step_to_next_apply(60_000_000);
                true
            }
            Msg::Speed(p) => {
                self.speed_pos = p.clamp(0, SPEED_STOPS.len() as i32 - 1);
                true
            }
            Msg::Seek(t) => {
                self.pg.borrow_mut().seek(t);
                true
            }
            Msg::TakeOver => {
                self.pg.borrow_mut().take_over();
                true
            }
            Msg::Restart => {
                self.pg.borrow_mut().restart();
                self.stopped_at = None;
                true
            }
            Msg::NewSeed => {
                let mut b = [0u8; 4];
                let seed = match getrandom::fill(&mut b) {
                    Ok(()) => u32::from_le_bytes(b) as u64,
                    Err(_) => self.pg.borrow().scenario.seed + 1,
                };
                let sc = self.pg.borrow().scenario.clone();
                match Playground::with_seed(&sc, seed) {
                    Ok(p) => self.replace(p),
                    Err(e) => self.error = Some(e.to_string()),
                }
                true
            }
            Msg::Nodes(n) => {
                let mut sc = self.pg.borrow().scenario.clone();
                sc.nodes = n;
                sc.timeline.clear();
                sc.clocks.retain(|c| c.node <= n);
                match Playground::new(sc) {
                    Ok(p) => self.replace(p),
                    Err(e) => self.error = Some(format!("Cannot use {n} nodes: {e}")),
                }
                true
            }
            Msg::Act(a) => {
                self.act(a);
                true
            }
            Msg::Key(k) => match k.as_str() {
                " " => Component::update(self, ctx, Msg::TogglePlay),
                "ArrowRight" => Component::update(self, ctx, Msg::Step),
                "ArrowLeft" => Component::update(self, ctx, Msg::StepBack),
                "a" => Component::update(self, ctx, Msg::StepApply),
                "t" => Component::update(self, ctx, Msg::TakeOver),
                "p" => Component::update(self, ctx, Msg::Presenter),
                "?" => Component::update(self, ctx, Msg::Help(!self.help)),
                "Escape" => {
                    self.help = false;
                    self.error = None;
                    true
                }
                _ => false,
            },
            Msg::Help(h) => {
                self.help = h;
                true
            }
            Msg::Presenter => {
                self.presenter = !self.presenter;
                true
            }
            Msg::LogFrom(f) => {
                self.log_from = f;
                true
            }
            Msg::Refresh => true,
            Msg::Loaded => {
                self.reset_run_state();
                true
            }
            Msg::DismissError => {
                self.error = None;
                true
            }
            Msg::Error(e) => {
                self.error = Some(e);
                true
            }
            Msg::LoadHash => {
                // Our own Share writes the fragment with replaceState, which fires no event.
                match playground_from_hash() {
                    Ok(Some(pg)) => {
                        self.replace(pg);
                        self.error = None;
                    }
                    Ok(None) => {}
                    Err(e) => self.error = Some(e),
                }
                true
            }
            Msg::SetSwitch(name, on) => {
                let mut sc = self.pg.borrow().scenario.clone();
                if let Err(e) = crate::scenario::hunt::set_switch(&mut sc, name, on) {
                    self.error = Some(e);
                    return true;
                }
                match Playground::new(sc) {
                    Ok(pg) => self.replace(pg),
                    Err(e) => self.error = Some(e.to_string()),
                }
                true
            }
            Msg::RaftDraft(field, text) => {
                self.raft_draft = Some((field, text));
                false
            }
            Msg::SetRaft(field, text) => {
                self.raft_draft = None;
                let mut sc = self.pg.borrow().scenario.clone();
                let Ok(value) = text.trim().parse::<u64>() else {
                    self.error = Some(format!(
                        "raft.{field}: \"{}\" is not a whole number",
                        text.trim()
                    ));
                    return true;
                };
                match field {
                    "max_batch" => sc.raft.max_batch = value,
                    _ => sc.raft.snapshot_every = value,
                }
                if sc == self.pg.borrow().scenario {
                    return false;
                }
                match Playground::new(sc) {
                    Ok(pg) => {
                        self.replace(pg);
                        self.error = None;
                    }
                    Err(e) => self.error = Some(e.to_string()),
                }
                true
            }
            Msg::CheckHistory => {
                let pg = self.pg.borrow();
                self.history = Some((pg.now_us(), pg.history_verdict().map(Rc::new)));
                true
            }
            Msg::Compare(None) => {
                self.compare = None;
                true
            }
            Msg::Compare(Some(name)) => {
                let mut sc = self.pg.borrow().scenario.clone();
                let on = !crate::scenario::hunt::switch_is_on(&sc, name);
                match crate::scenario::hunt::set_switch(&mut sc, name, on)
                    .map_err(|e| e)
                    .and_then(|()| Playground::new(sc).map_err(|e| e.to_string()))
                {
                    Ok(b) => self.compare = Some((Rc::new(RefCell::new(b)), name)),
                    Err(e) => self.error = Some(e),
                }
                true
            }
            Msg::ScenarioList(open) => {
                self.list_open = open;
                true
            }
            Msg::LoadBuiltin(name) => {
                self.list_open = false;
                match crate::scenario::builtin::get(&name).map(Playground::new) {
                    Some(Ok(pg)) => {
                        self.replace(pg);
                        if let Some(h) = web_sys::window().map(|w| w.history()).and_then(|h| h.ok())
                        {
                            let _ = h.replace_state_with_url(
                                &wasm_bindgen::JsValue::NULL,
                                "",
                                Some(&format!("#scenario={name}")),
                            );
                        }
                    }
                    _ => self.error = Some(format!("There is no built-in scenario \"{name}\".")),
                }
                true
            }
            Msg::LessonNext => {
                self.playing = false;
                let mut pg = self.pg.borrow_mut();
                let Some(lesson) = pg.scenario.lesson.clone() else {
                    return false;
                };
                let Some(c) = lesson.captions.get(self.lesson_pos) else {
                    return false;
                };
                let limit = pg.scenario.until_ms * 1000;
                let reached = match (c.at_ms, c.on) {
                    (Some(t), _) => {
                        let target = (t * 1000).max(pg.now_us());
                        pg.advance_to(target, false);
                        true
                    }
                    (None, Some(m)) => pg.run_until_moment(m, limit),
                    _ => false,
                };
                if reached {
                    self.caption_times.truncate(self.lesson_pos);
                    self.caption_times.push(pg.now_us());
                    self.lesson_pos += 1;
                } else {
                    self.error = Some("The run ended before this caption's moment.".into());
                }
                true
            }
            Msg::LessonBack => {
                self.playing = false;
                if self.lesson_pos == 0 {
                    return false;
                }
                self.lesson_pos -= 1;
                // Back restores the exact earlier state: the moment the previous caption was reached.
                let t = if self.lesson_pos == 0 {
                    0
                } else {
                    self.caption_times[self.lesson_pos - 1]
                };
                self.pg.borrow_mut().seek(t);
                true
            }
            Msg::Share => {
                let pg = self.pg.borrow();
                let base = location().and_then(|l| l.href().ok()).unwrap_or_default();
                let url = crate::scenario::link::encode_url(&base, &pg.scenario, pg.now_us());
                if let Some(w) = web_sys::window() {
                    if let Ok(h) = w.history() {
                        let frag = url.split_once('#').map_or("", |(_, f)| f);
                        let _ = h.replace_state_with_url(
                            &wasm_bindgen::JsValue::NULL,
                            "",
                            Some(&format!("#{frag}")),
                        );
                    }
                    // The copy may be refused (no focus, no permission): the link stays in the
                    // page's field either way, so a refusal is not an error.
                    let refused =
                        wasm_bindgen::closure::Closure::<dyn FnMut(wasm_bindgen::JsValue)>::new(
                            |_| {},
                        );
                    let _ = w.navigator().clipboard().write_text(&url).catch(&refused);
                    refused.forget();
                }
                self.share_url = Some(url);
                true
            }
            Msg::Export(kind) => {
                let pg = self.pg.borrow();
                let name = if pg.scenario.name.is_empty() {
                    "scenario".to_string()
                } else {
                    pg.scenario.name.clone()
                };
                let r = match kind {
                    "trace" => download(
                        &format!("{name}.trace.jsonl"),
                        &pg.full_trace_jsonl(),
                        "application/x-ndjson",
                    ),
                    _ => download(
                        &format!("{name}.json"),
                        &pg.scenario.to_json(),
                        "application/json",
                    ),
                };
                if r.is_err() {
                    self.error = Some("The browser refused the download.".into());
                }
                true
            }
            Msg::ImportFile(file) => {
                if file.size() > crate::scenario::link::DOC_BYTES_MAX as f64 {
                    self.error = Some(format!(
                        "That file is {} KB; scenario files are at most 1 MB.",
                        file.size() as u64 / 1024
                    ));
                    return true;
                }
                let link = ctx.link().clone();
                let f = gloo::file::File::from(file);
                self.reader = Some(gloo::file::callbacks::read_as_text(&f, move |r| {
                    link.send_message(Msg::Imported(r.map_err(|e| e.to_string())))
                }));
                false
            }
            Msg::HuntStart(runs) => {
                let switches = crate::scenario::hunt::switches_on(&self.pg.borrow().scenario);
                self.hunt = None; // a running hunt's worker stops
                match start_worker(ctx.link(), &switches, runs.clamp(1, 100_000)) {
                    Ok(h) => self.hunt = Some(h),
                    Err(e) => self.error = Some(format!("The hunt could not start: {e}")),
                }
                true
            }
            Msg::HuntCancel => {
                self.hunt = None;
                true
            }
            Msg::HuntReport(data) => {
                let Some(h) = self.hunt.as_mut() else {
                    return false;
                };
                let r: WorkerReport = match serde_wasm_bindgen::from_value(data) {
                    Ok(r) => r,
                    Err(e) => WorkerReport {
                        kind: "error".into(),
                        message: e.to_string(),
                        ..Default::default()
                    },
                };
                if r.kind != "error" {
                    h.done = r.done.max(h.done);
                    h.events = (r.events as u64).max(h.events);
                }
                match r.kind.as_str() {
                    "progress" => {}
                    "shrinking" => {
                        h.phase = HuntPhase::Shrinking {
                            seed: r.seed,
                            invariant: r.invariant,
                        }
                    }
                    "none" => h.phase = HuntPhase::NoViolation,
                    "found" => {
                        h.phase = HuntPhase::Found {
                            seed: r.seed,
                            invariant: r.invariant,
                            detail: r.detail,
                            original_actions: r.original_actions,
                            actions: r.actions,
                        };
                        match Scenario::from_json(&r.scenario).and_then(Playground::new) {
                            Ok(pg) => {
                                self.replace(pg);
                                self.error = None;
                                ctx.link().send_message(Msg::Share);
                            }
                            Err(e) => {
                                self.error = Some(format!("The hunt's scenario was refused: {e}"))
                            }
                        }
                    }
                    _ => {
                        h.phase = HuntPhase::Failed(if r.message.is_empty() {
                            format!("unexpected report {:?}", r.kind)
                        } else {
                            r.message
                        })
                    }
                }
                if !matches!(
                    self.hunt.as_ref().map(|h| &h.phase),
                    Some(HuntPhase::Running | HuntPhase::Shrinking { .. })
                ) {
                    if let Some(h) = self.hunt.as_mut() {
                        if let Some(w) = h.worker.take() {
                            w.terminate();
                        }
                    }
                }
                true
            }
            Msg::Imported(r) => {
                self.reader = None;
                match r
                    .map_err(|e| format!("The file could not be read: {e}"))
                    .and_then(|text| {
                        Scenario::from_json(&text)
                            .and_then(Playground::new)
                            .map_err(|e| format!("That scenario file was refused: {e}"))
                    }) {
                    Ok(pg) => {
                        self.replace(pg);
                        self.error = None;
                    }
                    Err(e) => self.error = Some(e),
                }
                true
            }
        }
    }

    /// Side by side: the second pane follows the first pane's moment.
    fn sync_compare(&mut self) {
        let Some((b, _)) = &self.compare else { return };
        let t = self.pg.borrow().now_us();
        let mut b = b.borrow_mut();
        if b.now_us() < t {
            b.advance_to(t, false);
        } else if b.now_us() > t {
            b.seek(t);
        }
    }
}
