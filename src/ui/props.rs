//! What every panel component takes: the page (shared, read while drawing), a version compared
//! instead of the world, and where its commands go.

use crate::model::{Command, Page};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

pub type Shared = Rc<RefCell<Page>>;

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
