//! The replicated log, 1-based, with a running prefix hash per index.
//!
//! The prefix hash of index i digests every (term, command) up to i, so two logs agree on the
//! whole prefix 1..=i exactly when their hashes at i agree (up to 64-bit collisions). The
//! invariant checks use it to compare logs in O(1) instead of walking 100k entries.

use super::{Command, Entry, Index, Term};
use crate::chunked::Chunked;

/// Entries and hashes live in [`Chunked`] storage, so snapshots of the world share them.
#[derive(Clone, Debug)]
pub struct Log<C> {
    entries: Chunked<Entry<C>>,
    prefix_hash: Chunked<u64>,
}

impl<C> Default for Log<C> {
    fn default() -> Self {
        Log { entries: Chunked::default(), prefix_hash: Chunked::default() }
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
        self.entries.len() as Index
    }

    pub fn last_term(&self) -> Term {
        self.entries.last().map_or(0, |e| e.term)
    }

    /// Term at index i; 0 for index 0 and beyond the end.
    pub fn term_at(&self, i: Index) -> Term {
        if i == 0 {
            return 0;
        }
        self.entries.get(i as usize - 1).map_or(0, |e| e.term)
    }

    pub fn entry(&self, i: Index) -> Option<&Entry<C>> {
        if i == 0 {
            return None;
        }
        self.entries.get(i as usize - 1)
    }

    /// Hash of the prefix 1..=i; 0 for the empty prefix.
    pub fn prefix_hash(&self, i: Index) -> u64 {
        if i == 0 {
            return 0;
        }
        self.prefix_hash.get(i as usize - 1).copied().unwrap_or(0)
    }

    pub fn append(&mut self, e: Entry<C>) -> Index {
        let prev = self.prefix_hash.last().copied().unwrap_or(0);
        let digest = e.cmd.as_ref().map_or(0x5eed, |c| c.digest());
        self.prefix_hash.push(mix(mix(prev, e.term), digest));
        self.entries.push(e);
        self.last_index()
    }

    /// Remove every entry at index >= i.
    pub fn truncate_from(&mut self, i: Index) {
        let keep = i.saturating_sub(1) as usize;
        self.entries.truncate(keep);
        self.prefix_hash.truncate(keep);
    }

    /// Clones of entries from..=to (clamped to the log).
    pub fn slice(&self, from: Index, to: Index) -> Vec<Entry<C>> {
        let to = to.min(self.last_index());
        if from == 0 || from > to {
            return Vec::new();
        }
        self.entries.to_vec_range(from as usize - 1, to as usize)
    }

    /// The first index holding `term`, scanning back from `from` (fast back-off, §5.3).
    pub fn first_index_of_term(&self, term: Term, from: Index) -> Index {
        let mut i = from.min(self.last_index());
        while i > 1 && self.term_at(i - 1) == term {
            i -= 1;
        }
        i
    }

    /// The last index holding `term`, or None.
    pub fn last_index_of_term(&self, term: Term) -> Option<Index> {
        let mut i = self.last_index();
        while i > 0 {
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

    pub fn entries(&self) -> impl DoubleEndedIterator<Item = &Entry<C>> + '_ {
        self.entries.iter()
    }
}
