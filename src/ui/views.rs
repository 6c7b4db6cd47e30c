//! What the page draws, as functions of the world. Every figure is read from the simulator.

use super::app::{speed_of, App, Msg};
use crate::check::INVARIANTS;
use crate::lock::{ApplyResult, LockOp};
use crate::playground::Playground;
use crate::raft::Role;
use crate::scenario::Action;
use crate::sim::World;
use crate::trace::Event as TraceEvent;
use std::fmt::Write as _;
use yew::html::Scope;
use yew::prelude::*;

pub fn fmt_us(us: i64) -> String {
    let sign = if us < 0 { "-" } else { "" };
    let a = us.unsigned_abs();
    format!("{sign}{}.{:03} s", a / 1_000_000, (a / 1000) % 1000)
}

fn fmt_rate(ppm: u32) -> String {
    let hundredths = (ppm + 5_000) / 10_000;
    format!("×{}.{:02}", hundredths / 100, hundredths % 100)
}

/// A coordinate with one decimal, formatted with integer arithmetic (float formatting costs
/// kilobytes of wasm).
fn num(v: f64) -> String {
    let tenths = (v * 10.0).round() as i64;
    let sign = if tenths < 0 { "-" } else { "" };
    let a = tenths.unsigned_abs();
    format!("{sign}{}.{}", a / 10, a % 10)
}

/// Unit-circle points for 3 to 7 nodes, starting at the top, clockwise (no trigonometry in wasm).
const RING: [&[(f64, f64)]; 5] = [
    &[(0.0, -1.0), (0.866, 0.5), (-0.866, 0.5)],
    &[(0.0, -1.0), (1.0, 0.0), (0.0, 1.0), (-1.0, 0.0)],
    &[
        (0.0, -1.0),
        (0.951, -0.309),
        (0.588, 0.809),
        (-0.588, 0.809),
        (-0.951, -0.309),
    ],
    &[
        (0.0, -1.0),
        (0.866, -0.5),
        (0.866, 0.5),
        (0.0, 1.0),
        (-0.866, 0.5),
        (-0.866, -0.5),
    ],
    &[
        (0.0, -1.0),
        (0.782, -0.623),
        (0.975, 0.223),
        (0.434, 0.901),
        (-0.434, 0.901),
        (-0.975, 0.223),
        (-0.782, -0.623),
    ],
];

fn fmt_speed(speed_ppm: u64) -> String {
    if speed_ppm >= 1_000_000 {
        format!("×{}", speed_ppm / 1_000_000)
    } else {
        format!("×1/{}", (1_000_000 + speed_ppm / 2) / speed_ppm)
    }
}

fn input_value(e: &InputEvent) -> String {
    e.target_unchecked_into::<web_sys::HtmlInputElement>()
        .value()
}

fn select_value(e: &yew::Event) -> String {
    e.target_unchecked_into::<web_sys::HtmlSelectElement>()
        .value()
}

pub fn page(app: &App, pg: &Playground, link: &Scope<App>) -> Html {
    let w = &pg.world;
    let class = classes!("page", app.presenter.then_some("presenter"));
    html! {
        <div class={class}>
            <header class="top">
                <h1>{ "raftlock" }</h1>
                <p class="tagline">{ "Raft nodes replicating a lock service with fencing tokens and leases. Cut links, drag clocks, crash the leader — and watch why the design holds." }</p>
            </header>
            { controls(app, pg, link) }
            { scenario_bar(app, pg, link) }
            { banners(app, link) }
            { lesson(app, pg, link) }
            <main class="grid">
                <section class="panel cluster-panel" aria-label="Cluster">
                    <h2>{ "Cluster" }</h2>
                    { cluster(w, link) }
                    { presets(w, link) }
                </section>
                <section class="panel" aria-label="Lock tables">
                    <h2>{ "Lock tables (one per node)" }</h2>
                    { lock_tables(w) }
                    <h2>{ "Clients and storage" }</h2>
                    { clients(w, link) }
                    { storage(w) }
                </section>
                <section class="panel wide" aria-label="Clocks" id="clocks-panel">
                    <h2>{ "Clocks and nodes" }</h2>
                    <Lazy tick={app.panel_tick("clocks-panel")} render={lazy(app, link, move |w, _, link| clocks(w, link))} />
                </section>
                <section class="panel wide" aria-label="Replicated log" id="log-panel">
                    <h2>{ "Replicated log" }</h2>
                    <Lazy tick={app.panel_tick("log-panel")} render={{ let from = app.log_from; lazy(app, link, move |w, _, link| log_view(from, w, link)) }} />
                </section>
                <section class="panel wide" aria-label="Space-time diagram" id="spacetime-panel">
                    <h2>{ "Space-time diagram (last 2 s of true time)" }</h2>
                    <Lazy tick={app.panel_tick("spacetime-panel")} render={lazy(app, link, move |w, v, _| spacetime(w, v))} />
                </section>
                <section class="panel" aria-label="Events" id="events-panel">
                    <h2>{ "What happened" }</h2>
                    <Lazy tick={app.panel_tick("events-panel")} render={lazy(app, link, move |w, _, _| event_log(w))} />
                </section>
                <section class="panel" aria-label="Invariants">
                    <h2>{ "Invariants" }</h2>
                    { invariants(w) }
                    { history_check(app, link) }
                </section>
                { if let Some((b, name)) = &app.compare { side_by_side(w, &b.borrow().world, name, link) } else { html! {} } }
                <section class="panel wide" aria-label="Design switches">
                    <h2>{ "Design switches: break one safeguard and watch which guarantee fails" }</h2>
                    { hunt_panel(app, pg, link) }
                    { switches(pg, link) }
                    { raft_settings(app, pg, link) }
                </section>
            </main>
            { if app.help { help(link) } else { html! {} } }
            { if app.list_open { scenario_list(link) } else { html! {} } }
        </div>
    }
}

fn controls(app: &App, pg: &Playground, link: &Scope<App>) -> Html {
    let w = &pg.world;
    let horizon = pg.horizon_us.max(w.now_us).max(1);
    let speed = speed_of(app.speed_pos);
    let n = w.n;
    html! {
        <nav class="controls" aria-label="Time controls">
            <button id="play" onclick={link.callback(|_| Msg::TogglePlay)} aria-pressed={app.playing.to_string()}>
                { if app.playing { "⏸ Pause" } else { "▶ Play" } }
            </button>
            <button id="step-back" onclick={link.callback(|_| Msg::StepBack)} title="Step back (←)">{ "← Back" }</button>
            <button id="step" onclick={link.callback(|_| Msg::Step)} title="Step one event (→)">{ "Event →" }</button>
            <button id="step-apply" onclick={link.callback(|_| Msg::StepApply)} title="Run to the next apply (a)">{ "Next apply ⇥" }</button>
            <label class="speed">{ "Speed " }
                <input id="speed" type="range" min="0" max={(super::app::SPEED_STOPS.len() - 1).to_string()} value={app.speed_pos.to_string()} aria-label="Speed"
                    oninput={link.callback(|e: InputEvent| Msg::Speed(input_value(&e).parse().unwrap_or(0)))} />
                <output>{ fmt_speed(speed) }</output>
            </label>
            <label class="scrub">{ "Time " }
                <input id="scrubber" type="range" min="0" max={horizon.to_string()} value={w.now_us.to_string()} aria-label="Timeline"
                    oninput={link.callback(|e: InputEvent| Msg::Seek(input_value(&e).parse().unwrap_or(0)))} />
                <output id="now">{ fmt_us(w.now_us as i64) }</output>
            </label>
            <button id="take-over" onclick={link.callback(|_| Msg::TakeOver)} title="Discard the future and continue from here (t)"
                disabled={w.now_us >= pg.horizon_us}>{ "Take over" }</button>
            <button id="restart" onclick={link.callback(|_| Msg::Restart)}>{ "↺ Restart" }</button>
            <button id="new-seed" onclick={link.callback(|_| Msg::NewSeed)}>{ "New seed" }</button>
            <span class="seed">{ format!("seed {}", pg.scenario.seed) }</span>
            <label>{ "Nodes " }
                <select id="nodes" aria-label="Node count" onchange={link.callback(|e: yew::Event| Msg::Nodes(select_value(&e).parse().unwrap_or(5)))}>
                    { for (3..=7).map(|k| html! { <option value={k.to_string()} selected={k == n}>{ k }</option> }) }
                </select>
            </label>
            <button id="presenter" onclick={link.callback(|_| Msg::Presenter)} aria-pressed={app.presenter.to_string()} title="Large type (p)">{ "Presenter" }</button>
            <button id="help" onclick={link.callback(|_| Msg::Help(true))} title="Shortcuts (?)">{ "?" }</button>
            <span class="status" id="status">{ format!("{} events · {} in flight · frame {} ms", w.stats.events, w.in_flight_count(), num(app.frame_work_ms)) }</span>
        </nav>
    }
}

