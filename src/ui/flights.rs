//! The messages in flight on the cluster's drawing, each in its place while it flies
//! ([`FlightPlaces`]) and drawn where the run has it.

use super::ring::{endpoint_pos, offset_line};
use crate::model::motion::{flight_at, messages_due, FlightPlaces};
use crate::model::text::{kind_letter, num};
use crate::model::{speed_of, Page};
use crate::sim::World;
use yew::prelude::*;

thread_local! {
    /// The places of the messages in flight, for the run's drawing and its twin's.
    static PLACES: std::cell::RefCell<[FlightPlaces; 2]> = std::cell::RefCell::default();
}

/// The messages in flight, each in its place ([`FlightPlaces`]), where the run has it.
pub fn messages(w: &World, ids: &str, page: &Page) -> Html {
    let n = w.node_count;
    PLACES.with_borrow_mut(|places| {
        let places = &mut places[usize::from(!ids.is_empty())];
        let follows = places.follows(page.version);
        let due = !follows || messages_due(page.playing, speed_of(page.speed_pos), page.version);
        let (places, at_us) = if due {
            let flights: Vec<_> = w.in_flight().into_iter().take(300).collect();
            (places.place(&flights, w.now_us), w.now_us)
        } else {
            places.placed()
        };
        let msgs = places.iter().map(|(m, flying)| {
            let off = if m.from < n && m.to < n { 5.0 } else { 0.0 };
            let (p, q) = offset_line(endpoint_pos(w, m.from), endpoint_pos(w, m.to), off);
            // A landed message keeps its place, hidden, and its last position.
            let (x, y) = flight_at(m, p, q, at_us);
            html! {
                <g class={classes!("msg", m.kind.name(), (!flying).then_some("landed"))} transform={format!("translate({} {})", num(x), num(y))}>
                    <circle r="7" />
                    <text y="3.5">{ kind_letter(m.kind) }</text>
                </g>
            }
        });
        html! { <g class="msgs">{ for msgs }</g> }
    })
}
