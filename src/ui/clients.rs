//! The clients (what each is doing and what it believes it holds, on its own clock with its
//! margin; acquire, release, pause, crash, disconnect by hand) and the fenced storage's writes.

use super::props::{send, PanelProps};
use crate::lang::{t, Lang};
use crate::model::clients::{rows, ClientRow, StorageView};
use crate::model::{Action, Command};
use yew::prelude::*;

fn actions(row: &ClientRow, p: &PanelProps, lang: Lang) -> Html {
    let name = row.name.clone();
    let client = || name.clone();
    let pause = if row.paused {
        Action::ClientResume { client: client() }
    } else {
        Action::ClientPause { client: client() }
    };
    let crash = if row.crashed {
        Action::ClientRestart { client: client() }
    } else {
        Action::ClientCrash { client: client() }
    };
    let conn = if row.connected {
        Action::ClientDisconnect { client: client() }
    } else {
        Action::ClientReconnect { client: client() }
    };
    let by_hand = row.scripted;
    // A disabled control says why, on the page (one line under the table) and to a screen reader.
    let described = by_hand.then_some("clients-why");
    html! {
        <td class="actions">
            <button onclick={send(p, Command::Act(Action::ClientAcquire { client: client(), key: "k".into(), lease_ms: 1500 }))}
                aria-label={t!(lang, "Acquire k: client {name}")} aria-describedby={described} disabled={by_hand}>{ t!(lang, "Acquire k") }</button>
            <button onclick={send(p, Command::Act(Action::ClientRelease { client: client(), key: "k".into() }))}
                aria-label={t!(lang, "Release k: client {name}")} aria-describedby={described} disabled={by_hand}>{ t!(lang, "Release k") }</button>
            <button onclick={send(p, Command::Act(pause))}>{ if row.paused { t!(lang, "Resume") } else { t!(lang, "Pause") } }</button>
            <button onclick={send(p, Command::Act(crash))}>{ if row.crashed { t!(lang, "Restart") } else { t!(lang, "Crash") } }</button>
            <button onclick={send(p, Command::Act(conn))}>{ if row.connected { t!(lang, "Disconnect") } else { t!(lang, "Reconnect") } }</button>
        </td>
    }
}

pub fn clients(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let focus = page.focus();
    let lang = page.lang;
    // In a lesson the table only reports; the buttons are tools.
    let tools = !page.in_lesson() || page.tools_open;
    let rows = rows(&page.playground.world, lang);
    let cells = rows.iter().map(|row| {
        html! {
            <tr id={format!("client-row-{}", row.name)} class={classes!(focus.client(&row.name).then_some("focus"))}>
                <th scope="row" title={t!(lang, "what it believes is on its own clock, with its safety margin")}>{ row.name.clone() }
                    // A client whose own clock is not true time says what it reads.
                    { if let Some(clock) = &row.clock { html! {
                        <small class="client-clock">{ clock.clone() }</small>
                    } } else { html! {} } }</th>
                <td>{ row.doing.clone() }</td>
                <td>{ row.believes.clone() }</td>
                { if tools { actions(row, p, lang) } else { html! {} } }
            </tr>
        }
    });
    html! {
        <section class="panel clients-panel" aria-label={t!(lang, "Clients")} id="clients-panel">
            <h2>{ t!(lang, "Clients") }</h2>
            <table class={classes!("clients", tools.then_some("with-actions"))}>
                <thead><tr><th>{ t!(lang, "client") }</th><th>{ t!(lang, "doing") }</th><th>{ t!(lang, "believes") }</th>
                    { if tools { html! { <th>{ t!(lang, "actions") }</th> } } else { html! {} } }</tr></thead>
                <tbody>{ for cells }</tbody>
            </table>
            // Why some clients' Acquire and Release are disabled: one line for all of them.
            { {
                let by_script: Vec<&str> = rows.iter().filter(|r| r.scripted).map(|r| r.name.as_str()).collect();
                if tools && !by_script.is_empty() { html! {
                    <p class="why" id="clients-why">{ t!(lang, "Repeating their own script, these clients take no requests by hand: {}.", by_script.join(", ")) }</p>
                } } else { html! {} }
            } }
        </section>
    }
}

pub fn storage(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let focus = page.focus();
    let lang = page.lang;
    let shown = if page.in_lesson() { 4 } else { 8 };
    let s = StorageView::of(&page.playground.world, shown, lang);
    let rows = s.writes.iter().map(|x| {
        let class = classes!(
            if x.accepted { "accepted" } else { "rejected" },
            focus.client(&x.who).then_some("focus")
        );
        html! {
            <li class={class}>
                <time>{ x.time.clone() }</time>
                { " " }{ x.text.clone() }
            </li>
        }
    });
    html! {
        <section class={classes!("panel", "storage-panel", focus.storage.then_some("focus"))} aria-label={t!(lang, "Storage")} id="storage-panel">
            <h2>{ s.title.clone() }<small>{ s.seen.clone() }</small></h2>
            <ul class="storage-writes">
                { for rows }
                { if s.writes.is_empty() { html! { <li class="none">{ t!(lang, "no writes yet") }</li> } } else { html! {} } }
            </ul>
        </section>
    }
}
