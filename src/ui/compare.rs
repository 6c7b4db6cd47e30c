//! Side by side: the same seed and script with one switch flipped, advancing with this run;
//! what differs (broken invariants, the lock table, storage writes) is marked.

use super::props::{send, PanelProps};
use crate::model::text::{fmt_us, invariant_label, switch_text};
use crate::model::Command;
use crate::sim::World;
use yew::prelude::*;

/// What one pane of the side-by-side view lists; lines missing from the other pane are marked.
fn pane_lines(w: &World) -> Vec<(&'static str, String)> {
    let mut v = Vec::new();
    for (_, viol) in w.violations().iter().take(5) {
        v.push((
            "broken",
            format!("✗ {}: {}", invariant_label(viol.invariant), viol.detail),
        ));
    }
    if let Some(s) = (0..w.n).find_map(|i| w.nodes[i].server()) {
        for (k, l) in &s.machine.locks {
            v.push((
                "lock",
                format!(
                    "{k} held by {} with token {}",
                    l.holder.map_or("—".into(), |c| w.client_name(c)),
                    l.token
                ),
            ));
        }
    }
    for x in w.storage.writes.iter().rev().take(6) {
        v.push((
            "write",
            format!(
                "{} wrote {} with token {}: {}",
                w.client_name(x.client),
                x.key,
                x.token,
                if x.accepted { "accepted" } else { "rejected" }
            ),
        ));
    }
    v
}

pub fn compare(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let Some((other, name)) = &page.compare else {
        return html! {};
    };
    let (a, b, name) = (&page.pg.world, &other.world, *name);
    let la = pane_lines(a);
    let lb = pane_lines(b);
    let label = crate::scenario::switch::Switch::from_name(name).map_or(name, |s| switch_text(s).0);
    let b_on = crate::scenario::hunt::switch_is_on(&other.scenario, name);
    let pane = |title: String,
                mine: &Vec<(&'static str, String)>,
                other: &Vec<(&'static str, String)>,
                id: &str| {
        let rows = mine.iter().map(|(kind, text)| {
            let differs = !other.iter().any(|(_, t)| t == text);
            html! { <li class={classes!(*kind, differs.then_some("diff"))}>{ if differs { "≠ " } else { "" } }{ text.clone() }</li> }
        });
        html! { <div class="pane" id={id.to_string()}><h3>{ title }</h3><ul>{ for rows }</ul></div> }
    };
    html! {
        <section class="panel wide side-by-side" aria-label="Side by side">
            <h2>{ format!("Side by side at {}: “{}” off and on", fmt_us(a.now_us as i64), label) }
                <button onclick={send(p, Command::Compare(None))} aria-label="Close the comparison">{ "✕" }</button></h2>
            <div class="panes">
                { pane(format!("This run ({})", if b_on { "switch off" } else { "switch on" }), &la, &lb, "pane-a") }
                { pane(format!("Same seed and script, {}", if b_on { "switch on" } else { "switch off" }), &lb, &la, "pane-b") }
            </div>
            <p class="legend">{ "Both advance together with the controls above. ≠ marks what differs between the two runs." }</p>
        </section>
    }
}
