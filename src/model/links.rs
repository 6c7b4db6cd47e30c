//! The cluster's links as a version: what they show (which ids a server has had, each
//! direction up or cut, the language, whether they take clicks). The cluster draws every
//! played frame; its 2·n·(n−1) link elements with their listeners are drawn by their own panel
//! only when this changes.

use crate::lang::Lang;
use crate::sim::World;
use std::hash::{Hash, Hasher};

pub fn version(w: &World, lang: Lang, act: bool) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (w.node_count, lang, act).hash(&mut h);
    for a in 0..w.node_count {
        w.nodes[a].is_absent().hash(&mut h);
        for b in 0..w.node_count {
            w.net.is_up(a, b).hash(&mut h);
        }
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::at;
    use crate::scenario::Action;

    /// Time alone changes nothing; a cut, a heal, a node added, the language and the twin's
    /// read-only drawing each do.
    #[test]
    fn links_are_redrawn_only_when_what_they_show_changes() {
        let mut p = at("gc-pause", 1_000_000);
        let v = |p: &crate::model::page::Page| version(&p.playground.world, Lang::En, true);
        let v0 = v(&p);
        p.playground.advance_to(1_400_000, false);
        assert_eq!(v(&p), v0, "messages flew, no link changed");
        assert_ne!(version(&p.playground.world, Lang::Ru, true), v0);
        assert_ne!(version(&p.playground.world, Lang::En, false), v0);
        let cut = Action::Cut {
            from: "n1".into(),
            to: "n2".into(),
        };
        p.playground.act(cut).unwrap();
        let v1 = v(&p);
        assert_ne!(v1, v0, "a cut");
        p.playground.act(Action::AddNode { node: 7 }).unwrap();
        assert_ne!(v(&p), v1, "n7 joined");
    }
}
