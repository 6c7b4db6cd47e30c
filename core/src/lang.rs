//! The page's two languages, and a text a lesson gives in either or both.
//!
//! Interface words are `t!` calls (the `raftlock-i18n` macro): English in the code, Russian
//! from `i18n/ru.json`, both compiled in, so a missing Russian text is a compile error. A
//! scenario document's texts (description, title, captions, questions) are [`Text`]s: a plain
//! string is English; `{"en": "…", "ru": "…"}` gives both, and either alone is allowed.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use raftlock_i18n::{both, t};

/// The Russian texts: named here so that an edit of the file rebuilds the crate (the macro
/// reads it at compile time).
const _: &str = include_str!("../../i18n/ru.json");

/// A `t!` text with arguments: `template` holds each argument's number (`{0}`, `{1}`; `{{` and
/// `}}` are braces), as the macro wrote it. One shared function instead of a `format!` per text
/// and language keeps the page's wasm small.
pub fn fill(template: &str, args: &[&dyn std::fmt::Display]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(template.len() + 16 * args.len());
    let mut rest = template;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
            continue;
        }
        if let Some(after) = tail.strip_prefix('}') {
            out.push('}');
            rest = after;
            continue;
        }
        let end = tail.find('}').unwrap_or(tail.len());
        match tail[1..end].parse::<usize>().ok().and_then(|n| args.get(n)) {
            Some(a) => {
                let _ = write!(out, "{a}");
            }
            None => out.push_str(&tail[..(end + 1).min(tail.len())]),
        }
        rest = &tail[(end + 1).min(tail.len())..];
    }
    out.push_str(rest);
    out
}

/// A role in words.
pub fn role_word(role: &str, lang: Lang) -> String {
    match role {
        "leader" => t!(lang, "leader").into(),
        "follower" => t!(lang, "follower").into(),
        "candidate" => t!(lang, "candidate").into(),
        "precandidate" => t!(lang, "precandidate").into(),
        other => other.into(),
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lang {
    #[default]
    En,
    Ru,
}

impl Lang {
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Ru];

    /// What `t!` asks: which of its two texts to give.
    pub fn is_ru(self) -> bool {
        self == Lang::Ru
    }

    /// The code in links, `<html lang>` and the remembered choice: "en", "ru".
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ru => "ru",
        }
    }

    /// The language's own name, for the switch.
    pub fn name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Ru => "Русский",
        }
    }

    /// "ru", "ru-RU", "RU", "en-GB", …: the language, or None for one the page does not have.
    pub fn parse(code: &str) -> Option<Lang> {
        let base = code.split(['-', '_']).next()?.trim().to_ascii_lowercase();
        match base.as_str() {
            "en" => Some(Lang::En),
            "ru" => Some(Lang::Ru),
            _ => None,
        }
    }

    /// The first of the browser's preferred languages that the page has; English otherwise.
    pub fn from_preferences<'a>(codes: impl IntoIterator<Item = &'a str>) -> Lang {
        codes.into_iter().find_map(Lang::parse).unwrap_or_default()
    }
}

/// A text of a scenario document in English, Russian or both (an empty string: not given).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Text {
    pub en: String,
    pub ru: String,
}

impl Text {
    pub fn new(en: impl Into<String>, ru: impl Into<String>) -> Text {
        Text {
            en: en.into(),
            ru: ru.into(),
        }
    }

    /// Made by one function for each language (for a text whose arguments are words too).
    pub fn by_lang(text: impl Fn(Lang) -> String) -> Text {
        Text::new(text(Lang::En), text(Lang::Ru))
    }

    /// The text in `lang`, or in the other language when it has none in `lang`.
    pub fn get(&self, lang: Lang) -> &str {
        let (want, other) = match lang {
            Lang::En => (&self.en, &self.ru),
            Lang::Ru => (&self.ru, &self.en),
        };
        if want.trim().is_empty() {
            other
        } else {
            want
        }
    }

