//! What moves while a run plays (lease countdowns, messages in flight, the space-time diagram)
//! drawn with as few DOM writes as keep it exact at every draw.
//!
//! - The lock view's bar is one `transform` a draw (the core's `lease_fraction`); in the
//!   diagram a lease is its interval in true time ([`Countdown`]), written only when its lease
//!   changes.
//! - A message in flight keeps its place among the drawing's messages while it flies
//!   ([`FlightPlaces`]): a draw moves it (one `transform`), and a new message takes the place of
//!   one delivered (its kind's class and letter change only when the kind differs). At 1× or
//!   faster most messages fly for less than a frame, and they are drawn anew on one played
//!   frame in three ([`messages_due`]).
//! - The diagram's marks are drawn at their own time relative to a base that moves a whole
//!   window at a time ([`Scroll`]), in a group shifted by one `transform` at each draw.
//!
//! Measured, not assumed: CSS animations of these parts (the browser moving them between two
//! draws) made frames slower, not faster. With about a hundred running animations (the bars of
//! a busy lock view, the messages, the scroll) the frames over 20 ms at 1× went from 25 to 340
//! of 600 and our work under a 4× CPU throttle from 15 to 78 ms p50 (`scripts/frames.mjs`).

use crate::sim::clock::{Clock, PPM_ONE};
use crate::sim::Flight;

/// A lease countdown on a node's own clock, as a line in true time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Countdown {
    /// The true time at which the node's clock reaches the deadline (its countdown ends).
    pub end_us: u64,
    /// A whole lease in true time at the node's rate.
    pub span_us: u64,
}

impl Countdown {
    /// The countdown of a lease of `lease_ms` that ends when `clock` reads `deadline_local_us`,
    /// seen at true time `now_us` (a clock set to another rate or jumped later gives another).
    pub fn of(clock: &Clock, deadline_local_us: i64, lease_ms: u64, now_us: u64) -> Countdown {
        let whole_local = lease_ms.max(1) as u128 * 1000;
        Countdown {
            end_us: clock.true_when(deadline_local_us, now_us),
            span_us: (whole_local * PPM_ONE as u128 / clock.rate_ppm().max(1) as u128)
                .min(u64::MAX as u128) as u64,
        }
    }
}

/// How far along its line a message stands at `now_us`, 0 to 1.
pub fn flight_fraction(m: &Flight, now_us: u64) -> f64 {
    let d = m.at_us.saturating_sub(m.sent_us).max(1) as f64;
    ((now_us as f64 - m.sent_us as f64) / d).clamp(0.0, 1.0)
}

/// Where a message from `p` to `q` (drawing coordinates) stands at `now_us`.
pub fn flight_at(m: &Flight, p: (f64, f64), q: (f64, f64), now_us: u64) -> (f64, f64) {
    let f = flight_fraction(m, now_us);
    (p.0 + (q.0 - p.0) * f, p.1 + (q.1 - p.1) * f)
}

/// Whether the messages in flight are drawn anew at this draw (their set and where they stand).
/// While a run plays at 1× or faster most messages fly for less than a frame and the set is new
/// at every draw: it is drawn on one played frame in three (20 times a second), and in the other
/// two the messages stay where they were. Slower, or not playing (a pause, a step, a seek), at
/// every draw.
pub fn messages_due(playing: bool, speed_ppm: u64, version: u64) -> bool {
    !playing || speed_ppm < 1_000_000 || version.is_multiple_of(3)
}

/// A time axis that scrolls with the run (the space-time diagram's): its marks are drawn at
/// their own time, relative to a base that moves on a whole window at a time, inside a group
/// shifted to the run's moment. Between two moves of the base a mark is written only when it
/// changes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scroll {
    /// The base: `now` rounded down to a whole window.
    pub base_us: u64,
    pub window_us: u64,
    /// Drawing units per µs.
    pub per_us: f64,
    /// Where `now` stands in the drawing (the axis's right end).
    pub right: f64,
}

impl Scroll {
    /// The last `window_us` before `now_us`, drawn `width` wide ending at `right`.
    pub fn new(now_us: u64, window_us: u64, width: f64, right: f64) -> Scroll {
        let window_us = window_us.max(1);
        Scroll {
            base_us: now_us / window_us * window_us,
            window_us,
            per_us: width / window_us as f64,
            right,
        }
    }

    /// The earliest time a mark is drawn from (a window before the base: every mark that can
    /// be seen until the base moves).
    pub fn from_us(&self) -> u64 {
        self.base_us.saturating_sub(self.window_us)
    }

    /// Where time `t_us` is drawn inside the group (kept within two windows before the base
    /// and three after).
    pub fn x(&self, t_us: u64) -> f64 {
        let lo = self.base_us.saturating_sub(2 * self.window_us);
        let t = t_us.clamp(lo, self.base_us + 3 * self.window_us);
        (t as f64 - self.base_us as f64) * self.per_us
    }

