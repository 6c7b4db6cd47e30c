//! Network presets under the cluster (isolate the leader, split it into the minority, heal
//! all) and the legend of message letters.

use super::props::{send, PanelProps};
use crate::lang::t;
use crate::model::membership::MembershipView;
use crate::model::presets::Presets;
use crate::model::{Action, Command};
use yew::prelude::*;

/// Network presets and the legend of message letters.
pub fn presets(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let lang = page.lang;
    let Presets { isolate, split } = Presets::of(&page.playground.world);
    let add = MembershipView::of(&page.playground.world, lang).add;
    let add_why = add
        .as_ref()
        .err()
        .map(|why| t!(lang, "Add a node: not now, {why}.", why = why));
    let act = |a: &Option<Action>| send(p, a.clone().map_or(Command::DismissError, Command::Act));
    // A disabled control says why, on the page and to a screen reader.
    let why = isolate
        .is_none()
        .then(|| t!(lang, "No node leads yet: there is no leader to cut off."));
    let described = why.as_ref().map(|_| "presets-why");
    html! {
        <div class="presets" role="group" aria-label={t!(lang, "Network presets")}>
            <button id="isolate-leader" disabled={isolate.is_none()} aria-describedby={described} onclick={act(&isolate)}>{ t!(lang, "Isolate the leader") }</button>
            <button id="split" disabled={split.is_none()} aria-describedby={described} onclick={act(&split)}>{ t!(lang, "Split: leader in the minority") }</button>
            { for why.map(|w| html! { <span class="why" id="presets-why">{ w }</span> }) }
            <button id="heal-all" onclick={send(p, Command::Act(Action::HealAll))}>{ t!(lang, "Heal all") }</button>
            <button id="add-node" disabled={add.is_err()} title={add_why.clone()} aria-describedby={add_why.as_ref().map(|_| "add-node-why")}
                onclick={send(p, add.clone().map_or(Command::DismissError, Command::Act))}>{ t!(lang, "Add a node") }</button>
            { for add_why.map(|w| html! { <span class="why" id="add-node-why">{ w }</span> }) }
            <span class="legend">{ t!(lang, "Click a link to cut or heal one direction. The ring around a node: its lease countdown on its own clock. Letters: P/V votes, H heartbeat, A append, a/v replies, Q client request, R reply, S snapshot, W storage write.") }</span>
        </div>
    }
}
