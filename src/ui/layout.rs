//! The page's layout: the bar, the stage (the lesson, the cluster, the side panels), the grid of
//! panels below, and the dialogs; each panel a [`Panel`] of the version it draws at (the paced
//! ones, while playing, keep theirs between draws: [`Pace`]).

use super::props::{Draw, Panel, PanelProps, Shared};
use super::{
    clients, clocks, cluster, controls, dialogs, embed, events, invariants, lesson, locks, log,
    membership, presets, spacetime, switches, trace, twin as twin_ui,
};
use crate::lang::t;
use crate::model::focus::Side;
use crate::model::pace::{Pace, Paced};
use crate::model::Command;
use yew::prelude::*;

pub fn page(shared: &Shared, send: &Callback<Command>, pace: &Pace) -> Html {
    let page = shared.borrow();
    let v = page.version;
    let settled = page.settled;
    let props = |version: u64| PanelProps {
        page: shared.clone(),
        version,
        send: send.clone(),
    };
    let panel = |draw: Draw, panel: PanelProps| html! { <Panel {panel} {draw} /> };
    let paced = |p: Paced| props(pace.version(p));
    let lesson = page.in_lesson();
    let lang = page.lang;
    let tools = !lesson || page.tools_open;
    let twinned = page.twin.is_some();
    // A fixed order (what the caption names is tinted, not moved): the lock view, the log at
    // the caption's index when it names one, the storage, the clients, the expected outcomes.
    // On a projector, the panels the caption does not name fold to their title (a click
    // opens one): what it names and the expected outcomes keep the room.
    let focus = page.focus();
    let fold = page.presenter && lesson;
    let side = [
        (
            locks::lock_view as Draw,
            paced(Paced::Locks),
            Some((Side::Locks, t!(lang, "Locks: keys × nodes"))),
        ),
        (log::log_focus, props(v), None),
        (
            clients::storage,
            props(v),
            Some((Side::Storage, t!(lang, "Storage"))),
        ),
        (
            clients::clients,
            props(v),
            Some((Side::Clients, t!(lang, "Clients"))),
        ),
    ]
    .into_iter()
    // Always inside its <details> (open or not): a panel that moved in and out of one would
    // be re-parented, which Yew's diff does not do.
    .map(|(draw, props, folds)| match folds {
        Some((s, title)) => {
            let open = !fold || focus.open_on_projector(s);
            html! {
                <details class="fold" {open}><summary>{ title }</summary>{ panel(draw, props) }</details>
            }
        }
        None => panel(draw, props),
    });
    let class = classes!(
        "page",
        page.presenter.then_some("presenter"),
        lesson.then_some("lesson-mode")
    );
    if page.embed.on {
        return embed::page(&page, props);
    }
    html! {
        <div class={class}>
            <header class="bar">
                { panel(controls::scenario_bar, props(settled)) }
                // A trace open read-only has its own scrubber: the run's controls wait.
                { if page.traces.open.is_none() { panel(controls::controls, props(v)) } else { html! {} } }
                { if tools { panel(controls::run_tools, props(settled)) } else { html! {} } }
                // In the bar, so that the stage below still fits the screen.
                { panel(dialogs::banners, props(settled)) }
                { panel(dialogs::progress, props(v + page.jobs.tick)) }
            </header>
            { if page.traces.open.is_some() { html! { { panel(trace::trace_panel, props(v)) } } } else { html! { <>
            <div class={classes!("stage", twinned.then_some("with-twin"))}>
                { if lesson { html! { { panel(lesson::lesson_panel, props(v)) } } } else { html! {} } }
                { if twinned { html! {
                    <section class="panel cluster-panel twin" aria-label={t!(lang, "The run and its safe twin")}>
                        <p class="twin-note" id="twin-note">{ t!(lang, "Two runs of one scenario, stacked on a narrow screen: this run first, its twin below.") }</p>
                        { panel(membership::heading, props(v)) }
                        <div class="halves">
                            { panel(twin_ui::run_half, props(v)) }
                            { panel(twin_ui::twin_half, props(v)) }
                        </div>
                        { panel(clocks::node_controls, props(v)) }
                        { if tools { html! { { panel(presets::presets, props(v)) } } } else { html! {} } }
                    </section>
                } } else { html! {
                    <section class="panel cluster-panel" aria-label={t!(lang, "Cluster")}>
                        { panel(twin_ui::show_twin, props(v)) }
                        { panel(membership::heading, props(v)) }
                        { panel(cluster::cluster, props(v)) }
                        { panel(clocks::node_controls, props(v)) }
                        { if tools { html! { { panel(presets::presets, props(v)) } } } else { html! {} } }
                    </section>
                } } }
                <div class="side">
                    // With the twin beside the run, the side panels are the run's.
                    { for page.twin_labels().map(|(run, _)| html! {
                        <p class="side-of-run" id="side-of-run">{ t!(lang, "Beside it: this run ({label})", label = run) }</p>
                    }) }
                    { for side }
                </div>
            </div>
            <main class="grid">
                <section class="panel wide" aria-label={t!(lang, "Replicated log")} id="log-panel">
                    <h2>{ t!(lang, "Replicated log") }</h2>
                    { panel(log::log, paced(Paced::Log)) }
                </section>
                <section class="panel wide" aria-label={t!(lang, "Space-time diagram")} id="spacetime-panel">
                    <h2>{ t!(lang, "Space-time diagram (last 2 s of true time)") }</h2>
                    { panel(spacetime::spacetime, paced(Paced::Spacetime)) }
                </section>
                <section class="panel" aria-label={t!(lang, "Events")} id="events-panel">
                    <h2>{ t!(lang, "What happened") }</h2>
                    { panel(events::events, paced(Paced::Events)) }
                </section>
                <section class="panel" aria-label={t!(lang, "Invariants")}>
                    <h2>{ t!(lang, "Invariants") }</h2>
                    { panel(invariants::invariants, props(v)) }
                </section>
                <section class="panel wide" aria-label={t!(lang, "Clocks")} id="clocks-panel">
                    <h2>{ t!(lang, "Clocks and nodes") }</h2>
                    { panel(clocks::clocks, paced(Paced::Clocks)) }
                </section>
                { if tools { html! {
                    <section class="panel wide" aria-label={t!(lang, "Design switches")} id="switches-panel">
                        <h2>{ t!(lang, "Design switches: break one safeguard and watch which guarantee fails") }</h2>
                        { panel(switches::switches, props(settled)) }
                        // Below the safeguards, and naming the ones that are off.
                        { panel(switches::hunt_panel, props(settled)) }
                        { panel(switches::raft_settings, props(settled)) }
                    </section>
                } } else { html! {} } }
            </main>
            </> } } }
            // A phone keeps Play, the time and the lesson's Back and Next at the bottom.
            // (Not under a dialog: the start screen, the help or the list has the screen.)
            { if page.traces.open.is_none() && !page.start.open && !page.help && !page.list_open {
                html! { { panel(super::phone_bar::phone_bar, props(v)) } }
            } else { html! {} } }
            { if page.help { html! { { panel(dialogs::help, props(settled)) } } } else { html! {} } }
            { if page.list_open { html! { { panel(dialogs::scenario_list, props(settled)) } } } else { html! {} } }
            { if page.start.open { html! { { panel(super::start::start_screen, props(settled)) } } } else { html! {} } }
        </div>
    }
}
