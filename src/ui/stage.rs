//! The stage on a wide screen: it takes the screen below the bar, and after a new caption (or a
//! change of layout) what the caption names is brought into view if it is not; and the focus
//! follows a node's controls as they open and close.

use crate::model::Page;
use wasm_bindgen::JsCast;

/// Which caption (and layout) was last brought into view.
#[derive(Default)]
pub struct Stage {
    shown: Option<(String, usize)>,
    /// The node whose controls were open at the last render (the focus follows them).
    controls: Option<usize>,
}

impl Stage {
    /// After a new caption is reached (or the layout changed), fit the stage to the screen
    /// below the bar and bring what the caption names into view if it is not.
    pub fn after_render(&mut self, page: &Page) {
        self.follow_controls(page);
        // The language too: its words wrap the bar differently.
        let layout = format!(
            "{}/{}/{}/{}/{}/{}/{}",
            page.lang.code(),
            page.playground.scenario.name,
            page.presenter,
            page.tools_open,
            page.list_open,
            page.error.is_some(),
            page.stopped_at.is_some()
        );
        let key = (layout, page.lesson_pos());
        if self.shown.as_ref() == Some(&key) {
            return;
        }
        self.shown = Some(key);
        fit();
        let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        if let Some(side) = doc.query_selector(".stage .side").ok().flatten() {
            side.set_scroll_top(0);
        }
        let Ok(list) = doc.query_selector_all(".stage .focus") else {
            return;
        };
        let Some(stage) = doc.query_selector(".lesson-mode .stage").ok().flatten() else {
            return;
        };
        // Wide screens keep the bar on top and fit the stage below it; a phone stacks the stage
        // and lets the bar scroll away, so there the caption comes back to the top and the
        // student scrolls to the rest.
        let w = web_sys::window();
        let wide = w
            .as_ref()
            .and_then(|w| w.inner_width().ok())
            .and_then(|x| x.as_f64())
            .unwrap_or(0.0)
            > 900.0;
        let bar = match doc.query_selector("header.bar").ok().flatten() {
            Some(b) if wide => b.get_bounding_client_rect().height(),
            _ => 0.0,
        };
        let s = stage.get_bounding_client_rect();
        if s.top() < bar - 1.0 || s.top() > bar + 40.0 {
            if let Some(w) = &w {
                w.scroll_to_with_x_and_y(0.0, w.scroll_y().unwrap_or(0.0) + s.top() - bar - 8.0);
            }
        }
        if !wide {
            return;
        }
        for i in 0..list.length() {
            let Some(el) = list
                .item(i)
                .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
            else {
                continue;
            };
            let r = el.get_bounding_client_rect();
            let inner = web_sys::window()
                .and_then(|w| w.inner_height().ok())
                .and_then(|h| h.as_f64())
                .unwrap_or(0.0);
            if r.height() > 0.0 && (r.top() < bar || r.bottom() > inner) {
                let opts = web_sys::ScrollIntoViewOptions::new();
                opts.set_block(web_sys::ScrollLogicalPosition::Nearest);
                el.scroll_into_view_with_scroll_into_view_options(&opts);
                return;
            }
        }
    }
}

/// The stage (caption, cluster, what the caption names) takes the screen below the bar, whose
/// height depends on how its controls wrap: measured when the layout changes, not every frame.
pub fn fit() {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let (Some(page), Some(bar)) = (
        doc.query_selector(".page").ok().flatten(),
        doc.query_selector("header.bar").ok().flatten(),
    ) else {
        return;
    };
    let h = bar.get_bounding_client_rect().height();
    if let Some(page) = page.dyn_ref::<web_sys::HtmlElement>() {
        let _ = page
            .style()
            .set_property("--bar-h", &format!("{}px", (h + 20.0).round() as u32));
    }
    // Where the bar stays at the top (it scrolls away on a narrow window), Tab and Shift+Tab
    // scroll the focused control out from under it.
    let sticky = web_sys::window()
        .and_then(|w| w.get_computed_style(&bar).ok().flatten())
        .and_then(|s| s.get_property_value("position").ok())
        .is_some_and(|p| p == "sticky");
    if let Some(root) = doc
        .document_element()
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let pad = if sticky {
            format!("{}px", (h + 8.0).round() as u32)
        } else {
            String::new()
        };
        let _ = root.style().set_property("scroll-padding-top", &pad);
    }
}

impl Stage {
    /// A node's controls take the focus when they open (the group, not its slider: the arrow
    /// keys stay the page's until Tab), and give it back to the node when they close.
    fn follow_controls(&mut self, page: &Page) {
        let open = page.node_controls_open();
        if open == self.controls {
            return;
        }
        match (open, self.controls) {
            (Some(_), _) => super::effects::focus("node-controls"),
            (None, Some(i)) => super::effects::focus(&format!("node-{}", i + 1)),
            (None, None) => {}
        }
        self.controls = open;
    }
}
