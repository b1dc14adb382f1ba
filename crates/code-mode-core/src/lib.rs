//! The pure Rust core of code mode: configuration, source screening, the QuickJS
//! sandbox and the run engine. No napi here; the binding crate translates.

pub mod catalog;
pub mod config;
pub mod input;
pub mod messages;
pub mod model;
pub mod result;
pub mod runs;
pub mod sandbox;
pub mod source;
pub mod transcript;
