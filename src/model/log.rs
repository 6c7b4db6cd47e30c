//! The replicated log as its panel and the stage's focus draw it: the window of indexes shown,
//! and each node's entry at an index with its command's label, whether it is committed, and
//! the result it had when that node applied it.

use super::commit::{self, Commit};
use super::next::{self, NextRow};
use crate::lang::{t, Lang};
use crate::lock::{ApplyResult, LockOp};
use crate::sim::World;

/// How many indexes the log panel shows at once.
pub const LOG_COLS: u64 = 16;

/// The indexes the panel shows, `from` to `to`, and how far its slider goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub from: u64,
    pub to: u64,
    pub max_from: u64,
}

impl Window {
    /// From `log_from` (None: following the end). Following the end, the window moves half a
    /// table at a time: the columns stand still while entries fill them (readable while
    /// playing, and a frame patches only the cells that changed instead of shifting every cell
    /// by one for each new entry).
    pub fn of(w: &World, log_from: Option<u64>) -> Window {
        let last = (0..w.node_count)
            .map(|i| match (w.nodes[i].server(), w.nodes[i].persisted()) {
                (Some(s), _) => s.raft.log().last_index(),
                (None, Some(h)) => h.log.last_index(),
                _ => 0,
            })
            .max()
            .unwrap_or(0);
        let max_from = last.saturating_sub(LOG_COLS - 1).max(1);
        let step = LOG_COLS / 2;
        let follow_from = 1 + step * last.saturating_sub(LOG_COLS).div_ceil(step);
        let from = log_from.map_or(follow_from, |f| f.clamp(1, max_from));
        Window {
            from,
            to: from + LOG_COLS - 1,
            max_from: max_from.max(from),
        }
    }
}

/// One node's log at one index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cell<'a> {
    /// Nothing there: past the end of its log.
    Empty,
    /// Dropped by log compaction (§7): the node's snapshot holds its effect.
    Compacted,
    Entry(Entry<'a>),
}

/// A log entry on one node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    pub term: u64,
    pub commit: Commit,
    /// Its command's name in the page's styles: `grant`, `release`, `expire`, `noop`, or a
    /// configuration change's: `add_learner`, `promote`, `remove`.
    pub kind: &'static str,
    op: Option<&'a LockOp>,
    /// The configuration change it carries, if it is one.
    conf: Option<crate::raft::ConfChange>,
    /// The client whose command it is.
    client: Option<&'a str>,
    /// What it gave when this node applied it (None: not applied here, or the node is down).
    result: Option<ApplyResult>,
}

/// Node `node`'s (0-based) log at `index`, up or crashed.
fn cell(w: &World, node: usize, index: u64) -> Cell<'_> {
    let slot = &w.nodes[node];
    let (log, server) = match (slot.server(), slot.persisted()) {
        (Some(s), _) => (Some(s.raft.log()), Some(s)),
        (None, Some(h)) => (Some(&h.log), None),
        _ => (None, None),
    };
    let Some(e) = log.and_then(|l| l.entry(index)) else {
        return match log {
            Some(l) if index <= l.start() => Cell::Compacted,
            _ => Cell::Empty,
        };
    };
    let op = e.cmd().map(|c| &c.op);
    Cell::Entry(Entry {
        term: e.term,
        commit: commit::of(w, node, index, e),
        kind: e.conf().map_or(LockOp::name_of(op), |c| c.name()),
        op,
        conf: e.conf(),
        client: e
            .cmd()
            .and_then(|c| c.client)
            .and_then(|c| w.clients.get(c as usize))
            .map(|c| c.client.cfg.name.as_str()),
        result: server.and_then(|s| s.result_at(index)).copied(),
    })
}

/// The log panel: its window, and a row per node with a cell per index in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogView<'a> {
    pub window: Window,
    pub rows: Vec<NodeLog<'a>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeLog<'a> {
    /// The index of the node's snapshot (0: it has none).
    pub snapshot: u64,
    pub cells: Vec<Cell<'a>>,
}

impl LogView<'_> {
    pub fn of(w: &World, log_from: Option<u64>) -> LogView<'_> {
        let window = Window::of(w, log_from);
        let rows = (0..w.node_count)
            .map(|i| NodeLog {
                snapshot: w.nodes[i].snapshot_index(),
                cells: (window.from..=window.to).map(|x| cell(w, i, x)).collect(),
            })
            .collect();
        LogView { window, rows }
    }
}

