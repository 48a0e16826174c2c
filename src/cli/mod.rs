//! The command line: clap definitions, kubectl-style global flags, and the glue that runs
//! source → analysis → view for each command. Only this module writes to stdout and stderr.

mod capacity;
mod complete;
mod diff;
mod doctor;
mod explain;
mod format;
mod generate;
mod kueue_config;
mod lint;
mod mcp;
mod output_file;
mod profile;
mod scheduler_config;
mod shadow;
mod simulate;
mod snapshot;
mod tree;
mod tui;
mod version;
mod watch;

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::error::{Error, ExitStatus};
use crate::render::color::{ColorChoice, ColorFlag};
use crate::render::notes::Verbosity;
use crate::sched::selector::LabelSelector;
use crate::snapshot::ObjRef;
use crate::snapshot::completeness::{missing_kinds, nodes_without_allocatable};
use crate::snapshot::facts::{check_gate_names, parse_feature_gates};
use crate::snapshot::source::{Collector, demo, files, live};
use crate::snapshot::{KindCoverage, ObjKind, Snapshot};

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
    /// The command to run (none: a short usage).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// What `kubectl wasctl` with no arguments prints: the five most useful commands.
pub(crate) const SHORT_USAGE: &str = "\
kubectl wasctl: see, simulate and explain Kubernetes 1.37 Workload-Aware Scheduling.

Most used:
  kubectl wasctl simulate -A              where every pending gang would land, and who it evicts
  kubectl wasctl explain pg/NAME          why a gang is unschedulable, with the numbers and fixes
  kubectl wasctl tree -A                  Workload -> PodGroup -> Pod -> ResourceClaim, with status
  kubectl wasctl doctor -A                orphans, dangling references, version and gate skew
  kubectl wasctl lint manifests/          check manifests before `kubectl apply`

Try any of them on the built-in demo cluster with `--demo`, or on a dump with `--from FILE`.
More: `kubectl wasctl --help`, `kubectl wasctl COMMAND --help`.
";

