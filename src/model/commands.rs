//! What each command does to the page (see [`Command`]); `Page::apply` calls this.

use super::command::{Command, Export};
use super::effect::Effect;
use super::fragment::{link_refused, playground_from_fragment, split_lang};
use super::page::Page;
use super::russian::{install_russian, Russian};
use super::sliders::SPEED_STOPS;
use super::{edit, hunt, job, trace_view};
use crate::lang::{both, t, Lang};
use crate::playground::Playground;
use crate::scenario::Scenario;

impl Page {
    pub(super) fn run_command(&mut self, cmd: Command) -> Vec<Effect> {
        let mut fx = Vec::new();
        match cmd {
            Command::TogglePlay => return self.run_command(Command::Play(!self.playing)),
            Command::Play(p) => {
                self.playing = p && !self.playground.at_end();
                self.carry_us = 0.0;
                if self.playing {
                    self.stopped_at = None;
                    fx.push(Effect::StartFrames);
                }
            }
            Command::Step => {
                self.playing = false;
                self.playground.step_event();
            }
            Command::StepBack => {
                self.playing = false;
                let now = self.playground.now_us();
                if now > 0 {
                    self.seek_job(now - 1);
                }
            }
            Command::StepApply => {
                self.playing = false;
                self.playground.step_to_next_apply(60_000_000);
            }
            Command::Speed(p) => self.speed_pos = p.clamp(0, SPEED_STOPS.len() as i32 - 1),
            Command::Seek(t) => self.seek_job(t),
            Command::RunTo(t) => self.replay_job(job::JobKind::RunTo, |pg| {
                crate::playground::Goal::at(t.min(pg.end_us()), true)
            }),
            Command::TakeOver => {
                if let Err(e) = self.playground.take_over() {
                    self.error = Some(t!(self.lang, "Cannot take over here: {e}", e = e.words(self.lang)));
                }
            }
            Command::Restart => {
                self.playground.restart();
                self.stopped_at = None;
                self.playing = false;
            }
            Command::Act(a) => {
                if let Err(e) = self.playground.act(a) {
                    self.error = Some(t!(self.lang, "That action was refused: {e}", e = e.words(self.lang)));
                }
            }
            Command::RaftDraft(field, text) => self.raft_draft = Some((field, text)),
            Command::Edit(edit) => {
                if matches!(edit, edit::Edit::Raft(..)) {
                    self.raft_draft = None;
                }
                let mut sc = self.playground.scenario.clone();
                match edit.apply(&mut sc, self.lang) {
                    Err(e) => self.error = Some(e),
                    Ok(()) if sc == self.playground.scenario => {}
                    Ok(()) => self.restart_with(Ok(sc), ""),
                }
            }
            Command::LoadBuiltin(name) => {
                self.list_open = false;
                self.load_builtin(name, &mut fx);
            }
            Command::Fetched(name, text) => match self.library.arrived(&name, text, self.lang) {
                Some(Ok(sc)) => self.open_builtin(&name, sc, &mut fx),
                Some(Err(why)) => {
                    self.error = Some(t!(self.lang, "The lesson \"{name}\" could not be loaded: {why}."))
                }
                None => {}
            },
            Command::LoadJson(json) => {
                let r = Scenario::from_json(&json).map_err(|e| e.words(self.lang));
                self.restart_with(r, t!(self.lang, "That scenario was refused: "));
            }
            Command::Import(text) => {
                let lang = self.lang;
                let r = text
                    .map_err(|e| t!(lang, "The file could not be read: {e}"))
                    .and_then(|text| {
                        Scenario::from_json(&text)
                            .map_err(|e| t!(lang, "That scenario file was refused: {e}", e = e.words(lang)))
                    });
                self.restart_with(r, "");
            }
            Command::OpenTrace(name, text) => {
                // Read in slices, the first one now: a short file opens at once. A file refused
                // in its first slice leaves the page as it was; one refused further on leaves
                // the run shown (the trace it replaced has gone).
                let (id, lang) = (self.traces.checks + 1, self.lang);
                let clock = std::rc::Rc::clone(&self.clock);
                let t0 = clock();
                let first = text
                    .and_then(|t| trace_view::Reading::new(&name, t, id, lang))
                    .and_then(|mut r| {
                        let done = r.read_for(&*clock, t0, job::FRAME_BUDGET_MS, lang)?;
                        let text = r.text();
                        Ok(match done {
                            true => (text, None, Some(r.finish(lang)?)),
                            false => (text, Some(r), None),
                        })
                    });
                match first {
                    Ok((text, reading, view)) => {
                        // The trace shown or being read before is replaced.
                        self.traces.checks = id;
                        self.error = None;
                        self.playing &= view.is_none();
                        self.traces.open = view;
                        self.traces.reading = reading;
                        fx.push(Effect::CheckTrace { id, text });
                    }
                    Err(e) => self.error = Some(e),
                }
            }
            Command::TraceChecked(id, answer) => {
                if let Some(r) = &mut self.traces.reading {
                    if let Err(e) = r.answered(id, answer, self.lang) {
                        self.drop_reading();
                        self.error = Some(e);
                    }
                } else if let Some(v) = &mut self.traces.open {
                    if let Err(e) = v.checked(id, answer, self.lang) {
                        self.traces.open = None;
                        self.error = Some(e);
                    }
                }
            }
            Command::TraceAt(at) => {
                if let Some(v) = &mut self.traces.open {
                    v.at = at.min(v.lines.len());
                }
            }
            Command::TraceLine(n) => {
                if let Some(v) = &mut self.traces.open {
                    v.go_to_line(n);
                }
            }
            Command::CloseTrace => {
                let reading = self.traces.reading.take().is_some();
                if self.traces.open.take().is_some() || reading {
                    fx.push(Effect::StopTraceCheck);
                }
            }
            Command::OpenFragment(frag) => match playground_from_fragment(
                {
                    let (frag, lang) = split_lang(&frag);
                    if let Some(l) = lang.filter(|l| *l != self.lang) {
                        self.set_lang(l, &mut fx);
                    }
                    let (embed, frag) = super::embed::split(&frag);
                    self.embed.on = embed;
                    if let Some(name) = super::fragment::builtin_in(frag) {
                        self.load_builtin(name.to_string(), &mut fx);
                        return fx;
                    }
                    frag.to_string()
                }
                .as_str(),
                self.lang,
            ) {
                Ok(Some(o)) => {
                    self.replace(o.playground);
                    self.error = o.note;
                    self.open_at(o.moment_us);
                }
                Ok(None) => {}
                Err(why) => self.error = Some(link_refused(&why, true, self.lang)),
            },
            Command::LessonNext | Command::LessonBack | Command::Answer(_) | Command::Reveal
                if self.lesson.walking.is_some() =>
            {
                self.error = Some(
                    t!(self.lang, "The lesson's moments are still being found (see the bar above): Next and Back work when they are.")
                        .into(),
                )
            }
            Command::LessonNext => {
                // In presenter mode Next on an asked question reveals it; a student answers.
                if self.presenter && self.open_question().is_some() {
                    self.reveal();
                } else if !self.ask_before_next() {
                    self.lesson_next();
                }
            }
            Command::LessonBack => {
                // Back from an open question closes it; the run stays where it is.
                if self.open_question().is_some() {
                    self.quiz.open = None;
                } else {
                    self.lesson_back();
                }
            }
            Command::Answer(k) => self.answer(k),
            Command::Reveal => self.reveal(),
            Command::CheckHistory => fx.push(self.start_check()),
            Command::HistoryReport(id, report) => self.history_report(id, report),
            Command::Job(c) => self.job_command(c),
            Command::Compare(None) => self.twin = None,
            Command::Compare(Some(name)) => {
                let made = crate::scenario::switch::Switch::from_name(name)
                    .ok_or_else(|| t!(self.lang, "There is no switch \"{name}\"."))
                    .and_then(|s| super::twin::Twin::new(&self.playground.scenario, vec![s], self.lang));
                match made {
                    Ok(twin) => self.twin = Some(twin),
                    Err(e) => self.error = Some(e),
                }
            }
            Command::Share => {
                let url = self.share_link();
                let frag = url.split_once('#').map_or("", |(_, f)| f);
                fx.push(Effect::SetFragment(format!("#{frag}")));
                fx.push(Effect::Clipboard(url.clone()));
                self.share_url = Some(url);
            }
            Command::CopyEmbed => {
                let code =
                    super::embed::code(&self.base_url, &self.playground.scenario, self.playground.now_us(), self.lang);
                fx.push(Effect::Clipboard(code.clone()));
                self.embed.code = Some(code);
            }
            Command::Export(kind) => {
                let sc = &self.playground.scenario;
                let name = if sc.name.is_empty() {
                    "scenario"
                } else {
                    &sc.name
                };
                fx.push(match kind {
                    Export::Trace => Effect::Download {
                        name: format!("{name}.trace.jsonl"),
                        text: self.playground.full_trace_jsonl(),
                        mime: "application/x-ndjson",
                    },
                    Export::Scenario => Effect::Download {
                        name: format!("{name}.json"),
                        text: sc.to_json(),
                        mime: "application/json",
                    },
                });
            }
            Command::HuntStart(runs) => {
                let switches = crate::scenario::hunt::switches_on(&self.playground.scenario);
                let runs = runs.clamp(1, 100_000);
                self.hunt = Some(hunt::Hunt::new(switches.clone(), runs as u64));
                fx.push(Effect::StartHunt { switches, runs });
            }
            Command::HuntCancel => {
                self.hunt = None;
                fx.push(Effect::StopHunt);
            }
            Command::HuntReport(r) => {
                let Some(h) = self.hunt.as_mut() else {
                    return fx;
                };
                let found = h.report(r);
                if !h.running() {
                    fx.push(Effect::StopHunt);
                }
                if let Some(json) = found {
                    let lang = self.lang;
                    match Scenario::from_json(&json).and_then(Playground::new).map_err(|e| e.words(lang)) {
                        Ok(pg) => {
                            self.replace(pg);
                            self.error = None;
                            // Its one caption makes it a lesson: keep the hunt's report in view.
                            self.tools_open = true;
                            fx.extend(self.run_command(Command::Share));
                        }
                        Err(e) => {
                            self.error = Some(t!(self.lang, "The hunt's scenario was refused: {e}"))
                        }
                    }
                }
            }
            Command::SetLang(l) => self.set_lang(l, &mut fx),
            Command::RussianArrived(texts) => {
                self.russian_installed(install_russian(texts), &mut fx)
            }
            Command::Presenter(on) => self.presenter = on,
            Command::Tools(open) => self.tools_open = open,
            Command::Help(h) => self.help = h,
            Command::Start(choice) => {
                self.start.open = false;
                if let Some(name) = super::start::chosen(&choice, self.start.left.as_ref()) {
                    self.load_builtin(name, &mut fx);
                }
            }
            Command::ScenarioList(open) => {
                self.list_open = open;
                if open {
                    fx.extend(self.library.request_all());
                }
            }
            Command::LogFrom(f) => self.log_from = f,
            Command::Narrow(narrow) => self.narrow = narrow,
            Command::NodeControls(node) => {
                self.node_controls = node.filter(|&i| i < self.playground.world.node_count);
            }
            Command::DismissRussian => {
                if matches!(self.russian, Russian::Failed(_)) {
                    self.russian = Russian::NotHere;
                }
            }
            Command::DismissError => {
                self.error = None;
                self.help = false;
                // The "copied" note under Share or Embed goes too (Esc, or its ✕).
                self.share_url = None;
                self.embed.code = None;
                self.node_controls = None;
            }
            Command::Error(e) => self.error = Some(e),
        }
        fx
    }