fn scenario_bar(app: &App, pg: &Playground, link: &Scope<App>) -> Html {
    let current = pg.scenario.name.clone();
    let options = |break_it: bool| {
        let current = current.clone();
        crate::scenario::builtin::names().filter(move |n| crate::scenario::builtin::is_break_it(n) == break_it).map(move |name| {
            let title = crate::scenario::builtin::get(name).and_then(|s| s.lesson.map(|l| l.title)).unwrap_or_else(|| "free play".into());
            html! { <option value={name} selected={name == current}>{ format!("{name} — {title}") }</option> }
        })
    };
    let on_file = link.batch_callback(|e: yew::Event| {
        let input = e.target_unchecked_into::<web_sys::HtmlInputElement>();
        let file = input.files().and_then(|f| f.get(0));
        input.set_value("");
        file.map(Msg::ImportFile)
    });
    html! {
        <div class="scenario-bar" role="group" aria-label="Scenarios and sharing">
            <label>{ "Scenario " }
                <select id="scenario" aria-label="Built-in scenario" onchange={link.callback(|e: yew::Event| Msg::LoadBuiltin(select_value(&e)))}>
                    { if crate::scenario::builtin::get(&current).is_none() { html! { <option selected=true value="">{ format!("{} (your own)", if current.is_empty() { "scenario" } else { &current }) }</option> } } else { html! {} } }
                    <optgroup label="Lessons">{ for options(false) }</optgroup>
                    <optgroup label="Break it: one safeguard off">{ for options(true) }</optgroup>
                </select>
            </label>
            <button id="all-scenarios" onclick={link.callback(|_| Msg::ScenarioList(true))}>{ "All scenarios…" }</button>
            <button id="share" onclick={link.callback(|_| Msg::Share)} title="Copy a link that reproduces this run at this moment">{ "Share link" }</button>
            <button id="export-scenario" onclick={link.callback(|_| Msg::Export("scenario"))}>{ "Export scenario" }</button>
            <button id="export-trace" onclick={link.callback(|_| Msg::Export("trace"))}>{ "Export trace" }</button>
            <label class="import">{ "Import scenario " }<input id="import" type="file" accept=".json,application/json" onchange={on_file} /></label>
            { if let Some(url) = &app.share_url { html! {
                <input id="share-url" class="share-url" readonly=true value={url.clone()} aria-label="Share link (copied to the clipboard)" />
            } } else { html! {} } }
        </div>
    }
}

fn lesson(app: &App, pg: &Playground, link: &Scope<App>) -> Html {
    let Some(lesson) = &pg.scenario.lesson else {
        return html! {};
    };
    let w = &pg.world;
    let shown = app.lesson_pos;
    let caption = if shown == 0 {
        pg.scenario.description.clone()
    } else {
        lesson
            .captions
            .get(shown - 1)
            .map(|c| c.text.clone())
            .unwrap_or_default()
    };
    let checks = lesson.checks.iter().map(|c| {
        let ok = c.passed(w);
        html! { <li class={if ok { "ok" } else { "pending" }}>{ if ok { "✓ " } else { "… " } }{ c.describe() }</li> }
    });
    let next_label = lesson.captions.get(shown).map(|c| match (c.at_ms, c.on) {
        (Some(t), _) => format!("Next: to {}", fmt_us(t as i64 * 1000)),
        (None, Some(m)) => format!(
            "Next: until {}",
            serde_json::to_string(&m)
                .unwrap_or_default()
                .trim_matches('"')
                .replace('_', " ")
        ),
        _ => "Next".into(),
    });
    html! {
        <section class="lesson panel wide" aria-label="Lesson">
            <h2>{ format!("Lesson: {}", lesson.title) }<small>{ format!("  step {} of {}", shown, lesson.captions.len()) }</small></h2>
            <p class="caption" id="caption" aria-live="polite">{ caption }</p>
            <div class="lesson-nav">
                <button id="lesson-back" disabled={shown == 0} onclick={link.callback(|_| Msg::LessonBack)}>{ "← Back" }</button>
                <button id="lesson-next" disabled={next_label.is_none()} onclick={link.callback(|_| Msg::LessonNext)}>{ next_label.unwrap_or_else(|| "The end".into()) }</button>
            </div>
            <ul class="checks" id="checks" aria-label="Expected outcomes">{ for checks }</ul>
        </section>
    }
}

fn banners(app: &App, link: &Scope<App>) -> Html {
    html! {
        <>
        { if let Some(e) = &app.error { html! {
            <div class="banner error" role="alert" id="error">{ e.clone() }
                <button onclick={link.callback(|_| Msg::DismissError)} aria-label="Dismiss">{ "✕" }</button></div>
        } } else { html! {} } }
        { if let Some(v) = &app.stopped_at { html! {
            <div class="banner violation" role="alert" id="violation">{ format!("Paused at a broken invariant: {v}") }</div>
        } } else { html! {} } }
        </>
    }
}

// ---- the cluster ring ---------------------------------------------------------------------------

const CX: f64 = 260.0;
const CY: f64 = 215.0;
const R: f64 = 150.0;

fn node_pos(i: usize, n: usize) -> (f64, f64) {
    let (x, y) = RING[n.clamp(3, 7) - 3][i % n.clamp(3, 7)];
    (CX + R * x, CY + R * y)
}

fn client_pos(c: usize, count: usize) -> (f64, f64) {
    let span = 280.0;
    let y = if count <= 1 {
        CY
    } else {
        CY - span / 2.0 + c as f64 * span / (count - 1) as f64
    };
    (505.0, y - 20.0)
}

const STORAGE_POS: (f64, f64) = (505.0, 405.0);

/// Where endpoint `e` is drawn; a directed link is offset to its left so both directions show.
fn endpoint_pos(w: &World, e: usize) -> (f64, f64) {
    if e < w.n {
        node_pos(e, w.n)
    } else if e < w.storage_endpoint() {
        client_pos(e - w.n, w.clients.len())
    } else {
        STORAGE_POS
    }
}

fn offset_line(a: (f64, f64), b: (f64, f64), off: f64) -> ((f64, f64), (f64, f64)) {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let (nx, ny) = (-dy / len * off, dx / len * off);
    ((a.0 + nx, a.1 + ny), (b.0 + nx, b.1 + ny))
}

/// A clickable band around a link (a polygon, so even a horizontal link has an area).
fn hit_area(p: (f64, f64), q: (f64, f64)) -> String {
    let (a1, b1) = offset_line(p, q, 5.0);
    let (a2, b2) = offset_line(p, q, -5.0);
    format!(
        "{:.1},{:.1} {:.1},{:.1} {:.1},{:.1} {:.1},{:.1}",
        a1.0, a1.1, b1.0, b1.1, b2.0, b2.1, a2.0, a2.1
    )
}

fn kind_letter(kind: &str) -> &'static str {
    match kind {
        "vote" => "V",
        "prevote" => "P",
        "vote_reply" | "prevote_reply" => "v",
        "append" => "A",
        "heartbeat" => "H",
        "append_reply" => "a",
        "request" => "Q",
        "reply" => "R",
        "snapshot" => "S",
        _ => "W",
    }
}

