//! Shared views: colors, sanitising untrusted strings, the JSON/YAML envelope, tree drawing.
//!
//! Renderers write to a writer they are given and never print; color is decided once by the
//! CLI ([`color::ColorChoice`]). Every string that came from a cluster passes
//! [`crate::sanitize::sanitize`] before it reaches a terminal.

pub mod capacity;
pub mod color;
pub mod diff;
pub mod doctor;
pub mod explain;
pub mod json;
pub mod lint;
pub mod plan;
pub mod table;
pub mod tree;

pub use color::ColorChoice;
