//! The page's words and number formats, without any web crate: event descriptions, invariant
//! and switch labels, times, rates and counts. Formatting uses integer arithmetic where it can
//! (float formatting costs kilobytes of wasm).

use crate::check::Invariant;
use crate::lang::{role_word, t, Lang};
use crate::lock::ApplyResult;
use crate::scenario::switch::Switch;
use crate::sim::{MessageKind, World};
use crate::trace::Event as TraceEvent;

pub fn fmt_us(us: i64, lang: Lang) -> String {
    let sign = if us < 0 { "-" } else { "" };
    let a = us.unsigned_abs();
    let (s, ms) = (a / 1_000_000, (a / 1000) % 1000);
    t!(lang, "{sign}{s}.{ms:03} s")
}

/// A time to a tenth of a second: "12.3 s" (a clock that plays; rounded down, as a clock reads).
pub fn fmt_tenths(us: i64, lang: Lang) -> String {
    let sign = if us < 0 { "-" } else { "" };
    let a = us.unsigned_abs();
    let (s, tenth) = (a / 1_000_000, (a / 100_000) % 10);
    t!(lang, "{sign}{s}.{tenth} s")
}

/// A span of time as people say it: "45 s", "3 min 10 s", "24 h", "1 h 30 min" (whole
/// seconds; integer arithmetic).
pub fn fmt_span(us: u64, lang: Lang) -> String {
    let s = us / 1_000_000;
    let (h, m, sec) = (s / 3600, s / 60 % 60, s % 60);
    match (h, m, sec) {
        (0, 0, sec) => t!(lang, "{sec} s"),
        (0, m, 0) => t!(lang, "{m} min"),
        (0, m, sec) => t!(lang, "{m} min {sec} s"),
        (h, 0, _) => t!(lang, "{h} h"),
        (h, m, _) => t!(lang, "{h} h {m} min"),
    }
}

/// A clock's rate as the page shows it: "×2", "×0.999", "×1.0718" (Russian: "×0,999"), its
/// ppm to four decimals with no trailing zeros.
pub fn fmt_rate(ppm: u32, lang: Lang) -> String {
    let tenk = (ppm as u64 + 50) / 100;
    let (whole, frac) = (tenk / 10_000, tenk % 10_000);
    if frac == 0 {
        return format!("×{whole}");
    }
    let point = if lang == Lang::Ru { ',' } else { '.' };
    let digits = format!("{frac:04}");
    format!("×{whole}{point}{}", digits.trim_end_matches('0'))
}

/// A clock's rate for a tooltip: its ppm and how far it is from true time ("2000000 ppm, +1000000
/// ppm drift").
pub fn rate_tooltip(ppm: u32, lang: Lang) -> String {
    let drift = ppm as i64 - 1_000_000;
    let sign = if drift > 0 { "+" } else { "" };
    t!(
        lang,
        "{ppm} ppm of true time ({sign}{drift} ppm drift)",
        ppm = ppm,
        sign = sign,
        drift = drift
    )
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

/// Node `i`'s state as the page names it: its role, or `crashed` or `paused` (what the circle,
/// its title and its controls say).
pub fn node_state(w: &World, i: usize) -> &'static str {
    let slot = &w.nodes[i];
    match slot.server() {
        None => "crashed",
        Some(_) if slot.paused => "paused",
        Some(s) => s.raft.role().name(),
    }
}

/// A node's state (a role, "crashed" or "paused") as its circle says it: short, for the circle.
pub fn node_label(state: &str, lang: Lang) -> &'static str {
    match state {
        "leader" => t!(lang, "LEADER"),
        "candidate" => t!(lang, "candidate"),
        "precandidate" => t!(lang, "pre-cand."),
        "crashed" => t!(lang, "CRASHED"),
        "paused" => t!(lang, "PAUSED"),
        _ => t!(lang, "follower"),
    }
}

/// A node's state in words, for its title.
pub fn node_state_words(state: &str, lang: Lang) -> String {
    match state {
        "crashed" => t!(lang, "crashed").into(),
        "paused" => t!(lang, "paused").into(),
        role => role_word(role, lang),
    }
}

/// A link's accessible name: its ends, whether it is up, and what a click does.
pub fn link_label(from: usize, to: usize, up: bool, lang: Lang) -> String {
    if up {
        t!(lang, "link n{from} to n{to}: up; click to cut")
    } else {
        t!(lang, "link n{from} to n{to}: cut; click to heal")
    }
}

