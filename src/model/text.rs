//! The page's words and number formats, without any web crate: event descriptions, invariant
//! and switch labels, times, rates and counts. Formatting uses integer arithmetic where it can
//! (float formatting costs kilobytes of wasm).

use crate::check::Invariant;
use crate::lock::ApplyResult;
use crate::scenario::switch::Switch;
use crate::sim::{MessageKind, World};
use crate::trace::Event as TraceEvent;

pub fn fmt_us(us: i64) -> String {
    let sign = if us < 0 { "-" } else { "" };
    let a = us.unsigned_abs();
    format!("{sign}{}.{:03} s", a / 1_000_000, (a / 1000) % 1000)
}

/// A span of time as people say it: "45 s", "3 min 10 s", "24 h", "1 h 30 min" (whole
/// seconds; integer arithmetic).
pub fn fmt_span(us: u64) -> String {
    let s = us / 1_000_000;
    let (h, m, sec) = (s / 3600, s / 60 % 60, s % 60);
    match (h, m, sec) {
        (0, 0, sec) => format!("{sec} s"),
        (0, m, 0) => format!("{m} min"),
        (0, m, sec) => format!("{m} min {sec} s"),
        (h, 0, _) => format!("{h} h"),
        (h, m, _) => format!("{h} h {m} min"),
    }
}

pub fn fmt_rate(ppm: u32) -> String {
    let hundredths = (ppm + 5_000) / 10_000;
    format!("×{}.{:02}", hundredths / 100, hundredths % 100)
}

/// A coordinate with one decimal, formatted with integer arithmetic (float formatting costs
/// kilobytes of wasm).
pub fn num(v: f64) -> String {
    let tenths = (v * 10.0).round() as i64;
    let sign = if tenths < 0 { "-" } else { "" };
    let a = tenths.unsigned_abs();
    format!("{sign}{}.{}", a / 10, a % 10)
}

pub fn fmt_speed(speed_ppm: u64) -> String {
    if speed_ppm >= 1_000_000 {
        format!("×{}", speed_ppm / 1_000_000)
    } else {
        format!("×1/{}", (1_000_000 + speed_ppm / 2) / speed_ppm)
    }
}

/// The letter a message in flight carries on the cluster.
pub fn kind_letter(kind: MessageKind) -> &'static str {
    match kind {
        MessageKind::Vote => "V",
        MessageKind::PreVote => "P",
        MessageKind::VoteReply | MessageKind::PreVoteReply => "v",
        MessageKind::Append => "A",
        MessageKind::Heartbeat => "H",
        MessageKind::AppendReply => "a",
        MessageKind::Request => "Q",
        MessageKind::Reply => "R",
        MessageKind::Snapshot => "S",
        MessageKind::Write => "W",
    }
}

pub fn describe(w: &World, ev: &TraceEvent) -> Option<String> {
    Some(match ev {
        // A precandidate's event carries the term it would campaign in; it stays in the one before.
        TraceEvent::Role { node, role: "precandidate", term } => format!(
            "n{node} asks for pre-votes for term {term} (it stays in term {})",
            term.saturating_sub(1)
        ),
        TraceEvent::Role { node, role, term } => format!("n{node} became {role} in term {term}"),
        TraceEvent::Apply { node, index, cmd, result, .. } => {
            let what = match cmd.op {
                "noop" => return None,
                "grant" => format!("Grant{{{}, {} ms}} for {}", cmd.key.clone().unwrap_or_default(), cmd.lease_ms.unwrap_or(0), cmd.client.clone().unwrap_or_default()),
                "release" => format!("Release{{{}}}", cmd.key.clone().unwrap_or_default()),
                _ => format!("Expire{{{}, {}}}", cmd.key.clone().unwrap_or_default(), cmd.token.unwrap_or(0)),
            };
            let outcome = match result {
                ApplyResult::Granted { token } => format!("granted with token {token}"),
                ApplyResult::GrantRejected => "rejected: the key is held".into(),
                ApplyResult::Released => "lock released".into(),
                ApplyResult::NotFound => "nothing to release".into(),
                ApplyResult::Expired { existed: true } => "lock removed".into(),
                ApplyResult::Expired { existed: false } => "token did not match: nothing removed".into(),
                ApplyResult::Noop => "nothing happened".into(),
            };
            if *node != w.leader().map_or(1, |l| l + 1) {
                return None; // one line per entry: the leader's (or n1's) apply
            }
            format!("n{node} applied #{index} {what}: {outcome}")
        }
        TraceEvent::Crash { node } => format!("n{node} crashed"),
        TraceEvent::Restart { node } => format!("n{node} restarted and will apply its log again"),
        TraceEvent::Pause { node } => format!("n{node} paused (frozen like a GC pause)"),
        TraceEvent::Resume { node } => format!("n{node} resumed"),
        TraceEvent::Fault { what } => format!(
            "you: {}",
            serde_json::from_str::<crate::scenario::Action>(what).map_or_else(|_| what.clone(), |a| a.words())
        ),
        TraceEvent::ExpireProposed { node, key, token } => format!("n{node}'s countdown for {key} ran out: it proposes Expire{{{key}, {token}}}"),
        TraceEvent::GhostRelease { node, key, client, .. } => format!("n{node} could not tell {client} it got {key}: it proposes Release{{{key}}} (ghost lock)"),
        TraceEvent::Snapshot { node, index, log_from } => format!("n{node} snapshots its lock table at index {index}; its log now starts after {log_from}"),
        TraceEvent::SnapshotRestored { node, index, source: "leader", .. } => format!("n{node} installs the leader's snapshot at index {index} (the entries it lacked are gone from the leader's log)"),
        TraceEvent::SnapshotRestored { node, index, .. } => format!("n{node} restarts its lock table from its own snapshot at index {index}"),
        TraceEvent::Client { client, op, key, outcome, token } => format!("{client}: {op} {key} → {outcome}{}", token.map_or(String::new(), |t| format!(" (token {t})"))),
        TraceEvent::Write { client, key, token, accepted } => format!("storage: {client} writes {key} with token {token} → {}", if *accepted { "accepted" } else { "REJECTED" }),
        TraceEvent::Violation { invariant, detail } => format!("VIOLATION {invariant}: {detail}"),
    })
}

