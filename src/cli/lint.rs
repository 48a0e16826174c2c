//! `kubectl wasctl lint`: read manifests, run the `WAS###` rules, write the report in one or
//! more formats, and exit 1 when a finding is at or above `--fail-on`.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;

use super::Context;
use super::format::TemplateFormat;
use crate::error::{Error, ExitStatus};
use crate::lint::codes::ALL;
use crate::lint::{
    Config, FieldValidation, LintReport, Options, Rule, Severity, TARGET_VERSION, lint, read_crds,
    read_inputs,
};
use crate::render::lint::{LintFormat, github, json, junit, sarif, text};

/// `lint` flags.
#[derive(Debug, Args)]
pub struct LintArgs {
    /// Files, directories (recursive) or `-` for stdin.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// More files, directories or `-`, as `kubectl apply -f` takes them.
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    pub filenames: Vec<PathBuf>,
    /// Exit 1 when a finding has this severity or a higher one.
    #[arg(long, value_enum, value_name = "SEVERITY", default_value_t = Severity::Warning)]
    pub fail_on: Severity,
    /// Unknown, removed and renamed fields (`WAS003`): errors (`strict`, kubectl's default), warnings (`warn`) or not reported (`ignore`).
    #[arg(long, value_enum, value_name = "MODE", default_value_t = FieldValidation::Strict)]
    pub field_validation: FieldValidation,
    /// Same as `--field-validation=strict` (the default; kept for older scripts).
    #[arg(long, conflicts_with = "field_validation")]
    pub strict: bool,
    /// Kinds wasctl does not check are errors (default: "not checked" info findings).
    #[arg(long)]
    pub reject_unknown: bool,
    /// CustomResourceDefinitions to check custom resources against: files or directories (repeatable); CRDs among the linted files count too.
    #[arg(long = "crd", value_name = "PATH")]
    pub crd: Vec<PathBuf>,
    /// Also check custom resources against the CustomResourceDefinitions of the current kubeconfig context.
    #[arg(long)]
    pub crd_from_cluster: bool,
    /// The Kubernetes version to lint for (only `1.37`).
    #[arg(long, value_name = "VERSION")]
    pub target_version: Option<String>,
    /// Rule selection and severities (`lint: {enable, disable, severity, targetVersion}`).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Also look objects up in the current kubeconfig context (cluster-aware rules).
    #[arg(long)]
    pub cluster: bool,
    /// Simulate the linted gangs on the cluster's nodes with nothing running (`WAS312`; needs `--from`, `--demo` or `--cluster`).
    #[arg(long)]
    pub feasibility: bool,
    /// Output format, optionally to a file: `text`, `json`, `sarif=out.sarif`, `junit=…`, `github`; or kubectl's `jsonpath=TEMPLATE`, `jsonpath-file=FILE`, `custom-columns=SPEC`, `custom-columns-file=FILE` on the `-o json` document (rows: the findings), to stdout. Repeatable: one format to stdout, the others to files.
    #[arg(short = 'o', long = "output", value_name = "FORMAT[=FILE]", value_parser = parse_output)]
    pub output: Vec<LintOutput>,
    /// Print the rule table and exit.
    #[arg(long, conflicts_with = "explain")]
    pub list_rules: bool,
    /// Print the documentation of a rule (`WAS101` or `invalid-object-name`) and exit.
    #[arg(long, value_name = "RULE")]
    pub explain: Option<String>,
    /// The namespace of manifests that name none, for the cross-object rules (default: `default`, as `kubectl apply` without `-n`).
    #[arg(long, value_name = "NAME")]
    pub default_namespace: Option<String>,
    /// Not offered: lint checks manifests, not a cluster's namespaces. Declared here (hidden) so
    /// that the global `-n` is not propagated into `lint`'s help, completion and man page, and a
    /// user who types it gets a usage error that points at `--default-namespace`.
    #[arg(short = 'n', long = "namespace", hide = true, value_name = "NAME")]
    pub namespace: Option<String>,
    /// Not offered, as `-n` above.
    #[arg(short = 'A', long = "all-namespaces", hide = true)]
    pub all_namespaces: bool,
}

/// One `-o` of lint: a format, to stdout or to a file, or a kubectl template (to stdout).
#[derive(Debug, Clone, PartialEq)]
pub enum LintOutput {
    /// `FORMAT[=FILE]`.
    Format(LintFormat, Option<PathBuf>),
    /// `jsonpath=…`, `jsonpath-file=…`, `custom-columns=…`, `custom-columns-file=…`: the
    /// template prefixes are kubectl's, so they are read as templates, never as `FORMAT=FILE`.
    Template(TemplateFormat),
}

impl LintOutput {
    /// The file it writes to (`None`: stdout).
    fn file(&self) -> Option<&PathBuf> {
        match self {
            Self::Format(_, file) => file.as_ref(),
            Self::Template(_) => None,
        }
    }

