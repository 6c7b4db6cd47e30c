//! The cluster: nodes on a ring with their links ([`super::links`]: click one to cut or heal),
//! each node's lease countdown as an arc around it (on its own clock), the clients and the
//! storage, and the messages in flight (drawn under the nodes: they never cover a node's name,
//! role or term). Parts the lesson's caption names are highlighted.

use super::flights;
use super::links::links_panel;
use super::props::{send, PanelProps};
use super::ring::{client_pos, node_pos, Geom, NARROW, STORAGE_POS, WIDE};
use crate::lang::{t, Lang};
use crate::model::focus::FocusSet;
use crate::model::locks::lease_arc;
use crate::model::membership::{standing_label, Standing};
use crate::model::text::{
    cluster_words, fmt_rate, fmt_tenths, fmt_us, node_state, node_state_words, num, vote_words,
};
use crate::model::Command;
use crate::sim::World;
use yew::prelude::*;

/// How a node is drawn: the caption's focus, the language, the ids' prefix, the geometry, and
/// whether the run plays (its clock then reads to a tenth of a second: the milliseconds of a
/// playing clock change every frame, too fast to read, and each change is a write).
struct Look<'a> {
    focus: &'a FocusSet,
    lang: Lang,
    ids: &'a str,
    g: &'a Geom,
    playing: bool,
}

fn node(w: &World, i: usize, look: &Look, p: Option<&PanelProps>) -> Html {
    let Look {
        focus,
        lang,
        ids,
        g,
        playing,
    } = *look;
    let standing = Standing::of(w, i);
    let (x, y) = node_pos(i, w.node_count);
    let slot = &w.nodes[i];
    let term = match slot.server() {
        Some(s) => s.raft.term(),
        None => slot.persisted().map_or(0, |h| h.term),
    };
    let state = node_state(w, i);
    let (label, state_words) = (
        standing_label(state, standing, lang),
        node_state_words(state, lang),
    );
    let local = w.local_now(i);
    // The lease countdown on this node's own clock: a full ring is a whole lease, an empty
    // red ring a countdown that is over while the lock waits for its committed Expire.
    let arc = lease_arc(w, i).map(|(frac, key)| {
        let over = frac <= 0.0;
        // Whole percents: the arc's attribute changes every few frames, not every frame.
        let dash = if over { "4 4".to_string() } else { format!("{} 100", (frac * 100.0).ceil() as u32) };
        let what = if over {
            t!(lang, "n{n}: its countdown for {key} is over; the lock stays until an Expire commits", n = i + 1)
        } else {
            t!(lang, "n{n}: lease of {key} on its own clock", n = i + 1)
        };
        html! {
            <circle class={classes!("lease-arc", over.then_some("over"))} cx={num(x)} cy={num(y)} r={num(g.arc_r)} pathLength="100"
                stroke-dasharray={dash} transform={format!("rotate(-90 {} {})", num(x), num(y))}><title>{ what }</title></circle>
        }
    });
    let focused = focus.node(i);
    let open = p.map(|p| {
        let to_page = p.send.clone();
        let onkeydown = Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" || e.key() == " " {
                e.prevent_default();
                to_page.emit(Command::NodeControls(Some(i)));
            }
        });
        (send(p, Command::NodeControls(Some(i))), onkeydown)
    });
    let (onclick, onkeydown) = open.clone().unzip();
    // The node whose controls are open (its button says it is expanded).
    let open_node = p.and_then(|p| p.page.borrow().node_controls_open());
    let (role, tabindex) = if open.is_some() {
        (Some("button"), Some("0"))
    } else {
        (None, None)
    };
    // Its name (the tooltip), which a control's also says what a click does.
    let what = t!(
        lang,
        "n{n}: {state} of term {term}; its clock runs at {rate}",
        n = i + 1,
        state = state_words,
        rate = fmt_rate(slot.clock.rate_ppm(), lang)
    );
    let title = if open.is_some() {
        t!(
            lang,
            "{what}. Click for its clock and process.",
            what = what
        )
    } else {
        what
    };
    html! {
        <g class={classes!("node", state, standing.class(), focused.then_some("focus"))} id={format!("{ids}node-{}", i + 1)}
            {role} {tabindex} {onclick} {onkeydown}
            aria-expanded={open.is_some().then(|| (open_node == Some(i)).to_string())}
            aria-controls={(open_node == Some(i)).then_some("node-controls")}>
            <title>{ title }</title>
            { if focused { html! { <circle class="halo" cx={num(x)} cy={num(y)} r={num(g.arc_r + 7.0)} /> } } else { html! {} } }
            <circle class="body" cx={num(x)} cy={num(y)} r={num(g.node_r)} />
            { arc.unwrap_or_default() }
            <text class="name" x={num(x)} y={num(y + g.name_dy)}>{ format!("n{}", i + 1) }</text>
            // A long word (a long role in some language) is condensed to fit inside the circle.
            { if label.chars().count() > g.role_chars { html! {
                <text class="role" x={num(x)} y={num(y + g.role_dy)} textLength={num(g.node_r * 2.0 - 12.0)} lengthAdjust="spacingAndGlyphs">{ label }</text>
            } } else { html! {
                <text class="role" x={num(x)} y={num(y + g.role_dy)}>{ label }</text>
            } } }
            <text class="term" x={num(x)} y={num(y + g.term_dy)}>{ t!(lang, "term {term}") }</text>
            <text class="clock" x={num(x)} y={num(y + g.clock_dy)}>{ format!("{} {}", if playing { fmt_tenths(local, lang) } else { fmt_us(local, lang) }, fmt_rate(slot.clock.rate_ppm(), lang)) }</text>
            // Where votes are the lesson (a run whose restarts forget them), a focused node says
            // whom it voted for in its term, another node or, once it has restarted, none.
            { match vote_words(i, slot, lang).filter(|_| focused && state != "leader" && w.raft_cfg.forget_vote_on_restart) {
                Some(words) => html! { <text class="vote" x={num(x)} y={num(y + g.vote_dy)}>{ words }</text> },
                None => html! {},
            } }
        </g>
    }
}

