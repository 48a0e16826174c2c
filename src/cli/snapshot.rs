//! `kubectl wasctl snapshot`: write what was loaded (facts included) as one file.

use std::path::PathBuf;

use clap::Args;

use super::Context;
use crate::error::{Error, ExitStatus};
use crate::snapshot::export;

/// Formats of `snapshot -o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum SnapshotFormat {
    /// A YAML document stream.
    #[default]
    Yaml,
    /// One JSON `List`.
    Json,
}

/// `snapshot` flags.
#[derive(Debug, Args)]
pub struct SnapshotArgs {
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = SnapshotFormat::Yaml)]
    pub output: SnapshotFormat,
    /// Write to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
}

pub(crate) fn run(ctx: &Context, args: &SnapshotArgs) -> Result<ExitStatus, Error> {
    let snapshot = ctx.load()?;
    let mut out = Vec::new();
    match args.output {
        SnapshotFormat::Yaml => export::write_yaml(&mut out, &snapshot)?,
        SnapshotFormat::Json => export::write_json(&mut out, &snapshot)?,
    }
    match &args.file {
        Some(path) => std::fs::write(path, &out).map_err(|e| {
            Error::usage(
                format!("cannot write `{}`: {e}", path.display()),
                "check the directory exists and is writable",
            )
        })?,
        None => ctx.stdout(&out)?,
    }
    Ok(ExitStatus::Success)
}
