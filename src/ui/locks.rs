//! The lock view: one matrix, keys × nodes. Each cell: holder, token, and the lease left on that
//! node's own clock as a bar and a number; each column header: the node and its table's digest.
//! With drift the countdowns differ while the digests (the tables) agree.

use super::props::PanelProps;
use crate::lang::{t, Lang};
use crate::model::locks::{Agreement, Cell, LockMatrix};
use crate::model::text::fmt_us;
use yew::prelude::*;

fn cell(c: &Option<Cell>, lang: Lang) -> Html {
    // A free cell has the held cell's spans, empty: a lock taken and released every few frames
    // changes text and classes, and creates or removes no element.
    let Some(c) = c else {
        return html! {
            <td class="free">
                <span class="who">{ t!(lang, "free") }<b>{ "" }</b></span>
                <span class="bar"><span></span></span>
                <span class="left">{ "" }</span>
            </td>
        };
    };
    let (text, over) = match c.left_us {
        Some(left) if left > 0 => (fmt_us(left, lang), false),
        Some(left) => (t!(lang, "over by {time}", time = fmt_us(-left, lang)), true),
        None => ("—".to_string(), false),
    };
    // The fraction left as a transform (a draw changes no layout).
    let bar = format!("transform:scaleX({:.4})", c.fraction_left());
    html! {
        <td class={classes!("held", over.then_some("over"))}>
            <span class="who">{ c.holder.clone() }<b>{ format!(" #{}", c.token) }</b></span>
            <span class="bar"><span style={bar}></span></span>
            <span class="left">{ text }</span>
        </td>
    }
}

pub fn lock_view(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let m = LockMatrix::of(&page.playground.world);
    let focus = page.focus();
    let lang = page.lang;
    let head = m.columns.iter().map(|c| {
        let sub = c.table.as_ref().map_or(t!(lang, "crashed").to_string(), |t| format!("#{:04x}", t.digest));
        let title = c.table.as_ref().map_or(t!(lang, "crashed: no table in memory").to_string(), |t| {
            t!(lang, "applied {applied} entries; table digest {digest:04x}", applied = t.applied, digest = t.digest)
        });
        html! { <th scope="col" class={classes!(focus.node(c.node).then_some("focus"), c.table.is_none().then_some("down"))} title={title}>
            { format!("n{}", c.node + 1) }<small>{ sub }</small></th> }
    });
    // Rows unkeyed: where keys come and go every few frames (clients taking turns), a row is
    // reused for the next key, its cells' texts changed, instead of made anew.
    let rows = m.keys.iter().zip(&m.cells).map(|(k, row)| {
        html! {
            <tr class={classes!(focus.key(k).then_some("focus"))} id={format!("lock-row-{k}")}>
                <th scope="row">{ k.clone() }</th>
                { for row.iter().map(|c| cell(c, lang)) }
            </tr>
        }
    });
    let agree = match m.agreement() {
        Agreement::Same => t!(lang, "all tables the same"),
        Agreement::Lagging => t!(lang, "a node lags behind"),
        Agreement::Split => t!(lang, "split at one index!"),
    };
    html! {
        <section class="panel locks-panel" aria-label={t!(lang, "Lock tables")} id="locks-panel">
            <h2>{ t!(lang, "Locks: keys × nodes") }<small>{ format!(" · {agree}") }</small></h2>
            <table class="lockview">
                <thead><tr><th>{ t!(lang, "key") }</th>{ for head }</tr></thead>
                <tbody>
                    { for rows }
                    { if m.keys.is_empty() { html! { <tr><td colspan={(m.columns.len() + 1).to_string()} class="none">{ t!(lang, "no locks held on any node") }</td></tr> } } else { html! {} } }
                </tbody>
            </table>
            <p class="legend">{ t!(lang, "holder #token and the lease left on that node's own clock") }</p>
        </section>
    }
}