/// On the stage, the log entries a caption names: a row per index with a cell per node, and
/// the leader's next index for each node (§5.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FocusLog<'a> {
    /// The columns: every id a server has had (0-based; an id below one added later, that no
    /// server has had, has none).
    pub ids: Vec<usize>,
    /// Per index, a cell per node slot (`ids` says which to draw).
    pub rows: Vec<(u64, Vec<Cell<'a>>)>,
    /// None while no node leads.
    pub next: Option<NextRow>,
}

impl FocusLog<'_> {
    pub fn of(w: &World, indexes: impl IntoIterator<Item = u64>) -> FocusLog<'_> {
        FocusLog {
            ids: (0..w.node_count)
                .filter(|&i| !w.nodes[i].is_absent())
                .collect(),
            rows: indexes
                .into_iter()
                .map(|x| (x, (0..w.node_count).map(|i| cell(w, i, x)).collect()))
                .collect(),
            next: next::of(w),
        }
    }
}

/// A configuration entry's label where room is short: "+n4 learner", "n4 voter", "−n2".
fn conf_label(c: crate::raft::ConfChange, lang: Lang) -> String {
    use crate::raft::ConfChange;
    let n = c.node() + 1;
    match c {
        ConfChange::AddLearner { .. } => t!(lang, "+n{n} learner"),
        ConfChange::Promote { .. } => t!(lang, "n{n} voter"),
        ConfChange::Remove { .. } => format!("−n{n}"),
    }
}

impl Entry<'_> {
    /// Its label in a cell of the log: "G k 1500ms", "R k", "E k·4", "no-op".
    pub fn label(&self, lang: Lang) -> String {
        if let Some(c) = self.conf {
            return conf_label(c, lang);
        }
        match self.op {
            None => "no-op".to_string(),
            Some(LockOp::Grant { key, lease_ms }) => t!(lang, "G {key} {lease_ms}ms"),
            Some(LockOp::Release { key, .. }) => format!("R {key}"),
            Some(LockOp::Expire { key, token }) => format!("E {key}·{token}"),
        }
    }

    /// Its label where there is room: "Grant k 1500ms → A" (whose Grant: two Grants of one key
    /// differ only in their client), "Release k", "Expire k·4", "no-op".
    pub fn words(&self, lang: Lang) -> String {
        if let Some(c) = self.conf {
            return super::membership::change_words(c, lang);
        }
        match self.op {
            None => "no-op".to_string(),
            Some(LockOp::Grant { key, lease_ms }) => {
                let grant = t!(lang, "Grant {key} {lease_ms}ms");
                match self.client {
                    Some(name) => format!("{grant} → {name}"),
                    None => grant,
                }
            }
            Some(LockOp::Release { key, .. }) => format!("Release {key}"),
            Some(LockOp::Expire { key, token }) => format!("Expire {key}·{token}"),
        }
    }

    /// Its apply result on this node as the seed names it: "Granted{token 41}",
    /// "Expired{existed: true}", "NotFound".
    pub fn result(&self) -> Option<String> {
        self.result.map(|r| match r {
            ApplyResult::Granted { token } => format!("Granted{{token {token}}}"),
            ApplyResult::Expired { existed } => format!("Expired{{existed: {existed}}}"),
            other => short(other),
        })
    }

    /// The same with the value in place of the field's name (the token is what matters and
    /// must fit): "Granted{41}", "Expired{true}", "NotFound".
    pub fn result_short(&self) -> Option<String> {
        self.result.map(short)
    }
}

