//! The page's two languages, and a text a lesson gives in either or both.
//!
//! Interface words are `t!` calls (the `raftlock-i18n` macro): English in the code, Russian
//! from `i18n/ru.json` by number ([`tr`]), so a missing Russian text is a compile error. The
//! Russian table is compiled in with the `ru-texts` feature (the CLI, the tests); the page's
//! build fetches it as `ru.json` for a reader who wants Russian ([`install`]). A
//! scenario document's texts (description, title, captions, questions) are [`Text`]s: a plain
//! string is English; `{"en": "…", "ru": "…"}` gives both, and either alone is allowed.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use raftlock_i18n::{both, t, tb};

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

include!(concat!(env!("OUT_DIR"), "/ru.rs"));

/// The interface's Russian, ready for [`tr`]: `i18n/ru.json`'s values in the order of their
/// sorted keys (the `t!` macro's numbers), a text without placeholders unescaped (`{{` → `{`).
static RUSSIAN: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();

/// The Russian texts, if they are here: compiled in with the `ru-texts` feature; the page's
/// build has them once [`install`] took the fetched `ru.json`.
fn russian() -> Option<&'static [&'static str]> {
    #[cfg(feature = "ru-texts")]
    return Some(RUSSIAN.get_or_init(|| {
        RU_TEXTS
            .iter()
            .map(|&s| {
                if has_placeholder(s) {
                    s
                } else {
                    Box::leak(unescape(s).into_boxed_str()) as &str
                }
            })
            .collect()
    }));
    #[cfg(not(feature = "ru-texts"))]
    RUSSIAN.get().map(Vec::as_slice)
}

/// Whether the Russian texts are here (a page in Russian needs them first).
pub fn russian_ready() -> bool {
    russian().is_some()
}

/// Take the fetched `ru.json`: a JSON array of the keys' fingerprint (8 hex digits) and then
/// the texts, as scripts/ru-texts.mjs writes it. Once: the texts live as long as the page.
/// Refused, with the reason, if it is not that, or it was made from other keys than this
/// build's (a file of another version: its numbers would give the wrong texts).
pub fn install(json: &str) -> Result<(), String> {
    let mut texts: Vec<String> = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let keys = format!("{RU_KEYS:08x}");
    if texts.len() != RU_COUNT + 1 || texts[0] != keys {
        return Err(format!(
            "{} texts of keys {} where this build has {RU_COUNT} of keys {keys}",
            texts.len().saturating_sub(1),
            texts.first().map_or("", |k| k.as_str())
        ));
    }
    if RUSSIAN.get().is_none() {
        let ready = texts
            .drain(1..)
            .map(|s| {
                let s = if has_placeholder(&s) { s } else { unescape(&s) };
                Box::leak(s.into_boxed_str()) as &str
            })
            .collect();
        let _ = RUSSIAN.set(ready);
    }
    Ok(())
}

fn unescape(s: &str) -> String {
    s.replace("{{", "{").replace("}}", "}")
}

/// A `{` that is not `{{`.
fn has_placeholder(s: &str) -> bool {
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '{' && chars.next() != Some('{') {
            return true;
        }
    }
    false
}

