//! The built-ins' catalogue, from the files under `scenarios/`: each one's name and title in both
//! languages (always compiled in: the scenario menu needs them for its first frame), and, with the
//! `builtin-docs` feature (the CLI, the tests), the documents themselves. The page's build goes
//! without them and fetches a document from `scenarios/NAME.json` when it is chosen.
use std::fmt::Write as _;
use std::path::Path;

fn text(v: &serde_json::Value) -> (String, String) {
    match v {
        serde_json::Value::String(s) => (s.clone(), String::new()),
        serde_json::Value::Object(m) => {
            let get = |k: &str| {
                m.get(k)
                    .and_then(|v| v.as_str())
                    .unwrap_or_default()
                    .to_string()
            };
            (get("en"), get("ru"))
        }
        _ => Default::default(),
    }
}

fn main() {
    // Read at run time: a build script's binary may be shared between checkouts.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
    let dir = Path::new(&manifest).join("../scenarios");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("scenarios/")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort_by_key(|p| p.file_stem().map(|s| s.to_owned()));
    let (mut titles, mut docs, mut cards) = (String::new(), String::new(), String::new());
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("a file name");
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).expect("readable"))
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (en, ru) = doc
            .get("lesson")
            .and_then(|l| l.get("title"))
            .map(text)
            .unwrap_or_default();
        writeln!(titles, "    ({name:?}, {en:?}, {ru:?}),").unwrap();
        // The start screen's card: the story's first sentence, the steps, the run's length.
        let (den, dru) = doc.get("description").map(text).unwrap_or_default();
        // Up to the first '.' or '?' that ends a sentence (not the point of "0.8 s").
        let first = |s: &str| {
            let b = s.as_bytes();
            let end = (0..b.len())
                .find(|&i| matches!(b[i], b'.' | b'?') && b.get(i + 1).is_none_or(|c| *c == b' '))
                .map_or(s.len(), |i| i + 1);
            s[..end].trim().to_string()
        };
        let steps = doc
            .get("lesson")
            .and_then(|l| l.get("captions"))
            .and_then(|c| c.as_array())
            .map_or(0, |c| c.len());
        let run_ms = doc.get("until_ms").and_then(|u| u.as_u64()).unwrap_or(0);
        writeln!(
            cards,
            "    ({name:?}, {:?}, {:?}, {steps}, {run_ms}),",
            first(&den),
            first(&dru)
        )
        .unwrap();
        let abs = path.canonicalize().expect("a path");
        writeln!(
            docs,
            "    ({name:?}, include_str!({:?})),",
            abs.display().to_string()
        )
        .unwrap();
    }
    let out = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("builtins.rs");
    std::fs::write(
        out,
        format!(
            "/// (file name, English title, Russian title), by name.\npub(super) const TITLES: &[(&str, &str, &str)] = &[\n{titles}];\n\
             /// (file name, the story's first sentence in English and in Russian, captions, run ms), by name.
pub(super) const CARDS: &[(&str, &str, &str, usize, u64)] = &[
{cards}];
             /// (file name, document), by name.\n#[cfg(feature = \"builtin-docs\")]\npub(super) const DOCS: &[(&str, &str)] = &[\n{docs}];\n"
        ),
    )
    .expect("OUT_DIR is writable");
    russian(&manifest);
}

/// The interface's Russian (`i18n/ru.json`), as the `t!` macro numbers it: its values in the
/// order of their sorted keys. Always their count (the page checks the file it fetches against
/// it); with the `ru-texts` feature (the CLI, the tests) the texts too. The page's build fetches
/// them (`ru.json` in the site, written by scripts/post-build.sh) when a reader wants Russian.
fn russian(manifest: &str) {
    let path = Path::new(manifest).join("../i18n/ru.json");
    println!("cargo:rerun-if-changed={}", path.display());
    let map: std::collections::BTreeMap<String, String> =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("i18n/ru.json"))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // FNV-1a (32 bits) over the sorted keys, each followed by a zero byte: scripts/ru-texts.mjs
    // writes the same into ru.json, so a file of another version is refused, not misread.
    let mut hash: u32 = 0x811c_9dc5;
    for k in map.keys() {
        for b in k.bytes().chain([0]) {
            hash = (hash ^ b as u32).wrapping_mul(0x0100_0193);
        }
    }
    let mut out = format!(
        "/// The fingerprint of i18n/ru.json's keys (FNV-1a of the sorted keys, each ended by a zero byte).\n\
         pub const RU_KEYS: u32 = {hash};\n\
         /// How many texts i18n/ru.json has.\npub const RU_COUNT: usize = {};\n\
         /// The Russian texts, in the order of their sorted English keys.\n\
         #[cfg(feature = \"ru-texts\")]\nstatic RU_TEXTS: [&str; {}] = [\n",
        map.len(),
        map.len()
    );
    for v in map.values() {
        writeln!(out, "    {v:?},").unwrap();
    }
    out += "];\n";
    let file = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("ru.rs");
    std::fs::write(file, out).expect("OUT_DIR is writable");
}
