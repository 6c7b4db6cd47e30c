//! *Open a trace*: a trace file from any implementation, read-only, to scrub (see
//! `model::trace_view`): each node's role, lock table and latest applies, the storage's writes,
//! and the checker's findings with the rule in the seed's words and a way to go to each.

use super::props::{input_value, send, PanelProps};
use crate::lang::{role_word, t, Lang};
use crate::model::text::{fmt_us, num};
use crate::model::trace_view::{Kind, TraceCheck};
use crate::model::Command;
use yew::prelude::*;

pub fn trace_panel(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let Some(v) = &page.traces.open else {
        return html! {};
    };
    let lang = page.lang;
    let nodes = v.nodes();
    let state = v.state();
    let reached = v.reached();
    let when = reached.map_or(t!(lang, "the start").to_string(), |l| match l.t_us {
        None => t!(lang, "line {n}", n = l.n),
        Some(t) => t!(
            lang,
            "line {n}, t = {time}",
            n = l.n,
            time = fmt_us(t as i64, lang)
        ),
    });
    let keys: std::collections::BTreeSet<&String> =
        state.values().flat_map(|s| s.locks.keys()).collect();
    let rows = keys.iter().map(|k| {
        let cells = nodes.iter().map(|n| match state.get(n).and_then(|s| s.locks.get(*k)) {
            Some((holder, token)) => html! { <td class="held"><span class="who">{ holder.clone() }<b>{ format!(" #{token}") }</b></span></td> },
            None => html! { <td class="free">{ t!(lang, "free") }</td> },
        });
        html! { <tr><th>{ (*k).clone() }</th>{ for cells }</tr> }
    });
    let heads = nodes.iter().map(|n| {
        let st = state.get(n).cloned().unwrap_or_default();
        html! { <th>{ format!("n{n}") }<small>{ format!("{} {}", if st.role.is_empty() { "—".to_string() } else { role_word(&st.role, lang) }, if st.term > 0 { t!(lang, "term {term}", term = st.term) } else { String::new() }) }</small></th> }
    });
    let applies = nodes.iter().map(|n| {
        let st = state.get(n).cloned().unwrap_or_default();
        let items = st.applies.iter().rev().map(|(line, index, cmd, result)| {
            let l = *line;
            html! { <li><button class="linkish" onclick={p.send.reform(move |_| Command::TraceLine(l))} title={t!(lang, "line {n}", n = l)}>{ format!("{index}") }</button>{ format!(" {cmd} → {result}") }</li> }
        });
        html! { <div class="trace-node"><h3>{ t!(lang, "n{n}: latest applies") }</h3><ol>{ for items }</ol></div> }
    });
    let writes = v.writes(6).into_iter().map(|l| match &l.kind {
        Kind::Write {
            client,
            key,
            token,
            accepted,
        } => html! {
            <li>{ if *accepted {
                t!(lang, "line {n}: {client} wrote {key} with token {token}: ✓ accepted", n = l.n)
            } else {
                t!(lang, "line {n}: {client} wrote {key} with token {token}: ✗ rejected", n = l.n)
            } }</li>
        },
        _ => html! {},
    });
    let so_far = v.findings_so_far().count();
    let findings = v.findings().iter().map(|f| {
        let line = f.line;
        let passed = reached.is_some_and(|r| r.n >= line);
        html! {
            <li class={classes!("finding", passed.then_some("reached"))}>
                <button class="goto" onclick={p.send.reform(move |_| Command::TraceLine(line))}>{ t!(lang, "Go to line {line}") }</button>
                <b>{ format!(" {}", f.rule.name()) }</b>{ format!(": {}", f.detail.get(lang)) }
                <div class="rule">{ f.rule.words(lang) }</div>
            </li>
        }
    });
    let verdict = match &v.check {
        TraceCheck::Running(_) => {
            html! { <p class="muted" id="trace-verdict" role="status">{ t!(lang, "Checking the trace against the seed's rules…") }</p> }
        }
        TraceCheck::Failed(e) => {
            html! { <p class="muted" id="trace-verdict" role="status">{ t!(lang, "The check could not run: {e}. The trace can still be read.") }</p> }
        }
        TraceCheck::Done(r) if r.ok() => {
            html! { <p class="ok" id="trace-verdict">{ t!(lang, "✓ The checker finds no problem in {} lines.", r.seen.lines) }</p> }
        }
        TraceCheck::Done(r) => {
            html! { <p class="broken" id="trace-verdict">{ t!(lang, "✗ The checker finds {} problem(s); {so_far} of them at or before this line.", r.findings.len() as u64 + r.more) }</p> }
        }
    };
    let timeline = v.finding_marks().into_iter().map(|(at, line, rule)| {
        html! { <button class="finding-mark" style={format!("left:{:.2}%", at * 100.0)} title={t!(lang, "line {line}: {what}", what = rule)}
            aria-label={t!(lang, "Go to line {line}: {what}", what = rule)} onclick={p.send.reform(move |_| Command::TraceLine(line))}></button> }
    });
    html! {
        <section class="panel wide trace-panel" aria-label={t!(lang, "Trace")} id="trace-panel">
            <div class="dialog-head">
                <h2>{ t!(lang, "Trace {name} (read-only)", name = v.name) }</h2>
                <button id="close-trace" onclick={send(p, Command::CloseTrace)}>{ t!(lang, "Close the trace") }</button>
            </div>
            <label class="scrub">{ t!(lang, "Line") }{ " " }
                <input id="trace-scrubber" type="range" min="0" max={v.lines.len().to_string()} value={v.at.to_string()} aria-label={t!(lang, "Trace position")}
                    oninput={p.send.reform(|e: InputEvent| Command::TraceAt(input_value(&e).parse().unwrap_or(0)))} />
                <output id="trace-at">{ when }</output>
            </label>
            <div class="trace-timeline" id="trace-timeline" aria-label={t!(lang, "The checker's findings along the trace")}>{ for timeline }</div>
            { verdict }
            <ul class="findings" id="trace-findings">{ for findings }</ul>
            { for v.report().into_iter().flat_map(|r| &r.not_checked).map(|m| html! { <p class="muted">{ t!(lang, "Not checked: {m}", m = m.get(lang)) }</p> }) }
            { diagram(p, v, lang) }
            { log_grid(p, v, lang) }
            <table class="locks trace-locks" aria-label={t!(lang, "Lock tables per node")}>
                <thead><tr><th>{ t!(lang, "key") }</th>{ for heads }</tr></thead>
                <tbody>
                    { if keys.is_empty() { html! { <tr><td class="free" colspan={(nodes.len() + 1).to_string()}>{ t!(lang, "no lock held on any node at this line") }</td></tr> } } else { html! {} } }
                    { for rows }
                </tbody>
            </table>
            <div class="trace-nodes">{ for applies }</div>
            <h3>{ t!(lang, "Storage writes (latest first)") }</h3>
            <ul class="trace-writes">{ for writes }</ul>
            <p class="muted">{ t!(lang, "What the trace does not carry (clock rates, messages in flight) is not drawn. Lock tables are what each node's applies said.") }</p>
        </section>
    }
}

