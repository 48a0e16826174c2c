//! `kubectl wasctl explain TYPE/NAME`: why a gang is (or would be) unschedulable.

use crate::snapshot::{ObjKind, ObjRef, Snapshot, Warning};
use clap::Args;

use super::simulate::{WhatIfArgs, apply_what_ifs};

use super::format::ReportOutput;
use super::{Context, ReportFormat, parse_target_words, require_nodes_and_pods, resolve_target};
use crate::error::{Error, ExitStatus};
use crate::explain::kueue::KueueExplanation;
use crate::explain::{Diagnosis, Verdict, explain_target};
use crate::graph::Graph;
use crate::render::explain::{write_header, write_notes, write_text};
use crate::render::json::{Envelope, write_yaml};
use crate::sched::Options;

/// `explain` flags.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// `pod/`, `podgroup/` (`pg/`), `compositepodgroup/` (`cpg/`), `workload/` (all its
    /// groups), `job/` (its group), Kueue's `workloads.kueue.x-k8s.io/` (`kwl/`: which stage
    /// blocks it), Volcano's `podgroups.scheduling.volcano.sh/` (`vcpg/`; a Volcano Job,
    /// `vcjob/`, goes to its PodGroup) or a YuniKorn `taskgroup/APP_ID:TASK_GROUP` (`tg/`: what
    /// that scheduler recorded, not simulated), followed by the name.
    #[arg(value_name = "TYPE/NAME", num_args = 1..=2, required = true)]
    pub target: Vec<String>,
    /// Exit with 1 when the target is not schedulable (Waiting, Unschedulable, Preempting, Error, Suspended).
    #[arg(long)]
    pub exit_code: bool,
    /// What-ifs, as for `simulate`.
    #[command(flatten)]
    pub what_if: WhatIfArgs,
    /// Output format: `text`, `json`, `yaml`, or kubectl's `jsonpath=TEMPLATE`,
    /// `jsonpath-file=FILE`, `custom-columns=SPEC`, `custom-columns-file=FILE` (rows:
    /// one per target).
    #[arg(short = 'o', long = "output", value_name = "FORMAT", default_value = "text",
          value_parser = super::format::report_output())]
    pub output: super::format::ReportOutput,
    /// Keep following the cluster after printing the explanation, as `kubectl get -w`: one
    /// line when the target's verdict, findings or fixes change, with the changes that
    /// caused it (`-o json`: one `WatchEvent` object per line). Ctrl-C ends it.
    #[arg(short = 'w', long)]
    pub watch: bool,
}

/// Several diagnoses (a Workload's groups) as one report.
#[derive(Debug, serde::Serialize)]
struct Diagnoses<'a> {
    items: &'a [Diagnosis],
}

pub(crate) fn run(ctx: &Context, args: &ExplainArgs) -> Result<ExitStatus, Error> {
    let (kind, name) = parse_target_words(&args.target)?;
    if matches!(
        kind,
        ObjKind::ResourceClaim | ObjKind::Node | ObjKind::VolcanoQueue
    ) || (kind.is_kueue() && kind != ObjKind::KueueWorkload)
    {
        return Err(Error::usage(
            "`explain` takes a pod, podgroup, compositepodgroup, workload or job",
            "for a claim or a node, use `kubectl wasctl tree resourceclaim/NAME` or `tree node/NAME`",
        ));
    }
    if args.watch {
        return watch(ctx, args, kind, name);
    }
    let mut snapshot = ctx.load()?;
    require_nodes_and_pods(&snapshot)?;
    let what_if = apply_what_ifs(ctx, &mut snapshot, &args.what_if)?;
    let target = resolve_target(ctx, &snapshot, &kind, &name)?;
    if target.kind == ObjKind::VolcanoJob {
        // A Volcano Job: its PodGroup (Volcano's Job controller makes one per Job).
        let Some(pg) = snapshot
            .volcano
            .groups_of_job(&target.namespace, &target.name)
            .next()
        else {
            return Err(Error::usage(
                format!("Volcano Job `{}` has no PodGroup", target.name),
                "Volcano's Job controller creates `JOB-UID` for a Job it has seen: check `kubectl get podgroups.scheduling.volcano.sh -n NAMESPACE`",
            ));
        };
        let gang = ObjRef::new(ObjKind::VolcanoPodGroup, pg.namespace(), pg.name());
        return write_gang(ctx, args, &snapshot, &gang, Some(&target));
    }
    if target.kind.other_scheduler().is_some() {
        return write_gang(ctx, args, &snapshot, &target, None);
    }
    // A member pod of a Volcano or YuniKorn gang: its gang is explained, as a native gang's
    // member pod's is.
    if let Some(gang) = crate::explain::others::gang_of_pod(&snapshot, &target) {
        return write_gang(ctx, args, &snapshot, &gang, Some(&target));
    }
    let options = Options {
        mode: args.what_if.mode,
        gate_overrides: ctx.gate_overrides()?,
        no_preemption: args.what_if.no_preemption,
        what_if,
        ..Options::default()
    };
    let (diagnoses, warnings) = diagnose(&snapshot, &options, target)?;
    let status = write_diagnoses(ctx, args, &warnings, &diagnoses)?;
    super::release(diagnoses);
    super::release(snapshot);
    Ok(status)
}

