//! `kubectl wasctl version`: version, git commit, build date, target, supported Kubernetes.

use clap::Args;
use serde::Serialize;

use super::{Context, ReportFormat};
use crate::error::{Error, ExitStatus};
use crate::render::json::{Envelope, write_json, write_yaml};
use crate::snapshot::facts::{GATES, SUPPORTED_KUBERNETES};

/// `--version` text.
pub(super) const SHORT: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("WASCTL_COMMIT"), ")");

/// `version` flags.
#[derive(Debug, Args)]
pub struct VersionArgs {
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = ReportFormat::Text)]
    pub output: ReportFormat,
}

/// The version report (`kind: Version`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct VersionReport {
    /// wasctl's version (the package version, e.g. `0.1.0`).
    pub version: &'static str,
    /// The git commit it was built from.
    pub commit: &'static str,
    /// The date of that commit.
    pub build_date: &'static str,
    /// The target triple the binary was built for (e.g. `x86_64-unknown-linux-gnu`).
    pub target: &'static str,
    /// The Kubernetes minor version whose scheduler wasctl models.
    pub kubernetes: &'static str,
    /// The feature gates wasctl knows (the names `--feature-gates` accepts), with their
    /// stage and default in that version.
    pub feature_gates: Vec<GateReport>,
}

/// One known feature gate.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct GateReport {
    /// The gate's name, as `--feature-gates` spells it (e.g. `GenericWorkload`).
    pub name: &'static str,
    /// `Alpha`, `Beta`, `GA` or `Removed`.
    pub stage: &'static str,
    /// Whether it is on by default in the Kubernetes version the report names.
    pub default: bool,
}

/// The version report of the running binary: version, commit, build date and target are
/// stamped at build time (`build.rs`); the gates come from the modelled Kubernetes version.
pub(super) fn report() -> VersionReport {
    VersionReport {
        version: env!("CARGO_PKG_VERSION"),
        commit: env!("WASCTL_COMMIT"),
        build_date: env!("WASCTL_BUILD_DATE"),
        target: env!("WASCTL_TARGET"),
        kubernetes: SUPPORTED_KUBERNETES,
        feature_gates: GATES
            .iter()
            .map(|g| GateReport {
                name: g.name,
                stage: g.stage,
                default: g.default,
            })
            .collect(),
    }
}

pub(crate) fn run(ctx: &Context, args: &VersionArgs) -> Result<ExitStatus, Error> {
    let r = report();
    let mut out = Vec::new();
    match args.output {
        ReportFormat::Text => {
            out = format!(
                "wasctl {}\ncommit: {}\nbuild date: {}\ntarget: {}\nkubernetes: {}\n",
                r.version, r.commit, r.build_date, r.target, r.kubernetes
            )
            .into_bytes();
        }
        ReportFormat::Json => write_json(&mut out, &Envelope::new("Version", &r))?,
        ReportFormat::Yaml => write_yaml(&mut out, &Envelope::new("Version", &r))?,
    }
    ctx.stdout(&out)?;
    Ok(ExitStatus::Success)
}
