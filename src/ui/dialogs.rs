//! Messages and dialogs: the error and violation banners, the keyboard help, and the list of
//! every built-in scenario (deep link `#scenarios`).

use super::props::{send, PanelProps};
use crate::lang::t;
use crate::model::catalog::{catalog, story, title_or_name, Story};
use crate::model::job::{JobCommand, JobKind};
use crate::model::{Command, Russian};
use yew::prelude::*;

pub fn banners(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let lang = page.lang;
    html! {
        <>
        { if let Some(e) = &page.error { html! {
            <div class="banner error" role="alert" id="error">{ e.clone() }
                <button onclick={send(p, Command::DismissError)} aria-label={t!(lang, "Dismiss")}>{ "✕" }</button></div>
        } } else { html! {} } }
        { if let Russian::Failed(e) = &page.russian { html! {
            <div class="banner error" role="alert" id="russian-error">{ e.clone() }
                <button onclick={send(p, Command::DismissRussian)} aria-label={t!(lang, "Dismiss")}>{ "✕" }</button></div>
        } } else { html! {} } }
        { if let Some(name) = &page.library.loading { html! {
            <div class="banner progress" role="status" id="loading-lesson">
                <progress aria-label={t!(lang, "Loading the lesson")} />
                <span>{ t!(lang, "Loading the lesson “{}”…", title_or_name(name, lang)) }</span>
            </div>
        } } else { html! {} } }
        { if let Some(v) = &page.stopped_at { html! {
            <div class="banner violation" role="alert" id="violation">{ t!(lang, "Paused at a broken invariant: {v}") }</div>
        } } else { html! {} } }
        </>
    }
}

/// Long work in progress: a bar per job (how far, how fast, how long still) with Cancel; a
/// link that would take long is announced first; a cancelled replay can go on.
pub fn progress(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let lang = page.lang;
    let announce = match page.announcement() {
        Some(text) => html! {
            <div class="banner announce" role="alertdialog" id="announce" aria-label={t!(lang, "Long replay")}>
                <span>{ text }</span>
                <button id="job-go" class="primary" onclick={send(p, Command::Job(JobCommand::Go))}>{ t!(lang, "Replay it") }</button>
                <button id="job-at-start" onclick={send(p, Command::Job(JobCommand::AtStart))}>{ t!(lang, "Open at the start") }</button>
            </div>
        },
        None => html! {},
    };
    let bars = page.progress().into_iter().filter(|g| g.announced.is_none()).map(|g| {
        let id = match g.kind {
            JobKind::History => "check-progress",
            JobKind::Lesson => "lesson-progress",
            JobKind::TraceRead => "read-progress",
            _ => "job-progress",
        };
        let cancel = g.kind.cancel();
        if g.stopped {
            return html! {
                <div class="banner progress" role="status" id="job-stopped">
                    <span>{ t!(lang, "Stopped: {}.", g.reached) }</span>
                    <button id="job-go" onclick={send(p, Command::Job(JobCommand::Go))}>{ t!(lang, "Go on") }</button>
                    <button onclick={send(p, Command::Job(JobCommand::Cancel))} aria-label={t!(lang, "Dismiss")}>{ "✕" }</button>
                </div>
            };
        }
        html! {
            <div class="banner progress" role="status" {id}>
                <progress max="1000" value={((g.fraction * 1000.0) as u32).to_string()} aria-label={g.kind.label(lang)} />
                <span class="progress-line">{ g.line(lang) }</span>
                { match cancel {
                    Some(c) => html! { <button class="job-cancel" onclick={send(p, Command::Job(c))}>{ t!(lang, "Cancel") }</button> },
                    None => html! {},
                } }
            </div>
        }
    });
    html! { <>{ announce }{ for bars }</> }
}

/// The scenario list page (deep link `#scenarios`): every built-in with its story and a link.
pub fn scenario_list(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let lang = page.lang;
    let catalog = catalog(lang);
    let cards = |break_it: bool| {
        catalog.iter().filter(move |e| e.break_it == break_it).map(|e| {
        let (name, n) = (e.name, e.name.to_string());
        let title = e.title.clone().unwrap_or_else(|| t!(lang, "Free play").to_string());
        // The stories come with the documents (fetched when the list opens).
        let story = match story(&page.library, name, lang) {
            Story::Here { text, facts } => html! { <>
                <p>{ text }</p>
                <small>{ facts }</small>
            </> },
            Story::Failed(why) => html! { <p class="failed">{ t!(lang, "Its file could not be loaded: {why}.") }</p> },
            Story::Coming => html! { <p class="coming">{ t!(lang, "Loading…") }</p> },
        };
        html! {
            <li class={classes!("card", e.break_it.then_some("break"))}>
                <h3><a href={format!("#scenario={name}")} onclick={p.send.reform(move |e: MouseEvent| { e.prevent_default(); Command::LoadBuiltin(n.clone()) })}>{ title }</a></h3>
                { story }
            </li>
        }
    })
    };
    html! {
        <div class="overlay list" role="dialog" aria-label={t!(lang, "All scenarios")}>
            <div class="dialog wide">
                <div class="dialog-head">
                    <h2>{ t!(lang, "Scenarios") }</h2>
                    <button id="close-list" onclick={send(p, Command::ScenarioList(false))} aria-label={t!(lang, "Close")}>{ "✕" }</button>
                </div>
                <div id="scenario-list">
                    <h3>{ t!(lang, "Lessons") }</h3>
                    <ul class="cards">{ for cards(false) }</ul>
                    <h3>{ t!(lang, "Break it: one safeguard off, one invariant turns red") }</h3>
                    <ul class="cards">{ for cards(true) }</ul>
                </div>
            </div>
        </div>
    }
}

pub fn help(p: &PanelProps) -> Html {
    let lang = p.page.borrow().lang;
    html! {
        <div class="overlay" role="dialog" aria-label={t!(lang, "Keyboard shortcuts")} onclick={send(p, Command::Help(false))}>
            <div class="dialog">
                <h2>{ t!(lang, "Keyboard shortcuts") }</h2>
                <dl>
                    <dt>{ "Space" }</dt><dd>{ t!(lang, "play / pause") }</dd>
                    <dt>{ "→" }</dt><dd>{ t!(lang, "step one event") }</dd>
                    <dt>{ "←" }</dt><dd>{ t!(lang, "step back") }</dd>
                    <dt>{ "a" }</dt><dd>{ t!(lang, "run to the next apply") }</dd>
                    <dt>{ "t" }</dt><dd>{ t!(lang, "take over from here (discard the future)") }</dd>
                    <dt>{ "n" }</dt><dd>{ t!(lang, "lesson: next caption") }</dd>
                    <dt>{ "b" }</dt><dd>{ t!(lang, "lesson: back to the previous caption") }</dd>
                    <dt>{ "1–5" }</dt><dd>{ t!(lang, "lesson: answer the question asked") }</dd>
                    <dt>{ "r" }</dt><dd>{ t!(lang, "presenter mode: reveal the question's answer") }</dd>
                    <dt>{ "p" }</dt><dd>{ t!(lang, "presenter mode (large type, one screen)") }</dd>
                    <dt>{ "?" }</dt><dd>{ t!(lang, "show or hide this help") }</dd>
                    <dt>{ "Esc" }</dt><dd>{ t!(lang, "close messages") }</dd>
                </dl>
            </div>
        </div>
    }
}
