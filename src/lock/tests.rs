//! The seed's sentences about the state machine, one test each (pure apply, no simulator).
//! The sentences about leases, leaders and ghost locks are tested on the whole simulated system
//! in `tests/native.rs`.

use super::machine::{ApplyRules, LockMachine};
use super::*;

fn grant(key: &str, lease_ms: u64, client: u32) -> LockCommand {
    LockCommand { op: LockOp::Grant { key: key.into(), lease_ms }, client: Some(client), req: 1 }
}
fn release(key: &str) -> LockCommand {
    LockCommand { op: LockOp::Release { key: key.into(), token: None }, client: None, req: 0 }
}
fn expire(key: &str, token: u64) -> LockCommand {
    LockCommand { op: LockOp::Expire { key: key.into(), token }, client: None, req: 0 }
}

fn run(cmds: &[Option<LockCommand>]) -> (LockMachine, Vec<ApplyResult>) {
    let mut m = LockMachine::default();
    let rs = cmds.iter().enumerate().map(|(i, c)| m.apply(i as u64 + 1, c.as_ref())).collect();
    (m, rs)
}

#[test]
fn grant_carries_no_token_the_token_is_assigned_at_apply() {
    // The command has only key and lease (and request metadata); its serialized form has no token.
    let json = serde_json::to_string(&grant("k", 1000, 0)).unwrap();
    assert!(!json.contains("token"), "{json}");
    let (m, rs) = run(&[None, Some(grant("k", 1000, 0))]);
    assert_eq!(rs[1], ApplyResult::Granted { token: 2 });
    assert_eq!(m.locks["k"].token, 2);
}

#[test]
fn all_nodes_compute_the_same_token_deterministically() {
    let log = [None, Some(grant("a", 10, 0)), Some(grant("b", 10, 1)), Some(release("a")), Some(grant("a", 10, 2))];
    let (m1, r1) = run(&log);
    let (m2, r2) = run(&log);
    assert_eq!(r1, r2);
    assert_eq!(m1, m2);
    assert_eq!(r1[4], ApplyResult::Granted { token: 5 });
}

#[test]
fn token_is_the_grant_log_index_and_survives_deletion() {
    // A per-key counter would issue token 1 again after the deletion; the log index never repeats.
    let (_, rs) = run(&[Some(grant("k", 10, 0)), Some(release("k")), Some(grant("k", 10, 1)), Some(expire("k", 3)), Some(grant("k", 10, 2))]);
    assert_eq!(rs[0], ApplyResult::Granted { token: 1 });
    assert_eq!(rs[2], ApplyResult::Granted { token: 3 });
    assert_eq!(rs[4], ApplyResult::Granted { token: 5 });
}

#[test]
fn release_releases_a_key() {
    let (m, rs) = run(&[Some(grant("k", 10, 0)), Some(release("k"))]);
    assert_eq!(rs[1], ApplyResult::Released);
    assert!(m.locks.is_empty());
}

#[test]
fn not_found_when_the_key_to_release_was_not_held() {
    let (_, rs) = run(&[Some(release("k"))]);
    assert_eq!(rs[0], ApplyResult::NotFound);
}

#[test]
fn grant_rejected_when_the_key_is_already_held() {
    let (m, rs) = run(&[Some(grant("k", 10, 0)), Some(grant("k", 10, 1))]);
    assert_eq!(rs[1], ApplyResult::GrantRejected);
    assert_eq!(m.locks["k"].holder, Some(0), "the holder stays");
}

#[test]
fn expire_deletes_only_if_the_token_matches() {
    let (m, rs) = run(&[Some(grant("k", 10, 0)), Some(expire("k", 99))]);
    assert_eq!(rs[1], ApplyResult::Expired { existed: false });
    assert!(m.locks.contains_key("k"));
    let (m, rs) = run(&[Some(grant("k", 10, 0)), Some(expire("k", 1))]);
    assert_eq!(rs[1], ApplyResult::Expired { existed: true });
    assert!(m.locks.is_empty());
}

