//! What every panel component takes: the page (shared, read while drawing), a version compared
//! instead of the world, and where its commands go.

use crate::model::{Command, Page};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

pub type Shared = Rc<RefCell<Page>>;

/// The main thread's work per played frame in ms, [advance, view with the DOM patch, total],
/// the latest `FRAME_LOG_MAX`: `window.raftlock.frameWork()` reads and clears it.
pub type FrameLog = Rc<RefCell<std::collections::VecDeque<[f64; 3]>>>;
pub const FRAME_LOG_MAX: usize = 1000;

#[derive(Properties, Clone)]
pub struct PanelProps {
    pub page: Shared,
    /// The page's version (or, for a panel off screen during play, the version it was last
    /// drawn at): a panel whose version did not change is neither rebuilt nor diffed.
    pub version: u64,
    pub send: Callback<Command>,
}

impl PartialEq for PanelProps {
    fn eq(&self, o: &Self) -> bool {
        self.version == o.version && Rc::ptr_eq(&self.page, &o.page)
    }
}

/// How a panel draws itself from its props.
pub type Draw = fn(&PanelProps) -> Html;

#[derive(Properties, Clone)]
pub struct DrawProps {
    pub panel: PanelProps,
    pub draw: Draw,
}

impl PartialEq for DrawProps {
    fn eq(&self, o: &Self) -> bool {
        self.panel == o.panel && std::ptr::fn_addr_eq(self.draw, o.draw)
    }
}

/// Every panel is one of these: a component whose props are the page's version and the
/// panel's drawing function, so a panel whose version did not change is skipped. (One
/// component type for all panels: each function component type costs the wasm its own copy of
/// Yew's lifecycle, about 1 KB gzipped.)
#[function_component(Panel)]
pub fn panel(p: &DrawProps) -> Html {
    (p.draw)(&p.panel)
}

/// A callback that sends this command.
pub fn send(p: &PanelProps, cmd: Command) -> Callback<MouseEvent> {
    p.send.reform(move |_| cmd.clone())
}

pub fn input_value(e: &InputEvent) -> String {
    e.target_unchecked_into::<web_sys::HtmlInputElement>()
        .value()
}

pub fn change_value(e: &Event) -> String {
    e.target_unchecked_into::<web_sys::HtmlInputElement>()
        .value()
}

pub fn select_value(e: &Event) -> String {
    e.target_unchecked_into::<web_sys::HtmlSelectElement>()
        .value()
}
