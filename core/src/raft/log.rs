//! The replicated log, 1-based, with a running prefix hash per index.
//!
//! The prefix hash of index i digests every (term, command) up to i, so two logs agree on the
//! whole prefix 1..=i exactly when their hashes at i agree (up to 64-bit collisions). The
//! invariant checks use it to compare logs in O(1) instead of walking 100k entries.
//!
//! Compaction (§7) drops a prefix the state machine has a snapshot of: the log then starts after
//! `start`, and keeps the term and prefix hash of `start` so the consistency check and the
//! invariants still work at its first index. Below `start` the log knows nothing.

use super::{Command, Entry, Index, Membership, Term};
use crate::chunked::Chunked;

/// Entries and hashes live in [`Chunked`] storage, so snapshots of the world share them.
#[derive(Clone, Debug)]
pub struct Log<C> {
    /// Entries start + 1 ..= last_index.
    entries: Chunked<Entry<C>>,
    prefix_hash: Chunked<u64>,
    /// The last compacted index (0: nothing compacted), its term and prefix hash.
    start: Index,
    start_term: Term,
    start_hash: u64,
    /// The configuration as of `start` (dissertation §4.1; a snapshot carries it, §7).
    start_conf: Membership,
    /// Each configuration entry after `start`: its index and the configuration from there on.
    confs: Vec<(Index, Membership)>,
}

impl<C> Default for Log<C> {
    fn default() -> Self {
        Log {
            entries: Chunked::default(),
            prefix_hash: Chunked::default(),
            start: 0,
            start_term: 0,
            start_hash: 0,
            start_conf: Membership::default(),
            confs: Vec::new(),
        }
    }
}

impl<C> Log<C> {
    /// An empty log whose first configuration is `conf`.
    pub fn new(conf: Membership) -> Self {
        Log {
            start_conf: conf,
            ..Log::default()
        }
    }
}

