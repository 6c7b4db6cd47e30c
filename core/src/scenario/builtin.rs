//! The built-in narrated scenarios (files under `scenarios/`; the
//! catalogue is compiled in, the documents where the build carries them). Each carries its
//! story in `description` and its captions and expected outcomes in `lesson`.

use super::Scenario;
use crate::lang::Text;

include!(concat!(env!("OUT_DIR"), "/builtins.rs"));

/// The built-ins in classroom order (each a file `scenarios/NAME.json`).
pub const NAMES: &[&str] = &[
    "gc-pause",
    "late-expire",
    "ghost-lock",
    "leader-crash-mid-lease",
    "isolated-old-leader",
    "paused-leader",
    "uncommitted-grant",
    "consistency-check",
    "drift-and-jump",
    "client-clock-jump",
    "full-restart",
    "log-compaction",
    "retried-grant",
    "retry-across-leader-change",
    "rejoin-without-prevote",
    "rejoin-with-prevote",
    "three-clients",
    "membership-one-at-a-time",
    "gc-pause-no-fencing",
    "break-expire-ignores-token",
    "break-followers-delete",
    "break-token-counter",
    "break-no-ghost-release",
    "break-release-without-holder-check",
    "break-client-no-margin",
    "break-no-pre-vote",
    "break-no-check-quorum",
    "break-figure-8",
    "break-vote-not-durable",
    "break-conf-before-noop",
    "playground",
];

/// The "break it" scenarios: each switches off one safeguard and turns a named invariant red.
pub fn is_break_it(name: &str) -> bool {
    name.starts_with("break-") || name.ends_with("-no-fencing")
}

pub fn names() -> impl Iterator<Item = &'static str> {
    NAMES.iter().copied()
}

/// Whether `name` is a built-in (its document may still have to be fetched: [`document`]).
pub fn is_builtin(name: &str) -> bool {
    NAMES.contains(&name)
}

/// A built-in's title (empty for free play), without its document.
pub fn title(name: &str) -> Option<Text> {
    TITLES
        .binary_search_by(|(n, _, _)| n.cmp(&name))
        .ok()
        .map(|i| Text::new(TITLES[i].1, TITLES[i].2))
}

/// A built-in's card for the start screen, without its document: the first sentence of its
/// story, its number of captions and the length of its run in ms.
pub fn card(name: &str) -> Option<(Text, usize, u64)> {
    CARDS
        .binary_search_by(|c| c.0.cmp(name))
        .ok()
        .map(|i| (Text::new(CARDS[i].1, CARDS[i].2), CARDS[i].3, CARDS[i].4))
}

/// A built-in's document when this build carries it (the `builtin-docs` feature); the page's
/// build fetches it from `scenarios/NAME.json` instead.
pub fn document(name: &str) -> Option<&'static str> {
    #[cfg(feature = "builtin-docs")]
    {
        DOCS.binary_search_by(|(n, _)| n.cmp(&name))
            .ok()
            .map(|i| DOCS[i].1)
    }
    #[cfg(not(feature = "builtin-docs"))]
    {
        let _ = name;
        None
    }
}

/// A built-in scenario, when this build carries its document.
pub fn get(name: &str) -> Option<Scenario> {
    document(name).map(|json| Scenario::from_json(json).expect("built-in scenarios are valid"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_under_scenarios_is_a_listed_builtin_with_its_title() {
        let mut names: Vec<&str> = NAMES.to_vec();
        names.sort_unstable();
        let files: Vec<&str> = TITLES.iter().map(|t| t.0).collect();
        assert_eq!(names, files);
        for name in NAMES {
            let sc = get(name).expect(name);
            let want = sc.lesson.map(|l| l.title).unwrap_or_default();
            assert_eq!(title(name), Some(want), "{name}");
            assert_eq!(sc.name, *name, "the file's name is the scenario's");
        }
        assert_eq!(title("no-such"), None);
        assert!(!is_builtin("no-such") && is_builtin("ghost-lock"));
    }
}
