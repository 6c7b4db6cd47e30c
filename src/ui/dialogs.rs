//! Messages and dialogs: the error and violation banners, the keyboard help, and the list of
//! every built-in scenario (deep link `#scenarios`).

use super::props::{send, PanelProps};
use crate::model::Command;
use yew::prelude::*;

pub fn banners(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    html! {
        <>
        { if let Some(e) = &page.error { html! {
            <div class="banner error" role="alert" id="error">{ e.clone() }
                <button onclick={send(p, Command::DismissError)} aria-label="Dismiss">{ "✕" }</button></div>
        } } else { html! {} } }
        { if let Some(v) = &page.stopped_at { html! {
            <div class="banner violation" role="alert" id="violation">{ format!("Paused at a broken invariant: {v}") }</div>
        } } else { html! {} } }
        </>
    }
}

/// The scenario list page (deep link `#scenarios`): every built-in with its story and a link.
pub fn scenario_list(p: &PanelProps) -> Html {
    let cards = |break_it: bool| {
        crate::scenario::builtin::names().filter(move |n| crate::scenario::builtin::is_break_it(n) == break_it).map(|name| {
        let sc = crate::scenario::builtin::get(name).expect("built-ins are valid");
        let title = sc.lesson.as_ref().map_or("Free play".to_string(), |l| l.title.clone());
        let n = name.to_string();
        html! {
            <li class={classes!("card", crate::scenario::builtin::is_break_it(name).then_some("break"))}>
                <h3><a href={format!("#scenario={name}")} onclick={p.send.reform(move |e: MouseEvent| { e.prevent_default(); Command::LoadBuiltin(n.clone()) })}>{ title }</a></h3>
                <p>{ sc.description.clone() }</p>
                <small>{ format!("{name} · {} nodes · {} clients · {} s", sc.nodes, sc.clients.len(), sc.until_ms / 1000) }</small>
            </li>
        }
    })
    };
    html! {
        <div class="overlay list" role="dialog" aria-label="All scenarios">
            <div class="dialog wide">
                <div class="dialog-head">
                    <h2>{ "Scenarios" }</h2>
                    <button id="close-list" onclick={send(p, Command::ScenarioList(false))} aria-label="Close">{ "✕" }</button>
                </div>
                <div id="scenario-list">
                    <h3>{ "Lessons" }</h3>
                    <ul class="cards">{ for cards(false) }</ul>
                    <h3>{ "Break it: one safeguard off, one invariant turns red" }</h3>
                    <ul class="cards">{ for cards(true) }</ul>
                </div>
            </div>
        </div>
    }
}

pub fn help(p: &PanelProps) -> Html {
    html! {
        <div class="overlay" role="dialog" aria-label="Keyboard shortcuts" onclick={send(p, Command::Help(false))}>
            <div class="dialog">
                <h2>{ "Keyboard shortcuts" }</h2>
                <dl>
                    <dt>{ "Space" }</dt><dd>{ "play / pause" }</dd>
                    <dt>{ "→" }</dt><dd>{ "step one event" }</dd>
                    <dt>{ "←" }</dt><dd>{ "step back" }</dd>
                    <dt>{ "a" }</dt><dd>{ "run to the next apply" }</dd>
                    <dt>{ "t" }</dt><dd>{ "take over from here (discard the future)" }</dd>
                    <dt>{ "n" }</dt><dd>{ "lesson: next caption" }</dd>
                    <dt>{ "b" }</dt><dd>{ "lesson: back to the previous caption" }</dd>
                    <dt>{ "1–5" }</dt><dd>{ "lesson: answer the question asked" }</dd>
                    <dt>{ "r" }</dt><dd>{ "presenter mode: reveal the question's answer" }</dd>
                    <dt>{ "p" }</dt><dd>{ "presenter mode (large type, one screen)" }</dd>
                    <dt>{ "?" }</dt><dd>{ "show or hide this help" }</dd>
                    <dt>{ "Esc" }</dt><dd>{ "close messages" }</dd>
                </dl>
            </div>
        </div>
    }
}