/// Flags shared by every command, named as kubectl names them.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Global flags")]
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
    /// The cluster's own KubeSchedulerConfiguration, for every command that simulates: a
    /// file (as kube-scheduler's `--config` takes it) or `configmap/NAMESPACE/NAME[:KEY]`
    /// (default: a KubeSchedulerConfiguration document inside `--from`, else the default
    /// profile).
    #[arg(long, global = true, value_name = "SOURCE")]
    pub scheduler_config: Option<String>,
    /// Kueue's own manager Configuration (`config.kueue.x-k8s.io`), for every command that
    /// simulates Kueue's admission: a file or `configmap/NAMESPACE/NAME[:KEY]` (default: a
    /// Configuration document inside `--from`; live, `kueue-system/kueue-manager-config`
    /// when the cluster serves Kueue's API; else Kueue's defaults).
    #[arg(long, global = true, value_name = "SOURCE")]
    pub kueue_config: Option<String>,
    /// When to use colors.
    #[arg(long, global = true, value_enum, default_value_t = ColorFlag::Auto)]
    pub color: ColorFlag,
    /// Print errors only on stderr: no warnings, `assumed:` facts, notes or progress (the
    /// report on stdout and the exit code are unchanged).
    #[arg(short = 'q', long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print every modelling note the command may meet, not only those that could have
    /// changed this run's answer (the list: docs/fidelity.md, "Notes").
    #[arg(long, global = true)]
    pub verbose: bool,
    /// The address of the Kubernetes API server (instead of the kubeconfig's).
    #[arg(long, global = true, value_name = "URL")]
    pub server: Option<String>,
    /// Bearer token for authentication to the API server (instead of the kubeconfig's).
    #[arg(long, global = true, value_name = "TOKEN")]
    pub token: Option<String>,
    /// Username to impersonate for the operation.
    #[arg(long = "as", global = true, value_name = "USER")]
    pub impersonate: Option<String>,
    /// Group to impersonate for the operation; repeatable.
    #[arg(long = "as-group", global = true, value_name = "GROUP")]
    pub impersonate_groups: Vec<String>,
    /// The longest one request to the API server may take, as kubectl's flag (`30s`, `2m`;
    /// a bare number is seconds; `0` waits forever) [default: 60s].
    #[arg(long, global = true, value_name = "DURATION")]
    pub request_timeout: Option<String>,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Say why a gang is (or would be) unschedulable, with the numbers and verified fixes.
    #[command(after_help = "Examples:
  # Why is the gang `train` not running?
  kubectl wasctl explain pg/train -n ml
  # The same, as JSON for scripts (kind: Diagnosis)
  kubectl wasctl explain podgroup train -n ml -o json
  # Every group of a Job's Workload; exit 1 when one cannot be placed
  kubectl wasctl explain job/train -n ml --exit-code
  # Would it fit after draining a node, or with two more nodes like gpu-a1?
  kubectl wasctl explain pg/train -n ml --drain gpu-b1 --add-nodes 2 --like gpu-a1
  # On the built-in demo cluster
  kubectl wasctl explain pg/big-train-workers --demo")]
    Explain(explain::ExplainArgs),
    /// Dry-run kube-scheduler 1.37 over the snapshot: where every pending gang would land.
    #[command(after_help = "Examples:
  # Every pending unit of the cluster, in queue order
  kubectl wasctl simulate -A
  # From a dump (`kubectl wasctl snapshot -A -o yaml > dump.yaml`)
  kubectl wasctl simulate --from dump.yaml
  # One gang, with the devices it would get
  kubectl wasctl simulate --only pg/train -n ml --devices
  # What-ifs: drain a node and add a new job's manifests
  kubectl wasctl simulate --drain gpu-a1 --add new-job.yaml
  # More columns; or only names for scripts
  kubectl wasctl simulate --demo -o wide
  kubectl wasctl simulate -A -l team=llm -o name")]
    Simulate(simulate::SimulateArgs),
    /// Count how many more copies of a gang fit, and where; what stops the next copy.
    #[command(after_help = "Examples:
  # How many more copies of the gang `train` fit, with and without preemption, per domain
  kubectl wasctl capacity pg/train -n ml
  # After draining a node: how many fewer, and which running gangs are displaced
  kubectl wasctl capacity pg/train -n ml --drain gpu-a1
  # On the demo, as JSON (kind: CapacityReport)
  kubectl wasctl capacity pg/infer-a --demo -o json")]
    Capacity(capacity::CapacityArgs),
    /// Compare the plans of two snapshots: which units changed and which changes caused it.
    #[command(after_help = "Examples:
  # What changed between yesterday's and today's dump (exit 1 when a unit became unschedulable)
  kubectl wasctl diff --from old.yaml --to new.yaml
  # A dump against the live cluster
  kubectl wasctl diff --from old.yaml
  # As JSON (kind: PlanDiff)
  kubectl wasctl diff --from old.yaml --to new.yaml -o json")]
    Diff(diff::DiffArgs),
    /// Find what is broken or leaking in the cluster: orphans, skew, gang health, DRA (`WASD###`).
    #[command(after_help = "Examples:
  # Every check over the whole cluster
  kubectl wasctl doctor -A
  # In CI: exit 1 on warnings too
  kubectl wasctl doctor -n ml --fail-on warning
  # Only some checks, as JSON (kind: DoctorReport)
  kubectl wasctl doctor --only WASD001,WASD012 -o json
  # What each check looks for
  kubectl wasctl doctor --list-checks")]
    Doctor(doctor::DoctorArgs),
    /// Show Workload → CompositePodGroup → PodGroup → Pod → ResourceClaim with status.
    #[command(after_help = "Examples:
  # Every Workload, group, pod and claim
  kubectl wasctl tree -A
  # One object's chain, up to its Workload (TYPE/NAME or TYPE NAME)
  kubectl wasctl tree pg/train -n ml
  kubectl wasctl tree pod train-0 -n ml
  # What runs on a node, by gang and claim
  kubectl wasctl tree node/gpu-a1
  # Only what is labelled, with more columns
  kubectl wasctl tree -A -l app=train -o wide")]
    Tree(tree::TreeArgs),
    /// Check manifests against the 1.37 WAS validation and cross-object rules (`WAS###`).
    #[command(after_help = "Examples:
  # Every manifest under a directory
  kubectl wasctl lint manifests/
  # Files as `kubectl apply -f` takes them, as JSON
  kubectl wasctl lint -f podgroup.yaml -f job.yaml -o json
  # From stdin
  helm template chart/ | kubectl wasctl lint -")]
    Lint(lint::LintArgs),
    /// Write the loaded objects and cluster facts to one file that `--from` reads back.
    #[command(after_help = "Examples:
  # A complete dump of everything wasctl reads (the input for --from and bug reports)
  kubectl wasctl snapshot -A -o yaml > dump.yaml
  kubectl wasctl simulate --from dump.yaml")]
    Snapshot(snapshot::SnapshotArgs),
    /// Browse groups, pending units, nodes, findings and explanations in an interactive terminal UI.
    #[command(after_help = "Examples:
  # The embedded demo cluster (`?` lists the keys, `q` quits)
  kubectl wasctl tui --demo
  # The current context's namespace ml, listed once and watched (changes show as they happen)
  kubectl wasctl tui -n ml
  # A saved dump, opened on one PodGroup
  kubectl wasctl tui --from cluster.yaml --select pg/big-train-workers -n ml")]
    Tui(tui::TuiArgs),
    /// Predict every pending gang, then watch what the cluster's scheduler does and score each prediction.
    #[command(after_help = "Examples:
  # Predict, watch and score every pending unit of the namespace ml (Ctrl-C: the summary)
  kubectl wasctl shadow -n ml
  # Every namespace; a unit still pending after 5 minutes is undecided; a summary every hour
  kubectl wasctl shadow -A --undecided-after 5m --summary-every 1h
  # For dashboards: one ShadowEvent or ShadowReport object per line
  kubectl wasctl shadow -A -o json")]
    Shadow(shadow::ShadowArgs),
    /// Print the version, commit and supported Kubernetes version.
    #[command(after_help = "Examples:
  kubectl wasctl version
  # With the feature gates `--feature-gates` accepts
  kubectl wasctl version -o json")]
    Version(version::VersionArgs),
    /// Print the scheduler configuration the simulator uses (defaults applied), from a file, a ConfigMap or `--from`.
    #[command(after_help = "Examples:
  # kube-scheduler 1.37's default profile, every plugin and weight spelled out
  kubectl wasctl scheduler-config
  # A file, as kube-scheduler's --config takes it, validated and defaulted
  kubectl wasctl scheduler-config sched.yaml
  # The configuration a secondary scheduler mounts from a ConfigMap, as JSON
  kubectl wasctl scheduler-config configmap/kube-system/gpu-scheduler-config:config.yaml -o json
  # Simulate with it
  kubectl wasctl simulate -A --scheduler-config sched.yaml")]
    SchedulerConfig(scheduler_config::SchedulerConfigArgs),
    /// Print Kueue's manager configuration the admission simulation uses (v1beta2, defaults applied), from a file, a ConfigMap, `--from` or the cluster.
    #[command(after_help = "Examples:
  # The cluster's Kueue configuration (kueue-system/kueue-manager-config), or Kueue's defaults
  kubectl wasctl kueue-config
  # A file, as Kueue's --config takes it (v1beta1 is converted), validated and defaulted
  kubectl wasctl kueue-config kueue-config.yaml
  # Another ConfigMap, as JSON
  kubectl wasctl kueue-config configmap/kueue/kueue-manager-config -o json
  # Simulate with it
  kubectl wasctl simulate -A --kueue-config kueue-config.yaml")]
    KueueConfig(kueue_config::KueueConfigArgs),
    /// Serve simulate, explain, tree, doctor, capacity, diff and lint as MCP tools over stdio, for agents (read-only).
    #[command(after_help = "Examples:
  # The current kubeconfig context, for an agent's MCP configuration (command + args)
  kubectl wasctl mcp
  # Another context and namespace
  kubectl wasctl mcp --context prod -n ml
  # A saved dump, or the built-in demo cluster
  kubectl wasctl mcp --from dump.yaml
  kubectl wasctl mcp --demo")]
    Mcp(mcp::McpArgs),
    /// Print the shell completion script for bash, zsh, fish or PowerShell.
    Completion(complete::CompletionArgs),
    /// Write or check the shipped completions and man pages (for maintainers).
    #[command(hide = true)]
    Generate(generate::GenerateArgs),
    /// Answer a shell's completion request (cobra's `__complete` protocol).
    #[command(name = "__complete", hide = true)]
    Complete(complete::CompleteArgs),
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
    profile::start();
    let ctx = Context::new(cli.global);
    let Some(command) = cli.command else {
        ctx.stdout(SHORT_USAGE.as_bytes())?;
        return Ok(ExitStatus::Success);
    };
    let result = dispatch(&ctx, command);
    profile::phase("done");
    result
}

