//! What a URL fragment opens (a share link, a built-in by name), and the page's language in
//! a fragment.

use super::text;
use crate::lang::{t, Lang};
use crate::playground::Playground;
use crate::scenario::{Scenario, PLAYGROUND_JSON};

/// A fragment's language (`…&lang=ru`, as share links carry it, or a hand-made `#lang=ru`), and
/// the fragment without it.
pub fn split_lang(frag: &str) -> (String, Option<Lang>) {
    let (hash, body) = frag.strip_prefix('#').map_or(("", frag), |b| ("#", b));
    let mut lang = None;
    let mut rest = Vec::new();
    for part in body.split('&') {
        match part.strip_prefix("lang=") {
            Some(code) => lang = Lang::parse(code).or(lang),
            None => rest.push(part),
        }
    }
    let rest = rest.join("&");
    (
        if rest.is_empty() {
            rest
        } else {
            format!("{hash}{rest}")
        },
        lang,
    )
}

/// The fragment with the page's language: English links carry none (the reader's remembered
/// choice, else their browser's, decides), Russian ones `&lang=ru`.
pub fn with_lang(frag: &str, lang: Lang) -> String {
    let (frag, _) = split_lang(frag);
    match lang {
        Lang::En => frag,
        _ if frag.trim_start_matches('#').is_empty() => frag,
        l => format!("{frag}&lang={}", l.code()),
    }
}

/// A whole URL with the page's language in its fragment (its query, if any, untouched).
pub fn url_with_lang(url: &str, lang: Lang) -> String {
    match url.split_once('#') {
        Some((base, frag)) => format!("{base}{}", with_lang(&format!("#{frag}"), lang)),
        None => url.to_string(),
    }
}

pub fn default_scenario() -> Scenario {
    Scenario::from_json(PLAYGROUND_JSON).expect("the built-in playground scenario is valid")
}

/// The built-in a fragment names (`scenario=NAME`): it opens through the page's library
/// (compiled in, fetched before, or fetched now).
pub fn builtin_in(frag: &str) -> Option<&str> {
    let name = frag.trim_start_matches('#').strip_prefix("scenario=")?;
    crate::scenario::builtin::is_builtin(name).then_some(name)
}

/// What a URL fragment opened: the run, the moment to show, and a note for the reader when the
/// link's moment was past the end of its run (it opens at the end).
pub struct Opened {
    pub playground: Playground,
    pub moment_us: u64,
    pub note: Option<String>,
}

/// What a URL fragment asks for: a share link (`v1.…`) with its moment, a built-in
/// (`scenario=NAME`) at its start, or nothing. An error is why the link could not be opened, in
/// plain words, for the caller to say what it shows instead ([`link_refused`]). The run is not
/// advanced here: the page replays to the moment in slices.
pub fn playground_from_fragment(frag: &str, lang: Lang) -> Result<Option<Opened>, String> {
    let frag = frag.trim_start_matches('#');
    if frag.is_empty() || frag == "scenarios" {
        return Ok(None);
    }
    if let Some(name) = frag.strip_prefix("scenario=") {
        // A built-in's name is not asked for here ([`builtin_in`]).
        return Err(t!(lang, "there is no built-in scenario \"{name}\""));
    }
    // The link's own faults in plain words; a fault of the document it carries names its field.
    let why = |e: crate::scenario::ScenarioError| match e.field.as_str() {
        "link" => e.message.get(lang).to_string(),
        _ => t!(lang, "its scenario is not valid ({e})", e = e.words(lang)),
    };
    let shared = crate::scenario::link::decode(frag).map_err(why)?;
    let end_us = shared.scenario.until_ms.saturating_mul(1000);
    let pg = Playground::new(shared.scenario).map_err(why)?;
    let note = shared.past_end_us.map(|asked| {
        t!(
            lang,
            "This link's moment, {asked}, is past the end of its {end} run: it is opened at its end.",
            asked = text::fmt_us(asked.min(i64::MAX as u64) as i64, lang),
            end = text::fmt_span(end_us, lang)
        )
    });
    Ok(Some(Opened {
        playground: pg,
        moment_us: shared.moment_us,
        note,
    }))
}

/// The message for a link that could not be opened: why, and what the page shows instead (the
/// default scenario as the page opens; the run the reader had when a link is pasted into an open
/// tab).
pub fn link_refused(why: &str, kept_run: bool, lang: Lang) -> String {
    if kept_run {
        t!(
            lang,
            "This link could not be opened: {why}. The run you had is kept."
        )
    } else {
        t!(
            lang,
            "This link could not be opened: {why}. The default scenario is shown instead."
        )
    }
}
