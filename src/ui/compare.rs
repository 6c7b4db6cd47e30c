//! Side by side: the same seed and script with one switch flipped, advancing with this run;
//! what differs (broken invariants, the lock table, storage writes) is marked.

use super::props::{send, PanelProps};
use crate::lang::{t, Lang};
use crate::model::text::{fmt_us, invariant_label, switch_text};
use crate::model::Command;
use crate::sim::World;
use yew::prelude::*;

/// What one pane of the side-by-side view lists; lines missing from the other pane are marked.
fn pane_lines(w: &World, lang: Lang) -> Vec<(&'static str, String)> {
    let mut v = Vec::new();
    for (_, viol) in w.violations().iter().take(5) {
        v.push((
            "broken",
            format!(
                "✗ {}: {}",
                invariant_label(viol.invariant, lang),
                viol.detail.get(lang)
            ),
        ));
    }
    if let Some(s) = (0..w.n).find_map(|i| w.nodes[i].server()) {
        for (k, l) in &s.machine.locks {
            v.push((
                "lock",
                t!(
                    lang,
                    "{k} held by {holder} with token {token}",
                    holder = l.holder.map_or("—".into(), |c| w.client_name(c)),
                    token = l.token
                ),
            ));
        }
    }
    for x in w.storage.writes.iter().rev().take(6) {
        let (client, key, token) = (w.client_name(x.client), &x.key, x.token);
        v.push((
            "write",
            if x.accepted {
                t!(lang, "{client} wrote {key} with token {token}: accepted")
            } else {
                t!(lang, "{client} wrote {key} with token {token}: rejected")
            },
        ));
    }
    v
}

pub fn compare(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let Some((other, name)) = &page.compare else {
        return html! {};
    };
    let lang = page.lang;
    let (a, b, name) = (&page.pg.world, &other.world, *name);
    let la = pane_lines(a, lang);
    let lb = pane_lines(b, lang);
    let label =
        crate::scenario::switch::Switch::from_name(name).map_or(name, |s| switch_text(s, lang).0);
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
        <section class="panel wide side-by-side" aria-label={t!(lang, "Side by side")}>
            <h2>{ t!(lang, "Side by side at {time}: “{label}” off and on", time = fmt_us(a.now_us as i64, lang)) }
                <button onclick={send(p, Command::Compare(None))} aria-label={t!(lang, "Close the comparison")}>{ "✕" }</button></h2>
            <div class="panes">
                { pane(if b_on { t!(lang, "This run (switch off)") } else { t!(lang, "This run (switch on)") }.to_string(), &la, &lb, "pane-a") }
                { pane(if b_on { t!(lang, "Same seed and script, switch on") } else { t!(lang, "Same seed and script, switch off") }.to_string(), &lb, &la, "pane-b") }
            </div>
            <p class="legend">{ t!(lang, "Both advance together with the controls above. ≠ marks what differs between the two runs.") }</p>
        </section>
    }
}
