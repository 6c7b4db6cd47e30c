//! The replicated log: one row per node, entries aligned by index, coloured by kind, committed
//! (solid) or not (dashed), each with the result it had when that node applied it.

use super::props::{input_value, send, PanelProps};
use crate::lang::t;
use crate::lock::{ApplyResult, LockOp};
use crate::model::commit::{self, Commit};
use crate::model::next::Peer;
use crate::model::Command;
use yew::prelude::*;

const LOG_COLS: u64 = 16;

pub fn log(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let (w, log_from) = (&page.playground.world, page.log_from);
    let focus = page.focus();
    let lang = page.lang;
    // A cell's tooltip while paused: playing, the cells change faster than a pointer can rest on
    // one, and each tooltip would be one more write per cell at every draw.
    let tips = !page.playing;
    let last = (0..w.node_count)
        .map(|i| match (w.nodes[i].server(), w.nodes[i].persisted()) {
            (Some(s), _) => s.raft.log().last_index(),
            (None, Some(h)) => h.log.last_index(),
            _ => 0,
        })
        .max()
        .unwrap_or(0);
    let max_from = last.saturating_sub(LOG_COLS - 1).max(1);
    // Following the end, the window moves half a table at a time: the columns stand still while
    // entries fill them (readable while playing, and a frame patches only the cells that
    // changed instead of shifting every cell by one for each new entry).
    let step = LOG_COLS / 2;
    let follow_from = 1 + step * last.saturating_sub(LOG_COLS).div_ceil(step);
    let from = log_from.map_or(follow_from, |f| f.clamp(1, max_from));
    let max_from = max_from.max(from);
    let to = from + LOG_COLS - 1;
    let header = (from..=to).map(|i| html! { <th scope="col" class={classes!(focus.log.contains(&i).then_some("focus"))}>{ i }</th> });
    let rows = (0..w.node_count).map(|i| {
        let slot = &w.nodes[i];
        let (log, results) = match (slot.server(), slot.persisted()) {
            (Some(s), _) => (Some(s.raft.log()), Some(s)),
            (None, Some(h)) => (Some(&h.log), None),
            _ => (None, None),
        };
        let cells = (from..=to).map(|idx| {
            // Every cell has the same three spans, empty or not: while playing, a cell that fills
            // only changes text and classes (no elements created or removed).
            let Some(e) = log.and_then(|l| l.entry(idx)) else {
                if log.is_some_and(|l| idx <= l.start()) {
                    // Dropped by log compaction (§7): the node's snapshot holds its effect.
                    let title = tips.then(|| t!(lang, "index {idx}: compacted, its effect is in n{n}'s snapshot", n = i + 1));
                    return html! { <td class="compacted" title={title}><span class="txt">{ "" }</span><span class="meta">{ t!(lang, "snap") }</span><span class="res">{ "" }</span></td> };
                }
                return html! { <td class="empty"><span class="txt">{ "" }</span><span class="meta">{ "" }</span><span class="res">{ "" }</span></td> };
            };
            let op = e.cmd.as_ref().map(|c| &c.op);
            let kind = LockOp::name_of(op);
            let text = match op {
                None => "no-op".to_string(),
                Some(LockOp::Grant { key, lease_ms }) => t!(lang, "G {key} {lease_ms}ms"),
                Some(LockOp::Release { key, .. }) => format!("R {key}"),
                Some(LockOp::Expire { key, token }) => format!("E {key}·{token}"),
            };
            let applied = results.and_then(|s| s.result_at(idx));
            let result = applied.map(|r| match r {
                ApplyResult::Granted { token } => format!("Granted{{token {token}}}"),
                ApplyResult::GrantRejected => "GrantRejected".into(),
                ApplyResult::Released => "Released".into(),
                ApplyResult::NotFound => "NotFound".into(),
                ApplyResult::Expired { existed } => format!("Expired{{existed: {existed}}}"),
                ApplyResult::Noop => "Noop".into(),
            });
            // In the cell, the seed's form with the value in place of the field's name (the
            // token is what matters and must fit); the title has the whole result.
            let short = applied.map(|r| match r {
                ApplyResult::Granted { token } => format!("Granted{{{token}}}"),
                ApplyResult::Expired { existed } => format!("Expired{{{existed}}}"),
                _ => result.clone().unwrap_or_default(),
            });
            let state = commit::of(w, i, idx, e);
            let (class, mark, says) = match state {
                Commit::Known => ("committed", "", ""),
                Commit::InCluster => ("cluster", " ◦", t!(lang, " (committed in the cluster; this node does not know it yet)")),
                Commit::No => ("pending", " ⋯", t!(lang, " (not committed)")),
            };
            let title = tips.then(|| {
                let outcome = result.as_ref().map_or(t!(lang, " (not applied here)").to_string(), |r| format!(" → {r}"));
                t!(lang, "index {idx}, term {term}: {text}{outcome}{says}", term = e.term)
            });
            html! {
                <td class={classes!("entry", kind, class, format!("t{}", e.term % 6), focus.log.contains(&idx).then_some("focus"))} title={title}>
                    <span class="txt">{ text }</span>
                    <span class="meta">{ t!(lang, "t{term}{mark}", term = e.term) }</span>
                    <span class="res">{ short.unwrap_or_default() }</span>
                </td>
            }
        });
        let snap = slot.snapshot_index();
        let snap_title = if snap > 0 { t!(lang, "snapshot at index {snap}") } else { t!(lang, "no snapshot yet").to_string() };
        html! { <tr><th scope="row" title={snap_title}>{ format!("n{}", i + 1) }</th>{ for cells }</tr> }
    });
    let follow = log_from.is_none();
    html! {
        <div class="log">
            <div class="logbar">
                <label>{ t!(lang, "From index") }{ " " }
                    <input type="range" min="1" max={max_from.to_string()} value={from.to_string()} aria-label={t!(lang, "Scroll the log")}
                        oninput={p.send.reform(|e: InputEvent| Command::LogFrom(input_value(&e).parse().ok()))} />
                </label>
                <button aria-pressed={follow.to_string()} onclick={send(p, Command::LogFrom(None))}>{ t!(lang, "Follow the end") }</button>
                <span class="legend">{ t!(lang, "Solid: committed, as that node knows · dotted with ◦: committed in the cluster, not yet known to that node (a restarted node forgets its commit index) · dashed with ⋯: not committed · below each entry: its apply result on that node (Granted{{41}}: granted with token 41) · grey “snap”: compacted into the node's snapshot") }</span>
            </div>
            <table class="logtable"><thead><tr><th></th>{ for header }</tr></thead><tbody>{ for rows }</tbody></table>
        </div>
    }
}

