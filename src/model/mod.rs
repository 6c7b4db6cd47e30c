//! The page model, without any web crate: what the page does, built and tested natively. The Yew
//! components under `src/ui/` only draw a [`Page`] and send [`Command`]s; the keyboard and
//! `window.raftlock` send the same commands. What needs the browser (the clipboard, a download,
//! the address bar, the hunt's worker) comes back as an [`Effect`] for the UI to carry out.
//!
//! Each concern owns its state, with handlers that borrow only that state and what they are
//! given:
//! - [`lesson`] and [`quiz`]: where a lesson stands, read off the run's state, and its questions;
//! - [`job`]: long work in slices (a far link, a seek, Next) and its progress;
//! - [`trace_view`]: a trace file opened read-only, and its reading;
//! - [`history`]: the clients' history check, in the page's worker;
//! - [`library`]: the built-in scenarios, fetched as files when the build does not carry them;
//! - [`embed`]: the player for a course page's `<iframe>`, and its `postMessage` API;
//! - [`twin`], [`hunt`], [`start`], [`edit`], [`focus`], [`locks`], [`motion`], [`pace`], [`next`];
//! - what a panel draws, read off the run: [`catalog`] (the built-ins' menu), [`clients`] (and
//!   the storage), [`clocks`], [`invariants`] (and the history verdict), [`switches`], [`log`],
//!   [`events`], [`presets`]; a component takes these, not the core's types;
//! - [`text`], [`sliders`], [`fragment`], [`russian`]: words, slider stops, links, languages.
//!
//! The page itself ([`page`]) holds one of each. Over them, and importing none of this file:
//! `open.rs` opens the page and replaces its run, `work.rs` does the long work in slices,
//! `views.rs` builds what reads more than one concern, and `commands.rs` says what each command
//! does. This file dispatches: a command ([`Page::apply`]), a frame ([`Page::frame`]), a host
//! page's message.

pub mod catalog;
pub mod clients;
pub mod clocks;
pub mod command;
mod commands;
pub mod commit;
pub mod edit;
pub mod effect;
pub mod embed;
pub mod events;
pub mod focus;
pub mod fragment;
pub mod history;
pub mod hunt;
pub mod invariants;
pub mod job;
pub mod lesson;
pub mod library;
pub mod links;
pub mod locks;
pub mod log;
pub mod membership;
pub mod motion;
pub mod next;
mod open;
pub mod pace;
pub mod page;
pub mod presets;
pub mod quiz;
pub mod russian;
pub mod sliders;
pub mod start;
pub mod switches;
#[cfg(test)]
mod testing;
pub mod text;
pub mod trace_view;
pub mod twin;
mod views;
mod work;

pub use command::{shortcut_key, Action, Command, Export};
pub use edit::RaftField;
pub use effect::Effect;
pub use fragment::{
    default_scenario, link_refused, playground_from_fragment, split_lang, url_with_lang, with_lang,
    Opened,
};
pub use page::Page;
pub use russian::{install_russian, Russian};
pub use sliders::{
    rate_of, rate_pos, speed_of, NARROW_PX, RATE_MID, RATE_STOPS, SPEED_START, SPEED_STOPS,
};
pub use views::TimeBar;

use crate::lang::{t, Lang};
use serde_json::Value;
use std::rc::Rc;

impl Page {
    /// Carry out one command. Returns what the UI must do in the browser.
    pub fn apply(&mut self, cmd: Command) -> Vec<Effect> {
        // A history check's progress moves its bar only: no panel draws again for it.
        if let Command::HistoryReport(id, report @ history::HistoryReport::Progress(_)) = cmd {
            self.history_report(id, report);
            return Vec::new();
        }
        // Space and the Play buttons toggle: said as what they do now (a pause is never refused).
        let cmd = match cmd {
            Command::TogglePlay => Command::Play(!self.playing),
            cmd => cmd,
        };
        // While a built-in's document is coming, a command for the run is refused with the
        // reason (the run shown meanwhile is about to be replaced: doing it there would be lost).
        if let Some(name) = self.library.loading.clone().filter(|_| cmd.moves_the_run()) {
            let title = catalog::title_or_name(&name, self.lang);
            self.error = Some(t!(
                self.lang,
                "The lesson \"{title}\" is still loading: try again when it has come."
            ));
            self.version += 1;
            self.settled += 1;
            return Vec::new();
        }
        let play = matches!(cmd, Command::Play(true) | Command::TogglePlay);
        let own = matches!(cmd, Command::Job(_));
        let (run, doc, serial) = (self.run_mark(), self.doc_mark(), self.jobs.serial);
        let checking = self.history.running.is_some();
        let mut effects = self.run_command(cmd);
        // The run's long work stops where it stands when the user took the run elsewhere (a
        // refused or idle command leaves it going); a history check stops when the document
        // it checks changed.
        if !own && self.jobs.serial == serial && (play || self.run_mark() != run) {
            self.jobs.run = None;
        }
        if self.doc_mark() != doc {
            self.history.running = None;
        }
        if checking
            && self.history.running.is_none()
            && !effects.contains(&Effect::StopHistoryCheck)
        {
            effects.push(Effect::StopHistoryCheck);
        }
        self.lesson.follow(&self.playground.scenario);
        if let Some(t) = &mut self.twin {
            t.follow(&self.playground.scenario);
        }
        self.sync_twin_back();
        if self.lesson.walking.is_some() || self.twin_lags() {
            self.work_jobs(job::FRAME_BUDGET_MS);
        }
        self.version += 1;
        self.settled += 1;
        // The player keeps its address a player's, and a Russian page its language.
        for e in &mut effects {
            if let Effect::SetFragment(f) = e {
                if self.embed.on {
                    *f = embed::fragment(f);
                }
                *f = with_lang(f, self.lang);
            }
        }
        if self.busy() && !effects.contains(&Effect::StartFrames) {
            effects.push(Effect::StartFrames);
        }
        for e in self.take_effects() {
            if !effects.contains(&e) {
                effects.push(e);
            }
        }
        effects
    }

