//! The JSON view: the report in the `apiVersion: wasctl.dev/v1alpha1` envelope,
//! `kind: LintReport` (contract in docs/json.md).

use std::io::{self, Write};

use crate::lint::LintReport;
use crate::render::json::{Envelope, write_json};

/// The `kind` of the JSON envelope `-o json` writes.
pub(crate) const KIND: &str = "LintReport";

/// Writes `report` as JSON.
pub(crate) fn write(out: &mut dyn Write, report: &LintReport) -> io::Result<()> {
    write_json(out, &Envelope::new(KIND, report))
}

#[cfg(test)]
mod tests {
    use crate::render::lint::fixture;

    #[test]
    fn output() {
        let mut out = Vec::new();
        super::write(&mut out, &fixture::report()).unwrap();
        insta::assert_snapshot!(String::from_utf8(out).unwrap());
    }
}
