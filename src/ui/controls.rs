//! The bar at the top: play, speed and time always; in a lesson the rest waits behind *Tools*
//! (stepping, take over, restart, seed, node count, files); free play shows everything.

use super::props::{input_value, select_value, send, PanelProps};
use crate::model::edit::Edit;
use crate::model::text::{fmt_speed, fmt_us};
use crate::model::{speed_of, Command, Export, SPEED_STOPS};
use yew::prelude::*;

fn random_seed(fallback: u64) -> u64 {
    let mut b = [0u8; 4];
    match getrandom::fill(&mut b) {
        Ok(()) => u32::from_le_bytes(b) as u64,
        Err(_) => fallback + 1,
    }
}

pub fn controls(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let (pg, w) = (&page.pg, &page.pg.world);
    let horizon = pg.horizon_us.max(w.now_us).max(1);
    let speed = speed_of(page.speed_pos);
    let tools = !page.in_lesson() || page.tools_open;
    html! {
        <nav class="controls" aria-label="Time controls">
            <button id="play" class="primary" onclick={send(p, Command::TogglePlay)} aria-pressed={page.playing.to_string()}>
                // Drawn, not a glyph: Debian's Chromium has no font with U+23F8 and showed a box.
                { if page.playing { html! { <><svg class="icon" viewBox="0 0 10 10" aria-hidden="true"><rect x="1.5" y="1" width="2.5" height="8"/><rect x="6" y="1" width="2.5" height="8"/></svg>{ " Pause" }</> } }
                  else { html! { <><svg class="icon" viewBox="0 0 10 10" aria-hidden="true"><path d="M2 1 L9 5 L2 9 Z"/></svg>{ " Play" }</> } } }
            </button>
            { if tools { html! { <>
                <button id="step-back" onclick={send(p, Command::StepBack)} title="Step back (←)">{ "← Step" }</button>
                <button id="step" onclick={send(p, Command::Step)} title="Step one event (→)">{ "Event →" }</button>
                <button id="step-apply" onclick={send(p, Command::StepApply)} title="Run to the next apply (a)">{ "Next apply ⇥" }</button>
            </> } } else { html! {} } }
            <label class="speed">{ "Speed " }
                <input id="speed" type="range" min="0" max={(SPEED_STOPS.len() - 1).to_string()} value={page.speed_pos.to_string()} aria-label="Speed"
                    oninput={p.send.reform(|e: InputEvent| Command::Speed(input_value(&e).parse().unwrap_or(0)))} />
                <output>{ fmt_speed(speed) }</output>
            </label>
            <label class="scrub">{ "Time " }
                <input id="scrubber" type="range" min="0" max={horizon.to_string()} value={w.now_us.to_string()} aria-label="Timeline"
                    oninput={p.send.reform(|e: InputEvent| Command::Seek(input_value(&e).parse().unwrap_or(0)))} />
                <output id="now">{ fmt_us(w.now_us as i64) }</output>
            </label>
            { if tools { html! { <>
                <button id="take-over" onclick={send(p, Command::TakeOver)} title="Discard the future and continue from here (t)"
                    disabled={w.now_us >= pg.horizon_us}>{ "Take over" }</button>
                <button id="restart" onclick={send(p, Command::Restart)}>{ "↺ Restart" }</button>
            </> } } else { html! {} } }
            <span class="status" id="status">{ format!("{} events · {} in flight", w.stats.events, w.in_flight_count()) }</span>
        </nav>
    }
}

/// The scenario menu, the list page, the share link, and the switches of the page itself
/// (tools, presenter, help).
pub fn scenario_bar(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let current = page.pg.scenario.name.clone();
    let options = |break_it: bool| {
        let current = current.clone();
        crate::scenario::builtin::names().filter(move |n| crate::scenario::builtin::is_break_it(n) == break_it).map(move |name| {
            let title = crate::scenario::builtin::get(name).and_then(|s| s.lesson.map(|l| l.title)).unwrap_or_else(|| "free play".into());
            html! { <option value={name} selected={name == current}>{ format!("{name} — {title}") }</option> }
        })
    };
    let own = crate::scenario::builtin::get(&current).is_none();
    html! {
        <div class="scenario-bar" role="group" aria-label="Scenarios and sharing">
            <h1>{ "raftlock" }</h1>
            <label>{ "Scenario " }
                <select id="scenario" aria-label="Built-in scenario" onchange={p.send.reform(|e: Event| Command::LoadBuiltin(select_value(&e)))}>
                    { if own { html! { <option selected=true value="">{ format!("{} (your own)", if current.is_empty() { "scenario" } else { &current }) }</option> } } else { html! {} } }
                    <optgroup label="Lessons">{ for options(false) }</optgroup>
                    <optgroup label="Break it: one safeguard off">{ for options(true) }</optgroup>
                </select>
            </label>
            <button id="all-scenarios" onclick={send(p, Command::ScenarioList(true))}>{ "All scenarios…" }</button>
            <button id="share" onclick={send(p, Command::Share)} title="Copy a link that reproduces this run at this moment">{ "Share link" }</button>
            <button id="copy-embed" onclick={send(p, Command::CopyEmbed)} title="Copy an <iframe> for a course page: the lesson player at this scenario and moment">{ "Embed" }</button>
            { if page.in_lesson() { html! {
                <button id="tools" aria-pressed={page.tools_open.to_string()} aria-expanded={page.tools_open.to_string()}
                    onclick={send(p, Command::Tools(!page.tools_open))} title="Stepping, seed, nodes, files, design switches, Raft settings, the bug hunt">{ "Tools" }</button>
            } } else { html! {} } }
            <button id="presenter" onclick={send(p, Command::Presenter(!page.presenter))} aria-pressed={page.presenter.to_string()} title="Large type, one screen (p)">{ "Presenter" }</button>
            <button id="help" onclick={send(p, Command::Help(true))} title="Shortcuts (?)" aria-label="Keyboard shortcuts">{ "?" }</button>
            { if let Some(code) = &page.embed_code { html! {
                <input id="embed-code" class="share-url" readonly=true value={code.clone()} aria-label="Embed code (copied to the clipboard)" />
            } } else { html! {} } }
            { if let Some(url) = &page.share_url { html! {
                <input id="share-url" class="share-url" readonly=true value={url.clone()} aria-label="Share link (copied to the clipboard)" />
            } } else { html! {} } }
        </div>
    }
}

