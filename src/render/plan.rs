//! Text view of a simulation [`Plan`]: the gates it used, one row per unit in queue order, then
//! a summary; warnings, assumptions and notes separately ([`write_notes`], stderr in text mode).

use std::collections::BTreeMap;
use std::io::{self, Write};

use super::color::Styler;
use super::table::{Cell, Paint, Table};
use crate::sanitize::sanitize;
use crate::sched::plan::{AdmissionOutcome, Outcome, Plan, UnitResult};

/// Options of the text view.
#[derive(Debug, Clone, Default)]
pub(crate) struct TextOptions {
    /// `-o wide`: more columns (priority, victims).
    pub wide: bool,
    /// `-n`: one namespace, so the NAMESPACE column is hidden, as kubectl does.
    pub hide_namespace: bool,
    /// What to say when no unit is left to show, naming the scope that emptied it (a
    /// namespace, a selector); `None`: nothing is pending anywhere.
    pub empty: Option<String>,
    /// The terminal's width: the free-text column is cut with `…` to fit it; `None` (a pipe,
    /// `-o wide`): whole.
    pub width: Option<usize>,
}

fn outcome_cell(o: Outcome) -> Cell {
    let paint = match o {
        Outcome::Scheduled => Paint::Ok,
        Outcome::Unschedulable | Outcome::Error => Paint::Error,
        Outcome::Waiting | Outcome::Preempting | Outcome::Suspended | Outcome::NotSimulated => {
            Paint::Warn
        }
    };
    Cell::painted(o.as_str(), paint)
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

/// For a placed unit without a message: the claims its pods were given, e.g. "claim
/// `infer-a-gpu` shared by 2 pods: gpu.example.com/gpu-b2/gpu-1, gpu-2".
fn claims_text(u: &UnitResult) -> String {
    let mut claims: BTreeMap<&str, (Vec<String>, usize)> = BTreeMap::new();
    for p in &u.placements {
        let mut seen: Vec<&str> = Vec::new();
        for d in &p.devices {
            let e = claims.entry(d.claim.as_str()).or_default();
            let dev = format!("{}/{}/{}", d.driver, d.pool, d.device);
            if !e.0.contains(&dev) {
                e.0.push(dev);
            }
            if !seen.contains(&d.claim.as_str()) {
                seen.push(d.claim.as_str());
                e.1 += 1;
            }
        }
    }
    claims
        .iter()
        .map(|(claim, (devices, pods))| {
            let users = if *pods > 1 {
                format!(" shared by {pods} pods")
            } else {
                String::new()
            };
            format!(
                "claim `{}`{users}: {}",
                sanitize(claim),
                sanitize(&devices.join(", "))
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// `kube-scheduler gates: GenericWorkload=on …`: the gates a report used, for its header.
pub(crate) fn gates_line(component: &str, gates: &BTreeMap<String, bool>) -> String {
    let list: Vec<String> = gates
        .iter()
        .map(|(k, v)| format!("{k}={}", if *v { "on" } else { "off" }))
        .collect();
    format!("{component} feature gates: {}", list.join(" "))
}

/// One `binding:` line per placed pod whose binding waits for devices' binding conditions, and
/// one `binding failed:` line per allocated claim whose binding failed (DRADeviceBindingConditions).
fn write_binding(out: &mut dyn Write, plan: &Plan, style: Styler) -> io::Result<()> {
    for u in &plan.units {
        for p in &u.placements {
            let Some(timeout) = p.binding_timeout_seconds else {
                continue;
            };
            let waits: Vec<String> = p
                .devices
                .iter()
                .filter(|d| !d.binding_conditions.is_empty())
                .map(|d| {
                    format!(
                        "{} on {}/{}/{}",
                        d.binding_conditions.join(", "),
                        d.driver,
                        d.pool,
                        d.device
                    )
                })
                .collect();
            writeln!(
                out,
                "{} {}/{}/{}: pod {} is placed on {}, its binding waits up to {timeout} s (DynamicResources bindingTimeout) for {}; then the allocation is cleared and the pod scheduled again",
                style.warn("binding:"),
                u.kind,
                sanitize(&u.namespace),
                sanitize(&u.name),
                sanitize(&p.pod),
                sanitize(&p.node),
                sanitize(&waits.join("; "))
            )?;
        }
    }
    for f in &plan.binding_failures {
        if let Some(timeout) = f.binding_timeout_seconds {
            writeln!(
                out,
                "{} claim {}/{} (its binding conditions were not all True {timeout} s after its allocation, DynamicResources bindingTimeout): the scheduler clears its allocation and pod(s) {} go back to scheduling",
                style.error("binding timed out:"),
                sanitize(&f.namespace),
                sanitize(&f.claim),
                sanitize(&f.pods.join(", "))
            )?;
            continue;
        }
        writeln!(
            out,
            "{} claim {}/{} ({} is True): the scheduler clears its allocation and pod(s) {} go back to scheduling",
            style.error("binding failed:"),
            sanitize(&f.namespace),
            sanitize(&f.claim),
            sanitize(&f.conditions.join(", ")),
            sanitize(&f.pods.join(", "))
        )?;
    }
    Ok(())
}

/// `-o name`: one `kind.group/name` per unit, as `kubectl get -o name` prints them.
pub(crate) fn write_names(out: &mut dyn Write, plan: &Plan) -> io::Result<()> {
    for u in &plan.units {
        writeln!(out, "{}/{}", u.kind.kubectl_name(), sanitize(&u.name))?;
    }
    Ok(())
}

/// Writes the loader warnings, assumptions and the notes this run met (text mode sends them
/// to stderr, so stdout carries only the report), through [`super::notes::write_footer`].
pub(crate) fn write_notes(
    out: &mut dyn Write,
    plan: &Plan,
    verbosity: super::notes::Verbosity,
    style: Styler,
) -> io::Result<()> {
    let footer = super::notes::Footer {
        warnings: &plan.warnings,
        admitted: &plan.settings.admitted,
        assumed: &plan.settings.assumed,
        notes: &plan.settings.relevant_notes,
        catalogue: crate::notes::SIMULATION,
        ..Default::default()
    };
    super::notes::write_footer(out, &footer, verbosity, style)
}

/// Writes the plan: the gates it used, then (when gangs are taken pod by pod) why, then a
/// table of units, the device map, preemptions, stuck pods and a summary.
pub(crate) fn write_text(
    out: &mut dyn Write,
    plan: &Plan,
    style: Styler,
    opts: TextOptions,
) -> io::Result<()> {
    writeln!(
        out,
        "{}",
        style.dim(gates_line("kube-scheduler", &plan.settings.feature_gates))
    )?;
    for w in &plan.settings.what_if {
        writeln!(out, "{}", style.dim(format!("what-if: {}", sanitize(w))))?;
    }
    if let Some(line) = &plan.settings.pod_by_pod {
        writeln!(out, "{} {}", style.warn("warning:"), sanitize(line))?;
    }
    for p in &plan.settings.profiles {
        writeln!(out, "{}", style.dim(sanitize(p)))?;
    }
    write_extenders(
        out,
        &plan.settings.extenders,
        "the outcomes of the units it filters or scores may differ",
        style,
    )?;
    let kueue = plan.units.iter().any(|u| u.kueue.is_some());
    if kueue {
        write_kueue(out, plan, style, &opts)?;
        writeln!(out)?;
    }
    if plan.units.iter().all(|u| u.kueue.is_some()) {
        match &opts.empty {
            Some(line) => writeln!(out, "{}", sanitize(line))?,
            None if kueue => writeln!(
                out,
                "No pod is pending placement: every pod Kueue lets start is bound."
            )?,
            None => writeln!(out, "Nothing is pending: every pod is bound.")?,
        }
    } else {
        write_units(out, plan, style, &opts)?;
    }
    if !plan.device_map.is_empty() {
        writeln!(out)?;
        write_device_map(out, plan, style)?;
    }
    for u in plan.units.iter().filter(|u| !u.victims.is_empty()) {
        writeln!(out, "{}", preemption_line(u, style))?;
    }
    for u in &plan.units {
        let Some(k) = u.kueue.as_deref() else {
            continue;
        };
        if k.admission.preempts.is_empty() {
            continue;
        }
        let victims: Vec<String> = k
            .admission
            .preempts
            .iter()
            .map(|v| format!("{}/{}", sanitize(&v.namespace), sanitize(&v.name)))
            .collect();
        writeln!(
            out,
            "{} workload {}/{} preempts Kueue workload(s) {} (Kueue evicts them: their Jobs are suspended and their pods deleted)",
            style.warn("kueue preemption:"),
            sanitize(&u.namespace),
            sanitize(&u.name),
            victims.join(", ")
        )?;
    }
    for reason in plan.kueue.iter().flat_map(|k| &k.not_started) {
        writeln!(out, "{} {}", style.warn("not started:"), sanitize(reason))?;
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
    write_binding(out, plan, style)?;
    for (scheduler, pods) in not_simulated(plan) {
        writeln!(
            out,
            "{} {pods} pod{}",
            style.warn(format!(
                "scheduled by `{}`, not simulated:",
                sanitize(scheduler)
            )),
            if pods == 1 { "" } else { "s" }
        )?;
    }
    let s = &plan.summary;
    writeln!(
        out,
        "\n{} {} (queue order: priority, then creation time; for a group, its first member's)",
        style.bold("Summary:"),
        s.counts_text()
    )?;
    Ok(())
}

/// One warning per extender of the scheduler configuration: extenders are not called, so
/// what `differs` names (the outcomes, a verdict, the copies) may differ from the report.
pub(crate) fn write_extenders(
    out: &mut dyn Write,
    extenders: &[String],
    differs: &str,
    style: Styler,
) -> io::Result<()> {
    for e in extenders {
        writeln!(
            out,
            "{} extender `{}` is not simulated: {differs}",
            style.warn("warning:"),
            sanitize(e)
        )?;
    }
    Ok(())
}

/// Pods no profile serves, per scheduler they name: reported once each, not row by row.
pub(crate) fn not_simulated(plan: &Plan) -> BTreeMap<&str, u32> {
    let mut out: BTreeMap<&str, u32> = BTreeMap::new();
    for u in plan
        .units
        .iter()
        .filter(|u| u.outcome == Outcome::NotSimulated)
    {
        *out.entry(u.profile.as_str()).or_default() += u.pending;
    }
    out
}

/// The table of units, one row each in plan order: PLACED counts members placed now out of
/// those pending (`before+now/all` when some already ran), MESSAGE falls back to the claims
/// when the simulator said nothing; `--wide` adds PRIORITY and VICTIMS.
fn write_units(
    out: &mut dyn Write,
    plan: &Plan,
    style: Styler,
    opts: &TextOptions,
) -> io::Result<()> {
    let mut headers = vec!["NAMESPACE", "NAME", "OUTCOME", "PLACED", "MIN", "NODES"];
    if opts.wide {
        headers.extend(["PRIORITY", "VICTIMS"]);
    }
    // With a unit simulated by another profile than `default-scheduler`, each row names its
    // profile (the profiles' scoring is described above the table).
    let profiles = plan.units.iter().any(|u| {
        u.outcome != Outcome::NotSimulated
            && !u.profile.is_empty()
            && u.profile != crate::sched::profile::DEFAULT_SCHEDULER_NAME
    });
    if profiles {
        headers.push("PROFILE");
    }
    headers.push("MESSAGE");
    let mut table = Table::new(headers);
    // Units no profile serves are counted per scheduler below the table; Kueue's have their
    // own table.
    for u in plan
        .units
        .iter()
        .filter(|u| u.outcome != Outcome::NotSimulated && u.kueue.is_none())
    {
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
        let message = if u.message.is_empty() {
            claims_text(u)
        } else {
            sanitize(&u.message).into_owned()
        };
        let mut row: Vec<Cell> = vec![
            sanitize(&u.namespace).into_owned().into(),
            format!("{}/{}", u.kind, sanitize(&u.name)).into(),
            outcome_cell(u.outcome),
            placed.into(),
            u.min_count
                .map_or_else(|| "-".to_owned(), |m| m.to_string())
                .into(),
            nodes_text(u).into(),
        ];
        if opts.wide {
            row.push(u.priority.to_string().into());
            row.push(u.victims.len().to_string().into());
        }
        if profiles {
            let name = if u.profile.is_empty() {
                crate::sched::profile::DEFAULT_SCHEDULER_NAME
            } else {
                u.profile.as_str()
            };
            row.push(sanitize(name).into_owned().into());
        }
        row.push(message.into());
        table.row(row);
    }
    if opts.hide_namespace {
        table.hide("NAMESPACE");
    }
    table.flex("MESSAGE");
    table.fit(opts.width);
    table.write(out, style)
}

/// Stage one on a cluster that runs Kueue: one row per Kueue Workload that was pending
/// admission, with Kueue's answer (ADMISSION), the flavors it got, and the outcome of its pods
/// in stage two (OUTCOME; `Waiting` while Kueue holds it).
fn write_kueue(
    out: &mut dyn Write,
    plan: &Plan,
    style: Styler,
    opts: &TextOptions,
) -> io::Result<()> {
    let cycles = plan.kueue.as_ref().map_or(0, |k| k.cycles);
    let settled = if plan.kueue.as_ref().is_some_and(|k| k.unsettled) {
        "did not settle"
    } else {
        "settled"
    };
    writeln!(
        out,
        "{}",
        style.bold(format!(
            "Kueue admission ({settled} after {cycles} cycle{}):",
            if cycles == 1 { "" } else { "s" }
        ))
    )?;
    let mut table = Table::new([
        "NAMESPACE",
        "WORKLOAD",
        "CLUSTERQUEUE",
        "ADMISSION",
        "FLAVORS",
        "OUTCOME",
        "MESSAGE",
    ]);
    for u in &plan.units {
        let Some(k) = u.kueue.as_deref() else {
            continue;
        };
        let a = &k.admission;
        let mut flavors: Vec<&str> = a
            .pod_sets
            .iter()
            .flat_map(|p| p.flavors.values().map(String::as_str))
            .collect();
        flavors.sort_unstable();
        flavors.dedup();
        let admission = match a.outcome {
            AdmissionOutcome::Admitted => Cell::painted(a.outcome.as_str(), Paint::Ok),
            AdmissionOutcome::NoQueue | AdmissionOutcome::QueueStopped => {
                Cell::painted(a.outcome.as_str(), Paint::Error)
            }
            _ => Cell::painted(a.outcome.as_str(), Paint::Warn),
        };
        table.row(vec![
            sanitize(&u.namespace).into_owned().into(),
            sanitize(&u.name).into_owned().into(),
            if a.cluster_queue.is_empty() {
                "-".to_owned()
            } else {
                sanitize(&a.cluster_queue).into_owned()
            }
            .into(),
            admission,
            if flavors.is_empty() {
                "-".to_owned()
            } else {
                sanitize(&flavors.join(",")).into_owned()
            }
            .into(),
            outcome_cell(u.outcome),
            sanitize(&u.message).into_owned().into(),
        ]);
    }
    if opts.hide_namespace {
        table.hide("NAMESPACE");
    }
    table.flex("MESSAGE");
    table.fit(opts.width);
    table.write(out, style)
}

/// The device map: one row per device (`driver/pool/device`) on each node, with the claim
/// holding it and its pods and group, STATE `free`, `simulated` (allocated by this plan) or
/// `allocated` (already in the cluster).
fn write_device_map(out: &mut dyn Write, plan: &Plan, style: Styler) -> io::Result<()> {
    let mut table = Table::new(["NODE", "DEVICE", "CLAIM", "PODS", "GROUP", "STATE"]);
    for d in &plan.device_map {
        let state = match (&d.claim, d.simulated) {
            (None, _) => Cell::painted("free", Paint::Dim),
            (Some(_), true) => Cell::painted("simulated", Paint::Ok),
            (Some(_), false) => Cell::from("allocated"),
        };
        table.row([
            sanitize(&d.node).into_owned().into(),
            format!(
                "{}/{}/{}",
                sanitize(&d.driver),
                sanitize(&d.pool),
                sanitize(&d.device)
            )
            .into(),
            d.claim
                .as_deref()
                .map_or_else(|| "-".to_owned(), |c| sanitize(c).into_owned())
                .into(),
            if d.pods.is_empty() {
                "-".to_owned()
            } else {
                sanitize(&d.pods.join(",")).into_owned()
            }
            .into(),
            d.group
                .as_deref()
                .map_or_else(|| "-".to_owned(), |g| sanitize(g).into_owned())
                .into(),
            state,
        ]);
    }
    table.write(out, style)
}

/// The `preemption:` line of a unit with victims: the victims (those evicted with their
/// atomic unit, `disruptionMode: all`, are named by that unit, once), then the blast radius (GPUs freed, GPU-hours
/// lost, whole-group deaths, PodDisruptionBudget violations, groups left short).
fn preemption_line(u: &UnitResult, style: Styler) -> String {
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
        for stranded in b.groups.iter().filter_map(|g| g.stranded()) {
            line.push_str("; ");
            line.push_str(&sanitize(&stranded));
        }
    }
    line
}
