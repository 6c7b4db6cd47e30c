//! The built-in scenarios as the menus list them: name, title and whether it is a "Break it",
//! in classroom order. The catalogue comes with every build; a built-in's document may still
//! have to be fetched ([`super::library`]).

use super::library::{Doc, Library};
use crate::lang::{t, Lang};
use crate::scenario::builtin;

/// One built-in in the scenario menu and the list page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub name: &'static str,
    /// Its title in the page's language; None for free play, which has none.
    pub title: Option<String>,
    /// A "Break it": one safeguard off, one invariant turns red.
    pub break_it: bool,
}

/// Every built-in, in classroom order.
pub fn catalog(lang: Lang) -> Vec<Entry> {
    builtin::names()
        .map(|name| Entry {
            name,
            title: title(name, lang),
            break_it: builtin::is_break_it(name),
        })
        .collect()
}

/// A built-in's title in `lang` (None: no such built-in, or free play).
pub fn title(name: &str, lang: Lang) -> Option<String> {
    builtin::title(name)
        .map(|t| t.get(lang).to_string())
        .filter(|t| !t.is_empty())
}

/// What the page calls a scenario: a built-in's title, else its name.
pub fn title_or_name(name: &str, lang: Lang) -> String {
    title(name, lang).unwrap_or_else(|| name.to_string())
}

/// Whether `name` is a built-in (else the run is the reader's own).
pub fn is_builtin(name: &str) -> bool {
    builtin::is_builtin(name)
}

/// A built-in's story on the list page, which comes with its document (the list asks for
/// them all when it opens).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Story {
    /// Its description, and its facts: "gc-pause · 3 nodes · 2 clients · 12 s".
    Here {
        text: String,
        facts: String,
    },
    /// Its document could not be had: why.
    Failed(String),
    Coming,
}

/// Built-in `name`'s story, as far as the library has its document.
pub fn story(library: &Library, name: &str, lang: Lang) -> Story {
    match library.doc(name) {
        Some(Doc::Here(sc)) => Story::Here {
            text: sc.description.get(lang).to_string(),
            facts: t!(
                lang,
                "{name} · {} nodes · {} clients · {} s",
                sc.nodes,
                sc.clients.len(),
                sc.until_ms / 1000
            ),
        },
        Some(Doc::Failed(why)) => Story::Failed(why.to_string()),
        _ => Story::Coming,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_lists_every_builtin_in_classroom_order_with_its_title() {
        let en = catalog(Lang::En);
        assert_eq!(en.len(), builtin::NAMES.len());
        assert_eq!(en[0].name, "gc-pause");
        assert!(en[0].title.as_deref().is_some_and(|t| !t.is_empty()));
        assert!(!en[0].break_it);
        let figure_8 = en.iter().find(|e| e.name == "break-figure-8").unwrap();
        assert!(figure_8.break_it && figure_8.title.is_some());
        assert!(en
            .iter()
            .any(|e| e.name == "gc-pause-no-fencing" && e.break_it));
        let free = en.iter().find(|e| e.name == "playground").unwrap();
        assert_eq!(free.title, None, "free play has no title of its own");
        // Every lesson's title is in Russian too.
        let ru = catalog(Lang::Ru);
        assert!(ru
            .iter()
            .zip(&en)
            .all(|(r, e)| r.name == e.name && r.title.is_some() == e.title.is_some()));
        assert_ne!(ru[0].title, en[0].title);
    }

    #[test]
    fn a_story_on_the_list_page_is_coming_until_its_document_is_here_or_failed() {
        use super::super::library::Missing;
        let mut lib = Library::fetching();
        assert_eq!(story(&lib, "ghost-lock", Lang::En), Story::Coming);
        let doc = builtin::document("ghost-lock").unwrap().to_string();
        lib.arrived("ghost-lock", Ok(doc), Lang::En);
        let Story::Here { text, facts } = story(&lib, "ghost-lock", Lang::En) else {
            panic!("the document is here");
        };
        assert!(!text.is_empty());
        assert!(
            facts.starts_with("ghost-lock · ") && facts.contains(" nodes · "),
            "{facts}"
        );
        lib.arrived("gc-pause", Err(Missing::Status(404)), Lang::En);
        assert_eq!(
            story(&lib, "gc-pause", Lang::En),
            Story::Failed("the host answered HTTP 404".into())
        );
        assert_eq!(
            story(&Library::fetching(), "playground", Lang::En),
            story(&Library::default(), "playground", Lang::En),
            "free play comes with every build"
        );
    }

    #[test]
    fn a_scenario_is_called_by_its_title_or_else_its_name() {
        assert_eq!(title_or_name("playground", Lang::En), "playground");
        assert_eq!(title_or_name("my-own", Lang::En), "my-own");
        assert_eq!(
            title_or_name("gc-pause", Lang::En),
            title("gc-pause", Lang::En).unwrap()
        );
        assert!(is_builtin("gc-pause") && !is_builtin("my-own"));
    }
}
