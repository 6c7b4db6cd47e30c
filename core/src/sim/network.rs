//! The network between endpoints (nodes, clients, the storage): per directed link up/down, a
//! latency range, and drop/duplicate probabilities for node-to-node traffic.
//!
//! Client traffic models a TCP connection: it is never dropped or duplicated at random, but a
//! cut link loses it, and a server that cannot reach a client learns so at once (which is how
//! the leader detects a ghost lock).

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NetworkSettings {
    /// One-way latency range in microseconds, uniform.
    pub latency_us: [u64; 2],
    pub drop_ppm: u32,
    pub duplicate_ppm: u32,
}

impl Default for NetworkSettings {
    fn default() -> Self {
        NetworkSettings {
            latency_us: [1_000, 5_000],
            drop_ppm: 0,
            duplicate_ppm: 0,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Network {
    pub settings: NetworkSettings,
    endpoints: usize,
    up: Vec<bool>,
}

impl Network {
    pub fn new(endpoints: usize, settings: NetworkSettings) -> Self {
        Network {
            settings,
            endpoints,
            up: vec![true; endpoints * endpoints],
        }
    }

    pub fn is_up(&self, from: usize, to: usize) -> bool {
        self.up[from * self.endpoints + to]
    }

    pub fn set(&mut self, from: usize, to: usize, up: bool) {
        self.up[from * self.endpoints + to] = up;
    }

    pub fn heal_all(&mut self) {
        self.up.iter_mut().for_each(|u| *u = true);
    }

    /// Cut every node-to-node link between different groups (both directions). Nodes in no
    /// group form a group of their own each.
    pub fn partition(&mut self, n_nodes: usize, groups: &[Vec<usize>]) {
        let group_of = |x: usize| {
            groups
                .iter()
                .position(|g| g.contains(&x))
                .map_or(usize::MAX - x, |g| g)
        };
        for a in 0..n_nodes {
            for b in 0..n_nodes {
                if a != b {
                    self.set(a, b, group_of(a) == group_of(b));
                }
            }
        }
    }

    /// Cut (or heal) both directions between `x` and every other node.
    pub fn isolate(&mut self, n_nodes: usize, x: usize, up: bool) {
        for p in 0..n_nodes {
            if p != x {
                self.set(x, p, up);
                self.set(p, x, up);
            }
        }
    }

    pub fn endpoints(&self) -> usize {
        self.endpoints
    }
}
