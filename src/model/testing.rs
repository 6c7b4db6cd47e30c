//! What the model's tests share.

use super::command::Command;
use super::page::Page;
use crate::playground::Playground;
use crate::scenario::builtin;

/// The page of built-in `name`, run to `t_us`.
pub fn at(name: &str, t_us: u64) -> Page {
    let mut p = Page::new(Playground::new(builtin::get(name).unwrap()).unwrap());
    p.apply(Command::RunTo(t_us));
    p
}
