//! The keyboard: a key pressed outside a text field becomes the page model's command
//! (`Page::shortcut`; a Russian layout's letters are read from the key's position).

use crate::model::Command;
use crate::ui::props::Shared;
use gloo::events::{EventListener, EventListenerOptions};
use wasm_bindgen::JsCast;

/// Listen on the document; `send` gets each command a key makes.
pub fn listen(page: Shared, send: impl Fn(Command) + 'static) -> EventListener {
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .expect("a document");
    let opts = EventListenerOptions::enable_prevent_default();
    EventListener::new_with_options(&doc, "keydown", opts, move |e| {
        let Some(e) = e.dyn_ref::<web_sys::KeyboardEvent>() else {
            return;
        };
        // A control that handled the key itself (a link or a node on the cluster) keeps it.
        if e.ctrl_key() || e.meta_key() || e.alt_key() || e.default_prevented() {
            return;
        }
        let el = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok());
        let tag = el.as_ref().map(|el| el.tag_name()).unwrap_or_default();
        if tag == "SELECT" || tag == "TEXTAREA" || (tag == "INPUT" && e.key() != "Escape") {
            return;
        }
        // Space and Enter on a focused button press it, and Enter on a link follows it; they do
        // not also play or pause (a button that has just been disabled keeps the focus and
        // presses nothing).
        let key = e.key();
        let pressable = el.is_some_and(|el| {
            let button = matches!(tag.as_str(), "BUTTON" | "SUMMARY")
                || el.get_attribute("role").as_deref() == Some("button");
            let link = tag == "A";
            ((button && (key == " " || key == "Enter")) || (link && key == "Enter"))
                && !el.has_attribute("disabled")
        });
        if pressable {
            return;
        }
        let key = crate::model::shortcut_key(&e.key(), &e.code());
        let cmd = page.borrow().shortcut(&key);
        if let Some(cmd) = cmd {
            e.prevent_default();
            send(cmd);
        }
    })
}
