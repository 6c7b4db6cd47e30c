//! A caption's question: asked before its moment plays (the student picks an answer; in
//! presenter mode the room is asked and the teacher reveals), then settled with the
//! explanation while the moment shows. What it shows is `model::quiz::QuestionView`.

use super::props::{send, PanelProps};
use crate::lang::t;
use crate::model::quiz::{QuestionState, QuestionView};
use crate::model::Command;
use yew::prelude::*;

pub fn question(p: &PanelProps, q: &QuestionView, presenter: bool) -> Html {
    let lang = p.page.borrow().lang;
    let checked = if q.checked {
        t!(lang, "The right answer is checked against this run.")
    } else {
        t!(
            lang,
            "This answer is not checked by the run: it is the lesson's word."
        )
    };
    match &q.state {
        QuestionState::Asking => {
            let choices = q.choices.iter().enumerate().map(|(k, c)| {
                let label = format!("{}. {c}", k + 1);
                if presenter {
                    html! { <li class="choice" id={format!("choice-{k}")}>{ label }</li> }
                } else {
                    html! { <li><button class="choice" id={format!("choice-{k}")} onclick={send(p, Command::Answer(k))}
                        title={t!(lang, "Answer {} (key {})", k + 1, k + 1)}>{ label }</button></li> }
                }
            });
            html! {
                <div class="question asking" id="question" role="group" aria-label={t!(lang, "Question: predict what happens next")}>
                    <p class="prompt"><strong>{ format!("{} ", t!(lang, "Predict:")) }</strong>{ q.prompt.clone() }</p>
                    <ol class="choices">{ for choices }</ol>
                    { if presenter { html! {
                        <p class="hint"><button id="reveal" class="primary" onclick={send(p, Command::Reveal)}>{ t!(lang, "Reveal the answer (r)") }</button>
                            { format!(" {}", t!(lang, "Ask the room first; then the moment plays.")) }</p>
                    } } else { html! {
                        <p class="hint">{ t!(lang, "Pick an answer (keys 1–{n}): then the moment plays and you see it happen.", n = q.choices.len()) }</p>
                    } } }
                </div>
            }
        }
        QuestionState::Settled {
            answer,
            picked,
            explain,
        } => {
            let right = picked.is_none_or(|k| k == *answer);
            let choice = |k: usize| q.choices.get(k).map_or("?", |c| c.as_str());
            let verdict = match picked {
                None => t!(lang, "The answer: {}.", choice(*answer)),
                Some(k) if k == answer => t!(lang, "Right: {}.", choice(*answer)),
                Some(k) => t!(
                    lang,
                    "Not this time: you chose “{}”; the answer is “{}”.",
                    choice(*k),
                    choice(*answer)
                ),
            };
            // Compact once settled: the caption above already says what happened, and on a
            // projector the stage keeps its room.
            let checked_short = if q.checked {
                t!(lang, "checked against this run")
            } else {
                t!(lang, "not checked by the run")
            };
            html! {
                <div class={classes!("question", "settled", if right { "right" } else { "wrong" })} id="question" role="status"
                    title={t!(lang, "Question at step {}: {} ({checked})", q.caption + 1, q.prompt)}>
                    <p class="verdict"><strong id="question-verdict">{ verdict }</strong>{ " " }
                        <span class="explain" id="question-explain">{ explain.clone() }</span>
                        { if presenter { html! {} } else { html! { <small class="hint">{ format!(" ({checked_short})") }</small> } } }
                    </p>
                </div>
            }
        }
    }
}
