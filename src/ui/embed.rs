//! The player a course page embeds (`#embed/…`, see `model::embed`): a bar with play, the time
//! and a link to the whole page; the lesson's caption with Back and Next; the cluster; and the
//! one side panel the caption is about.

use super::props::{send, Panel, PanelProps};
use super::{clients, cluster, dialogs, lesson, locks, log};
use crate::lang::t;
use crate::model::focus::Side;
use crate::model::text::fmt_us;
use crate::model::Command;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The player's bar. Drawn on settled versions (commands, not frames): the link is made again
/// at the click, at the moment the run has reached (while it plays too).
pub fn bar(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let full = page.share_link();
    let lang = page.lang;
    let shared = p.page.clone();
    let at_click = Callback::from(move |e: MouseEvent| {
        let url = shared.borrow().share_link();
        if let Some(a) = e
            .current_target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlAnchorElement>().ok())
        {
            a.set_href(&url);
        }
    });
    html! {
        <header class="embed-bar" role="group" aria-label={t!(lang, "Player")}>
            <strong class="brand">{ "raftlock" }</strong>
            <button id="play" class="primary" onclick={send(p, Command::TogglePlay)} aria-pressed={page.playing.to_string()}>
                { if page.playing { t!(lang, "Pause") } else { t!(lang, "Play") } }</button>
            <a id="open-full" href={full} onclick={at_click} target="_blank" rel="noopener" title={t!(lang, "This run at this moment, with every panel and tool")}>{ t!(lang, "Open in full ↗") }</a>
        </header>
    }
}

/// The run's time (drawn every frame).
pub fn clock(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    html! { <span class="embed-time" id="time">{ fmt_us(page.playground.now_us() as i64, page.lang) }</span> }
}

/// The side panel the caption names (the lock view when it names none).
pub fn side(p: &PanelProps) -> Html {
    let which = p.page.borrow().focus().side();
    match which {
        Side::Locks => locks::lock_view(p),
        Side::Log => log::log_focus(p),
        Side::Storage => clients::storage(p),
        Side::Clients => clients::clients(p),
    }
}

/// The player's page: its bar and time, messages and progress, the lesson, the cluster and the
/// one side panel. `props(version)` gives a panel's props at that version.
pub fn page(page: &crate::model::Page, props: impl Fn(u64) -> PanelProps) -> Html {
    let (v, settled) = (page.version, page.settled);
    let panel = |draw: super::props::Draw, panel: PanelProps| html! { <Panel {panel} {draw} /> };
    html! {
        <div class={classes!("page", "embed", page.presenter.then_some("presenter"))}>
            <div class="embed-top">
                { panel(bar, props(settled)) }
                { panel(clock, props(v)) }
            </div>
            { panel(dialogs::banners, props(settled)) }
            { panel(dialogs::progress, props(v + page.jobs.tick)) }
            // While a question is asked, the lesson and the cluster stand side by side: stacked,
            // the question would leave the cluster a strip too thin to read.
            <div class={classes!("embed-body", page.open_question().is_some().then_some("asking"))}>
            { if page.in_lesson() { panel(lesson::lesson_panel, props(v)) } else { html! {} } }
            <div class={classes!("embed-stage", page.twin.is_some().then_some("with-twin"))}>
                { if page.twin.is_some() { html! {
                    <section class="panel cluster-panel twin" aria-label={t!(page.lang, "The run and its safe twin")}>
                        <div class="halves">
                            { panel(super::twin::run_half, props(v)) }
                            { panel(super::twin::twin_half, props(v)) }
                        </div>
                    </section>
                } } else { html! {
                    <section class="panel cluster-panel" aria-label={t!(page.lang, "Cluster")}>
                        { panel(cluster::cluster, props(v)) }
                    </section>
                } } }
                <div class="side">{ panel(side, props(v)) }</div>
            </div>
            </div>
        </div>
    }
}
