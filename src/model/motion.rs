//! What moves at a known rate is moved by the browser, not rewritten by us every frame.
//!
//! When a panel draws, each moving part gets, once, a CSS animation that starts where the run
//! has it at that moment and goes on at the rate the run plays at (its wall-clock duration is
//! its virtual time over the speed); paused, the animation is paused at its start. So a lease's
//! countdown bar, a message in flight and the space-time diagram's scroll move every frame while
//! the panel that holds them is written a few times a second (the lock view, the diagram) or,
//! for a message, once per flight. A part's style names one of two identical keyframe rules and
//! alternates between them at each write: a new name restarts the animation from the new start
//! (the same name would keep the old start time).
//!
//! What a reader sees at the moment a panel draws is exact (the start is computed from the
//! run's own state, [`Countdown::fraction_at`] is the core's fraction); between two draws the
//! browser's clock moves it, and the next draw, a pause, a step or any command sets it right.

use crate::sim::clock::{Clock, PPM_ONE};
use crate::sim::Flight;

/// How the run plays, for the animations: whether it plays, and at what speed (virtual µs per
/// wall µs, in millionths).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pacing {
    pub playing: bool,
    pub speed_ppm: u64,
}

impl Pacing {
    /// The wall-clock ms that `virtual_us` of the run take to play.
    pub fn wall_ms(&self, virtual_us: u64) -> f64 {
        virtual_us as f64 * 1000.0 / self.speed_ppm.max(1) as f64
    }

    /// An animation of `keyframes` (0 or 1 appended: the alternate name) over `virtual_us`.
    pub fn animation(&self, keyframes: &str, alternate: bool, virtual_us: u64) -> String {
        format!(
            "animation:{keyframes}{} {:.1}ms linear forwards{}",
            u8::from(alternate),
            self.wall_ms(virtual_us).max(0.1),
            if self.playing {
                ""
            } else {
                ";animation-play-state:paused"
            }
        )
    }
}

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

    /// The fraction left at true time `now_us`, 0 to 1: the style sheet's formula.
    pub fn fraction_at(&self, now_us: u64) -> f64 {
        ((self.end_us as f64 - now_us as f64) / self.span_us.max(1) as f64).clamp(0.0, 1.0)
    }

    /// The bar's style drawn at `now_us`: a whole lease's animation from full to empty, started
    /// as far into it as the countdown is (plain keyframes and a negative delay: the browser can
    /// run it off the main thread); no animation once over.
    pub fn style(&self, now_us: u64, pacing: Pacing, alternate: bool) -> String {
        let f = self.fraction_at(now_us);
        if f <= 0.0 {
            return "transform:scaleX(0)".to_string();
        }
        let whole = pacing.wall_ms(self.span_us.max(1));
        format!(
            "transform:scaleX({f:.5});animation:drain{} {whole:.1}ms linear {:.1}ms both{}",
            u8::from(alternate),
            -(1.0 - f) * whole,
            if pacing.playing {
                ""
            } else {
                ";animation-play-state:paused"
            }
        )
    }
}

/// A message in flight from `p` to `q` (drawing coordinates), drawn at `now_us`: from where it
/// stands now to `q` when it is delivered.
pub fn flight_style(
    m: &Flight,
    p: (f64, f64),
    q: (f64, f64),
    now_us: u64,
    pacing: Pacing,
    alternate: bool,
) -> String {
    use super::text::num;
    let f = flight_fraction(m, now_us);
    let at = (p.0 + (q.0 - p.0) * f, p.1 + (q.1 - p.1) * f);
    format!(
        "--xa:{}px;--ya:{}px;--xb:{}px;--yb:{}px;transform:translate({}px,{}px);{}",
        num(at.0),
        num(at.1),
        num(q.0),
        num(q.1),
        num(at.0),
        num(at.1),
        pacing.animation("fly", alternate, m.at_us.saturating_sub(now_us))
    )
}

/// How far along its line a message stands at `now_us`, 0 to 1.
pub fn flight_fraction(m: &Flight, now_us: u64) -> f64 {
    let d = m.at_us.saturating_sub(m.sent_us).max(1) as f64;
    ((now_us as f64 - m.sent_us as f64) / d).clamp(0.0, 1.0)
}