fn cluster(w: &World, link: &Scope<App>) -> Html {
    let n = w.n;
    let mut links = Vec::new();
    for a in 0..n {
        for b in 0..n {
            if a == b {
                continue;
            }
            let up = w.net.is_up(a, b);
            let (p, q) = offset_line(node_pos(a, n), node_pos(b, n), 5.0);
            let action = if up {
                Action::Cut {
                    from: format!("n{}", a + 1),
                    to: format!("n{}", b + 1),
                }
            } else {
                Action::Heal {
                    from: format!("n{}", a + 1),
                    to: format!("n{}", b + 1),
                }
            };
            let label = format!(
                "link n{} to n{}: {}; click to {}",
                a + 1,
                b + 1,
                if up { "up" } else { "cut" },
                if up { "cut" } else { "heal" }
            );
            let onclick = link.callback(move |_| Msg::Act(action.clone()));
            let mid = ((p.0 + q.0) / 2.0, (p.1 + q.1) / 2.0);
            links.push(html! {
                <g class={classes!("link", (!up).then_some("cut"))} id={format!("link-{}-{}", a + 1, b + 1)} role="button" aria-label={label.clone()} {onclick}>
                    <title>{ label }</title>
                    <polygon class="hit" points={hit_area(p, q)} />
                    <line class="wire" x1={num(p.0)} y1={num(p.1)} x2={num(q.0)} y2={num(q.1)} marker-end="url(#arrow)" />
                    { if !up { html! { <text class="cutmark" x={num(mid.0)} y={num(mid.1)}>{ "✕" }</text> } } else { html! {} } }
                </g>
            });
        }
    }
    // Client connections: to the node each client talks to now.
    let conns = w.clients.iter().enumerate().map(|(c, slot)| {
        let (cp, np) = (client_pos(c, w.clients.len()), node_pos(slot.client.target, n));
        let up = w.net.is_up(n + c, slot.client.target) && w.net.is_up(slot.client.target, n + c);
        html! { <line class={classes!("conn", (!up).then_some("cut"))} x1={num(cp.0)} y1={num(cp.1)} x2={num(np.0)} y2={num(np.1)} /> }
    });
    let now = w.now_us;
    // Placed by one transform (one attribute a frame). Not keyed: at 1x most messages live
    // less than a frame, and patching an element is cheaper than replacing it.
    let msgs = w.in_flight().into_iter().take(300).map(|(f, t, kind, sent, at)| {
        let off = if f < n && t < n { 5.0 } else { 0.0 };
        let (p, q) = offset_line(endpoint_pos(w, f), endpoint_pos(w, t), off);
        let frac = if at > sent { (now.saturating_sub(sent)) as f64 / (at - sent) as f64 } else { 1.0 };
        let frac = frac.clamp(0.0, 1.0);
        let (x, y) = (p.0 + (q.0 - p.0) * frac, p.1 + (q.1 - p.1) * frac);
        html! {
            <g class={classes!("msg", kind)} transform={format!("translate({} {})", num(x), num(y))}>
                <circle r="7" />
                <text y="3.5">{ kind_letter(kind) }</text>
            </g>
        }
    });
    let nodes = (0..n).map(|i| {
        let (x, y) = node_pos(i, n);
        let slot = &w.nodes[i];
        let (role, term) = match &slot.server {
            Some(s) => (s.raft.role(), s.raft.term()),
            None => (Role::Follower, slot.persisted.as_ref().map_or(0, |h| h.term)),
        };
        let state = if slot.server.is_none() { "crashed" } else if slot.paused { "paused" } else { role.name() };
        let label = match state {
            "leader" => "LEADER",
            "candidate" => "candidate",
            "precandidate" => "pre-cand.",
            "crashed" => "CRASHED",
            "paused" => "PAUSED",
            _ => "follower",
        };
        let local = w.local_now(i);
        html! {
            <g class={classes!("node", state)} id={format!("node-{}", i + 1)}>
                <title>{ format!("n{}: {} of term {}; local clock {} at rate {}", i + 1, state, term, fmt_us(local), fmt_rate(slot.clock.rate_ppm())) }</title>
                <circle cx={num(x)} cy={num(y)} r="36" />
                <text class="name" x={num(x)} y={num(y - 14.0)}>{ format!("n{}", i + 1) }</text>
                <text class="role" x={num(x)} y={num(y + 1.0)}>{ label }</text>
                <text class="term" x={num(x)} y={num(y + 15.0)}>{ format!("term {term}") }</text>
                <text class="clock" x={num(x)} y={num(y + 49.0)}>{ format!("{} {}", fmt_us(local), fmt_rate(slot.clock.rate_ppm())) }</text>
            </g>
        }
    });
    let box_h = if w.clients.len() > 1 {
        (280.0 / (w.clients.len() - 1) as f64 - 3.0).min(34.0)
    } else {
        34.0
    };
    let clients = w.clients.iter().enumerate().map(|(c, slot)| {
        let (x, y) = client_pos(c, w.clients.len());
        let state = if slot.crashed { "crashed" } else if slot.paused { "paused" } else { "up" };
        let held = slot.client.held.iter().filter(|(_, h)| h.until_local_us > slot.clock.local_at(w.now_us)).map(|(k, h)| format!("{k}#{}", h.token)).collect::<Vec<_>>().join(" ");
        html! {
            <g class={classes!("client", state)} id={format!("client-{}", slot.client.cfg.name)}>
                <rect x={num(x - 30.0)} y={num(y - box_h / 2.0)} width="60" height={num(box_h)} rx="6" />
                <text class="name" x={num(x)} y={num(y - 2.0)}>{ format!("{}{}", slot.client.cfg.name, if slot.paused { " ⏸" } else if slot.crashed { " ✕" } else { "" }) }</text>
                <text class="held" x={num(x)} y={num(y + 11.0)}>{ held }</text>
            </g>
        }
    });
    html! {
        <svg class="cluster" viewBox="0 0 560 430" role="img" aria-labelledby="cluster-title">
            <title id="cluster-title">{ format!("{n} Raft nodes on a ring with their links, {} clients and the storage", w.clients.len()) }</title>
            <defs>
                <marker id="arrow" viewBox="0 0 10 10" refX="44" refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse">
                    <path d="M 0 0 L 10 5 L 0 10 z" />
                </marker>
            </defs>
            // Each list in its own group: the messages in flight change in number every frame,
            // and a group keeps that from re-shaping the elements after them.
            <g class="conns">{ for conns }</g>
            <g class="links">{ for links }</g>
            <g class="nodes">{ for nodes }</g>
            <g class="clients">{ for clients }</g>
            <g class="storage">
                <rect x={num(STORAGE_POS.0 - 34.0)} y={num(STORAGE_POS.1 - 14.0)} width="68" height="28" rx="4" />
                <text x={num(STORAGE_POS.0)} y={num(STORAGE_POS.1 + 4.0)}>{ "storage" }</text>
            </g>
            <g class="msgs">{ for msgs }</g>
        </svg>
    }
}

fn presets(w: &World, link: &Scope<App>) -> Html {
    let leader = w.leader();
    let n = w.n;
    let isolate = leader.map(|l| Action::Isolate { node: l + 1 });
    let split = leader.map(|l| {
        let mut minority = vec![l + 1];
        let mut majority = Vec::new();
        for k in 1..=n {
            if k != l + 1 {
                if minority.len() < (n - 1) / 2 {
                    minority.push(k);
                } else {
                    majority.push(k);
                }
            }
        }
        Action::Partition {
            groups: vec![minority, majority],
        }
    });
    html! {
        <div class="presets" role="group" aria-label="Network presets">
            <button id="isolate-leader" disabled={isolate.is_none()} onclick={link.callback(move |_| match &isolate { Some(a) => Msg::Act(a.clone()), None => Msg::Refresh })}>{ "Isolate the leader" }</button>
            <button id="split" disabled={split.is_none()} onclick={link.callback(move |_| match &split { Some(a) => Msg::Act(a.clone()), None => Msg::Refresh })}>{ "Split: leader in the minority" }</button>
            <button id="heal-all" onclick={link.callback(|_| Msg::Act(Action::HealAll))}>{ "Heal all" }</button>
            <span class="legend">{ "Click a link to cut or heal one direction. Letters: P/V votes, H heartbeat, A append, a/v replies, Q client request, R reply, S snapshot (InstallSnapshot), W storage write." }</span>
        </div>
    }
}

// ---- clocks and per-node controls -----------------------------------------------------------------

/// The rate slider's stops: 2^(k/10) for k = −20..=20, in ppm (0.25× to 4×, logarithmic).
const RATE_STOPS: [u32; 41] = [
    250000, 267943, 287175, 307786, 329877, 353553, 378929, 406126, 435275, 466516, 500000, 535887,
    574349, 615572, 659754, 707107, 757858, 812252, 870551, 933033, 1000000, 1071773, 1148698,
    1231144, 1319508, 1414214, 1515717, 1624505, 1741101, 1866066, 2000000, 2143547, 2297397,
    2462289, 2639016, 2828427, 3031433, 3249010, 3482202, 3732132, 4000000,
];

fn rate_of(pos: i32) -> u32 {
    RATE_STOPS[(pos.clamp(-20, 20) + 20) as usize]
}

fn pos_of(rate_ppm: u32) -> i32 {
    let i = RATE_STOPS
        .iter()
        .enumerate()
        .min_by_key(|(_, r)| r.abs_diff(rate_ppm))
        .map_or(20, |(i, _)| i);
    i as i32 - 20
}

