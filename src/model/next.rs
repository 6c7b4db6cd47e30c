//! The leader's view of each follower (§5.3): the index it sends next, how far it knows their
//! logs match, and how it replicates to it (probe, replicate, snapshot). The log entry panel's
//! "next" row draws it when a caption names `next`.

use crate::raft::Index;
use crate::sim::World;

/// One node's cell of the row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Peer {
    /// The leader itself.
    Leader,
    Follower {
        /// `probe`, `replicate` or `snapshot`.
        state: &'static str,
        next: Index,
        matched: Index,
    },
}

/// The row: the leader (0-based) and a cell per node, in node order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NextRow {
    pub leader: usize,
    pub peers: Vec<Peer>,
}

/// The row as the leader has it now, or None while no node leads.
pub fn of(w: &World) -> Option<NextRow> {
    let l = w.leader()?;
    let s = w.nodes[l].server()?;
    let peers = (0..w.node_count)
        .map(|i| match i == l {
            true => Peer::Leader,
            false => Peer::Follower {
                state: s.raft.progress_state(i).name(),
                next: s.raft.next_index(i),
                matched: s.raft.match_index(i),
            },
        })
        .collect();
    Some(NextRow { leader: l, peers })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::playground::Playground;
    use crate::scenario::builtin;

    /// §5.3: once the followers have caught up, the leader sends each the index after its last
    /// entry and knows their logs match through it.
    #[test]
    fn next_row_5_3_shows_next_index_and_match_index_per_follower() {
        let mut pg = Playground::new(builtin::get("consistency-check").unwrap()).unwrap();
        assert_eq!(of(&pg.world), None, "no leader at 0 s");
        pg.advance_to(1_500_000, false);
        let row = of(&pg.world).expect("a leader");
        let last = pg.world.nodes[row.leader]
            .server()
            .unwrap()
            .raft
            .log()
            .last_index();
        assert_eq!(row.peers[row.leader], Peer::Leader);
        for (i, p) in row
            .peers
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != row.leader)
        {
            let Peer::Follower {
                state,
                next,
                matched,
            } = p
            else {
                panic!("n{} is not the leader", i + 1)
            };
            assert!(["probe", "replicate", "snapshot"].contains(state));
            assert!(*matched < *next && *next <= last + 1, "n{}: {p:?}", i + 1);
        }
    }
}
