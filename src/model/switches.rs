//! The design switches as their panel and the hunt's draw them: each safeguard, whether this
//! run has it off, and what turning it off breaks.

use super::text::{page_switches, switch_text};
use super::twin::safeguard_name;
use crate::lang::{t, Lang};
use crate::scenario::switch::Switch;
use crate::scenario::Scenario;

/// One switch's line: its box is checked while the safeguard is on (the seed's design).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwitchRow {
    /// The switch's name in documents, links and its elements' ids.
    pub name: &'static str,
    /// The safeguard it turns off, as a label: "Fencing".
    pub safeguard: String,
    /// What turning it off breaks, or what it broke in this run.
    pub breaks: String,
    /// Why the safeguard is there.
    pub why: &'static str,
    /// The run has the safeguard off.
    pub broken: bool,
}

/// The switches the panel offers ([`page_switches`]), as this run has them.
pub fn rows(sc: &Scenario, lang: Lang) -> Vec<SwitchRow> {
    page_switches()
        .map(|s| {
            let (label, why) = switch_text(s, lang);
            let broken = s.is_on(sc);
            SwitchRow {
                name: s.name(),
                safeguard: capitalized(safeguard_name(s, lang), lang),
                breaks: if broken {
                    t!(lang, " — off: {label} (the run restarted without it)")
                } else {
                    t!(lang, " — uncheck to break it: {label}")
                },
                why,
                broken,
            }
        })
        .collect()
}

/// What the hunt runs with: "every safeguard on", or the safeguards this run has off.
pub fn hunt_with(sc: &Scenario, lang: Lang) -> String {
    let off: Vec<&str> = Switch::ALL
        .into_iter()
        .filter(|s| s.is_on(sc))
        .map(|s| safeguard_name(s, lang))
        .collect();
    if off.is_empty() {
        t!(lang, "every safeguard on").to_string()
    } else {
        t!(lang, "these safeguards off: {}", off.join(", "))
    }
}

/// "fencing" → "Fencing": a label's first letter, except a Latin term kept in a Russian label
/// ("check-quorum" stays as it is).
fn capitalized(s: &str, lang: Lang) -> String {
    if lang != Lang::En && s.starts_with(|c: char| c.is_ascii()) {
        return s.to_string();
    }
    let mut c = s.chars();
    c.next()
        .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::builtin;

    #[test]
    fn each_safeguard_is_on_in_the_seed_and_off_where_a_break_it_turns_its_switch_on() {
        let seed = crate::model::default_scenario();
        let r = rows(&seed, Lang::En);
        assert_eq!(r.len(), page_switches().count());
        assert!(r
            .iter()
            .all(|r| !r.broken && r.breaks.starts_with(" — uncheck to break it: ")));
        let fencing = r
            .iter()
            .find(|r| r.name == "storage_ignores_tokens")
            .unwrap();
        assert_eq!(fencing.safeguard, "Fencing");
        assert!(!fencing.why.is_empty());
        let broken = builtin::get("gc-pause-no-fencing").unwrap();
        let r = rows(&broken, Lang::En);
        let off: Vec<_> = r.iter().filter(|r| r.broken).map(|r| r.name).collect();
        assert_eq!(off, ["storage_ignores_tokens"]);
        assert!(r
            .iter()
            .find(|r| r.broken)
            .unwrap()
            .breaks
            .ends_with(" (the run restarted without it)"));
    }

    #[test]
    fn the_hunt_says_which_safeguards_it_runs_without() {
        let seed = crate::model::default_scenario();
        assert_eq!(hunt_with(&seed, Lang::En), "every safeguard on");
        let broken = builtin::get("gc-pause-no-fencing").unwrap();
        assert_eq!(
            hunt_with(&broken, Lang::En),
            "these safeguards off: fencing"
        );
    }

    #[test]
    fn a_label_is_capitalized_except_a_latin_term_in_russian() {
        assert_eq!(capitalized("pre-vote", Lang::En), "Pre-vote");
        assert_eq!(capitalized("check-quorum", Lang::Ru), "check-quorum");
        assert_eq!(capitalized("ограждение", Lang::Ru), "Ограждение");
        assert_eq!(capitalized("", Lang::En), "");
    }
}
