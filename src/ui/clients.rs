//! The clients (what each is doing and what it believes it holds, on its own clock with its
//! margin; acquire, release, pause, crash, disconnect by hand) and the fenced storage's writes.

use super::props::{send, PanelProps};
use crate::model::focus;
use crate::model::text::fmt_us;
use crate::model::Command;
use crate::scenario::Action;
use crate::sim::World;
use yew::prelude::*;

fn actions(w: &World, c: usize, p: &PanelProps) -> Html {
    let slot = &w.clients[c];
    let name = slot.client.cfg.name.clone();
    let connected = (0..w.n).any(|q| w.net.is_up(w.n + slot.client.id as usize, q));
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
    html! {
        <td class="actions">
            <button onclick={send(p, Command::Act(Action::ClientAcquire { client: client(), key: "k".into(), lease_ms: 1500 }))}
                aria-label={format!("{name} acquires k")} disabled={by_hand}>{ "Acquire k" }</button>
            <button onclick={send(p, Command::Act(Action::ClientRelease { client: client(), key: "k".into() }))}
                aria-label={format!("{name} releases k")} disabled={by_hand}>{ "Release k" }</button>
            <button onclick={send(p, Command::Act(pause))}>{ if slot.paused { "Resume" } else { "Pause" } }</button>
            <button onclick={send(p, Command::Act(crash))}>{ if slot.crashed { "Restart" } else { "Crash" } }</button>
            <button onclick={send(p, Command::Act(conn))}>{ if connected { "Disconnect" } else { "Reconnect" } }</button>
        </td>
    }
}

pub fn clients(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let w = &page.pg.world;
    let focus = focus::current(&page);
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
                    format!("holds {k} #{} for {} more", h.token, fmt_us(h.until_local_us - local))
                } else {
                    format!("its lease on {k} #{} ran out", h.token)
                }
            })
            .collect::<Vec<_>>()
            .join("; ");
        let state = if slot.crashed { "crashed".to_string() } else { crate::snapshot::client_state(&slot.client) };
        html! {
            <tr id={format!("client-row-{name}")} class={classes!(focus.client(&name).then_some("focus"))}>
                <th scope="row" title="what it believes is on its own clock, with its safety margin">{ name.clone() }</th>
                <td>{ format!("{state}{}", if slot.paused { " (paused)" } else { "" }) }</td>
                <td>{ if belief.is_empty() { "holds nothing".to_string() } else { belief } }</td>
                { if tools { actions(w, c, p) } else { html! {} } }
            </tr>
        }
    });
    html! {
        <section class="panel clients-panel" aria-label="Clients" id="clients-panel">
            <h2>{ "Clients" }</h2>
            <table class={classes!("clients", tools.then_some("with-actions"))}>
                <thead><tr><th>{ "client" }</th><th>{ "doing" }</th><th>{ "believes" }</th>
                    { if tools { html! { <th>{ "actions" }</th> } } else { html! {} } }</tr></thead>
                <tbody>{ for rows }</tbody>
            </table>
        </section>
    }
}

pub fn storage(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let w = &page.pg.world;
    let focus = focus::current(&page);
    let shown = if page.in_lesson() { 4 } else { 8 };
    let rows = w.storage.writes.iter().rev().take(shown).map(|x| {
        let who = w.client_name(x.client);
        let class = classes!(if x.accepted { "accepted" } else { "rejected" }, focus.client(&who).then_some("focus"));
        html! {
            <li class={class}>
                <time>{ fmt_us(x.t_us as i64) }</time>
                { format!(" {who} wrote {} with token {}: {}", x.key, x.token, if x.accepted { "✓ accepted" } else { "✗ rejected (stale token)" }) }
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
    let mode = if w.storage.ignores_tokens {
        "ignores tokens"
    } else {
        "fenced"
    };
    html! {
        <section class={classes!("panel", "storage-panel", focus.storage.then_some("focus"))} aria-label="Storage" id="storage-panel">
            <h2>{ format!("Storage ({mode})") }<small>{ format!(" · highest token seen {}", if highest.is_empty() { "none".into() } else { highest }) }</small></h2>
            <ul class="storage-writes">
                { for rows }
                { if w.storage.writes.is_empty() { html! { <li class="none">{ "no writes yet" }</li> } } else { html! {} } }
            </ul>
        </section>
    }
}