    /// Next: to the next caption's moment (found once by a replay of the document), stopping
    /// right after its event.
    pub(super) fn lesson_next(&mut self) {
        self.playing = false;
        let pos = self.lesson_pos();
        if pos >= self.lesson.marks.len() {
            return;
        }
        match self.lesson.mark(pos).cloned() {
            Some(m) => self.lesson_job(m.events, m.t_us),
            None => {
                self.error =
                    Some(t!(self.lang, "The run ended before this caption's moment.").into())
            }
        }
    }

    /// The Russian texts came and were installed, or why not: switch if the reader still
    /// wants Russian, or go on in English and say why.
    pub(super) fn russian_installed(
        &mut self,
        installed: Result<(), String>,
        fx: &mut Vec<Effect>,
    ) {
        let wanted = matches!(self.russian, Russian::Coming { wanted: true });
        match installed {
            Ok(()) => {
                self.russian = Russian::Here;
                if wanted {
                    self.set_lang(Lang::Ru, fx);
                }
            }
            Err(why) => {
                // A page that opened in Russian without its texts goes on in English.
                self.russian = if wanted || self.lang == Lang::Ru {
                    if self.lang == Lang::Ru {
                        // Opened in Russian: the document says English now, and the reader's
                        // choice stays Russian for the next visit.
                        self.lang = Lang::En;
                        fx.push(Effect::ShowLang(Lang::En));
                    }
                    // In both languages: the reader wanted Russian, which is not here.
                    let words = both!("The Russian texts could not be loaded: {why}. The page stays in English; choose Русский to try again.");
                    Russian::Failed(format!("{} / {}", words.ru, words.en))
                } else {
                    Russian::NotHere
                };
            }
        }
    }

