//! "Edit the scenario and restart": the controls that change the document itself (seed, node
//! count, a design switch, a Raft setting). The run restarts with the edited document, so a
//! share link carries the change; a refused edit leaves the run as it is.

use crate::lang::{t, Lang};
use crate::scenario::Scenario;

#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    Seed(u64),
    /// A new node count (the recorded actions go: they name nodes).
    Nodes(usize),
    Switch(&'static str, bool),
    /// A Raft setting as typed.
    Raft(RaftField, String),
}

impl Edit {
    /// Edit `sc`; the result is a valid document, or the reason it is not.
    pub fn apply(self, sc: &mut Scenario, lang: Lang) -> Result<(), String> {
        match self {
            Edit::Seed(seed) => sc.seed = seed,
            Edit::Nodes(n) => {
                sc.nodes = n;
                sc.timeline.clear();
                sc.clocks.retain(|c| c.node <= n);
                return sc
                    .validate()
                    .map_err(|e| t!(lang, "Cannot use {n} nodes: {e}", e = e.words(lang)));
            }
            Edit::Switch(name, on) => crate::scenario::hunt::set_switch(sc, name, on)?,
            Edit::Raft(field, text) => {
                let value = text.trim().parse::<u64>().map_err(|_| {
                    t!(
                        lang,
                        "raft.{}: \"{}\" is not a whole number",
                        field.name(),
                        text.trim()
                    )
                })?;
                match field {
                    RaftField::MaxBatch => sc.raft.max_batch = value,
                    RaftField::SnapshotEvery => sc.raft.snapshot_every = value,
                }
            }
        }
        sc.validate().map_err(|e| e.words(lang))
    }
}

/// The Raft settings the page lets a user type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RaftField {
    MaxBatch,
    SnapshotEvery,
}

impl RaftField {
    pub fn name(self) -> &'static str {
        match self {
            RaftField::MaxBatch => "max_batch",
            RaftField::SnapshotEvery => "snapshot_every",
        }
    }
}