/// Runs one command with `ctx` (the MCP server runs its tools' commands through it too).
fn dispatch(ctx: &Context, command: Command) -> Result<ExitStatus, Error> {
    match command {
        Command::Explain(args) => explain::run(ctx, &args),
        // `--watch` is its own loop over the simulation (cli::watch uses cli::simulate).
        Command::Simulate(args) if args.watch => watch::simulate(ctx, &args),
        Command::Simulate(args) => simulate::run(ctx, &args),
        Command::Capacity(args) => capacity::run(ctx, &args),
        Command::Diff(args) => diff::run(ctx, &args),
        Command::Doctor(args) => doctor::run(ctx, &args),
        Command::Tree(args) => tree::run(ctx, &args),
        Command::Lint(args) => lint::run(ctx, &args),
        Command::Snapshot(args) => snapshot::run(ctx, &args),
        Command::Tui(args) => tui::run(ctx, &args),
        Command::Shadow(args) => shadow::run(ctx, &args),
        Command::Version(args) => version::run(ctx, &args),
        Command::SchedulerConfig(args) => scheduler_config::run(ctx, &args),
        Command::KueueConfig(args) => kueue_config::run(ctx, &args),
        Command::Mcp(args) => mcp::run(ctx, &args),
        Command::Completion(args) => complete::run_completion(ctx, &args),
        Command::Generate(args) => generate::run(ctx, &args),
        Command::Complete(args) => complete::run(ctx, &args),
    }
}

/// [`Context::width`]'s decision: `COLUMNS` (a positive number) first, then the terminal's
/// width when stdout is a terminal.
fn width_from(
    columns: Option<&str>,
    is_terminal: bool,
    terminal: impl FnOnce() -> Option<usize>,
) -> Option<usize> {
    if let Some(n) = columns
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|n| *n > 0)
    {
        return Some(n);
    }
    if is_terminal {
        terminal().filter(|n| *n > 0)
    } else {
        None
    }
}

/// Leaves `value` to the operating system instead of freeing it, at the end of a one-shot
/// command (the process exits when the command returns): freeing a 150,000-pod snapshot and
/// its plan object by object took about a second of the L dump's `simulate` (7.7 → 6.6 s).
pub(crate) fn release<T>(value: T) {
    std::mem::forget(value);
}

/// Stdout as a stream (see [`Context::stdout_stream`]): once the reader has gone away, the
/// rest of the output is dropped and no error is reported.
pub(crate) struct StdoutStream<'a> {
    closed: &'a std::sync::atomic::AtomicBool,
    out: std::io::BufWriter<std::io::StdoutLock<'static>>,
}

impl StdoutStream<'_> {
    fn quiet(&self, r: std::io::Result<()>) -> std::io::Result<()> {
        match r {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed
                    .store(true, std::sync::atomic::Ordering::Relaxed);
                Ok(())
            }
            other => other,
        }
    }

    fn is_closed(&self) -> bool {
        self.closed.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Flushes what is buffered.
    pub(crate) fn finish(mut self) -> std::io::Result<()> {
        if self.is_closed() {
            return Ok(());
        }
        let r = self.out.flush();
        self.quiet(r)
    }
}

impl Write for StdoutStream<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.is_closed() {
            return Ok(buf.len());
        }
        let r = self.out.write_all(buf);
        self.quiet(r).map(|()| buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.is_closed() {
            return Ok(());
        }
        let r = self.out.flush();
        self.quiet(r)
    }
}

/// What every command needs: flags, the color decision, and the output streams.
pub(crate) struct Context {
    pub global: GlobalArgs,
    pub color: ColorChoice,
    /// The color decision for stderr (a terminal of its own, or not).
    pub err_color: ColorChoice,
    stderr_is_terminal: bool,
    /// Set once stdout turned out to be a closed pipe (`wasctl … | head`): later output is
    /// dropped quietly and the command still returns the status of what it found.
    stdout_closed: std::sync::atomic::AtomicBool,
    /// Where stdout goes instead of the process's (the MCP server's calls): `None` writes it.
    capture: Option<Capture>,
    /// Where [`Context::load`] takes its snapshot from instead of reading the source itself
    /// (the MCP server's cache).
    snapshots: Option<std::sync::Arc<dyn SnapshotSource>>,
}

/// A command's stdout, kept instead of written: the JSON document of `stdout_json` as a
/// value (serialized once), other bytes as they are.
#[derive(Default)]
pub(crate) struct Capture {
    json: std::sync::Mutex<Option<serde_json::Value>>,
    bytes: std::sync::Mutex<Vec<u8>>,
}