fn clocks(w: &World, link: &Scope<App>) -> Html {
    let rows = (0..w.n).map(|i| {
        let k = i + 1;
        let slot = &w.nodes[i];
        let up = slot.server.is_some();
        let rate = slot.clock.rate_ppm();
        let crash = if up { Action::Crash { node: k } } else { Action::Restart { node: k } };
        let pause = if slot.paused { Action::Resume { node: k } } else { Action::Pause { node: k } };
        html! {
            <tr>
                <th scope="row">{ format!("n{k}") }</th>
                <td>
                    <input type="range" min="-20" max="20" value={pos_of(rate).to_string()} id={format!("rate-{k}")}
                        aria-label={format!("clock rate of n{k}")}
                        oninput={link.callback(move |e: InputEvent| Msg::Act(Action::SetRate { node: k, rate_ppm: rate_of(input_value(&e).parse().unwrap_or(0)) }))} />
                </td>
                <td class="num">{ format!("{} ({} ppm)", fmt_rate(rate), rate) }</td>
                <td class="num">{ fmt_us(w.local_now(i)) }</td>
                <td>
                    <button aria-label={format!("n{k} clock back 500 ms")} onclick={link.callback(move |_| Msg::Act(Action::Jump { node: k, ms: -500 }))}>{ "−500 ms" }</button>
                    <button aria-label={format!("n{k} clock forward 500 ms")} onclick={link.callback(move |_| Msg::Act(Action::Jump { node: k, ms: 500 }))}>{ "+500 ms" }</button>
                    <button aria-label={format!("reset n{k} clock rate")} onclick={link.callback(move |_| Msg::Act(Action::SetRate { node: k, rate_ppm: 1_000_000 }))}>{ "×1" }</button>
                </td>
                <td>
                    <button id={format!("crash-{k}")} onclick={link.callback(move |_| Msg::Act(crash.clone()))}>{ if up { "Crash" } else { "Restart" } }</button>
                    <button id={format!("pause-{k}")} disabled={!up} onclick={link.callback(move |_| Msg::Act(pause.clone()))}>{ if slot.paused { "Resume" } else { "Pause" } }</button>
                </td>
            </tr>
        }
    });
    html! {
        <table class="clocks">
            <thead><tr><th>{ "node" }</th><th>{ "clock rate (0.25×–4×)" }</th><th>{ "rate" }</th><th>{ "local time" }</th><th>{ "jump" }</th><th>{ "process" }</th></tr></thead>
            <tbody>{ for rows }</tbody>
            <tfoot><tr><td colspan="6">{ format!("true time {}", fmt_us(w.now_us as i64)) }</td></tr></tfoot>
        </table>
    }
}

// ---- the replicated log -------------------------------------------------------------------------

const LOG_COLS: u64 = 16;

/// A panel drawn by `render` whenever `tick` changes, and skipped (neither rebuilt nor diffed)
/// while it stays: see `App::panel_tick`.
#[derive(Clone, Properties)]
pub struct LazyProps {
    pub tick: u64,
    pub render: std::rc::Rc<dyn Fn() -> Html>,
}

impl PartialEq for LazyProps {
    fn eq(&self, o: &Self) -> bool {
        self.tick == o.tick
    }
}

#[function_component(Lazy)]
pub fn lazy_panel(p: &LazyProps) -> Html {
    (p.render)()
}

/// A `Lazy` panel's drawing function: `f` of the world, the last history verdict and the link.
fn lazy(
    app: &App,
    link: &Scope<App>,
    f: impl Fn(&World, Option<&Verdict>, &Scope<App>) -> Html + 'static,
) -> std::rc::Rc<dyn Fn() -> Html> {
    let (pg, link) = (app.pg.clone(), link.clone());
    let verdict = app.history.as_ref().and_then(|h| h.1.clone());
    std::rc::Rc::new(move || f(&pg.borrow().world, verdict.as_deref(), &link))
}

fn log_view(log_from: Option<u64>, w: &World, link: &Scope<App>) -> Html {
    let last = (0..w.n)
        .map(|i| match (&w.nodes[i].server, &w.nodes[i].persisted) {
            (Some(s), _) => s.raft.log().last_index(),
            (None, Some(h)) => h.log.last_index(),
            _ => 0,
        })
        .max()
        .unwrap_or(0);
    let max_from = last.saturating_sub(LOG_COLS - 1).max(1);
    // Following the end, the window moves half a table at a time: the columns stand still while
    // entries fill them (readable while playing, and a frame patches only the cells that
    // changed instead of shifting every cell by one for each new entry).
    let step = LOG_COLS / 2;
    let follow_from = 1 + step * last.saturating_sub(LOG_COLS).div_ceil(step);
    let from = log_from.map_or(follow_from, |f| f.clamp(1, max_from));
    let max_from = max_from.max(from);
    let to = from + LOG_COLS - 1;
    let header = (from..=to).map(|i| html! { <th scope="col">{ i }</th> });
    let rows = (0..w.n).map(|i| {
        let slot = &w.nodes[i];
        let (log, commit, results) = match (&slot.server, &slot.persisted) {
            (Some(s), _) => (Some(s.raft.log()), s.raft.commit_index(), Some(s)),
            (None, Some(h)) => (Some(&h.log), 0, None),
            _ => (None, 0, None),
        };
        let cells = (from..=to).map(|idx| {
            // Every cell has the same three spans, empty or not: while playing, a cell that fills
            // only changes text and classes (no elements created or removed).
            let Some(e) = log.and_then(|l| l.entry(idx)) else {
                if log.is_some_and(|l| idx <= l.start()) {
                    // Dropped by log compaction (§7): the node's snapshot holds its effect.
                    let title = format!("index {idx}: compacted, its effect is in n{}'s snapshot", i + 1);
                    return html! { <td class="compacted" title={title}><span class="txt">{ "" }</span><span class="meta">{ "snap" }</span><span class="res">{ "" }</span></td> };
                }
                return html! { <td class="empty"><span class="txt">{ "" }</span><span class="meta">{ "" }</span><span class="res">{ "" }</span></td> };
            };
            let (kind, text) = match e.cmd.as_ref().map(|c| &c.op) {
                None => ("noop", "no-op".to_string()),
                Some(LockOp::Grant { key, lease_ms }) => ("grant", format!("G {key} {lease_ms}ms")),
                Some(LockOp::Release { key, .. }) => ("release", format!("R {key}")),
                Some(LockOp::Expire { key, token }) => ("expire", format!("E {key}·{token}")),
            };
            let applied = results.and_then(|s| s.result_at(idx));
            let result = applied.map(|r| match r {
                ApplyResult::Granted { token } => format!("Granted{{token {token}}}"),
                ApplyResult::GrantRejected => "GrantRejected".into(),
                ApplyResult::Released => "Released".into(),
                ApplyResult::NotFound => "NotFound".into(),
                ApplyResult::Expired { existed } => format!("Expired{{existed: {existed}}}"),
                ApplyResult::Noop => "Noop".into(),
            });
            // In the cell, the seed's form with the value in place of the field's name (the
            // token is what matters and must fit); the title has the whole result.
            let short = applied.map(|r| match r {
                ApplyResult::Granted { token } => format!("Granted{{{token}}}"),
                ApplyResult::Expired { existed } => format!("Expired{{{existed}}}"),
                _ => result.clone().unwrap_or_default(),
            });
            let committed = idx <= commit;
            let title = format!("index {idx}, term {}: {}{}", e.term, text, result.as_ref().map_or(" (not applied here)".to_string(), |r| format!(" → {r}")));
            html! {
                <td class={classes!("entry", kind, if committed { "committed" } else { "pending" }, format!("t{}", e.term % 6))} title={title}>
                    <span class="txt">{ text }</span>
                    <span class="meta">{ format!("t{}{}", e.term, if committed { "" } else { " ⋯" }) }</span>
                    <span class="res">{ short.unwrap_or_default() }</span>
                </td>
            }
        });
        let snap = slot.snapshot_index();
        let snap_title = if snap > 0 { format!("snapshot at index {snap}") } else { "no snapshot yet".to_string() };
        html! { <tr><th scope="row" title={snap_title}>{ format!("n{}", i + 1) }</th>{ for cells }</tr> }
    });
    let follow = log_from.is_none();
    html! {
        <div class="log">
            <div class="logbar">
                <label>{ "From index " }
                    <input type="range" min="1" max={max_from.to_string()} value={from.to_string()} aria-label="Scroll the log"
                        oninput={link.callback(|e: InputEvent| Msg::LogFrom(input_value(&e).parse().ok()))} />
                </label>
                <button aria-pressed={follow.to_string()} onclick={link.callback(|_| Msg::LogFrom(None))}>{ "Follow the end" }</button>
                <span class="legend">{ "Solid: committed · dashed with ⋯: not committed · below each entry: its apply result on that node (Granted{41}: granted with token 41) · grey “snap”: compacted into the node's snapshot" }</span>
            </div>
            <table class="logtable"><thead><tr><th></th>{ for header }</tr></thead><tbody>{ for rows }</tbody></table>
        </div>
    }
}

// ---- lock tables, clients, storage ---------------------------------------------------------------

