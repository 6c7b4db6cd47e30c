//! `t!(lang, "English text {with} {placeholders}", args…)`: the page's words in two languages.
//!
//! The English text is written in the code and is the key; its Russian comes from
//! `i18n/ru.json` (an object of English → Russian) at compile time. The macro expands to
//! `if lang.is_ru() { RU } else { EN }`: two `&'static str` for a plain text; for a text with
//! placeholders, one call of `crate::lang::fill(chosen text, &[&arg as &dyn Display, …])` with
//! each placeholder rewritten as its argument's number (a text with a format spec, `{x:>3}`,
//! keeps two `format!` calls). So:
//!
//! - a text without its Russian does not compile (the error names it and the file);
//! - the two texts must have the same placeholders (a typo in one does not compile);
//! - nothing is looked up at run time, and the page's wasm carries the used texts only.
//!
//! Placeholders name variables in scope (`{node}`) or the macro's named arguments
//! (`t!(lang, "{n} s", n = x / 1000)`); positional `{}` take the extra arguments in order.
//!
//! For a first pass over new code, `RAFTLOCK_I18N_MISSING=/some/file` makes a missing Russian
//! text compile as English and appends its key to that file (one JSON string per line).

use proc_macro::{Delimiter, Literal, Spacing, TokenStream, TokenTree};
use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::OnceLock;

type Catalog = Result<(PathBuf, HashMap<String, String>), String>;

fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        let start = std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?;
        let mut dir = PathBuf::from(start);
        let path = loop {
            let p = dir.join("i18n").join("ru.json");
            if p.exists() {
                break p;
            }
            if !dir.pop() {
                return Err("i18n/ru.json not found above CARGO_MANIFEST_DIR".into());
            }
        };
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let map = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok((path, map))
    })
}

fn error(msg: &str) -> TokenStream {
    format!("::core::compile_error!({})", Literal::string(msg))
        .parse()
        .expect("a compile_error call")
}

/// Split at the commas between arguments (commas inside brackets are inside groups).
fn args(input: TokenStream) -> Vec<Vec<TokenTree>> {
    let mut out = vec![Vec::new()];
    for t in input {
        match &t {
            TokenTree::Punct(p) if p.as_char() == ',' => out.push(Vec::new()),
            _ => out.last_mut().expect("one at least").push(t),
        }
    }
    if out.last().is_some_and(|a| a.is_empty()) {
        out.pop();
    }
    out
}

/// The names a format string's placeholders use (`{name}`, `{name:>3}`), and how many
/// positional ones (`{}`, `{0}`) it has.
fn placeholders(s: &str) -> Result<(BTreeSet<String>, usize), String> {
    let (mut named, mut positional) = (BTreeSet::new(), 0);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
            }
            '{' => {
                let mut inner = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(c) => inner.push(c),
                        None => return Err(format!("an unclosed {{ in {s:?}")),
                    }
                }
                let name = inner.split(':').next().unwrap_or("").trim().to_string();
                if name.is_empty() {
                    positional += 1;
                } else if name.chars().all(|c| c.is_ascii_digit()) {
                    positional = positional.max(name.parse::<usize>().unwrap_or(0) + 1);
                } else {
                    named.insert(name);
                }
            }
            '}' => return Err(format!("a lone }} in {s:?}")),
            _ => {}
        }
    }
    Ok((named, positional))
}

#[proc_macro]
pub fn t(input: TokenStream) -> TokenStream {
    expand(input, false)
}

/// `both!("English text {with} {names}", args…)`: the text in both languages, as a
/// `crate::lang::Text` — for a message made before the reader's language is known (a scenario
/// refused, an invariant's violation), shown later in the reader's language. Same checks as `t!`.
#[proc_macro]
pub fn both(input: TokenStream) -> TokenStream {
    let mut with_lang: TokenStream = "(), ".parse().expect("a unit and a comma");
    with_lang.extend(input);
    expand(with_lang, true)
}