impl Capture {
    /// What the command wrote: its JSON document, or its bytes read as JSON.
    pub(crate) fn take(&self) -> Result<serde_json::Value, String> {
        let json = self
            .json
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(doc) = json {
            return Ok(doc);
        }
        let bytes = std::mem::take(
            &mut *self
                .bytes
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        serde_json::from_slice(&bytes).map_err(|e| {
            format!(
                "the command's output is not a JSON document ({e}): {}",
                crate::sanitize::sanitize(&String::from_utf8_lossy(&bytes))
            )
        })
    }
}

/// A source of snapshots that [`Context::load`] asks instead of reading the flags' source
/// each time (the MCP server keeps one per server, or for a few seconds on a live cluster).
pub(crate) trait SnapshotSource: Send + Sync {
    /// The snapshot `ctx`'s flags name; [`Context::load_fresh`] reads it anew.
    fn load(&self, ctx: &Context) -> Result<Snapshot, Error>;
}

impl Context {
    fn new(global: GlobalArgs) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let color = ColorChoice::decide(global.color, std::io::stdout().is_terminal(), no_color);
        // `-q`: no progress lines either.
        let stderr_is_terminal = std::io::stderr().is_terminal() && !global.quiet;
        let err_color = ColorChoice::decide(global.color, stderr_is_terminal, no_color);
        Self {
            global,
            color,
            err_color,
            stderr_is_terminal,
            stdout_closed: std::sync::atomic::AtomicBool::new(false),
            capture: None,
            snapshots: None,
        }
    }

    /// A context whose stdout is kept in `capture` and whose snapshots come from `snapshots`.
    pub(crate) fn captured(
        global: GlobalArgs,
        capture: Capture,
        snapshots: std::sync::Arc<dyn SnapshotSource>,
    ) -> Self {
        Self {
            capture: Some(capture),
            snapshots: Some(snapshots),
            ..Self::new(global)
        }
    }

    /// What a captured context's command wrote to stdout.
    pub(crate) fn captured_output(&self) -> Result<serde_json::Value, String> {
        match &self.capture {
            Some(c) => c.take(),
            None => Err("the command's output was not kept".to_owned()),
        }
    }

    /// Writes a report as `-o` asks: the text view on stdout with its warnings and notes on
    /// stderr, or the `kind` envelope as JSON or YAML on stdout (notes inside the report).
    /// A kubectl template (`-o jsonpath=…`, `-o custom-columns=…`) runs on the JSON document;
    /// custom columns take their rows from the array at `rows` (the whole report when `None`).
    pub(crate) fn write_report<T: serde::Serialize>(
        &self,
        format: &format::ReportOutput,
        (kind, rows): (&'static str, Option<&'static str>),
        report: &T,
        text: impl FnOnce(&mut Vec<u8>, crate::render::color::Styler) -> std::io::Result<()>,
        notes: impl FnOnce(&mut Vec<u8>, Verbosity, crate::render::color::Styler) -> std::io::Result<()>,
    ) -> Result<(), Error> {
        use crate::render::json::{Envelope, write_yaml};
        let format = match format {
            format::ReportOutput::Plain(f) => *f,
            format::ReportOutput::Template(t) => {
                return self.write_template(t, kind, report, |doc| match rows {
                    Some(key) => format::rows_at(doc, key),
                    None => vec![doc],
                });
            }
        };
        let mut out = Vec::new();
        match format {
            ReportFormat::Text => {
                text(&mut out, self.color.styler())?;
                // Prose wraps at the terminal's width (lines in columns are cut instead).
                let whole = String::from_utf8_lossy(&out);
                out = crate::render::fit::fit_prose(&whole, self.width()).into_bytes();
                let mut err = Vec::new();
                notes(&mut err, self.verbosity(), self.err_color.styler())?;
                self.stderr(&err)?;
            }
            ReportFormat::Json => return self.stdout_json(&Envelope::new(kind, report)),
            ReportFormat::Yaml => write_yaml(&mut out, &Envelope::new(kind, report))?,
        }
        self.stdout(&out)
    }

    /// How much to say beside the report: `-q`, `--verbose`, or the notes this run met.
    pub(crate) fn verbosity(&self) -> Verbosity {
        if self.global.quiet {
            Verbosity::Quiet
        } else if self.global.verbose {
            Verbosity::Verbose
        } else {
            Verbosity::Normal
        }
    }

    /// Writes `bytes` to stderr (warnings, assumptions and notes in text mode); nothing with
    /// `-q`, which leaves stderr to errors (written by `main`).
    pub(crate) fn stderr(&self, bytes: &[u8]) -> Result<(), Error> {
        if self.global.quiet {
            return Ok(());
        }
        let mut err = std::io::stderr().lock();
        err.write_all(bytes)?;
        err.flush()?;
        Ok(())
    }

    /// The width text output fits (the one width source of every renderer): `COLUMNS` when
    /// set to a number, even on a pipe (an explicit request: shells do not export it
    /// themselves); else the terminal's, when stdout is one; else `None`, and tables and
    /// prose print whole, as kubectl prints to a pipe.
    pub(crate) fn width(&self) -> Option<usize> {
        width_from(
            std::env::var("COLUMNS").ok().as_deref(),
            std::io::stdout().is_terminal(),
            || {
                crossterm::terminal::size()
                    .ok()
                    .map(|(cols, _)| usize::from(cols))
            },
        )
    }

    /// True when `-n` (and not `-A`) narrows the report to one namespace: tables hide the
    /// NAMESPACE column, as kubectl does.
    pub(crate) fn one_namespace(&self, snapshot: &Snapshot) -> bool {
        !self.global.all_namespaces && self.namespace_scope(snapshot).is_some()
    }

    /// Writes `bytes` to stdout. A closed pipe (the reader went away, as `head` does) ends the
    /// output quietly: it is not an error, so the command's exit status stays that of its
    /// findings (`lint BAD | head -1` still fails).
    pub(crate) fn stdout(&self, bytes: &[u8]) -> Result<(), Error> {
        if let Some(c) = &self.capture {
            c.bytes
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .extend_from_slice(bytes);
            return Ok(());
        }
        let mut out = self.stdout_stream();
        out.write_all(bytes)?;
        Ok(out.finish()?)
    }

    /// Writes a report as pretty JSON to stdout, streamed: the L dump's plan is 190 MB of
    /// JSON, which a buffer would hold whole (and twice while it grew).
    pub(crate) fn stdout_json<T: serde::Serialize>(&self, report: &T) -> Result<(), Error> {
        if let Some(c) = &self.capture {
            let doc = serde_json::to_value(report).map_err(std::io::Error::other)?;
            *c.json
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(doc);
            return Ok(());
        }
        let mut out = self.stdout_stream();
        crate::render::json::write_json(&mut out, report)?;
        Ok(out.finish()?)
    }

