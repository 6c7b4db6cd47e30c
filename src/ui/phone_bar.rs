//! A phone's compact bar: Play, the time and, in a lesson, Back, the step and Next, kept at the
//! bottom of the screen while the reader scrolls (the full bar at the top scrolls away). Wider
//! windows never show it (the stylesheet hides it above a phone's width).

use super::props::{send, PanelProps};
use crate::lang::t;
use crate::model::text::fmt_us;
use crate::model::{lesson, Command};
use yew::prelude::*;

pub fn phone_bar(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let lang = page.lang;
    let now = page.now_us() as i64;
    let lesson = page.lesson_view();
    html! {
        <nav class="phone-bar" id="phone-bar" aria-label={t!(lang, "Play and the lesson, kept on screen")}>
            <button id="phone-play" class="primary" onclick={send(p, Command::TogglePlay)} aria-pressed={page.playing.to_string()}
                aria-label={if page.playing { t!(lang, "Pause") } else { t!(lang, "Play") }}>
                { super::controls::play_icon(page.playing) }
            </button>
            // A span, not an output: an output is a live region, and this changes every frame.
            <span class="phone-now" id="phone-now">{ fmt_us(now, lang) }</span>
            { for lesson.map(|v| {
                let (step, steps) = lesson::step_label(v.pos, v.count);
                let (label, enabled) = v.button.clone();
                html! { <>
                    <button id="phone-back" disabled={v.pos == 0} onclick={send(p, Command::LessonBack)} aria-label={t!(lang, "← Back")}>{ "←" }</button>
                    <span class="phone-step" id="phone-step">{ format!("{step}/{steps}") }</span>
                    <button id="phone-next" class="primary" disabled={!enabled} onclick={send(p, Command::LessonNext)}>{ label }</button>
                </> }
            }) }
        </nav>
    }
}