fn expand(input: TokenStream, both: bool) -> TokenStream {
    let parts = args(input);
    if parts.len() < 2 {
        return error("t!(lang, \"English text\", args…)");
    }
    let lang: TokenStream = parts[0].iter().cloned().collect();
    let [TokenTree::Literal(lit)] = parts[1].as_slice() else {
        return error("t!: the second argument must be a string literal (the English text)");
    };
    let en = match litrs::StringLit::try_from(lit) {
        Ok(s) => s.value().to_string(),
        Err(e) => return error(&format!("t!: {e}")),
    };
    let (path, map) = match catalog() {
        Ok(c) => c,
        Err(e) => return error(e),
    };
    let ru = match map.get(&en) {
        Some(ru) if !ru.trim().is_empty() || en.trim().is_empty() => ru.clone(),
        _ => match std::env::var("RAFTLOCK_I18N_MISSING") {
            Ok(file) if !file.is_empty() => {
                use std::io::Write;
                if let Ok(mut f) = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(file)
                {
                    let _ = writeln!(f, "{}", serde_json::Value::String(en.clone()));
                }
                en.clone()
            }
            _ => {
                return error(&format!(
                    "no Russian for {en:?}: add it to {}",
                    path.display()
                ))
            }
        },
    };
    let rest = &parts[2..];
    let (en_named, en_pos) = match placeholders(&en) {
        Ok(p) => p,
        Err(e) => return error(&format!("t!: {e}")),
    };
    let (ru_named, ru_pos) = match placeholders(&ru) {
        Ok(p) => p,
        Err(e) => return error(&format!("t!: the Russian of {en:?}: {e}")),
    };
    if en_named != ru_named || en_pos != ru_pos {
        return error(&format!(
            "t!: the Russian of {en:?} has other placeholders ({ru:?}): fix i18n/ru.json"
        ));
    }
    let lang = TokenTree::Group(proc_macro::Group::new(Delimiter::Parenthesis, lang));
    // No placeholder and no argument: two literals (an escaped brace, `Granted{{41}}`, is
    // unescaped here), so a plain text stays a `&'static str`.
    let plain = en_named.is_empty() && en_pos == 0 && rest.is_empty();
    let unescape = |s: &str| s.replace("{{", "{").replace("}}", "}");
    if both {
        let (ru, en) = if plain {
            (
                Literal::string(&unescape(&ru)).to_string(),
                Literal::string(&unescape(&en)).to_string(),
            )
        } else if let Some((en, ru, args)) = filled(&en, &ru, rest, &en_named) {
            // The arguments once, for both texts.
            return format!(
                "{{ let __args: &[&dyn ::core::fmt::Display] = &[{args}]; crate::lang::Text::new(crate::lang::fill({}, __args), crate::lang::fill({}, __args)) }}",
                Literal::string(&en),
                Literal::string(&ru)
            )
            .parse()
            .unwrap_or_else(|_| error("both!: could not build the Text"));
        } else {
            let tail = format_tail(rest, &en_named);
            (
                format!("::std::format!({}{tail})", Literal::string(&ru)),
                format!("::std::format!({}{tail})", Literal::string(&en)),
            )
        };
        return format!("crate::lang::Text::new({en}, {ru})")
            .parse()
            .unwrap_or_else(|_| error("both!: could not build the Text"));
    }
    if plain {
        return format!(
            "if {lang}.is_ru() {{ {} }} else {{ {} }}",
            Literal::string(&unescape(&ru)),
            Literal::string(&unescape(&en))
        )
        .parse()
        .expect("two literals");
    }
    if let Some((en, ru, args)) = filled(&en, &ru, rest, &en_named) {
        // One call of a shared function instead of two format! expansions: the texts hold their
        // arguments' numbers (`{0}`), and the arguments are `&dyn Display`.
        return format!(
            "crate::lang::fill(if {lang}.is_ru() {{ {} }} else {{ {} }}, &[{args}])",
            Literal::string(&ru),
            Literal::string(&en)
        )
        .parse()
        .unwrap_or_else(|_| error("t!: could not build the fill call"));
    }
    let tail = format_tail(rest, &en_named);
    format!(
        "if {lang}.is_ru() {{ ::std::format!({}{tail}) }} else {{ ::std::format!({}{tail}) }}",
        Literal::string(&ru),
        Literal::string(&en)
    )
    .parse()
    .unwrap_or_else(|_| error("t!: could not build the format! calls"))
}

