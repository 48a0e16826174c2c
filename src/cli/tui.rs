//! `kubectl wasctl tui`: loads the snapshot (with the usual progress on stderr), then hands it
//! to [`crate::tui::run`]. In live mode the cluster is listed once and watched (the same
//! watches `--watch` uses), and the TUI gets a loader that lists and watches again (for Ctrl-R
//! and `:ctx`), with the same flags and no progress output (the screen is the TUI's then).

use std::sync::Arc;

use clap::Args;

use super::{Context, GlobalArgs, parse_target, resolve_target};
use crate::error::{Error, ExitStatus};
use crate::render::color::ColorFlag;
use crate::tui::{self, Config, Feed, Loader};

/// `tui` flags.
#[derive(Debug, Args)]
pub struct TuiArgs {
    /// Accepted and ignored, for scripts written before the TUI watched: a live cluster is
    /// listed once and then watched (its changes show within a fraction of a second), so there
    /// is nothing to re-list every SECONDS.
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub refresh: Option<u64>,
    /// Open with the cursor on this object: `workload/`, `cpg/`, `pg/`, `pod/`, `job/` or
    /// `resourceclaim/` followed by the name (with `-n` when the name is in several namespaces).
    #[arg(long, value_name = "TYPE/NAME")]
    pub select: Option<String>,
}

fn loader(global: &GlobalArgs) -> Loader {
    let global = global.clone();
    Arc::new(move |context: Option<&str>| {
        let mut g = global.clone();
        if let Some(c) = context {
            g.context = Some(c.to_owned());
        }
        let mut ctx = Context::new(g);
        // The terminal belongs to the TUI: no progress lines on stderr.
        ctx.stderr_is_terminal = false;
        ctx.load_watched()
            .map(|(snapshot, watched)| (snapshot, Some(Feed::from(watched))))
            .map_err(|e| {
                let mut msg = e.to_string();
                let mut source = std::error::Error::source(&e);
                while let Some(s) = source {
                    msg.push_str(&format!(": {s}"));
                    source = s.source();
                }
                format!("reload failed: {msg}")
            })
    })
}

pub(crate) fn run(ctx: &Context, args: &TuiArgs) -> Result<ExitStatus, Error> {
    let select = args.select.as_deref().map(parse_target).transpose()?;
    if args.refresh.is_some() && ctx.is_offline() {
        return Err(Error::usage(
            "`--refresh` is kept for live clusters only (where it does nothing: the cluster is watched); it does not apply to `--from` or `--demo`",
            "drop `--refresh`",
        ));
    }
    let (snapshot, feed) = if ctx.is_offline() {
        (ctx.load()?, None)
    } else {
        let (snapshot, watched) = ctx.load_watched()?;
        (snapshot, Some(Feed::from(watched)))
    };
    let select = match select {
        Some((kind, name)) => Some(resolve_target(ctx, &snapshot, &kind, &name)?),
        None => None,
    };
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let color = match ctx.global.color {
        ColorFlag::Always => true,
        ColorFlag::Never => false,
        ColorFlag::Auto => !no_color,
    };
    let source = if ctx.global.demo {
        "demo".to_owned()
    } else if !ctx.global.from.is_empty() {
        format!(
            "files: {}",
            ctx.global
                .from
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    } else {
        format!(
            "context {}",
            ctx.global.context.as_deref().unwrap_or("(current)")
        )
    };
    let namespace = if select.is_some() && !ctx.global.all_namespaces {
        select.as_ref().map(|o| o.namespace.clone())
    } else if ctx.global.all_namespaces {
        None
    } else {
        ctx.namespace_scope(&snapshot)
    };
    let config = Config {
        color,
        source,
        namespace,
        gate_overrides: ctx.gate_overrides()?,
        notice: args.refresh.map(|_| {
            "`--refresh` is no longer needed: the cluster is watched, changes show as they happen"
                .to_owned()
        }),
        select,
        live: !ctx.is_offline(),
    };
    let loader = (!ctx.is_offline()).then(|| loader(&ctx.global));
    tui::run(config, snapshot, loader, feed).map_err(|e| {
        Error::usage(
            format!("cannot run the TUI: {e}"),
            "run `kubectl wasctl tui` in an interactive terminal; for scripts use `tree`, `simulate`, `explain` or `doctor`",
        )
    })?;
    Ok(ExitStatus::Success)
}