/// What a client was answered, in words (the space-time diagram's history bars).
pub fn answer_words(a: &crate::sim::history::Answer, lang: Lang) -> String {
    use crate::sim::history::Answer;
    match a {
        Answer::Granted { token, lease_ms } => {
            t!(lang, "Granted{{{token}}} with a {lease_ms} ms lease")
        }
        Answer::Busy => t!(lang, "busy").into(),
        Answer::Released => t!(lang, "released").into(),
        Answer::NotHolder => t!(lang, "not the holder").into(),
    }
}

/// A client's operation and its outcome as the trace names them, in words.
pub fn client_word(word: &str, lang: Lang) -> String {
    match word {
        "acquire" => t!(lang, "acquire").into(),
        "release" => t!(lang, "release").into(),
        "granted" => t!(lang, "granted").into(),
        "released" => t!(lang, "released").into(),
        "busy" => t!(lang, "busy").into(),
        "timeout" => t!(lang, "timeout").into(),
        "lease_lost" => t!(lang, "lease lost").into(),
        "not_found" => t!(lang, "not found").into(),
        "not_holder" => t!(lang, "not the holder").into(),
        other => other.replace('_', " "),
    }
}

pub fn describe(w: &World, ev: &TraceEvent, lang: Lang) -> Option<String> {
    Some(match ev {
        // A precandidate's event carries the term it would campaign in; it stays in the one before.
        TraceEvent::Role { node, role: "precandidate", term } => t!(
            lang,
            "n{node} asks for pre-votes for term {term} (it stays in term {})",
            term.saturating_sub(1)
        ),
        TraceEvent::Role { node, role, term } => {
            let role = role_word(role, lang);
            t!(lang, "n{node} became {role} in term {term}")
        }
        TraceEvent::Apply { node, index, cmd, result, .. } => {
            let key = cmd.key.clone().unwrap_or_default();
            let what = match cmd.op {
                "noop" => return None,
                "add_learner" => return Some(t!(lang, "n{node} applies index {index}: n{} joins the cluster as a learner", cmd.node.unwrap_or(0))),
                "promote" => return Some(t!(lang, "n{node} applies index {index}: n{} becomes a voter", cmd.node.unwrap_or(0))),
                "remove" => return Some(t!(lang, "n{node} applies index {index}: n{} leaves the cluster", cmd.node.unwrap_or(0))),
                "grant" => {
                    let (ms, client) = (cmd.lease_ms.unwrap_or(0), cmd.client.clone().unwrap_or_default());
                    t!(lang, "Grant{{{key}, {ms} ms}} for {client}")
                }
                "release" => format!("Release{{{key}}}"),
                _ => format!("Expire{{{key}, {}}}", cmd.token.unwrap_or(0)),
            };
            let outcome: String = match result {
                ApplyResult::Granted { token } => t!(lang, "granted with token {token}"),
                ApplyResult::GrantRejected => t!(lang, "rejected: the key is held").into(),
                ApplyResult::Released => t!(lang, "lock released").into(),
                ApplyResult::NotFound => t!(lang, "nothing to release").into(),
                ApplyResult::Expired { existed: true } => t!(lang, "lock removed").into(),
                ApplyResult::Expired { existed: false } => t!(lang, "token did not match: nothing removed").into(),
                ApplyResult::Noop => t!(lang, "nothing happened").into(),
            };
            if *node != w.leader().map_or(1, |l| l + 1) {
                return None; // one line per entry: the leader's (or n1's) apply
            }
            t!(lang, "n{node} applied #{index} {what}: {outcome}")
        }
        TraceEvent::Crash { node } => t!(lang, "n{node} crashed"),
        TraceEvent::Restart { node } => t!(lang, "n{node} restarted and will apply its log again"),
        TraceEvent::Pause { node } => t!(lang, "n{node} paused (frozen like a GC pause)"),
        TraceEvent::Resume { node } => t!(lang, "n{node} resumed"),
        TraceEvent::Fault { what } => t!(
            lang,
            "you: {}",
            serde_json::from_str::<crate::scenario::Action>(what).map_or_else(|_| what.clone(), |a| a.words_in(lang))
        ),
        TraceEvent::Refused { what, why } => t!(
            lang,
            "refused: {} ({})",
            serde_json::from_str::<crate::scenario::Action>(what).map_or_else(|_| what.clone(), |a| a.words_in(lang)),
            crate::raft::ConfRefusal::from_reason(why).map_or(*why, |r| r.reason_in(lang))
        ),
        TraceEvent::ExpireProposed { node, key, token } => t!(lang, "n{node}'s countdown for {key} ran out: it proposes Expire{{{key}, {token}}}"),
        TraceEvent::GhostRelease { node, key, client, .. } => t!(lang, "n{node} could not tell {client} it got {key}: it proposes Release{{{key}}} (ghost lock)"),
        TraceEvent::Snapshot { node, index, log_from } => t!(lang, "n{node} snapshots its lock table at index {index}; its log now starts after {log_from}"),
        TraceEvent::SnapshotRestored { node, index, source: "leader", .. } => t!(lang, "n{node} installs the leader's snapshot at index {index} (the entries it lacked are gone from the leader's log)"),
        TraceEvent::SnapshotRestored { node, index, .. } => t!(lang, "n{node} restarts its lock table from its own snapshot at index {index}"),
        TraceEvent::Client { client, op, key, outcome, token } => {
            let (op, outcome) = (client_word(op, lang), client_word(outcome, lang));
            let token = token.map_or(String::new(), |t| t!(lang, " (token {t})"));
            format!("{client}: {op} {key} → {outcome}{token}")
        }
        TraceEvent::Write { client, key, token, accepted } => {
            let verdict = if *accepted { t!(lang, "accepted") } else { t!(lang, "REJECTED") };
            t!(lang, "storage: {client} writes {key} with token {token} → {verdict}")
        }
        TraceEvent::Violation { invariant, detail } => {
            // The trace keeps the English (its hash is the same in every language); the
            // checker's own record has the detail in both.
            let detail = w
                .violations()
                .iter()
                .rev()
                .find(|(_, v)| v.detail.en == *detail)
                .map_or(detail.as_str(), |(_, v)| v.detail.get(lang));
            let invariant = Invariant::from_name(invariant)
                .map_or_else(|| invariant.to_string(), |i| invariant_label(i, lang));
            t!(lang, "VIOLATION {invariant}: {detail}")
        }
    })
}

