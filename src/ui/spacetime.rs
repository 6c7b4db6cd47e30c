//! The space-time diagram (last 2 s of true time): nodes, clients and storage as lanes,
//! messages as lines, applies and role changes as marks, each node's lease intervals mapped
//! from its own clock to true time, and the clients' history check drawn on the client lanes.

use super::props::PanelProps;
use crate::check::history::Verdict;
use crate::lang::{t, Lang};
use crate::model::motion::{Countdown, Scroll};
use crate::model::text::{fmt_us, num};
use crate::sim::{MessageKind, World};
use crate::trace::Event as TraceEvent;
use std::fmt::Write as _;
use yew::prelude::*;

const SPACETIME_MAX: usize = 300;

/// The history check drawn on the client lanes: each client's operations (invocation → answer),
/// then either the linearization (each hold as a bar from its linearization point to its end,
/// a diamond at the point) or the two conflicting operations in red and a red line where the
/// shortest failing prefix ends.
fn history_overlay(
    w: &World,
    verdict: &Verdict,
    t0: u64,
    now: u64,
    x_of: &dyn Fn(u64) -> f64,
    y_of: &dyn Fn(usize) -> f64,
    lang: Lang,
) -> Vec<Html> {
    let lane = |c: crate::lock::ClientId| w.node_count + c as usize;
    let mut out = Vec::new();
    let red: &[usize] = match verdict {
        Err(c) => &c.ops,
        Ok(_) => &[],
    };
    for (i, op) in (w.history.from()..).zip(w.history.ops.iter()) {
        let end = op.answer.as_ref().map_or(now, |a| a.0).min(now);
        if end < t0 || op.invoke_us > now {
            continue;
        }
        let (x1, x2, y) = (
            x_of(op.invoke_us.max(t0)),
            x_of(end),
            y_of(lane(op.client)) - 7.0,
        );
        let (client, key) = (w.client_name(op.client), &op.key);
        let what_op = if op.acquire {
            t!(lang, "acquire")
        } else {
            t!(lang, "release")
        };
        let at = fmt_us(op.invoke_us as i64, lang);
        let what = match op.answer.as_ref() {
            None => t!(
                lang,
                "{client} {what_op} {key}: invoked {at}, no answer (either outcome)"
            ),
            Some((t, a)) => {
                let a = crate::model::text::answer_words(a, lang);
                t!(
                    lang,
                    "{client} {what_op} {key}: invoked {at}, answered {a} at {when}",
                    when = fmt_us(*t as i64, lang)
                )
            }
        };
        let class = classes!(
            "op",
            red.contains(&i).then_some("conflict"),
            op.answer.is_none().then_some("open")
        );
        out.push(html! { <g class={class}><rect x={num(x1)} y={num(y)} width={num((x2 - x1).max(2.0))} height="3" /><title>{ what }</title></g> });
    }
    match verdict {
        Ok(holds) => {
            for h in holds
                .iter()
                .filter(|h| h.point_us <= now && h.end_us.is_none_or(|e| e >= t0))
            {
                let end = h.end_us.unwrap_or(now).min(now);
                let (x1, x2, y) = (
                    x_of(h.point_us.max(t0)),
                    x_of(end),
                    y_of(lane(h.client)) + 3.0,
                );
                let (client, key, token) = (w.client_name(h.client), &h.key, h.token);
                let from = fmt_us(h.point_us as i64, lang);
                let label = match (h.end_us, h.by_expiry) {
                    (Some(e), true) => t!(
                        lang,
                        "linearization: {client} holds {key} with token {token} from {from} to {to} (lease expiry)",
                        to = fmt_us(e as i64, lang)
                    ),
                    (Some(e), false) => t!(
                        lang,
                        "linearization: {client} holds {key} with token {token} from {from} to {to} (release)",
                        to = fmt_us(e as i64, lang)
                    ),
                    (None, true) => t!(
                        lang,
                        "linearization: {client} holds {key} with token {token} from {from} to now (lease expiry)"
                    ),
                    (None, false) => t!(
                        lang,
                        "linearization: {client} holds {key} with token {token} from {from} to now (release)"
                    ),
                };
                let diamond = (h.point_us >= t0).then(|| {
                    let x = x_of(h.point_us);
                    html! { <path class="point" d={format!("M{} {}l4 4l-4 4l-4 -4z", num(x), num(y - 2.0))} /> }
                });
                out.push(html! {
                    <g class={classes!("hold", h.by_expiry.then_some("expiry"))}>
                        <rect x={num(x1)} y={num(y)} width={num((x2 - x1).max(1.0))} height="4" />
                        { diamond.unwrap_or_default() }
                        <title>{ label }</title>
                    </g>
                });
            }
        }
        Err(c) if c.at_us >= t0 && c.at_us <= now => {
            let x = x_of(c.at_us);
            out.push(html! {
                <g class="prefix-end">
                    <line x1={num(x)} x2={num(x)} y1="4" y2={num(y_of(w.node_count + w.clients.len()))} />
                    <text x={num(x - 4.0)} y="10" text-anchor="end">{ t!(lang, "the shortest failing prefix of the history ends here →") }</text>
                    <title>{ c.message_in(lang).to_string() }</title>
                </g>
            });
        }
        Err(_) => {}
    }
    out
}

