//! "What happened": the latest trace lines in plain words.

use super::props::PanelProps;
use crate::model::text::{describe, fmt_us};
use crate::trace::Event as TraceEvent;
use yew::prelude::*;

pub fn events(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let w = &page.playground.world;
    let lang = page.lang;
    let lines: Vec<Html> = w
        .trace
        .lines
        .iter()
        .rev()
        .filter_map(|l| describe(w, &l.ev, lang).map(|d| (l.t_us, d, matches!(l.ev, TraceEvent::Violation { .. }))))
        .take(14)
        .map(|(t, d, bad)| html! { <li class={classes!(bad.then_some("bad"))}><time>{ fmt_us(t as i64, lang) }</time>{ " " }{ d }</li> })
        .collect();
    // Announced while paused or stepping; while playing the list changes many times a second,
    // which a screen reader would read out without end.
    let live = if page.playing { "off" } else { "polite" };
    html! { <ol class="events" reversed=true aria-live={live}>{ for lines }</ol> }
}