/// Invariants in words (the trace names some by the failure, e.g. storage_accepts_stale_token).
/// One arm per invariant: a new one does not compile until it has its words.
pub fn invariant_label(inv: Invariant, lang: Lang) -> String {
    match inv {
        Invariant::StorageAcceptsStaleToken => t!(lang, "the storage never accepts a stale token"),
        Invariant::GhostLockReleased => t!(lang, "ghost locks are released"),
        Invariant::OneBelievedHolder => t!(lang, "one client at a time believes it holds a key"),
        Invariant::HealthyLeaderNotDeposed => {
            t!(lang, "a leader a majority hears is not deposed (liveness)")
        }
        Invariant::IsolatedLeaderStepsDown => t!(lang, "a cut-off leader steps down (liveness)"),
        Invariant::ElectionSafety => t!(lang, "election safety"),
        Invariant::LeaderAppendOnly => t!(lang, "leader append only"),
        Invariant::LogMatching => t!(lang, "log matching"),
        Invariant::LeaderCompleteness => t!(lang, "leader completeness"),
        Invariant::StateMachineSafety => t!(lang, "state machine safety"),
        Invariant::LockTablesAgree => t!(lang, "lock tables agree"),
        Invariant::TokensStrictlyIncrease => t!(lang, "tokens strictly increase"),
        Invariant::ExpireDeletesOnlyOnTokenMatch => t!(lang, "expire deletes only on token match"),
        Invariant::ReleaseDeletesOnlyHeldLock => t!(lang, "release deletes only held lock"),
        Invariant::OneUncommittedConfigChange => {
            t!(lang, "at most one uncommitted configuration change")
        }
        Invariant::LearnerNeverCounts => t!(lang, "a learner never counts toward a commit"),
    }
    .into()
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
pub fn switch_text(s: Switch, lang: Lang) -> (&'static str, &'static str) {
    match s {
        Switch::ExpireIgnoresToken => (
            t!(lang, "Expire ignores the token"),
            t!(lang, "Expire deletes whatever lock holds the key. A late or duplicated Expire then erases a lock granted again in between: the seed's token condition exists for exactly this. Try it with late-expire."),
        ),
        Switch::FollowersDeleteOnCountdown => (
            t!(lang, "Followers delete on their own countdown"),
            t!(lang, "A follower deletes a lock when its own clock says the lease is over, instead of waiting for a committed Expire. With drift the nodes' tables split: why the seed deletes only through the log (Redlock's dependence on clocks, Kleppmann 2016)."),
        ),
        Switch::TokenFromLeaderCounter => (
            t!(lang, "Tokens from a leader's counter"),
            t!(lang, "The leader numbers tokens from a counter in its memory instead of using the Grant's log index. A new leader starts again, tokens repeat, and fencing can no longer order holders (Chubby's sequencers and ZooKeeper's zxid are log positions too)."),
        ),
        Switch::NoGhostRelease => (
            t!(lang, "No ghost-lock release"),
            t!(lang, "When the reply to a Grant cannot reach its client, the leader does nothing: a lock nobody knows it holds stays until its lease runs out, and everyone else waits."),
        ),
        Switch::StorageIgnoresTokens => (
            t!(lang, "Storage ignores tokens"),
            t!(lang, "The resource accepts any write. A client that paused past its lease overwrites the new holder's work: the lost update that fencing tokens prevent (Kleppmann, How to do distributed locking, 2016)."),
        ),
        Switch::ReleaseWithoutHolderCheck => (
            t!(lang, "Release without the holder check"),
            t!(lang, "The leader proposes a client's key-only Release without checking that this client holds the key: a late Release deletes someone else's lock (etcd issue 22082)."),
        ),
        Switch::ReleaseWithToken => (
            t!(lang, "Release carries the token"),
            t!(lang, "A design alternative, not a bug: Release names the holder's token and deletes only on a match, like Expire."),
        ),
        Switch::NoPreVote => (
            t!(lang, "No pre-vote"),
            t!(lang, "A node cut off from the others raises its term at every election timeout; when it returns, its higher term forces the working leader to step down (Ongaro's thesis, section 9.6)."),
        ),
        Switch::CommitByCountingOldTerms => (
            t!(lang, "Commit earlier terms by counting"),
            t!(lang, "The leader commits an entry of an earlier term as soon as a majority holds it. The Raft paper's Figure 8 shows a later leader overwriting such an entry: a committed entry lost, a client told \"granted\" for a lock that vanishes. Section 5.4.2 commits only the leader's own term. Play break-figure-8; it needs one entry per message (Entries per AppendEntries 1, below), else the new leader's no-op travels with the old entry and closes the window."),
        ),
        Switch::ForgetVoteOnRestart => (
            t!(lang, "A restarted node forgets its vote"),
            t!(lang, "A node keeps its vote in memory only: after a crash and restart it may vote a second time in the same term, and two candidates each win a majority of that term. Raft lists votedFor among the state a server must store before it answers (Figure 2). Play break-vote-not-durable."),
        ),
        Switch::ConfChangeBeforeNoop => (
            t!(lang, "Change membership before the no-op commits"),
            t!(lang, "A new leader may add or remove a server before an entry of its own term has committed. A change left uncommitted by the previous leader and this one can then form configurations whose majorities do not overlap: two leaders, each committing what the other never sees. The rule was added to Raft after publication for exactly this. Play break-conf-before-noop."),
        ),
        Switch::NoCheckQuorum => (
            t!(lang, "No check-quorum"),
            t!(lang, "A leader cut off from the majority keeps believing it leads and keeps proposing entries that can never commit (Ongaro's thesis, section 6.2)."),
        ),
        Switch::ClientNoMargin => (
            t!(lang, "Clients without a safety margin"),
            t!(lang, "A client trusts its lease to the last millisecond of its own clock. A client clock that runs slow then believes it still holds the key after the servers have let it go (Kleppmann 2016)."),
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

/// Whom node `i` voted for in its current term, as the stage says it: "vote: n2" for another
/// node, "no vote" for a node that has restarted (nothing for one that voted for itself or has
/// not voted and never restarted: nothing there to remember).
pub fn vote_words(i: usize, slot: &crate::sim::world::NodeSlot, lang: Lang) -> Option<String> {
    let vote = match (slot.server(), slot.persisted()) {
        (Some(s), _) => s.raft.voted_for(),
        (None, Some(h)) => h.voted_for,
        _ => None,
    };
    match vote {
        Some(v) if v != i => Some(t!(lang, "vote: n{n}", n = v + 1)),
        None if slot.restarts > 0 => Some(t!(lang, "no vote").into()),
        _ => None,
    }
}

/// The cluster in words, for a screen reader: how many nodes, who leads, which links are cut.
pub fn cluster_words(w: &crate::sim::World, lang: Lang) -> String {
    let n = w.node_count;
    let mut out = t!(
        lang,
        "{n} Raft nodes on a ring with their links, {clients} clients and the storage",
        clients = w.clients.len()
    );
    out.push_str(". ");
    match w
        .leader()
        .and_then(|l| w.nodes[l].server().map(|s| (l, s.raft.term())))
    {
        Some((l, term)) => out.push_str(&t!(lang, "n{l} leads term {term}.", l = l + 1)),
        None => out.push_str(t!(lang, "No node leads.")),
    }
    let cut: Vec<String> = (0..n)
        .flat_map(|a| (0..n).filter(move |b| *b != a).map(move |b| (a, b)))
        .filter(|&(a, b)| !w.net.is_up(a, b))
        .map(|(a, b)| format!("n{} → n{}", a + 1, b + 1))
        .collect();
    out.push(' ');
    if cut.is_empty() {
        out.push_str(t!(lang, "Every link is up."));
    } else {
        out.push_str(&t!(lang, "Cut: {}.", cut.join(", ")));
    }
    out
}
