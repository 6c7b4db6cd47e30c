//! The embeddable player: a course page shows one lesson in an `<iframe>` (`#embed/…`), and
//! talks to it with `postMessage`.
//!
//! - The fragment: `#embed` (the default scenario), `#embed/scenario=NAME`, or `#embed/v1.…` (a
//!   share link's fragment: the scenario and a moment).
//! - In: `{type: "raftlock:load", scenario: {…} | "JSON"}` or `{type: "raftlock:load", builtin:
//!   "NAME"}`, `{type: "raftlock:seek", ms}`, `{type: "raftlock:play"}`, `"raftlock:pause"`,
//!   `"raftlock:next"`, `"raftlock:back"`. A message whose `type` does not start with
//!   `raftlock:` is not ours and is ignored; one of ours that is malformed is answered with
//!   `{type: "raftlock:error", message}` and changes nothing.
//! - Out (to the host page): `raftlock:ready` when a scenario is loaded, `raftlock:moment` when
//!   the lesson reaches a caption, `raftlock:check` when an expected outcome comes true,
//!   `raftlock:answer` when a question is answered the first time (the answer the score counts).

use super::command::Command;
use super::lesson::LessonView;
use crate::lang::{t, Lang};
use crate::scenario::Scenario;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The prefix of an embed fragment.
pub const PREFIX: &str = "embed";
/// The prefix of the `type` of every message of the API.
pub const MESSAGE_PREFIX: &str = "raftlock:";

/// Whether a fragment asks for the player, and the fragment of the run it shows.
pub fn split(frag: &str) -> (bool, &str) {
    let f = frag.trim_start_matches('#');
    match f.strip_prefix(PREFIX) {
        Some("") => (true, ""),
        Some(rest) if rest.starts_with('/') => (true, &rest[1..]),
        _ => (false, f),
    }
}

/// The fragment of the player for the run's fragment (`v1.…`, `scenario=NAME`).
pub fn fragment(run_fragment: &str) -> String {
    match run_fragment.trim_start_matches('#') {
        "" => format!("#{PREFIX}"),
        f => format!("#{PREFIX}/{f}"),
    }
}

/// The `<iframe>` snippet for a course page: the player at this scenario and moment (the share
/// link's address, its fragment made a player's).
pub fn code(base_url: &str, sc: &Scenario, moment_us: u64, lang: Lang) -> String {
    let link = crate::scenario::link::encode_url(base_url, sc, moment_us);
    let (base, frag) = link.split_once('#').unwrap_or((&link, ""));
    let title = sc
        .lesson
        .as_ref()
        .map_or(sc.name.as_str(), |l| l.title.get(lang));
    let title = if title.is_empty() {
        t!(lang, "a run")
    } else {
        title
    };
    format!(
        "<iframe src=\"{base}{}\" width=\"800\" height=\"500\" style=\"border:0;max-width:100%\" title=\"raftlock: {}\" loading=\"lazy\"></iframe>",
        super::fragment::with_lang(&fragment(frag), lang),
        escape_attr(title)
    )
}

fn escape_attr(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A host page's message, as a command; `Ok(None)`: not a message for us (ignored).
pub fn parse(data: &Value) -> Result<Option<Command>, String> {
    let Some(kind) = data.get("type").and_then(Value::as_str) else {
        return Ok(None);
    };
    let Some(kind) = kind.strip_prefix(MESSAGE_PREFIX) else {
        return Ok(None);
    };
    Ok(Some(match kind {
        "load" => match (data.get("scenario"), data.get("builtin")) {
            (Some(Value::String(json)), None) => Command::LoadJson(json.clone()),
            (Some(doc @ Value::Object(_)), None) => Command::LoadJson(doc.to_string()),
            (None, Some(Value::String(name))) => Command::LoadBuiltin(name.clone()),
            _ => return Err(
                "raftlock:load needs either \"scenario\" (a scenario document, as an object or JSON text) or \"builtin\" (a built-in scenario's name)".into(),
            ),
        },
        "seek" => match data.get("ms").and_then(Value::as_f64) {
            Some(ms) if ms.is_finite() && ms >= 0.0 => Command::Seek((ms * 1000.0).min(u64::MAX as f64 / 2.0) as u64),
            _ => return Err("raftlock:seek needs \"ms\": a moment in milliseconds, 0 or more".into()),
        },
        "play" => Command::Play(true),
        "pause" => Command::Play(false),
        "next" => Command::LessonNext,
        "back" => Command::LessonBack,
        other => {
            return Err(format!(
                "raftlock does not know the message \"raftlock:{other}\" (it knows load, seek, play, pause, next, back)"
            ))
        }
    }))
}

/// The player for a course page's `<iframe>` (`#embed/…`): the lesson only.
#[derive(Clone, Debug, Default)]
pub struct Embed {
    pub on: bool,
    /// The `<iframe>` snippet last copied (*Copy embed code*).
    pub code: Option<String>,
}

/// An error answer for the host.
pub fn error(message: &str) -> Value {
    json!({ "type": "raftlock:error", "message": message })
}

/// What the player shows now, as the host hears of it ([`Watcher::poll`]).
pub struct Seen<'a> {
    /// The built-in on its way, if one is.
    pub loading: Option<&'a str>,
    pub error: Option<&'a str>,
    pub scenario: &'a Scenario,
    pub lesson: Option<LessonView>,
    pub now_us: u64,
    /// The run's number (the page's `loaded`): a new one is a new run.
    pub loaded: u64,
    /// Each question's first answer, by caption (from 0).
    pub first_answers: &'a BTreeMap<usize, usize>,
}

