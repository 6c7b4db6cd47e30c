//! The page's build has no Russian texts until a reader asks for them (`ru.json`, fetched). A
//! finding is made in both languages at once, maybe before: its texts are `tb!` and `both!`,
//! with their Russian built in, so it reads in Russian after a later switch too. This test
//! runs without the `ru-texts` feature (`make test-native`: `cargo test -p raftlock-core
//! --no-default-features --features builtin-docs --test findings_in_russian`); with it, every
//! text has its Russian anyway and there is nothing to check.
#![cfg(not(feature = "ru-texts"))]

use raftlock_core::lang::{self, Lang};
use raftlock_core::scenario::hunt;

/// Words that stay as they are in Russian: the seed's commands and results, switch names.
const IDENTIFIERS: &[&str] = &[
    "Grant",
    "Release",
    "Expire",
    "Granted",
    "Released",
    "Expired",
    "GrantRejected",
    "NotFound",
    "Noop",
    "token",
    "existed",
    "switches",
    "check",
    "quorum",
    "storage",
    "ignores",
    "tokens",
    "ghost",
    "release",
    "without",
    "holder",
    "pre",
    "vote",
];

fn russian(s: &str) -> bool {
    s.chars().any(|c| matches!(c, 'а'..='я' | 'А'..='Я' | 'ё'))
}

#[test]
fn findings_read_in_russian_without_the_fetched_texts() {
    assert!(!lang::russian_ready(), "this build fetches its Russian");
    // The Russian of the other texts is not here: English stands in.
    assert_eq!(lang::t!(Lang::Ru, "Play"), "Play");
    for switch in [
        "no_check_quorum",
        "storage_ignores_tokens",
        "no_ghost_release",
        "release_without_holder_check",
    ] {
        let b = hunt::hunt_batch(&[switch], 0, 200).expect("a known switch");
        let (seed, invariant) = b
            .failed
            .unwrap_or_else(|| panic!("{switch}: no seed fails"));
        let f = hunt::shrink_seed(&[switch], seed)
            .expect("runs")
            .unwrap_or_else(|| panic!("{switch}: seed {seed} fails again"));
        assert_eq!(f.invariant, invariant);
        assert!(russian(&f.detail.ru), "{switch}: {:?}", f.detail);
        // No English word left in the Russian (a helper's `t!` inside would leave one).
        for text in [f.detail.ru.as_str(), f.shrunk.description.get(Lang::Ru)] {
            let english: Vec<&str> = text
                .split(|c: char| !c.is_ascii_alphabetic())
                .filter(|w| w.len() >= 3 && !IDENTIFIERS.contains(w))
                .collect();
            assert!(english.is_empty(), "{switch}: {english:?} in {text}");
        }
        let story = f.shrunk.description.get(Lang::Ru);
        assert!(
            russian(story) && story.contains("Найдено"),
            "{switch}: {story}"
        );
        assert!(!russian(&f.detail.en), "{switch}: {:?}", f.detail);
    }
}
