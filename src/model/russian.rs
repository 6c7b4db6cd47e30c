//! The interface's Russian texts: here, fetched on the first switch to Russian, or missing.

use super::library;
use crate::lang::Lang;

/// The interface's Russian texts: the page's build fetches them when a reader first wants
/// Russian (an English page does not wait for them); the CLI and the tests have them compiled in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Russian {
    Here,
    NotHere,
    /// They could not be had: the message the page shows (in both languages) until dismissed
    /// or a later choice of Russian asks again.
    Failed(String),
    /// Asked for; `wanted`: switch to Russian when they come (the reader has not switched back).
    Coming {
        wanted: bool,
    },
}

/// Install the fetched Russian texts (`crate::lang::install`), or say why there are none, in
/// English (the reader's Russian is what is missing).
pub fn install_russian(texts: Result<String, library::Missing>) -> Result<(), String> {
    let texts = texts.map_err(|why| why.words(Lang::En))?;
    crate::lang::install(&texts).map_err(|e| format!("the file is not this version's texts ({e})"))
}

impl Default for Russian {
    fn default() -> Russian {
        if crate::lang::russian_ready() {
            Russian::Here
        } else {
            Russian::NotHere
        }
    }
}
