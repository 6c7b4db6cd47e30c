//! Membership as the page shows it (Raft dissertation ch. 4): each node's standing in the
//! leader's configuration, a heading with the configuration and the change in flight, and what
//! *Add a node* and *Remove from the cluster* would do now, or why they cannot.

use super::command::Action;
use crate::lang::{t, Lang};
use crate::raft::{ConfChange, NODE_SLOTS};
use crate::sim::World;

/// A node's place in the configuration the leader uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    Voter,
    /// Receives the log, does not vote (§4.2.1).
    Learner,
    /// Its server runs (or ran) but the cluster no longer counts it.
    Removed,
    /// No server has had this id yet.
    Absent,
}

impl Standing {
    pub fn of(w: &World, i: usize) -> Standing {
        let conf = w.membership();
        match () {
            _ if w.nodes[i].is_absent() => Standing::Absent,
            _ if conf.is_voter(i) => Standing::Voter,
            _ if conf.is_learner(i) => Standing::Learner,
            _ => Standing::Removed,
        }
    }

    /// Its class on the node's circle (a voter's is its role's alone).
    pub fn class(self) -> Option<&'static str> {
        match self {
            Standing::Voter => None,
            Standing::Learner => Some("learner"),
            Standing::Removed => Some("removed"),
            Standing::Absent => Some("absent"),
        }
    }
}

/// The heading over the cluster once a run changes its membership, and the controls' state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MembershipView {
    /// "Cluster: voters n1 n2 n3 · learners n4 · in flight: add n4 (index 12)"; None while the
    /// run has never changed its membership (a newcomer sees no extra line).
    pub heading: Option<String>,
    /// *Add a node*: the action, or why not now.
    pub add: Result<Action, &'static str>,
}

impl MembershipView {
    pub fn of(w: &World, lang: Lang) -> MembershipView {
        let conf = w.membership();
        let in_flight = w.leader().and_then(|l| w.nodes[l].server()).and_then(|s| {
            let log = s.raft.log();
            let i = log
                .last_conf_index()
                .filter(|&i| i > s.raft.commit_index())?;
            Some((i, log.entry(i)?.conf()?))
        });
        let changed = w.node_count > w.first_nodes
            || conf != crate::raft::Membership::first(w.first_nodes)
            || in_flight.is_some();
        let heading = changed.then(|| {
            // Whose view: servers may disagree while a change is not committed everywhere.
            let mut s = match w.leader() {
                Some(l) => t!(
                    lang,
                    "Cluster as the leader n{} sees it: {}",
                    l + 1,
                    describe(conf, lang)
                ),
                None => t!(lang, "Cluster: {}", describe(conf, lang)),
            };
            if let Some((index, change)) = in_flight {
                s += &t!(
                    lang,
                    " · in flight: {} (index {index})",
                    change_words(change, lang)
                );
            }
            s
        });
        let add = match (0..NODE_SLOTS).find(|&i| !conf.is_member(i)) {
            None => Err(t!(lang, "the cluster has all seven nodes")),
            Some(i) => w
                .can_change(ConfChange::add_learner(i))
                .map(|_| Action::AddNode { node: i + 1 })
                .map_err(|why| why.reason_in(lang)),
        };
        MembershipView { heading, add }
    }
}

/// The word on a node's circle: a learner's or a removed server's standing where a follower's
/// role would be; otherwise its role (or crashed, paused).
pub fn standing_label(state: &str, standing: Standing, lang: Lang) -> &'static str {
    match (standing, state) {
        (Standing::Learner, "follower") => t!(lang, "learner"),
        (Standing::Removed, "follower" | "precandidate" | "candidate") => t!(lang, "removed"),
        _ => super::text::node_label(state, lang),
    }
}

/// *Remove from the cluster* for node `i`: the action, or why not now.
pub fn remove(w: &World, i: usize, lang: Lang) -> Result<Action, &'static str> {
    w.can_change(ConfChange::remove(i))
        .map(|_| Action::RemoveNode { node: i + 1 })
        .map_err(|why| why.reason_in(lang))
}

fn describe(conf: crate::raft::Membership, lang: Lang) -> String {
    let names = |it: &mut dyn Iterator<Item = usize>| {
        it.map(|i| format!("n{}", i + 1))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut s = t!(lang, "voters {}", names(&mut conf.voters()));
    if conf.learners != 0 {
        s += &t!(lang, " · learners {}", names(&mut conf.learners()));
    }
    s
}

/// A change in words: "add n4 as a learner", "promote n4 to voter", "remove n2".
pub fn change_words(change: ConfChange, lang: Lang) -> String {
    let n = change.node() + 1;
    match change {
        ConfChange::AddLearner { .. } => t!(lang, "add n{n} as a learner"),
        ConfChange::Promote { .. } => t!(lang, "promote n{n} to voter"),
        ConfChange::Remove { .. } => t!(lang, "remove n{n}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{default_scenario, Command, Page};
    use crate::playground::Playground;

    #[test]
    fn add_a_node_waits_for_a_leader_then_grows_the_cluster_with_a_learner_promoted() {
        let mut p = Page::new(Playground::new(default_scenario()).unwrap());
        let v = MembershipView::of(&p.playground.world, Lang::En);
        assert_eq!(v.heading, None, "no change yet: no heading");
        assert_eq!(v.add, Err("no leader to propose it"));
        p.apply(Command::RunTo(2_000_000));
        let w = &p.playground.world;
        let n = w.node_count;
        let add = MembershipView::of(w, Lang::En).add.expect("a leader");
        assert_eq!(add, Action::AddNode { node: n + 1 });
        p.apply(Command::Act(add));
        let w = &p.playground.world;
        assert_eq!(Standing::of(w, n), Standing::Learner);
        let heading = MembershipView::of(w, Lang::En).heading.unwrap();
        assert!(
            heading.contains(&format!("learners n{}", n + 1)),
            "{heading}"
        );
        assert!(heading.contains("in flight: add"), "{heading}");
        p.apply(Command::RunTo(3_000_000));
        let w = &p.playground.world;
        assert_eq!(Standing::of(w, n), Standing::Voter);
        assert!(!MembershipView::of(w, Lang::En)
            .heading
            .unwrap()
            .contains("in flight"));
    }

    #[test]
    fn remove_from_the_cluster_says_why_not_while_a_change_is_in_flight() {
        let mut p = Page::new(Playground::new(default_scenario()).unwrap());
        p.apply(Command::RunTo(2_000_000));
        let w = &p.playground.world;
        let leader = w.leader().unwrap();
        let act = remove(w, leader, Lang::En).expect("the leader may remove itself");
        p.apply(Command::Act(act));
        let w = &p.playground.world;
        let other = (leader + 1) % w.node_count;
        assert_eq!(
            remove(w, other, Lang::En),
            Err("another change is in flight: one at a time, after the previous one commits")
        );
        p.apply(Command::RunTo(4_000_000));
        let w = &p.playground.world;
        assert_eq!(Standing::of(w, leader), Standing::Removed);
        assert_ne!(w.leader(), Some(leader), "it stepped down");
        assert!(w.leader().is_some(), "the others elected a leader");
    }
}