    /// A buffered writer to stdout that ends quietly on a closed pipe, as [`Context::stdout`]
    /// does. Call [`StdoutStream::finish`] at the end to flush.
    pub(crate) fn stdout_stream(&self) -> StdoutStream<'_> {
        StdoutStream {
            closed: &self.stdout_closed,
            out: std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock()),
        }
    }

    /// `--feature-gates`, parsed.
    pub(crate) fn gate_overrides(&self) -> Result<BTreeMap<String, bool>, Error> {
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
    pub(crate) fn is_offline(&self) -> bool {
        self.global.demo || !self.global.from.is_empty()
    }

    /// Loads the snapshot from the chosen source, with `--scheduler-config` and
    /// `--kueue-config` on it.
    pub(crate) fn load(&self) -> Result<Snapshot, Error> {
        match &self.snapshots {
            Some(source) => source.load(self),
            None => self.load_fresh(),
        }
    }

    /// Reads the snapshot from the flags' source, as [`Context::load`] does without a
    /// [`SnapshotSource`].
    pub(crate) fn load_fresh(&self) -> Result<Snapshot, Error> {
        let mut snapshot = self.load_objects()?;
        scheduler_config::apply(self, &mut snapshot)?;
        kueue_config::apply(self, &mut snapshot)?;
        Ok(snapshot)
    }

    /// The live source's options from the global flags.
    pub(crate) fn live_options(&self) -> Result<live::LiveOptions, Error> {
        let g = &self.global;
        let request_timeout = match &g.request_timeout {
            Some(text) => live::parse_request_timeout(text).map_err(|e| {
                Error::usage(
                    format!("invalid `--request-timeout`: {e}"),
                    "write `--request-timeout 30s` (or `0` for no limit)",
                )
            })?,
            None => Some(live::DEFAULT_REQUEST_TIMEOUT),
        };
        // A value an HTTP header cannot carry (a line break) is a usage error here, before
        // it becomes "cannot reach the API server".
        for (flag, values) in [
            ("--as", g.impersonate.iter().collect::<Vec<_>>()),
            ("--as-group", g.impersonate_groups.iter().collect()),
            ("--token", g.token.iter().collect()),
        ] {
            if values
                .iter()
                .any(|v| http::HeaderValue::from_str(v).is_err())
            {
                return Err(Error::usage(
                    format!(
                        "invalid {flag} value: it holds a line break or another control character, which an HTTP header cannot carry"
                    ),
                    format!("give {flag} the value on one line, without control characters"),
                ));
            }
        }
        Ok(live::LiveOptions {
            kubeconfig: g.kubeconfig.clone(),
            context: g.context.clone(),
            namespace: g.namespace.clone(),
            server: g.server.clone(),
            token: g.token.clone(),
            impersonate: g.impersonate.clone(),
            impersonate_groups: g.impersonate_groups.clone(),
            // A watch may stay silent as long as one request may take, when that is given.
            watch_idle: match &g.request_timeout {
                Some(_) => request_timeout,
                None => Some(live::DEFAULT_WATCH_IDLE),
            },
            request_timeout,
            kueue_config: g.kueue_config.is_none(),
        })
    }

    /// Loads the objects from the chosen source.
    fn load_objects(&self) -> Result<Snapshot, Error> {
        let g = &self.global;
        if g.demo {
            let mut snapshot = demo::load()?;
            admit_own(&mut snapshot, &[], &self.gate_overrides()?)?;
            return Ok(snapshot);
        }
        if !g.from.is_empty() {
            // Bytes read of the file's size, on stderr when it is a terminal (never when piped).
            let show = self.stderr_is_terminal;
            let progress = move |read: u64, total: Option<u64>| {
                if show {
                    let mb = |b: u64| b / (1 << 20);
                    let mut err = std::io::stderr().lock();
                    let _ = match total {
                        Some(t) if t > 0 => write!(
                            err,
                            "\r\u{1b}[2Kloading {} of {} MB ({}%)…",
                            mb(read),
                            mb(t),
                            read.saturating_mul(100) / t
                        ),
                        _ => write!(err, "\r\u{1b}[2Kloading {} MB…", mb(read)),
                    };
                    let _ = err.flush();
                }
            };
            let mut collector = Collector::new();
            let loaded = g.from.iter().try_for_each(|path| {
                files::load_path_with_progress(path, &mut collector, &progress)
            });
            if show {
                let _ = write!(std::io::stderr().lock(), "\r\u{1b}[2K");
            }
            loaded?;
            profile::phase("read");
            // A `kubectl get … -o yaml` dump holds only the kinds it was asked for; a
            // `wasctl snapshot` file says what it holds in its ClusterFacts document.
            let partial = !collector.has_facts_document();
            let mut snapshot = collector.finish();
            snapshot.facts.from_files = partial;
            // A file with a ClusterFacts document (`wasctl snapshot`, or a fixture written
            // in its format) describes a cluster's state: its objects are taken as stored.
            if partial {
                admit_own(&mut snapshot, &g.from, &self.gate_overrides()?)?;
            }
            snapshot.stamp_time(k8s_openapi::jiff::Timestamp::now());
            snapshot.warnings.extend(missing_kinds(&snapshot));
            snapshot
                .warnings
                .extend(nodes_without_allocatable(&snapshot));
            snapshot
                .warnings
                .extend(crate::snapshot::times::implausible_warning(&snapshot));
            profile::phase("snapshot");
            return Ok(snapshot);
        }
        let options = self.live_options()?;
        let result = self.with_progress(|progress| live::load(&options, progress));
        self.checked_live(result?)
    }

    /// Runs a live load with its progress on one stderr line, shown only on a terminal and
    /// cleared when the load ends.
    fn with_progress<T>(&self, load: impl FnOnce(&(dyn Fn(&str) + Sync)) -> T) -> T {
        let show = self.stderr_is_terminal;
        let progress = move |msg: &str| {
            if show {
                let mut err = std::io::stderr().lock();
                let _ = write!(err, "\r\u{1b}[2K{msg}…");
                let _ = err.flush();
            }
        };
        let result = load(&progress);
        if show {
            let _ = write!(std::io::stderr().lock(), "\r\u{1b}[2K");
        }
        result
    }

    /// Loads the live cluster and keeps watching it (`--watch`), with `--scheduler-config`
    /// and `--kueue-config` on the snapshot.
    pub(crate) fn load_watched(&self) -> Result<(Snapshot, live::Watched), Error> {
        let options = self.live_options()?;
        let result = self.with_progress(|progress| live::load_watched(&options, progress));
        let (snapshot, watched) = result?;
        let mut snapshot = self.checked_live(snapshot)?;
        scheduler_config::apply(self, &mut snapshot)?;
        kueue_config::apply(self, &mut snapshot)?;
        Ok((snapshot, watched))
    }

    /// A listed snapshot with the loader's checks' warnings.
    fn checked_live(&self, mut snapshot: Snapshot) -> Result<Snapshot, Error> {
        snapshot.warnings.extend(missing_kinds(&snapshot));
        snapshot
            .warnings
            .extend(nodes_without_allocatable(&snapshot));
        snapshot
            .warnings
            .extend(crate::snapshot::times::implausible_warning(&snapshot));
        // Every listed object is stored: this only checks, and changes nothing.
        admit_own(&mut snapshot, &[], &self.gate_overrides()?)?;
        profile::phase("list");
        Ok(snapshot)
    }

    /// The namespace to show: `None` for all (`-A`, or files/demo without `-n`).
    pub(crate) fn namespace_scope(&self, snapshot: &Snapshot) -> Option<String> {
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

/// The input error for manifests the API server would refuse (exit 2), naming the files
/// they were read from.
pub(crate) fn refused(message: String, files: &[PathBuf]) -> Error {
    let from = files
        .iter()
        .map(|p| format!("`{}`", p.display()))
        .collect::<Vec<_>>()
        .join(", ");
    let message = if from.is_empty() {
        message
    } else {
        format!("{message}\n(read from {from})")
    };
    Error::usage(
        message,
        "the API server refuses such objects on create: a named PriorityClass or RuntimeClass must exist (add it to the input), and `priority`/`preemptionPolicy` are best left unset (admission fills them from the class); objects with `metadata.uid` are taken as stored and not admitted",
    )
}

/// Admits the manifests among a loaded snapshot's own objects ([`crate::admit`]) and records
/// what changed in it; a manifest the API server would refuse is an input error.
fn admit_own(
    snapshot: &mut Snapshot,
    files: &[PathBuf],
    gate_overrides: &BTreeMap<String, bool>,
) -> Result<(), Error> {
    let admission = crate::admit::admit_with_gates(snapshot, None, gate_overrides);
    if let Some(message) = admission.refusal_message() {
        return Err(refused(message, files));
    }
    admission.record(snapshot);
    Ok(())
}

/// A Kueue object whose quota cannot be read (a quantity that is not one): an input error
/// naming the object and field.
pub(crate) fn kueue_error(e: crate::kueue::quota::QuotaError) -> Error {
    Error::usage(
        e.0,
        "fix the quantity (`kubectl explain clusterqueue.spec.resourceGroups.flavors.resources`)",
    )
}

/// Refuses to simulate without the kinds every placement depends on: nodes and pods. An
/// unreadable kind (forbidden, failed) is a cluster access error (exit 3); a kind missing from
/// the input files is an input error (exit 2). Never "0/0 nodes are available" from a dump
/// that simply holds no nodes.
pub(crate) fn require_nodes_and_pods(s: &Snapshot) -> Result<(), Error> {
    for (kind, plural) in [("Node", "nodes"), ("Pod", "pods")] {
        match s.coverage(kind) {
            KindCoverage::Complete | KindCoverage::Namespace { .. } => {}
            KindCoverage::NotInInput => {
                // A snapshot cut short before its pods: that is the news, not a dump to redo.
                let hint = match s.warnings.iter().find(|w| w.code == "TruncatedSnapshot") {
                    Some(w) => w.message.clone(),
                    None => format!(
                        "add them (`kubectl get {plural} -A -o yaml`), or make a complete dump with `kubectl wasctl snapshot -A -o yaml > dump.yaml`"
                    ),
                };
                return Err(Error::usage(
                    format!(
                        "the input holds no {kind} objects: a simulation needs every {kind} of the cluster"
                    ),
                    hint,
                ));
            }
            KindCoverage::Unreadable { reason } => {
                // The hint fits what happened: RBAC only for a 403 (issue 46).
                return Err(Error::Incomplete {
                    message: format!("cannot simulate: {plural} could not be read: {reason}"),
                    hint: Some(live::unreadable_hint(&reason, plural)),
                });
            }
        }
    }
    Ok(())
}

/// `-l/--selector`, as kubectl spells it.
#[derive(Debug, Clone, Default, Args)]
pub struct SelectorArgs {
    /// Only objects whose labels match (kubectl syntax: `app=train,tier!=cpu`, `team in (a,b)`, `!canary`).
    #[arg(short = 'l', long = "selector", value_name = "SELECTOR")]
    pub selector: Option<String>,
}

impl SelectorArgs {
    /// The compiled selector, if one was given.
    pub(crate) fn compile(&self) -> Result<Option<LabelSelector>, Error> {
        self.selector
            .as_deref()
            .map(|text| {
                LabelSelector::parse(text).map_err(|e| {
                    // Upstream's words (`labels.Parse`, what the API server answers kubectl).
                    Error::usage(
                        format!("invalid `--selector` `{text}`: {e}"),
                        "write `-l key=value`, `-l key!=value`, `-l 'key in (a,b)'`, `-l key` or `-l '!key'`, comma-separated; keys are label keys, values label values",
                    )
                })
            })
            .transpose()
    }
}

/// True when the object's labels match `selector` (an object without labels matches only
/// selectors that require no label).
pub(crate) fn labels_match(s: &Snapshot, selector: &LabelSelector, r: &ObjRef) -> bool {
    let empty = BTreeMap::new();
    selector.matches(s.labels_of(r).unwrap_or(&empty))
}

/// Parses a target given as one word `TYPE/NAME` or two words `TYPE NAME` (kubectl accepts
/// both).
pub(crate) fn parse_target_words(words: &[String]) -> Result<(ObjKind, String), Error> {
    match words {
        [one] => parse_target(one),
        [kind, name] if !kind.contains('/') && !name.contains('/') => {
            parse_target(&format!("{kind}/{name}"))
        }
        _ => Err(Error::usage(
            format!("`{}` is not a target", words.join(" ")),
            "write `TYPE/NAME` or `TYPE NAME`, e.g. `pg/train` or `pg train`",
        )),
    }
}

/// Parses `TYPE/NAME` into a kind and name. Accepts kubectl's plural, singular and short
/// forms and fully qualified names (`podgroups.scheduling.k8s.io/x`). A group, when given,
/// decides: `workloads.kueue.x-k8s.io/x` is Kueue's Workload (short `kwl`, as Kueue's CRD
/// names it), `workloads/x` and `workloads.scheduling.k8s.io/x` the native one.
pub(crate) fn parse_target(target: &str) -> Result<(ObjKind, String), Error> {
    let hint = "write `TYPE/NAME` with TYPE one of `workload`, `compositepodgroup` (`cpg`), `podgroup` (`pg`), `pod`, `job`, `resourceclaim`, `node`, or Kueue's `workloads.kueue.x-k8s.io` (`kwl`), `clusterqueue` (`cq`), `localqueue` (`lq`), `resourceflavor` (`rf`), `cohort`, or Volcano's `podgroups.scheduling.volcano.sh` (`vcpg`) and `jobs.batch.volcano.sh` (`vcjob`), or a YuniKorn `taskgroup/APP_ID:TASK_GROUP` (`tg`)";
    let Some((kind, name)) = target.split_once('/') else {
        return Err(Error::usage(
            format!("`{target}` is not of the form `TYPE/NAME`"),
            hint,
        ));
    };
    let Some(parsed) = parse_type(kind) else {
        return Err(Error::usage(
            format!("unknown type `{kind}` in `{target}`"),
            hint,
        ));
    };
    if name.is_empty() || name.contains('/') {
        return Err(Error::usage(
            format!("`{target}` has no valid name after `/`"),
            hint,
        ));
    }
    Ok((parsed, name.to_owned()))
}

/// The kind a kubectl-style type name (`pg`, `podgroups`, `workloads.kueue.x-k8s.io`) names,
/// if wasctl can target it. A group that does not serve the name is no match.
pub(crate) fn parse_type(word: &str) -> Option<ObjKind> {
    let lower = word.to_ascii_lowercase();
    let (short, group) = lower
        .split_once('.')
        .map_or((lower.as_str(), None), |(k, g)| (k, Some(g)));
    let kind = match short {
        "workload" | "workloads" if group == Some(crate::snapshot::kueue::GROUP) => {
            ObjKind::KueueWorkload
        }
        "workload" | "workloads" | "wl" => ObjKind::Workload,
        "compositepodgroup" | "compositepodgroups" | "cpg" | "cpgs" => ObjKind::CompositePodGroup,
        // Volcano's PodGroup only with its group, or as `vcpg` (its CRD's own short name `pg`
        // stays the native PodGroup's) or the CRD's `podgroup-v1beta1`.
        "podgroup" | "podgroups" if group == Some(crate::snapshot::volcano::GROUP) => {
            ObjKind::VolcanoPodGroup
        }
        "vcpg" | "vcpgs" | "podgroup-v1beta1" => ObjKind::VolcanoPodGroup,
        "queue" | "queues" if group == Some(crate::snapshot::volcano::GROUP) => {
            ObjKind::VolcanoQueue
        }
        // Volcano's Job only with its group, or as `vcjob` (its CRD's short names).
        "job" | "jobs" if group == Some(crate::snapshot::volcano::JOB_GROUP) => ObjKind::VolcanoJob,
        "vcjob" | "vcjobs" | "vj" => ObjKind::VolcanoJob,
        // A YuniKorn task group has no API object: `taskgroup/APP_ID:TASK_GROUP`.
        "taskgroup" | "taskgroups" | "tg" => ObjKind::YunikornTaskGroup,
        "podgroup" | "podgroups" | "pg" | "pgs" => ObjKind::PodGroup,
        "pod" | "pods" | "po" => ObjKind::Pod,
        "job" | "jobs" => ObjKind::Job,
        "resourceclaim" | "resourceclaims" | "claim" | "claims" => ObjKind::ResourceClaim,
        "node" | "nodes" | "no" => ObjKind::Node,
        // Kueue's short names are its CRDs' (`kubebuilder:resource:shortName`).
        "kwl" | "kueueworkload" | "kueueworkloads" => ObjKind::KueueWorkload,
        "clusterqueue" | "clusterqueues" | "cq" => ObjKind::ClusterQueue,
        "localqueue" | "localqueues" | "lq" | "queue" | "queues" => ObjKind::LocalQueue,
        "resourceflavor" | "resourceflavors" | "rf" | "flavor" | "flavors" => {
            ObjKind::ResourceFlavor
        }
        "cohort" | "cohorts" | "co" => ObjKind::Cohort,
        _ => return None,
    };
    match (group, kind.group()) {
        (None, _) => Some(kind),
        (Some(g), Some("")) => (g == "v1" || g.is_empty()).then_some(kind),
        (Some(g), Some(served)) => (g == served).then_some(kind),
        (Some(_), None) => None,
    }
}

/// Finds the namespace of a target: `-n`, else the only namespace holding such an object.
pub(crate) fn resolve_target(
    ctx: &Context,
    s: &Snapshot,
    kind: &ObjKind,
    name: &str,
) -> Result<ObjRef, Error> {
    let exists = |ns: &str| {
        s.meta_of(&ObjRef::new(kind.clone(), ns, name)).is_some()
            || (*kind == ObjKind::YunikornTaskGroup && s.yunikorn_gang(ns, name).is_some())
    };
    if kind.is_cluster_scoped() {
        return if exists("") {
            Ok(ObjRef::new(kind.clone(), "", name))
        } else {
            Err(Error::usage(
                format!("{} `{name}` not found", kind.kind_name()),
                format!("check the name with `kubectl get {}`", kind.plural()),
            ))
        };
    }
    let scope = if ctx.global.all_namespaces {
        None
    } else {
        ctx.namespace_scope(s)
    };
    let not_found = |where_: String| {
        // An object doctor names as left in an unserved version (WASD107) is found, and said
        // to be stale in doctor's words, not "not found".
        let stale: Vec<&crate::snapshot::RawObject> = s
            .stale
            .iter()
            .filter(|o| {
                ObjKind::parse(&o.kind) == *kind
                    && crate::snapshot::name_of(&o.metadata) == name
                    && scope
                        .as_deref()
                        .is_none_or(|ns| crate::snapshot::namespace_of(&o.metadata) == ns)
            })
            .collect();
        if let [o] = stale.as_slice() {
            return Error::Stale {
                message: format!(
                    "{kind} `{}/{name}` is {} (doctor `WASD107`)",
                    crate::snapshot::namespace_of(&o.metadata),
                    crate::doctor::api_versions::leftover_message(o)
                ),
                hint: Some(crate::doctor::api_versions::leftover_hint(o)),
            };
        }
        Error::usage(
            format!("{kind} `{name}` not found{where_}"),
            "check the name with `kubectl wasctl tree -A`, or pass `-n NAMESPACE`",
        )
    };
    if let Some(ns) = &scope {
        if exists(ns) {
            return Ok(ObjRef::new(kind.clone(), ns, name));
        }
        // Named like kubectl's empty results (issue 45 item 6): the namespace searched, and
        // where the object is instead, so `capacity`, `tree` and `explain` do not leave the
        // user guessing.
        let mut elsewhere: Vec<String> = s.namespaces_in_use();
        elsewhere.retain(|other| other != ns && exists(other));
        return Err(match elsewhere.as_slice() {
            [] => not_found(format!(" in namespace `{ns}`")),
            [other] => Error::usage(
                format!(
                    "{kind} `{name}` not found in namespace `{ns}` (it is in namespace `{other}`)"
                ),
                format!("pass `-n {other}`, or `-A`"),
            ),
            many => Error::usage(
                format!(
                    "{kind} `{name}` not found in namespace `{ns}` (it is in namespaces {})",
                    many.join(", ")
                ),
                "pass `-n NAMESPACE`",
            ),
        });
    }
    let mut namespaces: Vec<String> = s.namespaces_in_use();
    namespaces.retain(|ns| exists(ns));
    match namespaces.as_slice() {
        [ns] => Ok(ObjRef::new(kind.clone(), ns, name)),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_width_is_columns_then_the_terminals_and_none_on_a_pipe() {
        assert_eq!(width_from(Some("100"), false, || Some(80)), Some(100));
        assert_eq!(width_from(Some("100"), true, || Some(80)), Some(100));
        assert_eq!(width_from(None, true, || Some(80)), Some(80));
        assert_eq!(width_from(Some("wide"), true, || Some(80)), Some(80));
        assert_eq!(width_from(Some("0"), false, || Some(80)), None);
        assert_eq!(width_from(None, false, || Some(80)), None);
    }

    #[test]
    fn a_group_decides_which_workload_a_target_names() {
        let kind = |t: &str| parse_target(t).map(|(k, _)| k).ok();
        assert_eq!(kind("workloads/x"), Some(ObjKind::Workload));
        assert_eq!(kind("wl/x"), Some(ObjKind::Workload));
        assert_eq!(
            kind("workloads.scheduling.k8s.io/x"),
            Some(ObjKind::Workload)
        );
        assert_eq!(
            kind("workloads.kueue.x-k8s.io/x"),
            Some(ObjKind::KueueWorkload)
        );
        assert_eq!(
            kind("workload.kueue.x-k8s.io/x"),
            Some(ObjKind::KueueWorkload)
        );
        assert_eq!(kind("kwl/x"), Some(ObjKind::KueueWorkload));
        // A group that does not serve the name is no match, never another kind.
        assert_eq!(kind("podgroups.kueue.x-k8s.io/x"), None);
        assert_eq!(kind("clusterqueues.scheduling.k8s.io/x"), None);
        assert_eq!(
            kind("podgroups.scheduling.k8s.io/x"),
            Some(ObjKind::PodGroup)
        );
        assert_eq!(kind("jobs.batch/x"), Some(ObjKind::Job));
    }

    #[test]
    fn kueue_short_names_are_its_crds() {
        let kind = |t: &str| parse_target(t).map(|(k, _)| k).ok();
        assert_eq!(kind("cq/a"), Some(ObjKind::ClusterQueue));
        assert_eq!(kind("lq/a"), Some(ObjKind::LocalQueue));
        assert_eq!(kind("queue/a"), Some(ObjKind::LocalQueue));
        assert_eq!(kind("rf/a"), Some(ObjKind::ResourceFlavor));
        assert_eq!(kind("flavor/a"), Some(ObjKind::ResourceFlavor));
        assert_eq!(kind("cohort/a"), Some(ObjKind::Cohort));
        assert_eq!(
            kind("clusterqueues.kueue.x-k8s.io/a"),
            Some(ObjKind::ClusterQueue)
        );
        assert!(ObjKind::ClusterQueue.is_cluster_scoped());
        assert!(!ObjKind::LocalQueue.is_cluster_scoped());
        assert_eq!(ObjKind::KueueWorkload.plural(), "workloads.kueue.x-k8s.io");
        assert_eq!(ObjKind::PriorityClass.plural(), "priorityclasses");
    }
}
