//! Design switches (break one safeguard and watch which guarantee fails, or compare side by
//! side) and two Raft settings. A change restarts the run with the edited document, so a link
//! carries it.

use super::props::{change_value, input_value, send, PanelProps};
use crate::lang::t;
use crate::model::edit::Edit;
use crate::model::switches::{hunt_with, rows};
use crate::model::{Command, RaftField};
use yew::prelude::*;

pub fn switches(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let lang = page.lang;
    // Each box is a safeguard: checked, the design is the seed's; unchecked, the switch breaks it.
    let items = rows(&page.playground.scenario, lang).into_iter().map(|s| {
        let (name, broken) = (s.name, s.broken);
        html! {
            <li class={classes!(broken.then_some("on"))}>
                <label>
                    <input type="checkbox" id={format!("switch-{name}")} checked={!broken}
                        onchange={p.send.reform(move |e: Event| Command::Edit(Edit::Switch(name, !e.target_unchecked_into::<web_sys::HtmlInputElement>().checked())))} />
                    <strong>{ s.safeguard }</strong>
                    <span class="breaks">{ s.breaks }</span>
                </label>
                <button class="compare" id={format!("compare-{name}")} onclick={send(p, Command::Compare(Some(name)))}
                    title={t!(lang, "Run the same scenario with this switch flipped, side by side")}>{ t!(lang, "Compare side by side") }</button>
                <p>{ s.why }</p>
            </li>
        }
    });
    html! {
        <>
        <p class="switches-head">{ t!(lang, "Safeguards: each box checked is the lock service's design. Uncheck one to break it and see which guarantee fails.") }</p>
        <ul class="switches">{ for items }</ul>
        </>
    }
}

/// Two of Raft's knobs that change what the log panel and the messages show.
pub fn raft_settings(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let r = &page.playground.scenario.raft;
    let lang = page.lang;
    let field = |f: RaftField, label: &'static str, value: u64, why: &'static str| {
        // The typed text stays until its change event: frames drawn meanwhile must not put the
        // current value back.
        let shown = match &page.raft_draft {
            Some((n, text)) if *n == f => text.clone(),
            _ => value.to_string(),
        };
        html! {
            <li>
                <label>
                    <strong>{ label }</strong>{ " " }
                    <input type="number" id={format!("raft-{}", f.name())} value={shown} min="0" size="7"
                        oninput={p.send.reform(move |e: InputEvent| Command::RaftDraft(f, input_value(&e)))}
                        onchange={p.send.reform(move |e: Event| Command::Edit(Edit::Raft(f, change_value(&e))))} />
                </label>
                <p>{ why }</p>
            </li>
        }
    };
    html! {
        <>
        <h3 class="raft-settings">{ t!(lang, "Raft settings (the run restarts with a new value; links carry them)") }</h3>
        <ul class="switches raft-settings">
            { field(RaftField::SnapshotEvery, t!(lang, "Snapshot every (applied entries; 0: never)"), r.snapshot_every,
                t!(lang, "Log compaction (Raft §7): each node snapshots its lock table this often and drops its log up to its previous snapshot. A follower that needs a dropped entry gets the leader's snapshot instead (InstallSnapshot); try 8 and crash a node for a few seconds. 0 or 4 to 1,000,000.")) }
            { field(RaftField::MaxBatch, t!(lang, "Entries per AppendEntries"), r.max_batch,
                t!(lang, "The most entries one message carries (etcd's MaxSizePerMsg, counted in entries). With 1, a follower can hold an old-term entry without the new leader's no-op after it: the window of the Figure 8 switch. 1 to 1,024.")) }
        </ul>
        </>
    }
}

/// "Find a bug": the counterexample hunt with the switches that are on, in a Web Worker.
pub fn hunt_panel(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let lang = page.lang;
    let with = hunt_with(&page.playground.scenario, lang);
    let running = page.hunt.as_ref().is_some_and(|h| h.running());
    let status = page.hunt.as_ref().map(|h| {
        let (text, class) = h.status(lang);
        html! {
            <div class="hunt-status">
                <progress id="hunt-progress" max={h.runs.to_string()} value={h.done.to_string()} aria-label={t!(lang, "Runs done")}></progress>
                <p id="hunt-status" class={class} aria-live="polite">{ text }</p>
            </div>
        }
    });
    html! {
        <div class="hunt">
            <p>{ t!(lang, "Find a bug: random fault schedules (crashes, pauses, partitions, one-way cuts, loss, drift) with {with}, every invariant checked after every event, in a background worker. It stops at the first violation, shrinks the schedule and opens it here.") }</p>
            <button id="hunt-start" disabled={running} onclick={send(p, Command::HuntStart(1000))}>{ t!(lang, "Find a bug (1,000 runs)") }</button>
            <button id="hunt-start-10k" disabled={running} onclick={send(p, Command::HuntStart(10_000))}>{ t!(lang, "10,000 runs") }</button>
            { if running { html! { <button id="hunt-cancel" onclick={send(p, Command::HuntCancel)}>{ t!(lang, "Stop") }</button> } } else { html! {} } }
            { status.unwrap_or_default() }
        </div>
    }
}
