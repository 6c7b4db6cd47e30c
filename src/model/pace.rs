//! While a run plays, the panels whose content changes faster than anyone can read it are drawn
//! at a pace, not at every frame: the space-time diagram, the event list and the clocks at most
//! ten times a second, the lock view (its countdown bars too) and the log five, and a panel off
//! screen not at all. The cluster and the lesson draw every frame ([`super::motion`]: what
//! moves, drawn with few writes).
//!
//! Why: at 1× a busy cluster appends hundreds of entries a second, so the log's window jumps
//! every frame and every cell changes; drawn each frame it could not be read, and rewriting it
//! (with the lock view's tokens and the diagram's marks, in the same frame) made our work per
//! frame p99 10–13 ms and a major GC every 14 frames. Each panel's content is the page's own at
//! the moment it draws, never an older computation; a pause, a step and any command draw
//! everything on screen at once, a caption reached while playing draws everything, and a panel
//! scrolled into view draws at its next turn.

/// The panels drawn at a pace while playing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paced {
    Locks,
    Log,
    Spacetime,
    Events,
    Clocks,
}

impl Paced {
    pub const ALL: [Paced; 5] = [
        Paced::Locks,
        Paced::Log,
        Paced::Spacetime,
        Paced::Events,
        Paced::Clocks,
    ];

    /// The played frames it may draw on: those whose number is this modulo 3. The three
    /// heaviest panels, the lock view, the log and the diagram, never share a frame.
    fn slot(self) -> u64 {
        match self {
            Paced::Spacetime | Paced::Events | Paced::Clocks => 0,
            Paced::Locks => 1,
            Paced::Log => 2,
        }
    }

    /// The least time between two of its draws while playing, in ms.
    fn every_ms(self) -> f64 {
        match self {
            Paced::Locks | Paced::Log => 200.0,
            Paced::Spacetime | Paced::Events | Paced::Clocks => 100.0,
        }
    }

    /// Its element's id (the panel watched for being on screen).
    pub fn id(self) -> &'static str {
        match self {
            Paced::Locks => "locks-panel",
            Paced::Log => "log-panel",
            Paced::Spacetime => "spacetime-panel",
            Paced::Events => "events-panel",
            Paced::Clocks => "clocks-panel",
        }
    }
}

/// Why the page is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// A frame of play.
    Frame,
    /// A command (a pause, a step, a click, a key, a message from the host): everything on
    /// screen draws at once.
    Command,
    /// A played frame that reached a lesson's caption: everything draws, on screen or not, so
    /// that what the caption names is there to be shown (the stage scrolls it into view).
    Caption,
    /// A panel scrolled in or out: while playing, one scrolled in draws at its next turn (a
    /// panel at the screen's edge goes in and out as the one above it grows and shrinks).
    Scrolled,
}

/// The versions the paced panels draw at (a panel whose version did not change is neither
/// rebuilt nor diffed).
#[derive(Debug, Default)]
pub struct Pace {
    /// Played frames so far.
    frame: u64,
    drawn: [u64; Paced::ALL.len()],
    at_ms: [f64; Paced::ALL.len()],
}

impl Pace {
    /// Decide before each draw of the page, `why` it is drawn; `on_screen`: whether a panel
    /// can be seen.
    pub fn plan(
        &mut self,
        version: u64,
        playing: bool,
        why: Why,
        now_ms: f64,
        on_screen: impl Fn(Paced) -> bool,
    ) {
        if matches!(why, Why::Frame | Why::Caption) {
            self.frame += 1;
        }
        for p in Paced::ALL {
            let i = p as usize;
            let draw = !playing
                || why == Why::Caption
                || on_screen(p)
                    && match why {
                        Why::Command => true,
                        Why::Frame => {
                            self.frame % 3 == p.slot() && now_ms - self.at_ms[i] >= p.every_ms()
                        }
                        Why::Scrolled | Why::Caption => false,
                    };
            if draw {
                self.drawn[i] = version;
                self.at_ms[i] = now_ms;
            }
        }
    }

