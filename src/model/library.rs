//! The built-in scenarios as the page gets them. The CLI and the tests carry their documents
//! compiled in (the `builtin-docs` feature); the page's build does not, so its first load holds
//! no lesson text: it fetches `scenarios/NAME.json` when a lesson is chosen (the service worker
//! keeps them for offline use) and keeps what it fetched for the session.

use super::effect::Effect;
use crate::scenario::{builtin, Scenario};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// Why a built-in's file did not come.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Missing {
    /// The host answered with this HTTP status.
    Status(u16),
    /// No answer at all: no connection (and no copy in the service worker's cache).
    Unreachable,
    /// No answer within [`FETCH_TIMEOUT_MS`]: the page gives up, and a second choice asks again.
    Slow,
}

/// How long the page waits for a built-in's file.
pub const FETCH_TIMEOUT_MS: u32 = 20_000;

impl Missing {
    pub fn words(&self, lang: crate::lang::Lang) -> String {
        use crate::lang::t;
        match self {
            Missing::Status(code) => t!(lang, "the host answered HTTP {code}"),
            Missing::Unreachable => t!(lang, "the host could not be reached").into(),
            Missing::Slow => t!(lang, "no answer within {} s", FETCH_TIMEOUT_MS / 1000),
        }
    }
}

#[derive(Debug)]
pub struct Library {
    /// The build carries the documents. Tests turn it off to take the page's road.
    pub compiled: bool,
    /// The built-in to open when its document arrives (the page says it is loading).
    pub loading: Option<String>,
    fetched: BTreeMap<String, Rc<Scenario>>,
    /// Why a document could not be had (a later request tries again).
    failed: BTreeMap<String, String>,
    /// Asked for and not yet answered.
    asked: BTreeSet<String>,
    /// Free play, the page's default: every build carries it.
    free: Rc<Scenario>,
}

// Not derived: `compiled` follows the build's feature.
#[allow(clippy::derivable_impls)]
impl Default for Library {
    fn default() -> Library {
        Library {
            compiled: cfg!(feature = "builtin-docs"),
            loading: None,
            fetched: BTreeMap::new(),
            failed: BTreeMap::new(),
            asked: BTreeSet::new(),
            free: Rc::new(super::fragment::default_scenario()),
        }
    }
}

/// What the library holds of one built-in.
#[derive(Debug, PartialEq)]
pub enum Doc<'a> {
    Here(Rc<Scenario>),
    /// Asked for (or not yet): its document has not arrived.
    Coming,
    /// The fetch or the document failed: why.
    Failed(&'a str),
}

impl Library {
    /// A library that fetches every document, as the page's build does.
    pub fn fetching() -> Library {
        Library {
            compiled: false,
            ..Library::default()
        }
    }

