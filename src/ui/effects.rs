//! What the page model asks of the browser ([`Effect`]s other than the frame loop): the address
//! bar, the clipboard, a download, a built-in scenario's file (the worker's jobs: `worker.rs`).

use super::props::Shared;
use crate::lang::{t, Lang};
use crate::model::library::{Missing, FETCH_TIMEOUT_MS};
use crate::model::{Command, Effect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use yew::Callback;

/// Milliseconds since the page loaded (performance.now()).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// Put `frag` (`#…`) in the address bar without a reload or a hashchange event.
pub fn set_fragment(frag: &str) {
    if let Some(h) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(frag));
    }
}

/// Copy to the clipboard. The copy may be refused (no focus, no permission): the link stays in
/// the page's field either way, so a refusal is not an error.
pub fn clipboard(text: &str) {
    if let Some(w) = web_sys::window() {
        let refused = Closure::<dyn FnMut(JsValue)>::new(|_| {});
        let _ = w.navigator().clipboard().write_text(text).catch(&refused);
        refused.forget();
    }
}

pub fn download(name: &str, text: &str, mime: &str) -> Result<(), JsValue> {
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let a: web_sys::HtmlAnchorElement = doc.create_element("a")?.dyn_into()?;
    a.set_href(&url);
    a.set_download(name);
    a.click();
    web_sys::Url::revoke_object_url(&url)
}

/// The language index.html chose for the document (`<html lang>`): a `lang` in the link, else
/// the remembered choice, else the browser's; English when it has none of them.
pub fn document_lang() -> Lang {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
        .and_then(|e| e.get_attribute("lang"))
        .and_then(|code| Lang::parse(&code))
        .unwrap_or_default()
}

/// The page's language changed: remember it, tell the document (screen readers, hyphenation),
/// and keep it in the address bar (`&lang=ru`), so a copied address opens in it too.
pub fn set_lang(lang: Lang) {
    let Some(w) = web_sys::window() else { return };
    if let Ok(Some(store)) = w.local_storage() {
        let _ = store.set_item(LANG_KEY, lang.code());
    }
    show_lang(lang);
    let frag = fragment();
    if !frag.is_empty() {
        let f = crate::model::with_lang(&frag, lang);
        set_fragment(if f.is_empty() { "#" } else { &f });
    }
}

/// Say the language to the document: `<html lang>` (screen readers, hyphenation) and the title.
pub fn show_lang(lang: Lang) {
    if let Some(d) = web_sys::window().and_then(|w| w.document()) {
        if let Some(e) = d.document_element() {
            let _ = e.set_attribute("lang", lang.code());
        }
        d.set_title(t!(
            lang,
            "raftlock — Raft, leases and fencing tokens, in your browser"
        ));
    }
}

/// Where the language choice is remembered (index.html reads it before the wasm loads).
const LANG_KEY: &str = "raftlock-lang";
const LEFT_KEY: &str = "raftlock-left";

/// The lesson the reader left, as this browser remembers it.
pub fn stored_left() -> Option<crate::model::start::Left> {
    let store = web_sys::window()?.local_storage().ok()??;
    crate::model::start::Left::parse(&store.get_item(LEFT_KEY).ok()??)
}

/// Remember where the reader is in a lesson, for the start screen's *Continue*.
pub fn remember_left(left: &crate::model::start::Left) {
    if let Some(Ok(Some(store))) = web_sys::window().map(|w| w.local_storage()) {
        let _ = store.set_item(LEFT_KEY, &left.stored());
    }
}

/// The page's address without its fragment: share links are made on it.
pub fn base_url() -> String {
    let href = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .unwrap_or_default();
    href.split('#').next().unwrap_or_default().to_string()
}

pub fn fragment() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// Carry out an effect that needs nothing of the app's own state: the address bar, the
/// clipboard, a download, the language, a fetch (its answer comes back through `send`). The
/// frame loop and the worker's jobs ([`super::worker::Jobs`]) are the app's (`App::effects`).
pub fn carry_out(e: Effect, page: &Shared, send: &Callback<Command>) {
    match e {
        Effect::SetFragment(f) => set_fragment(&f),
        Effect::Clipboard(t) => clipboard(&t),
        Effect::Download { name, text, mime } => {
            if download(&name, &text, mime).is_err() {
                let mut page = page.borrow_mut();
                page.error = Some(t!(page.lang, "The browser refused the download.").into());
            }
        }
        Effect::Lang(l) => set_lang(l),
        Effect::ShowLang(l) => show_lang(l),
        Effect::Fetch(name) => {
            let send = send.clone();
            fetch_scenario(name, move |name, text| {
                send.emit(Command::Fetched(name, text))
            });
        }
        Effect::FetchRussian => {
            let send = send.clone();
            wasm_bindgen_futures::spawn_local(async move {
                send.emit(Command::RussianArrived(russian_texts().await))
            });
        }
        Effect::StartFrames
        | Effect::StartHunt { .. }
        | Effect::StopHunt
        | Effect::CheckTrace { .. }
        | Effect::StopTraceCheck
        | Effect::CheckHistory { .. }
        | Effect::StopHistoryCheck => {}
    }
}

