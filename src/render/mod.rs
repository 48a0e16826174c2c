//! Shared views: colors, sanitising untrusted strings, the JSON/YAML envelope, tree drawing.
//!
//! Renderers write to a writer they are given and never print; color is decided once by the
//! CLI ([`color::ColorChoice`]). Every string that came from a cluster passes
//! [`crate::sanitize::sanitize`] before it reaches a terminal.

pub(crate) mod capacity;
pub(crate) mod color;
pub(crate) mod columns;
pub(crate) mod diff;
pub(crate) mod doctor;
pub(crate) mod explain;
pub(crate) mod fit;
pub(crate) mod gang;
pub(crate) mod json;
pub(crate) mod jsonpath;
pub(crate) mod lint;
pub(crate) mod notes;
pub(crate) mod plan;
pub(crate) mod table;
pub(crate) mod tree;

pub(crate) use color::ColorChoice;