    /// Its name in messages (`sarif`, `jsonpath`).
    fn name(&self) -> String {
        use clap::ValueEnum;
        match self {
            Self::Format(f, _) => f
                .to_possible_value()
                .map_or_else(String::new, |v| v.get_name().to_owned()),
            Self::Template(t) => match t {
                TemplateFormat::JsonPath(_) => "jsonpath",
                TemplateFormat::JsonPathFile(_) => "jsonpath-file",
                TemplateFormat::CustomColumns(_) => "custom-columns",
                TemplateFormat::CustomColumnsFile(_) => "custom-columns-file",
            }
            .to_owned(),
        }
    }
}

fn parse_output(s: &str) -> Result<LintOutput, String> {
    if let Some(t) = TemplateFormat::parse(s) {
        return Ok(LintOutput::Template(t));
    }
    let (format, file) = parse_format(s)?;
    Ok(LintOutput::Format(format, file))
}

fn parse_format(s: &str) -> Result<(LintFormat, Option<PathBuf>), String> {
    use clap::ValueEnum;
    let (format, file) = match s.split_once('=') {
        Some((f, p)) if !p.is_empty() => (f, Some(PathBuf::from(p))),
        Some(_) => return Err(format!("`{s}` names no file after `=`")),
        None => (s, None),
    };
    let format = LintFormat::from_str(format, true).map_err(|_| {
        format!(
            "unknown format `{format}`; use text, json, sarif, junit, github, jsonpath=TEMPLATE or custom-columns=SPEC"
        )
    })?;
    Ok((format, file))
}

fn list_rules() -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<8} {:<38} {:<8} SUMMARY",
        "CODE", "NAME", "SEVERITY"
    );
    for r in ALL {
        let _ = writeln!(
            out,
            "{:<8} {:<38} {:<8} {}",
            r.code(),
            r.name(),
            r.default_severity().as_str(),
            r.summary()
        );
    }
    out
}

/// The `--explain` text of a rule.
pub(crate) fn explain(rule: Rule) -> String {
    format!(
        "{} ({}), default severity {}\n\n{}\n\n{}",
        rule.code(),
        rule.name(),
        rule.default_severity().as_str(),
        rule.summary(),
        rule.doc()
    )
}

fn render(
    format: LintFormat,
    report: &LintReport,
    args: &LintArgs,
    ctx: &Context,
    to_file: bool,
) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    match format {
        LintFormat::Text => {
            let style = if to_file {
                crate::render::ColorChoice::Never.styler()
            } else {
                ctx.color.styler()
            };
            text::write(&mut out, report, style)?;
        }
        LintFormat::Json => json::write(&mut out, report)?,
        LintFormat::Sarif => sarif::write(&mut out, report)?,
        LintFormat::Junit => junit::write(&mut out, report, args.fail_on)?,
        LintFormat::Github => github::write(&mut out, report)?,
    }
    Ok(out)
}

/// One stream per `-o`: at most one format goes to stdout (the others name a file), and no
/// file is named twice, so two formats are never concatenated into one stream.
fn check_outputs(outputs: &[LintOutput]) -> Result<(), Error> {
    let to_stdout: Vec<String> = outputs
        .iter()
        .filter(|o| o.file().is_none())
        .map(LintOutput::name)
        .collect();
    if to_stdout.len() > 1 {
        return Err(Error::usage(
            format!(
                "{} would all write to stdout",
                to_stdout
                    .iter()
                    .map(|f| format!("`-o {f}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            // The example names a format that can take a file (a template cannot).
            match outputs
                .iter()
                .filter(|o| matches!(o, LintOutput::Format(_, None)))
                .map(LintOutput::name)
                .next_back()
            {
                Some(f) => format!("give all formats but one a file, e.g. `-o {f}=lint.{f}`"),
                None => "a template prints to stdout: keep one of them".to_owned(),
            },
        ));
    }
    let mut files: Vec<&PathBuf> = outputs.iter().filter_map(LintOutput::file).collect();
    files.sort();
    if let Some(pair) = files.windows(2).find(|w| w[0] == w[1]) {
        return Err(Error::usage(
            format!("`{}` is named by two `-o` options", pair[0].display()),
            "write each format to its own file",
        ));
    }
    Ok(())
}

/// The `--config` file (`.wasctl.yaml`), and the target version it or `--target-version`
/// names (only 1.37 is linted for).
fn read_config(args: &LintArgs) -> Result<Config, Error> {
    let config = match &args.config {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                Error::usage(
                    format!("cannot read `{}`: {e}", path.display()),
                    "point `--config` at a `.wasctl.yaml` file",
                )
            })?;
            Config::parse(&text).map_err(|e| {
                Error::usage(
                    format!("invalid config `{}`: {e}", path.display()),
                    "see `lint:` keys `enable`, `disable`, `severity`, `targetVersion` in docs/guide/lint.md",
                )
            })?
        }
        None => Config::default(),
    };
    let target = args
        .target_version
        .clone()
        .or_else(|| config.target_version.clone())
        .unwrap_or_else(|| TARGET_VERSION.to_owned());
    if target.trim_start_matches('v') != TARGET_VERSION {
        return Err(Error::usage(
            format!("target version `{target}` is not supported"),
            format!(
                "wasctl lints for Kubernetes {TARGET_VERSION}; pass `--target-version {TARGET_VERSION}`"
            ),
        ));
    }
    Ok(config)
}