thread_local! {
    /// The file being read for Import (reading stops if it is dropped).
    static READER: std::cell::RefCell<Option<gloo::file::callbacks::FileReader>> = const { std::cell::RefCell::new(None) };
}

/// A file input's change: the picked file read as text and sent as the command `done` makes
/// of its name and text (or why it could not be read); a file over `max` bytes gets `too_big`.
fn read_file(
    p: &PanelProps,
    max: usize,
    too_big: fn(u64) -> String,
    done: fn(String, Result<String, String>) -> Command,
) -> Callback<Event> {
    let send = p.send.clone();
    Callback::from(move |e: Event| {
        let input = e.target_unchecked_into::<web_sys::HtmlInputElement>();
        let file = input.files().and_then(|f| f.get(0));
        input.set_value("");
        let Some(file) = file else { return };
        if file.size() > max as f64 {
            send.emit(Command::Error(too_big(file.size() as u64)));
            return;
        }
        let (send, name) = (send.clone(), file.name());
        let f = gloo::file::File::from(file);
        let reader = gloo::file::callbacks::read_as_text(&f, move |r| {
            send.emit(done(name.clone(), r.map_err(|e| e.to_string())))
        });
        READER.with(|slot| *slot.borrow_mut() = Some(reader));
    })
}

/// Seed, node count and files: behind *Tools* in a lesson.
pub fn run_tools(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let seed = page.pg.scenario.seed;
    let n = page.pg.world.n;
    let on_file = read_file(
        p,
        crate::scenario::link::DOC_BYTES_MAX,
        |size| {
            format!(
                "That file is {} KB; scenario files are at most 1 MB.",
                size / 1024
            )
        },
        |_, r| Command::Import(r),
    );
    let on_trace = read_file(
        p,
        crate::model::trace_view::TRACE_BYTES_MAX,
        |size| {
            format!(
                "That trace is {} MB; the page opens traces of at most {} MB (raftlock check reads any size).",
                size / 1_048_576,
                crate::model::trace_view::TRACE_BYTES_MAX / 1_048_576
            )
        },
        |name, r| {
            Command::OpenTrace(
                name,
                r.map_err(|e| format!("The file could not be read: {e}")),
            )
        },
    );
    html! {
        <div class="run-tools" role="group" aria-label="Run tools">
            <button id="new-seed" onclick={p.send.reform(move |_| Command::Edit(Edit::Seed(random_seed(seed))))}>{ "New seed" }</button>
            <span class="seed">{ format!("seed {seed}") }</span>
            <label>{ "Nodes " }
                <select id="nodes" aria-label="Node count" onchange={p.send.reform(|e: Event| Command::Edit(Edit::Nodes(select_value(&e).parse().unwrap_or(5))))}>
                    { for (3..=7).map(|k| html! { <option value={k.to_string()} selected={k == n}>{ k }</option> }) }
                </select>
            </label>
            <button id="export-scenario" onclick={send(p, Command::Export(Export::Scenario))}>{ "Export scenario" }</button>
            <button id="export-trace" onclick={send(p, Command::Export(Export::Trace))}>{ "Export trace" }</button>
            <label class="import">{ "Import scenario " }<input id="import" type="file" accept=".json,application/json" onchange={on_file} /></label>
            <label class="import" title="A trace in the JSONL format from any implementation: read-only, checked against the seed's rules">{ "Open a trace " }<input id="open-trace" type="file" accept=".jsonl,.ndjson,application/x-ndjson,text/plain" onchange={on_trace} /></label>
        </div>
    }
}
