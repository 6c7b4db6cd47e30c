//! Clocks and nodes: a rate slider per node (0.25× to 4×), clock jumps, crash / restart and
//! pause / resume.

use super::props::{input_value, send, PanelProps};
use crate::lang::t;
use crate::model::text::{fmt_rate, fmt_us};
use crate::model::{rate_of, rate_pos, Command};
use crate::scenario::Action;
use yew::prelude::*;

pub fn clocks(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let w = &page.pg.world;
    let lang = page.lang;
    let rows = (0..w.n).map(|i| {
        let k = i + 1;
        let slot = &w.nodes[i];
        let up = slot.server().is_some();
        let rate = slot.clock.rate_ppm();
        let crash = if up { Action::Crash { node: k } } else { Action::Restart { node: k } };
        let pause = if slot.paused { Action::Resume { node: k } } else { Action::Pause { node: k } };
        let jump = |ms: i64| send(p, Command::Act(Action::Jump { node: k, ms }));
        html! {
            <tr>
                <th scope="row">{ format!("n{k}") }</th>
                <td>
                    <input type="range" min="-20" max="20" value={rate_pos(rate).to_string()} id={format!("rate-{k}")}
                        aria-label={t!(lang, "clock rate of n{k}")} aria-valuetext={fmt_rate(rate, lang)}
                        oninput={p.send.reform(move |e: InputEvent| Command::Act(Action::SetRate { node: k, rate_ppm: rate_of(input_value(&e).parse().unwrap_or(0)) }))} />
                </td>
                <td class="num">{ format!("{} ({} ppm)", fmt_rate(rate, lang), rate) }</td>
                <td class="num">{ fmt_us(w.local_now(i), lang) }</td>
                <td>
                    <button aria-label={t!(lang, "n{k} clock back 500 ms")} onclick={jump(-500)}>{ t!(lang, "−500 ms") }</button>
                    <button aria-label={t!(lang, "n{k} clock forward 500 ms")} onclick={jump(500)}>{ t!(lang, "+500 ms") }</button>
                    <button aria-label={t!(lang, "×1: reset n{k} clock rate")} onclick={send(p, Command::Act(Action::SetRate { node: k, rate_ppm: 1_000_000 }))}>{ "×1" }</button>
                </td>
                <td>
                    <button id={format!("crash-{k}")} onclick={send(p, Command::Act(crash))}>{ if up { t!(lang, "Crash") } else { t!(lang, "Restart") } }</button>
                    <button id={format!("pause-{k}")} disabled={!up} onclick={send(p, Command::Act(pause))}>{ if slot.paused { t!(lang, "Resume") } else { t!(lang, "Pause") } }</button>
                </td>
            </tr>
        }
    });
    html! {
        <table class="clocks">
            <thead><tr><th>{ t!(lang, "node") }</th><th>{ t!(lang, "clock rate (0.25×–4×)") }</th><th>{ t!(lang, "rate") }</th><th>{ t!(lang, "local time") }</th><th>{ t!(lang, "jump") }</th><th>{ t!(lang, "process") }</th></tr></thead>
            <tbody>{ for rows }</tbody>
            <tfoot><tr><td colspan="6">{ t!(lang, "true time {time}", time = fmt_us(w.now_us as i64, lang)) }</td></tr></tfoot>
        </table>
    }
}
