//! The built-in narrated scenarios (files under `scenarios/`, compiled in). Each carries its
//! story in `description` and its captions and expected outcomes in `lesson`.

use super::Scenario;

/// (name, document). The order is the classroom order.
pub const BUILTINS: &[(&str, &str)] = &[
    ("gc-pause", include_str!("../../../scenarios/gc-pause.json")),
    (
        "late-expire",
        include_str!("../../../scenarios/late-expire.json"),
    ),
    (
        "ghost-lock",
        include_str!("../../../scenarios/ghost-lock.json"),
    ),
    (
        "leader-crash-mid-lease",
        include_str!("../../../scenarios/leader-crash-mid-lease.json"),
    ),
    (
        "isolated-old-leader",
        include_str!("../../../scenarios/isolated-old-leader.json"),
    ),
    (
        "paused-leader",
        include_str!("../../../scenarios/paused-leader.json"),
    ),
    (
        "uncommitted-grant",
        include_str!("../../../scenarios/uncommitted-grant.json"),
    ),
    (
        "drift-and-jump",
        include_str!("../../../scenarios/drift-and-jump.json"),
    ),
    (
        "full-restart",
        include_str!("../../../scenarios/full-restart.json"),
    ),
    (
        "log-compaction",
        include_str!("../../../scenarios/log-compaction.json"),
    ),
    (
        "retried-grant",
        include_str!("../../../scenarios/retried-grant.json"),
    ),
    (
        "rejoin-without-prevote",
        include_str!("../../../scenarios/rejoin-without-prevote.json"),
    ),
    (
        "rejoin-with-prevote",
        include_str!("../../../scenarios/rejoin-with-prevote.json"),
    ),
    (
        "three-clients",
        include_str!("../../../scenarios/three-clients.json"),
    ),
    (
        "gc-pause-no-fencing",
        include_str!("../../../scenarios/gc-pause-no-fencing.json"),
    ),
    (
        "break-expire-ignores-token",
        include_str!("../../../scenarios/break-expire-ignores-token.json"),
    ),
    (
        "break-followers-delete",
        include_str!("../../../scenarios/break-followers-delete.json"),
    ),
    (
        "break-token-counter",
        include_str!("../../../scenarios/break-token-counter.json"),
    ),
    (
        "break-no-ghost-release",
        include_str!("../../../scenarios/break-no-ghost-release.json"),
    ),
    (
        "break-release-without-holder-check",
        include_str!("../../../scenarios/break-release-without-holder-check.json"),
    ),
    (
        "break-client-no-margin",
        include_str!("../../../scenarios/break-client-no-margin.json"),
    ),
    (
        "break-no-pre-vote",
        include_str!("../../../scenarios/break-no-pre-vote.json"),
    ),
    (
        "break-no-check-quorum",
        include_str!("../../../scenarios/break-no-check-quorum.json"),
    ),
    (
        "break-figure-8",
        include_str!("../../../scenarios/break-figure-8.json"),
    ),
    (
        "playground",
        include_str!("../../../scenarios/playground.json"),
    ),
];

/// The "break it" scenarios: each switches off one safeguard and turns a named invariant red.
pub fn is_break_it(name: &str) -> bool {
    name.starts_with("break-") || name.ends_with("-no-fencing")
}

pub fn names() -> impl Iterator<Item = &'static str> {
    BUILTINS.iter().map(|(n, _)| *n)
}

pub fn get(name: &str) -> Option<Scenario> {
    BUILTINS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, json)| Scenario::from_json(json).expect("built-in scenarios are valid"))
}
