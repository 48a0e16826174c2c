//! The text view of a [`DoctorReport`]: findings grouped by severity, most severe first, then
//! the summary; assumptions and loader warnings apart ([`write_notes`]). Writes to a writer it is given; every string
//! from the cluster passes [`sanitize()`](crate::sanitize::sanitize).

use std::io::{self, Write};

use crate::doctor::{DoctorReport, Severity};
use crate::render::color::Styler;
use crate::sanitize::sanitize;

/// Writes the report as text.
#[cfg(test)]
pub(crate) fn write_text(
    out: &mut dyn Write,
    report: &DoctorReport,
    style: Styler,
) -> io::Result<()> {
    write_text_scoped(out, report, style, None)
}

/// Writes the report as text; `empty` is what to say instead of "no findings" when a scope
/// (a namespace, a selector) left none, naming that scope.
pub(crate) fn write_text_scoped(
    out: &mut dyn Write,
    report: &DoctorReport,
    style: Styler,
    empty: Option<&str>,
) -> io::Result<()> {
    for severity in [Severity::Error, Severity::Warning, Severity::Info] {
        let findings: Vec<_> = report
            .findings
            .iter()
            .filter(|f| f.severity == severity)
            .collect();
        if findings.is_empty() {
            continue;
        }
        let header = format!("{} ({})", heading(severity), findings.len());
        writeln!(out, "{}", paint(style, severity, &header))?;
        for f in findings {
            writeln!(
                out,
                "  {}  {}",
                paint(style, severity, f.id.id()),
                style.bold(sanitize(&f.object.to_string()))
            )?;
            writeln!(out, "      {}", sanitize(&f.message))?;
            writeln!(out, "      {} {}", style.dim("fix:"), sanitize(&f.fix))?;
        }
        writeln!(out)?;
    }
    let s = &report.summary;
    if s.error + s.warning + s.info == 0 {
        match empty {
            Some(line) => writeln!(out, "{}", style.ok(sanitize(line)))?,
            None => writeln!(out, "{}", style.ok("no findings"))?,
        }
    } else {
        writeln!(
            out,
            "{} error(s), {} warning(s), {} info",
            s.error, s.warning, s.info
        )?;
    }
    Ok(())
}

/// Writes the loader warnings and the assumptions (stderr in text mode), through
/// [`super::notes::write_footer`].
pub(crate) fn write_notes(
    out: &mut dyn Write,
    report: &DoctorReport,
    verbosity: super::notes::Verbosity,
    style: Styler,
) -> io::Result<()> {
    let footer = super::notes::Footer {
        warnings: &report.warnings,
        assumed: &report.assumed,
        ..Default::default()
    };
    super::notes::write_footer(out, &footer, verbosity, style)
}

fn heading(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "Errors",
        Severity::Warning => "Warnings",
        Severity::Info => "Info",
    }
}

fn paint(style: Styler, severity: Severity, s: &str) -> String {
    match severity {
        Severity::Error => style.error(s),
        Severity::Warning => style.warn(s),
        Severity::Info => style.dim(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctor::{Check, Finding, Summary};
    use crate::render::ColorChoice;
    use crate::snapshot::ObjKind;
    use crate::snapshot::ObjRef;

    #[test]
    fn text_groups_by_severity_and_sanitizes() {
        let report = DoctorReport {
            summary: Summary {
                error: 1,
                warning: 0,
                info: 1,
            },
            findings: vec![
                Finding {
                    id: Check::MissingPodGroup,
                    severity: Severity::Error,
                    object: ObjRef::new(ObjKind::Pod, "ns", "evil\u{1b}[2J"),
                    message: "m".into(),
                    fix: "f".into(),
                },
                Finding {
                    id: Check::NoOwner,
                    severity: Severity::Info,
                    object: ObjRef::new(ObjKind::PodGroup, "ns", "pg"),
                    message: "m2".into(),
                    fix: "f2".into(),
                },
            ],
            assumed: vec![],
            warnings: vec![],
        };
        let mut out = Vec::new();
        write_text(&mut out, &report, ColorChoice::Never.styler()).unwrap();
        insta::assert_snapshot!(String::from_utf8(out).unwrap(), @r"
        Errors (1)
          WASD012  Pod/ns/evil\x1b[2J
              m
              fix: f

        Info (1)
          WASD007  PodGroup/ns/pg
              m2
              fix: f2

        1 error(s), 0 warning(s), 1 info
        ");
    }
}
