//! Text view of a [`PlanDiff`]: a `git diff --stat`-like list of the units that changed and a
//! count, then each unit with its messages and causes.

use std::io::{self, Write};

use super::color::Styler;
use crate::plan::diff::{Change, PlanDiff};
use crate::sanitize::sanitize;

/// Writes the report.
pub(crate) fn write_text(out: &mut dyn Write, d: &PlanDiff, style: Styler) -> io::Result<()> {
    let names: Vec<String> = d
        .units
        .iter()
        .map(|u| {
            format!(
                "{}/{}/{}",
                u.kind,
                sanitize(&u.namespace),
                sanitize(&u.name)
            )
        })
        .collect();
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    for (u, name) in d.units.iter().zip(&names) {
        let side = |outcome: &str, domain: &Option<String>| match domain {
            Some(d) if u.change == Change::DomainChanged => format!("{outcome} ({})", sanitize(d)),
            _ => outcome.to_owned(),
        };
        let arrow = format!(
            "{} → {}",
            side(&u.before, &u.before_domain),
            side(&u.after, &u.after_domain)
        );
        let arrow = match u.change {
            Change::NewlyUnschedulable => style.error(arrow),
            Change::NewlySchedulable => style.ok(arrow),
            _ => style.warn(arrow),
        };
        writeln!(out, " {name:<width$} | {arrow}")?;
    }
    let s = &d.summary;
    writeln!(
        out,
        " {} unit(s) changed, {} newly unschedulable, {} newly schedulable",
        s.changed, s.newly_unschedulable, s.newly_schedulable
    )?;
    for (u, name) in d.units.iter().zip(&names) {
        writeln!(
            out,
            "\n{} {}",
            style.bold(name),
            style.dim(format!("({:?})", u.change))
        )?;
        if !u.before_message.is_empty() {
            writeln!(out, "  before: {}", sanitize(&u.before_message))?;
        }
        if !u.after_message.is_empty() {
            writeln!(out, "  after:  {}", sanitize(&u.after_message))?;
        }
        if u.causes.is_empty() {
            writeln!(
                out,
                "  {}",
                style.dim("no change the unit's filters looked at was found")
            )?;
        }
        for c in &u.causes {
            writeln!(out, "  - {}", sanitize(c))?;
        }
    }
    Ok(())
}

/// Writes the loader warnings, assumptions and the notes the changed units met (text mode
/// sends them to stderr), through [`super::notes::write_footer`].
pub(crate) fn write_notes(
    out: &mut dyn Write,
    d: &PlanDiff,
    verbosity: super::notes::Verbosity,
    style: Styler,
) -> io::Result<()> {
    let footer = super::notes::Footer {
        warnings: &d.warnings,
        assumed: &d.settings.assumed,
        notes: &d.settings.relevant_notes,
        catalogue: crate::notes::SIMULATION,
        ..Default::default()
    };
    super::notes::write_footer(out, &footer, verbosity, style)
}
