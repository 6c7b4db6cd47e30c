//! The lock view: one matrix, keys × nodes, instead of one table per node. Each cell is that
//! node's lock (holder and token) and the lease left on that node's own clock; each column
//! carries the node's table digest. With drift the countdowns differ while the tables agree.

use crate::lock::server::lease_fraction;
use crate::sim::World;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// 0-based node.
    pub node: usize,
    /// None: the node is crashed (no table in memory).
    pub table: Option<Table>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub applied: u64,
    /// The lock table's digest, 16 bits (as the page prints it).
    pub digest: u16,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    pub holder: String,
    pub token: u64,
    pub lease_ms: u64,
    /// The countdown on this node's own clock; negative once over (the node waits for a
    /// committed Expire). None: this node has no countdown for this token.
    pub left_us: Option<i64>,
}

impl Cell {
    /// The fraction of the lease left on this node's clock, 0 to 1 (0 once over, or with no
    /// countdown): the core's [`lease_fraction`].
    pub fn fraction_left(&self) -> f64 {
        self.left_us
            .map_or(0.0, |l| lease_fraction(l, self.lease_ms))
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockMatrix {
    pub keys: Vec<String>,
    pub columns: Vec<Column>,
    /// `cells[key][node]`: None where that node's table has no lock on the key.
    pub cells: Vec<Vec<Option<Cell>>>,
}

impl LockMatrix {
    pub fn of(w: &World) -> LockMatrix {
        let mut keys: Vec<String> = Vec::new();
        for s in w.nodes.iter().filter_map(|n| n.server()) {
            for k in s.machine.locks.keys() {
                if let Err(i) = keys.binary_search_by(|x| x.as_str().cmp(k)) {
                    keys.insert(i, k.to_string());
                }
            }
        }
        // A column per node a server has had (an id a membership change adds later has none yet).
        let shown: Vec<usize> = (0..w.node_count)
            .filter(|&i| !w.nodes[i].is_absent())
            .collect();
        let columns = shown
            .iter()
            .map(|&i| Column {
                node: i,
                table: w.nodes[i].server().map(|s| Table {
                    applied: s.machine.applied,
                    digest: (s.machine.digest() & 0xffff) as u16,
                }),
            })
            .collect();
        let cells = keys
            .iter()
            .map(|k| {
                shown
                    .iter()
                    .map(|&i| {
                        let s = w.nodes[i].server()?;
                        let l = s.machine.locks.get(k.as_str())?;
                        let local = w.local_now(i);
                        let lease = s.leases.get(k.as_str()).filter(|x| x.token == l.token);
                        Some(Cell {
                            holder: l
                                .holder
                                .map_or_else(|| "—".to_string(), |c| w.client_name(c)),
                            token: l.token,
                            lease_ms: l.lease_ms,
                            left_us: lease.map(|x| x.left_us(local)),
                        })
                    })
                    .collect()
            })
            .collect();
        LockMatrix {
            keys,
            columns,
            cells,
        }
    }

    /// How the tables of the nodes that are up compare.
    pub fn agreement(&self) -> Agreement {
        let tables: Vec<&Table> = self
            .columns
            .iter()
            .filter_map(|c| c.table.as_ref())
            .collect();
        if tables.windows(2).all(|t| t[0].digest == t[1].digest) {
            Agreement::Same
        } else if tables.iter().all(|a| {
            tables
                .iter()
                .all(|b| a.applied != b.applied || a.digest == b.digest)
        }) {
            Agreement::Lagging
        } else {
            Agreement::Split
        }
    }

    /// Whether tables that applied the same entries agree (they always must, unless a switch
    /// breaks the seed's rules).
    pub fn tables_agree(&self) -> bool {
        self.agreement() != Agreement::Split
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agreement {
    /// Every table that is up is the same.
    Same,
    /// Some nodes have not applied the latest entries yet; nodes at the same index agree.
    Lagging,
    /// Two nodes that applied the same entries have different tables.
    Split,
}

/// The lease countdown drawn as an arc around node `i`: the fraction of the lease left on its
/// own clock (0 once over), for its first key with a running countdown.
pub fn lease_arc(w: &World, i: usize) -> Option<(f64, String)> {
    let s = w.nodes.get(i)?.server()?;
    let local = w.local_now(i);
    s.leases
        .iter()
        .find(|(k, l)| s.machine.locks.get(*k).is_some_and(|x| x.token == l.token))
        .map(|(k, l)| (l.fraction_left(local), k.to_string()))
}
