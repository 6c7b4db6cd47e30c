//! The configuration heading over the cluster, once a run has changed its membership.

use super::props::PanelProps;
use crate::model::membership::MembershipView;
use yew::prelude::*;

pub fn heading(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    match MembershipView::of(&page.playground.world, page.lang).heading {
        Some(h) => html! { <p class="config" id="config" aria-live="polite">{ h }</p> },
        None => html! {},
    }
}
