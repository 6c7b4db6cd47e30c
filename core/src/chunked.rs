//! An append-mostly vector whose clones share their full chunks.
//!
//! Logs, traces and per-index histories only grow (a Raft log also truncates its uncommitted
//! tail). The playground clones the whole world for its scrubber snapshots; with plain `Vec`s
//! every snapshot copied every entry. Here full chunks of `CHUNK` items are immutable and
//! reference-counted, so a clone copies one pointer per chunk plus the short tail: snapshots
//! share their past, and taking one costs microseconds instead of copying 100k entries.
//!
//! A compacted Raft log also drops items from the front (`drop_first`): whole chunks go, and
//! `front` counts the items of the first chunk that are no longer part of the vector.

use std::rc::Rc;

pub const CHUNK: usize = 64;

#[derive(Debug)]
pub struct Chunked<T> {
    full: Vec<Rc<Vec<T>>>,
    tail: Vec<T>,
    /// Items dropped from the front of the first chunk (below `CHUNK`; 0 when `full` is empty).
    /// Item `i` sits at position `i + front` of the chunks followed by the tail.
    front: usize,
}

impl<T: Clone> Clone for Chunked<T> {
    fn clone(&self) -> Self {
        Chunked {
            full: self.full.clone(),
            tail: self.tail.clone(),
            front: self.front,
        }
    }
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked {
            full: Vec::new(),
            tail: Vec::new(),
            front: 0,
        }
    }
}

impl<T: Clone> Chunked<T> {
    pub fn len(&self) -> usize {
        self.full.len() * CHUNK + self.tail.len() - self.front
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, i: usize) -> Option<&T> {
        let i = i + self.front;
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
        let i = i + self.front;
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
        if self.is_empty() {
            return None;
        }
        self.tail
            .last()
            .or_else(|| self.full.last().and_then(|c| c.last()))
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
        let p = n + self.front;
        let c = p / CHUNK;
        if c < self.full.len() {
            self.full.truncate(c + 1);
            let chunk = self.full.pop().expect("chunk c exists");
            self.tail = chunk[..p % CHUNK].to_vec();
        } else {
            self.tail.truncate(p % CHUNK);
        }
        self.settle_front();
    }

    /// With no full chunk left, the dropped items still at the tail's start go for good.
    fn settle_front(&mut self) {
        if self.full.is_empty() && self.front > 0 {
            self.tail.drain(..self.front);
            self.front = 0;
        }
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + '_ {
        let mut it = self
            .full
            .iter()
            .flat_map(|c| c.iter())
            .chain(self.tail.iter());
        if self.front > 0 {
            it.nth(self.front - 1);
        }
        it
    }

    /// Drop whole chunks from the front while at least `keep` items remain (cheap: no item is
    /// copied; clones that share those chunks keep them). Returns how many items were dropped.
    pub fn drop_front(&mut self, keep: usize) -> usize {
        let mut dropped = 0;
        while !self.full.is_empty() && self.len() - (CHUNK - self.front) >= keep {
            dropped += CHUNK - self.front;
            self.front = 0;
            self.full.remove(0);
        }
        dropped
    }

    /// Drop the first `n` items (a log compacted up to a snapshot): whole chunks go without
    /// copying anything; the rest of the first chunk stays, hidden behind `front`.
    pub fn drop_first(&mut self, n: usize) {
        let n = n.min(self.len());
        self.front += n;
        let c = (self.front / CHUNK).min(self.full.len());
        self.full.drain(..c);
        self.front -= c * CHUNK;
        self.settle_front();
    }

    /// Items `from..` (cheap when `from` is near the end).
    pub fn iter_from(&self, from: usize) -> impl Iterator<Item = &T> + '_ {
        (from..self.len()).filter_map(move |i| self.get(i))
    }

    /// Clones of items `from..to` (exclusive).
    pub fn to_vec_range(&self, from: usize, to: usize) -> Vec<T> {
        (from..to.min(self.len()))
            .filter_map(|i| self.get(i).cloned())
            .collect()
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
        assert!(
            Rc::ptr_eq(&snap.full[0], &c.full[0]),
            "full chunks are shared"
        );
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
            assert_eq!(
                c.iter().rev().copied().collect::<Vec<_>>(),
                v.iter().rev().copied().collect::<Vec<_>>()
            );
            assert_eq!(c.to_vec_range(10, 2000), v[10..2000].to_vec());
            assert_eq!(
                c.iter_from(v.len() - 3).copied().collect::<Vec<_>>(),
                v[v.len() - 3..].to_vec()
            );
        }
        assert_eq!(snap.len(), 5000, "the snapshot did not change");
        assert_eq!(snap.get(4321), Some(&4321));
        // Copy on write: changing an item in a shared chunk leaves the clone as it was.
        let mut c = snap.clone();
        *c.get_mut(5).unwrap() = 77;
        *c.get_mut(4999).unwrap() = 78;
        assert_eq!(
            (c.get(5), c.get(4999), snap.get(5), snap.get(4999)),
            (Some(&77), Some(&78), Some(&5), Some(&4999))
        );
        assert!(!Rc::ptr_eq(&snap.full[0], &c.full[0]) && Rc::ptr_eq(&snap.full[1], &c.full[1]));
        assert_eq!(c.get_mut(5000), None);
    }

    #[test]
    fn chunked_drops_items_from_the_front_like_a_vec() {
        let mut c = Chunked::default();
        let mut v: Vec<u32> = Vec::new();
        let mut next = 0u32;
        for (push, drop, trunc) in [
            (600, 10, 0),
            (5, 250, 0),
            (1000, 256, 3),
            (0, 700, 1),
            (300, 1, 0),
            (40, 0, 0),
            (0, 5000, 0),
            (900, 3, 2),
        ] {
            for _ in 0..push {
                c.push(next);
                v.push(next);
                next += 1;
            }
            let snap = c.clone();
            c.drop_first(drop);
            v.drain(..drop.min(v.len()));
            let t = v.len().saturating_sub(trunc);
            c.truncate(t);
            v.truncate(t);
            assert_eq!(c.len(), v.len());
            assert_eq!(c.iter().copied().collect::<Vec<_>>(), v);
            assert_eq!(
                c.iter().rev().copied().collect::<Vec<_>>(),
                v.iter().rev().copied().collect::<Vec<_>>()
            );
            assert_eq!(c.last(), v.last());
            assert_eq!(c.get(0), v.first());
            assert_eq!(
                c.to_vec_range(1, 100),
                v[1.min(v.len())..100.min(v.len())].to_vec()
            );
            if let Some(x) = c.get_mut(2) {
                *x += 1;
                v[2] += 1;
            }
            // Whole chunks from the front, with part of the first already gone.
            let keep = v.len() / 3;
            let d = c.drop_front(keep);
            v.drain(..d);
            assert!(
                v.len() >= keep && v.len() < keep + 2 * CHUNK,
                "kept {} of at least {keep}",
                v.len()
            );
            assert_eq!(c.iter().copied().collect::<Vec<_>>(), v);
            assert_eq!(c.len(), v.len());
            assert_eq!(
                snap.len(),
                snap.iter().count(),
                "a clone taken before is intact"
            );
        }
    }
}