/// On the stage, the log indexes the caption names: each node's entry there, whether it is
/// committed on that node, and the result it had when that node applied it.
pub fn log_focus(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let focus = page.focus();
    if focus.log.is_empty() && !focus.next {
        return html! {};
    }
    let w = &page.playground.world;
    let lang = page.lang;
    // One row per index, one column per node: the shape of the lock view.
    let cell = |i: usize, at: u64| {
        let slot = &w.nodes[i];
        let (log, server) = match (slot.server(), slot.persisted()) {
            (Some(s), _) => (Some(s.raft.log()), Some(s)),
            (None, Some(h)) => (Some(&h.log), None),
            _ => (None, None),
        };
        let Some(e) = log.and_then(|l| l.entry(at)) else {
            // Compacted into the node's snapshot: the log's grey "snap".
            if log.is_some_and(|l| at <= l.start()) {
                return html! { <td class="entry compacted" title={t!(lang, "in its snapshot")}><span class="meta">{ t!(lang, "snap") }</span></td> };
            }
            return html! { <td class="none">{ "—" }</td> };
        };
        let op = e.cmd.as_ref().map(|c| &c.op);
        let kind = LockOp::name_of(op);
        let text = match op {
            None => "no-op".to_string(),
            Some(LockOp::Grant { key, lease_ms }) => {
                // Whose Grant: two Grants of one key differ only in their client.
                let grant = t!(lang, "Grant {key} {lease_ms}ms");
                match e
                    .cmd
                    .as_ref()
                    .and_then(|c| c.client)
                    .and_then(|c| w.clients.get(c as usize))
                {
                    Some(cs) => format!("{grant} → {}", cs.client.cfg.name),
                    None => grant,
                }
            }
            Some(LockOp::Release { key, .. }) => format!("Release {key}"),
            Some(LockOp::Expire { key, token }) => format!("Expire {key}·{token}"),
        };
        let result = server.and_then(|s| s.result_at(at)).map(|r| match r {
            ApplyResult::Granted { token } => format!("Granted{{{token}}}"),
            ApplyResult::Expired { existed } => format!("Expired{{{existed}}}"),
            other => format!("{other:?}"),
        });
        let (class, says, mark) = match commit::of(w, i, at, e) {
            Commit::Known => ("committed", "", t!(lang, "committed")),
            Commit::InCluster => (
                "cluster",
                t!(
                    lang,
                    " (committed in the cluster; this node does not know it yet)"
                ),
                "◦",
            ),
            Commit::No => ("pending", t!(lang, " (not committed)"), "⋯"),
        };
        let title = t!(
            lang,
            "n{n}: index {at}, term {term}: {text}{says}",
            n = i + 1,
            term = e.term
        );
        // The log's own styles (its colours by kind and term, solid, dotted ◦, dashed ⋯), and
        // the entry's term, on which Figure 8 and the stale leaders turn.
        html! {
            <td class={classes!("entry", kind, class, format!("t{}", e.term % 6))} title={title}>
                <span class="txt">{ text }</span>
                <span class="meta">{ t!(lang, "term {term}", term = e.term) }{ if mark.is_empty() || class == "committed" { String::new() } else { format!(" {mark}") } }{ result.map(|r| format!(" · {r}")).unwrap_or_default() }</span>
            </td>
        }
    };
    let rows = focus.log.iter().take(3).map(|&at| {
        html! { <tr><th scope="row">{ format!("#{at}") }</th>{ for (0..w.node_count).map(|i| cell(i, at)) }</tr> }
    });
    // §5.3: what the leader will send each follower next, and how far it knows their logs match.
    let next_row = match crate::model::next::of(w).filter(|_| focus.next) {
        None if focus.next => {
            html! { <tr class="next"><th scope="row">{ t!(lang, "next") }</th><td colspan={w.node_count.to_string()}>{ t!(lang, "no leader") }</td></tr> }
        }
        None => html! {},
        Some(row) => {
            let l = row.leader;
            let peer = |(i, p): (usize, &Peer)| match *p {
                Peer::Leader => {
                    html! { <td class="next leader">{ t!(lang, "leader n{n}", n = l + 1) }</td> }
                }
                Peer::Follower {
                    state,
                    next,
                    matched,
                } => html! {
                    <td class={classes!("next", state, focus.node(i).then_some("focus"))} title={t!(lang, "n{l}'s view of n{n}: sends index {next} next; their logs match through {matched}", l = l + 1, n = i + 1)}>
                        <span class="txt">{ t!(lang, "next {next}", next = next) }</span>
                        <span class="meta">{ format!("{} · {}", progress_word(state, lang), t!(lang, "match {matched}", matched = matched)) }</span>
                    </td>
                },
            };
            html! { <tr class="next"><th scope="row">{ t!(lang, "next") }</th>{ for row.peers.iter().enumerate().map(peer) }</tr> }
        }
    };
    let which = focus
        .log
        .iter()
        .take(3)
        .map(|i| format!("#{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    html! {
        <section class="panel log-focus focus" aria-label={t!(lang, "Log entries the caption names")} id="log-focus">
            <h2>{ if which.is_empty() { t!(lang, "The leader's next index for each node").to_string() } else { t!(lang, "Log entry {which} on each node") } }<small>{ t!(lang, " · ◦ committed in the cluster, not yet known there · ⋯ not committed") }</small></h2>
            <table>
                <thead><tr><th>{ t!(lang, "index") }</th>{ for (1..=w.node_count).map(|k| html! { <th>{ format!("n{k}") }</th> }) }</tr></thead>
                <tbody>{ for rows }{ next_row }</tbody>
            </table>
        </section>
    }
}

/// A leader's replication state for one follower, in words (etcd-raft's progress states).
fn progress_word(state: &str, lang: crate::lang::Lang) -> &'static str {
    match state {
        "probe" => t!(lang, "probing"),
        "snapshot" => t!(lang, "sending a snapshot"),
        _ => t!(lang, "replicating"),
    }
}
