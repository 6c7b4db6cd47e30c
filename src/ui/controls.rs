//! The bar at the top: play, speed and time always; in a lesson the rest waits behind *Tools*
//! (stepping, take over, restart, seed, node count, files); free play shows everything.

use super::props::{input_value, select_value, send, PanelProps};
use crate::lang::t;
use crate::model::catalog::{catalog, is_builtin};
use crate::model::command::DOC_BYTES_MAX;
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

/// Play's icon, or Pause's while playing: drawn, not a glyph (Debian's Chromium has no font with
/// U+23F8 and showed a box). The bar's Play and a phone's share it.
pub fn play_icon(playing: bool) -> Html {
    if playing {
        html! { <svg class="icon" viewBox="0 0 10 10" aria-hidden="true"><rect x="1.5" y="1" width="2.5" height="8"/><rect x="6" y="1" width="2.5" height="8"/></svg> }
    } else {
        html! { <svg class="icon" viewBox="0 0 10 10" aria-hidden="true"><path d="M2 1 L9 5 L2 9 Z"/></svg> }
    }
}

pub fn controls(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let bar = page.time_bar();
    let speed = speed_of(page.speed_pos);
    let tools = !page.in_lesson() || page.tools_open;
    let lang = page.lang;
    html! {
        <nav class="controls" aria-label={t!(lang, "Time controls")}>
            <button id="play" class="primary" onclick={send(p, Command::TogglePlay)} aria-pressed={page.playing.to_string()}>
                { play_icon(page.playing) }{ format!(" {}", if page.playing { t!(lang, "Pause") } else { t!(lang, "Play") }) }
            </button>
            { if tools { html! { <>
                <button id="step-back" onclick={send(p, Command::StepBack)} title={t!(lang, "Step back (←)")}>{ t!(lang, "← Step") }</button>
                <button id="step" onclick={send(p, Command::Step)} title={t!(lang, "Step one event (→)")}>{ t!(lang, "Event →") }</button>
                <button id="step-apply" onclick={send(p, Command::StepApply)} title={t!(lang, "Run to the next apply (a)")}>{ t!(lang, "Next apply ⇥") }</button>
            </> } } else { html! {} } }
            <label class="speed">{ t!(lang, "Speed") }{ " " }
                <input id="speed" type="range" min="0" max={(SPEED_STOPS.len() - 1).to_string()} value={page.speed_pos.to_string()} aria-label={t!(lang, "Speed")} aria-valuetext={fmt_speed(speed)}
                    oninput={p.send.reform(|e: InputEvent| Command::Speed(input_value(&e).parse().unwrap_or(0)))} />
                <output>{ fmt_speed(speed) }</output>
            </label>
            <label class="scrub">{ t!(lang, "Time") }{ " " }
                <input id="scrubber" type="range" min="0" max={bar.horizon_us.to_string()} value={bar.now_us.to_string()} aria-label={t!(lang, "Timeline")} aria-valuetext={fmt_us(bar.now_us as i64, lang)}
                    oninput={p.send.reform(|e: InputEvent| Command::Seek(input_value(&e).parse().unwrap_or(0)))} />
                <output id="now">{ fmt_us(bar.now_us as i64, lang) }</output>
            </label>
            { if tools { html! { <>
                <button id="take-over" onclick={send(p, Command::TakeOver)} title={t!(lang, "Discard the future and continue from here (t)")}
                    disabled={!bar.can_take_over}>{ t!(lang, "Take over") }</button>
                <button id="restart" onclick={send(p, Command::Restart)}>{ t!(lang, "↺ Restart") }</button>
            </> } } else { html! {} } }
            <span class="status" id="status">{ t!(lang, "{} events · {} in flight", bar.events, bar.in_flight) }</span>
        </nav>
    }
}

