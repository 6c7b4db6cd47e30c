//! The start screen: what the bare address opens on. One sentence on what this is, the first
//! lesson, free play, the lessons as numbered cards, and the lesson a returning reader left. A
//! share link or a deep link opens straight on its scenario instead.

use crate::lang::{t, Lang};
use crate::scenario::builtin;

/// Where a reader left off: a built-in lesson and how many of its captions they had reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Left {
    pub name: String,
    pub pos: usize,
}

impl Left {
    /// As local storage keeps it, "NAME POS"; anything else (an old or edited value, a name that
    /// is no longer a built-in) is nothing.
    pub fn parse(stored: &str) -> Option<Left> {
        let (name, pos) = stored.trim().split_once(' ')?;
        let pos = pos.parse().ok()?;
        (builtin::is_builtin(name) && name != "playground").then(|| Left {
            name: name.to_string(),
            pos,
        })
    }

    pub fn stored(&self) -> String {
        format!("{} {}", self.name, self.pos)
    }
}

/// What the reader picks on the start screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    FirstLesson,
    /// Lesson `n` of the list (1-based, as the cards number them).
    Lesson(usize),
    /// The lesson the reader left.
    Continue,
    FreePlay,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Start {
    pub open: bool,
    pub left: Option<Left>,
}

/// The lessons in the order the start screen numbers them: the built-ins with captions, free
/// play left out (it has its own button).
pub fn lessons() -> impl Iterator<Item = &'static str> {
    builtin::names().filter(|n| *n != "playground")
}

/// A lesson's card on the start screen. It comes with the page: the lessons' files are
/// fetched only when one opens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Card {
    /// Its number on the screen, from 1 (as [`Choice::Lesson`] counts).
    pub n: usize,
    pub name: &'static str,
    pub title: String,
    /// The first sentence of its story.
    pub story: Option<String>,
    /// Under the story: its number of steps and the length of its run, after "Break it" for
    /// one that breaks a safeguard.
    pub length: String,
    pub break_it: bool,
}

/// The lessons' cards, numbered as [`lessons`] orders them.
pub fn cards(lang: Lang) -> Vec<Card> {
    lessons()
        .enumerate()
        .map(|(i, name)| {
            let (story, length) = match builtin::card(name) {
                Some((line, steps, run_ms)) => (
                    Some(line.get(lang).to_string()),
                    t!(
                        lang,
                        "{steps} steps · {} s of run",
                        run_ms / 1000,
                        steps = steps + 1
                    ),
                ),
                None => (None, String::new()),
            };
            let break_it = builtin::is_break_it(name);
            Card {
                n: i + 1,
                name,
                title: super::catalog::title_or_name(name, lang),
                story,
                length: if break_it {
                    format!("{} · {length}", t!(lang, "Break it"))
                } else {
                    length
                },
                break_it,
            }
        })
        .collect()
}

/// The built-in a choice opens (`None`: free play, or a number out of range, or nothing left).
pub fn chosen(choice: &Choice, left: Option<&Left>) -> Option<String> {
    match choice {
        Choice::FirstLesson => lessons().next().map(str::to_string),
        Choice::Lesson(n) => lessons().nth(n.checked_sub(1)?).map(str::to_string),
        Choice::Continue => left.map(|l| l.name.clone()),
        Choice::FreePlay => None,
    }
}

/// Whether a fragment (after `lang` and `embed/` are taken out) opens the start screen: only
/// the bare address does.
pub fn opens_on(frag: &str, embed: bool) -> bool {
    !embed && frag.trim_start_matches('#').is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bare_address_opens_the_start_screen_and_a_link_does_not() {
        assert!(opens_on("", false));
        assert!(opens_on("#", false));
        assert!(!opens_on("", true), "the embed player opens on its run");
        assert!(!opens_on("scenario=gc-pause", false));
        assert!(!opens_on("scenarios", false));
        assert!(!opens_on("v1.abc", false));
    }

    #[test]
    fn a_choice_opens_the_first_lesson_a_numbered_one_or_the_one_left() {
        assert_eq!(
            chosen(&Choice::FirstLesson, None).as_deref(),
            Some("gc-pause")
        );
        assert_eq!(
            chosen(&Choice::Lesson(2), None).as_deref(),
            Some("late-expire")
        );
        assert_eq!(chosen(&Choice::Lesson(0), None), None);
        assert_eq!(chosen(&Choice::Lesson(99), None), None);
        assert_eq!(chosen(&Choice::FreePlay, None), None);
        let left = Left::parse("drift-and-jump 4").unwrap();
        assert_eq!(
            chosen(&Choice::Continue, Some(&left)).as_deref(),
            Some("drift-and-jump")
        );
        assert_eq!(chosen(&Choice::Continue, None), None);
        assert!(lessons().all(|n| n != "playground"));
    }

    #[test]
    fn the_start_screen_numbers_every_lesson_with_its_title_story_and_length() {
        let en = cards(Lang::En);
        assert_eq!(en.len(), lessons().count());
        assert!(en.iter().enumerate().all(|(i, c)| c.n == i + 1));
        let first = &en[0];
        assert_eq!(first.name, "gc-pause");
        assert_eq!(first.title, "GC pause and fencing tokens");
        assert!(first.story.as_deref().is_some_and(|s| !s.is_empty()));
        assert!(
            first.length.ends_with(" s of run") && first.length.contains(" steps · "),
            "{}",
            first.length
        );
        let broken = en.iter().find(|c| c.name == "break-figure-8").unwrap();
        assert!(broken.break_it && broken.length.starts_with("Break it · "));
        // The lesson a choice opens is the card of that number.
        assert_eq!(
            chosen(&Choice::Lesson(3), None).as_deref(),
            Some(en[2].name)
        );
        let ru = cards(Lang::Ru);
        assert_ne!(ru[0].title, first.title);
        assert!(ru
            .iter()
            .find(|c| c.break_it)
            .unwrap()
            .length
            .starts_with("Ломаем"));
    }

    #[test]
    fn a_stored_place_is_read_back_and_a_broken_one_is_nothing() {
        let l = Left::parse("gc-pause 3").unwrap();
        assert_eq!((l.name.as_str(), l.pos), ("gc-pause", 3));
        assert_eq!(Left::parse(&l.stored()), Some(l));
        for bad in [
            "",
            "gc-pause",
            "gc-pause x",
            "no-such-lesson 2",
            "playground 1",
            "gc-pause -1",
        ] {
            assert_eq!(Left::parse(bad), None, "{bad:?}");
        }
    }
}
