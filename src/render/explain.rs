//! Text view of a [`Diagnosis`]: the verdict, the findings most decisive first, the fit per
//! domain, and the verified fixes.

use std::io::{self, Write};

use super::color::Styler;
use super::sanitize;
use crate::explain::{Diagnosis, Severity, Verdict};

/// Writes one diagnosis.
pub fn write_text(out: &mut dyn Write, d: &Diagnosis, style: Styler) -> io::Result<()> {
    let verdict = format!("{:?}", d.verdict);
    let verdict = match d.verdict {
        Verdict::Scheduled | Verdict::Schedulable => style.ok(verdict),
        Verdict::NeedsPreemption | Verdict::Waiting => style.warn(verdict),
        Verdict::Unschedulable => style.error(verdict),
    };
    writeln!(out, "{}: {verdict}", style.bold(sanitize(&d.target)))?;
    if !d.message.is_empty() {
        writeln!(out, "  {}", sanitize(&d.message))?;
    }
    if !d.findings.is_empty() {
        writeln!(out, "\n{}", style.bold("Why"))?;
        for f in &d.findings {
            let tag = match f.severity {
                Severity::Error => style.error("error"),
                Severity::Warning => style.warn("warning"),
                Severity::Info => style.dim("info"),
            };
            writeln!(out, "  {tag} {} {}", style.dim(f.id), sanitize(&f.title))?;
            if !f.detail.is_empty() {
                writeln!(out, "      {}", sanitize(&f.detail))?;
            }
            if let Some(fix) = &f.fix {
                writeln!(out, "      fix: {}", sanitize(fix))?;
            }
        }
    }
    if d.fit.min_count > 1 || !d.fit.domains.is_empty() {
        writeln!(out, "\n{}", style.bold("Fit"))?;
        writeln!(
            out,
            "  {} member(s) fit at once (ignoring preemption), minCount {}",
            d.fit.placeable, d.fit.min_count
        )?;
        for dom in &d.fit.domains {
            writeln!(
                out,
                "  {}={}: {} fit",
                sanitize(&dom.key),
                sanitize(&dom.value),
                dom.placeable
            )?;
        }
    }
    if !d.fixes.is_empty() {
        writeln!(
            out,
            "\n{}",
            style.bold("Fixes (each verified by re-running the simulation)")
        )?;
        for f in &d.fixes {
            writeln!(out, "  - {}", sanitize(f))?;
        }
    }
    writeln!(out)?;
    Ok(())
}

/// The header of an explain report: the gates the simulation used and, when gangs are taken
/// pod by pod, that first.
pub fn write_header(out: &mut dyn Write, d: &Diagnosis, style: Styler) -> io::Result<()> {
    writeln!(
        out,
        "{}",
        style.dim(super::plan::gates_line("kube-scheduler", &d.feature_gates))
    )?;
    if let Some(line) = &d.pod_by_pod {
        writeln!(out, "{} {}", style.warn("warning:"), sanitize(line))?;
    }
    Ok(())
}

/// What the diagnosis assumed (stderr in text mode).
pub fn write_notes(out: &mut dyn Write, d: &Diagnosis, style: Styler) -> io::Result<()> {
    for a in &d.assumed {
        writeln!(out, "{}", style.dim(format!("assumed: {}", sanitize(a))))?;
    }
    Ok(())
}