/// A time axis that scrolls with the run (the space-time diagram's): its marks are drawn once
/// at their own time, relative to a base that moves on a whole window at a time, and the group
/// that holds them is shifted by the style sheet from `--now`. Between two moves of the base a
/// mark is written only when it changes.
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

    /// Where time `t_us` is drawn inside the moving group (kept within two windows either side
    /// of the base).
    pub fn x(&self, t_us: u64) -> f64 {
        let lo = self.base_us.saturating_sub(2 * self.window_us);
        let t = t_us.clamp(lo, self.base_us + 3 * self.window_us);
        (t as f64 - self.base_us as f64) * self.per_us
    }

    /// Where the moving group stands at `now_us` (a shift along x).
    pub fn shift_at(&self, now_us: u64) -> f64 {
        self.right - (now_us as f64 - self.base_us as f64) * self.per_us
    }

    /// The moving group's style drawn at `now_us`: it scrolls on at the run's pace.
    pub fn style(&self, now_us: u64, pacing: Pacing, alternate: bool) -> String {
        let ahead = now_us + self.window_us;
        format!(
            "--sx0:{:.2}px;--sx1:{:.2}px;transform:translateX({:.2}px);{}",
            self.shift_at(now_us),
            self.shift_at(ahead),
            self.shift_at(now_us),
            pacing.animation("scroll", alternate, self.window_us)
        )
    }
}

/// Whether the drawing's set of messages in flight is brought up to date at this draw (their
/// places move every frame regardless, from `--now`). While a run plays at 1× or faster most
/// messages fly for less than a frame and the set is new at every draw: it is refreshed on one
/// played frame in three (20 times a second), and a message that landed meanwhile waits at its
/// end for at most two frames. Slower, or not playing (a pause, a step, a seek), every draw.
pub fn messages_due(playing: bool, speed_ppm: u64, version: u64) -> bool {
    !playing || speed_ppm < 1_000_000 || version.is_multiple_of(3)
}

/// A message's place in the drawing: the message, whether it still flies, and its style.
#[derive(Clone, Debug, PartialEq)]
pub struct Place {
    pub flight: Flight,
    pub flying: bool,
    pub style: String,
    alternate: bool,
}

/// The drawing's places for messages in flight. A message keeps its place, and its style, while
/// it flies; a new one takes the place of one delivered: at 1× most messages fly for less than a
/// frame, and rewriting a place's style (and its kind, when it differs) costs a fraction of
/// making and removing an element. A place whose message has landed keeps it, hidden, until
/// reused. When the run's time moved otherwise than by play (a command: `epoch` changed), every
/// message is styled anew.
#[derive(Debug, Default)]
pub struct FlightPlaces {
    places: Vec<Place>,
    epoch: u64,
}

impl FlightPlaces {
    /// Places for `flights` (in send order); `style` gives a message's style, naming the
    /// alternate keyframes or not.
    pub fn place(
        &mut self,
        flights: &[Flight],
        epoch: u64,
        style: impl Fn(&Flight, bool) -> String,
    ) -> &[Place] {
        let flying = |seq: u64| flights.binary_search_by_key(&seq, |m| m.seq).is_ok();
        let anew = epoch != self.epoch;
        self.epoch = epoch;
        for p in &mut self.places {
            p.flying = p.flying && flying(p.flight.seq);
            if p.flying && anew {
                p.alternate = !p.alternate;
                p.style = style(&p.flight, p.alternate);
            }
        }
        let mut placed: Vec<u64> = self
            .places
            .iter()
            .filter(|p| p.flying)
            .map(|p| p.flight.seq)
            .collect();
        placed.sort_unstable();
        let mut free = 0;
        for m in flights {
            if placed.binary_search(&m.seq).is_ok() {
                continue;
            }
            while free < self.places.len() && self.places[free].flying {
                free += 1;
            }
            let alternate = self.places.get(free).is_some_and(|p| !p.alternate);
            let place = Place {
                flight: *m,
                flying: true,
                style: style(m, alternate),
                alternate,
            };
            if free < self.places.len() {
                self.places[free] = place;
            } else {
                self.places.push(place);
            }
        }
        while self.places.last().is_some_and(|p| !p.flying) {
            self.places.pop();
        }
        &self.places
    }

    /// The places as last placed.
    pub fn placed(&self) -> &[Place] {
        &self.places
    }

    /// The epoch they were placed at.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lock::server::lease_fraction;

    fn lease_on(clock: &Clock, now_us: u64, left_local_us: i64) -> i64 {
        clock.local_at(now_us) + left_local_us
    }