/// Combine a running hash with a word: a multiply-xorshift step (SplitMix64's finalizer
/// constants). Integer-only and portable, so native and wasm agree.
pub fn mix(h: u64, x: u64) -> u64 {
    let z = (h ^ x.wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z ^ (z >> 31)
}

impl<C: Command> Log<C> {
    pub fn last_index(&self) -> Index {
        self.start + self.entries.len() as Index
    }

    pub fn last_term(&self) -> Term {
        self.entries.last().map_or(self.start_term, |e| e.term)
    }

    /// The last compacted index (0 when nothing was compacted): entries start after it.
    pub fn start(&self) -> Index {
        self.start
    }

    /// How many entries the log holds (beyond its compacted prefix).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Term at index i: 0 for index 0 and beyond the end; `start`'s term below `start` (callers
    /// that may look below `start` use [`Log::term`]).
    pub fn term_at(&self, i: Index) -> Term {
        if i <= self.start {
            return self.start_term;
        }
        self.entries
            .get((i - self.start) as usize - 1)
            .map_or(0, |e| e.term)
    }

    /// Term at index i, or None when the log no longer knows it (compacted) or does not hold it.
    pub fn term(&self, i: Index) -> Option<Term> {
        match i {
            0 => Some(0),
            _ if i < self.start => None,
            _ if i == self.start => Some(self.start_term),
            _ => self
                .entries
                .get((i - self.start) as usize - 1)
                .map(|e| e.term),
        }
    }

    pub fn entry(&self, i: Index) -> Option<&Entry<C>> {
        if i <= self.start {
            return None;
        }
        self.entries.get((i - self.start) as usize - 1)
    }

    /// Hash of the prefix 1..=i; 0 for the empty prefix; None where the log no longer knows it
    /// (compacted) or does not reach.
    pub fn prefix_hash(&self, i: Index) -> Option<u64> {
        match i {
            0 => Some(0),
            _ if i < self.start => None,
            _ if i == self.start => Some(self.start_hash),
            _ => self.prefix_hash.get((i - self.start) as usize - 1).copied(),
        }
    }

    /// The latest configuration in the log, committed or not (dissertation §4.1: a server
    /// uses it as soon as it is in its log).
    pub fn membership(&self) -> Membership {
        self.confs.last().map_or(self.start_conf, |c| c.1)
    }

    /// The configuration as of index `i` (the one before `start` is not known: `start`'s).
    pub fn membership_at(&self, i: Index) -> Membership {
        self.confs
            .iter()
            .rev()
            .find(|c| c.0 <= i)
            .map_or(self.start_conf, |c| c.1)
    }

    /// The indexes of the configuration entries the log holds beyond `start`, oldest first.
    pub fn conf_indexes(&self) -> impl Iterator<Item = Index> + '_ {
        self.confs.iter().map(|c| c.0)
    }

    /// The index of the latest configuration entry the log holds beyond `start`, if any.
    pub fn last_conf_index(&self) -> Option<Index> {
        self.confs.last().map(|c| c.0)
    }

    /// Drop every entry up to `i` (§7): the snapshot holds their effect. Entries after `i` stay.
    pub fn compact(&mut self, i: Index) {
        if i <= self.start || i > self.last_index() {
            return;
        }
        self.start_conf = self.membership_at(i);
        self.confs.retain(|c| c.0 > i);
        self.start_term = self.term_at(i);
        self.start_hash = self.prefix_hash(i).expect("i is in the log");
        let n = (i - self.start) as usize;
        self.entries.drop_first(n);
        self.prefix_hash.drop_first(n);
        self.start = i;
    }

    /// Discard the whole log for a snapshot that ends at `index` with `term` (§7: the follower's
    /// log conflicts with the snapshot or is shorter), whose configuration is `conf`.
    pub fn reset_to(&mut self, index: Index, term: Term, hash: u64, conf: Membership) {
        *self = Log {
            start: index,
            start_term: term,
            start_hash: hash,
            start_conf: conf,
            ..Log::default()
        };
    }

    pub fn append(&mut self, e: Entry<C>) -> Index {
        let prev = self.prefix_hash.last().copied().unwrap_or(self.start_hash);
        self.prefix_hash.push(mix(mix(prev, e.term), e.digest()));
        if let Some(change) = e.conf() {
            let next = self.membership().apply(change);
            self.confs.push((self.last_index() + 1, next));
        }
        self.entries.push(e);
        self.last_index()
    }

    /// Remove every entry at index >= i (never a compacted one: those are committed). A
    /// configuration entry removed takes its configuration with it (§4.1).
    pub fn truncate_from(&mut self, i: Index) {
        assert!(i > self.start, "truncating compacted index {i}");
        self.confs.retain(|c| c.0 < i);
        let keep = (i - 1 - self.start) as usize;
        self.entries.truncate(keep);
        self.prefix_hash.truncate(keep);
    }

    /// Clones of entries from..=to (clamped to the log).
    pub fn slice(&self, from: Index, to: Index) -> Vec<Entry<C>> {
        let to = to.min(self.last_index());
        if from <= self.start || from > to {
            return Vec::new();
        }
        self.entries
            .to_vec_range((from - self.start) as usize - 1, (to - self.start) as usize)
    }

    /// The first index holding `term`, scanning back from `from` (fast back-off, §5.3); not below
    /// the first entry the log still has.
    pub fn first_index_of_term(&self, term: Term, from: Index) -> Index {
        let mut i = from.min(self.last_index());
        while i > self.start + 1 && self.term_at(i - 1) == term {
            i -= 1;
        }
        i
    }

    /// The last index holding `term`, or None (as far back as `start`).
    pub fn last_index_of_term(&self, term: Term) -> Option<Index> {
        let mut i = self.last_index();
        while i > 0 && i >= self.start {
            let t = self.term_at(i);
            if t == term {
                return Some(i);
            }
            if t < term {
                return None;
            }
            i -= 1;
        }
        None
    }

    /// The entries the log holds, from index `start() + 1`.
    pub fn entries(&self) -> impl DoubleEndedIterator<Item = &Entry<C>> + '_ {
        self.entries.iter()
    }
}