    /// Switch the page's language. Russian needs its texts: without them, ask for them and
    /// switch when they come ([`Command::RussianArrived`]).
    pub(super) fn set_lang(&mut self, l: Lang, fx: &mut Vec<Effect>) {
        match (l, &self.russian) {
            (Lang::Ru, Russian::NotHere | Russian::Failed(_)) => {
                self.russian = Russian::Coming { wanted: true };
                fx.push(Effect::FetchRussian);
                return;
            }
            (Lang::Ru, Russian::Coming { .. }) => {
                self.russian = Russian::Coming { wanted: true };
                return;
            }
            (Lang::En, Russian::Coming { .. }) => self.russian = Russian::Coming { wanted: false },
            _ => {}
        }
        if l == self.lang {
            return;
        }
        self.lang = l;
        fx.push(Effect::Lang(l));
        // What was written in the other language: the links carry their language, the stop
        // message its words.
        self.share_url = None;
        self.embed.code = None;
        if self.stopped_at.is_some() {
            self.note_violation();
        }
    }

    /// Back: to the previous caption's moment, the exact earlier state (snapshots plus replay).
    pub(super) fn lesson_back(&mut self) {
        self.playing = false;
        let pos = self.lesson_pos();
        match pos {
            0 => {}
            1 => self.seek_job(0),
            _ => {
                if let Some(m) = self.lesson.mark(pos - 2).cloned() {
                    self.lesson_job(m.events, m.t_us);
                }
            }
        }
    }

