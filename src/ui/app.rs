//! The root component: it owns the page model and what lives in the browser (the frame loop,
//! the keyboard, the address bar, the worker's jobs), sends every input to the model as a
//! [`Command`], and carries out the [`Effect`]s that come back. The panels' layout is
//! `layout.rs`.

use super::effects::{self, now_ms};
use super::host::Host;
use super::onscreen::OnScreen;
use super::props::{FrameLog, Shared, FRAME_LOG_MAX};
use super::{api, keys, layout, stage, worker};
use crate::lang::t;
use crate::model::library::Missing;
use crate::model::pace::{Pace, Paced, Why};
use crate::model::{Command, Effect, Page, NARROW_PX};
use gloo::events::EventListener;
use gloo::render::{request_animation_frame, AnimationFrame};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

pub enum Msg {
    Command(Command),
    /// The handle already applied a command: carry out its effects and draw.
    Applied(Vec<Effect>),
    Frame(f64),
    /// What a job in the page's worker said.
    Worker(worker::Report),
    /// Redraw (a lazy panel scrolled in).
    Refresh,
    /// A `postMessage` from the page that embeds this one (the embed's API, `model::embed`).
    Host(serde_json::Value),
}

/// What `main` hands the app: for a page that opens in Russian, its texts as fetched (or why
/// they could not be had).
#[derive(Properties, PartialEq, Default)]
pub struct AppProps {
    pub russian: Option<Result<String, Missing>>,
}

pub struct App {
    page: Shared,
    send: Callback<Command>,
    raf: Option<AnimationFrame>,
    last_ts: Option<f64>,
    _keys: EventListener,
    _hash: EventListener,
    _resize: EventListener,
    /// The page that embeds this one, if any.
    host: Option<Host>,
    /// The hunt and the open trace's check, in the page's worker.
    jobs: worker::Jobs,
    on_screen: OnScreen,
    /// Which panels a played frame draws (`view` decides; hence the cell).
    pace: RefCell<Pace>,
    frame_log: FrameLog,
    /// The lesson place last remembered for the start screen.
    left: Option<crate::model::start::Left>,
    /// A played frame being drawn: when it started and how long the advance took.
    frame: Option<(f64, f64)>,
    /// The scenario the menu was last set to show.
    menu_choice: String,
    /// Why the next draw happens, if not a played frame or a scroll: a command came, or a
    /// played frame reached a lesson's caption.
    why: Option<Why>,
    /// Why the last draw happened.
    drawn_why: std::cell::Cell<Why>,
    stage: stage::Stage,
}

impl App {
    fn dispatch(&mut self, ctx: &Context<Self>, cmd: Command) {
        let fx = self.page.borrow_mut().apply(cmd);
        self.effects(ctx, fx);
    }

    fn effects(&mut self, ctx: &Context<Self>, fx: Vec<Effect>) {
        // Where the reader is in a lesson, remembered when it changes (the start screen offers it).
        let here = self.page.borrow().left_here();
        if let Some(l) = here.as_ref().filter(|_| here != self.left) {
            effects::remember_left(l);
            self.left = here;
        }
        for e in fx {
            match e {
                Effect::StartFrames => {
                    self.last_ts = None;
                    if self.raf.is_none() {
                        let link = ctx.link().clone();
                        self.raf = Some(request_animation_frame(move |ts| {
                            link.send_message(Msg::Frame(ts))
                        }));
                    }
                }
                // The worker's jobs, then what needs nothing of the app's own state.
                other => {
                    let link = ctx.link().clone();
                    let report = move |r| link.send_message(Msg::Worker(r));
                    match self.jobs.carry_out(other, report) {
                        Ok(None) => {}
                        Ok(Some(other)) => effects::carry_out(other, &self.page, &self.send),
                        Err(e) => {
                            let mut page = self.page.borrow_mut();
                            page.hunt = None;
                            page.error = Some(t!(page.lang, "The hunt could not start: {e}"));
                        }
                    }
                }
            }
        }
    }
}

impl Component for App {
    type Message = Msg;
    type Properties = AppProps;