/// `t!` without arguments: text number `n` in `lang`; English where the Russian is not here.
#[inline(never)]
pub fn tr(lang: Lang, n: u16, en: &'static str) -> &'static str {
    pick(russian(), lang, n).unwrap_or(en)
}

/// `t!` with arguments: the English `en` with its arguments' numbers (`{0}`), or the Russian
/// text number `n` as written, whose k-th placeholder is argument `order[k]`.
#[inline(never)]
pub fn tr_fill(
    lang: Lang,
    n: u16,
    order: &[u8],
    en: &str,
    args: &[&dyn std::fmt::Display],
) -> String {
    match pick(russian(), lang, n) {
        Some(ru) => fill_in_order(ru, order, args),
        None => fill(en, args),
    }
}

fn pick(table: Option<&[&'static str]>, lang: Lang, n: u16) -> Option<&'static str> {
    if lang.is_ru() {
        table?.get(n as usize).copied()
    } else {
        None
    }
}

/// `template`'s k-th placeholder (`{name}`, `{}`, `{0}`: any) replaced by `args[order[k]]`;
/// `{{` and `}}` are braces.
fn fill_in_order(template: &str, order: &[u8], args: &[&dyn std::fmt::Display]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(template.len() + 16 * args.len());
    let mut k = 0;
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '{' => {
                let inner: String = chars.by_ref().take_while(|&c| c != '}').collect();
                match order.get(k).and_then(|&i| args.get(i as usize)) {
                    Some(a) => {
                        let _ = write!(out, "{a}");
                    }
                    None => {
                        out.push('{');
                        out.push_str(&inner);
                        out.push('}');
                    }
                }
                k += 1;
            }
            c => out.push(c),
        }
    }
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
    /// Its texts are `tb!`, with their Russian built in: the page's build fetches the other
    /// texts' Russian only when a reader wants it, after this text may have been made.
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
            "Expire{k, 41} под индексом 9 удалил блокировку с токеном 41"
        );
        assert_eq!(calls, 1);
        assert_eq!(t!(Lang::En, "Answer {} (key {})", 2, 3), "Answer 2 (key 3)");
    }
    /// `ru.json` as scripts/ru-texts.mjs writes it: the values in the order of sorted keys.
    fn ru_file() -> String {
        let map: std::collections::BTreeMap<String, String> =
            serde_json::from_str(include_str!("../../i18n/ru.json")).unwrap();
        let mut file = vec![format!("{RU_KEYS:08x}")];
        file.extend(map.into_values());
        serde_json::to_string(&file).unwrap()
    }

    #[test]
    fn t_takes_the_russian_by_its_number_with_the_russian_placeholder_order() {
        // The Russian names its placeholders in another order than the English.
        let (client, key, next, holder) = ("c2", "k", 7, "c1");
        let say = |lang| {
            t!(
                lang,
                "{client}'s Release{{{key}}} at index {next} deleted the lock {holder} held (token {})",
                5
            )
        };
        assert_eq!(
            say(Lang::En),
            "c2's Release{k} at index 7 deleted the lock c1 held (token 5)"
        );
        assert_eq!(
            say(Lang::Ru),
            "Release{k} клиента c2 под индексом 7 удалил блокировку, которую держал c1 (токен 5)"
        );
        // The numbers are the places of the English keys in sorted order.
        let map: std::collections::BTreeMap<String, String> =
            serde_json::from_str(include_str!("../../i18n/ru.json")).unwrap();
        let table = russian().expect("compiled in for the tests");
        assert_eq!(table.len(), RU_COUNT);
        for (i, ru) in map.values().enumerate() {
            let want = if has_placeholder(ru) {
                ru.clone()
            } else {
                ru.replace("{{", "{").replace("}}", "}")
            };
            assert_eq!(table[i], want);
        }
    }

    #[test]
    fn without_its_russian_texts_the_page_speaks_english_and_a_wrong_file_is_refused() {
        assert_eq!(pick(None, Lang::Ru, 3), None, "English stands in");
        assert_eq!(pick(Some(&["а", "б"]), Lang::Ru, 1), Some("б"));
        assert_eq!(pick(Some(&["а", "б"]), Lang::En, 1), None);
        assert_eq!(pick(Some(&["а"]), Lang::Ru, 9), None);
        assert!(install("{broken").is_err());
        assert!(install("{\"a\": 1}").is_err());
        assert!(install(r#"["один"]"#).is_err());
        let short = install(&format!(r#"["{RU_KEYS:08x}", "один"]"#)).unwrap_err();
        assert!(short.contains(&RU_COUNT.to_string()), "{short}");
        // As many texts, made from other keys (one English text reworded): refused.
        let mut file: Vec<String> = serde_json::from_str(&ru_file()).unwrap();
        file[0] = format!("{:08x}", RU_KEYS ^ 1);
        assert!(install(&serde_json::to_string(&file).unwrap()).is_err());
        assert_eq!(install(&ru_file()), Ok(()));
        // A placeholder the arguments lack stays as written, never a panic.
        assert_eq!(fill_in_order("{a} и {b}", &[0], &[&1]), "1 и {b}");
        assert_eq!(fill_in_order("{{x}} {y}", &[0], &[&2]), "{x} 2");
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
