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
    // Written as it is made, object by object (an export of 150,000 pods is gigabytes of text).
    let write = |out: &mut dyn std::io::Write| match args.output {
        SnapshotFormat::Yaml => export::write_yaml(out, &snapshot),
        SnapshotFormat::Json => export::write_json(out, &snapshot),
    };
    match &args.file {
        Some(path) => super::output_file::write_file(path, None, write)?,
        None => {
            let mut out = ctx.stdout_stream();
            write(&mut out)?;
            out.finish()?;
        }
    }
    // The same incomplete-input warnings as tree, doctor and simulate print (issue 46 item
    // 5): a snapshot of an incomplete input must not look complete. On stderr, after the
    // file, so that stdout stays the snapshot alone.
    let mut err = Vec::new();
    write_warnings(&mut err, &snapshot.warnings, ctx.err_color.styler())?;
    ctx.stderr(&err)?;
    super::release(snapshot);
    Ok(ExitStatus::Success)
}

/// One `warning:` line per loader warning, as `tree` writes them.
fn write_warnings(
    out: &mut dyn std::io::Write,
    warnings: &[crate::snapshot::Warning],
    style: crate::render::color::Styler,
) -> std::io::Result<()> {
    for w in warnings {
        writeln!(
            out,
            "{} {}",
            style.warn("warning:"),
            crate::sanitize::sanitize(&w.message)
        )?;
    }
    Ok(())
}
