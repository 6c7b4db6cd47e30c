//! Clocks and nodes: a rate slider per node (×0.25 to ×4, snapping to the rates lessons talk
//! about), clock jumps, crash / restart and pause / resume. The same controls open under the
//! cluster for one node when it is clicked ([`node_controls`]).

use super::props::{input_value, send, PanelProps};
use crate::lang::{t, Lang};
use crate::model::clocks::{ClocksView, NodeClock};
use crate::model::text::{fmt_rate, fmt_us, node_state_words, rate_tooltip};
use crate::model::{rate_of, rate_pos, Action, Command, RATE_MID, RATE_STOPS};
use yew::prelude::*;

/// Node `k`'s clock-rate slider (id `id`): it snaps to [`RATE_STOPS`], reads "×2", and says
/// its ppm in a tooltip.
fn rate_slider(p: &PanelProps, k: usize, rate: u32, lang: Lang, id: String) -> Html {
    html! {
        <input type="range" min={(-RATE_MID).to_string()} max={RATE_MID.to_string()} value={rate_pos(rate).to_string()} {id}
            list="rate-stops" title={rate_tooltip(rate, lang)}
            aria-label={t!(lang, "clock rate of n{k}")} aria-valuetext={fmt_rate(rate, lang)}
            oninput={p.send.reform(move |e: InputEvent| Command::Act(Action::SetRate { node: k, rate_ppm: rate_of(input_value(&e).parse().unwrap_or(0)) }))} />
    }
}

/// The slider's tick marks, one per stop, ×1 among them.
fn rate_ticks() -> Html {
    html! {
        <datalist id="rate-stops">{ for (0..RATE_STOPS.len() as i32).map(|i| html! { <option value={(i - RATE_MID).to_string()} /> }) }</datalist>
    }
}

/// Node `k`'s clock jumps and its reset to ×1.
fn jumps(p: &PanelProps, k: usize, lang: Lang) -> Html {
    let jump = |ms: i64| send(p, Command::Act(Action::Jump { node: k, ms }));
    html! { <>
        <button aria-label={t!(lang, "n{k} clock back 500 ms")} onclick={jump(-500)}>{ t!(lang, "−500 ms") }</button>
        <button aria-label={t!(lang, "n{k} clock forward 500 ms")} onclick={jump(500)}>{ t!(lang, "+500 ms") }</button>
        <button aria-label={t!(lang, "×1: reset n{k} clock rate")} onclick={send(p, Command::Act(Action::SetRate { node: k, rate_ppm: 1_000_000 }))}>{ "×1" }</button>
    </> }
}

/// Node `k`'s process: crash or restart, pause or resume; `ids` prefixes their ids.
fn process(p: &PanelProps, c: &NodeClock, lang: Lang, ids: &str) -> Html {
    let (k, up) = (c.node + 1, c.up);
    let crash = if up {
        Action::Crash { node: k }
    } else {
        Action::Restart { node: k }
    };
    let pause = if c.paused {
        Action::Resume { node: k }
    } else {
        Action::Pause { node: k }
    };
    html! { <>
        <button id={format!("{ids}crash-{k}")} onclick={send(p, Command::Act(crash))}>{ if up { t!(lang, "Crash") } else { t!(lang, "Restart") } }</button>
        <button id={format!("{ids}pause-{k}")} disabled={!up} onclick={send(p, Command::Act(pause))}>{ if c.paused { t!(lang, "Resume") } else { t!(lang, "Pause") } }</button>
    </> }
}

/// *Remove from the cluster* (Raft dissertation §4): disabled, with the reason, when the leader
/// may not make that change now.
fn remove_button(p: &PanelProps, w: &crate::sim::World, i: usize, lang: Lang) -> Html {
    let act = crate::model::membership::remove(w, i, lang);
    let why = act
        .as_ref()
        .err()
        .map(|why| t!(lang, "Not now: {why}.", why = why));
    html! {
        <button id="node-remove" disabled={act.is_err()} title={why}
            onclick={send(p, act.map_or(Command::DismissError, Command::Act))}>{ t!(lang, "Remove from the cluster") }</button>
    }
}

pub fn clocks(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let v = ClocksView::of(&page.playground.world);
    let lang = page.lang;
    let rows = v.nodes.iter().map(|c| {
        let (k, rate) = (c.node + 1, c.rate_ppm);
        html! {
            <tr>
                <th scope="row">{ format!("n{k}") }</th>
                <td>{ rate_slider(p, k, rate, lang, format!("rate-{k}")) }</td>
                <td class="num" title={rate_tooltip(rate, lang)}>{ fmt_rate(rate, lang) }</td>
                <td class="num">{ fmt_us(c.local_us, lang) }</td>
                <td class="jumps">{ jumps(p, k, lang) }</td>
                <td class="process">{ process(p, c, lang, "") }</td>
            </tr>
        }
    });
    html! { <>
        { rate_ticks() }
        <table class="clocks">
            <thead><tr><th>{ t!(lang, "node") }</th><th>{ t!(lang, "clock rate (×0.25–×4)") }</th><th>{ t!(lang, "rate") }</th><th>{ t!(lang, "local time") }</th><th>{ t!(lang, "jump") }</th><th>{ t!(lang, "process") }</th></tr></thead>
            <tbody>{ for rows }</tbody>
            <tfoot><tr><td colspan="6">{ t!(lang, "true time {time}", time = fmt_us(v.now_us as i64, lang)) }</td></tr></tfoot>
        </table>
    </> }
}

/// One node's controls, under the cluster when the node is clicked: its state, its clock (the
/// rate slider, the jumps) and its process, and ✕ (or Esc) to close them.
pub fn node_controls(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let Some(i) = page.node_controls_open() else {
        return html! {};
    };
    let (lang, k) = (page.lang, i + 1);
    let c = NodeClock::of(&page.playground.world, i);
    let rate = c.rate_ppm;
    html! {
        <div class="node-controls" id="node-controls" role="group" aria-labelledby="node-controls-title" tabindex="-1">
            <p class="title" id="node-controls-title">
                <strong>{ format!("n{k}") }</strong>{ " · " }{ node_state_words(c.state, lang) }{ " · " }
                { t!(lang, "local clock {clock}", clock = fmt_us(c.local_us, lang)) }
            </p>
            <label class="rate">
                { t!(lang, "clock rate") }{ " " }
                { rate_slider(p, k, rate, lang, "node-rate".into()) }
                <output for="node-rate" title={rate_tooltip(rate, lang)}>{ fmt_rate(rate, lang) }</output>
            </label>
            <span class="jumps">{ jumps(p, k, lang) }</span>
            <span class="process">{ process(p, &c, lang, "node-") }</span>
            { remove_button(p, &page.playground.world, i, lang) }
            <button class="close" id="node-controls-close" onclick={send(p, Command::NodeControls(None))} aria-label={t!(lang, "Close n{k}'s controls", k = k)}>{ "✕" }</button>
        </div>
    }
}
