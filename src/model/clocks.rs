//! The nodes' clocks and processes as the clocks panel and a node's own controls draw them:
//! each node's clock rate and reading, and whether it is up or paused.

use super::text::node_state;
use crate::sim::World;

/// One node's clock and process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeClock {
    /// 0-based.
    pub node: usize,
    /// Its clock's rate in ppm of true time (1,000,000: ×1).
    pub rate_ppm: u32,
    /// What its own clock reads now, in µs.
    pub local_us: i64,
    /// Its process runs (crashed: it does not).
    pub up: bool,
    pub paused: bool,
    /// Its role, or "crashed" or "paused" ([`node_state`]).
    pub state: &'static str,
}

impl NodeClock {
    pub fn of(w: &World, i: usize) -> NodeClock {
        let slot = &w.nodes[i];
        NodeClock {
            node: i,
            rate_ppm: slot.clock.rate_ppm(),
            local_us: w.local_now(i),
            up: slot.server().is_some(),
            paused: slot.paused,
            state: node_state(w, i),
        }
    }
}

/// Every node's clock, and true time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClocksView {
    pub nodes: Vec<NodeClock>,
    pub now_us: u64,
}

impl ClocksView {
    pub fn of(w: &World) -> ClocksView {
        ClocksView {
            nodes: (0..w.node_count).map(|i| NodeClock::of(w, i)).collect(),
            now_us: w.now_us,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{default_scenario, Action, Command, Page};
    use crate::playground::Playground;

    #[test]
    fn each_node_reads_its_own_clock_at_its_own_rate_and_says_whether_it_runs() {
        let mut p = Page::new(Playground::new(default_scenario()).unwrap());
        let v = ClocksView::of(&p.playground.world);
        assert_eq!(v.nodes.len(), p.playground.world.node_count);
        assert!(v
            .nodes
            .iter()
            .enumerate()
            .all(|(i, n)| n.node == i && n.rate_ppm == 1_000_000 && n.up && !n.paused));
        p.apply(Command::Act(Action::SetRate {
            node: 2,
            rate_ppm: 2_000_000,
        }));
        p.apply(Command::Act(Action::Jump { node: 3, ms: 500 }));
        p.apply(Command::Act(Action::Crash { node: 4 }));
        p.apply(Command::Act(Action::Pause { node: 5 }));
        p.apply(Command::RunTo(p.playground.now_us() + 1_000_000));
        let v = ClocksView::of(&p.playground.world);
        let now = v.now_us as i64;
        assert_eq!(now, p.playground.now_us() as i64);
        let [n1, n2, n3, n4, n5] = &v.nodes[..] else {
            panic!("five nodes")
        };
        assert_eq!(n1.local_us, now, "a true clock reads true time");
        assert_eq!(n2.rate_ppm, 2_000_000);
        assert!(n2.local_us >= now + 999_000, "×2 gains a second in one");
        assert_eq!(n3.local_us, now + 500_000, "a jump moves the reading");
        assert!(!n4.up && n4.state == "crashed");
        assert!(n5.up && n5.paused && n5.state == "paused");
        assert_eq!(NodeClock::of(&p.playground.world, 1), *n2);
    }
}