/// The diagnoses of `target` (a Workload's groups are several), and the warnings of the
/// snapshot they were made on.
fn diagnose(
    snapshot: &Snapshot,
    options: &Options,
    mut target: ObjRef,
) -> Result<(Vec<Diagnosis>, Vec<Warning>), Error> {
    // On a cluster that runs Kueue, kube-scheduler sees what Kueue's admission leaves (as
    // simulate does): the explanation runs on that cluster.
    let staged = crate::kueue::stages::stage(snapshot, &options.gate_overrides)
        .map_err(super::kueue_error)?;
    let mut kueue_finding = None;
    // A Kueue Workload stage one admits and starts: its pods' unit is explained, headed by
    // Kueue's finding, in one simulation (the unit is known from stage one alone).
    let mut started = None;
    if target.kind == ObjKind::KueueWorkload
        && let Some(staged) = &staged
        && let Some(unit) = crate::explain::kueue::started_unit(snapshot, staged, &target)
    {
        started = Some(std::mem::replace(&mut target, unit));
    }
    if target.kind == ObjKind::KueueWorkload {
        let Some(staged) = &staged else {
            return Err(Error::usage(
                format!("Kueue Workload `{}` not found", target.name),
                "check the name with `kubectl get workloads.kueue.x-k8s.io -A`",
            ));
        };
        match explain_kueue_workload(snapshot, staged, options, &target)? {
            KueueExplanation::Admission(d) => {
                return Ok((vec![*d], snapshot.warnings.clone()));
            }
            KueueExplanation::Placement { finding, unit } => {
                kueue_finding = Some(finding);
                target = unit;
            }
        }
    }
    let simulated = staged.as_ref().map_or(snapshot, |s| s.cluster(snapshot));
    // The graph and the compiled simulation are independent reads of the snapshot: built at
    // once on two cores (at 150,000 pods each takes a few hundred milliseconds).
    let (graph, prepared) =
        Graph::build_beside(simulated, || crate::sched::prepare(simulated, options));
    super::profile::phase("graph");
    let mut prepared = prepared;
    let mut diagnoses = explain_target(simulated, &graph, &mut prepared, options, &target)
        .map_err(|message| {
            Error::usage(
                message,
                "explain a PodGroup, or a Workload whose PodGroups exist",
            )
        })?;
    if let (Some(kwl), Some(staged)) = (&started, &staged) {
        for d in &mut diagnoses {
            let outcome = d.outcome.unwrap_or(crate::sched::plan::Outcome::Waiting);
            if let Some(f) = crate::explain::kueue::placement_finding(
                snapshot, staged, kwl, &d.target, outcome, &d.message,
            ) {
                d.findings.insert(0, f);
            }
        }
    }
    if let Some(finding) = kueue_finding {
        for d in &mut diagnoses {
            d.findings.insert(0, finding.clone());
        }
    }
    super::profile::phase("explain");
    let warnings = simulated.warnings.clone();
    super::release((graph, prepared.retire()));
    super::release(staged);
    Ok((diagnoses, warnings))
}

