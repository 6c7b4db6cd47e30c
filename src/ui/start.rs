//! The start screen (the bare address): what this is, where to begin, the lessons as numbered
//! cards, free play, and the lesson a returning reader left.

use super::props::{send, PanelProps};
use crate::lang::t;
use crate::model::start::{self, Choice};
use crate::model::Command;
use crate::scenario::builtin;
use yew::prelude::*;

pub fn start_screen(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let lang = page.lang;
    let title_of = |name: &str| {
        builtin::title(name)
            .map(|t| t.get(lang).to_string())
            .unwrap_or_else(|| name.to_string())
    };
    let first = start::lessons().next().map(title_of).unwrap_or_default();
    let cards = start::lessons().enumerate().map(|(i, name)| {
        let n = i + 1;
        // The card comes with the page (the lessons' files are fetched only when one opens).
        let (story, length) = match builtin::card(name) {
            Some((line, steps, run_ms)) => (
                html! { <p>{ line.get(lang).to_string() }</p> },
                t!(lang, "{steps} steps · {} s of run", run_ms / 1000, steps = steps + 1),
            ),
            None => (html! {}, String::new()),
        };
        let break_it = builtin::is_break_it(name);
        html! {
            <li class={classes!("card", break_it.then_some("break"))}>
                <h3>
                    <span class="num">{ format!("{n}.") }</span>
                    <a href={format!("#scenario={name}")} onclick={p.send.reform(move |e: MouseEvent| { e.prevent_default(); Command::Start(Choice::Lesson(n)) })}>{ title_of(name) }</a>
                </h3>
                { story }
                <small>{ if break_it { format!("{} · {length}", t!(lang, "Break it")) } else { length } }</small>
            </li>
        }
    });
    let resume = page.start.left.as_ref().map(|l| {
        let name = title_of(&l.name);
        html! {
            <button id="start-continue" onclick={send(p, Command::Start(Choice::Continue))}>
                { t!(lang, "Continue: {name} (you reached step {pos})", pos = l.pos + 1) }
            </button>
        }
    });
    html! {
        <div class="overlay start" role="dialog" aria-modal="true" aria-labelledby="start-title" id="start-screen">
            <div class="dialog wide">
                <h2 id="start-title">{ t!(lang, "raftlock: a lock service on Raft, to take apart") }</h2>
                <p class="lead">{ t!(lang, "Several Raft nodes replicate a lock service with leases and fencing tokens. Step through a lesson, cut the network, skew the clocks, and see what keeps a lock safe, and what breaks it.") }</p>
                <div class="start-actions">
                    <button id="start-first" class="primary" onclick={send(p, Command::Start(Choice::FirstLesson))}>
                        { t!(lang, "Start the first lesson: {first}") }
                    </button>
                    { resume.unwrap_or_default() }
                    <button id="start-free" onclick={send(p, Command::Start(Choice::FreePlay))}>{ t!(lang, "Free play") }</button>
                </div>
                <h3>{ t!(lang, "Lessons") }</h3>
                <ol class="cards start-cards">{ for cards }</ol>
            </div>
        </div>
    }
}
