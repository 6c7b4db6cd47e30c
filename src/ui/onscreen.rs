//! The panels drawn during play only while on screen (the log, the space-time diagram, the
//! event list, the clocks): an IntersectionObserver keeps whether each is visible, and while
//! playing with one off screen it keeps the version it was last drawn at, so the panel is
//! neither rebuilt nor diffed.

use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

/// The lazy panels, by element id.
pub const LAZY_PANELS: [&str; 4] = [
    "log-panel",
    "spacetime-panel",
    "events-panel",
    "clocks-panel",
];

/// The observer and the callback it calls (kept alive together).
type Observer = (
    web_sys::IntersectionObserver,
    Closure<dyn FnMut(js_sys::Array)>,
);

#[derive(Default)]
pub struct OnScreen {
    visible: Rc<[Cell<bool>; LAZY_PANELS.len()]>,
    drawn: [Cell<u64>; LAZY_PANELS.len()],
    _observer: Option<Observer>,
}

impl OnScreen {
    pub fn new() -> OnScreen {
        OnScreen {
            visible: Rc::new(std::array::from_fn(|_| Cell::new(true))),
            ..Default::default()
        }
    }

    /// Watch the panels (call after the first render); `changed` runs when one scrolls in or
    /// out (no margin: in a lesson the log starts just below the stage, and a margin of a few
    /// hundred pixels drew its 7 × 16 table every played frame while nobody could see it).
    pub fn observe(&mut self, changed: impl Fn() + 'static) {
        let visible = self.visible.clone();
        let cb = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            let mut any = false;
            for e in entries.iter() {
                if let Ok(e) = e.dyn_into::<web_sys::IntersectionObserverEntry>() {
                    let id = e.target().id();
                    if let Some(i) = LAZY_PANELS.iter().position(|p| *p == id) {
                        any |= visible[i].replace(e.is_intersecting()) != e.is_intersecting();
                    }
                }
            }
            if any {
                changed();
            }
        });
        let init = web_sys::IntersectionObserverInit::new();
        init.set_root_margin("0px");
        let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        let Ok(obs) =
            web_sys::IntersectionObserver::new_with_options(cb.as_ref().unchecked_ref(), &init)
        else {
            return;
        };
        for id in LAZY_PANELS {
            if let Some(panel) = doc.get_element_by_id(id) {
                obs.observe(&panel);
            }
        }
        self._observer = Some((obs, cb));
    }

    /// The version panel `id` draws at: the page's, unless the run is playing with the panel off
    /// screen (then the one it was last drawn at).
    pub fn version(&self, id: &str, version: u64, playing: bool) -> u64 {
        let i = LAZY_PANELS
            .iter()
            .position(|p| *p == id)
            .expect("a lazy panel");
        if !playing || self.visible[i].get() {
            self.drawn[i].set(version);
        }
        self.drawn[i].get()
    }
}
