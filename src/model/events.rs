//! "What happened": the latest lines of the run's trace in plain words, newest first.

use super::text::{describe, fmt_us};
use crate::lang::Lang;
use crate::sim::World;
use crate::trace::Event;

/// One line of the list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventRow {
    pub time: String,
    pub text: String,
    /// An invariant broke here.
    pub violation: bool,
}

/// The latest `n` trace lines that read as words ([`describe`]), newest first.
pub fn latest(w: &World, n: usize, lang: Lang) -> Vec<EventRow> {
    w.trace
        .lines
        .iter()
        .rev()
        .filter_map(|l| {
            describe(w, &l.ev, lang).map(|text| EventRow {
                time: fmt_us(l.t_us as i64, lang),
                text,
                violation: matches!(l.ev, Event::Violation { .. }),
            })
        })
        .take(n)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::at;

    #[test]
    fn the_latest_events_read_newest_first_in_words_and_a_violation_stands_out() {
        let p = at("gc-pause", 2_000_000);
        let rows = latest(&p.playground.world, 14, Lang::En);
        assert_eq!(rows.len(), 14);
        assert!(rows.iter().all(|r| !r.violation && !r.text.is_empty()));
        let w = &p.playground.world;
        let (t, newest) = w
            .trace
            .lines
            .iter()
            .rev()
            .find_map(|l| describe(w, &l.ev, Lang::En).map(|d| (l.t_us, d)))
            .unwrap();
        assert_eq!(
            (rows[0].time.as_str(), rows[0].text.as_str()),
            (fmt_us(t as i64, Lang::En).as_str(), newest.as_str())
        );
        assert_eq!(latest(&p.playground.world, 3, Lang::En)[..], rows[..3]);
        let p = at("gc-pause-no-fencing", 6_000_000);
        let rows = latest(&p.playground.world, 100, Lang::En);
        let bad = rows.iter().find(|r| r.violation).expect("a violation");
        assert!(bad.text.starts_with("VIOLATION "), "{}", bad.text);
        assert!(latest(&at("gc-pause", 0).playground.world, 14, Lang::En).len() < 14);
    }
}