/// Fetch `scenarios/NAME.json`, then call `done` with the name and its text (or why not).
pub fn fetch_scenario(name: String, done: impl FnOnce(String, Result<String, Missing>) + 'static) {
    wasm_bindgen_futures::spawn_local(async move {
        let text = fetch_text(&format!("scenarios/{name}.json")).await;
        done(name, text);
    });
}

/// The interface's Russian (`ru.json`): the fetch index.html started as the page loaded, when
/// it chose Russian (`window.raftlockRussian`, a promise of the text or of why not: the HTTP
/// status, 0 unreachable, -1 slow), else a
/// fetch of its own.
pub async fn russian_texts() -> Result<String, Missing> {
    let key = JsValue::from_str("raftlockRussian");
    let early = web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w, &key).ok())
        .and_then(|p| p.dyn_into::<js_sys::Promise>().ok());
    let Some(p) = early else {
        return fetch_text("ru.json").await;
    };
    // Taken once: a later choice of Russian (after a failure) fetches again.
    if let Some(w) = web_sys::window() {
        let _ = js_sys::Reflect::delete_property(&w, &key);
    }
    let answer = JsFuture::from(p).await.unwrap_or(JsValue::NULL);
    match (answer.as_string(), answer.as_f64()) {
        (Some(text), _) => Ok(text),
        (_, Some(status)) if status > 0.0 => Err(Missing::Status(status as u16)),
        (_, Some(slow)) if slow < 0.0 => Err(Missing::Slow),
        _ => Err(Missing::Unreachable),
    }
}

/// A file of this site, as text. Revalidated with the host: a file cached by an earlier build
/// is not taken for this one's (offline, the service worker answers from its cache). A host
/// that never answers: given up after a while (asking again tries again).
async fn fetch_text(url: &str) -> Result<String, Missing> {
    let win = web_sys::window().ok_or(Missing::Unreachable)?;
    let init = web_sys::RequestInit::new();
    init.set_cache(web_sys::RequestCache::NoCache);
    let abort = web_sys::AbortController::new().ok();
    let _timer = abort.as_ref().map(|a| {
        init.set_signal(Some(&a.signal()));
        let a = a.clone();
        gloo::timers::callback::Timeout::new(FETCH_TIMEOUT_MS, move || a.abort())
    });
    let failed = |_: JsValue| {
        if abort.as_ref().is_some_and(|a| a.signal().aborted()) {
            Missing::Slow
        } else {
            Missing::Unreachable
        }
    };
    let resp: web_sys::Response = JsFuture::from(win.fetch_with_str_and_init(url, &init))
        .await
        .map_err(failed)?
        .dyn_into()
        .map_err(failed)?;
    if !resp.ok() {
        return Err(Missing::Status(resp.status()));
    }
    let text = JsFuture::from(resp.text().map_err(failed)?)
        .await
        .map_err(failed)?;
    text.as_string().ok_or(Missing::Unreachable)
}

/// Show `value` in the `<select>` `id` (Yew's `selected` on an option no longer moves a select
/// the user has touched: a lesson that failed to load would stay shown as chosen).
pub fn keep_select(id: &str, value: &str) {
    let select = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
        .and_then(|e| e.dyn_into::<web_sys::HtmlSelectElement>().ok());
    if let Some(s) = select {
        if s.value() != value {
            s.set_value(value);
        }
    }
}

/// Give the focus to element `id` (an HTML control, or a node on the cluster's svg).
pub fn focus(id: &str) {
    let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
    else {
        return;
    };
    if let Some(h) = el.dyn_ref::<web_sys::HtmlElement>() {
        h.focus().ok();
    } else if let Some(s) = el.dyn_ref::<web_sys::SvgElement>() {
        s.focus().ok();
    }
}