    /// One frame: the jobs' slices, or play. Returns whether the frame loop goes on.
    pub fn frame(&mut self, dt_ms: f64) -> bool {
        let clock = Rc::clone(&self.clock);
        let t0 = clock();
        let playing =
            self.jobs.run.is_none() && self.play_frame(dt_ms, &mut || clock() - t0 > 10.0);
        // While playing, the work left (a lesson's walk, the second pane) takes a few ms of it.
        let budget = if playing { 4.0 } else { job::FRAME_BUDGET_MS };
        let busy = self.work_jobs(budget);
        playing || busy
    }

    /// One frame of play: `dt_ms` of real time at the current speed, in batches of events
    /// until the run reaches its target or `out_of_time` says the frame's budget is spent (a slow
    /// machine plays slower, never janky). Returns whether play goes on.
    pub fn play_frame(&mut self, dt_ms: f64, out_of_time: &mut dyn FnMut() -> bool) -> bool {
        if !self.playing {
            return false;
        }
        self.carry_us += dt_ms.clamp(0.0, 100.0) * speed_of(self.speed_pos) as f64 / 1000.0;
        let step_us = self.carry_us.floor();
        self.carry_us -= step_us;
        let target = self.playground.now_us() + step_us as u64;
        loop {
            let (reached, violated) = self.playground.advance_bounded(target, 400);
            if violated {
                self.note_violation();
                break;
            }
            if reached || out_of_time() {
                break;
            }
        }
        if self.playground.at_end() {
            self.playing = false;
        }
        self.sync_twin_back();
        self.version += 1;
        if !self.playing {
            self.settled += 1;
        }
        self.playing
    }

    /// A page opening: the Russian texts as `main` fetched them for a page that opens in
    /// Russian, already installed ([`install_russian`], before the page made its first words;
    /// None: it did not ask). A Russian page without them goes on in English and says why; one
    /// that opened in Russian without asking (a link index.html read otherwise) asks now.
    pub fn start_russian(&mut self, installed: Option<Result<(), String>>) -> Vec<Effect> {
        match installed {
            Some(installed) => {
                self.russian = Russian::Coming { wanted: true };
                let mut fx = Vec::new();
                self.russian_installed(installed, &mut fx);
                fx
            }
            None if self.lang == Lang::Ru && self.russian == Russian::NotHere => {
                self.lang = Lang::En;
                let mut fx = vec![Effect::ShowLang(Lang::En)];
                fx.extend(self.apply(Command::SetLang(Lang::Ru)));
                fx
            }
            None => Vec::new(),
        }
    }

    /// A host page's message: the effects of its command, and the answer for the host (an
    /// error, or None). A refused message changes nothing.
    pub fn host_message(&mut self, data: &Value) -> (Vec<Effect>, Option<Value>) {
        match embed::parse(data) {
            Ok(None) => (Vec::new(), None),
            Err(e) => (Vec::new(), Some(embed::error(&e))),
            Ok(Some(cmd)) => {
                // A seek ahead of the run plays to it (a seek moves within what was played).
                let cmd = match cmd {
                    Command::Seek(t) if t > self.playground.now_us() => Command::RunTo(t),
                    c => c,
                };
                // Until the lesson it asked for has come, a command would act on the run shown
                // meanwhile, which the lesson then replaces.
                if let (Some(name), false) = (
                    &self.library.loading,
                    matches!(cmd, Command::LoadBuiltin(_) | Command::LoadJson(_)),
                ) {
                    return (Vec::new(), Some(embed::error(&format!("raftlock is still loading the lesson \"{name}\": send this again after raftlock:ready"))));
                }
                self.error = None;
                let fx = self.apply(cmd);
                (fx, self.error.as_deref().map(embed::error))
            }
        }
    }
}

#[cfg(test)]
mod tests;
