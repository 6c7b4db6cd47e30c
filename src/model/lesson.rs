//! Where a lesson stands in its run. Each caption's moment is found once, by a headless replay of
//! the scenario document; the lesson's position is then read off the run's state, so Next, Back,
//! a seek, a step back, the scrubber and `runTo` all put the lesson at the caption of that moment.

use crate::scenario::Scenario;
use crate::sim::World;

pub use crate::scenario::walk::{Mark, Walker, FIND_EVENTS_MAX};

/// The captions' moments for one scenario document.
#[derive(Clone, Default)]
pub struct LessonTrack {
    /// The document the marks were found in: a new action or another document finds them again.
    doc: Option<Scenario>,
    /// One per caption; `None` where the caption's moment never comes in the run. While the
    /// walk is on, the marks found so far.
    pub marks: Vec<Option<Mark>>,
    /// The replay finding the marks, while it goes on (the page runs it in slices).
    pub walking: Option<Box<Walker>>,
}

impl LessonTrack {
    /// Find the marks again if `scenario` is not the document they were found in.
    /// The marks are found by a [`Walker`]: [`LessonTrack::walk`] runs it, all at once or in
    /// slices.
    pub fn follow(&mut self, scenario: &Scenario) {
        if self.doc.as_ref() == Some(scenario) {
            return;
        }
        if self.walking.is_none()
            && self
                .doc
                .as_ref()
                .is_some_and(|old| self.still_hold(old, scenario))
        {
            self.doc = Some(scenario.clone());
            return;
        }
        self.marks = Vec::new();
        self.walking = scenario
            .lesson
            .as_ref()
            .map(|_| Box::new(Walker::new(scenario)));
        self.doc = Some(scenario.clone());
    }

    /// Walk on for at most `max_events` events. Returns whether the marks are all found.
    pub fn walk(&mut self, max_events: u64) -> bool {
        let Some(walker) = self.walking.as_mut() else {
            return true;
        };
        if walker.slice(max_events, &mut |_, _| {}) {
            let walker = self.walking.take().expect("walking");
            self.marks = walker.into_marks();
            true
        } else {
            self.marks = walker.found().to_vec();
            false
        }
    }

    /// Whether the marks found in `old` hold for `new` without a replay: the documents differ
    /// only in actions recorded from some moment on, and every caption came before it. (What a
    /// user does after the lesson's last caption, dragging a clock slider say, replays nothing.)
    fn still_hold(&self, old: &Scenario, new: &Scenario) -> bool {
        // Where the two timelines part, and the earliest action of either after that point.
        let (a, b) = (&old.timeline, &new.timeline);
        let split = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        let first_change_ms = a[split..].iter().chain(&b[split..]).map(|t| t.at_ms).min();
        let Some(from_ms) = first_change_ms else {
            return false;
        };
        let same_but_timeline = Scenario {
            timeline: new.timeline.clone(),
            ..old.clone()
        } == *new;
        same_but_timeline
            && self.marks.iter().all(|m| {
                m.as_ref()
                    .is_some_and(|m| m.t_us < from_ms.saturating_mul(1000))
            })
    }

    /// How many captions have been reached by a run at this state.
    pub fn position(&self, w: &World) -> usize {
        let (events, now) = (w.stats.events, w.now_us);
        self.marks
            .iter()
            .take_while(|m| {
                m.as_ref()
                    .is_some_and(|m| events > m.events || (events == m.events && now >= m.t_us))
            })
            .count()
    }

    pub fn mark(&self, i: usize) -> Option<&Mark> {
        self.marks.get(i).and_then(|m| m.as_ref())
    }
}

/// The step a reader sees for `pos` captions reached: the story before the first caption is
/// step 1, so a lesson of `count` captions has `count + 1` steps and never shows "step 0".
pub fn step_label(pos: usize, count: usize) -> (usize, usize) {
    (pos + 1, count + 1)
}

/// What the lesson panel shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LessonView {
    pub title: String,
    /// Captions reached, of `count`.
    pub pos: usize,
    pub count: usize,
    /// The scenario's story before the first caption, then the caption reached.
    pub caption: String,
    /// Where Next goes ("to 1.150 s", "until expire committed"); None at the end.
    pub next: Option<String>,
    /// Each expected outcome in words, whether the run so far satisfies it, and whether it is a
    /// broken invariant (a "break it" lesson expects one: shown in red, not as a green tick).
    pub checks: Vec<(String, bool, bool)>,
    /// The invariants broken so far.
    pub broken: Vec<&'static str>,
    /// The same in words, as the stage and the outcomes name them.
    pub broken_words: String,
    /// The facts the caption reached states, each in words with whether it held at the
    /// caption's moment (checked when the marks were found); those about the safe twin say so.
    pub facts: Vec<(String, bool)>,
    /// The expected outcomes on the safe twin, as they stand on it now.
    pub twin_checks: Vec<(String, bool)>,
    /// The two halves' labels (the run's, the twin's) when a twin is shown.
    pub sides: Option<(String, String)>,
    /// The question asked now, or the one settled for the caption reached.
    pub question: Option<super::quiz::QuestionView>,
    /// (right on the first try, answered, questions): None in a lesson without questions.
    pub score: Option<(usize, usize, usize)>,
    /// The Next button's label, and whether it can be pressed (a student answers an asked
    /// question instead; in presenter mode Next reveals it).
    pub button: (String, bool),
    /// The score in words ("1 of 2 right on the first try · 3 questions").
    pub score_line: Option<String>,
    /// The lesson has no text in the page's language: it is shown in the other one.
    pub untranslated: bool,
}
