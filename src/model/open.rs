//! Opening the page (the bare address, a link, a built-in by name) and replacing its run.

use super::effect::Effect;
use super::fragment::{
    builtin_in, default_scenario, link_refused, playground_from_fragment, split_lang, Opened,
};
use super::page::Page;
use super::russian::Russian;
use super::sliders::SPEED_START;
use super::{embed, history, job, lesson, library, quiz, start, trace_view, twin};
use crate::lang::Lang;
use crate::playground::{Goal, Playground};
use crate::scenario::Scenario;
use std::rc::Rc;

impl Page {
    pub fn new(pg: Playground) -> Page {
        Page::with_clock(pg, Rc::new(|| 0.0))
    }

    /// A page whose long work (a lesson's walk, a far moment) goes in slices timed by `clock`.
    pub fn with_clock(pg: Playground, clock: Rc<dyn Fn() -> f64>) -> Page {
        let twin = twin::Twin::of_lesson(&pg.scenario);
        let mut page = Page {
            playground: pg,
            playing: false,
            speed_pos: SPEED_START,
            carry_us: 0.0,
            presenter: false,
            tools_open: false,
            help: false,
            list_open: false,
            start: start::Start::default(),
            error: None,
            stopped_at: None,
            share_url: None,
            log_from: None,
            node_controls: None,
            narrow: false,
            history: history::Checks::default(),
            twin,
            hunt: None,
            raft_draft: None,
            lesson: lesson::LessonTrack::default(),
            quiz: quiz::Quiz::default(),
            version: 0,
            settled: 0,
            base_url: String::new(),
            jobs: job::Jobs::default(),
            traces: trace_view::Traces::default(),
            pending: Vec::new(),
            clock,
            embed: embed::Embed::default(),
            loaded: 0,
            lang: Lang::En,
            library: library::Library::default(),
            russian: Russian::default(),
        };
        page.lesson.follow(&page.playground.scenario);
        page.work_jobs(job::FRAME_BUDGET_MS);
        page
    }

    /// The page a URL fragment opens: the default scenario, with a message when the fragment
    /// was refused.
    pub fn from_fragment(frag: &str) -> Page {
        Page::from_fragment_with_clock(frag, Rc::new(|| 0.0), Lang::En)
    }

    /// The same, with the page's wall clock (a far moment is reached by a job, in slices) and
    /// the reader's language (a `lang` in the fragment wins over it).
    pub fn from_fragment_with_clock(frag: &str, clock: Rc<dyn Fn() -> f64>, lang: Lang) -> Page {
        Page::open_fragment(frag, clock, lang, library::Library::default())
    }

    /// The same, with the built-ins' documents as `library` has them.
    pub fn open_fragment(
        frag: &str,
        clock: Rc<dyn Fn() -> f64>,
        lang: Lang,
        library: library::Library,
    ) -> Page {
        let (frag, in_link) = split_lang(frag);
        let lang = in_link.unwrap_or(lang);
        let (embed, frag) = embed::split(&frag);
        let builtin = builtin_in(frag);
        let here = builtin.and_then(|n| library.get(n));
        let fetch = builtin.filter(|_| here.is_none());
        let opened = match here {
            Some(sc) => Playground::new(sc)
                .map(|pg| {
                    Some(Opened {
                        playground: pg,
                        moment_us: 0,
                        note: None,
                    })
                })
                .map_err(|e| e.words(lang)),
            None => playground_from_fragment(if builtin.is_some() { "" } else { frag }, lang),
        };
        let (pg, moment, error) = match opened {
            Ok(Some(o)) => (o.playground, o.moment_us, o.note),
            Ok(None) => (Playground::new(default_scenario()).expect("valid"), 0, None),
            Err(why) => (
                Playground::new(default_scenario()).expect("valid"),
                0,
                Some(link_refused(&why, false, lang)),
            ),
        };
        let mut page = Page::with_clock(pg, clock);
        page.lang = lang;
        page.error = error;
        page.embed.on = embed;
        page.list_open = frag.trim_start_matches('#') == "scenarios";
        page.start.open = start::opens_on(frag, embed) && page.error.is_none();
        page.library = library;
        page.library.loading = fetch.map(str::to_string);
        page.open_at(moment);
        page
    }

    /// What the page needs fetched as it opens: the built-in its link names, the stories of
    /// the scenario list (the start screen's cards come with the page).
    pub fn start_effects(&mut self) -> Vec<Effect> {
        let mut fx: Vec<Effect> = self
            .library
            .loading
            .clone()
            .and_then(|n| self.library.request(&n))
            .into_iter()
            .collect();
        if self.list_open {
            fx.extend(self.library.request_all());
        }
        fx
    }

    /// Go to a link's moment: a job, announced when it would take long.
    pub(super) fn open_at(&mut self, moment_us: u64) {
        if moment_us > 0 {
            self.replay_job(job::JobKind::Link, |pg| {
                Goal::at(moment_us.min(pg.end_us()), false)
            });
        }
    }

    /// A seek (the scrubber, a step back, the handle): a job when the replay is long.
    pub(super) fn seek_job(&mut self, t_us: u64) {
        // From the nearest snapshot; a moment past what has run runs on to it (the handle may
        // ask for one), up to the run's end.
        self.replay_job(job::JobKind::Seek, |pg| {
            let t = t_us.min(pg.end_us());
            pg.rewind(t);
            Goal::at(t, false)
        });
    }

    /// A job of `kind` toward the goal `rewind` returns, having restored a snapshot if it
    /// needed one: the bar counts from where the replay starts.
    pub(super) fn replay_job(
        &mut self,
        kind: job::JobKind,
        rewind: impl FnOnce(&mut Playground) -> Goal,
    ) {
        let before = self.playground.now_us();
        let goal = rewind(&mut self.playground);
        let from = before.min(self.playground.now_us());
        self.start_job(job::Job::run(kind, goal, from));
    }

    /// Replace the run, forgetting what belonged to the previous one.
    pub(super) fn replace(&mut self, pg: Playground) {
        self.start.open = false;
        self.twin = twin::Twin::of_lesson(&pg.scenario);
        self.playground = pg;
        self.library.loading = None;
        self.jobs.run = None;
        self.history.running = None;
        self.history.last = None;
        self.stopped_at = None;
        self.log_from = None;
        self.share_url = None;
        self.embed.code = None;
        self.node_controls = None;
        self.loaded += 1;
        self.playing = false;
        self.raft_draft = None;
        self.quiz = quiz::Quiz::default();
    }

    /// Restart with an edited document, or keep the run and say why not.
    pub(super) fn restart_with(&mut self, sc: Result<Scenario, String>, refused: &str) {
        let lang = self.lang;
        match sc.and_then(|sc| Playground::new(sc).map_err(|e| e.words(lang))) {
            Ok(pg) => {
                self.replace(pg);
                self.error = None;
            }
            Err(e) => self.error = Some(format!("{refused}{e}")),
        }
    }
}