    fn create(ctx: &Context<Self>) -> Self {
        // The Russian texts before the first words are made (a refused file is reported below).
        let russian = ctx
            .props()
            .russian
            .clone()
            .map(crate::model::install_russian);
        // A link far into its run opens at once and replays in slices, frame by frame.
        // The language: a `lang` in the link, else the one index.html chose for `<html lang>`
        // (the remembered choice, else the browser's).
        let mut first = Page::from_fragment_with_clock(
            &effects::fragment(),
            Rc::new(now_ms),
            effects::document_lang(),
        );
        first.base_url = effects::base_url();
        first.start.left = effects::stored_left();
        let russian_fx = first.start_russian(russian);
        let busy = first.busy();
        let mut start = first.start_effects();
        start.extend(russian_fx);
        let page: Shared = Rc::new(RefCell::new(first));
        let frame_log: FrameLog = Rc::default();
        api::install(
            page.clone(),
            ctx.link().callback(Msg::Applied),
            frame_log.clone(),
        );
        let send = ctx.link().callback(Msg::Command);
        let link = ctx.link().clone();
        let keys = keys::listen(page.clone(), move |cmd| {
            link.send_message(Msg::Command(cmd))
        });
        let l = ctx.link().clone();
        let win = web_sys::window().expect("a window");
        // Our own Share writes the fragment with replaceState, which fires no event.
        let hash = EventListener::new(&win, "hashchange", move |_| {
            l.send_message(Msg::Command(Command::OpenFragment(effects::fragment())))
        });
        // A phone's width draws the cluster's words larger (said to the model only on a change).
        let narrow = |win: &web_sys::Window| {
            win.inner_width()
                .ok()
                .and_then(|w| w.as_f64())
                .is_some_and(|w| w <= NARROW_PX)
        };
        page.borrow_mut().narrow = narrow(&win);
        let (l, p) = (ctx.link().clone(), page.clone());
        let resize = EventListener::new(&win, "resize", move |_| {
            stage::fit();
            let now = web_sys::window().is_some_and(|w| narrow(&w));
            if now != p.borrow().narrow {
                l.send_message(Msg::Command(Command::Narrow(now)));
            }
        });
        let l = ctx.link().clone();
        let host = Host::new(&win, move |data| l.send_message(Msg::Host(data)));
        if busy {
            ctx.link()
                .send_message(Msg::Applied(vec![Effect::StartFrames]));
        }
        if !start.is_empty() {
            ctx.link().send_message(Msg::Applied(start));
        }
        App {
            _resize: resize,
            host,
            page,
            send,
            raf: None,
            last_ts: None,
            _keys: keys,
            _hash: hash,
            jobs: worker::Jobs::default(),
            on_screen: OnScreen::default(),
            pace: RefCell::default(),
            frame_log,
            left: None,
            frame: None,
            menu_choice: String::new(),
            why: None,
            drawn_why: std::cell::Cell::new(Why::Command),
            stage: stage::Stage::default(),
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        // A job's progress is drawn by its own panel or bar (a hunt's find stops the play).
        let progress = matches!(&msg, Msg::Worker(r) if r.is_progress());
        if !matches!(msg, Msg::Frame(_) | Msg::Refresh) && !progress {
            self.why = Some(Why::Command);
        }
        match msg {
            Msg::Command(cmd) => self.dispatch(ctx, cmd),
            Msg::Applied(fx) => self.effects(ctx, fx),
            Msg::Refresh => {}
            Msg::Host(data) => {
                let (fx, reply) = self.page.borrow_mut().host_message(&data);
                self.effects(ctx, fx);
                if let (Some(reply), Some(host)) = (reply, &self.host) {
                    host.send(&reply);
                }
            }
            Msg::Worker(report) => {
                let cmd = self.jobs.reported(report);
                self.dispatch(ctx, cmd);
            }
            Msg::Frame(ts) => {
                self.raf = None;
                let dt_ms = self.last_ts.map_or(0.0, |l| ts - l);
                self.last_ts = Some(ts);
                let t0 = now_ms();
                // Keep each frame's work near 10 ms: a slow machine plays slower, never janky;
                // a long replay goes on in slices of a few ms.
                let more = {
                    let mut page = self.page.borrow_mut();
                    let caption = page.lesson_pos();
                    let more = page.frame(dt_ms);
                    if page.lesson_pos() != caption {
                        self.why.get_or_insert(Why::Caption);
                    }
                    more
                };
                self.frame = Some((t0, now_ms() - t0));
                let fx = self.page.borrow_mut().take_effects();
                self.effects(ctx, fx);
                if more {
                    let link = ctx.link().clone();
                    self.raf = Some(request_animation_frame(move |ts| {
                        link.send_message(Msg::Frame(ts))
                    }));
                } else {
                    self.last_ts = None;
                }
            }
        }
        true
    }

    fn rendered(&mut self, ctx: &Context<Self>, first_render: bool) {
        if first_render {
            // index.html's skeleton stood in while the wasm loaded. The mark is the moment the
            // page is usable (the benchmark's "interactive").
            let win = web_sys::window();
            if let Some(s) = win
                .as_ref()
                .and_then(|w| w.document())
                .and_then(|d| d.get_element_by_id("skeleton"))
            {
                s.remove();
            }
            if let Some(perf) = win.and_then(|w| w.performance()) {
                perf.mark("raftlock-interactive").ok();
            }
            let link = ctx.link().clone();
            self.on_screen
                .observe(move || link.send_message(Msg::Refresh));
        }
        self.why = None;
        // A command may have drawn a panel anew (a trace closed, the tools shown).
        if self.drawn_why.get() != Why::Frame {
            self.on_screen.keep_watching();
        }
        // The scenario menu follows the run after a command, and after any render where the
        // run's scenario changed (a lesson's file can arrive in a render that also drew a
        // frame: the menu would be left on the scenario before it).
        let choice_changed = self.page.borrow().scenario_choice() != self.menu_choice;
        if self.frame.is_none() || choice_changed {
            let page = self.page.borrow();
            self.menu_choice = page.scenario_choice().to_string();
            effects::keep_select("scenario", page.scenario_choice());
            // And the language menu the language (Русский chosen, its texts still coming or
            // refused: a menu left on Русский could not be chosen again).
            effects::keep_select("lang", page.lang.code());
        }
        if let Some((t0, advance)) = self.frame.take() {
            let total = now_ms() - t0;
            let mut log = self.frame_log.borrow_mut();
            if log.len() >= FRAME_LOG_MAX {
                log.pop_front();
            }
            log.push_back([advance, total - advance, total]);
        }
        self.stage.after_render(&self.page.borrow());
        if let Some(host) = &mut self.host {
            host.tell(&self.page.borrow());
        }
    }

    fn view(&self, _ctx: &Context<Self>) -> Html {
        let why = match (self.why, self.frame) {
            (Some(why), _) => why,
            (None, Some(_)) => Why::Frame,
            (None, None) => Why::Scrolled,
        };
        self.drawn_why.set(why);
        let mut pace = self.pace.borrow_mut();
        {
            let page = self.page.borrow();
            pace.plan(page.version, page.playing, why, now_ms(), |p: Paced| {
                self.on_screen.visible(p)
            });
        }
        layout::page(&self.page, &self.send, &pace)
    }
}
