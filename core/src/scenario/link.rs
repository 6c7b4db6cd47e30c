//! Share links: the whole scenario document (with every action recorded during play) and the
//! moment being looked at, in a URL fragment.
//!
//! Form: `#v1.<payload>.<moment_us>` where payload = base64url(deflate(JSON document)). JSON is
//! the document's own compact form; deflate makes it small (a typical played run is a few hundred
//! characters). The format version is the first field, so a link from a later format gets a
//! clear message. The decoder enforces limits (64 KB link, 1 MB document) and never panics.

use super::{Scenario, ScenarioError};
use crate::lang::both;
use base64::Engine;

pub const LINK_VERSION: &str = "v1";
pub const LINK_BYTES_MAX: usize = 64 * 1024;
pub const DOC_BYTES_MAX: usize = 1024 * 1024;

/// What a link holds: the document and the moment (µs of true time) to show.
#[derive(Clone, Debug, PartialEq)]
pub struct Shared {
    pub scenario: Scenario,
    /// The moment to show: the link's own, or the run's end when the link's is past it.
    pub moment_us: u64,
    /// The moment the link asked for, when it is past the end of its run (a link made with a
    /// longer run, or edited by hand): the link opens at the end instead of not at all.
    pub past_end_us: Option<u64>,
}

fn b64() -> base64::engine::GeneralPurpose {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
}

/// The fragment (without `#`) for a document and a moment.
pub fn encode_fragment(sc: &Scenario, moment_us: u64) -> String {
    let json = sc.to_json();
    let packed = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9);
    format!("{LINK_VERSION}.{}.{moment_us}", b64().encode(packed))
}

/// A full URL: `base` (the page's address, any fragment removed) plus the fragment.
pub fn encode_url(base: &str, sc: &Scenario, moment_us: u64) -> String {
    let base = base.split('#').next().unwrap_or(base);
    format!("{base}#{}", encode_fragment(sc, moment_us))
}

fn bad(message: crate::lang::Text) -> ScenarioError {
    ScenarioError {
        field: "link".into(),
        message,
    }
}

/// Decode a fragment or a whole URL. Every failure is a message; the caller keeps its state.
pub fn decode(link: &str) -> Result<Shared, ScenarioError> {
    if link.len() > LINK_BYTES_MAX {
        return Err(bad(both!(
            "the link is {} KB; links are at most {} KB",
            link.len() / 1024,
            LINK_BYTES_MAX / 1024
        )));
    }
    let frag = link.rsplit_once('#').map_or(link, |(_, f)| f).trim();
    // The page's own parameters ride after the link (`&lang=ru`); base64url has no '&'.
    let frag = frag.split('&').next().unwrap_or(frag);
    let mut parts = frag.split('.');
    let version = parts.next().unwrap_or_default();
    if version != LINK_VERSION {
        if version.len() <= 4
            && version.starts_with('v')
            && version[1..].chars().all(|c| c.is_ascii_digit())
        {
            return Err(bad(both!(
                "this link is format {version}; this version of raftlock reads {LINK_VERSION}"
            )));
        }
        return Err(bad(both!(
            "this is not a raftlock link (it should start with #v1.)"
        )));
    }
    let payload = parts
        .next()
        .ok_or_else(|| bad(both!("the link is cut short: the scenario is missing")))?;
    let moment = parts
        .next()
        .ok_or_else(|| bad(both!("the link is cut short: the moment is missing")))?;
    if parts.next().is_some() {
        return Err(bad(both!("the link has extra parts at its end")));
    }
    let moment_us: u64 = moment
        .parse()
        .map_err(|_| bad(both!("the moment \"{}\" is not a number", truncate(moment))))?;
    let packed = b64().decode(payload).map_err(|_| {
        bad(both!(
            "the link is garbled (not base64url); was it cut or changed?"
        ))
    })?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, DOC_BYTES_MAX).map_err(
        |_| {
            bad(both!(
                "the link is garbled (its data does not unpack); was it cut or changed?"
            ))
        },
    )?;
    let text =
        String::from_utf8(json).map_err(|_| bad(both!("the link's document is not text")))?;
    let scenario = Scenario::from_json(&text)?;
    let end_us = scenario.until_ms.saturating_mul(1000);
    let past_end_us = (moment_us > end_us).then_some(moment_us);
    Ok(Shared {
        scenario,
        moment_us: moment_us.min(end_us),
        past_end_us,
    })
}