/// The CRDs to check custom resources against: `--crd` files, then `--crd-from-cluster`.
fn gather_crds(ctx: &Context, args: &LintArgs) -> Result<Vec<(String, serde_json::Value)>, Error> {
    let mut crds = if args.crd.is_empty() {
        Vec::new()
    } else {
        read_crds(&args.crd).map_err(|e| {
            Error::usage(
                format!("`--crd`: {e}"),
                "point `--crd` at CustomResourceDefinition manifests (`kubectl get crd NAME -o yaml`)",
            )
        })?
    };
    if args.crd_from_cluster {
        let server = crate::snapshot::source::live::list_crds(&ctx.live_options()?)?;
        crds.extend(server.into_iter().map(|v| {
            let name = v
                .pointer("/metadata/name")
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default()
                .to_owned();
            (format!("cluster CRD {name}"), v)
        }));
    }
    Ok(crds)
}

pub(crate) fn run(ctx: &Context, args: &LintArgs) -> Result<ExitStatus, Error> {
    // `-n`/`-A` given before the command (`kubectl wasctl -n ml lint …`) land in the global
    // flags, after it in lint's hidden ones: both are refused the same way.
    if ctx.global.all_namespaces || args.all_namespaces {
        return Err(Error::usage(
            "`lint` checks manifests, not a cluster's namespaces: `-A` does not apply",
            "lint reads every namespace the manifests name; `--default-namespace NAME` sets it for manifests that name none",
        ));
    }
    if ctx.global.namespace.is_some() || args.namespace.is_some() {
        return Err(Error::usage(
            "`lint` does not take `-n`: it checks manifests, not a cluster's namespace",
            "`--default-namespace NAME` sets the namespace of manifests that name none (as `kubectl apply -n` would)",
        ));
    }
    if args.list_rules {
        ctx.stdout(list_rules().as_bytes())?;
        return Ok(ExitStatus::Success);
    }
    if let Some(name) = &args.explain {
        let rule = Rule::parse(name).ok_or_else(|| {
            Error::usage(
                format!("unknown rule `{name}`"),
                "list the rules with `kubectl wasctl lint --list-rules`",
            )
        })?;
        ctx.stdout(explain(rule).as_bytes())?;
        return Ok(ExitStatus::Success);
    }
    let config = read_config(args)?;
    let paths: Vec<PathBuf> = args.paths.iter().chain(&args.filenames).cloned().collect();
    if paths.is_empty() {
        return Err(Error::usage(
            "no manifests to lint",
            "pass files or directories: `kubectl wasctl lint deploy/` (or `-` for stdin)",
        ));
    }
    check_outputs(&args.output)?;
    let inputs = read_inputs(&paths)?;
    if args.feasibility && !(ctx.is_offline() || args.cluster) {
        return Err(Error::usage(
            "`--feasibility` needs a cluster to simulate on",
            "add `--from CLUSTER.yaml`, `--demo` or `--cluster`",
        ));
    }
    if args.crd_from_cluster && ctx.is_offline() {
        return Err(Error::usage(
            "`--crd-from-cluster` reads the current kubeconfig context's CRDs; `--from` and `--demo` hold none",
            "drop `--from`/`--demo`, or give the CRDs as files with `--crd PATH`",
        ));
    }
    let crds = gather_crds(ctx, args)?;
    let cluster = if ctx.is_offline() || args.cluster {
        Some(ctx.load()?)
    } else {
        None
    };
    let options = Options {
        field_validation: if args.strict {
            FieldValidation::Strict
        } else {
            args.field_validation
        },
        reject_unknown: args.reject_unknown,
        config,
        gate_overrides: ctx.gate_overrides()?,
        feasibility: args.feasibility,
        crds,
        default_namespace: args
            .default_namespace
            .clone()
            .unwrap_or_else(|| "default".to_owned()),
    };
    let report = lint(&inputs, &options, cluster.as_ref());
    let outputs = if args.output.is_empty() {
        vec![LintOutput::Format(LintFormat::Text, None)]
    } else {
        args.output.clone()
    };
    for output in &outputs {
        let (format, file) = match output {
            LintOutput::Format(format, file) => (format, file),
            LintOutput::Template(t) => {
                ctx.write_template(t, json::KIND, &report, |doc| {
                    super::format::rows_at(doc, "findings")
                })?;
                continue;
            }
        };
        if let (LintFormat::Json, None) = (format, file) {
            // The JSON document on stdout goes through the one JSON writer (the MCP server
            // keeps it as it is).
            let env = crate::render::json::Envelope::new(json::KIND, &report);
            ctx.stdout_json(&env)?;
            continue;
        }
        let bytes = render(*format, &report, args, ctx, file.is_some())?;
        match file {
            Some(path) => {
                super::output_file::write_file(path, None, |out| out.write_all(&bytes))?;
            }
            None => ctx.stdout(&bytes)?,
        }
    }
    Ok(if report.fails(args.fail_on) {
        ExitStatus::Findings
    } else {
        ExitStatus::Success
    })
}
