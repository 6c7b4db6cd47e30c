//! The network presets under the cluster: cut the leader off, or split the cluster with the
//! leader in the minority. Both need a leader; Heal all needs nothing.

use super::command::Action;
use crate::sim::World;

/// What each preset does now (None: no node leads, so there is no leader to cut off).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Presets {
    /// Cut every link of the leader.
    pub isolate: Option<Action>,
    /// Two groups: the leader with the fewest others it takes to stay a minority, and the rest.
    pub split: Option<Action>,
}

impl Presets {
    pub fn of(w: &World) -> Presets {
        let leader = w.leader();
        // The members of the leader's configuration (every node, unless it changed).
        let members: Vec<usize> = w.membership().members().map(|i| i + 1).collect();
        let n = members.len();
        Presets {
            isolate: leader.map(|l| Action::Isolate { node: l + 1 }),
            split: leader.map(|l| {
                let others: Vec<usize> = members.iter().copied().filter(|k| *k != l + 1).collect();
                // (Safe for one or two members too: the minority is then the leader alone.)
                let (more, majority) = others.split_at(
                    ((n.saturating_sub(1)) / 2)
                        .saturating_sub(1)
                        .min(others.len()),
                );
                let mut minority = vec![l + 1];
                minority.extend_from_slice(more);
                Action::Partition {
                    groups: vec![minority, majority.to_vec()],
                }
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{default_scenario, Command, Page};
    use crate::playground::Playground;

    #[test]
    fn the_presets_cut_off_the_leader_or_leave_it_in_the_minority_and_wait_for_one() {
        let mut p = Page::new(Playground::new(default_scenario()).unwrap());
        assert_eq!(
            Presets::of(&p.playground.world),
            Presets {
                isolate: None,
                split: None
            },
            "no leader yet"
        );
        p.apply(Command::RunTo(2_000_000));
        let w = &p.playground.world;
        let k = w.leader().expect("a leader") + 1;
        let ps = Presets::of(w);
        assert_eq!(ps.isolate, Some(Action::Isolate { node: k }));
        let Some(Action::Partition { groups }) = ps.split else {
            panic!("a partition")
        };
        let [minority, majority] = &groups[..] else {
            panic!("two groups")
        };
        assert_eq!(minority[0], k);
        assert_eq!((minority.len(), majority.len()), (2, 3));
        let mut all: Vec<usize> = groups.concat();
        all.sort();
        assert_eq!(all, [1, 2, 3, 4, 5]);
    }
}