/// A Kueue Workload explained: by its admission, or by the unit of its pods.
fn explain_kueue_workload(
    snapshot: &Snapshot,
    staged: &crate::kueue::stages::Staged,
    options: &Options,
    target: &ObjRef,
) -> Result<KueueExplanation, Error> {
    let mut plan = crate::sched::simulate(staged.cluster(snapshot), options);
    crate::kueue::dry_run::join(&mut plan, staged, snapshot);
    crate::explain::kueue::explain_workload(
        snapshot,
        staged,
        &plan,
        &options.gate_overrides,
        target,
    )
    .map_err(|message| {
        Error::usage(
            message,
            "explain its Job's PodGroup or pods instead (`kubectl wasctl tree kwl/NAME` shows them)",
        )
    })
}

/// `explain --watch`: the explanation, then a line per change of the target's verdict,
/// findings or fixes.
struct Following<'a> {
    args: &'a ExplainArgs,
    target: ObjRef,
}

impl super::watch::Followed for Following<'_> {
    type Report = Vec<Diagnosis>;
    type Event = crate::report::ObjectChange;

    /// A target that went away is no diagnosis (its change: `Removed`), not an error.
    fn report(&self, ctx: &Context, snapshot: &Snapshot) -> Result<Self::Report, Error> {
        if snapshot.meta_of(&self.target).is_none() {
            return Ok(Vec::new());
        }
        let options = Options {
            mode: self.args.what_if.mode,
            gate_overrides: ctx.gate_overrides()?,
            no_preemption: self.args.what_if.no_preemption,
            ..Options::default()
        };
        Ok(diagnose(snapshot, &options, self.target.clone())?.0)
    }

    fn write_first(
        &self,
        ctx: &Context,
        snapshot: &Snapshot,
        diagnoses: &Self::Report,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        if self.args.output == ReportOutput::Plain(ReportFormat::Json) {
            match diagnoses.as_slice() {
                [one] => serde_json::to_writer(&mut *out, &Envelope::new("Diagnosis", one)),
                items => serde_json::to_writer(
                    &mut *out,
                    &Envelope::new("DiagnosisList", &Diagnoses { items }),
                ),
            }
            .map_err(std::io::Error::other)?;
            out.push(b'\n');
            return Ok(());
        }
        write_diagnoses(ctx, self.args, &snapshot.warnings, diagnoses)?;
        Ok(())
    }

    fn changes(
        &self,
        (_, old): (&Snapshot, &Self::Report),
        (_, new): (&Snapshot, &Self::Report),
        causes: &[String],
    ) -> Vec<Self::Event> {
        crate::explain::watch::changes(old, new, causes)
    }
}

/// `explain TYPE/NAME --watch`.
fn watch(
    ctx: &Context,
    args: &ExplainArgs,
    kind: ObjKind,
    name: String,
) -> Result<ExitStatus, Error> {
    let streamed = matches!(
        args.output,
        ReportOutput::Plain(ReportFormat::Text | ReportFormat::Json)
    );
    super::watch::check(ctx, streamed, args.what_if.any())?;
    let json = args.output == ReportOutput::Plain(ReportFormat::Json);
    super::watch::follow(ctx, json, |snapshot| {
        require_nodes_and_pods(snapshot)?;
        let target = resolve_target(ctx, snapshot, &kind, &name)?;
        Ok(Following { args, target })
    })
}