pub fn spacetime(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let w = &page.playground.world;
    let lang = page.lang;
    let verdict = page.history.last.as_ref().and_then(|h| h.1.as_deref());
    let window_us = 2_000_000u64;
    let now = w.now_us;
    let lanes = w.node_count + w.clients.len() + 1;
    let (width, lane_h, left) = (1100.0, 26.0, 60.0);
    let height = lanes as f64 * lane_h + 20.0;
    // The marks are drawn at their own time in a group shifted to the run's moment: between two
    // moves of the axis's base a mark is written only when it changes.
    let axis = Scroll::new(now, window_us, width - left - 10.0, width - 10.0);
    let t0 = axis.from_us();
    let x_of = |t: u64| axis.x(t);
    let y_of = |e: usize| 14.0 + e as f64 * lane_h;
    // Lanes: the nodes, then the clients, then the storage; a message's ends are endpoints.
    let lane_of = |e: usize| match w.endpoint_client(e) {
        Some(c) => w.node_count + c,
        None if e >= w.storage_endpoint() => lanes - 1,
        None => e,
    };
    let lane_lines = (0..lanes).map(|e| {
        let end = match e {
            _ if e == lanes - 1 => w.storage_endpoint(),
            _ if e >= w.node_count => w.client_endpoint(e - w.node_count),
            _ => e,
        };
        html! { <g class="lane"><text x="4" y={num(y_of(e) + 4.0)}>{ if end == w.storage_endpoint() { t!(lang, "storage").to_string() } else { w.endpoint_name(end) } }</text>
        <line x1={num(left)} x2={num(width)} y1={num(y_of(e))} y2={num(y_of(e))} /></g> }
    });
    // Lease intervals: from each node's countdown, mapped from its local clock to true time.
    let leases = (0..w.node_count).flat_map(|i| {
        let slot = &w.nodes[i];
        let leases: Vec<Html> = slot
            .server()
            .into_iter()
            .flat_map(|s| s.leases.iter())
            .map(|(k, l)| {
                let cd = Countdown::of(&slot.clock, l.deadline_local_us, l.lease_ms, now);
                let (start, end) = (cd.end_us.saturating_sub(cd.span_us), cd.end_us);
                let (x1, x2) = (x_of(start), x_of(end));
                // Its tooltip while paused (playing, a busy cluster renews leases at every draw).
                let tip = (!page.playing).then(|| html! {
                    <title>{ t!(lang, "n{node}: lease of {k} (token {token}) ends at true time {end} by this node's clock", node = i + 1, token = l.token, end = fmt_us(end as i64, lang)) }</title>
                });
                html! { <g class="lease"><rect x={num(x1)} y={num(y_of(i) - 9.0)} width={num((x2 - x1).max(1.0))} height="6" />{ tip.unwrap_or_default() }</g> }
            })
            .collect();
        leases
    });
    // The most recent few hundred of each, so a busy cluster does not flood the page; drawn as
    // one path per kind (a frame rewrites a few `d` strings instead of patching hundreds of
    // elements: the diagram was most of the page's DOM work while playing).
    let mut arrow_paths: Vec<(MessageKind, String)> = Vec::new();
    for &(f, t, kind, sent, at) in w
        .recent
        .iter()
        .rev()
        .take_while(|m| m.4 >= t0)
        .filter(|m| !matches!(m.2, MessageKind::Heartbeat | MessageKind::AppendReply))
        .take(SPACETIME_MAX)
    {
        let d = match arrow_paths.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, d)) => d,
            None => {
                arrow_paths.push((kind, String::new()));
                &mut arrow_paths.last_mut().expect("just pushed").1
            }
        };
        let _ = write!(
            d,
            "M{} {}L{} {}",
            num(x_of(sent)),
            num(y_of(lane_of(f as usize))),
            num(x_of(at)),
            num(y_of(lane_of(t as usize)))
        );
    }
    arrow_paths.sort_by_key(|(k, _)| k.name());
    let arrows = arrow_paths.into_iter().map(|(kind, d)| html! { <path class={classes!("arrow", kind.name())} d={d}><title>{ kind.words(lang) }</title></path> });
    let mut mark_paths: [(&str, &str, String); 4] = [
        ("role", t!(lang, "role changes"), String::new()),
        ("apply", t!(lang, "applied commands"), String::new()),
        (
            "fault",
            t!(lang, "crashes, restarts, pauses"),
            String::new(),
        ),
        (
            "snapshot",
            t!(lang, "snapshots taken and installed (log compaction)"),
            String::new(),
        ),
    ];
    let dots =
        w.trace
            .lines
            .iter()
            .rev()
            .take_while(|l| l.t_us >= t0)
            .take(SPACETIME_MAX * 4)
            .filter_map(|l| {
                let (lane, k) = match &l.ev {
                    TraceEvent::Role { node, .. } => (node - 1, 0),
                    TraceEvent::Apply { node, cmd, .. } if cmd.op != "noop" => (node - 1, 1),
                    TraceEvent::Crash { node }
                    | TraceEvent::Restart { node }
                    | TraceEvent::Pause { node }
                    | TraceEvent::Resume { node } => (node - 1, 2),
                    TraceEvent::Snapshot { node, .. }
                    | TraceEvent::SnapshotRestored { node, .. } => (node - 1, 3),
                    _ => return None,
                };
                Some((l.t_us, lane, k))
            });
    for (t, lane, k) in dots.take(SPACETIME_MAX) {
        // A dot of radius 3: two half circles.
        let _ = write!(
            mark_paths[k].2,
            "M{} {}a3 3 0 1 0 6 0a3 3 0 1 0 -6 0",
            num(x_of(t) - 3.0),
            num(y_of(lane))
        );
    }
    let marks = mark_paths.into_iter().filter(|m| !m.2.is_empty()).map(|(class, what, d)| html! { <path class={classes!("mark", class)} d={d}><title>{ what }</title></path> });
    html! {
        <svg class="spacetime" viewBox={format!("0 0 {width} {height}")} role="img" aria-label={t!(lang, "Space-time diagram: lanes for nodes, clients and storage; messages as lines; lease intervals as bars")}>
            <g class="lanes">{ for lane_lines }</g>
            <defs><clipPath id="spacetime-clip"><rect x={num(left)} y="0" width={num(width - left)} height={num(height)} /></clipPath></defs>
            <g clip-path="url(#spacetime-clip)"><g class="scrolls" transform={format!("translate({} 0)", num(axis.shift_at(now)))}>
                <g class="leases">{ for leases }</g>
                <g class="arrows">{ for arrows }</g>
                <g class="marks">{ for marks }</g>
                <g class="history">{ for verdict.map(|v| history_overlay(w, v, t0, now, &x_of, &y_of, lang)).unwrap_or_default() }</g>
            </g></g>
            <text class="axis" x={num(width - 150.0)} y={num(height - 2.0)}>{ t!(lang, "true time → {}", fmt_us(now as i64, lang)) }</text>
        </svg>
    }
}