fn lock_tables(w: &World) -> Html {
    let tables = (0..w.n).map(|i| {
        let slot = &w.nodes[i];
        let Some(s) = &slot.server else {
            return html! { <div class="locktable down"><h3>{ format!("n{} — crashed", i + 1) }</h3></div> };
        };
        let local = w.local_now(i);
        let rows = s.machine.locks.iter().map(|(k, l)| {
            let remaining = s.leases.get(k).filter(|x| x.token == l.token).map(|x| x.deadline_local_us - local);
            let holder = l.holder.map(|c| w.client_name(c)).unwrap_or_else(|| "—".into());
            html! {
                <tr>
                    <td>{ k.clone() }</td><td>{ holder }</td><td class="num">{ l.token }</td>
                    <td class={classes!("num", remaining.is_some_and(|r| r <= 0).then_some("over"))}>
                        { remaining.map_or("—".into(), |r| if r > 0 { fmt_us(r) } else { format!("over by {}", fmt_us(-r)) }) }
                    </td>
                </tr>
            }
        });
        let empty = s.machine.locks.is_empty();
        html! {
            <div class="locktable">
                <h3>{ format!("n{} ", i + 1) }<small>{ format!("applied {} · table #{:04x}", s.machine.applied, s.machine.digest() & 0xffff) }</small></h3>
                <table>
                    <thead><tr><th>{ "key" }</th><th>{ "holder" }</th><th>{ "token" }</th><th>{ "lease left (own clock)" }</th></tr></thead>
                    <tbody>
                        { for rows }
                        { if empty { html! { <tr><td colspan="4" class="none">{ "no locks held" }</td></tr> } } else { html! {} } }
                    </tbody>
                </table>
            </div>
        }
    });
    html! { <div class="locktables">{ for tables }</div> }
}

fn clients(w: &World, link: &Scope<App>) -> Html {
    let rows = w.clients.iter().map(|slot| {
        let name = slot.client.cfg.name.clone();
        let local = slot.clock.local_at(w.now_us);
        let belief = slot
            .client
            .held
            .iter()
            .map(|(k, h)| {
                if h.until_local_us > local {
                    format!("holds {k} (token {}) for {} more", h.token, fmt_us(h.until_local_us - local))
                } else {
                    format!("its lease on {k} (token {}) ran out", h.token)
                }
            })
            .collect::<Vec<_>>()
            .join("; ");
        let state = if slot.crashed { "crashed".to_string() } else { crate::snapshot::client_state(&slot.client) };
        let connected = (0..w.n).any(|p| w.net.is_up(w.n + slot.client.id as usize, p));
        let n1 = name.clone();
        let n2 = name.clone();
        let n3 = name.clone();
        let n4 = name.clone();
        let n5 = name.clone();
        let pause = if slot.paused { Action::ClientResume { client: n1 } } else { Action::ClientPause { client: n1 } };
        let crash = if slot.crashed { Action::ClientRestart { client: n2 } } else { Action::ClientCrash { client: n2 } };
        let conn = if connected { Action::ClientDisconnect { client: n3 } } else { Action::ClientReconnect { client: n3 } };
        html! {
            <tr id={format!("client-row-{name}")}>
                <th scope="row">{ name.clone() }</th>
                <td>{ format!("{state}{}", if slot.paused { " (paused)" } else { "" }) }</td>
                <td>{ if belief.is_empty() { "holds nothing".to_string() } else { belief } }</td>
                <td>
                    <button onclick={link.callback(move |_| Msg::Act(Action::ClientAcquire { client: n4.clone(), key: "k".into(), lease_ms: 1500 }))}
                        aria-label={format!("{name} acquires k")} disabled={slot.client.cfg.repeat}>{ "Acquire k" }</button>
                    <button onclick={link.callback(move |_| Msg::Act(Action::ClientRelease { client: n5.clone(), key: "k".into() }))}
                        aria-label={format!("{name} releases k")} disabled={slot.client.cfg.repeat}>{ "Release k" }</button>
                    <button onclick={link.callback(move |_| Msg::Act(pause.clone()))}>{ if slot.paused { "Resume" } else { "Pause" } }</button>
                    <button onclick={link.callback(move |_| Msg::Act(crash.clone()))}>{ if slot.crashed { "Restart" } else { "Crash" } }</button>
                    <button onclick={link.callback(move |_| Msg::Act(conn.clone()))}>{ if connected { "Disconnect" } else { "Reconnect" } }</button>
                </td>
            </tr>
        }
    });
    html! {
        <table class="clients">
            <thead><tr><th>{ "client" }</th><th>{ "doing" }</th><th>{ "believes (own clock, with margin)" }</th><th>{ "actions" }</th></tr></thead>
            <tbody>{ for rows }</tbody>
        </table>
    }
}

fn storage(w: &World) -> Html {
    let rows = w.storage.writes.iter().rev().take(8).map(|x| {
        html! {
            <li class={if x.accepted { "accepted" } else { "rejected" }}>
                { format!("{} {} wrote {} with token {}: {}", fmt_us(x.t_us as i64), w.client_name(x.client), x.key, x.token,
                    if x.accepted { "✓ accepted" } else { "✗ rejected (stale token)" }) }
            </li>
        }
    });
    html! {
        <div class="storage-writes">
            <h3>{ format!("Storage ({}): highest token seen {}", if w.storage.ignores_tokens { "ignores tokens" } else { "fenced" },
                w.storage.highest.iter().map(|(k, t)| format!("{k}={t}")).collect::<Vec<_>>().join(", ")) }</h3>
            <ul>{ for rows }</ul>
        </div>
    }
}

// ---- space-time diagram --------------------------------------------------------------------------

const SPACETIME_MAX: usize = 300;

pub type Verdict = Result<Vec<crate::check::history::Hold>, crate::check::history::Conflict>;

/// The history check drawn on the client lanes: each client's operations (invocation → answer),
/// then either the linearization (each hold as a bar from its linearization point to its end,
/// a diamond at the point) or the two conflicting operations in red and a red line where the
/// shortest failing prefix ends.
fn history_overlay(
    w: &World,
    verdict: &Verdict,
    t0: u64,
    now: u64,
    x_of: &dyn Fn(u64) -> f64,
    y_of: &dyn Fn(usize) -> f64,
) -> Vec<Html> {
    let lane = |c: crate::lock::ClientId| w.n + c as usize;
    let mut out = Vec::new();
    let red: &[usize] = match verdict {
        Err(c) => &c.ops,
        Ok(_) => &[],
    };
    for (i, op) in (w.history.from()..).zip(w.history.ops.iter()) {
        let end = op.answer.as_ref().map_or(now, |a| a.0).min(now);
        if end < t0 || op.invoke_us > now {
            continue;
        }
        let (x1, x2, y) = (
            x_of(op.invoke_us.max(t0)),
            x_of(end),
            y_of(lane(op.client)) - 7.0,
        );
        let what =
            format!(
                "{} {} {}: invoked {}, {}",
                w.client_name(op.client),
                if op.acquire { "acquire" } else { "release" },
                op.key,
                fmt_us(op.invoke_us as i64),
                op.answer.as_ref().map_or(
                    "no answer (either outcome)".to_string(),
                    |(t, a)| format!("answered {a:?} at {}", fmt_us(*t as i64))
                )
            );
        let class = classes!(
            "op",
            red.contains(&i).then_some("conflict"),
            op.answer.is_none().then_some("open")
        );
        out.push(html! { <g class={class}><rect x={num(x1)} y={num(y)} width={num((x2 - x1).max(2.0))} height="3" /><title>{ what }</title></g> });
    }
    match verdict {
        Ok(holds) => {
            for h in holds
                .iter()
                .filter(|h| h.point_us <= now && h.end_us.is_none_or(|e| e >= t0))
            {
                let end = h.end_us.unwrap_or(now).min(now);
                let (x1, x2, y) = (
                    x_of(h.point_us.max(t0)),
                    x_of(end),
                    y_of(lane(h.client)) + 3.0,
                );
                let label = format!(
                    "linearization: {} holds {} with token {} from {} to {}{}",
                    w.client_name(h.client),
                    h.key,
                    h.token,
                    fmt_us(h.point_us as i64),
                    h.end_us.map_or("now".to_string(), |e| fmt_us(e as i64)),
                    if h.by_expiry {
                        " (lease expiry)"
                    } else {
                        " (release)"
                    }
                );
                let diamond = (h.point_us >= t0).then(|| {
                    let x = x_of(h.point_us);
                    html! { <path class="point" d={format!("M{} {}l4 4l-4 4l-4 -4z", num(x), num(y - 2.0))} /> }
                });
                out.push(html! {
                    <g class={classes!("hold", h.by_expiry.then_some("expiry"))}>
                        <rect x={num(x1)} y={num(y)} width={num((x2 - x1).max(1.0))} height="4" />
                        { diamond.unwrap_or_default() }
                        <title>{ label }</title>
                    </g>
                });
            }
        }
        Err(c) if c.at_us >= t0 && c.at_us <= now => {
            let x = x_of(c.at_us);
            out.push(html! {
                <g class="prefix-end">
                    <line x1={num(x)} x2={num(x)} y1="4" y2={num(y_of(w.n + w.clients.len()))} />
                    <text x={num(x - 4.0)} y="10" text-anchor="end">{ "the shortest failing prefix of the history ends here →" }</text>
                    <title>{ c.message.clone() }</title>
                </g>
            });
        }
        Err(_) => {}
    }
    out
}