fn clients(w: &World, focus: &FocusSet, ids: &str) -> Html {
    let count = w.clients.len();
    let box_h = if count > 1 {
        (280.0 / (count - 1) as f64 - 3.0).min(34.0)
    } else {
        34.0
    };
    let items = w.clients.iter().enumerate().map(|(c, slot)| {
        let (x, y) = client_pos(c, count);
        let state = if slot.crashed { "crashed" } else if slot.paused { "paused" } else { "up" };
        let local = slot.clock.local_at(w.now_us);
        let held = slot.client.held.iter().filter(|(_, h)| h.until_local_us > local).map(|(k, h)| format!("{k}#{}", h.token)).collect::<Vec<_>>().join(" ");
        let name = &slot.client.cfg.name;
        html! {
            // The box names the node the client talks to: its line to a node across the ring can
            // pass behind another node.
            <g class={classes!("client", state, focus.client(name).then_some("focus"))} id={format!("{ids}client-{name}")}>
                <rect x={num(x - 30.0)} y={num(y - box_h / 2.0)} width="60" height={num(box_h)} rx="6" />
                <text class="name" x={num(x)} y={num(y - 2.0)}>{ format!("{name}{} →n{}", if slot.paused { " ‖" } else if slot.crashed { " ✕" } else { "" }, slot.client.target + 1) }</text>
                <text class="held" x={num(x)} y={num(y + 11.0)}>{ held }</text>
            </g>
        }
    });
    html! { <g class="clients">{ for items }</g> }
}

pub fn cluster(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    // The player embedded in another page has no node controls to open.
    let g = if page.narrow { &NARROW } else { &WIDE };
    draw(
        &page.playground.world,
        p,
        &page.focus(),
        page.lang,
        "",
        !page.embed.on,
        g,
    )
}

/// The safe twin's cluster (read-only: its links do not cut), its ids prefixed `twin-`.
pub fn twin_cluster(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    match &page.twin {
        Some(twin) => draw(
            &twin.playground.world,
            p,
            &page.focus(),
            page.lang,
            "twin-",
            false,
            if page.narrow { &NARROW } else { &WIDE },
        ),
        None => html! {},
    }
}

/// A world's cluster; `ids` prefixes every id in it (the run's own drawing has none, and its
/// links cut and heal); with `controls`, a click on a node opens its controls.
fn draw(
    w: &World,
    p: &PanelProps,
    focus: &FocusSet,
    lang: Lang,
    ids: &str,
    controls: bool,
    g: &Geom,
) -> Html {
    let act = ids.is_empty();
    let n = w.node_count;
    let look = Look {
        focus,
        lang,
        ids,
        g,
        playing: p.page.borrow().playing,
    };
    // Client connections: to the node each client talks to now.
    let conns = w.clients.iter().enumerate().map(|(c, slot)| {
        let (cp, np) = (client_pos(c, w.clients.len()), node_pos(slot.client.target, n));
        let e = w.client_endpoint(c);
        let up = w.net.is_up(e, slot.client.target) && w.net.is_up(slot.client.target, e);
        html! { <line class={classes!("conn", (!up).then_some("cut"))} x1={num(cp.0)} y1={num(cp.1)} x2={num(np.0)} y2={num(np.1)} /> }
    });
    // The storage's box grows with its word (Russian "хранилище" is longer than "storage").
    let storage_word = t!(lang, "storage");
    let storage_w = (storage_word.chars().count() as f64 * 8.5 + 16.0).max(68.0);
    html! {
        <svg class={classes!("cluster", (g.view_h != WIDE.view_h).then_some("narrow"))} id={format!("{ids}cluster")} viewBox={format!("0 0 560 {}", g.view_h)} preserveAspectRatio="xMidYMid meet" role="group" aria-labelledby={format!("{ids}cluster-title")}>
            <title id={format!("{ids}cluster-title")}>{ cluster_words(w, lang) }</title>
            <defs>
                <marker id={format!("{ids}arrow")} viewBox="0 0 10 10" refX={num(g.node_r + 8.0)} refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse">
                    <path d="M 0 0 L 10 5 L 0 10 z" />
                </marker>
            </defs>
            // Each list in its own group: the messages in flight change in number every frame,
            // and a group keeps that from re-shaping the elements after them.
            <g class="conns">{ for conns }</g>
            { links_panel(w, p, lang, act) }
            { flights::messages(w, ids, &p.page.borrow()) }
            <g class="nodes">{ for (0..n).filter(|&i| !w.nodes[i].is_absent()).map(|i| node(w, i, &look, (act && controls).then_some(p))) }</g>
            { clients(w, focus, ids) }
            <g class={classes!("storage", focus.storage.then_some("focus"))} id={format!("{ids}storage-node")}>
                <rect x={num(STORAGE_POS.0 - storage_w / 2.0)} y={num(STORAGE_POS.1 - 14.0)} width={num(storage_w)} height="28" rx="4" />
                <text x={num(STORAGE_POS.0)} y={num(STORAGE_POS.1 + 4.0)}>{ storage_word }</text>
            </g>
        </svg>
    }
}
