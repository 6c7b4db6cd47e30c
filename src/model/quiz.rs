//! A lesson's questions in the page: Next opens the next caption's question before its moment
//! is played; the student answers (or, in presenter mode, the teacher reveals the answer to
//! the room), and then the moment plays. The first answer to each question is scored, in the
//! page only.

use crate::lang::{t, Lang};
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

impl Quiz {
    /// The question open now (`pos`: the captions reached): the next caption's, while the
    /// lesson stands just before it.
    pub fn open_at(&self, pos: usize) -> Option<usize> {
        self.open.filter(|i| *i == pos)
    }

    /// Next at caption `pos`, whose question is not settled: ask it (again, if asked).
    pub fn ask(&mut self, pos: usize) {
        self.open = Some(pos);
    }

    /// The answer `choice` to the question open at `pos`, which has `choices` choices: the
    /// first answer is the one scored. Why not, when it is refused.
    pub fn answer(
        &mut self,
        pos: usize,
        choice: usize,
        choices: usize,
        lang: Lang,
    ) -> Result<(), String> {
        let i = self
            .open_at(pos)
            .ok_or_else(|| t!(lang, "There is no question to answer now.").to_string())?;
        if choice >= choices {
            let n = choices;
            return Err(t!(lang, "Choose one of the {n} answers."));
        }
        self.first.entry(i).or_insert(choice);
        self.settled.insert(i, Settled::Picked(choice));
        self.open = None;
        Ok(())
    }

    /// Presenter mode: the answer to the question open at `pos` shown to the room.
    pub fn reveal(&mut self, pos: usize, lang: Lang) -> Result<(), String> {
        let i = self
            .open_at(pos)
            .ok_or_else(|| t!(lang, "There is no question to reveal now.").to_string())?;
        self.settled.insert(i, Settled::Revealed);
        self.open = None;
        Ok(())
    }
}