/// The scenario menu, the list page, the share link, and the switches of the page itself
/// (tools, presenter, help).
pub fn scenario_bar(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let lang = page.lang;
    let current = page.playground.scenario.name.clone();
    let catalog = catalog(lang);
    let options = |break_it: bool| {
        catalog.iter().filter(move |e| e.break_it == break_it).map(|e| {
            let (name, title) = (e.name, e.title.as_deref().unwrap_or(t!(lang, "free play")));
            html! { <option value={name} selected={name == current}>{ format!("{name} — {title}") }</option> }
        })
    };
    let own = !is_builtin(&current);
    html! {
        <div class="scenario-bar" role="group" aria-label={t!(lang, "Scenarios and sharing")}>
            <h1>{ "raftlock" }</h1>
            <label>{ t!(lang, "Scenario") }{ " " }
                <select id="scenario" aria-label={t!(lang, "Built-in scenario")} onchange={p.send.reform(|e: Event| Command::LoadBuiltin(select_value(&e)))}>
                    { if own { html! { <option selected=true value="">{ if current.is_empty() { t!(lang, "scenario (your own)").to_string() } else { t!(lang, "{current} (your own)") } }</option> } } else { html! {} } }
                    <optgroup label={t!(lang, "Lessons")}>{ for options(false) }</optgroup>
                    <optgroup label={t!(lang, "Break it: one safeguard off")}>{ for options(true) }</optgroup>
                </select>
            </label>
            <button id="all-scenarios" onclick={send(p, Command::ScenarioList(true))}>{ t!(lang, "All scenarios…") }</button>
            <button id="share" onclick={send(p, Command::Share)} title={t!(lang, "Copy a link that reproduces this run at this moment")}>{ t!(lang, "Share link") }</button>
            <button id="copy-embed" onclick={send(p, Command::CopyEmbed)} title={t!(lang, "Copy an <iframe> for a course page: the lesson player at this scenario and moment")}>{ t!(lang, "Embed") }</button>
            { if page.in_lesson() { html! {
                <button id="tools" aria-pressed={page.tools_open.to_string()} aria-expanded={page.tools_open.to_string()}
                    onclick={send(p, Command::Tools(!page.tools_open))} title={t!(lang, "Stepping, seed, nodes, files, design switches, Raft settings, the bug hunt")}>{ t!(lang, "Tools") }</button>
            } } else { html! {} } }
            <button id="presenter" onclick={send(p, Command::Presenter(!page.presenter))} aria-pressed={page.presenter.to_string()} title={t!(lang, "Large type, one screen (p)")}>{ t!(lang, "Presenter") }</button>
            <button id="help" onclick={send(p, Command::Help(true))} title={t!(lang, "Shortcuts (?)")} aria-label={t!(lang, "Keyboard shortcuts")}>{ "?" }</button>
            // Each language under its own name, and the label in both: a reader lost in the other
            // language still finds the way back.
            <select id="lang" aria-label="Language / Язык" title="Language / Язык"
                onchange={p.send.reform(|e: Event| Command::SetLang(crate::lang::Lang::parse(&select_value(&e)).unwrap_or_default()))}>
                { for crate::lang::Lang::ALL.iter().map(|l| html! { <option value={l.code()} selected={*l == lang}>{ l.name() }</option> }) }
            </select>
            // What Share and Embed copied: a note that says so, over the page rather than in the
            // bar, with the text to copy by hand where the clipboard is not allowed.
            { if let Some(code) = &page.embed.code { html! {
                <div class="copied" role="status" id="embed-copied">
                    <strong>{ t!(lang, "✓ Embed code copied") }</strong>
                    <input id="embed-code" class="share-url" readonly=true value={code.clone()} aria-label={t!(lang, "Embed code (copied to the clipboard)")} />
                    <button class="close" onclick={send(p, Command::DismissError)} aria-label={t!(lang, "Close")}>{ "✕" }</button>
                </div>
            } } else { html! {} } }
            { if let Some(url) = &page.share_url { html! {
                <div class="copied" role="status" id="share-copied">
                    <strong>{ t!(lang, "✓ Link copied") }</strong>
                    <input id="share-url" class="share-url" readonly=true value={url.clone()} aria-label={t!(lang, "Share link (copied to the clipboard)")} />
                    <button class="close" onclick={send(p, Command::DismissError)} aria-label={t!(lang, "Close")}>{ "✕" }</button>
                </div>
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
    too_big: impl Fn(u64) -> String + 'static,
    done: impl Fn(String, Result<String, String>) -> Command + Clone + 'static,
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
        let (send, name, done) = (send.clone(), file.name(), done.clone());
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
    let seed = page.playground.scenario.seed;
    let n = page.playground.world.node_count;
    let lang = page.lang;
    let on_file = read_file(
        p,
        DOC_BYTES_MAX,
        move |size| {
            t!(
                lang,
                "That file is {} KB; scenario files are at most 1 MB.",
                size / 1024
            )
        },
        |_, r| Command::Import(r),
    );
    let on_trace = read_file(
        p,
        crate::model::trace_view::TRACE_BYTES_MAX,
        move |size| {
            t!(
                lang,
                "That trace is {} MB; the page opens traces of at most {} MB (raftlock check reads any size).",
                size / 1_048_576,
                crate::model::trace_view::TRACE_BYTES_MAX / 1_048_576
            )
        },
        move |name, r| {
            Command::OpenTrace(
                name,
                r.map_err(|e| t!(lang, "The file could not be read: {e}")),
            )
        },
    );
    html! {
        <div class="run-tools" role="group" aria-label={t!(lang, "Run tools")}>
            <button id="new-seed" onclick={p.send.reform(move |_| Command::Edit(Edit::Seed(random_seed(seed))))}>{ t!(lang, "New seed") }</button>
            <span class="seed">{ t!(lang, "seed {seed}") }</span>
            <label>{ t!(lang, "Nodes") }{ " " }
                <select id="nodes" aria-label={t!(lang, "Node count")} onchange={p.send.reform(|e: Event| Command::Edit(Edit::Nodes(select_value(&e).parse().unwrap_or(5))))}>
                    { for (3..=7).map(|k| html! { <option value={k.to_string()} selected={k == n}>{ k }</option> }) }
                </select>
            </label>
            <button id="export-scenario" onclick={send(p, Command::Export(Export::Scenario))}>{ t!(lang, "Export scenario") }</button>
            <button id="export-trace" onclick={send(p, Command::Export(Export::Trace))}>{ t!(lang, "Export trace") }</button>
            <label class="import button-like">{ t!(lang, "Import a scenario…") }<input id="import" type="file" accept=".json,application/json" onchange={on_file} /></label>
            <label class="import button-like" title={t!(lang, "A trace in the JSONL format from any implementation: read-only, checked against the seed's rules")}>{ t!(lang, "Open a trace…") }<input id="open-trace" type="file" accept=".jsonl,.ndjson,application/x-ndjson,text/plain" onchange={on_trace} /></label>
        </div>
    }
}