    /// The group's shift at `now_us`.
    pub fn shift_at(&self, now_us: u64) -> f64 {
        self.right - (now_us as f64 - self.base_us as f64) * self.per_us
    }
}

/// The drawing's places for messages in flight. A message keeps its place while it flies, and
/// a new one takes the place of one delivered: rewriting a place's position (and its kind, when
/// it differs) costs a fraction of making and removing an element. A place whose message has
/// landed keeps it, hidden, until reused.
#[derive(Debug, Default)]
pub struct FlightPlaces {
    places: Vec<(Flight, bool)>,
    at_us: u64,
    /// The page's version at this drawing's last draw.
    drawn: Option<u64>,
}

impl FlightPlaces {
    /// Records a draw at the page's `version`; whether the drawing also drew at the version
    /// before. One that did not (a twin shown anew, a drawing that was not drawn for a while)
    /// draws its messages anew.
    pub fn follows(&mut self, version: u64) -> bool {
        let follows = self.drawn.is_some_and(|v| version == v || version == v + 1);
        self.drawn = Some(version);
        follows
    }

    /// Places for `flights` (in send order), the messages in flight at `now_us`; each place: its
    /// message and whether it still flies.
    pub fn place(&mut self, flights: &[Flight], now_us: u64) -> &[(Flight, bool)] {
        self.at_us = now_us;
        // The same message: the same place in the send order and the same flight (after a seek
        // or a take-over the run is rebuilt, and a number may name another message).
        let flying = |m: &Flight| {
            flights
                .binary_search_by_key(&m.seq, |f| f.seq)
                .is_ok_and(|i| flights[i] == *m)
        };
        for p in &mut self.places {
            p.1 = p.1 && flying(&p.0);
        }
        let mut placed: Vec<u64> = self
            .places
            .iter()
            .filter(|p| p.1)
            .map(|p| p.0.seq)
            .collect();
        placed.sort_unstable();
        let mut free = 0;
        for m in flights {
            if placed.binary_search(&m.seq).is_ok() {
                continue;
            }
            while free < self.places.len() && self.places[free].1 {
                free += 1;
            }
            if free < self.places.len() {
                self.places[free] = (*m, true);
            } else {
                self.places.push((*m, true));
            }
        }
        while self.places.last().is_some_and(|p| !p.1) {
            self.places.pop();
        }
        &self.places
    }

