//! The page that embeds this one (an `<iframe>`'s parent): the only window the player listens
//! to, and the one it tells what happens (`model::embed`: the API itself, its parsing and its
//! events, live there; this file only carries messages between windows).

use crate::model::embed::{Watcher, MESSAGE_PREFIX};
use crate::model::Page;
use gloo::events::EventListener;
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};

pub struct Host {
    parent: web_sys::Window,
    watcher: Watcher,
    _listener: EventListener,
}

impl Host {
    /// When this page is embedded: listen to its parent, and hand each message of the API to
    /// `on_message`.
    pub fn new(win: &web_sys::Window, on_message: impl Fn(Value) + 'static) -> Option<Host> {
        let parent = win
            .parent()
            .ok()
            .flatten()
            .filter(|p| !js_sys::Object::is(p, win))?;
        let from = parent.clone();
        let listener = EventListener::new(win, "message", move |e| {
            let Some(e) = e.dyn_ref::<web_sys::MessageEvent>() else {
                return;
            };
            if e.source().is_some_and(|s| js_sys::Object::is(&s, &from)) {
                if let Some(data) = plain(&e.data()) {
                    on_message(data);
                }
            }
        });
        Some(Host {
            parent,
            watcher: Watcher::default(),
            _listener: listener,
        })
    }

    /// Send the host a message (an answer).
    pub fn send(&self, value: &Value) {
        use serde::Serialize;
        if let Ok(v) = value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()) {
            self.parent.post_message(&v, "*").ok();
        }
    }

    /// Tell the host what changed since the last time.
    pub fn tell(&mut self, page: &Page) {
        for event in page.host_events(&mut self.watcher) {
            self.send(&event);
        }
    }
}

/// A message as plain data, read field by field (never the whole value: a message can be
/// anything, cyclic or deep): `type`, and `scenario`, `builtin`, `ms` when present, an object
/// or array as its JSON text. None: not a message of the API.
fn plain(v: &JsValue) -> Option<Value> {
    if !v.is_object() {
        return None;
    }
    let get = |k: &str| {
        js_sys::Reflect::get(v, &k.into())
            .ok()
            .filter(|x| !x.is_undefined())
    };
    let kind = get("type")?
        .as_string()
        .filter(|k| k.starts_with(MESSAGE_PREFIX))?;
    let field = |x: JsValue| -> Value {
        if let Some(s) = x.as_string() {
            Value::String(s)
        } else if let Some(n) = x.as_f64() {
            serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
        } else if let Some(b) = x.as_bool() {
            Value::Bool(b)
        } else if x.is_object() {
            // As JSON text (a scenario document); one that cannot be written is refused.
            js_sys::JSON::stringify(&x)
                .ok()
                .and_then(|s| s.as_string())
                .map_or(Value::Null, Value::String)
        } else {
            Value::Null
        }
    };
    let mut m = serde_json::Map::new();
    m.insert("type".into(), Value::String(kind));
    for k in ["scenario", "builtin", "ms"] {
        if let Some(x) = get(k) {
            m.insert(k.into(), field(x));
        }
    }
    Some(Value::Object(m))
}
