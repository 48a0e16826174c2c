//! The `apiVersion`/`kind` envelope every `-o json|yaml` report carries, and its writers.
//!
//! Reports are plain serde structs; [`Envelope`] puts `"apiVersion": "wasctl.dev/v1alpha1"`
//! and `"kind"` first. The contract is documented in docs/json.md.

use std::io::Write;

use serde::Serialize;

use crate::snapshot::facts::WASCTL_API_VERSION;

/// A report wrapped with its `apiVersion` and `kind`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Envelope<'a, T: Serialize> {
    /// Always `wasctl.dev/v1alpha1`.
    pub api_version: &'static str,
    /// The report kind, e.g. `Tree`.
    pub kind: &'static str,
    /// The report's own fields, flattened.
    #[serde(flatten)]
    pub report: &'a T,
}

impl<'a, T: Serialize> Envelope<'a, T> {
    /// Wraps `report` as `kind`.
    pub(crate) fn new(kind: &'static str, report: &'a T) -> Self {
        Self {
            api_version: WASCTL_API_VERSION,
            kind,
            report,
        }
    }
}

/// Writes `value` as pretty JSON with a trailing newline.
pub(crate) fn write_json<T: Serialize>(out: &mut dyn Write, value: &T) -> std::io::Result<()> {
    // The serializer writes a few bytes at a time (a quote, a colon, an indent): through `dyn
    // Write` each piece was a call through two writers, 0.7 s of the L dump's 190 MB plan. A
    // buffer of our own takes them inline and hands `out` 64 KiB at a time.
    let mut buffered = std::io::BufWriter::with_capacity(1 << 16, out);
    serde_json::to_writer_pretty(&mut buffered, value).map_err(std::io::Error::other)?;
    buffered.write_all(b"\n")?;
    buffered.flush()
}

/// Writes `value` as one YAML document, fields in the same order and with the same names as
/// `-o json` (`apiVersion` and `kind` first).
pub(crate) fn write_yaml<T: Serialize>(out: &mut dyn Write, value: &T) -> std::io::Result<()> {
    let text = serde_saphyr::to_string(value).map_err(std::io::Error::other)?;
    out.write_all(text.as_bytes())
}
