//! The command line: clap definitions, kubectl-style global flags, and the glue that runs
//! source → analysis → view for each command. Only this module writes to stdout and stderr.

mod capacity;
mod complete;
mod diff;
mod doctor;
mod explain;
mod generate;
mod lint;
mod simulate;
mod snapshot;
mod tree;
mod version;

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::error::{Error, ExitStatus};
use crate::graph::ObjRef;
use crate::render::color::{ColorChoice, ColorFlag};
use crate::snapshot::Snapshot;
use crate::snapshot::completeness::missing_kinds;
use crate::snapshot::facts::{check_gate_names, parse_feature_gates};
use crate::snapshot::source::{Collector, demo, files, live};

/// kubectl wasctl: see, simulate and explain Workload-Aware Scheduling on Kubernetes 1.37.
#[derive(Debug, Parser)]
#[command(
    name = "kubectl-wasctl",
    bin_name = "kubectl wasctl",
    version = version::SHORT,
    about = "See, simulate and explain Kubernetes 1.37 Workload-Aware Scheduling (gangs, PodGroups, DRA)",
    after_help = "Sources: the current kubeconfig context (default), `--from PATH` (YAML/JSON files, directories, `-`), or `--demo`.",
    max_term_width = 100
)]
pub struct Cli {
    /// Flags shared by every command.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// Flags shared by every command, named as kubectl names them.
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`).
    #[arg(long, global = true, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use.
    #[arg(long, global = true, value_name = "NAME")]
    pub context: Option<String>,
    /// The namespace to show (live default: the context's namespace).
    #[arg(short = 'n', long, global = true, value_name = "NAME")]
    pub namespace: Option<String>,
    /// Show every namespace.
    #[arg(short = 'A', long, global = true)]
    pub all_namespaces: bool,
    /// Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin).
    #[arg(long, global = true, value_name = "PATH", conflicts_with = "demo")]
    pub from: Vec<PathBuf>,
    /// Use the embedded demo cluster.
    #[arg(long, global = true)]
    pub demo: bool,
    /// Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false`
    /// (may be repeated; later values win).
    #[arg(long, global = true, value_name = "GATES")]
    pub feature_gates: Vec<String>,
    /// When to use colors.
    #[arg(long, global = true, value_enum, default_value_t = ColorFlag::Auto)]
    pub color: ColorFlag,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Say why a gang is (or would be) unschedulable, with the numbers and verified fixes.
    Explain(explain::ExplainArgs),
    /// Dry-run kube-scheduler 1.37 over the snapshot: where every pending gang would land.
    Simulate(simulate::SimulateArgs),
    /// Count how many more copies of a gang fit, and where; what stops the next copy.
    Capacity(capacity::CapacityArgs),
    /// Compare the plans of two snapshots: which units changed and which changes caused it.
    Diff(diff::DiffArgs),
    /// Find what is broken or leaking in the cluster: orphans, skew, gang health, DRA (`WASD###`).
    Doctor(doctor::DoctorArgs),
    /// Show Workload → CompositePodGroup → PodGroup → Pod → ResourceClaim with status.
    Tree(tree::TreeArgs),
    /// Check manifests against the 1.37 WAS validation and cross-object rules (`WAS###`).
    Lint(lint::LintArgs),
    /// Write the loaded objects and cluster facts to one file that `--from` reads back.
    Snapshot(snapshot::SnapshotArgs),
    /// Print the version, commit and supported Kubernetes version.
    Version(version::VersionArgs),
    /// Write or check the shipped completions and man page (for maintainers).
    #[command(hide = true)]
    Generate(generate::GenerateArgs),
    /// Print object names for shell completion (used by `kubectl_complete-wasctl`).
    #[command(hide = true)]
    CompleteNames(complete::CompleteArgs),
}

/// `-o` for reports that have a text view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ReportFormat {
    /// Human-readable text.
    #[default]
    Text,
    /// JSON (`apiVersion: wasctl.dev/v1alpha1`).
    Json,
    /// YAML, the same data as JSON.
    Yaml,
}

