//! Text view of a [`Diagnosis`]: the verdict, the findings most decisive first, the fit per
//! domain, and the verified fixes.

use std::io::{self, Write};

use super::color::Styler;
use crate::explain::{DOMAINS_SHOWN, Diagnosis, Severity};
use crate::sanitize::sanitize;
use crate::sched::plan::Outcome;

/// Writes one diagnosis as text: the outcome and the simulator's message, the findings in
/// their order (errors first) with detail and fix, the fit per domain, the verified fixes.
pub(crate) fn write_text(out: &mut dyn Write, d: &Diagnosis, style: Styler) -> io::Result<()> {
    // The outcome, in the words simulate and tree print (the JSON keeps its `verdict` too).
    let outcome = d.shown_outcome();
    let word = match outcome {
        Outcome::Scheduled => style.ok(outcome.as_str()),
        Outcome::Waiting | Outcome::Preempting | Outcome::Suspended | Outcome::NotSimulated => {
            style.warn(outcome.as_str())
        }
        Outcome::Unschedulable | Outcome::Error => style.error(outcome.as_str()),
    };
    writeln!(
        out,
        "{}: {word}",
        style.bold(sanitize(&crate::explain::unit_text(&d.target)))
    )?;
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
        writeln!(out, "  {}", d.fit_line())?;
        let (shown, rest) = d.fit.leading_domains(DOMAINS_SHOWN);
        let least_shown = shown.last().map_or(0, |dom| dom.placeable);
        for dom in shown {
            writeln!(
                out,
                "  {}={}: {} fit",
                sanitize(&dom.key),
                sanitize(&dom.value),
                dom.placeable
            )?;
        }
        if rest > 0 {
            writeln!(
                out,
                "  {}",
                style.dim(format!(
                    "… {rest} more domain(s), {least_shown} or fewer fit in each (-o json lists all)"
                ))
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
pub(crate) fn write_header(out: &mut dyn Write, d: &Diagnosis, style: Styler) -> io::Result<()> {
    writeln!(
        out,
        "{}",
        style.dim(super::plan::gates_line("kube-scheduler", &d.feature_gates))
    )?;
    if let Some(line) = &d.pod_by_pod {
        writeln!(out, "{} {}", style.warn("warning:"), sanitize(line))?;
    }
    super::plan::write_extenders(
        out,
        &d.extenders,
        "this verdict may differ if it filters, scores or binds the unit's pods",
        style,
    )?;
    if let Some(line) = &d.scoring {
        writeln!(
            out,
            "{}",
            style.dim(format!(
                "{}: NodeResourcesFit scores nodes with this strategy (a topology-constrained gang's domains MostAllocated over the same resources)",
                sanitize(line)
            ))
        )?;
    }
    Ok(())
}

/// The loader warnings, what the diagnoses assumed and the notes their units met (stderr in
/// text mode), through [`super::notes::write_footer`]; `diagnoses` share one simulation.
pub(crate) fn write_notes(
    out: &mut dyn Write,
    warnings: &[crate::snapshot::Warning],
    diagnoses: &[Diagnosis],
    verbosity: super::notes::Verbosity,
    style: Styler,
) -> io::Result<()> {
    let notes = crate::notes::once_each(
        diagnoses
            .iter()
            .flat_map(|d| d.relevant_notes.iter().cloned()),
    );
    let footer = super::notes::Footer {
        warnings,
        admitted: diagnoses.first().map_or(&[], |d| &d.admitted),
        assumed: diagnoses.first().map_or(&[], |d| &d.assumed),
        notes: &notes,
        catalogue: crate::notes::SIMULATION,
        ..Default::default()
    };
    super::notes::write_footer(out, &footer, verbosity, style)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::{DomainFit, Fit};
    use crate::render::color::ColorChoice;

    fn diagnosis(domains: Vec<DomainFit>) -> Diagnosis {
        Diagnosis {
            target: crate::snapshot::ObjRef::new(
                crate::snapshot::ObjKind::PodGroup,
                "train",
                "wide",
            ),
            verdict: crate::explain::Verdict::Unschedulable,
            outcome: Some(Outcome::Unschedulable),
            message: String::new(),
            findings: Vec::new(),
            node_reasons: std::collections::BTreeMap::new(),
            fit: Fit {
                min_count: 16,
                placeable: 6,
                domains,
                held: false,
            },
            fixes: Vec::new(),
            assumed: Vec::new(),
            relevant_notes: Vec::new(),
            admitted: Vec::new(),
            feature_gates: std::collections::BTreeMap::new(),
            pod_by_pod: None,
            profile: String::new(),
            scoring: None,
            extenders: Vec::new(),
        }
    }

    fn rack(i: u32, placeable: u32) -> DomainFit {
        DomainFit {
            key: "rack".to_owned(),
            value: format!("r{i:03}"),
            placeable,
        }
    }

    fn text(d: &Diagnosis) -> String {
        let mut out = Vec::new();
        write_text(&mut out, d, ColorChoice::Never.styler()).expect("write to a Vec");
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn a_few_domains_are_all_listed_in_order() {
        let t = text(&diagnosis(vec![rack(1, 2), rack(2, 6), rack(3, 0)]));
        let fit: Vec<&str> = t.lines().filter(|l| l.starts_with("  rack=")).collect();
        assert_eq!(
            fit,
            [
                "  rack=r001: 2 fit",
                "  rack=r002: 6 fit",
                "  rack=r003: 0 fit"
            ]
        );
        assert!(!t.contains("more domain"), "{t}");
    }

    #[test]
    fn hundreds_of_domains_show_the_best_and_count_the_rest() {
        // 313 racks as at 5,000 nodes: the best ones are shown, wherever they sort by name.
        let mut racks: Vec<DomainFit> = (0..313).map(|i| rack(i, 1)).collect();
        racks[200].placeable = 6;
        racks[7].placeable = 5;
        let t = text(&diagnosis(racks));
        let fit: Vec<&str> = t.lines().filter(|l| l.starts_with("  rack=")).collect();
        assert_eq!(fit.len(), DOMAINS_SHOWN, "{t}");
        assert_eq!(fit[0], "  rack=r200: 6 fit");
        assert_eq!(fit[1], "  rack=r007: 5 fit");
        // Ties keep the report's order.
        assert_eq!(fit[2], "  rack=r000: 1 fit");
        let rest = 313 - DOMAINS_SHOWN;
        assert!(
            t.contains(&format!(
                "  … {rest} more domain(s), 1 or fewer fit in each (-o json lists all)"
            )),
            "{t}"
        );
    }
}