fn truncate(s: &str) -> String {
    s.chars().take(20).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use crate::scenario::{swarm, EXAMPLE_JSON};

    #[test]
    fn link_round_trip_keeps_the_document_and_the_moment() {
        for seed in 1..200 {
            let sc = swarm::random_scenario(seed);
            let link = encode_url("http://127.0.0.1:8080/sub/path/?x=1#old", &sc, seed * 1000);
            assert!(link.starts_with("http://127.0.0.1:8080/sub/path/?x=1#v1."));
            let back = decode(&link).unwrap();
            assert_eq!(back.scenario, sc);
            assert_eq!(back.moment_us, seed * 1000);
        }
    }

    #[test]
    fn link_for_a_typical_run_stays_under_2000_characters_and_a_lesson_in_two_languages_under_8000()
    {
        let mut sc = Scenario::from_json(EXAMPLE_JSON).unwrap();
        // A built-in lesson travels whole, in both its languages: captions, facts and questions
        // (Russian is two bytes a letter before deflate).
        let n = encode_fragment(&sc, 6_000_000).len();
        assert!(n < 5000, "{n}");
        for name in crate::scenario::builtin::names() {
            let b = crate::scenario::builtin::get(name).unwrap();
            let n = encode_fragment(&b, 1).len();
            assert!(n < 8000, "{name}: {n}");
        }
        sc.lesson = None;
        assert!(encode_fragment(&sc, 6_000_000).len() < 1000);
        let busy = swarm::random_scenario(3); // 4 clients and up to 24 timed faults
        let n = encode_fragment(&busy, 1).len();
        assert!(n < 2000, "{n}");
    }

    /// A link whose moment is past the end of its run (made with a longer run, or edited by
    /// hand) opens at the end, and says what it asked for.
    #[test]
    fn link_moment_past_the_end_opens_at_the_end() {
        let sc = Scenario::from_json(EXAMPLE_JSON).unwrap();
        let end = sc.until_ms * 1000;
        let back = decode(&encode_fragment(&sc, end + 1)).unwrap();
        assert_eq!((back.moment_us, back.past_end_us), (end, Some(end + 1)));
        let back = decode(&encode_fragment(&sc, u64::MAX)).unwrap();
        assert_eq!((back.moment_us, back.past_end_us), (end, Some(u64::MAX)));
        let back = decode(&encode_fragment(&sc, end)).unwrap();
        assert_eq!((back.moment_us, back.past_end_us), (end, None));
    }

    #[test]
    fn link_bad_input_gets_a_message() {
        let good = encode_fragment(&Scenario::from_json(EXAMPLE_JSON).unwrap(), 5);
        let cases = [
            ("", "not a raftlock link"),
            ("#hello", "not a raftlock link"),
            ("#v9.abc.1", "format v9"),
            (&good[..good.len() / 2], "cut short"),
            (&good.replacen(".", ".AAAA", 1), "garbled"),
            ("#v1.AAAA", "cut short"),
            ("#v1.!!!!.0", "not base64url"),
            ("#v1.AAAA.12x", "not a number"),
        ];
        for (link, msg) in cases {
            let e = decode(link).unwrap_err().to_string();
            assert!(e.contains(msg), "{link:?}: {e}");
        }
        let huge = format!("#v1.{}.0", "A".repeat(LINK_BYTES_MAX));
        assert!(decode(&huge)
            .unwrap_err()
            .to_string()
            .contains("at most 64 KB"));
        let wrong_doc =
            encode_fragment(&Scenario::from_json(EXAMPLE_JSON).unwrap(), 5).replace("v1.", "v1.x");
        assert!(decode(&wrong_doc).is_err());
    }

    /// The decoder never panics or hangs: 100,000 inputs (random bytes, and valid links cut,
    /// flipped and spliced). Findings would be kept in tests/corpus/links.txt; run with
    /// RAFTLOCK_FUZZ_INPUTS=N for more.
    #[test]
    fn link_decoder_fuzz_never_panics() {
        let n: u64 = std::env::var("RAFTLOCK_FUZZ_INPUTS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(100_000);
        let mut r = Rng::new(0xf022);
        let seeds: Vec<String> = (1..20)
            .map(|s| encode_fragment(&swarm::random_scenario(s), s))
            .collect();
        let corpus: Vec<&str> = include_str!("../../../tests/corpus/links.txt")
            .lines()
            .collect();
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.#v";
        let mut ok = 0;
        for i in 0..n {
            let input: String = match i % 4 {
                0 => (0..r.below(200))
                    .map(|_| alphabet[r.below(alphabet.len() as u64) as usize] as char)
                    .collect(),
                1 => {
                    let s = &seeds[r.below(seeds.len() as u64) as usize];
                    s[..r.below(s.len() as u64 + 1) as usize].to_string()
                }
                2 => {
                    let mut b = seeds[r.below(seeds.len() as u64) as usize]
                        .clone()
                        .into_bytes();
                    for _ in 0..=r.below(4) {
                        let k = r.below(b.len() as u64) as usize;
                        b[k] = alphabet[r.below(alphabet.len() as u64) as usize];
                    }
                    String::from_utf8(b).unwrap()
                }
                _ if !corpus.is_empty() && r.below(2) == 0 => {
                    corpus[r.below(corpus.len() as u64) as usize].to_string()
                }
                _ => {
                    let a = &seeds[r.below(seeds.len() as u64) as usize];
                    let b = &seeds[r.below(seeds.len() as u64) as usize];
                    format!("{}{}", &a[..a.len() / 2], &b[b.len() / 2..])
                }
            };
            if decode(&input).is_ok() {
                ok += 1;
            }
        }
        assert!(ok > 0, "some mutated links still decode");
    }
}