/// What the host has been told, to tell it what changed: the lesson's position, the expected
/// outcomes that came true, the questions answered.
#[derive(Clone, Debug, Default)]
pub struct Watcher {
    /// The run told about ([`Seen::loaded`]).
    loaded: Option<u64>,
    pos: Option<usize>,
    checks: Vec<bool>,
    /// The captions (from 0) whose question's first answer was told.
    answered: std::collections::BTreeSet<usize>,
    /// The lesson that was on its way at the last call.
    waiting: Option<String>,
}

impl Watcher {
    /// The events since the last call, oldest first.
    pub fn poll(&mut self, seen: Seen) -> Vec<Value> {
        let mut out = Vec::new();
        // A lesson on its way (a link or a load message named a built-in): the host hears of
        // the run it asked for, not of the one shown meanwhile.
        if let Some(name) = seen.loading {
            self.waiting = Some(name.to_string());
            return out;
        }
        // It did not come (another run is in view): the host hears why.
        if self.waiting.take().is_some_and(|n| n != seen.scenario.name) {
            out.push(error(
                seen.error.unwrap_or("the lesson could not be loaded"),
            ));
        }
        let sc = seen.scenario;
        let view = seen.lesson;
        let now_ms = seen.now_us as f64 / 1000.0;
        if self.loaded != Some(seen.loaded) {
            // The outcomes true from the start come with ready, not as news.
            let checks: Vec<_> = view.as_ref().map_or(Vec::new(), |v| v.checks.clone());
            *self = Watcher {
                loaded: Some(seen.loaded),
                checks: checks.iter().map(|c| c.1).collect(),
                ..Watcher::default()
            };
            out.push(json!({
                "type": "raftlock:ready",
                "scenario": sc.name,
                "title": sc.lesson.as_ref().map(|l| l.title.clone()),
                "captions": view.as_ref().map_or(0, |v| v.count),
                "checks": checks.iter().map(|(what, ok, _)| json!({"check": what, "ok": ok})).collect::<Vec<_>>(),
                "until_ms": sc.until_ms,
            }));
        }
        let Some(v) = view else {
            return out;
        };
        if self.pos != Some(v.pos) {
            self.pos = Some(v.pos);
            out.push(json!({
                "type": "raftlock:moment", "pos": v.pos, "count": v.count,
                "caption": v.caption, "now_ms": now_ms,
            }));
        }
        self.checks.resize(v.checks.len(), false);
        for (i, (what, ok, violation)) in v.checks.iter().enumerate() {
            if *ok && !self.checks[i] {
                out.push(json!({
                    "type": "raftlock:check", "index": i, "check": what,
                    "broken_invariant": violation, "now_ms": now_ms,
                }));
            }
            self.checks[i] = *ok;
        }
        let lesson = sc.lesson.as_ref();
        for (&caption, &choice) in seen.first_answers {
            if !self.answered.insert(caption) {
                continue;
            }
            let answer = lesson
                .and_then(|l| l.captions.get(caption))
                .and_then(|c| c.question.as_ref())
                .map(|q| q.answer);
            out.push(json!({
                "type": "raftlock:answer", "caption": caption + 1, "choice": choice,
                "right": answer == Some(choice),
            }));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Effect, Page};
    use crate::playground::Playground;
    use crate::scenario::builtin;

    fn types(events: &[Value]) -> Vec<&str> {
        events.iter().map(|e| e["type"].as_str().unwrap()).collect()
    }

    #[test]
    fn embed_fragment_opens_the_player_on_the_run_it_names() {
        assert_eq!(split("#embed"), (true, ""));
        assert_eq!(
            split("#embed/scenario=gc-pause"),
            (true, "scenario=gc-pause")
        );
        assert_eq!(split("#embedded"), (false, "embedded"));
        assert_eq!(split("#scenario=gc-pause"), (false, "scenario=gc-pause"));
        let p = Page::from_fragment("#embed/scenario=gc-pause");
        assert!(p.embed.on && p.error.is_none());
        assert_eq!(p.playground.scenario.name, "gc-pause");
        assert!(!Page::from_fragment("#scenario=gc-pause").embed.on);
        // A broken player link says so, and still shows the player.
        let bad = Page::from_fragment("#embed/v1.garbage.0");
        assert!(bad.embed.on && bad.error.is_some());
        // Loading a built-in keeps the address a player's.
        let mut p = Page::from_fragment("#embed");
        let fx = p.apply(Command::LoadBuiltin("ghost-lock".into()));
        assert!(fx.contains(&Effect::SetFragment("#embed/scenario=ghost-lock".into())));
    }

    #[test]
    fn embed_code_is_an_iframe_of_the_player_at_this_moment() {
        let mut p = Page::from_fragment("#scenario=gc-pause");
        p.base_url = "https://example.org/raftlock/".into();
        p.apply(Command::RunTo(1_500_000));
        let fx = p.apply(Command::CopyEmbed);
        let code = p.embed.code.clone().unwrap();
        assert!(fx.contains(&Effect::Clipboard(code.clone())));
        assert!(code.starts_with("<iframe src=\"https://example.org/raftlock/#embed/v1."));
        assert!(code.contains("width=\"800\" height=\"500\""));
        let src = code.split('"').nth(1).unwrap();
        let opened = Page::from_fragment(src.split_once('#').unwrap().1);
        assert!(opened.embed.on);
        assert_eq!(opened.playground.scenario, p.playground.scenario);
        assert_eq!(opened.playground.now_us(), 1_500_000);
        // Titles are escaped in the attribute.
        let mut sc = builtin::get("gc-pause").unwrap();
        sc.lesson.as_mut().unwrap().title = "A \"quoted\" <b>".into();
        assert!(code_title(&sc).contains("title=\"raftlock: A &quot;quoted&quot; &lt;b&gt;\""));
    }

    fn code_title(sc: &Scenario) -> String {
        code("https://x/", sc, 0, Lang::En)
    }

    #[test]
    fn host_messages_drive_the_player_and_bad_ones_change_nothing() {
        let mut p = Page::from_fragment("#embed/scenario=gc-pause");
        let hash = |p: &Page| p.playground.world.trace.hash_hex();
        let h0 = hash(&p);
        // Not ours: ignored, no answer.
        for stray in [
            json!("hello"),
            json!(42),
            json!({"type": "other"}),
            json!({"kind": "raftlock:play"}),
            json!(null),
        ] {
            assert_eq!(p.host_message(&stray), (vec![], None), "{stray}");
        }
        // Ours but malformed: an error answer, and the run stays.
        for bad in [
            json!({"type": "raftlock:seek"}),
            json!({"type": "raftlock:seek", "ms": -5}),
            json!({"type": "raftlock:seek", "ms": "soon"}),
            json!({"type": "raftlock:load"}),
            json!({"type": "raftlock:load", "scenario": 7}),
            json!({"type": "raftlock:load", "scenario": "{not json"}),
            json!({"type": "raftlock:load", "builtin": "no-such"}),
            json!({"type": "raftlock:fly"}),
        ] {
            let (_, reply) = p.host_message(&bad);
            let reply = reply.unwrap_or_else(|| panic!("no answer to {bad}"));
            assert_eq!(reply["type"], "raftlock:error", "{bad}");
            assert!(!reply["message"].as_str().unwrap().is_empty());
            assert_eq!(hash(&p), h0, "{bad} changed the run");
            assert_eq!(p.playground.scenario.name, "gc-pause");
        }
        // Seek ahead plays to the moment; seek back returns to it; play and pause.
        assert_eq!(
            p.host_message(&json!({"type": "raftlock:seek", "ms": 2000}))
                .1,
            None
        );
        assert_eq!(p.playground.now_us(), 2_000_000);
        p.host_message(&json!({"type": "raftlock:seek", "ms": 500.5}));
        assert_eq!(p.playground.now_us(), 500_500);
        let (fx, _) = p.host_message(&json!({"type": "raftlock:play"}));
        assert!(p.playing && fx.contains(&Effect::StartFrames));
        p.host_message(&json!({"type": "raftlock:pause"}));
        assert!(!p.playing);
        // An absurd moment ends at the end of the run.
        p.host_message(&json!({"type": "raftlock:seek", "ms": 1e300}));
        assert!(p.playground.now_us() <= p.playground.end_us());
        // Load: a built-in, a document as an object and as text.
        p.host_message(&json!({"type": "raftlock:load", "builtin": "ghost-lock"}));
        assert_eq!(p.playground.scenario.name, "ghost-lock");
        let doc: Value =
            serde_json::from_str(&builtin::get("gc-pause").unwrap().to_json()).unwrap();
        assert_eq!(
            p.host_message(&json!({"type": "raftlock:load", "scenario": doc}))
                .1,
            None
        );
        assert_eq!(p.playground.scenario.name, "gc-pause");
        let text = builtin::get("drift-and-jump").unwrap().to_json();
        assert_eq!(
            p.host_message(&json!({"type": "raftlock:load", "scenario": text}))
                .1,
            None
        );
        assert_eq!(p.playground.scenario.name, "drift-and-jump");
        assert!(p.embed.on, "still the player");
    }

    #[test]
    fn the_host_hears_ready_moments_checks_and_answers() {
        let mut p = Page::new(Playground::new(builtin::get("gc-pause").unwrap()).unwrap());
        let mut w = Watcher::default();
        let first = p.host_events(&mut w);
        assert_eq!(types(&first), ["raftlock:ready", "raftlock:moment"]);
        assert_eq!(first[0]["scenario"], "gc-pause");
        assert_eq!(first[1]["pos"], 0);
        let ok_at_start = first[0]["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["ok"] == true)
            .count();
        assert!(
            p.host_events(&mut w).is_empty(),
            "nothing new, nothing told"
        );
        p.host_message(&json!({"type": "raftlock:next"}));
        let mut all = p.host_events(&mut w);
        assert_eq!(types(&all), ["raftlock:moment"]);
        assert_eq!(all[0]["pos"], 1);
        assert_eq!(all[0]["caption"], p.lesson_view().unwrap().caption);
        // To the first question (caption 4), answered wrong; told once.
        while p.lesson_pos() < 3 {
            p.apply(Command::LessonNext);
            all.extend(p.host_events(&mut w));
        }
        p.apply(Command::LessonNext);
        all.extend(p.host_events(&mut w));
        p.apply(Command::Answer(0));
        let ev = p.host_events(&mut w);
        let answer = ev
            .iter()
            .find(|e| e["type"] == "raftlock:answer")
            .expect("answer told");
        assert_eq!(
            (
                answer["caption"].as_u64(),
                answer["choice"].as_u64(),
                answer["right"].as_bool()
            ),
            (Some(4), Some(0), Some(false))
        );
        all.extend(ev);
        p.apply(Command::LessonBack);
        p.apply(Command::LessonNext);
        let ev = p.host_events(&mut w);
        assert!(
            !types(&ev).contains(&"raftlock:answer"),
            "a second pick is not a first answer"
        );
        all.extend(ev);
        // To the end: every expected outcome that comes true is told once.
        while p.lesson_view().unwrap().button.1 {
            p.apply(Command::LessonNext);
            if p.open_question().is_some() {
                p.apply(Command::Answer(1));
            }
            all.extend(p.host_events(&mut w));
        }
        let told = all.iter().filter(|e| e["type"] == "raftlock:check").count();
        let view = p.lesson_view().unwrap();
        assert_eq!(
            told + ok_at_start,
            view.checks.iter().filter(|c| c.1).count()
        );
        assert!(told > 0);
        let moments: Vec<_> = all
            .iter()
            .filter(|e| e["type"] == "raftlock:moment")
            .map(|e| e["pos"].as_u64().unwrap())
            .collect();
        assert_eq!(
            moments.last().copied(),
            Some(view.count as u64),
            "the last caption is told"
        );
        // A new scenario is a new ready.
        p.apply(Command::LoadBuiltin("ghost-lock".into()));
        assert_eq!(types(&p.host_events(&mut w))[0], "raftlock:ready");
    }
}
