//! The Yew UI (wasm32 only): components that draw the page model (`crate::model`) and send it
//! commands. Imports run one way: components → model → core. A panel draws the model's view of
//! what it shows (`model::clients`, `model::log`, …), not the core's types; the drawings made
//! every frame (the cluster with [`ring`] and [`flights`], the [`spacetime`] diagram) read the
//! world itself, for frame time, and [`api`] hands JavaScript the core's own snapshots.
//!
//! - [`app`]: the root: the frame loop, effects in the browser, the layout; [`keys`]: the keyboard;
//! - one file per panel: [`controls`], [`lesson`], [`cluster`], [`locks`], [`clients`],
//!   [`log`], [`spacetime`], [`events`], [`invariants`], [`clocks`], [`switches`], [`twin`],
//!   [`dialogs`]; what they share: [`props`]; [`embed`]: the player a course page embeds;
//! - [`onscreen`]: panels off screen are not drawn during play; [`stage`]: the stage fits the
//!   screen and what the caption names is brought into view;
//! - [`effects`]: the address bar, the clipboard, downloads; [`worker`]: the page's Web Worker
//!   (the hunt, the trace check); [`host`]: the page that embeds the player, and the messages
//!   between them;
//! - [`api`]: `window.raftlock`, the JavaScript handle for tests and tools (it sends commands).

pub mod api;
pub mod api_bench;
pub mod app;
pub mod clients;
pub mod clocks;
pub mod cluster;
pub mod controls;
pub mod dialogs;
pub mod effects;
pub mod embed;
pub mod events;
pub mod flights;
pub mod host;
pub mod invariants;
pub mod keys;
pub mod layout;
pub mod lesson;
pub mod links;
pub mod locks;
pub mod log;
pub mod membership;
pub mod onscreen;
pub mod phone_bar;
pub mod presets;
pub mod props;
pub mod question;
pub mod ring;
pub mod spacetime;
pub mod stage;
pub mod start;
pub mod switches;
pub mod trace;
pub mod twin;
pub mod worker;

pub use app::App;
