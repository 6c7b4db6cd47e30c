//! The lesson: its caption, Back and Next, where it stands, and the expected outcomes turning
//! green. Everything shown is read off the run (see `model::lesson`), so a seek moves it too.

use super::props::{send, PanelProps};
use crate::lang::t;
use crate::model::{lesson, Command};
use yew::prelude::*;

pub fn lesson_panel(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let Some(v) = page.lesson_view() else {
        return html! {};
    };
    let (label, enabled) = v.button.clone();
    let lang = page.lang;
    // While a question is asked the outcomes stay hidden: they would answer it.
    let outcomes_line = if page.embed.on || page.open_question().is_some() {
        html! {}
    } else {
        outcomes(&v, lang)
    };
    html! {
        <section class="lesson panel" aria-label={t!(lang, "Lesson")} id="lesson">
            <div class="lesson-head">
                <h2>{ t!(lang, "Lesson: {title}", title = v.title) }</h2>
                <span class="step" id="lesson-step">{ { let (step, steps) = lesson::step_label(v.pos, v.count); t!(lang, "step {} of {}", step, steps) } }</span>
                { for v.score_line.as_ref().map(|s| html! { <span class="score" id="quiz-score">{ s.clone() }</span> }) }
                <div class="lesson-nav">
                    <button id="lesson-back" disabled={v.pos == 0} onclick={send(p, Command::LessonBack)} title={t!(lang, "The previous caption's moment (b)")}>{ t!(lang, "← Back") }</button>
                    <button id="lesson-next" class="primary" disabled={!enabled} onclick={send(p, Command::LessonNext)} title={t!(lang, "Run to the next caption's moment (n)")}>
                        { label }</button>
                </div>
            </div>
            { if v.untranslated { html! {
                <p class="muted" id="lesson-untranslated">{ t!(lang, "Some of this lesson's text is not in this language yet: it is shown in the other one.") }</p>
            } } else { html! {} } }
            <p class="caption" id="caption" aria-live="polite">{ v.caption }</p>
            { if v.facts.is_empty() { html! {} } else { html! {
                <ul class="facts" id="caption-facts" aria-label={t!(lang, "What the caption states, checked against the run at this moment")}>
                    { for v.facts.iter().map(|(what, ok)| html! {
                        <li class={if *ok { "ok" } else { "wrong" }} title={if *ok { t!(lang, "true at this caption's moment") } else { t!(lang, "NOT true at this caption's moment: the lesson is wrong here") }}>
                            { if *ok { "✓ " } else { "✗ " } }{ what.clone() }</li>
                    }) }
                </ul>
            } } }
            { for v.question.as_ref().map(|q| super::question::question(p, q, page.presenter)) }
            { outcomes_line }
            // With the twin on the stage, each half says what is broken in it.
            { if v.broken.is_empty() || v.sides.is_some() { html! {} } else { html! {
                <p class="broken-now" id="lesson-broken" role="status">{ t!(lang, "✗ broken now: {}", v.broken_words.clone()) }</p>
            } } }
        </section>
    }
}

/// The lesson's expected outcomes, as they stand at this moment of the run: one line under the
/// caption (on a projector it stays on the screen with the caption), and with the twin on the
/// stage, which half each is about.
fn outcomes(v: &lesson::LessonView, lang: crate::lang::Lang) -> Html {
    if v.checks.is_empty() && v.twin_checks.is_empty() {
        return html! {};
    }
    let item = |what: &String, ok: bool, violation: bool| {
        let (class, mark) = match (ok, violation) {
            (true, true) => ("ok violated", "✗ "),
            (true, false) => ("ok", "✓ "),
            _ => ("pending", "… "),
        };
        html! { <li class={class}>{ mark }{ what.clone() }</li> }
    };
    let items = v
        .checks
        .iter()
        .map(|(what, ok, violation)| item(what, *ok, *violation));
    let twin_items = v
        .twin_checks
        .iter()
        .map(|(what, ok)| item(what, *ok, false));
    let side = |whose: &str, label: &String| {
        html! {
            <span class="side-of">{ whose }{ " (" }<b>{ label.clone() }</b>{ "):" }</span>
        }
    };
    html! {
        <div class="checks-panel outcomes" role="group" aria-label={t!(lang, "Expected outcomes")}>
            <span class="outcomes-title">{ t!(lang, "Expected outcomes") }</span>
            { for v.sides.as_ref().map(|(run, _)| side(t!(lang, "This run"), run)) }
            <ul class="checks" id="checks">{ for items }</ul>
            { for v.sides.as_ref().filter(|_| !v.twin_checks.is_empty()).map(|(_, twin)| html! { <>
                { side(t!(lang, "Its twin"), twin) }
                <ul class="checks" id="twin-checks">{ for twin_items }</ul>
            </> }) }
        </div>
    }
}
