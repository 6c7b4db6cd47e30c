//! A caption's question: asked before the caption's moment is played, so a student predicts
//! what the run will do, then sees it. The declared answer can be tied to facts of the run
//! (`checks`, evaluated at the caption's moment), so a question cannot ship with a wrong
//! "right" answer: `raftlock run` and the tests fail naming it.

use super::expect::Claim;
use crate::lang::{both, Lang, Text};
use serde::{Deserialize, Serialize};

/// How many choices a question may offer.
pub const CHOICES: std::ops::RangeInclusive<usize> = 2..=5;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Question {
    pub prompt: Text,
    pub choices: Vec<Text>,
    /// The right choice, counted from 0.
    pub answer: usize,
    /// Said once the student has answered (or the teacher revealed it): why.
    pub explain: Text,
    /// Facts that are true at the caption's moment because the answer is right. Without any,
    /// the answer is not checked by the run, and the page says so.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<Claim>,
}

impl Question {
    /// What is wrong with the question's shape, as (field, message).
    pub fn mistake(&self) -> Option<(&'static str, Text)> {
        if self.prompt.is_blank() || self.prompt.len() > 500 {
            return Some((
                "prompt",
                both!("a question needs a prompt of 1 to 500 characters"),
            ));
        }
        if !CHOICES.contains(&self.choices.len()) {
            return Some((
                "choices",
                both!(
                    "a question offers 2 to 5 choices, not {}",
                    self.choices.len()
                ),
            ));
        }
        if self.choices.iter().any(|c| c.is_blank() || c.len() > 200) {
            return Some(("choices", both!("every choice needs 1 to 200 characters")));
        }
        let mut seen = std::collections::BTreeSet::new();
        let distinct = Lang::ALL.iter().all(|&l| {
            seen.clear();
            self.choices.iter().all(|c| seen.insert(c.get(l).trim()))
        });
        if !distinct {
            return Some(("choices", both!("two choices say the same")));
        }
        if self.answer >= self.choices.len() {
            return Some((
                "answer",
                both!(
                    "{} is not a choice: the choices count from 0 to {}",
                    self.answer,
                    self.choices.len() - 1
                ),
            ));
        }
        if self.explain.len() > 1000 {
            return Some(("explain", both!("at most 1,000 characters")));
        }
        if self.checks.len() > 8 {
            return Some(("checks", both!("at most 8 facts")));
        }
        None
    }

    /// The question in a line, for messages: its prompt, cut short.
    pub fn name(&self) -> String {
        let p = self.prompt.get(Lang::En).trim();
        match p.char_indices().nth(60) {
            Some((i, _)) => format!("\"{}…\"", &p[..i]),
            None => format!("\"{p}\""),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(json: &str) -> Result<Question, serde_json::Error> {
        serde_json::from_str(json)
    }

    #[test]
    fn a_malformed_question_is_named_by_its_field() {
        let ok = r#"{"prompt":"B's token?","choices":["3","4"],"answer":1,"explain":"index 3 is the Expire"}"#;
        assert_eq!(q(ok).unwrap().mistake(), None);
        let one = q(r#"{"prompt":"?","choices":["3"],"answer":0,"explain":""}"#).unwrap();
        assert_eq!(one.mistake().unwrap().0, "choices");
        let out = q(r#"{"prompt":"?","choices":["3","4"],"answer":2,"explain":""}"#).unwrap();
        let (field, msg) = out.mistake().unwrap();
        assert_eq!(field, "answer");
        assert!(msg.en.contains("0 to 1"), "{msg}");
        let same = q(r#"{"prompt":"?","choices":["3"," 3"],"answer":0,"explain":""}"#).unwrap();
        assert_eq!(same.mistake().unwrap().0, "choices");
        let blank = q(r#"{"prompt":" ","choices":["a","b"],"answer":0,"explain":""}"#).unwrap();
        assert_eq!(blank.mistake().unwrap().0, "prompt");
        assert!(
            q(r#"{"prompt":"?","choices":["a","b"],"answer":0,"explain":"","why":1}"#).is_err()
        );
    }
}