/// The space-time diagram of the trace up to the line reached: a lane per node and the
/// storage, a mark per event (click: go to its line), the findings in red.
fn diagram(p: &PanelProps, v: &crate::model::trace_view::TraceView, lang: Lang) -> Html {
    let d = v.diagram(2_000_000, 200, lang);
    let (width, lane_h, left) = (1100.0, 24.0, 64.0);
    let height = d.lanes.len() as f64 * lane_h + 22.0;
    let span = (d.to - d.from).max(1) as f64;
    let x_of = |at: u64| left + (at.saturating_sub(d.from)) as f64 / span * (width - left - 12.0);
    let y_of = |lane: usize| 14.0 + lane as f64 * lane_h;
    let lanes = d.lanes.iter().enumerate().map(|(i, name)| {
        html! {
            <g class="lane"><text x="4" y={num(y_of(i) + 4.0)}>{ name.clone() }</text>
                <line x1={num(left)} x2={num(width)} y1={num(y_of(i))} y2={num(y_of(i))} /></g>
        }
    });
    let marks = d.marks.iter().map(|m| {
        let (x, y, line) = (x_of(m.at), y_of(m.lane), m.line);
        let shape = if m.class == "finding" {
            html! { <line x1={num(x)} x2={num(x)} y1={num(y - 10.0)} y2={num(y + 10.0)} /> }
        } else {
            html! { <circle cx={num(x)} cy={num(y)} r="4" /> }
        };
        html! { <g class={classes!("tmark", m.class)} onclick={p.send.reform(move |_| Command::TraceLine(line))}>{ shape }<title>{ t!(lang, "line {line}: {what}", what = m.label) }</title></g> }
    });
    let axis = if d.by_line {
        t!(
            lang,
            "lines {} to {} (the trace has no times)",
            d.from.max(1),
            d.to
        )
    } else {
        t!(
            lang,
            "true time {} to {}",
            fmt_us(d.from as i64, lang),
            fmt_us(d.to as i64, lang)
        )
    };
    html! {
        <figure class="trace-diagram">
            <svg class="spacetime trace-spacetime" id="trace-diagram" viewBox={format!("0 0 {width} {height}")} role="img"
                aria-label={t!(lang, "Space-time diagram of the trace: {} events before the line reached, {} finding(s); {axis}", d.marks.iter().filter(|m| m.class != "finding").count(), d.marks.iter().filter(|m| m.class == "finding").count())}>
                <g class="lanes">{ for lanes }</g>
                <g class="marks">{ for marks }</g>
            </svg>
            <figcaption class="muted">{ t!(lang, "{axis}: applies (green Grant, blue Release, red-pink Expire), role changes, restarts, the storage's writes, what clients were told; a red line is a finding. Click a mark to go to its line.") }</figcaption>
        </figure>
    }
}

