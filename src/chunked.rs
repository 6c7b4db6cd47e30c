//! An append-mostly vector whose clones share their full chunks.
//!
//! Logs, traces and per-index histories only grow (a Raft log also truncates its uncommitted
//! tail). The playground clones the whole world for its scrubber snapshots; with plain `Vec`s
//! every snapshot copied every entry. Here full chunks of `CHUNK` items are immutable and
//! reference-counted, so a clone copies one pointer per chunk plus the short tail: snapshots
//! share their past, and taking one costs microseconds instead of copying 100k entries.

use std::rc::Rc;

pub const CHUNK: usize = 256;

#[derive(Debug)]
pub struct Chunked<T> {
    full: Vec<Rc<Vec<T>>>,
    tail: Vec<T>,
}

impl<T: Clone> Clone for Chunked<T> {
    fn clone(&self) -> Self {
        Chunked { full: self.full.clone(), tail: self.tail.clone() }
    }
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked { full: Vec::new(), tail: Vec::new() }
    }
}

impl<T: Clone> Chunked<T> {
    pub fn len(&self) -> usize {
        self.full.len() * CHUNK + self.tail.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, i: usize) -> Option<&T> {
        let c = i / CHUNK;
        if c < self.full.len() {
            Some(&self.full[c][i % CHUNK])
        } else if c == self.full.len() {
            self.tail.get(i % CHUNK)
        } else {
            None
        }
    }

    /// Mutable access; an item in a full chunk that a clone shares is copied with its chunk
    /// first (copy on write), so the clones never see the change.
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        let c = i / CHUNK;
        if c < self.full.len() {
            Some(&mut Rc::make_mut(&mut self.full[c])[i % CHUNK])
        } else if c == self.full.len() {
            self.tail.get_mut(i % CHUNK)
        } else {
            None
        }
    }

    pub fn last(&self) -> Option<&T> {
        self.tail.last().or_else(|| self.full.last().and_then(|c| c.last()))
    }

    pub fn push(&mut self, x: T) {
        self.tail.push(x);
        if self.tail.len() == CHUNK {
            self.full.push(Rc::new(std::mem::take(&mut self.tail)));
        }
    }

    /// Keep the first `n` items.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.len() {
            return;
        }
        let c = n / CHUNK;
        if c < self.full.len() {
            self.full.truncate(c + 1);
            let chunk = self.full.pop().expect("chunk c exists");
            self.tail = chunk[..n % CHUNK].to_vec();
        } else {
            self.tail.truncate(n % CHUNK);
        }
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + '_ {
        self.full.iter().flat_map(|c| c.iter()).chain(self.tail.iter())
    }

    /// Drop whole chunks from the front while at least `keep` items remain (cheap: no item is
    /// copied; clones that share those chunks keep them). Returns how many items were dropped.
    pub fn drop_front(&mut self, keep: usize) -> usize {
        let extra = self.len().saturating_sub(keep) / CHUNK;
        let n = extra.min(self.full.len());
        self.full.drain(..n);
        n * CHUNK
    }

    /// Items `from..` (cheap when `from` is near the end).
    pub fn iter_from(&self, from: usize) -> impl Iterator<Item = &T> + '_ {
        (from..self.len()).filter_map(move |i| self.get(i))
    }

    /// Clones of items `from..to` (exclusive).
    pub fn to_vec_range(&self, from: usize, to: usize) -> Vec<T> {
        (from..to.min(self.len())).filter_map(|i| self.get(i).cloned()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunked_behaves_like_a_vec_and_clones_share_chunks() {
        let mut c = Chunked::default();
        let mut v = Vec::new();
        for i in 0..5000u32 {
            c.push(i);
            v.push(i);
        }
        let snap = c.clone();
        assert!(Rc::ptr_eq(&snap.full[0], &c.full[0]), "full chunks are shared");
        for n in [4999, 3000, 2048, 1024, 1023, 7, 0] {
            c.truncate(n);
            v.truncate(n);
            assert_eq!(c.len(), v.len());
            assert_eq!(c.iter().copied().collect::<Vec<_>>(), v);
            assert_eq!(c.last(), v.last());
            for i in 0..3000u32 {
                c.push(i);
                v.push(i);
            }
            assert_eq!(c.iter().rev().copied().collect::<Vec<_>>(), v.iter().rev().copied().collect::<Vec<_>>());
            assert_eq!(c.to_vec_range(10, 2000), v[10..2000].to_vec());
            assert_eq!(c.iter_from(v.len() - 3).copied().collect::<Vec<_>>(), v[v.len() - 3..].to_vec());
        }
        assert_eq!(snap.len(), 5000, "the snapshot did not change");
        assert_eq!(snap.get(4321), Some(&4321));
        // Copy on write: changing an item in a shared chunk leaves the clone as it was.
        let mut c = snap.clone();
        *c.get_mut(5).unwrap() = 77;
        *c.get_mut(4999).unwrap() = 78;
        assert_eq!((c.get(5), c.get(4999), snap.get(5), snap.get(4999)), (Some(&77), Some(&78), Some(&5), Some(&4999)));
        assert!(!Rc::ptr_eq(&snap.full[0], &c.full[0]) && Rc::ptr_eq(&snap.full[1], &c.full[1]));
        assert_eq!(c.get_mut(5000), None);
    }
}