/// `-o` for reports shown as a table, as kubectl's `get` offers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum TableFormat {
    /// A table.
    #[default]
    Text,
    /// A table with more columns.
    Wide,
    /// One `kind.group/name` per line.
    Name,
    /// JSON (`apiVersion: wasctl.dev/v1alpha1`).
    Json,
    /// YAML, the same data as JSON.
    Yaml,
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<ExitStatus, Error> {
    let ctx = Context::new(cli.global);
    match cli.command {
        Command::Explain(args) => explain::run(&ctx, &args),
        Command::Simulate(args) => simulate::run(&ctx, &args),
        Command::Capacity(args) => capacity::run(&ctx, &args),
        Command::Diff(args) => diff::run(&ctx, &args),
        Command::Doctor(args) => doctor::run(&ctx, &args),
        Command::Tree(args) => tree::run(&ctx, &args),
        Command::Lint(args) => lint::run(&ctx, &args),
        Command::Snapshot(args) => snapshot::run(&ctx, &args),
        Command::Version(args) => version::run(&ctx, &args),
        Command::Generate(args) => generate::run(&ctx, &args),
        Command::CompleteNames(args) => complete::run(&ctx, &args),
    }
}

/// What every command needs: flags, the color decision, and the output streams.
pub(crate) struct Context {
    pub global: GlobalArgs,
    pub color: ColorChoice,
    /// The color decision for stderr (a terminal of its own, or not).
    pub err_color: ColorChoice,
    stderr_is_terminal: bool,
}

impl Context {
    fn new(global: GlobalArgs) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let color = ColorChoice::decide(global.color, std::io::stdout().is_terminal(), no_color);
        let stderr_is_terminal = std::io::stderr().is_terminal();
        let err_color = ColorChoice::decide(global.color, stderr_is_terminal, no_color);
        Self {
            global,
            color,
            err_color,
            stderr_is_terminal,
        }
    }

    /// Writes `bytes` to stderr (warnings, assumptions and notes in text mode).
    pub fn stderr(&self, bytes: &[u8]) -> Result<(), Error> {
        let mut err = std::io::stderr().lock();
        err.write_all(bytes)?;
        err.flush()?;
        Ok(())
    }

    /// True when `-n` (and not `-A`) narrows the report to one namespace: tables hide the
    /// NAMESPACE column, as kubectl does.
    pub fn one_namespace(&self, snapshot: &Snapshot) -> bool {
        !self.global.all_namespaces && self.namespace_scope(snapshot).is_some()
    }

    /// Writes `bytes` to stdout.
    pub fn stdout(&self, bytes: &[u8]) -> Result<(), Error> {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)?;
        out.flush()?;
        Ok(())
    }

    /// `--feature-gates`, parsed.
    pub fn gate_overrides(&self) -> Result<BTreeMap<String, bool>, Error> {
        let mut out = BTreeMap::new();
        for spec in &self.global.feature_gates {
            let gates = parse_feature_gates(spec).map_err(|e| {
                Error::usage(
                    format!("invalid `--feature-gates`: {e}"),
                    "write `--feature-gates A=true,B=false`",
                )
            })?;
            check_gate_names(&gates).map_err(|e| {
                Error::usage(
                    e,
                    "gate names are case-sensitive; `kubectl wasctl version -o json` lists the 1.37 gates wasctl knows",
                )
            })?;
            out.extend(gates);
        }
        Ok(out)
    }

    /// True when the source is files or the demo (no kubeconfig namespace applies).
    pub fn is_offline(&self) -> bool {
        self.global.demo || !self.global.from.is_empty()
    }

    /// Loads the snapshot from the chosen source.
    pub fn load(&self) -> Result<Snapshot, Error> {
        let g = &self.global;
        if g.demo {
            return Ok(demo::load()?);
        }
        if !g.from.is_empty() {
            let mut collector = Collector::new();
            for path in &g.from {
                files::load_path(path, &mut collector)?;
            }
            // A `kubectl get … -o yaml` dump holds only the kinds it was asked for; a
            // `wasctl snapshot` file says what it holds in its ClusterFacts document.
            let partial = !collector.has_facts_document();
            let mut snapshot = collector.finish();
            snapshot.facts.from_files = partial;
            snapshot.stamp_time(k8s_openapi::jiff::Timestamp::now());
            snapshot.warnings.extend(missing_kinds(&snapshot));
            return Ok(snapshot);
        }
        let options = live::LiveOptions {
            kubeconfig: g.kubeconfig.clone(),
            context: g.context.clone(),
            namespace: g.namespace.clone(),
        };
        let show = self.stderr_is_terminal;
        let progress = move |msg: &str| {
            if show {
                let mut err = std::io::stderr().lock();
                let _ = write!(err, "\r\u{1b}[2K{msg}…");
                let _ = err.flush();
            }
        };
        let result = live::load(&options, &progress);
        if show {
            let _ = write!(std::io::stderr().lock(), "\r\u{1b}[2K");
        }
        let mut snapshot = result?;
        snapshot.warnings.extend(missing_kinds(&snapshot));
        Ok(snapshot)
    }

    /// The namespace to show: `None` for all (`-A`, or files/demo without `-n`).
    pub fn namespace_scope(&self, snapshot: &Snapshot) -> Option<String> {
        let g = &self.global;
        if g.all_namespaces {
            None
        } else if let Some(ns) = &g.namespace {
            Some(ns.clone())
        } else if self.is_offline() {
            None
        } else {
            Some(
                snapshot
                    .default_namespace
                    .clone()
                    .unwrap_or_else(|| "default".to_owned()),
            )
        }
    }
}

