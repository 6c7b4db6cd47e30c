//! The stage's two halves: the run as the lesson has it and its safe twin (the same document and
//! seed with the safeguard the other way), each labelled with the safeguard's state in words,
//! with what is broken in it and what tells it from the other half (marked ≠).

use super::cluster;
use super::props::{send, PanelProps};
use crate::lang::t;
use crate::model::twin::HalfView;
use crate::model::Command;
use yew::prelude::*;

/// The run's half (with its own cluster, whose links cut and heal).
pub fn run_half(p: &PanelProps) -> Html {
    half(p, 0)
}

/// The twin's half (read-only).
pub fn twin_half(p: &PanelProps) -> Html {
    half(p, 1)
}

fn half(p: &PanelProps, which: usize) -> Html {
    let page = p.page.borrow();
    let lang = page.lang;
    let Some(halves) = page.twin_view() else {
        return html! {};
    };
    let h: &HalfView = &halves[which];
    let id = if h.is_run { "half-run" } else { "half-twin" };
    // The invariant in words, the first one whole and a count of the rest (all in the title).
    let verdict = match h.broken.split_first() {
        None => html! { <span class="verdict ok">{ t!(lang, "✓ every invariant holds") }</span> },
        Some((first, rest)) => {
            let more = if rest.is_empty() {
                String::new()
            } else {
                t!(lang, " (+{n} more)", n = rest.len())
            };
            html! { <span class="verdict bad" title={h.broken.join("; ")}>{ t!(lang, "✗ violated: {first}") }{ more }</span> }
        }
    };
    let whose = if h.is_run {
        t!(lang, "This run")
    } else {
        t!(lang, "Its twin")
    };
    let lines = h.lines.iter().take(3).map(|(kind, text, differs)| {
        html! {
            <li class={classes!(*kind, differs.then_some("diff"))}>
                { if *differs { html! { <b class="ne" title={t!(lang, "not so in the other half")}>{ "≠ " }</b> } } else { html! {} } }
                { text.clone() }
            </li>
        }
    });
    html! {
        <div class={classes!("half", if h.safe { "safe" } else { "broken" })} id={id}>
            <h3 class="half-head">
                <span class="whose">{ whose }{ ": " }</span>
                <span class="label">{ h.label.clone() }</span>
                { verdict }
                { if h.is_run { html! {} } else { html! {
                    <button class="close" id="hide-twin" onclick={send(p, Command::Compare(None))}
                        aria-label={t!(lang, "Hide the twin")} title={t!(lang, "Hide the twin")}>{ "✕" }</button>
                } } }
            </h3>
            { if h.is_run { cluster::cluster(p) } else { cluster::twin_cluster(p) } }
            <ul class="half-lines" aria-label={t!(lang, "What this half shows")}>{ for lines }</ul>
        </div>
    }
}

/// In a lesson that has a safe twin but hides it: the button that shows it again.
pub fn show_twin(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    match page.twin_offer() {
        Some(name) => html! {
            <button id="show-twin" onclick={send(p, Command::Compare(Some(name)))}>{ t!(page.lang, "Show the safe twin") }</button>
        },
        None => html! {},
    }
}