fn short(r: ApplyResult) -> String {
    match r {
        ApplyResult::Granted { token } => format!("Granted{{{token}}}"),
        ApplyResult::GrantRejected => "GrantRejected".into(),
        ApplyResult::Released => "Released".into(),
        ApplyResult::NotFound => "NotFound".into(),
        ApplyResult::Expired { existed } => format!("Expired{{{existed}}}"),
        ApplyResult::Noop => "Noop".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::at;
    use crate::model::{Action, Command};

    #[test]
    fn following_the_end_the_window_moves_half_a_table_at_a_time_and_a_chosen_start_stays_in_range()
    {
        let mut p = at("three-clients", 0);
        let mut starts = Vec::new();
        for t in (0..6_000_000).step_by(200_000) {
            p.apply(Command::RunTo(t));
            let w = &p.playground.world;
            let ends = w.nodes.iter().filter_map(|n| n.server());
            let last = ends.map(|s| s.raft.log().last_index()).max().unwrap();
            let win = Window::of(w, None);
            assert_eq!(win.to, win.from + LOG_COLS - 1);
            assert!(
                win.from <= last.max(1) && last <= win.to,
                "the end is in view"
            );
            assert_eq!((win.from - 1) % (LOG_COLS / 2), 0);
            starts.push(win.from);
        }
        assert!(starts.windows(2).all(|s| s[0] <= s[1]) && starts.last() > Some(&1));
        let w = &p.playground.world;
        let last = w.nodes[0].server().unwrap().raft.log().last_index();
        assert_eq!(
            Window::of(w, Some(0)).from,
            1,
            "from the first index at least"
        );
        assert_eq!(Window::of(w, Some(u64::MAX)).to, last, "at most to the end");
        assert_eq!(Window::of(w, Some(3)).from, 3);
        let view = LogView::of(w, Some(3));
        assert_eq!(view.rows.len(), w.node_count);
        assert!(view.rows.iter().all(|r| r.cells.len() == LOG_COLS as usize));
        assert_eq!(view.rows[0].cells[0], cell(w, 0, 3));
    }

    #[test]
    fn an_entry_reads_its_command_and_the_result_it_had_on_each_node() {
        let p = at("gc-pause", 6_000_000);
        let w = &p.playground.world;
        let entries: Vec<(u64, Entry)> = (1..40)
            .filter_map(|i| match cell(w, 0, i) {
                Cell::Entry(e) => Some((i, e)),
                _ => None,
            })
            .collect();
        let noop = &entries[0].1;
        assert_eq!((noop.kind, noop.label(Lang::En)), ("noop", "no-op".into()));
        assert_eq!(noop.result_short().as_deref(), Some("Noop"));
        let (i, grant) = entries.iter().find(|(_, e)| e.kind == "grant").unwrap();
        assert_eq!(grant.label(Lang::En), "G k 1000ms");
        assert_eq!(grant.words(Lang::En), "Grant k 1000ms → A");
        assert_eq!(grant.result(), Some(format!("Granted{{token {i}}}")));
        assert_eq!(grant.result_short(), Some(format!("Granted{{{i}}}")));
        assert_eq!(grant.commit, Commit::Known);
        let (_, release) = entries.iter().find(|(_, e)| e.kind == "release").unwrap();
        assert_eq!(release.label(Lang::En), "R k");
        assert_eq!(release.words(Lang::En), "Release k");
        let past = entries.last().unwrap().0 + 1;
        assert_eq!(cell(w, 0, past), Cell::Empty);
        // A crashed node still has its log on disk, and no results in memory.
        let grant_at = *i;
        let mut p = at("gc-pause", 3_000_000);
        p.apply(Command::Act(Action::Crash { node: 2 }));
        p.apply(Command::RunTo(3_100_000));
        match cell(&p.playground.world, 1, grant_at) {
            Cell::Entry(e) => assert!(e.kind == "grant" && e.result().is_none(), "{e:?}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_stage_shows_each_nodes_entry_at_the_indexes_named_and_the_leaders_next_row() {
        let p = at("gc-pause", 3_000_000);
        let w = &p.playground.world;
        let f = FocusLog::of(w, [2, 3]);
        assert_eq!(f.ids, [0, 1, 2, 3, 4]);
        assert_eq!(f.rows.iter().map(|(x, _)| *x).collect::<Vec<_>>(), [2, 3]);
        assert!(f.rows.iter().all(|(x, cells)| cells.len() == 5
            && cells.iter().enumerate().all(|(i, c)| *c == cell(w, i, *x))));
        assert_eq!(f.next, next::of(w));
        assert!(f.next.is_some(), "a node leads");
        assert!(FocusLog::of(w, []).rows.is_empty());
    }

    /// An id no server has had (n6, below the n7 added) has no column.
    #[test]
    fn the_stage_has_no_column_for_an_id_no_server_has_had() {
        let mut p = at("gc-pause", 1_000_000);
        p.playground
            .act(crate::scenario::Action::AddNode { node: 7 })
            .unwrap();
        p.playground.advance_to(1_500_000, false);
        let f = FocusLog::of(&p.playground.world, [1]);
        assert_eq!(f.ids, [0, 1, 2, 3, 4, 6]);
    }

    #[test]
    fn a_compacted_index_is_in_the_nodes_snapshot() {
        let p = at("log-compaction", 20_000_000);
        let w = &p.playground.world;
        let view = LogView::of(w, Some(1));
        let (node, row) = view
            .rows
            .iter()
            .enumerate()
            .find(|(_, r)| r.snapshot > 0)
            .expect("a node snapshotted");
        assert_eq!(row.cells[0], Cell::Compacted, "index 1 is in its snapshot");
        assert_ne!(cell(w, node, row.snapshot + 1), Cell::Compacted);
    }
}
