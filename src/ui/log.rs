//! The replicated log: one row per node, entries aligned by index, coloured by kind, committed
//! (solid) or not (dashed), each with the result it had when that node applied it.

use super::props::{input_value, send, PanelProps};
use crate::lang::t;
use crate::model::commit::Commit;
use crate::model::log::{Cell, FocusLog, LogView, Window};
use crate::model::next::Peer;
use crate::model::Command;
use yew::prelude::*;

pub fn log(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let log_from = page.log_from;
    let focus = page.focus();
    let lang = page.lang;
    // A cell's tooltip while paused: playing, the cells change faster than a pointer can rest on
    // one, and each tooltip would be one more write per cell at every draw.
    let tips = !page.playing;
    let LogView { window, rows } = LogView::of(&page.playground.world, log_from);
    let Window { from, to, max_from } = window;
    let header = (from..=to).map(|i| html! { <th scope="col" class={classes!(focus.log.contains(&i).then_some("focus"))}>{ i }</th> });
    let rows = rows.into_iter().enumerate().map(|(i, row)| {
        let cells = (from..=to).zip(row.cells).map(|(idx, cell)| {
            // Every cell has the same three spans, empty or not: while playing, a cell that fills
            // only changes text and classes (no elements created or removed).
            let e = match cell {
                Cell::Entry(e) => e,
                Cell::Compacted => {
                    // Dropped by log compaction (§7): the node's snapshot holds its effect.
                    let title = tips.then(|| t!(lang, "index {idx}: compacted, its effect is in n{n}'s snapshot", n = i + 1));
                    return html! { <td class="compacted" title={title}><span class="txt">{ "" }</span><span class="meta">{ t!(lang, "snap") }</span><span class="res">{ "" }</span></td> };
                }
                Cell::Empty => return html! { <td class="empty"><span class="txt">{ "" }</span><span class="meta">{ "" }</span><span class="res">{ "" }</span></td> },
            };
            let text = e.label(lang);
            // In the cell, the seed's form with the value in place of the field's name (the
            // token is what matters and must fit); the title has the whole result.
            let short = e.result_short();
            let (class, mark, says) = match e.commit {
                Commit::Known => ("committed", "", ""),
                Commit::InCluster => ("cluster", " ◦", t!(lang, " (committed in the cluster; this node does not know it yet)")),
                Commit::No => ("pending", " ⋯", t!(lang, " (not committed)")),
            };
            let title = tips.then(|| {
                let outcome = e.result().map_or(t!(lang, " (not applied here)").to_string(), |r| format!(" → {r}"));
                t!(lang, "index {idx}, term {term}: {text}{outcome}{says}", term = e.term)
            });
            html! {
                <td class={classes!("entry", e.kind, class, format!("t{}", e.term % 6), focus.log.contains(&idx).then_some("focus"))} title={title}>
                    <span class="txt">{ text }</span>
                    <span class="meta">{ t!(lang, "t{term}{mark}", term = e.term) }</span>
                    <span class="res">{ short.unwrap_or_default() }</span>
                </td>
            }
        });
        let snap = row.snapshot;
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
    let lang = page.lang;
    let f = FocusLog::of(&page.playground.world, focus.log.iter().take(3).copied());
    // One row per index, one column per node: the shape of the lock view.
    let draw = |i: usize, at: u64, cell: &Cell| {
        let e = match cell {
            Cell::Entry(e) => e,
            // Compacted into the node's snapshot: the log's grey "snap".
            Cell::Compacted => {
                return html! { <td class="entry compacted" title={t!(lang, "in its snapshot")}><span class="meta">{ t!(lang, "snap") }</span></td> }
            }
            Cell::Empty => return html! { <td class="none">{ "—" }</td> },
        };
        let (kind, text, result) = (e.kind, e.words(lang), e.result_short());
        let (class, says, mark) = match e.commit {
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
    let rows = f.rows.iter().map(|(at, cells)| {
        html! { <tr><th scope="row">{ format!("#{at}") }</th>{ for f.ids.iter().map(|&i| draw(i, *at, &cells[i])) }</tr> }
    });
    // §5.3: what the leader will send each follower next, and how far it knows their logs match.
    let next_row = match f.next.filter(|_| focus.next) {
        None if focus.next => {
            html! { <tr class="next"><th scope="row">{ t!(lang, "next") }</th><td colspan={f.ids.len().to_string()}>{ t!(lang, "no leader") }</td></tr> }
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
            html! { <tr class="next"><th scope="row">{ t!(lang, "next") }</th>{ for f.ids.iter().map(|&i| peer((i, &row.peers[i]))) }</tr> }
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
                <thead><tr><th>{ t!(lang, "index") }</th>{ for f.ids.iter().map(|k| html! { <th>{ format!("n{}", k + 1) }</th> }) }</tr></thead>
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
