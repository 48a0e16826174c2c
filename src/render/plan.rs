//! Text view of a simulation [`Plan`]: one row per unit in queue order, then a summary and
//! the settings (gates, assumptions, notes) the run used.

use std::collections::BTreeMap;
use std::io::{self, Write};

use comfy_table::presets::NOTHING;
use comfy_table::{ContentArrangement, Table};

use super::color::Styler;
use super::sanitize;
use crate::sched::plan::{Outcome, Plan, UnitResult};

fn outcome_text(style: Styler, o: Outcome) -> String {
    let s = format!("{o:?}");
    match o {
        Outcome::Scheduled => style.ok(s),
        Outcome::Unschedulable | Outcome::Error => style.error(s),
        Outcome::Waiting | Outcome::Preempting => style.warn(s),
    }
}

fn nodes_text(u: &UnitResult) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for p in &u.placements {
        *counts.entry(p.node.as_str()).or_default() += 1;
    }
    if counts.is_empty() {
        return "-".to_owned();
    }
    counts
        .iter()
        .map(|(n, c)| {
            if *c > 1 {
                format!("{}×{c}", sanitize(n))
            } else {
                sanitize(n).into_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Writes the plan as a table with a summary.
pub fn write_text(out: &mut dyn Write, plan: &Plan, style: Styler) -> io::Result<()> {
    for w in &plan.warnings {
        writeln!(out, "{} {}", style.warn("warning:"), sanitize(&w.message))?;
    }
    if plan.units.is_empty() {
        writeln!(out, "Nothing is pending: every pod is bound.")?;
    } else {
        let mut table = Table::new();
        table
            .load_preset(NOTHING)
            .set_content_arrangement(ContentArrangement::Disabled);
        table.set_header(vec!["UNIT", "OUTCOME", "PLACED", "MIN", "NODES", "MESSAGE"]);
        for u in &plan.units {
            let placed = if u.scheduled_before > 0 {
                format!(
                    "{}+{}/{}",
                    u.scheduled_before,
                    u.placements.len(),
                    u.pending + u.scheduled_before
                )
            } else {
                format!("{}/{}", u.placements.len(), u.pending)
            };
            table.add_row(vec![
                format!(
                    "{}/{}/{}",
                    u.kind,
                    sanitize(&u.namespace),
                    sanitize(&u.name)
                ),
                outcome_text(style, u.outcome),
                placed,
                u.min_count
                    .map_or_else(|| "-".to_owned(), |m| m.to_string()),
                nodes_text(u),
                sanitize(&u.message).into_owned(),
            ]);
        }
        for line in table.lines() {
            writeln!(out, "{}", line.trim_end().trim_start_matches(' '))?;
        }
    }
    if !plan.device_map.is_empty() {
        writeln!(out)?;
        let mut table = Table::new();
        table
            .load_preset(NOTHING)
            .set_content_arrangement(ContentArrangement::Disabled);
        table.set_header(vec!["NODE", "DEVICE", "CLAIM", "PODS", "GROUP", "STATE"]);
        for d in &plan.device_map {
            let state = match (&d.claim, d.simulated) {
                (None, _) => style.dim("free"),
                (Some(_), true) => style.ok("simulated"),
                (Some(_), false) => "allocated".to_owned(),
            };
            table.add_row(vec![
                sanitize(&d.node).into_owned(),
                format!(
                    "{}/{}/{}",
                    sanitize(&d.driver),
                    sanitize(&d.pool),
                    sanitize(&d.device)
                ),
                d.claim
                    .as_deref()
                    .map_or_else(|| "-".to_owned(), |c| sanitize(c).into_owned()),
                if d.pods.is_empty() {
                    "-".to_owned()
                } else {
                    sanitize(&d.pods.join(",")).into_owned()
                },
                d.group
                    .as_deref()
                    .map_or_else(|| "-".to_owned(), |g| sanitize(g).into_owned()),
                state,
            ]);
        }
        for line in table.lines() {
            writeln!(out, "{}", line.trim_end().trim_start_matches(' '))?;
        }
    }
    for u in plan.units.iter().filter(|u| !u.victims.is_empty()) {
        let mut victims: Vec<String> = Vec::new();
        for v in &u.victims {
            let name = v
                .evicted_with
                .clone()
                .unwrap_or_else(|| format!("Pod/{}/{}", v.namespace, v.name));
            if !victims.contains(&name) {
                victims.push(name);
            }
        }
        let mut line = format!(
            "{} {}/{}/{} evicts {} pod(s): {}",
            style.warn("preemption:"),
            u.kind,
            sanitize(&u.namespace),
            sanitize(&u.name),
            u.victims.len(),
            sanitize(&victims.join(", "))
        );
        if let Some(b) = &u.blast_radius {
            line.push_str(&format!(
                "; frees {} GPU(s), loses {} GPU-hours",
                b.gpus_freed, b.gpu_hours_lost
            ));
            if b.whole_group_for_part_of_its_nodes {
                line.push_str("; a disruptionMode=all group dies whole for part of its nodes");
            }
            if b.pdb_violations > 0 {
                line.push_str(&format!(
                    "; {} PodDisruptionBudget violation(s)",
                    b.pdb_violations
                ));
            }
        }
        writeln!(out, "{line}")?;
    }
    for s in &plan.stuck_pods {
        writeln!(
            out,
            "{} pod {}/{} on {}: {}",
            style.error("stuck:"),
            sanitize(&s.namespace),
            sanitize(&s.pod),
            sanitize(&s.node),
            sanitize(&s.message)
        )?;
    }
    let s = &plan.summary;
    writeln!(
        out,
        "\n{} {} scheduled, {} unschedulable, {} waiting, {} preempting, {} error (queue order: priority, then creation time)",
        style.bold("Summary:"),
        s.scheduled,
        s.unschedulable,
        s.waiting,
        s.preempting,
        s.error
    )?;
    let gates: Vec<String> = plan
        .settings
        .feature_gates
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    writeln!(
        out,
        "{}",
        style.dim(format!(
            "kube-scheduler feature gates: {}",
            gates.join(", ")
        ))
    )?;
    for w in &plan.settings.what_if {
        writeln!(out, "{}", style.dim(format!("what-if: {w}")))?;
    }
    for a in &plan.settings.assumed {
        writeln!(out, "{}", style.dim(format!("assumed: {a}")))?;
    }
    for n in &plan.settings.notes {
        writeln!(out, "{}", style.dim(format!("note: {n}")))?;
    }
    Ok(())
}
