//! The start screen (the bare address): what this is, where to begin, the lessons as numbered
//! cards, free play, and the lesson a returning reader left.

use super::props::{send, PanelProps};
use crate::lang::t;
use crate::model::catalog::title_or_name;
use crate::model::start::{self, Choice};
use crate::model::Command;
use yew::prelude::*;

pub fn start_screen(p: &PanelProps) -> Html {
    let page = p.page.borrow();
    let lang = page.lang;
    let cards = start::cards(lang);
    let first = cards.first().map(|c| c.title.clone()).unwrap_or_default();
    let cards = cards.into_iter().map(|c| {
        let n = c.n;
        html! {
            <li class={classes!("card", c.break_it.then_some("break"))}>
                <h3>
                    <span class="num">{ format!("{n}.") }</span>
                    <a href={format!("#scenario={}", c.name)} onclick={p.send.reform(move |e: MouseEvent| { e.prevent_default(); Command::Start(Choice::Lesson(n)) })}>{ c.title }</a>
                </h3>
                { for c.story.map(|line| html! { <p>{ line }</p> }) }
                <small>{ c.length }</small>
            </li>
        }
    });
    let resume = page.start.left.as_ref().map(|l| {
        let name = title_or_name(&l.name, lang);
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
