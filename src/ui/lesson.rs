//! The lesson: its caption, Back and Next, where it stands, and the expected outcomes turning
//! green. Everything shown is read off the run (see `model::lesson`), so a seek moves it too.

use super::props::{send, PanelProps};
use crate::lang::t;
use crate::model::{lesson, Command};
use yew::prelude::*;

pub fn lesson_panel(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let Some(v) = lesson::view(&page) else {
        return html! {};
    };
    let (label, enabled) = v.button.clone();
    let lang = page.lang;
    html! {
        <section class="lesson panel" aria-label={t!(lang, "Lesson")} id="lesson">
            <div class="lesson-head">
                <h2>{ t!(lang, "Lesson: {title}", title = v.title) }</h2>
                <span class="step" id="lesson-step">{ t!(lang, "step {} of {}", v.pos, v.count) }</span>
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
            { if v.broken.is_empty() { html! {} } else { html! {
                <p class="broken-now" id="lesson-broken" role="status">{ t!(lang, "✗ broken now: {}", v.broken.join(", ")) }</p>
            } } }
        </section>
    }
}

/// The lesson's expected outcomes, as they stand at this moment of the run.
pub fn lesson_checks(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let Some(v) = lesson::view(&page) else {
        return html! {};
    };
    if v.checks.is_empty() {
        return html! {};
    }
    let lang = page.lang;
    let items = v.checks.iter().map(|(what, ok, violation)| {
        let (class, mark) = match (ok, violation) {
            (true, true) => ("ok violated", "✗ "),
            (true, false) => ("ok", "✓ "),
            _ => ("pending", "… "),
        };
        html! { <li class={class}>{ mark }{ what.clone() }</li> }
    });
    html! {
        <section class="panel checks-panel" aria-label={t!(lang, "Expected outcomes")}>
            <h2>{ t!(lang, "Expected outcomes") }</h2>
            <ul class="checks" id="checks">{ for items }</ul>
        </section>
    }
}