/// For `crate::lang::fill`: both texts with each placeholder replaced by its argument's number
/// (`{0}`, `{1}`, …; escaped braces stay escaped), and the arguments as `&(expr), …`. None for a
/// text with a format spec (`{x:>3}`, `{r:?}`): those keep `format!`.
fn filled(
    en: &str,
    ru: &str,
    rest: &[Vec<TokenTree>],
    en_named: &BTreeSet<String>,
) -> Option<(String, String, String)> {
    let mut names: Vec<String> = Vec::new();
    let mut exprs: Vec<String> = Vec::new();
    let mut positional = 0;
    for a in rest {
        match a.as_slice() {
            [TokenTree::Ident(i), TokenTree::Punct(p), value @ ..]
                if p.as_char() == '=' && p.spacing() == Spacing::Alone =>
            {
                names.push(i.to_string());
                exprs.push(value.iter().cloned().collect::<TokenStream>().to_string());
            }
            _ => {
                names.push(positional.to_string());
                positional += 1;
                exprs.push(a.iter().cloned().collect::<TokenStream>().to_string());
            }
        }
    }
    for name in en_named {
        if !names.contains(name) {
            names.push(name.clone());
            exprs.push(name.clone());
        }
    }
    let number = |text: &str| -> Option<String> {
        let mut out = String::new();
        let mut next = 0;
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    out.push_str("{{");
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    out.push_str("}}");
                }
                '{' => {
                    let inner: String = chars.by_ref().take_while(|c| *c != '}').collect();
                    if inner.contains(':') {
                        return None;
                    }
                    let name = inner.trim();
                    let name = if name.is_empty() {
                        next += 1;
                        (next - 1).to_string()
                    } else {
                        name.to_string()
                    };
                    let i = names.iter().position(|n| *n == name)?;
                    out.push_str(&format!("{{{i}}}"));
                }
                c => out.push(c),
            }
        }
        Some(out)
    };
    // As format! does: an argument no placeholder uses is a mistake.
    let (en, ru) = (number(en)?, number(ru)?);
    if let Some(unused) = (0..exprs.len()).find(|i| !en.contains(&format!("{{{i}}}"))) {
        return Some((
            String::new(),
            String::new(),
            format!(
                "::core::compile_error!(\"t!: the argument `{}` is not used by the text\")",
                exprs[unused].replace('"', "'")
            ),
        ));
    }
    let args = exprs
        .iter()
        .map(|e| format!("&({e}) as &dyn ::core::fmt::Display"))
        .collect::<Vec<_>>()
        .join(", ");
    Some((en, ru, args))
}

/// The format! arguments after the string: the macro's own, then `name = name` for each
/// placeholder naming a variable in scope.
fn format_tail(rest: &[Vec<TokenTree>], en_named: &BTreeSet<String>) -> String {
    // Named arguments given explicitly; the other names are variables in scope.
    let explicit: BTreeSet<String> = rest
        .iter()
        .filter_map(|a| match a.as_slice() {
            [TokenTree::Ident(i), TokenTree::Punct(p), ..]
                if p.as_char() == '=' && p.spacing() == Spacing::Alone =>
            {
                Some(i.to_string())
            }
            _ => None,
        })
        .collect();
    let mut tail = String::new();
    for a in rest {
        let a: TokenStream = a.iter().cloned().collect();
        tail += &format!(", {a}");
    }
    for name in en_named.difference(&explicit) {
        tail += &format!(", {name} = {name}");
    }
    tail
}