/// The replicated log as the trace shows it: what each node applied at the latest indexes,
/// with its result; a row where the nodes disagree is red.
fn log_grid(p: &PanelProps, v: &crate::model::trace_view::TraceView, lang: Lang) -> Html {
    let g = v.log_grid(12);
    if g.indices.is_empty() {
        return html! { <p class="muted" id="trace-log">{ t!(lang, "No entry applied yet at this line.") }</p> };
    }
    let heads = g
        .nodes
        .iter()
        .map(|n| html! { <th scope="col">{ format!("n{n}") }</th> });
    let rows = g.indices.iter().zip(&g.cells).rev().map(|(i, row)| {
        let differs = row.iter().flatten().any(|c| c.differs);
        let cells = row.iter().map(|c| match c {
            Some(c) => {
                let line = c.line;
                html! { <td class={classes!("entry", c.differs.then_some("differs"))} title={t!(lang, "line {line}, term {term}", term = c.term)}>
                    <button class="linkish" onclick={p.send.reform(move |_| Command::TraceLine(line))}>{ c.cmd.clone() }</button>
                    <span class="res">{ c.result.clone() }</span></td> }
            }
            None => html! { <td class="empty">{ "—" }</td> },
        });
        html! { <tr class={classes!(differs.then_some("differs"))}><th scope="row">{ format!("#{i}") }</th>{ for cells }</tr> }
    });
    html! {
        <table class="trace-log" id="trace-log" aria-label={t!(lang, "The replicated log as applied on each node (latest indexes first)")}>
            <thead><tr><th>{ t!(lang, "index") }</th>{ for heads }</tr></thead>
            <tbody>{ for rows }</tbody>
        </table>
    }
}
