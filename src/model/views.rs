//! What the panels draw that reads more than one concern of the page: the lesson with its
//! question and the safe twin, the caption's focus, and what the embed's host hears.

use super::command::Command;
use super::embed::{Seen, Watcher};
use super::focus::{self, FocusSet};
use super::fragment::url_with_lang;
use super::lesson::LessonView;
use super::page::Page;
use super::quiz::{QuestionState, QuestionView, Settled};
use super::{text, twin};
use crate::lang::t;
use serde_json::Value;

impl Page {
    /// The keyboard shortcut `key`, if it is one.
    pub fn shortcut(&self, key: &str) -> Option<Command> {
        let page = self;
        Some(match key {
            " " => Command::TogglePlay,
            "ArrowRight" => Command::Step,
            "ArrowLeft" => Command::StepBack,
            "a" => Command::StepApply,
            "t" => Command::TakeOver,
            "p" => Command::Presenter(!page.presenter),
            "n" if page.playground.scenario.lesson.is_some() => Command::LessonNext,
            "b" if page.playground.scenario.lesson.is_some() => Command::LessonBack,
            "r" if page.open_question().is_some() => Command::Reveal,
            "1" | "2" | "3" | "4" | "5" if page.open_question().is_some() && !page.presenter => {
                Command::Answer(key.parse::<usize>().ok()? - 1)
            }
            "?" => Command::Help(!page.help),
            "Escape" => Command::DismissError,
            _ => return None,
        })
    }

    /// The link that reproduces this run at this moment, on the page's own address and in its
    /// language: what Share copies, and where the player's bar links to the whole page.
    pub fn share_link(&self) -> String {
        let link = crate::scenario::link::encode_url(
            &self.base_url,
            &self.playground.scenario,
            self.playground.now_us(),
        );
        url_with_lang(&link, self.lang)
    }

    /// What the current caption names, resolved to parts of the page.
    pub fn focus(&self) -> FocusSet {
        focus::current(&self.lesson, &self.playground)
    }

