//! The links between the cluster's nodes, one arrow per direction: in the run's own drawing a
//! click (or Enter) cuts or heals it. Drawn by their own panel, redrawn only when what they show
//! changes ([`crate::model::links::version`]): the cluster draws every played frame.

use super::props::{send, Draw, Panel, PanelProps};
use super::ring::{hit_area, node_pos, offset_line};
use crate::lang::{t, Lang};
use crate::model::text::{link_label, num};
use crate::model::{Action, Command};
use crate::sim::World;
use yew::prelude::*;

/// The links between nodes; in the run's own drawing (`act`) a click cuts or heals one.
fn links(w: &World, p: &PanelProps, lang: Lang, ids: &str, act: bool) -> Html {
    let n = w.node_count;
    let mut out = Vec::with_capacity(n * n);
    // No link to an id no server has had yet (a membership change may add it later).
    let present = |i: usize| !w.nodes[i].is_absent();
    for a in (0..n).filter(|&a| present(a)) {
        for b in (0..n).filter(|b| *b != a && present(*b)) {
            let up = w.net.is_up(a, b);
            let (p0, q0) = offset_line(node_pos(a, n), node_pos(b, n), 5.0);
            let (from, to) = (format!("n{}", a + 1), format!("n{}", b + 1));
            let action = if up {
                Action::Cut { from, to }
            } else {
                Action::Heal { from, to }
            };
            let label = link_label(a + 1, b + 1, up, lang);
            let mid = ((p0.0 + q0.0) / 2.0, (p0.1 + q0.1) / 2.0);
            let marker = format!("url(#{ids}arrow)");
            if !act {
                out.push(html! {
                    <g class={classes!("link", (!up).then_some("cut"))}>
                        <line class="wire" x1={num(p0.0)} y1={num(p0.1)} x2={num(q0.0)} y2={num(q0.1)} marker-end={marker} />
                        { if !up { html! { <text class="cutmark" x={num(mid.0)} y={num(mid.1)}>{ "✕" }</text> } } else { html! {} } }
                    </g>
                });
                continue;
            }
            // Each direction is a control the keyboard reaches (Tab, then Enter or Space).
            let name = if up {
                t!(lang, "cut n{from} → n{to}", from = a + 1, to = b + 1)
            } else {
                t!(lang, "heal n{from} → n{to}", from = a + 1, to = b + 1)
            };
            let key_action = action.clone();
            let to_page = p.send.clone();
            let onkeydown = Callback::from(move |e: KeyboardEvent| {
                if e.key() == "Enter" || e.key() == " " {
                    e.prevent_default();
                    to_page.emit(Command::Act(key_action.clone()));
                }
            });
            out.push(html! {
                <g class={classes!("link", (!up).then_some("cut"))} id={format!("link-{}-{}", a + 1, b + 1)} role="button" tabindex="0"
                    aria-label={name} onclick={send(p, Command::Act(action))} {onkeydown}>
                    <title>{ label }</title>
                    <polygon class="hit" points={hit_area(p0, q0)} />
                    <line class="wire" x1={num(p0.0)} y1={num(p0.1)} x2={num(q0.0)} y2={num(q0.1)} marker-end={marker} />
                    { if !up { html! { <text class="cutmark" x={num(mid.0)} y={num(mid.1)}>{ "✕" }</text> } } else { html! {} } }
                </g>
            });
        }
    }
    html! { <g class="links">{ for out }</g> }
}

/// The run's links, drawn by their own [`Panel`] (see [`links_panel`]).
fn run_links(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    links(&page.playground.world, p, page.lang, "", true)
}

/// The safe twin's links (read-only), drawn by their own [`Panel`].
fn twin_links(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    match &page.twin {
        Some(twin) => links(&twin.playground.world, p, page.lang, "twin-", false),
        None => html! {},
    }
}

/// The links as a panel whose version is what they show ([`crate::model::links::version`]).
pub(super) fn links_panel(w: &World, p: &PanelProps, lang: Lang, act: bool) -> Html {
    let panel = PanelProps {
        page: p.page.clone(),
        version: crate::model::links::version(w, lang, act),
        send: p.send.clone(),
    };
    let draw: Draw = if act { run_links } else { twin_links };
    html! { <Panel {panel} {draw} /> }
}
