//! Whether each paced panel ([`Paced`]: the lock view, the log, the space-time diagram, the
//! event list, the clocks) is on screen, kept by an IntersectionObserver: while playing, one off
//! screen is not drawn ([`crate::model::pace`]).

use crate::model::pace::Paced;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

const N: usize = Paced::ALL.len();

/// The observer and the callback it calls (kept alive together).
type Observer = (
    web_sys::IntersectionObserver,
    Closure<dyn FnMut(js_sys::Array)>,
);

pub struct OnScreen {
    visible: Rc<[Cell<bool>; N]>,
    /// The element watched for each panel: a panel drawn anew (a trace opened and closed, the
    /// tools shown) is watched again, and a report about its old element is ignored.
    watched: Rc<RefCell<[Option<web_sys::Element>; N]>>,
    observer: Option<Observer>,
}

impl Default for OnScreen {
    fn default() -> OnScreen {
        OnScreen {
            visible: Rc::new(std::array::from_fn(|_| Cell::new(true))),
            watched: Rc::default(),
            observer: None,
        }
    }
}

impl OnScreen {
    /// Start watching (call after the first render); `changed` runs when a panel scrolls in or
    /// out (no margin: in a lesson the log starts just below the stage, and a margin of a few
    /// hundred pixels drew its 7 × 16 table every played frame while nobody could see it).
    pub fn observe(&mut self, changed: impl Fn() + 'static) {
        let (visible, watched) = (self.visible.clone(), self.watched.clone());
        let cb = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            let mut any = false;
            for e in entries.iter() {
                let Ok(e) = e.dyn_into::<web_sys::IntersectionObserverEntry>() else {
                    continue;
                };
                let target = e.target();
                if let Some(i) = watched
                    .borrow()
                    .iter()
                    .position(|w| w.as_ref() == Some(&target))
                {
                    any |= visible[i].replace(e.is_intersecting()) != e.is_intersecting();
                }
            }
            if any {
                changed();
            }
        });
        let init = web_sys::IntersectionObserverInit::new();
        init.set_root_margin("0px");
        if let Ok(obs) =
            web_sys::IntersectionObserver::new_with_options(cb.as_ref().unchecked_ref(), &init)
        {
            self.observer = Some((obs, cb));
            self.keep_watching();
        }
    }

    /// Watch the panels' elements as they are now (call after a render that may have made a
    /// panel anew; a played frame does not).
    pub fn keep_watching(&mut self) {
        let (Some((obs, _)), Some(doc)) =
            (&self.observer, web_sys::window().and_then(|w| w.document()))
        else {
            return;
        };
        let mut watched = self.watched.borrow_mut();
        for (i, p) in Paced::ALL.into_iter().enumerate() {
            let now = doc.get_element_by_id(p.id());
            if now != watched[i] {
                if let Some(old) = &watched[i] {
                    obs.unobserve(old);
                }
                if let Some(new) = &now {
                    obs.observe(new);
                }
                // Drawn until the observer reports on the new element.
                self.visible[i].set(true);
                watched[i] = now;
            }
        }
    }

    /// Whether panel `p` can be seen (true until the observer says otherwise).
    pub fn visible(&self, p: Paced) -> bool {
        self.visible[p as usize].get()
    }
}
