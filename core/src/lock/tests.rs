//! The seed's sentences about the state machine, one test each (pure apply, no simulator).
//! The sentences about leases, leaders and ghost locks are tested on the whole simulated system
//! in `tests/native/seed.rs`.

use super::machine::{ApplyRules, LockMachine};
use super::*;

fn grant(key: &str, lease_ms: u64, client: u32) -> LockCommand {
    LockCommand {
        op: LockOp::Grant {
            key: key.into(),
            lease_ms,
        },
        client: Some(client),
        req: 1,
        counter_token: None,
    }
}
fn release(key: &str) -> LockCommand {
    LockCommand {
        op: LockOp::Release {
            key: key.into(),
            token: None,
        },
        client: None,
        req: 0,
        counter_token: None,
    }
}
fn expire(key: &str, token: u64) -> LockCommand {
    LockCommand {
        op: LockOp::Expire {
            key: key.into(),
            token,
        },
        client: None,
        req: 0,
        counter_token: None,
    }
}

fn run(cmds: &[Option<LockCommand>]) -> (LockMachine, Vec<ApplyResult>) {
    let mut m = LockMachine::default();
    let rs = cmds
        .iter()
        .enumerate()
        .map(|(i, c)| m.apply(i as u64 + 1, c.as_ref()))
        .collect();
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
    let log = [
        None,
        Some(grant("a", 10, 0)),
        Some(grant("b", 10, 1)),
        Some(release("a")),
        Some(grant("a", 10, 2)),
    ];
    let (m1, r1) = run(&log);
    let (m2, r2) = run(&log);
    assert_eq!(r1, r2);
    assert_eq!(m1, m2);
    assert_eq!(r1[4], ApplyResult::Granted { token: 5 });
}

#[test]
fn token_is_the_grant_log_index_and_survives_deletion() {
    // A per-key counter would issue token 1 again after the deletion; the log index never repeats.
    let (_, rs) = run(&[
        Some(grant("k", 10, 0)),
        Some(release("k")),
        Some(grant("k", 10, 1)),
        Some(expire("k", 3)),
        Some(grant("k", 10, 2)),
    ]);
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
    let (m, rs) = run(&[
        Some(grant("k", 10, 0)),
        Some(expire("k", 1)),
        Some(grant("k", 10, 1)),
        Some(expire("k", 1)),
    ]);
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
    assert_eq!(
        m.apply(3, Some(&expire("k", 1))),
        ApplyResult::Expired { existed: true }
    );
    let locks = m.locks.clone();
    assert_eq!(
        m.apply(4, Some(&expire("k", 1))),
        ApplyResult::Expired { existed: false }
    );
    assert_eq!(m.locks, locks);
}

#[test]
fn state_machine_replaying_the_log_from_empty_rebuilds_a_byte_identical_table() {
    let log: Vec<Option<LockCommand>> = (0..200u64)
        .map(|i| match i % 7 {
            0 => None,
            1 | 4 => Some(grant(
                ["a", "b", "c"][(i % 3) as usize],
                100 + i,
                (i % 5) as u32,
            )),
            2 => Some(release(["a", "b", "c"][(i % 2) as usize])),
            3 => Some(expire("a", i - 2)),
            5 => Some(expire("c", i / 2)),
            _ => Some(release("c")),
        })
        .collect();
    let (m1, _) = run(&log);
    let (m2, _) = run(&log);
    assert_eq!(
        serde_json::to_vec(&m1).unwrap(),
        serde_json::to_vec(&m2).unwrap()
    );
    assert_eq!(m1.digest(), m2.digest());
}

#[test]
fn apply_never_reads_a_clock_results_depend_only_on_table_index_and_command() {
    // Apply takes no time argument at all; the same (state, index, command) gives the same result.
    let mut a = LockMachine::default();
    let mut b = LockMachine::default();
    for i in 1..=50u64 {
        let c = if i % 3 == 0 {
            expire("k", i - 1)
        } else {
            grant("k", i, 0)
        };
        assert_eq!(a.apply(i, Some(&c)), b.apply(i, Some(&c)));
    }
}

