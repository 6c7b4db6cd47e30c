//! The sixteen invariants, green until one breaks, and the clients' history check.

use super::props::{send, PanelProps};
use crate::lang::t;
use crate::model::invariants::{rows, verdict, Verdict};
use crate::model::Command;
use yew::prelude::*;

pub fn invariants(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let lang = page.lang;
    let items = rows(&page.playground.world, lang).into_iter().map(|r| {
        html! {
            <li class={r.standing.class()} id={format!("inv-{}", r.name)}>
                { r.standing.mark() }{ r.label }
                { r.violations }
                { r.unchecked }
            </li>
        }
    });
    let verdict = match verdict(&page.history, lang) {
        None => html! {},
        Some(Verdict::NotChecked(text)) => html! { <p id="history-verdict">{ text }</p> },
        Some(Verdict::Linearizable(text)) => {
            html! { <p id="history-verdict" class="ok">{ text }</p> }
        }
        Some(Verdict::Fails { text, show_at_us }) => html! {
            <p id="history-verdict" class="broken">
                { text }
                <button id="history-show" onclick={send(p, Command::Seek(show_at_us))}>{ t!(lang, "Show it on the diagram") }</button>
            </p>
        },
    };
    html! {
        <>
            <ul class="invariants">{ for items }</ul>
            <div class="history">
                <button id="check-history" onclick={send(p, Command::CheckHistory)} disabled={page.history.running.is_some()}>
                    { if page.history.running.is_some() { t!(lang, "Checking the clients' history…") } else { t!(lang, "Check the clients' history") } }
                </button>
                { verdict }
            </div>
        </>
    }
}
