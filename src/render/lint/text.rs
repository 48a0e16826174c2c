//! The text view, ruff-like: `file:line:col: RULE severity: message`, the object, a source
//! excerpt with a caret under the column, a fix hint, and a summary line.

use std::io::{self, Write};

use crate::lint::{LintReport, Severity};
use crate::render::color::Styler;
use crate::sanitize::sanitize;

/// Writes `report` as text.
pub(crate) fn write(out: &mut dyn Write, report: &LintReport, style: Styler) -> io::Result<()> {
    for f in &report.findings {
        let severity = match f.severity {
            Severity::Error => style.error("error"),
            Severity::Warning => style.warn("warning"),
            Severity::Info => style.dim("info"),
        };
        writeln!(
            out,
            "{}:{}:{}: {} {severity}: {}",
            style.bold(sanitize(&f.file)),
            f.line,
            f.column,
            style.bold(f.rule),
            sanitize(&f.message)
        )?;
        if !f.object.kind.is_empty() {
            writeln!(out, "  --> {}", sanitize(&f.object.to_string()))?;
        }
        let source = report
            .sources
            .get(&f.file)
            .and_then(|text| text.lines().nth(f.line.saturating_sub(1)));
        if let Some(line) = source {
            let number = f.line.to_string();
            let pad = " ".repeat(number.len());
            let line = sanitize(line.trim_end());
            writeln!(out, "{pad} |")?;
            writeln!(out, "{number} | {line}")?;
            let caret_pad: String = line
                .chars()
                .take(f.column.saturating_sub(1))
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            writeln!(out, "{pad} | {caret_pad}{}", style.error("^"))?;
        }
        if !f.fix.is_empty() {
            writeln!(out, "  = fix: {}", sanitize(&f.fix))?;
        }
        writeln!(out)?;
    }
    let s = &report.summary;
    if report.findings.is_empty() {
        writeln!(
            out,
            "{} {} object(s) in {} file(s), no findings",
            style.ok("All checks passed:"),
            s.objects,
            s.files
        )
    } else {
        writeln!(
            out,
            "Found {} finding(s) in {} object(s) of {} file(s): {} error(s), {} warning(s), {} info",
            report.findings.len(),
            s.objects,
            s.files,
            s.errors,
            s.warnings,
            s.info
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::render::color::ColorChoice;
    use crate::render::lint::fixture;

    #[test]
    fn output() {
        let mut out = Vec::new();
        super::write(&mut out, &fixture::report(), ColorChoice::Never.styler()).unwrap();
        insta::assert_snapshot!(String::from_utf8(out).unwrap());
    }
}