    /// The places as last placed, and the moment they were placed at: between two refreshes the
    /// messages are drawn where they stood then, so that a frame that changes nothing else in the
    /// cluster's drawing writes nothing (and the browser repaints nothing).
    pub fn placed(&self) -> (&[(Flight, bool)], u64) {
        (&self.places, self.at_us)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lock::server::lease_fraction;

    /// The fraction of `cd` left at true time `now_us`, as its interval in the diagram shows it.
    fn fraction_at(cd: &Countdown, now_us: u64) -> f64 {
        ((cd.end_us as f64 - now_us as f64) / cd.span_us.max(1) as f64).clamp(0.0, 1.0)
    }

    /// A lease's interval in true time ends when the core's countdown does, at every rate: the
    /// fraction it leaves equals the core's at every moment, to within a µs of the clock.
    #[test]
    fn countdown_interval_matches_the_core_on_any_clock_rate() {
        for rate in [
            10_000,
            250_000,
            990_000,
            PPM_ONE,
            1_001_000,
            4_000_000,
            100_000_000,
        ] {
            let mut clock = Clock::new(123_456, PPM_ONE);
            clock.set_rate(5_000_000, rate);
            let lease_ms = 2000;
            let deadline = clock.local_at(7_000_000) + 1_500_000;
            let cd = Countdown::of(&clock, deadline, lease_ms, 7_000_000);
            for dt in (0..3_000_000u64).step_by(37_003) {
                let t = 7_000_000 + dt * PPM_ONE as u64 / rate as u64;
                let core = lease_fraction(deadline - clock.local_at(t), lease_ms);
                let drawn = fraction_at(&cd, t);
                assert!(
                    (core - drawn).abs() < 2e-6,
                    "rate {rate} at {t}: core {core}, drawn {drawn}"
                );
            }
        }
    }

    /// A countdown that is over is drawn empty, and stays so.
    #[test]
    fn countdown_over_is_drawn_empty() {
        let clock = Clock::new(0, PPM_ONE);
        let cd = Countdown::of(&clock, 1_000_000, 500, 3_000_000);
        assert_eq!(fraction_at(&cd, 3_000_000), 0.0);
        assert_eq!(fraction_at(&cd, 9_000_000), 0.0);
    }

    /// A clock jumped or set to another rate gives another line.
    #[test]
    fn countdown_changes_when_its_clock_is_jumped_or_set() {
        let mut clock = Clock::new(0, PPM_ONE);
        let before = Countdown::of(&clock, 2_000_000, 2000, 500_000);
        clock.jump(500_000, 300_000);
        let jumped = Countdown::of(&clock, 2_000_000, 2000, 500_000);
        assert_eq!(jumped.end_us + 300_000, before.end_us);
        clock.set_rate(500_000, 2 * PPM_ONE);
        let faster = Countdown::of(&clock, 2_000_000, 2000, 500_000);
        assert_eq!(faster.span_us * 2, before.span_us);
    }

    #[test]
    fn flight_stands_where_the_run_has_it() {
        let m = Flight {
            seq: 1,
            from: 0,
            to: 1,
            kind: crate::sim::MessageKind::Append,
            sent_us: 1_000_000,
            at_us: 1_004_000,
        };
        assert_eq!(flight_fraction(&m, 999_000), 0.0);
        assert_eq!(flight_fraction(&m, 1_001_000), 0.25);
        assert_eq!(flight_fraction(&m, 1_009_000), 1.0);
        assert_eq!(
            flight_at(&m, (0.0, 0.0), (40.0, 8.0), 1_001_000),
            (10.0, 2.0)
        );
    }

    /// A mark drawn once stands where a diagram redrawn at every moment would put it, until
    /// the base moves on.
    #[test]
    fn scroll_mark_drawn_once_stands_where_a_redraw_puts_it() {
        let (window, width, left) = (2_000_000u64, 1030.0, 60.0);
        let axis = Scroll::new(5_300_000, window, width, left + width);
        assert_eq!(axis.base_us, 4_000_000);
        for t in [3_400_000u64, 4_100_000, 5_250_000] {
            for now in [5_300_000u64, 5_700_000, 5_999_999] {
                let redrawn = left + (t as f64 - (now - window) as f64) / window as f64 * width;
                let moved = axis.shift_at(now) + axis.x(t);
                assert!(
                    (redrawn - moved).abs() < 1e-6,
                    "t {t} now {now}: {redrawn} vs {moved}"
                );
            }
        }
        assert_eq!(
            Scroll::new(6_000_000, window, width, 0.0).base_us,
            6_000_000
        );
    }

    /// A drawing that missed versions (a twin shown anew) draws its messages anew.
    #[test]
    fn flight_places_follow_the_versions_drawn() {
        let mut places = FlightPlaces::default();
        assert!(!places.follows(10));
        assert!(places.follows(11));
        assert!(places.follows(11));
        assert!(!places.follows(15));
        assert!(places.follows(16));
    }

    #[test]
    fn messages_refreshed_every_draw_unless_playing_fast() {
        let due = |playing, speed| (0..30).filter(|&v| messages_due(playing, speed, v)).count();
        assert_eq!(due(false, 100_000_000), 30);
        assert_eq!(due(true, 200_000), 30);
        assert_eq!(due(true, 1_000_000), 10);
        assert_eq!(due(true, 5_000_000), 10);
    }

    fn flight(seq: u64) -> Flight {
        Flight {
            seq,
            from: 0,
            to: 1,
            kind: crate::sim::MessageKind::Append,
            sent_us: seq,
            at_us: seq + 10,
        }
    }

    /// A message keeps its place while it flies; a new one takes a landed one's place.
    #[test]
    fn flight_keeps_its_place_while_it_flies() {
        let mut places = FlightPlaces::default();
        let seqs =
            |p: &[(Flight, bool)]| p.iter().map(|(m, live)| (m.seq, *live)).collect::<Vec<_>>();
        let now = places.place(&[flight(1), flight(2), flight(3)], 5).to_vec();
        assert_eq!(seqs(&now), [(1, true), (2, true), (3, true)]);
        // 1 landed, 3 flies on, 4 is new: it takes 1's place; 2 landed and is hidden.
        let now = places.place(&[flight(3), flight(4)], 7).to_vec();
        assert_eq!(seqs(&now), [(4, true), (2, false), (3, true)]);
        assert_eq!(seqs(places.placed().0), seqs(&now));
        assert_eq!(places.placed().1, 7);
        // A run rebuilt (a seek back): number 3 now names another message, which takes its place.
        let other = Flight { to: 2, ..flight(3) };
        let now = places.place(&[other, flight(4)], 8).to_vec();
        assert!(now.iter().any(|p| p.0 == other && p.1));
        assert!(!now.iter().any(|p| p.0 == flight(3) && p.1));
        // Every message landed: no place is left.
        assert!(places.place(&[], 9).is_empty());
    }
}
