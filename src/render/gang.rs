//! Text view of a [`GangDiagnosis`]: `explain` on a Volcano PodGroup or a YuniKorn task
//! group. The first line says that wasctl does not simulate that scheduler.

use std::io::{self, Write};

use super::color::Styler;
use crate::explain::others::GangDiagnosis;
use crate::sanitize::sanitize;

/// Writes the report as text.
pub(crate) fn write_text(out: &mut dyn Write, d: &GangDiagnosis, style: Styler) -> io::Result<()> {
    writeln!(
        out,
        "{}: {}",
        style.bold(sanitize(&d.target)),
        d.not_simulated
    )?;
    writeln!(out)?;
    write_recorded(out, d)?;
    writeln!(
        out,
        "Members: {} pod(s), {} bound; minMember {}",
        d.members.total, d.members.bound, d.min_member
    )?;
    writeln!(out)?;
    writeln!(out, "Checks:")?;
    for c in &d.checks {
        let mark = match c.result.as_str() {
            "ok" => style.ok("ok"),
            "problem" => style.error("problem"),
            _ => style.warn("unknown"),
        };
        writeln!(out, "  {mark} {}: {}", c.id, sanitize(&c.message))?;
    }
    if !d.resources.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "Resources (one member's request x minMember, against the nodes' allocatable):"
        )?;
        for r in &d.resources {
            writeln!(
                out,
                "  {}: {} x {} = {}, allocatable {}",
                sanitize(&r.resource),
                r.per_pod,
                d.min_member,
                r.needed,
                r.allocatable
            )?;
        }
        writeln!(out, "Node shapes:")?;
        for s in &d.node_shapes {
            writeln!(
                out,
                "  {} node(s) {}: {} member(s) each when empty",
                s.nodes,
                sanitize(&s.shape),
                s.pods_per_node
            )?;
        }
    }
    if let Some(f) = &d.kube_scheduler_fit {
        writeln!(out)?;
        writeln!(out, "How many members fit {}:", f.label)?;
        writeln!(
            out,
            "  {} of {} with every pod removed from the nodes; {} of {} now",
            f.on_empty_nodes, d.min_member, f.now, d.min_member
        )?;
        for r in &f.reasons {
            writeln!(out, "  {}", sanitize(r))?;
        }
    }
    Ok(())
}

fn write_recorded(out: &mut dyn Write, d: &GangDiagnosis) -> io::Result<()> {
    let r = &d.recorded;
    writeln!(out, "Recorded by {}:", d.scheduler)?;
    let mut line = format!("  phase {}", sanitize(&r.phase));
    if let Some(q) = &r.queue {
        line.push_str(&format!(", queue `{}`", sanitize(q)));
    }
    if let (Some(run), Some(ok), Some(failed)) = (r.running, r.succeeded, r.failed) {
        line.push_str(&format!(", running {run}, succeeded {ok}, failed {failed}"));
    }
    if let Some(p) = &r.placeholders {
        line.push_str(&format!(", placeholders {} ({} bound)", p.total, p.bound));
    }
    writeln!(out, "{line}")?;
    for c in &r.conditions {
        writeln!(out, "  {}", sanitize(c))?;
    }
    Ok(())
}
