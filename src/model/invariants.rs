//! The invariants panel: the sixteen invariants, green until one breaks (or grey while this run
//! cannot check it), and the verdict of the clients' history check.

use super::history::Checks;
use super::text::{fmt_us, invariant_label};
use crate::check::{unchecked_why, INVARIANTS};
use crate::lang::{t, Lang};
use crate::sim::World;

/// Where an invariant stands in this run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    Holds,
    /// Not checked in this run, and not broken before it stopped being checked.
    Unchecked,
    Broken,
}

impl Standing {
    /// Its class on the page.
    pub fn class(self) -> &'static str {
        match self {
            Standing::Holds => "ok",
            Standing::Unchecked => "unchecked",
            Standing::Broken => "broken",
        }
    }

    /// The mark before its label.
    pub fn mark(self) -> &'static str {
        match self {
            Standing::Holds => "✓ ",
            Standing::Unchecked => "– ",
            Standing::Broken => "✗ ",
        }
    }
}

/// One invariant's line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvariantRow {
    /// Its name in the trace and in its element's id.
    pub name: &'static str,
    pub label: String,
    pub standing: Standing,
    /// " — 2 violation(s)", or empty while it has none.
    pub violations: String,
    /// " — not checked: server clocks drifted or jumped", or empty while it is checked.
    pub unchecked: String,
}

/// Every invariant's line, in the checker's order.
pub fn rows(w: &World, lang: Lang) -> Vec<InvariantRow> {
    INVARIANTS
        .iter()
        .map(|&inv| {
            let n = w.checker().broken.get(&inv).copied().unwrap_or(0);
            let why = unchecked_why(w, inv);
            InvariantRow {
                name: inv.name(),
                label: invariant_label(inv, lang),
                standing: match (n, why.is_none()) {
                    (0, false) => Standing::Unchecked,
                    (0, true) => Standing::Holds,
                    _ => Standing::Broken,
                },
                violations: if n > 0 {
                    t!(lang, " — {n} violation(s)")
                } else {
                    String::new()
                },
                unchecked: why
                    .map(|why| t!(lang, " — not checked: {why}", why = why.get(lang)))
                    .unwrap_or_default(),
            }
        })
        .collect()
}

/// The last history check's verdict, in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Server clocks drifted or jumped: the check says nothing.
    NotChecked(String),
    Linearizable(String),
    /// Not linearizable; the moment after the failing prefix's end, to show it on the diagram.
    Fails {
        text: String,
        show_at_us: u64,
    },
}

/// The last history check's verdict (None: no check yet, or one in progress).
pub fn verdict(checks: &Checks, lang: Lang) -> Option<Verdict> {
    let (at, v) = checks.last.as_ref()?;
    let time = fmt_us(*at as i64, lang);
    Some(match v.as_deref() {
        None => Verdict::NotChecked(t!(lang, "At {time}: not checked — server clocks drifted or jumped, so lease expiry says nothing about true time.")),
        Some(Ok(holds)) => Verdict::Linearizable(t!(lang, "✓ At {time}: what the clients saw is linearizable as a mutex with leases ({holds} holds, in token order; drawn on the space-time diagram as bars on the client lanes).", holds = holds.len())),
        Some(Err(e)) => Verdict::Fails {
            text: t!(lang, "✗ At {time}: not linearizable as a mutex. The shortest failing prefix ends at {end}: {e}. ", end = fmt_us(e.at_us as i64, lang), e = e.message_in(lang)),
            show_at_us: e.at_us + 300_000,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::history::Conflict;
    use crate::model::testing::at;

    use std::rc::Rc;

    #[test]
    fn every_invariant_holds_until_one_breaks_and_counts_its_violations() {
        let p = at("gc-pause", 6_000_000);
        let r = rows(&p.playground.world, Lang::En);
        assert_eq!(r.len(), 16);
        assert!(r.iter().all(|r| r.standing == Standing::Holds
            && r.violations.is_empty()
            && r.unchecked.is_empty()));
        assert_eq!(r[0].name, INVARIANTS[0].name());
        let p = at("gc-pause-no-fencing", 6_000_000);
        let r = rows(&p.playground.world, Lang::En);
        let stale = r
            .iter()
            .find(|r| r.name == "storage_accepts_stale_token")
            .unwrap();
        assert_eq!(stale.standing, Standing::Broken);
        assert_eq!(stale.label, "the storage never accepts a stale token");
        assert!(stale.violations.starts_with(" — ") && stale.violations.ends_with(" violation(s)"));
        assert_eq!(
            (stale.standing.class(), stale.standing.mark()),
            ("broken", "✗ ")
        );
    }

    #[test]
    fn an_invariant_that_needs_true_clocks_is_unchecked_once_they_drift_and_says_why() {
        let p = at("drift-and-jump", 10_000_000);
        let r = rows(&p.playground.world, Lang::En);
        let grey: Vec<_> = r
            .iter()
            .filter(|r| r.standing == Standing::Unchecked)
            .collect();
        assert!(!grey.is_empty());
        assert!(grey
            .iter()
            .all(|r| r.unchecked == " — not checked: server clocks drifted or jumped"));
        assert_eq!(
            (grey[0].standing.class(), grey[0].standing.mark()),
            ("unchecked", "– ")
        );
        let ru = rows(&p.playground.world, Lang::Ru);
        assert!(ru.iter().any(|r| r.unchecked.contains("не проверяется")));
    }

    #[test]
    fn the_history_verdict_says_what_the_clients_saw_or_where_it_fails() {
        let mut checks = Checks::default();
        assert_eq!(verdict(&checks, Lang::En), None);
        checks.last = Some((2_000_000, None));
        assert!(
            matches!(verdict(&checks, Lang::En), Some(Verdict::NotChecked(t)) if t.starts_with("At 2.000 s: not checked"))
        );
        checks.last = Some((2_000_000, Some(Rc::new(Ok(Vec::new())))));
        assert!(
            matches!(verdict(&checks, Lang::En), Some(Verdict::Linearizable(t)) if t.contains("(0 holds"))
        );
        let conflict = Conflict {
            message: "two holders".into(),
            ru: "два владельца".into(),
            ops: [0, 1],
            at_us: 1_500_000,
        };
        checks.last = Some((2_000_000, Some(Rc::new(Err(conflict)))));
        let Some(Verdict::Fails { text, show_at_us }) = verdict(&checks, Lang::En) else {
            panic!("a failing verdict")
        };
        assert_eq!(show_at_us, 1_800_000);
        assert!(text.contains("ends at 1.500 s: two holders."), "{text}");
        let Some(Verdict::Fails { text, .. }) = verdict(&checks, Lang::Ru) else {
            panic!("a failing verdict")
        };
        assert!(text.contains("два владельца"), "{text}");
    }
}
