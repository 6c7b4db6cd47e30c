//! The start screen: what the bare address opens on. One sentence on what this is, the first
//! lesson, free play, the lessons as numbered cards, and the lesson a returning reader left. A
//! share link or a deep link opens straight on its scenario instead.

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