/// Parses `TYPE/NAME` into a kind and name. Accepts kubectl's plural, singular and short
/// forms and fully qualified names (`podgroups.scheduling.k8s.io/x`).
pub(crate) fn parse_target(target: &str) -> Result<(String, String), Error> {
    let hint = "write `TYPE/NAME` with TYPE one of `workload`, `compositepodgroup` (`cpg`), `podgroup` (`pg`), `pod`, `job`, `resourceclaim`";
    let Some((kind, name)) = target.split_once('/') else {
        return Err(Error::usage(
            format!("`{target}` is not of the form `TYPE/NAME`"),
            hint,
        ));
    };
    let short = kind
        .split_once('.')
        .map_or(kind, |(k, _)| k)
        .to_ascii_lowercase();
    let kind = match short.as_str() {
        "workload" | "workloads" | "wl" => "Workload",
        "compositepodgroup" | "compositepodgroups" | "cpg" | "cpgs" => "CompositePodGroup",
        "podgroup" | "podgroups" | "pg" | "pgs" => "PodGroup",
        "pod" | "pods" | "po" => "Pod",
        "job" | "jobs" => "Job",
        "resourceclaim" | "resourceclaims" | "claim" | "claims" => "ResourceClaim",
        _ => {
            return Err(Error::usage(
                format!("unknown type `{kind}` in `{target}`"),
                hint,
            ));
        }
    };
    if name.is_empty() || name.contains('/') {
        return Err(Error::usage(
            format!("`{target}` has no valid name after `/`"),
            hint,
        ));
    }
    Ok((kind.to_owned(), name.to_owned()))
}

/// Finds the namespace of a target: `-n`, else the only namespace holding such an object.
pub(crate) fn resolve_target(
    ctx: &Context,
    s: &Snapshot,
    kind: &str,
    name: &str,
) -> Result<ObjRef, Error> {
    let exists = |ns: &str| match kind {
        "Workload" => s.workload(ns, name).is_some(),
        "CompositePodGroup" => s.composite_pod_group(ns, name).is_some(),
        "PodGroup" => s.pod_group(ns, name).is_some(),
        "Pod" => s.pod(ns, name).is_some(),
        "Job" => s.job(ns, name).is_some(),
        "ResourceClaim" => s.resource_claim(ns, name).is_some(),
        _ => false,
    };
    let scope = if ctx.global.all_namespaces {
        None
    } else {
        ctx.namespace_scope(s)
    };
    let not_found = |where_: String| {
        Error::usage(
            format!("{kind} `{name}` not found{where_}"),
            "check the name with `kubectl wasctl tree -A`, or pass `-n NAMESPACE`",
        )
    };
    if let Some(ns) = scope {
        return if exists(&ns) {
            Ok(ObjRef::new(kind, &ns, name))
        } else {
            Err(not_found(format!(" in namespace `{ns}`")))
        };
    }
    let mut namespaces: Vec<String> = s.namespaces_in_use();
    namespaces.retain(|ns| exists(ns));
    match namespaces.as_slice() {
        [ns] => Ok(ObjRef::new(kind, ns, name)),
        [] => Err(not_found(String::new())),
        many => Err(Error::usage(
            format!(
                "{kind} `{name}` exists in several namespaces: {}",
                many.join(", ")
            ),
            "pass `-n NAMESPACE`",
        )),
    }
}