    /// The drawn fraction equals the core's at every moment of the countdown, on a clock at
    /// any rate, to within a µs of its clock.
    #[test]
    fn countdown_drawn_from_now_matches_the_core_on_any_clock_rate() {
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
            let deadline = lease_on(&clock, 7_000_000, 1_500_000);
            let cd = Countdown::of(&clock, deadline, lease_ms, 7_000_000);
            for dt in (0..3_000_000u64).step_by(37_003) {
                let t = 7_000_000 + dt * PPM_ONE as u64 / rate as u64;
                let core = lease_fraction(deadline - clock.local_at(t), lease_ms);
                let drawn = cd.fraction_at(t);
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
        assert_eq!(cd.fraction_at(3_000_000), 0.0);
        assert_eq!(cd.fraction_at(9_000_000), 0.0);
    }

    /// A clock jumped or set to another rate gives another line: the page rewrites the part.
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

    const PAUSED: Pacing = Pacing {
        playing: false,
        speed_ppm: 1_000_000,
    };

    /// A bar starts where the countdown stands at the draw, and empties when it ends, at the
    /// speed the run plays at; paused, it stays at its start.
    #[test]
    fn countdown_animation_starts_at_the_fraction_left_and_ends_with_it() {
        let cd = Countdown {
            end_us: 3_000_000,
            span_us: 2_000_000,
        };
        let at_fifth = Pacing {
            playing: true,
            speed_ppm: 200_000,
        };
        // Half left at ×1/5: half way through a 10 s animation of the whole lease.
        assert_eq!(
            cd.style(2_000_000, at_fifth, false),
            "transform:scaleX(0.50000);animation:drain0 10000.0ms linear -5000.0ms both"
        );
        assert_eq!(
            cd.style(2_500_000, PAUSED, true),
            "transform:scaleX(0.25000);animation:drain1 2000.0ms linear -1500.0ms both;animation-play-state:paused"
        );
        assert_eq!(cd.style(3_000_000, PAUSED, true), "transform:scaleX(0)");
    }

    #[test]
    fn flight_starts_where_the_run_has_it() {
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
            flight_style(&m, (0.0, 0.0), (40.0, 8.0), 1_001_000, PAUSED, false),
            "--xa:10.0px;--ya:2.0px;--xb:40.0px;--yb:8.0px;transform:translate(10.0px,2.0px);animation:fly0 3.0ms linear forwards;animation-play-state:paused"
        );
    }

    /// A mark drawn once stands where a diagram redrawn at every moment would put it, until
    /// the base moves on.
    #[test]
    fn scroll_mark_drawn_once_stands_where_a_redraw_puts_it() {
        let (window, width, left) = (2_000_000u64, 1030.0, 60.0);
        let drawn_at = 5_300_000;
        let axis = Scroll::new(drawn_at, window, width, left + width);
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

    /// A message keeps its place and its style while it flies; a new one takes a landed one's
    /// place; a new epoch styles every message anew, under the other keyframes' name.
    #[test]
    fn flight_keeps_its_place_while_it_flies() {
        let mut places = FlightPlaces::default();
        let style = |m: &Flight, alt: bool| format!("{}{}", m.seq, u8::from(alt));
        let seqs = |p: &[Place]| {
            p.iter()
                .map(|p| (p.flight.seq, p.flying, p.style.clone()))
                .collect::<Vec<_>>()
        };
        let now = places
            .place(&[flight(1), flight(2), flight(3)], 0, style)
            .to_vec();
        assert_eq!(
            seqs(&now),
            [
                (1, true, "10".into()),
                (2, true, "20".into()),
                (3, true, "30".into())
            ]
        );
        // 1 landed, 3 flies on, 4 is new: it takes 1's place under the other name; 2 landed.
        let now = places.place(&[flight(3), flight(4)], 0, style).to_vec();
        assert_eq!(
            seqs(&now),
            [
                (4, true, "41".into()),
                (2, false, "20".into()),
                (3, true, "30".into())
            ]
        );
        // A command: every message flying is styled anew, under the other name.
        let now = places.place(&[flight(3), flight(4)], 1, style).to_vec();
        assert_eq!(
            seqs(&now),
            [
                (4, true, "40".into()),
                (2, false, "20".into()),
                (3, true, "31".into())
            ]
        );
        assert_eq!(places.epoch(), 1);
        // Every message landed: no place is left.
        assert!(places.place(&[], 1, style).is_empty());
    }
}