#[test]
fn switch_expire_ignoring_the_token_deletes_a_regranted_lock() {
    // The design switch of the "break it" lessons, for comparison with the test above.
    let mut m = LockMachine::default();
    let rules = ApplyRules {
        expire_ignores_token: true,
    };
    m.apply_with(1, Some(&grant("k", 10, 0)), rules);
    m.apply_with(2, Some(&release("k")), rules);
    m.apply_with(3, Some(&grant("k", 10, 1)), rules);
    assert_eq!(
        m.apply_with(4, Some(&expire("k", 1)), rules),
        ApplyResult::Expired { existed: true }
    );
    assert!(
        m.locks.is_empty(),
        "B's lock was erased by A's stale expire"
    );
}

#[test]
fn release_with_token_switch_deletes_only_the_named_lock() {
    let rel = |t| LockCommand {
        op: LockOp::Release {
            key: "k".into(),
            token: Some(t),
        },
        client: Some(0),
        req: 2,
        counter_token: None,
    };
    let (m, rs) = run(&[Some(grant("k", 10, 0)), Some(rel(9))]);
    assert_eq!(rs[1], ApplyResult::NotFound);
    assert!(m.locks.contains_key("k"));
    let (m, rs) = run(&[Some(grant("k", 10, 0)), Some(rel(1))]);
    assert_eq!(rs[1], ApplyResult::Released);
    assert!(m.locks.is_empty());
}

// ---- the leader's duties, on a single-node cluster (it commits alone) ----------------------

use super::server::{
    ClientReply, ClientRequest, Outcome, ReplyLost, RequestOp, Server, ServerEvent,
};
use crate::raft::NodeSetup;

fn leader() -> (Server, i64) {
    let mut s = Server::new(NodeSetup::new(0, 1), Switches::default());
    let now = s.next_deadline_us();
    s.tick(now);
    assert!(s.raft.is_leader());
    assert!(s.noop_committed());
    s.take_output();
    (s, now)
}

fn acquire(client: u32, req: u64, key: &str, lease_ms: u64) -> ClientRequest {
    ClientRequest {
        client,
        req,
        op: RequestOp::Acquire {
            key: key.into(),
            lease_ms,
        },
    }
}

fn replies(s: &mut Server) -> Vec<(u32, ClientReply)> {
    s.take_output().replies
}

#[test]
fn leader_proposes_grant_only_for_a_free_key_and_answers_busy_with_holder_and_token() {
    let (mut s, now) = leader();
    s.request(now, acquire(0, 1, "k", 1000));
    let r = replies(&mut s);
    assert_eq!(
        r[0].1.outcome,
        Outcome::Granted {
            key: "k".into(),
            token: 2,
            lease_ms: 1000
        }
    );
    let last = s.raft.log().last_index();
    s.request(now, acquire(1, 1, "k", 1000));
    let r = replies(&mut s);
    assert_eq!(
        r[0].1.outcome,
        Outcome::Busy {
            key: "k".into(),
            holder: Some(0),
            token: 2
        }
    );
    assert_eq!(
        s.raft.log().last_index(),
        last,
        "no Grant proposed for a held key, so no GrantRejected"
    );
}

#[test]
fn leader_proposes_release_only_when_the_client_is_the_holder() {
    let (mut s, now) = leader();
    s.request(now, acquire(0, 1, "k", 1000));
    s.take_output();
    let last = s.raft.log().last_index();
    // B's key-only release of A's lock (compare etcd issue 22082) is refused without an entry.
    s.request(
        now,
        ClientRequest {
            client: 1,
            req: 1,
            op: RequestOp::Release {
                key: "k".into(),
                token: 2,
            },
        },
    );
    assert_eq!(
        replies(&mut s)[0].1.outcome,
        Outcome::NotHolder { key: "k".into() }
    );
    assert_eq!(s.raft.log().last_index(), last);
    s.request(
        now,
        ClientRequest {
            client: 0,
            req: 2,
            op: RequestOp::Release {
                key: "k".into(),
                token: 2,
            },
        },
    );
    assert_eq!(
        replies(&mut s)[0].1.outcome,
        Outcome::Released { key: "k".into() }
    );
    assert!(s.machine.locks.is_empty());
}