/// Writes the diagnoses in the format asked for; the exit status `--exit-code` asks for.
fn write_diagnoses(
    ctx: &Context,
    args: &ExplainArgs,
    warnings: &[Warning],
    diagnoses: &[Diagnosis],
) -> Result<ExitStatus, Error> {
    let mut out = Vec::new();
    let format = match &args.output {
        ReportOutput::Plain(f) => *f,
        ReportOutput::Template(t) => {
            // Rows: one per target, as kubectl's rows are a List's items.
            if let [one] = diagnoses {
                ctx.write_template(t, "Diagnosis", one, |doc| vec![doc])?;
            } else {
                let list = Diagnoses { items: diagnoses };
                ctx.write_template(t, "DiagnosisList", &list, |doc| {
                    super::format::rows_at(doc, "items")
                })?;
            }
            return Ok(exit_status(args, diagnoses));
        }
    };
    match format {
        ReportFormat::Text => {
            write_header(&mut out, &diagnoses[0], ctx.color.styler())?;
            for d in diagnoses {
                write_text(&mut out, d, ctx.color.styler())?;
            }
            // Prose wraps at the terminal's width, at word boundaries.
            let whole = String::from_utf8_lossy(&out);
            out = crate::render::fit::fit_prose(&whole, ctx.width()).into_bytes();
            let mut err = Vec::new();
            write_notes(
                &mut err,
                warnings,
                diagnoses,
                ctx.verbosity(),
                ctx.err_color.styler(),
            )?;
            ctx.stderr(&err)?;
        }
        ReportFormat::Json | ReportFormat::Yaml if diagnoses.len() == 1 => {
            let env = Envelope::new("Diagnosis", &diagnoses[0]);
            if format == ReportFormat::Json {
                ctx.stdout_json(&env)?
            } else {
                write_yaml(&mut out, &env)?
            }
        }
        ReportFormat::Json | ReportFormat::Yaml => {
            let list = Diagnoses { items: diagnoses };
            let env = Envelope::new("DiagnosisList", &list);
            if format == ReportFormat::Json {
                ctx.stdout_json(&env)?
            } else {
                write_yaml(&mut out, &env)?
            }
        }
    }
    ctx.stdout(&out)?;
    Ok(exit_status(args, diagnoses))
}

/// `explain` on a Volcano PodGroup or a YuniKorn task group: what that scheduler recorded
/// and the checks that hold for any scheduler (`kind: GangDiagnosis`); `from`: the member
/// pod or Volcano Job `explain` was asked about.
fn write_gang(
    ctx: &Context,
    args: &ExplainArgs,
    snapshot: &crate::snapshot::Snapshot,
    target: &crate::snapshot::ObjRef,
    from: Option<&crate::snapshot::ObjRef>,
) -> Result<ExitStatus, Error> {
    let mut d = crate::explain::others::explain_other_gang(snapshot, target)
        .map_err(|m| Error::usage(m, "check the name with `kubectl wasctl tree -A`"))?;
    d.redirected_from = from.map(|p| format!("{}/{}/{}", p.kind, p.namespace, p.name));
    let blocked = d.checks.iter().any(|c| c.result == "problem");
    let status = if args.exit_code && blocked {
        ExitStatus::Findings
    } else {
        ExitStatus::Success
    };
    let format = match &args.output {
        ReportOutput::Plain(f) => *f,
        ReportOutput::Template(t) => {
            ctx.write_template(t, "GangDiagnosis", &d, |doc| vec![doc])?;
            return Ok(status);
        }
    };
    let mut out = Vec::new();
    match format {
        ReportFormat::Text => {
            crate::render::gang::write_text(&mut out, &d, ctx.color.styler())?;
            let whole = String::from_utf8_lossy(&out);
            out = crate::render::fit::fit_prose(&whole, ctx.width()).into_bytes();
            let mut err = Vec::new();
            write_notes(
                &mut err,
                &snapshot.warnings,
                &[],
                ctx.verbosity(),
                ctx.err_color.styler(),
            )?;
            ctx.stderr(&err)?;
        }
        // Through the shared writer, so the MCP server captures it as a value too.
        ReportFormat::Json => ctx.stdout_json(&Envelope::new("GangDiagnosis", &d))?,
        ReportFormat::Yaml => write_yaml(&mut out, &Envelope::new("GangDiagnosis", &d))?,
    }
    ctx.stdout(&out)?;
    Ok(status)
}

/// The exit status `--exit-code` asks for.
fn exit_status(args: &ExplainArgs, diagnoses: &[Diagnosis]) -> ExitStatus {
    let blocked = diagnoses
        .iter()
        .any(|d| !matches!(d.verdict, Verdict::Scheduled | Verdict::Schedulable));
    if args.exit_code && blocked {
        ExitStatus::Findings
    } else {
        ExitStatus::Success
    }
}