fn spacetime(w: &World, verdict: Option<&Verdict>) -> Html {
    let window_us = 2_000_000u64;
    let now = w.now_us;
    let t0 = now.saturating_sub(window_us);
    let lanes = w.n + w.clients.len() + 1;
    let (width, lane_h, left) = (1100.0, 26.0, 60.0);
    let height = lanes as f64 * lane_h + 20.0;
    let x_of =
        |t: u64| left + (t.saturating_sub(t0)) as f64 / window_us as f64 * (width - left - 10.0);
    let y_of = |e: usize| 14.0 + e as f64 * lane_h;
    let lane_lines = (0..lanes).map(|e| {
        html! { <g class="lane"><text x="4" y={num(y_of(e) + 4.0)}>{ w.endpoint_name(e) }</text>
        <line x1={num(left)} x2={num(width)} y1={num(y_of(e))} y2={num(y_of(e))} /></g> }
    });
    // Lease intervals: from each node's countdown, mapped from its local clock to true time.
    let leases = (0..w.n).flat_map(|i| {
        let slot = &w.nodes[i];
        let leases: Vec<Html> = slot
            .server
            .iter()
            .flat_map(|s| s.leases.iter())
            .map(|(k, l)| {
                let end = slot.clock.true_when(l.deadline_local_us, now);
                let start = end.saturating_sub(l.lease_ms * 1000 * 1_000_000 / slot.clock.rate_ppm() as u64);
                let (x1, x2) = (x_of(start.max(t0)), x_of(end.min(now + window_us)).min(width));
                html! { <g class="lease"><rect x={num(x1)} y={num(y_of(i) - 9.0)} width={num((x2 - x1).max(1.0))} height="6" />
                    <title>{ format!("n{}: lease of {k} (token {}) ends at true time {} by this node's clock", i + 1, l.token, fmt_us(end as i64)) }</title></g> }
            })
            .collect();
        leases
    });
    // The most recent few hundred of each, so a busy cluster does not flood the page; drawn as
    // one path per kind (a frame rewrites a few `d` strings instead of patching hundreds of
    // elements: the diagram was most of the page's DOM work while playing).
    let mut arrow_paths: Vec<(&'static str, String)> = Vec::new();
    for &(f, t, kind, sent, at) in w
        .recent
        .iter()
        .rev()
        .take_while(|m| m.4 >= t0)
        .filter(|m| !matches!(m.2, "heartbeat" | "append_reply"))
        .take(SPACETIME_MAX)
    {
        let d = match arrow_paths.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, d)) => d,
            None => {
                arrow_paths.push((kind, String::new()));
                &mut arrow_paths.last_mut().expect("just pushed").1
            }
        };
        let _ = write!(
            d,
            "M{} {}L{} {}",
            num(x_of(sent)),
            num(y_of(f as usize)),
            num(x_of(at)),
            num(y_of(t as usize))
        );
    }
    arrow_paths.sort_by_key(|(k, _)| *k);
    let arrows = arrow_paths.into_iter().map(|(kind, d)| html! { <path class={classes!("arrow", kind)} d={d}><title>{ format!("{kind} messages") }</title></path> });
    let mut mark_paths: [(&str, &str, String); 4] = [
        ("role", "role changes", String::new()),
        ("apply", "applied commands", String::new()),
        ("fault", "crashes, restarts, pauses", String::new()),
        (
            "snapshot",
            "snapshots taken and installed (log compaction)",
            String::new(),
        ),
    ];
    let dots =
        w.trace
            .lines
            .iter()
            .rev()
            .take_while(|l| l.t_us >= t0)
            .take(SPACETIME_MAX * 4)
            .filter_map(|l| {
                let (lane, k) = match &l.ev {
                    TraceEvent::Role { node, .. } => (node - 1, 0),
                    TraceEvent::Apply { node, cmd, .. } if cmd.op != "noop" => (node - 1, 1),
                    TraceEvent::Crash { node }
                    | TraceEvent::Restart { node }
                    | TraceEvent::Pause { node }
                    | TraceEvent::Resume { node } => (node - 1, 2),
                    TraceEvent::Snapshot { node, .. }
                    | TraceEvent::SnapshotRestored { node, .. } => (node - 1, 3),
                    _ => return None,
                };
                Some((l.t_us, lane, k))
            });
    for (t, lane, k) in dots.take(SPACETIME_MAX) {
        // A dot of radius 3: two half circles.
        let _ = write!(
            mark_paths[k].2,
            "M{} {}a3 3 0 1 0 6 0a3 3 0 1 0 -6 0",
            num(x_of(t) - 3.0),
            num(y_of(lane))
        );
    }
    let marks = mark_paths.into_iter().filter(|m| !m.2.is_empty()).map(|(class, what, d)| html! { <path class={classes!("mark", class)} d={d}><title>{ what }</title></path> });
    html! {
        <svg class="spacetime" viewBox={format!("0 0 {width} {height}")} role="img" aria-label="Space-time diagram: lanes for nodes, clients and storage; messages as lines; lease intervals as bars">
            <g class="lanes">{ for lane_lines }</g>
            <g class="leases">{ for leases }</g>
            <g class="arrows">{ for arrows }</g>
            <g class="marks">{ for marks }</g>
            <g class="history">{ for verdict.map(|v| history_overlay(w, v, t0, now, &x_of, &y_of)).unwrap_or_default() }</g>
            <text class="axis" x={num(width - 150.0)} y={num(height - 2.0)}>{ format!("true time → {}", fmt_us(now as i64)) }</text>
        </svg>
    }
}

// ---- event log and invariants --------------------------------------------------------------------

pub fn describe(w: &World, ev: &TraceEvent) -> Option<String> {
    Some(match ev {
        TraceEvent::Role { node, role, term } => format!("n{node} became {role} in term {term}"),
        TraceEvent::Apply { node, index, cmd, result, .. } => {
            let what = match cmd.op {
                "noop" => return None,
                "grant" => format!("Grant{{{}, {} ms}} for {}", cmd.key.clone().unwrap_or_default(), cmd.lease_ms.unwrap_or(0), cmd.client.clone().unwrap_or_default()),
                "release" => format!("Release{{{}}}", cmd.key.clone().unwrap_or_default()),
                _ => format!("Expire{{{}, {}}}", cmd.key.clone().unwrap_or_default(), cmd.token.unwrap_or(0)),
            };
            let outcome = match result {
                ApplyResult::Granted { token } => format!("granted with token {token}"),
                ApplyResult::GrantRejected => "rejected: the key is held".into(),
                ApplyResult::Released => "lock released".into(),
                ApplyResult::NotFound => "nothing to release".into(),
                ApplyResult::Expired { existed: true } => "lock removed".into(),
                ApplyResult::Expired { existed: false } => "token did not match: nothing removed".into(),
                ApplyResult::Noop => "nothing happened".into(),
            };
            if *node != w.leader().map_or(1, |l| l + 1) {
                return None; // one line per entry: the leader's (or n1's) apply
            }
            format!("n{node} applied #{index} {what}: {outcome}")
        }
        TraceEvent::Crash { node } => format!("n{node} crashed"),
        TraceEvent::Restart { node } => format!("n{node} restarted and will apply its log again"),
        TraceEvent::Pause { node } => format!("n{node} paused (frozen like a GC pause)"),
        TraceEvent::Resume { node } => format!("n{node} resumed"),
        TraceEvent::Fault { what } => format!("you: {what}"),
        TraceEvent::ExpireProposed { node, key, token } => format!("n{node}'s countdown for {key} ran out: it proposes Expire{{{key}, {token}}}"),
        TraceEvent::GhostRelease { node, key, client, .. } => format!("n{node} could not tell {client} it got {key}: it proposes Release{{{key}}} (ghost lock)"),
        TraceEvent::Snapshot { node, index, log_from } => format!("n{node} snapshots its lock table at index {index}; its log now starts after {log_from}"),
        TraceEvent::SnapshotRestored { node, index, source: "leader", .. } => format!("n{node} installs the leader's snapshot at index {index} (the entries it lacked are gone from the leader's log)"),
        TraceEvent::SnapshotRestored { node, index, .. } => format!("n{node} restarts its lock table from its own snapshot at index {index}"),
        TraceEvent::Client { client, op, key, outcome, token } => format!("{client}: {op} {key} → {outcome}{}", token.map_or(String::new(), |t| format!(" (token {t})"))),
        TraceEvent::Write { client, key, token, accepted } => format!("storage: {client} writes {key} with token {token} → {}", if *accepted { "accepted" } else { "REJECTED" }),
        TraceEvent::Violation { invariant, detail } => format!("VIOLATION {invariant}: {detail}"),
    })
}

