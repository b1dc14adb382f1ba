//! The pure Rust core of code mode: configuration, the catalog, what the model
//! sees, source screening, the QuickJS sandbox and the run engine. No napi
//! here; the binding crate translates. `ARCHITECTURE.md` maps the modules and
//! traces a cell through them; `docs/` is the contract they implement.

#[cfg(test)]
mod boundary;
pub mod catalog;
pub mod config;
pub mod identifiers;
pub mod input;
pub mod limits;
pub mod mcp;
pub mod messages;
pub mod model;
pub mod namespaces;
pub mod records;
pub mod result;
pub mod runs;
mod sandbox;
pub mod source;
pub mod transcript;
pub mod tuning;
pub mod validation;