#[test]
fn retried_grant_gets_the_original_result_not_grant_rejected() {
    let (mut s, now) = leader();
    s.request(now, acquire(0, 7, "k", 1000));
    let first = replies(&mut s);
    let last = s.raft.log().last_index();
    s.request(now + 10, acquire(0, 7, "k", 1000));
    let again = replies(&mut s);
    assert_eq!(first[0].1.outcome, again[0].1.outcome);
    assert_eq!(
        s.raft.log().last_index(),
        last,
        "the retry appended nothing"
    );
    assert!(!s.results.iter().any(|r| *r == ApplyResult::GrantRejected));
}

#[test]
fn leader_proposes_expire_when_the_lease_runs_out_on_its_own_clock() {
    let (mut s, now) = leader();
    s.request(now, acquire(0, 1, "k", 1000));
    s.take_output();
    let deadline = s.leases["k"].deadline_local_us;
    assert_eq!(deadline, now + 1_000_000);
    assert_eq!(
        s.next_deadline_us(),
        deadline.min(s.raft.next_deadline_us())
    );
    s.tick(deadline - 1);
    assert!(s.machine.locks.contains_key("k"));
    s.tick(deadline);
    let ev = s.take_output().events;
    assert!(ev.contains(&ServerEvent::ExpireProposed {
        key: "k".into(),
        token: 2
    }));
    assert!(
        s.machine.locks.is_empty(),
        "the single node commits and applies its Expire"
    );
    assert_eq!(
        *s.results.last().unwrap(),
        ApplyResult::Expired { existed: true }
    );
}

#[test]
fn ghost_lock_leader_releases_at_once_when_the_grant_reply_cannot_reach_the_client() {
    let (mut s, now) = leader();
    s.request(now, acquire(0, 1, "k", 60_000));
    let (client, reply) = replies(&mut s).remove(0);
    assert!(
        reply.first,
        "the proposing leader's reply at apply is the first answer"
    );
    s.reply_undeliverable(now, client, &reply, ReplyLost::SendFailed);
    let ev = s.take_output().events;
    assert!(ev.contains(&ServerEvent::GhostRelease {
        key: "k".into(),
        token: 2,
        client: 0
    }));
    assert!(
        s.machine.locks.is_empty(),
        "released long before the 60 s lease"
    );
}

#[test]
fn ghost_release_never_frees_a_lock_its_client_can_believe_it_holds_a_failed_duplicate_proves_nothing(
) {
    // The first Granted reached A; A's retry (its timeout was shorter than the round trip) is
    // answered again from the session, and that second reply cannot be sent. A holds the lock.
    let (mut s, now) = leader();
    s.request(now, acquire(0, 1, "k", 60_000));
    let (_, first) = replies(&mut s).remove(0);
    s.request(now + 3_000, acquire(0, 1, "k", 60_000));
    let (client, again) = replies(&mut s).remove(0);
    assert_eq!(
        again.outcome, first.outcome,
        "the retry is answered granted again"
    );
    assert!(!again.first, "an answer from the session is not the first");
    assert_eq!(s.ghost_of(client, &again, ReplyLost::SendFailed), None);
    s.reply_undeliverable(now + 3_000, client, &again, ReplyLost::SendFailed);
    let ev = s.take_output().events;
    assert!(
        !ev.iter()
            .any(|e| matches!(e, ServerEvent::GhostRelease { .. })),
        "{ev:?}"
    );
    assert_eq!(s.machine.locks["k"].holder, Some(0), "A still holds k");
    // The same lost duplicate, reported by A's side (it crashed or restarted), is a ghost: the
    // client itself says it does not hold the grant.
    assert_eq!(
        s.ghost_of(client, &again, ReplyLost::ClientGone),
        Some(("k".into(), 2))
    );
}

#[test]
fn follower_refuses_requests_with_a_leader_hint() {
    let mut s = Server::new(NodeSetup::new(1, 3), Switches::default());
    s.request(0, acquire(0, 1, "k", 1000));
    assert_eq!(
        replies(&mut s)[0].1.outcome,
        Outcome::NotLeader { hint: None }
    );
}