#[test]
fn late_or_duplicated_expire_cannot_erase_a_lock_granted_again_in_between() {
    // A holds k (token 1); Expire{k,1} commits; B gets k (token 3); a duplicate of Expire{k,1}
    // applies late: existed=false, and B keeps the lock.
    let (m, rs) = run(&[Some(grant("k", 10, 0)), Some(expire("k", 1)), Some(grant("k", 10, 1)), Some(expire("k", 1))]);
    assert_eq!(rs[1], ApplyResult::Expired { existed: true });
    assert_eq!(rs[3], ApplyResult::Expired { existed: false });
    assert_eq!(m.locks["k"].holder, Some(1));
    assert_eq!(m.locks["k"].token, 3);
}

#[test]
fn expired_existed_tells_whether_a_lock_was_really_deleted() {
    let (_, rs) = run(&[Some(expire("k", 1))]);
    assert_eq!(rs[0], ApplyResult::Expired { existed: false });
}

#[test]
fn noop_nothing_happened() {
    let (m, rs) = run(&[None]);
    assert_eq!(rs[0], ApplyResult::Noop);
    assert!(m.locks.is_empty());
    assert_eq!(m.applied, 1);
}

#[test]
fn idempotency_applying_the_same_expire_again_does_not_change_the_state() {
    let mut m = LockMachine::default();
    m.apply(1, Some(&grant("k", 10, 0)));
    m.apply(2, Some(&grant("j", 10, 1)));
    assert_eq!(m.apply(3, Some(&expire("k", 1))), ApplyResult::Expired { existed: true });
    let locks = m.locks.clone();
    assert_eq!(m.apply(4, Some(&expire("k", 1))), ApplyResult::Expired { existed: false });
    assert_eq!(m.locks, locks);
}

#[test]
fn state_machine_replaying_the_log_from_empty_rebuilds_a_byte_identical_table() {
    let log: Vec<Option<LockCommand>> = (0..200u64)
        .map(|i| match i % 7 {
            0 => None,
            1 | 4 => Some(grant(["a", "b", "c"][(i % 3) as usize], 100 + i, (i % 5) as u32)),
            2 => Some(release(["a", "b", "c"][(i % 2) as usize])),
            3 => Some(expire("a", i - 2)),
            5 => Some(expire("c", i / 2)),
            _ => Some(release("c")),
        })
        .collect();
    let (m1, _) = run(&log);
    let (m2, _) = run(&log);
    assert_eq!(serde_json::to_vec(&m1).unwrap(), serde_json::to_vec(&m2).unwrap());
    assert_eq!(m1.digest(), m2.digest());
}

#[test]
fn apply_never_reads_a_clock_results_depend_only_on_table_index_and_command() {
    // Apply takes no time argument at all; the same (state, index, command) gives the same result.
    let mut a = LockMachine::default();
    let mut b = LockMachine::default();
    for i in 1..=50u64 {
        let c = if i % 3 == 0 { expire("k", i - 1) } else { grant("k", i, 0) };
        assert_eq!(a.apply(i, Some(&c)), b.apply(i, Some(&c)));
    }
}

#[test]
fn switch_expire_ignoring_the_token_deletes_a_regranted_lock() {
    // The design switch of the "break it" lessons, for comparison with the test above.
    let mut m = LockMachine::default();
    let rules = ApplyRules { expire_ignores_token: true };
    m.apply_with(1, Some(&grant("k", 10, 0)), rules);
    m.apply_with(2, Some(&release("k")), rules);
    m.apply_with(3, Some(&grant("k", 10, 1)), rules);
    assert_eq!(m.apply_with(4, Some(&expire("k", 1)), rules), ApplyResult::Expired { existed: true });
    assert!(m.locks.is_empty(), "B's lock was erased by A's stale expire");
}

#[test]
fn release_with_token_switch_deletes_only_the_named_lock() {
    let rel = |t| LockCommand { op: LockOp::Release { key: "k".into(), token: Some(t) }, client: Some(0), req: 2 };
    let (m, rs) = run(&[Some(grant("k", 10, 0)), Some(rel(9))]);
    assert_eq!(rs[1], ApplyResult::NotFound);
    assert!(m.locks.contains_key("k"));
    let (m, rs) = run(&[Some(grant("k", 10, 0)), Some(rel(1))]);
    assert_eq!(rs[1], ApplyResult::Released);
    assert!(m.locks.is_empty());
}
