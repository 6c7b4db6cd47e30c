//! The clients (what each is doing and what it believes it holds, on its own clock with its
//! margin; acquire, release, pause, crash, disconnect by hand) and the fenced storage's writes.

use super::props::{send, PanelProps};
use crate::lang::{t, Lang};
use crate::model::text::fmt_us;
use crate::model::Command;
use crate::scenario::Action;
use crate::sim::World;
use yew::prelude::*;

fn actions(w: &World, c: usize, p: &PanelProps, lang: Lang) -> Html {
    let slot = &w.clients[c];
    let name = slot.client.cfg.name.clone();
    let connected =
        (0..w.node_count).any(|q| w.net.is_up(w.node_count + slot.client.id as usize, q));
    let client = || name.clone();
    let pause = if slot.paused {
        Action::ClientResume { client: client() }
    } else {
        Action::ClientPause { client: client() }
    };
    let crash = if slot.crashed {
        Action::ClientRestart { client: client() }
    } else {
        Action::ClientCrash { client: client() }
    };
    let conn = if connected {
        Action::ClientDisconnect { client: client() }
    } else {
        Action::ClientReconnect { client: client() }
    };
    let by_hand = slot.client.cfg.repeat;
    // A disabled control says why, on the page (one line under the table) and to a screen reader.
    let described = by_hand.then_some("clients-why");
    html! {
        <td class="actions">
            <button onclick={send(p, Command::Act(Action::ClientAcquire { client: client(), key: "k".into(), lease_ms: 1500 }))}
                aria-label={t!(lang, "Acquire k: client {name}")} aria-describedby={described} disabled={by_hand}>{ t!(lang, "Acquire k") }</button>
            <button onclick={send(p, Command::Act(Action::ClientRelease { client: client(), key: "k".into() }))}
                aria-label={t!(lang, "Release k: client {name}")} aria-describedby={described} disabled={by_hand}>{ t!(lang, "Release k") }</button>
            <button onclick={send(p, Command::Act(pause))}>{ if slot.paused { t!(lang, "Resume") } else { t!(lang, "Pause") } }</button>
            <button onclick={send(p, Command::Act(crash))}>{ if slot.crashed { t!(lang, "Restart") } else { t!(lang, "Crash") } }</button>
            <button onclick={send(p, Command::Act(conn))}>{ if connected { t!(lang, "Disconnect") } else { t!(lang, "Reconnect") } }</button>
        </td>
    }
}

pub fn clients(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let w = &page.playground.world;
    let focus = page.focus();
    let lang = page.lang;
    // In a lesson the table only reports; the buttons are tools.
    let tools = !page.in_lesson() || page.tools_open;
    let rows = w.clients.iter().enumerate().map(|(c, slot)| {
        let name = slot.client.cfg.name.clone();
        let local = slot.clock.local_at(w.now_us);
        let belief = slot
            .client
            .held
            .iter()
            .map(|(k, h)| {
                if h.until_local_us > local {
                    t!(lang, "holds {k} #{token} for {left} more", token = h.token, left = fmt_us(h.until_local_us - local, lang))
                } else {
                    t!(lang, "its lease on {k} #{token} ran out", token = h.token)
                }
            })
            .collect::<Vec<_>>()
            .join("; ");
        let state = if slot.crashed { t!(lang, "crashed").to_string() } else { crate::snapshot::client_state(&slot.client, lang) };
        html! {
            <tr id={format!("client-row-{name}")} class={classes!(focus.client(&name).then_some("focus"))}>
                <th scope="row" title={t!(lang, "what it believes is on its own clock, with its safety margin")}>{ name.clone() }
                    // A client whose own clock is not true time says what it reads.
                    { if (local - w.now_us as i64).abs() >= 1000 { html! {
                        <small class="client-clock">{ t!(lang, "clock {t}", t = fmt_us(local, lang)) }</small>
                    } } else { html! {} } }</th>
                <td>{ if slot.paused { t!(lang, "{state} (paused)") } else { state } }</td>
                <td>{ if belief.is_empty() { t!(lang, "holds nothing").to_string() } else { belief } }</td>
                { if tools { actions(w, c, p, lang) } else { html! {} } }
            </tr>
        }
    });
    html! {
        <section class="panel clients-panel" aria-label={t!(lang, "Clients")} id="clients-panel">
            <h2>{ t!(lang, "Clients") }</h2>
            <table class={classes!("clients", tools.then_some("with-actions"))}>
                <thead><tr><th>{ t!(lang, "client") }</th><th>{ t!(lang, "doing") }</th><th>{ t!(lang, "believes") }</th>
                    { if tools { html! { <th>{ t!(lang, "actions") }</th> } } else { html! {} } }</tr></thead>
                <tbody>{ for rows }</tbody>
            </table>
            // Why some clients' Acquire and Release are disabled: one line for all of them.
            { {
                let by_script: Vec<&str> = w.clients.iter().filter(|s| s.client.cfg.repeat).map(|s| s.client.cfg.name.as_str()).collect();
                if tools && !by_script.is_empty() { html! {
                    <p class="why" id="clients-why">{ t!(lang, "Repeating their own script, these clients take no requests by hand: {}.", by_script.join(", ")) }</p>
                } } else { html! {} }
            } }
        </section>
    }
}

pub fn storage(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let w = &page.playground.world;
    let focus = page.focus();
    let lang = page.lang;
    let shown = if page.in_lesson() { 4 } else { 8 };
    let rows = w.storage.writes.iter().rev().take(shown).map(|x| {
        let who = w.client_name(x.client);
        let class = classes!(if x.accepted { "accepted" } else { "rejected" }, focus.client(&who).then_some("focus"));
        html! {
            <li class={class}>
                <time>{ fmt_us(x.t_us as i64, lang) }</time>
                { " " }{ if x.accepted {
                    t!(lang, "{who} wrote {key} with token {token}: ✓ accepted", key = x.key, token = x.token)
                } else {
                    t!(lang, "{who} wrote {key} with token {token}: ✗ rejected (stale token)", key = x.key, token = x.token)
                } }
            </li>
        }
    });
    let highest = w
        .storage
        .highest
        .iter()
        .map(|(k, t)| format!("{k}={t}"))
        .collect::<Vec<_>>()
        .join(", ");
    let title = if w.storage.ignores_tokens {
        t!(lang, "Storage (ignores tokens)")
    } else {
        t!(lang, "Storage (fenced)")
    };
    let seen = if highest.is_empty() {
        t!(lang, " · highest token seen none").to_string()
    } else {
        t!(lang, " · highest token seen {highest}")
    };
    html! {
        <section class={classes!("panel", "storage-panel", focus.storage.then_some("focus"))} aria-label={t!(lang, "Storage")} id="storage-panel">
            <h2>{ title }<small>{ seen }</small></h2>
            <ul class="storage-writes">
                { for rows }
                { if w.storage.writes.is_empty() { html! { <li class="none">{ t!(lang, "no writes yet") }</li> } } else { html! {} } }
            </ul>
        </section>
    }
}