    pub fn has(&self, lang: Lang) -> bool {
        !match lang {
            Lang::En => &self.en,
            Lang::Ru => &self.ru,
        }
        .trim()
        .is_empty()
    }

    /// No language has a text.
    pub fn is_blank(&self) -> bool {
        !Lang::ALL.iter().any(|&l| self.has(l))
    }

    /// The longest of its texts, in characters (for the document's length limits).
    pub fn len(&self) -> usize {
        self.en.chars().count().max(self.ru.chars().count())
    }

    pub fn is_empty(&self) -> bool {
        self.en.is_empty() && self.ru.is_empty()
    }
}

impl From<&str> for Text {
    fn from(en: &str) -> Text {
        Text::new(en, "")
    }
}

impl From<String> for Text {
    fn from(en: String) -> Text {
        Text::new(en, "")
    }
}

/// The English text (or the Russian where there is none): the CLI's language.
impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.get(Lang::En))
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, o: &&str) -> bool {
        self.ru.is_empty() && self.en == *o
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Both {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    en: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    ru: String,
}

#[derive(Deserialize)]
#[serde(untagged, expecting = "a text: a string, or {\"en\": …, \"ru\": …}")]
enum Form {
    Plain(String),
    Both(Both),
}

impl Serialize for Text {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.ru.is_empty() {
            s.serialize_str(&self.en)
        } else {
            Both {
                en: self.en.clone(),
                ru: self.ru.clone(),
            }
            .serialize(s)
        }
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
        Ok(match Form::deserialize(d)? {
            Form::Plain(en) => Text::new(en, ""),
            Form::Both(b) => Text::new(b.en, b.ru),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_gives_what_format_gives() {
        let (a, b) = (41, "k");
        assert_eq!(
            fill("Granted{{{0}}} on {1}", &[&a, &b]),
            format!("Granted{{{a}}} on {b}")
        );
        assert_eq!(fill("{1} before {0}", &[&a, &b]), "k before 41");
        assert_eq!(fill("no args", &[]), "no args");
        // What no macro writes still gives text, never a panic.
        assert_eq!(fill("{7} {x} } {", &[&a]), "{7} {x} } {");
    }

    #[test]
    fn t_with_arguments_fills_both_languages_as_format_would() {
        let (node, term, other) = (3, 7, 1);
        for lang in [Lang::En, Lang::Ru] {
            let got = t!(
                lang,
                "n{node} became leader of term {term}; n{other} already led it"
            );
            let want = match lang {
                Lang::En => {
                    format!("n{node} became leader of term {term}; n{other} already led it")
                }
                Lang::Ru => format!(
                    "n{node} стал лидером терма {term}, а лидером этого терма уже был n{other}"
                ),
            };
            assert_eq!(got, want);
        }
        // Positional, named and in-scope arguments, escaped braces, an expression evaluated once.
        let (key, index) = ("k", 9);
        let mut calls = 0;
        let mut token = || {
            calls += 1;
            41
        };
        assert_eq!(
            t!(
                Lang::Ru,
                "Expire{{{key}, {token}}} at index {index} deleted the lock with token {}",
                40 + 1,
                token = token()
            ),
            "Expire{k, 41} на индексе 9 удалил блокировку с токеном 41"
        );
        assert_eq!(calls, 1);
        assert_eq!(t!(Lang::En, "Answer {} (key {})", 2, 3), "Answer 2 (key 3)");
    }
    #[test]
    fn lang_follows_the_browsers_first_language_the_page_has() {
        assert_eq!(Lang::from_preferences(["de-DE", "ru-RU", "en"]), Lang::Ru);
        assert_eq!(Lang::from_preferences(["en-GB", "ru"]), Lang::En);
        assert_eq!(Lang::from_preferences(["fr"]), Lang::En);
        assert_eq!(Lang::parse("RU"), Some(Lang::Ru));
        assert_eq!(Lang::parse(""), None);
    }

    #[test]
    fn a_text_is_a_string_or_both_languages_and_falls_back_to_the_other() {
        let plain: Text = serde_json::from_str("\"Hello\"").unwrap();
        assert_eq!(plain.get(Lang::Ru), "Hello");
        assert!(!plain.has(Lang::Ru));
        assert_eq!(serde_json::to_string(&plain).unwrap(), "\"Hello\"");
        let both: Text = serde_json::from_str(r#"{"en": "Hello", "ru": "Привет"}"#).unwrap();
        assert_eq!(both.get(Lang::Ru), "Привет");
        assert_eq!(both.get(Lang::En), "Hello");
        let back: Text = serde_json::from_str(&serde_json::to_string(&both).unwrap()).unwrap();
        assert_eq!(back, both);
        let ru_only: Text = serde_json::from_str(r#"{"ru": "Привет"}"#).unwrap();
        assert_eq!(ru_only.get(Lang::En), "Привет");
        assert!(serde_json::from_str::<Text>(r#"{"de": "Hallo"}"#).is_err());
        assert!(serde_json::from_str::<Text>("3").is_err());
    }
}

#[cfg(test)]
mod macro_tests {
    use super::{t, Lang};

    #[test]
    fn t_gives_the_text_of_the_language_with_its_arguments() {
        let node = 3;
        assert_eq!(t!(Lang::En, "n{node} crashed"), "n3 crashed");
        assert_eq!(t!(Lang::Ru, "n{node} crashed"), "n3 упал");
        assert_eq!(t!(Lang::Ru, "Play"), "Пуск");
        assert_eq!(t!(Lang::En, "{} of {}", 1, 2), "1 of 2");
        assert_eq!(t!(Lang::Ru, "{} of {}", 1, 2), "1 из 2");
    }
}

#[cfg(test)]
mod catalog_tests {
    /// The placeholders of a format string, by name (`{}` counted as "").
    fn placeholders(s: &str) -> Vec<String> {
        let s = s.replace("{{", "").replace("}}", "");
        let mut out: Vec<String> = s
            .split('{')
            .skip(1)
            .filter_map(|p| p.split('}').next())
            .map(|p| p.split(':').next().unwrap_or("").to_string())
            .collect();
        out.sort();
        out
    }

    #[test]
    fn every_interface_text_has_both_languages_with_the_same_placeholders() {
        let ru: std::collections::BTreeMap<String, String> =
            serde_json::from_str(include_str!("../../i18n/ru.json")).expect("i18n/ru.json is JSON");
        assert!(ru.len() > 400, "{} texts", ru.len());
        for (en, text) in &ru {
            assert!(!en.trim().is_empty(), "an empty English key");
            assert!(!text.trim().is_empty(), "no Russian for {en:?}");
            assert_eq!(placeholders(en), placeholders(text), "{en:?} → {text:?}");
            // Russian, or only identifiers (Grant, no-op, seed) and placeholders: no English
            // word of the key's own is left in it.
            let cyrillic = text
                .chars()
                .any(|c| matches!(c, 'а'..='я' | 'А'..='Я' | 'ё' | 'Ё'));
            let english_words = ["a", "an", "is", "the", "of"];
            assert!(
                cyrillic
                    || !text
                        .split(|c: char| !c.is_ascii_alphabetic())
                        .any(|w| english_words.contains(&w)),
                "{en:?} → {text:?} is not Russian"
            );
        }
    }
}

#[cfg(test)]
mod both_tests {
    use super::{both, Lang};

    #[test]
    fn both_gives_a_text_in_each_language_with_its_arguments() {
        let node = 3;
        let t = both!("n{node} crashed");
        assert_eq!(
            (t.get(Lang::En), t.get(Lang::Ru)),
            ("n3 crashed", "n3 упал")
        );
        let t = both!("Play");
        assert_eq!((t.en.as_str(), t.ru.as_str()), ("Play", "Пуск"));
    }
}
