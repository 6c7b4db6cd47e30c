//! What the current lesson caption is about, resolved to parts of the page: the components mark
//! them (class `focus`) and the page brings them into view.

use super::lesson::LessonTrack;
use crate::playground::Playground;
use crate::scenario::lesson::Focus;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FocusSet {
    /// 0-based nodes.
    pub nodes: Vec<usize>,
    pub clients: Vec<String>,
    pub storage: bool,
    pub keys: Vec<String>,
    pub log: Vec<u64>,
    /// The leader's next index and match for each follower (a row under the log entries).
    pub next: bool,
}

impl FocusSet {
    pub fn is_empty(&self) -> bool {
        *self == FocusSet::default()
    }
    pub fn node(&self, i: usize) -> bool {
        self.nodes.contains(&i)
    }
    pub fn client(&self, name: &str) -> bool {
        self.clients.iter().any(|c| c == name)
    }
    pub fn key(&self, k: &str) -> bool {
        self.keys.iter().any(|x| x == k)
    }
}

/// The side panel a caption is about, for a player that has room for one (the embed): the log
/// when it names an index, the storage, the clients, else the lock view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Locks,
    Log,
    Storage,
    Clients,
}

impl FocusSet {
    /// Whether a projector shows this side panel open at this caption: the panels the caption
    /// names (the lock view when it names none of them) are open, the others fold to their
    /// title, so the caption, what it names and the expected outcomes fit one screen.
    pub fn open_on_projector(&self, side: Side) -> bool {
        let named = |s: Side| match s {
            Side::Locks => !self.keys.is_empty(),
            Side::Log => !self.log.is_empty() || self.next,
            Side::Storage => self.storage,
            Side::Clients => !self.clients.is_empty(),
        };
        let any = [Side::Locks, Side::Log, Side::Storage, Side::Clients]
            .into_iter()
            .any(named);
        if any {
            named(side)
        } else {
            side == Side::Locks
        }
    }

    pub fn side(&self) -> Side {
        if !self.log.is_empty() || self.next {
            Side::Log
        } else if self.storage {
            Side::Storage
        } else if !self.clients.is_empty() && self.keys.is_empty() {
            Side::Clients
        } else {
            Side::Locks
        }
    }
}

/// The current caption's focus: its own `focus`, else what its event named.
pub fn current(track: &LessonTrack, run: &Playground) -> FocusSet {
    let mut set = FocusSet::default();
    let pos = track.position(&run.world);
    if pos == 0 {
        return set;
    }
    let Some(caption) = run
        .scenario
        .lesson
        .as_ref()
        .and_then(|l| l.captions.get(pos - 1))
    else {
        return set;
    };
    let items: &[Focus] = if caption.focus.is_empty() {
        track.mark(pos - 1).map_or(&[], |m| &m.focus)
    } else {
        &caption.focus
    };
    let w = &run.world;
    for f in items {
        match f {
            Focus::Node(k) if *k >= 1 && *k <= w.node_count && !set.nodes.contains(&(k - 1)) => {
                set.nodes.push(k - 1)
            }
            Focus::Leader => set
                .nodes
                .extend(w.leader().filter(|l| !set.nodes.contains(l))),
            Focus::Client(c) => set.clients.push(c.clone()),
            Focus::Storage => set.storage = true,
            Focus::Key(k) => set.keys.push(k.clone()),
            Focus::LogIndex(i) => set.log.push(*i),
            Focus::NextIndex => set.next = true,
            Focus::Node(_) => {}
        }
    }
    set
}