fn event_log(w: &World) -> Html {
    let lines: Vec<Html> = w
        .trace
        .lines
        .iter()
        .rev()
        .filter_map(|l| describe(w, &l.ev).map(|d| (l.t_us, d, matches!(l.ev, TraceEvent::Violation { .. }))))
        .take(14)
        .map(|(t, d, bad)| html! { <li class={classes!(bad.then_some("bad"))}><time>{ fmt_us(t as i64) }</time>{ " " }{ d }</li> })
        .collect();
    html! { <ol class="events" reversed=true aria-live="polite">{ for lines }</ol> }
}

/// Invariants in words (the trace names some by the failure, e.g. storage_accepts_stale_token).
fn invariant_label(name: &str) -> String {
    match name {
        "storage_accepts_stale_token" => "the storage never accepts a stale token".into(),
        "ghost_lock_released" => "ghost locks are released".into(),
        "one_believed_holder" => "one client at a time believes it holds a key".into(),
        "healthy_leader_not_deposed" => {
            "a leader a majority hears is not deposed (liveness)".into()
        }
        "isolated_leader_steps_down" => "a cut-off leader steps down (liveness)".into(),
        _ => name.replace('_', " "),
    }
}

fn history_check(app: &App, link: &Scope<App>) -> Html {
    let verdict = match app.history.as_ref().map(|(t, v)| (t, v.as_deref())) {
        None => html! {},
        Some((t, None)) => {
            html! { <p id="history-verdict">{ format!("At {}: not checked — server clocks drifted or jumped, so lease expiry says nothing about true time.", fmt_us(*t as i64)) }</p> }
        }
        Some((t, Some(Ok(holds)))) => {
            html! { <p id="history-verdict" class="ok">{ format!("✓ At {}: what the clients saw is linearizable as a mutex with leases ({} holds, in token order; drawn on the space-time diagram as bars on the client lanes).", fmt_us(*t as i64), holds.len()) }</p> }
        }
        Some((t, Some(Err(e)))) => {
            let at = e.at_us + 300_000;
            html! {
                <p id="history-verdict" class="broken">
                    { format!("✗ At {}: not linearizable as a mutex. The shortest failing prefix ends at {}: {e}. ", fmt_us(*t as i64), fmt_us(e.at_us as i64)) }
                    <button id="history-show" onclick={link.callback(move |_| Msg::Seek(at))}>{ "Show it on the diagram" }</button>
                </p>
            }
        }
    };
    html! {
        <div class="history">
            <button id="check-history" onclick={link.callback(|_| Msg::CheckHistory)}>{ "Check the clients' history" }</button>
            { verdict }
        </div>
    }
}

fn invariants(w: &World) -> Html {
    let items = INVARIANTS.iter().map(|&name| {
        let n = w.checker.broken.get(name).copied().unwrap_or(0);
        html! {
            <li class={if n == 0 { "ok" } else { "broken" }} id={format!("inv-{name}")}>
                { if n == 0 { "✓ " } else { "✗ " } }{ invariant_label(name) }
                { if n > 0 { format!(" — {n} violation(s)") } else { String::new() } }
            </li>
        }
    });
    html! { <ul class="invariants">{ for items }</ul> }
}

/// What one pane of the side-by-side view lists; lines missing from the other pane are marked.
fn pane_lines(w: &World) -> Vec<(&'static str, String)> {
    let mut v = Vec::new();
    for (_, viol) in w.violations().iter().take(5) {
        v.push((
            "broken",
            format!("✗ {}: {}", invariant_label(viol.invariant), viol.detail),
        ));
    }
    if let Some(s) = (0..w.n).find_map(|i| w.nodes[i].server.as_ref()) {
        for (k, l) in &s.machine.locks {
            v.push((
                "lock",
                format!(
                    "{k} held by {} with token {}",
                    l.holder.map_or("—".into(), |c| w.client_name(c)),
                    l.token
                ),
            ));
        }
    }
    for x in w.storage.writes.iter().rev().take(6) {
        v.push((
            "write",
            format!(
                "{} wrote {} with token {}: {}",
                w.client_name(x.client),
                x.key,
                x.token,
                if x.accepted { "accepted" } else { "rejected" }
            ),
        ));
    }
    v
}