    /// To a caption's moment, right after its event: a job when the replay is long.
    pub(super) fn lesson_job(&mut self, events: u64, t_us: u64) {
        self.replay_job(job::JobKind::LessonNext, |pg| {
            pg.rewind_events(events, t_us)
        });
    }

    /// Open a built-in now if the page has its document, else fetch it and say it is loading
    /// (the run in view stays until it arrives).
    pub(super) fn load_builtin(&mut self, name: String, fx: &mut Vec<Effect>) {
        self.start.open = false;
        match self.library.get(&name) {
            Some(sc) => self.open_builtin(&name, sc, fx),
            None if crate::scenario::builtin::is_builtin(&name) => {
                self.error = None;
                // The run shown meanwhile is about to be replaced: it waits.
                self.playing = false;
                fx.extend(self.library.request(&name));
                self.library.loading = Some(name);
            }
            None => self.error = Some(t!(self.lang, "There is no built-in scenario \"{name}\".")),
        }
    }

    pub(super) fn open_builtin(
        &mut self,
        name: &str,
        sc: crate::scenario::Scenario,
        fx: &mut Vec<Effect>,
    ) {
        self.library.loading = None;
        match Playground::new(sc) {
            Ok(pg) => {
                self.replace(pg);
                self.error = None;
                fx.push(Effect::SetFragment(format!("#scenario={name}")));
            }
            Err(e) => self.error = Some(e.words(self.lang)),
        }
    }

    /// Next at a caption whose question has not been settled: ask it, and play nothing yet.
    /// Returns whether it did.
    pub(super) fn ask_before_next(&mut self) -> bool {
        let pos = self.lesson_pos();
        if !self.asks_before(pos) {
            return false;
        }
        if self.open_question() == Some(pos) {
            // Asked already: an answer (or Reveal) goes on, not Next.
            return true;
        }
        self.quiz.ask(pos);
        true
    }

    /// The student's answer to the open question: scored if first, then the moment plays.
    pub(super) fn answer(&mut self, choice: usize) {
        let pos = self.lesson_pos();
        let choices = self.question_at(pos).map_or(0, |q| q.choices.len());
        match self.quiz.answer(pos, choice, choices, self.lang) {
            Ok(()) => self.lesson_next(),
            Err(e) => self.error = Some(e),
        }
    }

    /// Presenter mode: show the room the right answer, then play the moment.
    pub(super) fn reveal(&mut self) {
        match self.quiz.reveal(self.lesson_pos(), self.lang) {
            Ok(()) => self.lesson_next(),
            Err(e) => self.error = Some(e),
        }
    }
}
