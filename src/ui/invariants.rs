//! The fourteen invariants, green until one breaks, and the clients' history check.

use super::props::{send, PanelProps};
use crate::check::INVARIANTS;
use crate::lang::t;
use crate::model::text::{fmt_us, invariant_label};
use crate::model::Command;
use yew::prelude::*;

pub fn invariants(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let w = &page.playground.world;
    let lang = page.lang;
    let items = INVARIANTS.iter().map(|&inv| {
        let name = inv.name();
        let n = w.checker().broken.get(&inv).copied().unwrap_or(0);
        let why = crate::check::unchecked_why(w, inv);
        let checked = why.is_none();
        let (class, mark) = match (n, checked) {
            (0, false) => ("unchecked", "– "),
            (0, true) => ("ok", "✓ "),
            _ => ("broken", "✗ "),
        };
        html! {
            <li class={class} id={format!("inv-{name}")}>
                { mark }{ invariant_label(inv, lang) }
                { if n > 0 { t!(lang, " — {n} violation(s)") } else { String::new() } }
                { why.map(|why| t!(lang, " — not checked: {why}", why = why.get(lang))).unwrap_or_default() }
            </li>
        }
    });
    let verdict = match page
        .history
        .last
        .as_ref()
        .map(|(t, v)| (*t as i64, v.as_deref()))
    {
        None => html! {},
        Some((t, None)) => {
            html! { <p id="history-verdict">{ t!(lang, "At {time}: not checked — server clocks drifted or jumped, so lease expiry says nothing about true time.", time = fmt_us(t, lang)) }</p> }
        }
        Some((t, Some(Ok(holds)))) => {
            html! { <p id="history-verdict" class="ok">{ t!(lang, "✓ At {time}: what the clients saw is linearizable as a mutex with leases ({holds} holds, in token order; drawn on the space-time diagram as bars on the client lanes).", time = fmt_us(t, lang), holds = holds.len()) }</p> }
        }
        Some((t, Some(Err(e)))) => html! {
            <p id="history-verdict" class="broken">
                { t!(lang, "✗ At {time}: not linearizable as a mutex. The shortest failing prefix ends at {end}: {e}. ", time = fmt_us(t, lang), end = fmt_us(e.at_us as i64, lang), e = e.message_in(lang)) }
                <button id="history-show" onclick={send(p, Command::Seek(e.at_us + 300_000))}>{ t!(lang, "Show it on the diagram") }</button>
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
