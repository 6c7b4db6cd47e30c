//! A lesson's questions in the page: Next opens the next caption's question before its moment
//! is played; the student answers (or, in presenter mode, the teacher reveals the answer to
//! the room), and then the moment plays. The first answer to each question is scored, in the
//! page only.

use crate::lang::t;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Quiz {
    /// The caption (from 0) whose question is open, asked at the moment before its own.
    pub open: Option<usize>,
    /// Per caption with a question: the first choice picked (what the score counts).
    pub first: BTreeMap<usize, usize>,
    /// Per caption: how its question was settled, shown with the explanation at its moment.
    pub settled: BTreeMap<usize, Settled>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settled {
    /// The student picked this choice (the latest pick).
    Picked(usize),
    /// The teacher revealed the answer to the room.
    Revealed,
}

/// What the lesson panel shows of a question.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuestionView {
    /// The caption (from 1) the question belongs to.
    pub caption: usize,
    pub prompt: String,
    pub choices: Vec<String>,
    pub state: QuestionState,
    /// Whether the declared answer is checked against the run (the question has facts).
    pub checked: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QuestionState {
    /// Waiting for an answer (or, in presenter mode, for Reveal).
    Asking,
    /// Answered or revealed: the right choice, the one picked (None: revealed), and why.
    Settled {
        answer: usize,
        picked: Option<usize>,
        explain: String,
    },
}

impl Quiz {
    /// The score: (right on the first try, answered, questions in the lesson).
    pub fn score(&self, lesson: &crate::scenario::lesson::Lesson) -> (usize, usize, usize) {
        let questions = lesson
            .captions
            .iter()
            .filter(|c| c.question.is_some())
            .count();
        let right = self
            .first
            .iter()
            .filter(|(i, k)| {
                lesson
                    .captions
                    .get(**i)
                    .and_then(|c| c.question.as_ref())
                    .is_some_and(|q| q.answer == **k)
            })
            .count();
        (right, self.first.len(), questions)
    }
}

impl super::Page {
    /// The question open now: the next caption's, while the lesson stands just before it.
    pub fn open_question(&self) -> Option<usize> {
        self.quiz.open.filter(|i| *i == self.lesson_pos())
    }

    /// Whether caption `i` (from 0) has a question not yet settled: Next asks it first.
    pub fn asks_before(&self, i: usize) -> bool {
        self.question_at(i).is_some() && !self.quiz.settled.contains_key(&i)
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
        self.quiz.open = Some(pos);
        true
    }

    /// The student's answer to the open question: scored if first, then the moment plays.
    pub(super) fn answer(&mut self, choice: usize) {
        let Some(i) = self.open_question() else {
            self.error = Some(t!(self.lang, "There is no question to answer now.").into());
            return;
        };
        let n = self.question_at(i).map_or(0, |q| q.choices.len());
        if choice >= n {
            self.error = Some(t!(self.lang, "Choose one of the {n} answers."));
            return;
        }
        self.quiz.first.entry(i).or_insert(choice);
        self.quiz.settled.insert(i, Settled::Picked(choice));
        self.quiz.open = None;
        self.lesson_next();
    }

    /// Presenter mode: show the room the right answer, then play the moment.
    pub(super) fn reveal(&mut self) {
        let Some(i) = self.open_question() else {
            self.error = Some(t!(self.lang, "There is no question to reveal now.").into());
            return;
        };
        self.quiz.settled.insert(i, Settled::Revealed);
        self.quiz.open = None;
        self.lesson_next();
    }

    fn question_at(&self, i: usize) -> Option<&crate::scenario::question::Question> {
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
}
