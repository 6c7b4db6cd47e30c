//! The safe twin: the same document and the same seed with the safeguards a "Break it" lesson
//! turns off turned back on. The page runs it beside the lesson's run, moment by moment, and a
//! lesson's `twin_checks` are read on it, so what the safeguard prevents is a fact the run
//! checks, not a claim.

use super::switch::Switch;
use super::Scenario;
use crate::client::Step;

/// The switches on in `sc` that break an invariant (a safeguard turned off): what a "Break it"
/// lesson is about. `release_with_token` is a design alternative, not a broken safeguard. A
/// client that keeps no margin counts as `client_no_margin` even when the others keep one.
pub fn broken_switches(sc: &Scenario) -> Vec<Switch> {
    Switch::ALL
        .into_iter()
        .filter(|s| s.breaks().is_some() && (s.is_on(sc) || keeps_no_margin(*s, sc)))
        .collect()
}

fn keeps_no_margin(s: Switch, sc: &Scenario) -> bool {
    s == Switch::ClientNoMargin && sc.clients.iter().any(|c| c.margin_ms == 0)
}

/// `sc` with each of `flips` turned the other way, without its lesson (the twin is shown beside
/// the lesson's run; it is not a lesson of its own). Same seed, same clients, same timeline.
/// A client without a margin gets one that covers its clock's drift ([`margin_for_drift_ms`]).
pub fn flipped(sc: &Scenario, flips: &[Switch]) -> Scenario {
    let mut twin = sc.clone();
    for s in flips {
        if keeps_no_margin(*s, sc) {
            for c in twin.clients.iter_mut().filter(|c| c.margin_ms == 0) {
                c.margin_ms = margin_for_drift_ms(c);
            }
        } else {
            s.set(&mut twin, !s.is_on(sc));
        }
    }
    twin.lesson = None;
    twin
}

/// A margin that keeps a client safe from its own clock: a slow clock (rate below true time)
/// counts a lease of L ms over L / rate of true time, so the client gives up L × (1 − rate) of
/// its longest lease early, plus the usual 100 ms for the servers' own drift and delays.
pub fn margin_for_drift_ms(c: &crate::client::ClientConfig) -> u64 {
    let lease_ms = c
        .script
        .iter()
        .filter_map(|s| match s {
            Step::Acquire { lease_ms, .. } => Some(*lease_ms),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let slow_ppm = 1_000_000u64.saturating_sub(c.rate_ppm as u64);
    (lease_ms * slow_ppm).div_ceil(1_000_000) + 100
}

/// The safe twin of a document that turns safeguards off, with the switches it flips; `None`
/// for a document with every safeguard on.
pub fn safe_twin(sc: &Scenario) -> Option<(Scenario, Vec<Switch>)> {
    let flips = broken_switches(sc);
    (!flips.is_empty()).then(|| (flipped(sc, &flips), flips))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::builtin;

    #[test]
    fn a_break_it_lesson_has_a_twin_with_every_safeguard_on() {
        let sc = builtin::get("break-token-counter").unwrap();
        let (twin, flips) = safe_twin(&sc).unwrap();
        assert_eq!(flips, vec![Switch::TokenFromLeaderCounter]);
        assert!(broken_switches(&twin).is_empty());
        assert_eq!(
            (twin.seed, &twin.clients, &twin.timeline),
            (sc.seed, &sc.clients, &sc.timeline)
        );
        assert!(twin.lesson.is_none());
    }

    #[test]
    fn a_client_without_a_margin_gets_one_that_covers_its_drift_in_the_twin() {
        let sc = builtin::get("break-client-no-margin").unwrap();
        let (twin, flips) = safe_twin(&sc).unwrap();
        assert_eq!(flips, vec![Switch::ClientNoMargin]);
        // A counts a 1 s lease on a clock at half speed: it gives up 0.5 s early, plus 0.1 s.
        assert_eq!(twin.clients[0].margin_ms, 600);
        assert_eq!(twin.clients[1].margin_ms, sc.clients[1].margin_ms);
    }

    #[test]
    fn a_safe_lesson_has_no_twin() {
        assert!(safe_twin(&builtin::get("gc-pause").unwrap()).is_none());
    }

    #[test]
    fn flipping_twice_gives_the_document_back() {
        let sc = builtin::get("break-no-pre-vote").unwrap();
        let flips = broken_switches(&sc);
        let back = flipped(&flipped(&sc, &flips), &flips);
        assert_eq!(
            Scenario {
                lesson: sc.lesson.clone(),
                ..back
            },
            sc
        );
    }
}