    /// The switch *Show the safe twin* opens again: a lesson that has a twin but hides it.
    pub fn twin_offer(&self) -> Option<&'static str> {
        let shown = self.twin.is_some() || self.traces.open.is_some();
        twin::offer(&self.playground.scenario, shown)
    }

    /// The two halves of the stage, the run's first; None without a twin.
    pub fn twin_view(&self) -> Option<[twin::HalfView; 2]> {
        twin::view(
            &self.playground,
            self.twin.as_ref(),
            &self.focus(),
            self.lang,
        )
    }

    /// The two halves' labels (the run's, the twin's).
    pub fn twin_labels(&self) -> Option<(String, String)> {
        twin::labels(&self.playground.scenario, self.twin.as_ref(), self.lang)
    }

    /// What the embed's host has not heard yet, oldest first.
    pub fn host_events(&self, watcher: &mut Watcher) -> Vec<Value> {
        watcher.poll(Seen {
            loading: self.library.loading.as_deref(),
            error: self.error.as_deref(),
            scenario: &self.playground.scenario,
            lesson: self.lesson_view(),
            now_us: self.playground.now_us(),
            loaded: self.loaded,
            first_answers: &self.quiz.first,
        })
    }

    /// The question open now: the next caption's, while the lesson stands just before it.
    pub fn open_question(&self) -> Option<usize> {
        self.quiz.open_at(self.lesson_pos())
    }

    /// Whether caption `i` (from 0) has a question not yet settled: Next asks it first.
    pub fn asks_before(&self, i: usize) -> bool {
        self.question_at(i).is_some() && !self.quiz.settled.contains_key(&i)
    }

    pub(super) fn question_at(&self, i: usize) -> Option<&crate::scenario::question::Question> {
        self.playground
            .scenario
            .lesson
            .as_ref()
            .and_then(|l| l.captions.get(i))
            .and_then(|c| c.question.as_ref())
    }

    /// The question to show: the open one, or the one settled for the caption reached.
    pub fn question_view(&self) -> Option<QuestionView> {
        let pos = self.lesson_pos();
        let (i, state) = match (self.open_question(), pos.checked_sub(1)) {
            (Some(i), _) => (i, None),
            (None, Some(i)) => (i, Some(*self.quiz.settled.get(&i)?)),
            (None, None) => return None,
        };
        let q = self.question_at(i)?;
        let state = match state {
            None => QuestionState::Asking,
            Some(s) => QuestionState::Settled {
                answer: q.answer,
                picked: match s {
                    Settled::Picked(k) => Some(k),
                    Settled::Revealed => None,
                },
                explain: q.explain.get(self.lang).to_string(),
            },
        };
        Some(QuestionView {
            caption: i + 1,
            prompt: q.prompt.get(self.lang).to_string(),
            choices: q
                .choices
                .iter()
                .map(|c| c.get(self.lang).to_string())
                .collect(),
            state,
            checked: !q.checks.is_empty(),
        })
    }

    /// Where the lesson stands, in words, with its checks and its question.
    pub fn lesson_view(&self) -> Option<LessonView> {
        let page = self;
        let sc = &page.playground.scenario;
        let lang = page.lang;
        let lesson = sc.lesson.as_ref()?;
        let pos = page.lesson_pos();
        let caption = match pos {
            0 => sc.description.get(page.lang).to_string(),
            _ => lesson
                .captions
                .get(pos - 1)
                .map(|c| c.text.get(page.lang).to_string())
                .unwrap_or_default(),
        };
        let next = lesson.captions.get(pos).map(|c| match (c.at_ms, c.on) {
            (Some(t), _) => t!(lang, "to {}", text::fmt_us(t as i64 * 1000, lang)),
            (None, Some(m)) => t!(lang, "until {}", m.words(lang)),
            _ => String::new(),
        });
        let w = &page.playground.world;
        let facts = match (
            pos.checked_sub(1),
            pos.checked_sub(1).and_then(|i| page.lesson.mark(i)),
        ) {
            (Some(i), Some(m)) => {
                let c = &lesson.captions[i];
                c.checks
                    .iter()
                    .zip(&m.facts)
                    .map(|(c, ok)| (c.describe_in(lang), *ok))
                    .chain(c.twin_checks.iter().zip(&m.twin_facts).map(|(c, ok)| {
                        (
                            t!(lang, "on the safe twin: {what}", what = c.describe_in(lang)),
                            *ok,
                        )
                    }))
                    .collect()
            }
            _ => Vec::new(),
        };
        let score = Some(page.quiz.score(lesson)).filter(|s| s.2 > 0);
        let asking = page.open_question().is_some();
        let button = match (asking, page.presenter, &next) {
            (true, true, _) => (t!(lang, "Reveal the answer").to_string(), true),
            (true, false, _) => (t!(lang, "Answer the question").to_string(), false),
            (false, _, None) => (t!(lang, "The end").to_string(), false),
            // Where the next moment comes would give the question's answer away.
            (false, _, Some(_)) if page.asks_before(pos) => {
                (t!(lang, "Next: a question").to_string(), true)
            }
            (false, _, Some(n)) => (t!(lang, "Next: {n}"), true),
        };
        let score_line = score.map(|(right, answered, all)| match answered {
            0 => t!(lang, "{all} questions"),
            _ => t!(
                lang,
                "{right} of {answered} right on the first try · {all} questions"
            ),
        });
        let unchecked = crate::check::unchecked(w);
        let sides = twin::labels(&page.playground.scenario, page.twin.as_ref(), lang);
        let broken = twin::broken_invariants(w);
        let twin_checks = match &page.twin {
            Some(twin) => lesson
                .twin_checks
                .iter()
                .map(|c| (c.describe_in(lang), c.passed(&twin.playground.world)))
                .collect(),
            None => Vec::new(),
        };
        Some(LessonView {
            twin_checks,
            sides,
            button,
            score_line,
            untranslated: !crate::scenario::lesson::has_lang(sc, lang),
            facts,
            question: page.question_view(),
            score,
            title: lesson.title.get(page.lang).to_string(),
            pos,
            count: lesson.captions.len(),
            caption,
            next,
            checks: lesson
                .checks
                .iter()
                .map(|c| {
                    let mut what = match c {
                        // The invariant in words, as the stage names it.
                        crate::scenario::lesson::Claim::Violated { invariant } => {
                            crate::check::Invariant::from_name(invariant).map_or_else(
                                || c.describe_in(lang),
                                |i| {
                                    t!(
                                        lang,
                                        "violated: {label}",
                                        label = text::invariant_label(i, lang)
                                    )
                                },
                            )
                        }
                        _ => c.describe_in(lang),
                    };
                    if matches!(c, crate::scenario::lesson::Claim::NoViolations)
                        && !unchecked.is_empty()
                    {
                        what += &t!(
                            lang,
                            " (not checked in this run: {})",
                            unchecked
                                .iter()
                                .map(|i| text::invariant_label(*i, lang))
                                .collect::<Vec<_>>()
                                .join("; ")
                        );
                    }
                    (
                        what,
                        c.passed(w),
                        matches!(c, crate::scenario::lesson::Claim::Violated { .. }),
                    )
                })
                .collect(),
            broken_words: broken
                .iter()
                .map(|i| text::invariant_label(*i, lang))
                .collect::<Vec<_>>()
                .join("; "),
            broken: broken.iter().map(|i| i.name()).collect(),
        })
    }
}

/// The time bar: where the run stands on its timeline, and what the status line counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeBar {
    /// The run's moment and the end of what has run (the scrubber's range), virtual µs.
    pub now_us: u64,
    pub horizon_us: u64,
    pub events: u64,
    pub in_flight: usize,
    /// Take over: the run is back in what was played (a future to discard).
    pub can_take_over: bool,
}

impl Page {
    pub fn time_bar(&self) -> TimeBar {
        let (pg, w) = (&self.playground, &self.playground.world);
        TimeBar {
            now_us: w.now_us,
            horizon_us: pg.horizon_us.max(w.now_us).max(1),
            events: w.stats.events,
            in_flight: w.in_flight_count(),
            can_take_over: w.now_us < pg.horizon_us,
        }
    }
}
