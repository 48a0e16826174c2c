//! `--kueue-config SOURCE` (Kueue's own manager `Configuration`, for every command that
//! loads a snapshot) and `kubectl wasctl kueue-config [SOURCE]`, which prints the
//! configuration the admission simulation uses (v1beta2, Kueue's defaults applied).
//!
//! SOURCE is parsed as `--scheduler-config`'s: a file (`-` for stdin) or
//! `configmap/NAMESPACE/NAME[:KEY]`, read with one GET; without a KEY the ConfigMap's
//! `controller_manager_config.yaml` (the key Kueue's manifests mount), else its only key. A
//! problem is an input error (exit 2) naming the source and the field path.

use clap::Args;

use super::Context;
use super::scheduler_config::{ConfigFormat, ConfigSource, pick_key};
use crate::error::{Error, ExitStatus};
use crate::snapshot::kueue_config::{CONFIGMAP_KEY, KueueConfiguration};
use crate::snapshot::source::{Collector, files, live};
use crate::snapshot::{LoadedKueueConfig, Snapshot, Warning};

/// Reads the Kueue `Configuration` document of a loaded input (other objects are ignored).
fn from_collector(collector: Collector, origin: &str) -> Result<LoadedKueueConfig, Error> {
    let mut loaded = collector.finish().kueue_config.ok_or_else(|| {
        Error::usage(
            format!("`{origin}` holds no Kueue Configuration"),
            "give the file Kueue's manager reads (`apiVersion: config.kueue.x-k8s.io/v1beta2`, `kind: Configuration`; the `controller_manager_config.yaml` key of `kueue-system/kueue-manager-config`)",
        )
    })?;
    loaded.source = origin.to_owned();
    Ok(loaded)
}

/// Reads, converts, defaults and validates the configuration SOURCE names.
pub(crate) fn load_source(ctx: &Context, spec: &str) -> Result<LoadedKueueConfig, Error> {
    match ConfigSource::parse(spec)? {
        ConfigSource::File(path) => {
            let mut collector = Collector::new();
            files::load_path(&path, &mut collector)?;
            from_collector(collector, &path.display().to_string())
        }
        ConfigSource::ConfigMap {
            namespace,
            name,
            key,
        } => {
            let what = format!("configmap/{namespace}/{name}");
            let data = live::get_config_map(&ctx.live_options()?, &namespace, &name)?
                .ok_or_else(|| {
                    Error::usage(
                        format!("{what} not found"),
                        format!(
                            "check `kubectl get configmap {name} -n {namespace}`; Kueue's manager Deployment names the ConfigMap it mounts as `--config`"
                        ),
                    )
                })?;
            let key = key.or_else(|| {
                data.contains_key(CONFIGMAP_KEY)
                    .then(|| CONFIGMAP_KEY.to_owned())
            });
            let (key, text) = pick_key(&data, &what, key.as_deref())?;
            let origin = format!("{what}:{key}");
            let mut collector = Collector::new();
            files::load_str(text, &origin, &mut collector)?;
            from_collector(collector, &origin)
        }
    }
}

/// Puts `--kueue-config` on a loaded snapshot; it replaces a configuration read with the
/// input (a document in `--from`, or the cluster's ConfigMap), with a warning when they differ.
pub(crate) fn apply(ctx: &Context, snapshot: &mut Snapshot) -> Result<(), Error> {
    let Some(spec) = &ctx.global.kueue_config else {
        return Ok(());
    };
    let loaded = load_source(ctx, spec)?;
    if let Some(old) = &snapshot.kueue_config
        && old.config != loaded.config
    {
        snapshot.warnings.push(Warning::new(
            "KueueConfigReplaced",
            format!(
                "the Kueue Configuration in the input is replaced by `--kueue-config {}`",
                loaded.source
            ),
        ));
        snapshot.warnings.sort();
    }
    snapshot.kueue_config = Some(loaded);
    Ok(())
}

/// `kueue-config` flags.
#[derive(Debug, Args)]
pub struct KueueConfigArgs {
    /// A file (`-` for stdin) or `configmap/NAMESPACE/NAME[:KEY]`. Without it: the
    /// `--kueue-config` flag, else a Configuration document inside `--from`, else (live) the
    /// cluster's `kueue-system/kueue-manager-config`, else Kueue's defaults.
    #[arg(value_name = "SOURCE")]
    pub source: Option<String>,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = ConfigFormat::Yaml)]
    pub output: ConfigFormat,
}

/// The configuration `kueue-config` prints, with where it came from.
fn effective(ctx: &Context, args: &KueueConfigArgs) -> Result<(KueueConfiguration, String), Error> {
    if let Some(spec) = args
        .source
        .as_deref()
        .or(ctx.global.kueue_config.as_deref())
    {
        let l = load_source(ctx, spec)?;
        return Ok((l.config, l.source));
    }
    let g = &ctx.global;
    let loaded = if !g.from.is_empty() {
        let mut collector = Collector::new();
        for path in &g.from {
            files::load_path(path, &mut collector)?;
        }
        collector.finish().kueue_config
    } else if g.demo {
        None
    } else {
        ctx.load()?.kueue_config
    };
    Ok(match loaded {
        Some(l) => (l.config, l.source),
        None => (
            KueueConfiguration::default_config(),
            "Kueue's defaults (no configuration given or found)".to_owned(),
        ),
    })
}

/// Prints the effective configuration.
pub(super) fn run(ctx: &Context, args: &KueueConfigArgs) -> Result<ExitStatus, Error> {
    let (config, origin) = effective(ctx, args)?;
    let mut out = Vec::new();
    match args.output {
        ConfigFormat::Yaml => {
            out.extend_from_slice(
                format!(
                    "# Kueue's effective configuration (v1beta2, defaults applied) of {origin}.\n"
                )
                .as_bytes(),
            );
            let unknown = config.unknown_gates();
            if !unknown.is_empty() {
                out.extend_from_slice(
                    format!(
                        "# Feature gates this Kueue does not know (ignored): {}.\n",
                        unknown.join(", ")
                    )
                    .as_bytes(),
                );
            }
            let unmodeled = config.unmodeled_gates();
            if !unmodeled.is_empty() {
                out.extend_from_slice(
                    format!(
                        "# Feature gates set here that the simulation keeps at Kueue's default: {}.\n",
                        unmodeled.join(", ")
                    )
                    .as_bytes(),
                );
            }
            crate::render::json::write_yaml(&mut out, &config)?;
        }
        ConfigFormat::Json => crate::render::json::write_json(&mut out, &config)?,
    }
    ctx.stdout(&out)?;
    Ok(ExitStatus::Success)
}