    /// A built-in's document as far as the page has it (None: no such built-in).
    pub fn doc(&self, name: &str) -> Option<Doc<'_>> {
        if !builtin::is_builtin(name) {
            return None;
        }
        if self.compiled {
            if let Some(sc) = builtin::get(name) {
                return Some(Doc::Here(Rc::new(sc)));
            }
        }
        if self.free.name == name {
            return Some(Doc::Here(Rc::clone(&self.free)));
        }
        Some(match (self.fetched.get(name), self.failed.get(name)) {
            (Some(sc), _) => Doc::Here(Rc::clone(sc)),
            (None, Some(why)) => Doc::Failed(why),
            (None, None) => Doc::Coming,
        })
    }

    /// A built-in's document, when the page has it.
    pub fn get(&self, name: &str) -> Option<Scenario> {
        match self.doc(name)? {
            Doc::Here(sc) => Some(Rc::unwrap_or_clone(sc)),
            _ => None,
        }
    }

    /// Ask for a built-in's document: the fetch to make, unless it is here or on its way. A
    /// failed one is asked for again.
    pub fn request(&mut self, name: &str) -> Option<Effect> {
        if matches!(self.doc(name)?, Doc::Here(_)) || !self.asked.insert(name.to_string()) {
            return None;
        }
        self.failed.remove(name);
        Some(Effect::Fetch(name.to_string()))
    }

    /// Every built-in not yet here (the scenario list shows their stories).
    pub fn request_all(&mut self) -> Vec<Effect> {
        builtin::names().filter_map(|n| self.request(n)).collect()
    }

    /// A fetch answered with the file's text, or why there is none. Keeps the document (a
    /// broken one is a failure with the reason). Returns the result when it is the built-in
    /// to open; an answer for a name that is no built-in changes nothing.
    pub fn arrived(
        &mut self,
        name: &str,
        text: Result<String, Missing>,
        lang: crate::lang::Lang,
    ) -> Option<Result<Scenario, String>> {
        if !builtin::is_builtin(name) {
            return None;
        }
        self.asked.remove(name);
        let doc = text
            .map_err(|m| m.words(lang))
            .and_then(|t| match Scenario::from_json(&t) {
                Ok(sc) if sc.name == name => Ok(sc),
                Ok(sc) => Err(crate::lang::t!(lang, "the file holds \"{}\"", sc.name)),
                Err(e) => Err(e.words(lang)),
            });
        match &doc {
            Ok(sc) => {
                self.fetched.insert(name.to_string(), Rc::new(sc.clone()));
            }
            Err(why) => {
                self.failed.insert(name.to_string(), why.clone());
            }
        }
        (self.loading.as_deref() == Some(name)).then(|| {
            self.loading = None;
            doc
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Lang;
    use crate::model::{Command, Page};
    use crate::playground::Playground;

    fn file(name: &str) -> Result<String, Missing> {
        Ok(builtin::document(name)
            .expect("the tests carry the documents")
            .to_string())
    }

    /// The page a link opens in the page's build (the documents fetched).
    fn fetching_at(frag: &str) -> Page {
        Page::open_fragment(frag, Rc::new(|| 0.0), Lang::En, Library::fetching())
    }

    fn fetching_page() -> Page {
        fetching_at("")
    }

    /// Choose a built-in and let its file arrive.
    fn choose_and_fetch(p: &mut Page, name: &str) {
        p.apply(Command::LoadBuiltin(name.into()));
        p.apply(Command::Fetched(name.into(), file(name)));
    }

    #[test]
    fn a_builtin_the_build_does_not_carry_is_fetched_when_chosen_and_opened_when_it_arrives() {
        let mut p = fetching_page();
        let fx = p.apply(Command::LoadBuiltin("ghost-lock".into()));
        assert_eq!(fx, vec![Effect::Fetch("ghost-lock".into())]);
        assert_eq!(p.library.loading.as_deref(), Some("ghost-lock"));
        assert_eq!(
            p.playground.scenario.name, "playground",
            "the run in view stays meanwhile"
        );
        // Chosen again while on its way: no second fetch.
        assert!(p
            .apply(Command::LoadBuiltin("ghost-lock".into()))
            .is_empty());
        let fx = p.apply(Command::Fetched("ghost-lock".into(), file("ghost-lock")));
        assert_eq!(p.playground.scenario.name, "ghost-lock");
        assert!(p.in_lesson() && p.library.loading.is_none() && p.error.is_none());
        assert!(fx.contains(&Effect::SetFragment("#scenario=ghost-lock".into())));
        // Kept for the session: chosen again later, it opens at once.
        choose_and_fetch(&mut p, "gc-pause");
        let fx = p.apply(Command::LoadBuiltin("ghost-lock".into()));
        assert!(!fx.iter().any(|e| matches!(e, Effect::Fetch(_))));
        assert_eq!(p.playground.scenario.name, "ghost-lock");
    }

    #[test]
    fn a_failed_or_broken_fetch_leaves_the_run_says_why_and_a_second_choice_fetches_again() {
        let mut p = fetching_page();
        p.apply(Command::LoadBuiltin("ghost-lock".into()));
        p.apply(Command::Fetched(
            "ghost-lock".into(),
            Err(Missing::Status(404)),
        ));
        assert_eq!(p.playground.scenario.name, "playground");
        let e = p.error.clone().expect("a message");
        assert_eq!(
            e,
            "The lesson \"ghost-lock\" could not be loaded: the host answered HTTP 404."
        );
        assert!(p.library.loading.is_none());
        assert_eq!(
            p.scenario_choice(),
            "playground",
            "the menu shows the run again"
        );
        let fx = p.apply(Command::LoadBuiltin("ghost-lock".into()));
        assert_eq!(fx, vec![Effect::Fetch("ghost-lock".into())], "asked again");
        p.apply(Command::Fetched("ghost-lock".into(), Ok("{broken".into())));
        assert!(p.error.as_deref().is_some_and(|e| e.contains("ghost-lock")));
        p.apply(Command::LoadBuiltin("ghost-lock".into()));
        p.apply(Command::Fetched("ghost-lock".into(), file("gc-pause")));
        assert!(
            p.error.as_deref().is_some_and(|e| e.contains("gc-pause")),
            "another lesson's file is refused"
        );
        assert_eq!(p.playground.scenario.name, "playground");
    }

    #[test]
    fn an_answer_nobody_waits_for_opens_nothing() {
        let mut p = fetching_page();
        let v = p.playground.scenario.clone();
        p.apply(Command::Fetched("no-such".into(), file("gc-pause")));
        p.apply(Command::Fetched("gc-pause".into(), file("gc-pause")));
        assert_eq!(p.playground.scenario, v);
        assert!(p.error.is_none());
        // The user chose something else while a lesson was on its way: it stays.
        p.apply(Command::LoadBuiltin("ghost-lock".into()));
        p.apply(Command::LoadJson(
            builtin::document("late-expire").unwrap().into(),
        ));
        p.apply(Command::Fetched("ghost-lock".into(), file("ghost-lock")));
        assert_eq!(p.playground.scenario.name, "late-expire");
    }

    #[test]
    fn a_link_naming_a_builtin_opens_it_once_fetched() {
        let mut p = fetching_at("#scenario=gc-pause&lang=ru");
        assert_eq!(p.lang, Lang::Ru);
        assert_eq!(p.start_effects(), vec![Effect::Fetch("gc-pause".into())]);
        assert!(p.start_effects().is_empty(), "asked once");
        p.apply(Command::Fetched("gc-pause".into(), file("gc-pause")));
        assert_eq!(p.playground.scenario.name, "gc-pause");
        // And a link that arrives later (hashchange).
        let fx = p.apply(Command::OpenFragment("#scenario=ghost-lock".into()));
        assert_eq!(fx, vec![Effect::Fetch("ghost-lock".into())]);
        p.apply(Command::Fetched("ghost-lock".into(), file("ghost-lock")));
        assert_eq!(p.playground.scenario.name, "ghost-lock");
        // Back to one fetched before: it opens at once.
        let fx = p.apply(Command::OpenFragment("#scenario=gc-pause".into()));
        assert!(!fx.iter().any(|e| matches!(e, Effect::Fetch(_))));
        assert_eq!(
            (p.playground.scenario.name.as_str(), p.error.as_deref()),
            ("gc-pause", None)
        );
        let p = fetching_at("#scenario=no-such");
        assert!(p.error.is_some() && p.library.loading.is_none());
    }

    #[test]
    fn an_embedding_page_hears_ready_for_the_lesson_it_asked_for_once_it_arrived() {
        let mut p = fetching_at("#embed/scenario=gc-pause");
        let mut w = crate::model::embed::Watcher::default();
        assert!(
            p.host_events(&mut w).is_empty(),
            "nothing of the run shown meanwhile"
        );
        p.apply(Command::Fetched("gc-pause".into(), file("gc-pause")));
        let out = p.host_events(&mut w);
        assert_eq!(out[0]["type"], "raftlock:ready");
        assert_eq!(out[0]["scenario"], "gc-pause");
        let (fx, reply) =
            p.host_message(&serde_json::json!({"type": "raftlock:load", "builtin": "ghost-lock"}));
        assert_eq!(
            (fx, reply),
            (vec![Effect::Fetch("ghost-lock".into())], None)
        );
        assert!(p.host_events(&mut w).is_empty());
        p.apply(Command::Fetched("ghost-lock".into(), file("ghost-lock")));
        assert_eq!(p.host_events(&mut w)[0]["scenario"], "ghost-lock");
    }

    #[test]
    fn why_a_file_did_not_come_is_said_in_the_readers_language() {
        assert_eq!(
            Missing::Status(404).words(Lang::Ru),
            "сервер ответил HTTP 404"
        );
        assert_eq!(
            Missing::Unreachable.words(Lang::En),
            "the host could not be reached"
        );
        assert_eq!(Missing::Slow.words(Lang::Ru), "нет ответа за 20\u{a0}с");
    }

    #[test]
    fn free_play_opens_without_a_fetch() {
        let mut p = fetching_page();
        choose_and_fetch(&mut p, "ghost-lock");
        let fx = p.apply(Command::LoadBuiltin("playground".into()));
        assert!(!fx.iter().any(|e| matches!(e, Effect::Fetch(_))));
        assert_eq!(p.playground.scenario.name, "playground");
    }

    #[test]
    fn an_embedding_page_hears_why_a_lesson_did_not_come_and_waits_for_it() {
        let mut p = fetching_at("#embed/scenario=gc-pause");
        let mut w = crate::model::embed::Watcher::default();
        assert!(p.host_events(&mut w).is_empty());
        // A command meanwhile is refused with a reason, not done to the run shown meanwhile.
        let (fx, reply) = p.host_message(&serde_json::json!({"type": "raftlock:next"}));
        assert!(fx.is_empty());
        assert!(reply.unwrap()["message"]
            .as_str()
            .unwrap()
            .contains("still loading the lesson \"gc-pause\""));
        p.apply(Command::Fetched(
            "gc-pause".into(),
            Err(Missing::Status(404)),
        ));
        let out = p.host_events(&mut w);
        assert_eq!(out[0]["type"], "raftlock:error");
        assert!(
            out[0]["message"].as_str().unwrap().contains("HTTP 404"),
            "{out:?}"
        );
        let (_, reply) = p.host_message(&serde_json::json!({"type": "raftlock:next"}));
        assert!(reply.is_none_or(|r| !r["message"]
            .as_str()
            .unwrap_or("")
            .contains("still loading")));
    }

    #[test]
    fn the_scenario_list_fetches_every_story_once() {
        let mut p = fetching_page();
        let fx = p.apply(Command::ScenarioList(true));
        assert_eq!(
            fx.len(),
            builtin::NAMES.len() - 1,
            "free play is compiled in"
        );
        for n in builtin::NAMES.iter().filter(|n| **n != "playground") {
            assert_eq!(p.library.doc(n), Some(Doc::Coming));
            p.apply(Command::Fetched(n.to_string(), file(n)));
            assert!(matches!(p.library.doc(n), Some(Doc::Here(_))));
        }
        assert!(p.apply(Command::ScenarioList(true)).is_empty());
        assert!(p.list_open && p.playground.scenario.name == "playground");
        // With the documents compiled in, nothing is fetched.
        let mut p = Page::new(Playground::new(crate::model::default_scenario()).unwrap());
        assert!(p.apply(Command::ScenarioList(true)).is_empty());
        assert!(p
            .apply(Command::LoadBuiltin("ghost-lock".into()))
            .iter()
            .all(|e| !matches!(e, Effect::Fetch(_))));
    }
}
