//! What every report writes beside itself (stderr in text mode), through one function
//! ([`write_footer`]): the loader's `warning:` lines, one `admitted:` line per kind of change,
//! the `assumed:` facts folded into one line, and the modelling notes this run met (the
//! catalogue, `crate::notes`), each once. `--verbose` adds every other note of the catalogue
//! the command may meet; `-q` prints none of it (the CLI drops the whole footer).

use std::io::{self, Write};

use super::color::Styler;
use crate::notes::{Note, NoteUse};
use crate::sanitize::sanitize;
use crate::snapshot::{Admitted, Warning};

/// How much a command says beside its report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Verbosity {
    /// `-q`: errors only.
    Quiet,
    /// The notes this run met.
    #[default]
    Normal,
    /// `--verbose`: every note the command may meet.
    Verbose,
}

/// The lines beside a report.
#[derive(Debug, Default)]
pub(crate) struct Footer<'a> {
    /// Loader warnings.
    pub warnings: &'a [Warning],
    /// Other `warning:` sentences (gangs scheduled pod by pod).
    pub more_warnings: Vec<&'a str>,
    /// What admission changed on the manifests.
    pub admitted: &'a [Admitted],
    /// What had to be assumed.
    pub assumed: &'a [String],
    /// The notes this run met.
    pub notes: &'a [NoteUse],
    /// The notes the command may meet (what `--verbose` lists).
    pub catalogue: &'a [Note],
}

/// Writes `footer` as `verbosity` asks.
pub(crate) fn write_footer(
    out: &mut dyn Write,
    footer: &Footer<'_>,
    verbosity: Verbosity,
    style: Styler,
) -> io::Result<()> {
    if verbosity == Verbosity::Quiet {
        return Ok(());
    }
    for w in footer.warnings {
        writeln!(out, "{} {}", style.warn("warning:"), sanitize(&w.message))?;
    }
    for w in &footer.more_warnings {
        writeln!(out, "{} {}", style.warn("warning:"), sanitize(w))?;
    }
    for a in footer.admitted {
        writeln!(
            out,
            "{}",
            style.dim(format!("admitted: {}", sanitize(&a.sentence())))
        )?;
    }
    if !footer.assumed.is_empty() {
        let mut facts: Vec<&str> = Vec::new();
        for a in footer.assumed {
            if !facts.contains(&a.as_str()) {
                facts.push(a);
            }
        }
        writeln!(
            out,
            "{}",
            style.dim(format!("assumed: {}", sanitize(&facts.join("; "))))
        )?;
    }
    let met = crate::notes::once_each(footer.notes.iter().cloned());
    for n in &met {
        writeln!(out, "{}", style.dim(format!("note: {}", n.sentence())))?;
    }
    if verbosity == Verbosity::Verbose {
        for n in footer.catalogue {
            if met.iter().any(|m| m.note == *n) {
                continue;
            }
            writeln!(
                out,
                "{}",
                style.dim(format!(
                    "note (not met by this run; relevant when {}): {}",
                    n.when(),
                    n.used().sentence()
                ))
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::color::ColorChoice;

    fn text(footer: &Footer<'_>, verbosity: Verbosity) -> String {
        let mut out = Vec::new();
        write_footer(&mut out, footer, verbosity, ColorChoice::Never.styler()).expect("writes");
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn assumed_facts_fold_into_one_line_and_met_notes_print_once_each() {
        let assumed = vec![
            "no feature-gate facts".to_owned(),
            "kubelet versions unknown".to_owned(),
            "no feature-gate facts".to_owned(),
        ];
        let notes = vec![Note::PreemptionTiming.used(), Note::PreemptionTiming.used()];
        let footer = Footer {
            assumed: &assumed,
            notes: &notes,
            catalogue: crate::notes::SIMULATION,
            ..Footer::default()
        };
        assert_eq!(
            text(&footer, Verbosity::Normal),
            format!(
                "assumed: no feature-gate facts; kubelet versions unknown\nnote: {}\n",
                Note::PreemptionTiming.text()
            )
        );
    }

    #[test]
    fn quiet_prints_nothing_and_verbose_prints_the_whole_catalogue_once_each() {
        let warnings = vec![Warning::new("Forbidden", "cannot list nodes")];
        let notes = vec![Note::Ties.used()];
        let footer = Footer {
            warnings: &warnings,
            notes: &notes,
            catalogue: crate::notes::SIMULATION,
            ..Footer::default()
        };
        assert_eq!(text(&footer, Verbosity::Quiet), "");
        let verbose = text(&footer, Verbosity::Verbose);
        assert!(verbose.starts_with("warning: cannot list nodes\nnote: ties between"));
        for n in crate::notes::SIMULATION {
            let sentence = n.used().sentence();
            assert_eq!(verbose.matches(&sentence).count(), 1, "{}", n.id());
        }
        assert_eq!(
            verbose
                .matches("note (not met by this run; relevant when ")
                .count(),
            crate::notes::SIMULATION.len() - 1
        );
        // Normal: only the note met.
        assert_eq!(text(&footer, Verbosity::Normal).matches("note").count(), 1);
    }
}
