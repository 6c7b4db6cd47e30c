//! The wide swarm: every knob of the scenario format over its whole documented range, every
//! timeline action, every invariant after every event (`raftlock::scenario::wide`). `make soak`
//! runs the same seeds for as long as one likes; here a few thousand, in parts that run on
//! both cores. `RAFTLOCK_WIDE_SEEDS` sets how many.

use raftlock::scenario::wide;

const PARTS: u64 = 6;

fn wide_part(part: u64) {
    let n: u64 = std::env::var("RAFTLOCK_WIDE_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3_000);
    let (from, to) = (1 + part * n / PARTS, 1 + (part + 1) * n / PARTS);
    let mut failed = Vec::new();
    for seed in from..to {
        let o = wide::run_wide(seed);
        if !o.ok() {
            failed.push(format!(
                "seed {seed}: {:?} {:?}\n  replay: cargo run --release -- soak --seeds 1 --from {seed} --dump /tmp",
                o.violations, o.convergence
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn wide_swarm_part_1() {
    wide_part(0);
}
#[test]
fn wide_swarm_part_2() {
    wide_part(1);
}
#[test]
fn wide_swarm_part_3() {
    wide_part(2);
}
#[test]
fn wide_swarm_part_4() {
    wide_part(3);
}
#[test]
fn wide_swarm_part_5() {
    wide_part(4);
}
#[test]
fn wide_swarm_part_6() {
    wide_part(5);
}

/// Clients' own clocks jump too, forward and back, over the format's whole range: no checked
/// invariant breaks (a jump back past a client's margin leaves `one_believed_holder` unchecked,
/// as a server clock's jump does), and every run ends.
#[test]
fn wide_swarm_with_client_clock_jumps() {
    let n: u64 = std::env::var("RAFTLOCK_WIDE_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(500, |s: u64| s / 6);
    let mut failed = Vec::new();
    let mut jumped = 0;
    for seed in 1..=n {
        let sc = wide::with_client_jumps(seed, wide::wide_scenario(seed));
        jumped += sc
            .timeline
            .iter()
            .filter(|t| matches!(t.action, raftlock::scenario::Action::ClientJump { .. }))
            .count();
        let o = wide::run_wide_with(seed, &sc);
        if !o.ok() {
            failed.push(format!(
                "seed {seed}: {:?} {:?}",
                o.violations, o.convergence
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    assert!(jumped as u64 > n, "{jumped} client jumps drawn in {n} runs");
}

/// Wide seeds' trace hashes, shared with the browser test (`tests/web.rs`): the same seeds give
/// the same documents and the same runs there. Seed 10418 is the ghost-release race of issue 38.
#[test]
fn determinism_wide_swarm_seeds_match_the_golden_hashes() {
    let mut got = String::new();
    for seed in [1, 2, 3, 4, 5, 6, 10_418] {
        got.push_str(&format!("{seed} {}\n", wide::run_wide(seed).trace_hash));
    }
    super::golden("wide-hashes.txt", &got);
}

#[test]
fn wide_swarm_one_seed_gives_one_trace() {
    for seed in [3, 17, 2_698] {
        assert_eq!(
            wide::run_wide(seed).trace_hash,
            wide::run_wide(seed).trace_hash,
            "seed {seed}"
        );
    }
}

#[test]
fn wide_swarm_says_what_a_run_does_not_check_and_why() {
    // Among the seeds, some knobs make a violation legitimate by design, and those runs say
    // which invariant they leave out, and why.
    let reasons: std::collections::BTreeSet<&str> = (1..300)
        .flat_map(|s| wide::by_design(&wide::wide_scenario(s)))
        .map(|(_, why)| why)
        .collect();
    assert!(reasons.len() >= 3, "{reasons:?}");
}