fn side_by_side(a: &World, b: &World, name: &str, link: &Scope<App>) -> Html {
    let la = pane_lines(a);
    let lb = pane_lines(b);
    let label = SWITCHES.iter().find(|s| s.0 == name).map_or(name, |s| s.1);
    let b_on = crate::scenario::hunt::switch_is_on(&b.scenario, name);
    let pane = |title: String,
                mine: &Vec<(&'static str, String)>,
                other: &Vec<(&'static str, String)>,
                id: &str| {
        let rows = mine.iter().map(|(kind, text)| {
            let differs = !other.iter().any(|(_, t)| t == text);
            html! { <li class={classes!(*kind, differs.then_some("diff"))}>{ if differs { "≠ " } else { "" } }{ text.clone() }</li> }
        });
        html! { <div class="pane" id={id.to_string()}><h3>{ title }</h3><ul>{ for rows }</ul></div> }
    };
    html! {
        <section class="panel wide side-by-side" aria-label="Side by side">
            <h2>{ format!("Side by side at {}: “{}” off and on", fmt_us(a.now_us as i64), label) }
                <button onclick={link.callback(|_| Msg::Compare(None))} aria-label="Close the comparison">{ "✕" }</button></h2>
            <div class="panes">
                { pane(format!("This run ({})", if b_on { "switch off" } else { "switch on" }), &la, &lb, "pane-a") }
                { pane(format!("Same seed and script, {}", if b_on { "switch on" } else { "switch off" }), &lb, &la, "pane-b") }
            </div>
            <p class="legend">{ "Both advance together with the controls above. ≠ marks what differs between the two runs." }</p>
        </section>
    }
}

/// (field, label, explanation). Each is off by default; turning one on restarts the run with it,
/// and the scenario document (and so a share link) records it.
const SWITCHES: [(&str, &str, &str); 10] = [
    ("expire_ignores_token", "Expire ignores the token",
     "Expire deletes whatever lock holds the key. A late or duplicated Expire then erases a lock granted again in between: the seed's token condition exists for exactly this. Try it with late-expire."),
    ("followers_delete_on_countdown", "Followers delete on their own countdown",
     "A follower deletes a lock when its own clock says the lease is over, instead of waiting for a committed Expire. With drift the nodes' tables split: why the seed deletes only through the log (Redlock's dependence on clocks, Kleppmann 2016)."),
    ("token_from_leader_counter", "Tokens from a leader's counter",
     "The leader numbers tokens from a counter in its memory instead of using the Grant's log index. A new leader starts again, tokens repeat, and fencing can no longer order holders (Chubby's sequencers and ZooKeeper's zxid are log positions too)."),
    ("no_ghost_release", "No ghost-lock release",
     "When the reply to a Grant cannot reach its client, the leader does nothing: a lock nobody knows it holds stays until its lease runs out, and everyone else waits."),
    ("storage_ignores_tokens", "Storage ignores tokens",
     "The resource accepts any write. A client that paused past its lease overwrites the new holder's work: the lost update that fencing tokens prevent (Kleppmann, How to do distributed locking, 2016)."),
    ("release_without_holder_check", "Release without the holder check",
     "The leader proposes a client's key-only Release without checking that this client holds the key: a late Release deletes someone else's lock (etcd issue 22082)."),
    ("release_with_token", "Release carries the token",
     "A design alternative, not a bug: Release names the holder's token and deletes only on a match, like Expire."),
    ("no_pre_vote", "No pre-vote",
     "A node cut off from the others raises its term at every election timeout; when it returns, its higher term forces the working leader to step down (Ongaro's thesis, section 9.6)."),
    ("commit_by_counting_old_terms", "Commit earlier terms by counting",
     "The leader commits an entry of an earlier term as soon as a majority holds it. The Raft paper's Figure 8 shows a later leader overwriting such an entry: a committed entry lost, a client told \"granted\" for a lock that vanishes. Section 5.4.2 commits only the leader's own term. Play break-figure-8; it needs one entry per message (Entries per AppendEntries 1, below), else the new leader's no-op travels with the old entry and closes the window."),
    ("no_check_quorum", "No check-quorum",
     "A leader cut off from the majority keeps believing it leads and keeps proposing entries that can never commit (Ongaro's thesis, section 6.2)."),
];

fn switches(pg: &Playground, link: &Scope<App>) -> Html {
    let sc = &pg.scenario;
    let state = |name: &str| crate::scenario::hunt::switch_is_on(sc, name);
    let items = SWITCHES.iter().map(|&(name, label, why)| {
        let on = state(name);
        html! {
            <li class={classes!(on.then_some("on"))}>
                <label>
                    <input type="checkbox" id={format!("switch-{name}")} checked={on}
                        onchange={link.callback(move |e: yew::Event| Msg::SetSwitch(name, e.target_unchecked_into::<web_sys::HtmlInputElement>().checked()))} />
                    <strong>{ label }</strong>{ if on { " (on: the run restarted with it)" } else { "" } }
                </label>
                <button class="compare" id={format!("compare-{name}")} onclick={link.callback(move |_| Msg::Compare(Some(name)))}
                    title="Run the same scenario with this switch flipped, side by side">{ "Compare side by side" }</button>
                <p>{ why }</p>
            </li>
        }
    });
    html! { <ul class="switches">{ for items }</ul> }
}

/// Two of Raft's knobs that change what the log panel and the messages show; the document
/// carries them, so a link does. A change restarts the run (like a switch).
fn raft_settings(app: &App, pg: &Playground, link: &Scope<App>) -> Html {
    let r = &pg.scenario.raft;
    let field = |name: &'static str, label: &'static str, value: u64, why: &'static str| {
        let shown = match &app.raft_draft {
            Some((n, text)) if *n == name => text.clone(),
            _ => value.to_string(),
        };
        html! {
            <li>
                <label>
                    <strong>{ label }</strong>{ " " }
                    <input type="number" id={format!("raft-{name}")} value={shown} min="0" size="7"
                        oninput={link.callback(move |e: yew::InputEvent| Msg::RaftDraft(name, e.target_unchecked_into::<web_sys::HtmlInputElement>().value()))}
                        onchange={link.callback(move |e: yew::Event| Msg::SetRaft(name, e.target_unchecked_into::<web_sys::HtmlInputElement>().value()))} />
                </label>
                <p>{ why }</p>
            </li>
        }
    };
    html! {
        <>
        <h3 class="raft-settings">{ "Raft settings (the run restarts with a new value; links carry them)" }</h3>
        <ul class="switches raft-settings">
            { field("snapshot_every", "Snapshot every (applied entries; 0: never)", r.snapshot_every,
                "Log compaction (Raft §7): each node snapshots its lock table this often and drops its log up to its previous snapshot. A follower that needs a dropped entry gets the leader's snapshot instead (InstallSnapshot); try 8 and crash a node for a few seconds. 0 or 4 to 1,000,000.") }
            { field("max_batch", "Entries per AppendEntries", r.max_batch,
                "The most entries one message carries (etcd's MaxSizePerMsg, counted in entries). With 1, a follower can hold an old-term entry without the new leader's no-op after it: the window of the Figure 8 switch. 1 to 1,024.") }
        </ul>
        </>
    }
}

/// "Find a bug": the counterexample hunt with the switches that are on, in a Web Worker.
fn hunt_panel(app: &App, pg: &Playground, link: &Scope<App>) -> Html {
    use crate::ui::app::HuntPhase;
    let on = crate::scenario::hunt::switches_on(&pg.scenario);
    let with = if on.is_empty() {
        "the seed's design (every switch off)".to_string()
    } else {
        format!("switches on: {}", on.join(", "))
    };
    let running = app
        .hunt
        .as_ref()
        .is_some_and(|h| matches!(h.phase, HuntPhase::Running | HuntPhase::Shrinking { .. }));
    let start = |runs: u32| link.callback(move |_| Msg::HuntStart(runs));
    let status = app.hunt.as_ref().map(|h| {
        let progress = format!("{} of {} runs, {} events simulated", fmt_count(h.done), fmt_count(h.runs), fmt_count(h.events));
        let text = match &h.phase {
            HuntPhase::Running => format!("Hunting with {}: {progress}", describe_switches(&h.switches)),
            HuntPhase::Shrinking { seed, invariant } => format!("{invariant} broke in run {seed}; shrinking its fault schedule…"),
            HuntPhase::Found { seed, invariant, detail, original_actions, actions } => format!(
                "Found: {invariant} broke in run {seed} ({detail}). Shrunk from {original_actions} to {actions} fault actions and opened in the page; the address bar holds its share link."
            ),
            HuntPhase::NoViolation => format!("No violation in {} runs ({} events) with {}.", fmt_count(h.done), fmt_count(h.events), describe_switches(&h.switches)),
            HuntPhase::Failed(e) => format!("The hunt stopped: {e}"),
        };
        let class = match &h.phase {
            HuntPhase::Found { .. } | HuntPhase::Failed(_) => "broken",
            HuntPhase::NoViolation => "ok",
            _ => "",
        };
        html! {
            <div class="hunt-status">
                <progress id="hunt-progress" max={h.runs.to_string()} value={h.done.to_string()} aria-label="Runs done"></progress>
                <p id="hunt-status" class={class} aria-live="polite">{ text }</p>
            </div>
        }
    });
    html! {
        <div class="hunt">
            <p>{ format!("Find a bug: random fault schedules (crashes, pauses, partitions, one-way cuts, loss, drift) with {with}, every invariant checked after every event, in a background worker. It stops at the first violation, shrinks the schedule and opens it here.") }</p>
            <button id="hunt-start" disabled={running} onclick={start(1000)}>{ "Find a bug (1,000 runs)" }</button>
            <button id="hunt-start-10k" disabled={running} onclick={start(10_000)}>{ "10,000 runs" }</button>
            { if running { html! { <button id="hunt-cancel" onclick={link.callback(|_| Msg::HuntCancel)}>{ "Stop" }</button> } } else { html! {} } }
            { status.unwrap_or_default() }
        </div>
    }
}

fn describe_switches(s: &[&str]) -> String {
    if s.is_empty() {
        "every switch off".into()
    } else {
        s.join(", ")
    }
}

/// 1234567 → "1,234,567".
fn fmt_count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The scenario list page (deep link `#scenarios`): every built-in with its story and a link.
fn scenario_list(link: &Scope<App>) -> Html {
    let cards = |break_it: bool| {
        crate::scenario::builtin::names().filter(move |n| crate::scenario::builtin::is_break_it(n) == break_it).map(|name| {
        let sc = crate::scenario::builtin::get(name).expect("built-ins are valid");
        let title = sc.lesson.as_ref().map_or("Free play".to_string(), |l| l.title.clone());
        let n = name.to_string();
        html! {
            <li class={classes!("card", crate::scenario::builtin::is_break_it(name).then_some("break"))}>
                <h3><a href={format!("#scenario={name}")} onclick={link.callback(move |e: MouseEvent| { e.prevent_default(); Msg::LoadBuiltin(n.clone()) })}>{ title }</a></h3>
                <p>{ sc.description.clone() }</p>
                <small>{ format!("{name} · {} nodes · {} clients · {} s", sc.nodes, sc.clients.len(), sc.until_ms / 1000) }</small>
            </li>
        }
    })
    };
    html! {
        <div class="overlay list" role="dialog" aria-label="All scenarios">
            <div class="dialog wide">
                <div class="dialog-head">
                    <h2>{ "Scenarios" }</h2>
                    <button id="close-list" onclick={link.callback(|_| Msg::ScenarioList(false))} aria-label="Close">{ "✕" }</button>
                </div>
                <div id="scenario-list">
                    <h3>{ "Lessons" }</h3>
                    <ul class="cards">{ for cards(false) }</ul>
                    <h3>{ "Break it: one safeguard off, one invariant turns red" }</h3>
                    <ul class="cards">{ for cards(true) }</ul>
                </div>
            </div>
        </div>
    }
}

fn help(link: &Scope<App>) -> Html {
    html! {
        <div class="overlay" role="dialog" aria-label="Keyboard shortcuts" onclick={link.callback(|_| Msg::Help(false))}>
            <div class="dialog">
                <h2>{ "Keyboard shortcuts" }</h2>
                <dl>
                    <dt>{ "Space" }</dt><dd>{ "play / pause" }</dd>
                    <dt>{ "→" }</dt><dd>{ "step one event" }</dd>
                    <dt>{ "←" }</dt><dd>{ "step back" }</dd>
                    <dt>{ "a" }</dt><dd>{ "run to the next apply" }</dd>
                    <dt>{ "t" }</dt><dd>{ "take over from here (discard the future)" }</dd>
                    <dt>{ "p" }</dt><dd>{ "presenter mode (large type)" }</dd>
                    <dt>{ "?" }</dt><dd>{ "show or hide this help" }</dd>
                    <dt>{ "Esc" }</dt><dd>{ "close messages" }</dd>
                </dl>
            </div>
        </div>
    }
}
