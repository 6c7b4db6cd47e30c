//! "What happened": the latest trace lines in plain words.

use super::props::PanelProps;
use crate::model::events::latest;
use yew::prelude::*;

pub fn events(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let lines = latest(&page.playground.world, 14, page.lang).into_iter().map(|r| {
        html! { <li class={classes!(r.violation.then_some("bad"))}><time>{ r.time }</time>{ " " }{ r.text }</li> }
    });
    // Announced while paused or stepping; while playing the list changes many times a second,
    // which a screen reader would read out without end.
    let live = if page.playing { "off" } else { "polite" };
    html! { <ol class="events" reversed=true aria-live={live}>{ for lines }</ol> }
}