    /// The version panel `p` draws at.
    pub fn version(&self, p: Paced) -> u64 {
        self.drawn[p as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays `frames` frames 16.7 ms apart from version `v0` (one version a frame, every panel
    /// on screen) and counts each panel's draws.
    fn play(pace: &mut Pace, v0: u64, frames: u64) -> [u64; 5] {
        let mut draws = [0; 5];
        for f in 0..frames {
            let v = v0 + f;
            pace.plan(v, true, Why::Frame, v as f64 * 16.7, |_| true);
            for p in Paced::ALL {
                if pace.version(p) == v {
                    draws[p as usize] += 1;
                }
            }
        }
        draws
    }

    #[test]
    fn pace_draws_every_panel_when_not_playing() {
        let mut pace = Pace::default();
        pace.plan(7, false, Why::Scrolled, 1.0, |_| false);
        assert!(Paced::ALL.iter().all(|&p| pace.version(p) == 7));
    }

    #[test]
    fn pace_diagram_ten_a_second_lock_view_and_log_five_never_together() {
        let mut pace = Pace::default();
        let draws = play(&mut pace, 1, 600);
        // 600 frames at 60 a second: 10 s, at most ten (five) draws a second.
        for p in [Paced::Spacetime, Paced::Events, Paced::Clocks] {
            assert!((90..=100).contains(&draws[p as usize]), "{p:?}: {draws:?}");
        }
        for p in [Paced::Locks, Paced::Log] {
            assert!((45..=50).contains(&draws[p as usize]), "{p:?}: {draws:?}");
        }
        // Never two of the lock view, the log and the diagram in one frame.
        let mut pace = Pace::default();
        for v in 1..200u64 {
            pace.plan(v, true, Why::Frame, v as f64 * 16.7, |_| true);
            let heavy = [Paced::Locks, Paced::Log, Paced::Spacetime];
            let drawn = heavy.iter().filter(|&&p| pace.version(p) == v).count();
            assert!(drawn <= 1, "frame {v}: {drawn} heavy panels");
        }
    }

    #[test]
    fn pace_off_screen_panel_waits_while_playing_and_draws_on_pause() {
        let mut pace = Pace::default();
        pace.plan(1, false, Why::Command, 0.0, |_| true);
        let off = |p: Paced| p != Paced::Log;
        for v in 2..50u64 {
            pace.plan(v, true, Why::Frame, v as f64 * 16.7, off);
        }
        assert_eq!(pace.version(Paced::Log), 1);
        pace.plan(50, false, Why::Command, 900.0, off);
        assert_eq!(pace.version(Paced::Log), 50);
    }

    #[test]
    fn pace_scrolled_while_playing_waits_for_the_panels_turn() {
        let mut pace = Pace::default();
        play(&mut pace, 1, 10);
        let before = Paced::ALL.map(|p| pace.version(p));
        pace.plan(11, true, Why::Scrolled, 170.0, |_| true);
        assert_eq!(Paced::ALL.map(|p| pace.version(p)), before);
        // Its turn: the next frame of its slot.
        pace.plan(12, true, Why::Frame, 187.0, |_| true);
        pace.plan(13, true, Why::Frame, 204.0, |_| true);
        pace.plan(14, true, Why::Frame, 221.0, |_| true);
        assert_eq!(pace.version(Paced::Spacetime), 13);
        assert_eq!(pace.version(Paced::Locks), 14);
    }

    #[test]
    fn pace_caption_reached_draws_every_panel_even_off_screen() {
        let mut pace = Pace::default();
        play(&mut pace, 1, 10);
        pace.plan(11, true, Why::Caption, 170.0, |p| p == Paced::Clocks);
        assert!(Paced::ALL.iter().all(|&p| pace.version(p) == 11));
    }

    #[test]
    fn pace_command_while_playing_draws_every_panel_on_screen() {
        let mut pace = Pace::default();
        play(&mut pace, 1, 10);
        pace.plan(11, true, Why::Command, 170.0, |p| p != Paced::Events);
        for p in Paced::ALL {
            assert_eq!(pace.version(p) == 11, p != Paced::Events, "{p:?}");
        }
    }
}