/// Invariants in words (the trace names some by the failure, e.g. storage_accepts_stale_token).
/// One arm per invariant: a new one does not compile until it has its words.
pub fn invariant_label(inv: Invariant) -> String {
    match inv {
        Invariant::StorageAcceptsStaleToken => "the storage never accepts a stale token".into(),
        Invariant::GhostLockReleased => "ghost locks are released".into(),
        Invariant::OneBelievedHolder => "one client at a time believes it holds a key".into(),
        Invariant::HealthyLeaderNotDeposed => {
            "a leader a majority hears is not deposed (liveness)".into()
        }
        Invariant::IsolatedLeaderStepsDown => "a cut-off leader steps down (liveness)".into(),
        Invariant::ElectionSafety
        | Invariant::LeaderAppendOnly
        | Invariant::LogMatching
        | Invariant::LeaderCompleteness
        | Invariant::StateMachineSafety
        | Invariant::LockTablesAgree
        | Invariant::TokensStrictlyIncrease
        | Invariant::ExpireDeletesOnlyOnTokenMatch
        | Invariant::ReleaseDeletesOnlyHeldLock => inv.name().replace('_', " "),
    }
}

/// The switches the page's panel offers, in [`Switch::ALL`]'s order. Each is off by default;
/// turning one on restarts the run with it, and the scenario document (and so a share link)
/// records it. (`client_no_margin` is the hunt's: it also makes client clocks drift.)
pub fn page_switches() -> impl Iterator<Item = Switch> {
    Switch::ALL
        .into_iter()
        .filter(|s| *s != Switch::ClientNoMargin)
}

/// A switch's label and what turning it on shows. One arm per switch: a new one does not
/// compile until it has its words.
pub fn switch_text(s: Switch) -> (&'static str, &'static str) {
    match s {
        Switch::ExpireIgnoresToken => (
            "Expire ignores the token",
            "Expire deletes whatever lock holds the key. A late or duplicated Expire then erases a lock granted again in between: the seed's token condition exists for exactly this. Try it with late-expire.",
        ),
        Switch::FollowersDeleteOnCountdown => (
            "Followers delete on their own countdown",
            "A follower deletes a lock when its own clock says the lease is over, instead of waiting for a committed Expire. With drift the nodes' tables split: why the seed deletes only through the log (Redlock's dependence on clocks, Kleppmann 2016).",
        ),
        Switch::TokenFromLeaderCounter => (
            "Tokens from a leader's counter",
            "The leader numbers tokens from a counter in its memory instead of using the Grant's log index. A new leader starts again, tokens repeat, and fencing can no longer order holders (Chubby's sequencers and ZooKeeper's zxid are log positions too).",
        ),
        Switch::NoGhostRelease => (
            "No ghost-lock release",
            "When the reply to a Grant cannot reach its client, the leader does nothing: a lock nobody knows it holds stays until its lease runs out, and everyone else waits.",
        ),
        Switch::StorageIgnoresTokens => (
            "Storage ignores tokens",
            "The resource accepts any write. A client that paused past its lease overwrites the new holder's work: the lost update that fencing tokens prevent (Kleppmann, How to do distributed locking, 2016).",
        ),
        Switch::ReleaseWithoutHolderCheck => (
            "Release without the holder check",
            "The leader proposes a client's key-only Release without checking that this client holds the key: a late Release deletes someone else's lock (etcd issue 22082).",
        ),
        Switch::ReleaseWithToken => (
            "Release carries the token",
            "A design alternative, not a bug: Release names the holder's token and deletes only on a match, like Expire.",
        ),
        Switch::NoPreVote => (
            "No pre-vote",
            "A node cut off from the others raises its term at every election timeout; when it returns, its higher term forces the working leader to step down (Ongaro's thesis, section 9.6).",
        ),
        Switch::CommitByCountingOldTerms => (
            "Commit earlier terms by counting",
            "The leader commits an entry of an earlier term as soon as a majority holds it. The Raft paper's Figure 8 shows a later leader overwriting such an entry: a committed entry lost, a client told \"granted\" for a lock that vanishes. Section 5.4.2 commits only the leader's own term. Play break-figure-8; it needs one entry per message (Entries per AppendEntries 1, below), else the new leader's no-op travels with the old entry and closes the window.",
        ),
        Switch::NoCheckQuorum => (
            "No check-quorum",
            "A leader cut off from the majority keeps believing it leads and keeps proposing entries that can never commit (Ongaro's thesis, section 6.2).",
        ),
        Switch::ClientNoMargin => (
            "Clients without a safety margin",
            "A client trusts its lease to the last millisecond of its own clock. A client clock that runs slow then believes it still holds the key after the servers have let it go (Kleppmann 2016).",
        ),
    }
}

/// 1234567 → "1,234,567".
pub fn fmt_count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
