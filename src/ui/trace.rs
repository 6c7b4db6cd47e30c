//! *Open a trace*: a trace file from any implementation, read-only, to scrub (see
//! `model::trace_view`): each node's role, lock table and latest applies, the storage's writes,
//! and the checker's findings with the rule in the seed's words and a way to go to each.

use super::props::{input_value, send, PanelProps};
use crate::model::text::fmt_us;
use crate::model::trace_view::Kind;
use crate::model::Command;
use yew::prelude::*;

pub fn trace_panel(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let Some(v) = &page.trace else {
        return html! {};
    };
    let nodes = v.nodes();
    let state = v.state();
    let reached = v.reached();
    let when = reached.map_or("the start".to_string(), |l| {
        format!(
            "line {}{}",
            l.n,
            l.t_us
                .map_or(String::new(), |t| format!(", t = {}", fmt_us(t as i64)))
        )
    });
    let keys: std::collections::BTreeSet<&String> =
        state.values().flat_map(|s| s.locks.keys()).collect();
    let rows = keys.iter().map(|k| {
        let cells = nodes.iter().map(|n| match state.get(n).and_then(|s| s.locks.get(*k)) {
            Some((holder, token)) => html! { <td class="held"><span class="who">{ holder.clone() }<b>{ format!(" #{token}") }</b></span></td> },
            None => html! { <td class="free">{ "free" }</td> },
        });
        html! { <tr><th>{ (*k).clone() }</th>{ for cells }</tr> }
    });
    let heads = nodes.iter().map(|n| {
        let st = state.get(n).cloned().unwrap_or_default();
        html! { <th>{ format!("n{n}") }<small>{ format!("{} {}", if st.role.is_empty() { "—" } else { &st.role }, if st.term > 0 { format!("term {}", st.term) } else { String::new() }) }</small></th> }
    });
    let applies = nodes.iter().map(|n| {
        let st = state.get(n).cloned().unwrap_or_default();
        let items = st.applies.iter().rev().map(|(line, index, cmd, result)| {
            let l = *line;
            html! { <li><button class="linkish" onclick={p.send.reform(move |_| Command::TraceLine(l))} title={format!("line {l}")}>{ format!("{index}") }</button>{ format!(" {cmd} → {result}") }</li> }
        });
        html! { <div class="trace-node"><h3>{ format!("n{n}: latest applies") }</h3><ol>{ for items }</ol></div> }
    });
    let writes = v.writes(6).into_iter().map(|l| match &l.kind {
        Kind::Write { client, key, token, accepted } => html! {
            <li>{ format!("line {}: {client} wrote {key} with token {token}: {}", l.n, if *accepted { "✓ accepted" } else { "✗ rejected" }) }</li>
        },
        _ => html! {},
    });
    let so_far = v.findings_so_far().count();
    let findings = v.report.findings.iter().map(|f| {
        let line = f.line;
        let passed = reached.is_some_and(|r| r.n >= line);
        html! {
            <li class={classes!("finding", passed.then_some("reached"))}>
                <button class="goto" onclick={p.send.reform(move |_| Command::TraceLine(line))}>{ format!("Go to line {line}") }</button>
                <b>{ format!(" {}", f.rule.name()) }</b>{ format!(": {}", f.detail) }
                <div class="rule">{ f.rule.words() }</div>
            </li>
        }
    });
    let verdict = if v.report.ok() {
        html! { <p class="ok" id="trace-verdict">{ format!("✓ The checker finds no problem in {} lines.", v.report.seen.lines) }</p> }
    } else {
        html! { <p class="broken" id="trace-verdict">{ format!("✗ The checker finds {} problem(s); {so_far} of them at or before this line.", v.report.findings.len() as u64 + v.report.more) }</p> }
    };
    html! {
        <section class="panel wide trace-panel" aria-label="Trace" id="trace-panel">
            <div class="dialog-head">
                <h2>{ format!("Trace {} (read-only)", v.name) }</h2>
                <button id="close-trace" onclick={send(p, Command::CloseTrace)}>{ "Close the trace" }</button>
            </div>
            <label class="scrub">{ "Line " }
                <input id="trace-scrubber" type="range" min="0" max={v.lines.len().to_string()} value={v.at.to_string()} aria-label="Trace position"
                    oninput={p.send.reform(|e: InputEvent| Command::TraceAt(input_value(&e).parse().unwrap_or(0)))} />
                <output id="trace-at">{ when }</output>
            </label>
            { verdict }
            <ul class="findings" id="trace-findings">{ for findings }</ul>
            { for v.report.not_checked.iter().map(|m| html! { <p class="muted">{ format!("Not checked: {m}") }</p> }) }
            <table class="locks trace-locks" aria-label="Lock tables per node">
                <thead><tr><th>{ "key" }</th>{ for heads }</tr></thead>
                <tbody>
                    { if keys.is_empty() { html! { <tr><td class="free" colspan={(nodes.len() + 1).to_string()}>{ "no lock held on any node at this line" }</td></tr> } } else { html! {} } }
                    { for rows }
                </tbody>
            </table>
            <div class="trace-nodes">{ for applies }</div>
            <h3>{ "Storage writes (latest first)" }</h3>
            <ul class="trace-writes">{ for writes }</ul>
            <p class="muted">{ "What the trace does not carry (clock rates, messages in flight) is not drawn. Lock tables are what each node's applies said." }</p>
        </section>
    }
}
