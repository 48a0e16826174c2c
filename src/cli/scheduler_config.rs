//! `--scheduler-config SOURCE` (the cluster's own `KubeSchedulerConfiguration`, for every
//! command that loads a snapshot) and `kubectl wasctl scheduler-config [SOURCE]`, which
//! prints the configuration as the simulator uses it (defaults applied).
//!
//! SOURCE is a file (YAML or JSON, as kube-scheduler's `--config` takes it; `-` for stdin)
//! or `configmap/NAMESPACE/NAME[:KEY]`, read with one GET from the current context's cluster
//! (secondary schedulers and many distributions ship their configuration so). The document
//! is validated as kube-scheduler 1.37 validates it: a problem is an input error (exit 2)
//! naming the source, line and field path.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Args;

use super::Context;
use crate::error::{Error, ExitStatus};
use crate::snapshot::scheduler_config::KubeSchedulerConfiguration;
use crate::snapshot::source::{Collector, files, live};
use crate::snapshot::{LoadedSchedulerConfig, Snapshot, Warning};

/// Where a scheduler configuration is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ConfigSource {
    /// A file (or `-`, stdin).
    File(PathBuf),
    /// One key of a ConfigMap of the live cluster.
    ConfigMap {
        /// Its namespace.
        namespace: String,
        /// Its name.
        name: String,
        /// The key holding the document (`None`: the ConfigMap's only key).
        key: Option<String>,
    },
}

pub(super) const CONFIGMAP_HINT: &str = "write `configmap/NAMESPACE/NAME` or `configmap/NAMESPACE/NAME:KEY` (e.g. `configmap/kube-system/scheduler-config:config.yaml`), or give a file";

impl ConfigSource {
    /// Parses SOURCE: `configmap/NS/NAME[:KEY]` (also `cm/…`), else a path.
    pub(crate) fn parse(spec: &str) -> Result<Self, Error> {
        let Some(rest) = spec
            .strip_prefix("configmap/")
            .or_else(|| spec.strip_prefix("configmaps/"))
            .or_else(|| spec.strip_prefix("cm/"))
        else {
            if spec.is_empty() {
                return Err(Error::usage(
                    "the configuration SOURCE needs a file or `configmap/NAMESPACE/NAME[:KEY]`",
                    CONFIGMAP_HINT,
                ));
            }
            return Ok(Self::File(PathBuf::from(spec)));
        };
        let (path, key) = match rest.split_once(':') {
            Some((p, k)) => (p, Some(k.to_owned())),
            None => (rest, None),
        };
        match path.split('/').collect::<Vec<_>>().as_slice() {
            [ns, name] if !ns.is_empty() && !name.is_empty() => {
                if key.as_deref() == Some("") {
                    return Err(Error::usage(
                        format!("`{spec}`: the key after `:` is empty"),
                        CONFIGMAP_HINT,
                    ));
                }
                Ok(Self::ConfigMap {
                    namespace: (*ns).to_owned(),
                    name: (*name).to_owned(),
                    key,
                })
            }
            _ => Err(Error::usage(
                format!("`{spec}` is not a ConfigMap source"),
                CONFIGMAP_HINT,
            )),
        }
    }
}

/// The key of a ConfigMap's `data` that holds the document: the one asked for, else the
/// only one. Ambiguity and absence are input errors that list the keys.
pub(super) fn pick_key<'a>(
    data: &'a BTreeMap<String, String>,
    what: &str,
    key: Option<&str>,
) -> Result<(&'a str, &'a str), Error> {
    let keys = || {
        data.keys()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match key {
        Some(k) => data
            .get_key_value(k)
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .ok_or_else(|| {
                Error::usage(
                    format!("{what} has no key `{k}`; its keys: {}", keys()),
                    format!("name one of them: `{what}:KEY`"),
                )
            }),
        None => match data.len() {
            1 => data
                .iter()
                .next()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .ok_or_else(|| Error::usage(format!("{what} has no data"), CONFIGMAP_HINT)),
            0 => Err(Error::usage(
                format!("{what} has no `data` keys"),
                "point `--scheduler-config` at the ConfigMap that holds the KubeSchedulerConfiguration",
            )),
            _ => Err(Error::usage(
                format!(
                    "{what} has several keys ({}): which one holds the configuration?",
                    keys()
                ),
                format!("name the key: `{what}:KEY`"),
            )),
        },
    }
}

/// Reads the `KubeSchedulerConfiguration` document of a loaded input (other objects in it
/// are ignored).
fn from_collector(collector: Collector, origin: &str) -> Result<LoadedSchedulerConfig, Error> {
    let snapshot = collector.finish();
    let mut loaded = snapshot.scheduler_config.ok_or_else(|| {
        Error::usage(
            format!("`{origin}` holds no KubeSchedulerConfiguration"),
            "give the file kube-scheduler's `--config` reads (`apiVersion: kubescheduler.config.k8s.io/v1`, `kind: KubeSchedulerConfiguration`)",
        )
    })?;
    loaded.source = origin.to_owned();
    Ok(loaded)
}

/// Reads and validates the configuration SOURCE names.
pub(crate) fn load_source(ctx: &Context, spec: &str) -> Result<LoadedSchedulerConfig, Error> {
    match ConfigSource::parse(spec)? {
        ConfigSource::File(path) => {
            let mut collector = Collector::new();
            files::load_path(&path, &mut collector)?;
            from_collector(collector, &display(&path))
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
                            "check `kubectl get configmap {name} -n {namespace}`; the kube-scheduler's `--config` names the file it mounts"
                        ),
                    )
                })?;
            let (key, text) = pick_key(&data, &what, key.as_deref())?;
            let origin = format!("{what}:{key}");
            let mut collector = Collector::new();
            files::load_str(text, &origin, &mut collector)?;
            from_collector(collector, &origin)
        }
    }
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

/// Puts `--scheduler-config` on a loaded snapshot; it replaces a document read with
/// `--from`, with a warning.
pub(crate) fn apply(ctx: &Context, snapshot: &mut Snapshot) -> Result<(), Error> {
    let Some(spec) = &ctx.global.scheduler_config else {
        return Ok(());
    };
    let loaded = load_source(ctx, spec)?;
    if let Some(old) = &snapshot.scheduler_config
        && old.written != loaded.written
    {
        snapshot.warnings.push(Warning::new(
            "SchedulerConfigReplaced",
            format!(
                "the KubeSchedulerConfiguration in the input is replaced by `--scheduler-config {}`",
                loaded.source
            ),
        ));
        snapshot.warnings.sort();
    }
    snapshot.scheduler_config = Some(loaded);
    Ok(())
}

/// `scheduler-config` output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ConfigFormat {
    /// YAML, as kube-scheduler's `--config` reads it.
    #[default]
    Yaml,
    /// JSON.
    Json,
}

/// `scheduler-config` flags.
#[derive(Debug, Args)]
pub struct SchedulerConfigArgs {
    /// A file (`-` for stdin) or `configmap/NAMESPACE/NAME[:KEY]`. Without it: the
    /// `--scheduler-config` flag, else a KubeSchedulerConfiguration document inside `--from`,
    /// else kube-scheduler 1.37's default profile. A live cluster is never guessed at: its
    /// configuration is a file of the kube-scheduler's, not an API object.
    #[arg(value_name = "SOURCE")]
    pub source: Option<String>,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = ConfigFormat::Yaml)]
    pub output: ConfigFormat,
}

/// Prints the effective configuration: defaults applied, multiPoint expanded into each
/// extension point's plugins with their weights, every plugin's args filled.
pub(super) fn run(ctx: &Context, args: &SchedulerConfigArgs) -> Result<ExitStatus, Error> {
    let spec = args
        .source
        .as_deref()
        .or(ctx.global.scheduler_config.as_deref());
    let (config, origin) = match spec {
        Some(spec) => {
            let loaded = load_source(ctx, spec)?;
            (loaded.config, loaded.source)
        }
        None if !ctx.global.from.is_empty() => {
            let mut collector = Collector::new();
            for path in &ctx.global.from {
                files::load_path(path, &mut collector)?;
            }
            match collector.finish().scheduler_config {
                Some(l) => (l.config, l.source),
                None => default_config(),
            }
        }
        None => default_config(),
    };
    let mut out = Vec::new();
    match args.output {
        ConfigFormat::Yaml => {
            out.extend_from_slice(
                format!("# The effective configuration (defaults applied) of {origin}.\n")
                    .as_bytes(),
            );
            crate::render::json::write_yaml(&mut out, &config)?;
        }
        ConfigFormat::Json => crate::render::json::write_json(&mut out, &config)?,
    }
    ctx.stdout(&out)?;
    Ok(ExitStatus::Success)
}

fn default_config() -> (KubeSchedulerConfiguration, String) {
    (
        KubeSchedulerConfiguration::default_config(),
        "kube-scheduler 1.37's default (no configuration given)".to_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_parse() {
        assert_eq!(
            ConfigSource::parse("configmap/kube-system/sched:config.yaml").ok(),
            Some(ConfigSource::ConfigMap {
                namespace: "kube-system".into(),
                name: "sched".into(),
                key: Some("config.yaml".into())
            })
        );
        assert_eq!(
            ConfigSource::parse("cm/ns/n").ok(),
            Some(ConfigSource::ConfigMap {
                namespace: "ns".into(),
                name: "n".into(),
                key: None
            })
        );
        assert_eq!(
            ConfigSource::parse("sched.yaml").ok(),
            Some(ConfigSource::File("sched.yaml".into()))
        );
        assert!(ConfigSource::parse("configmap/only-name").is_err());
        assert!(ConfigSource::parse("configmap/ns/n:").is_err());
        assert!(ConfigSource::parse("").is_err());
    }

    #[test]
    fn keys_are_picked_or_listed() {
        let mut data = BTreeMap::new();
        data.insert("a.yaml".to_owned(), "x".to_owned());
        assert_eq!(pick_key(&data, "cm", None).ok(), Some(("a.yaml", "x")));
        data.insert("b.yaml".to_owned(), "y".to_owned());
        let e = pick_key(&data, "cm", None).expect_err("ambiguous");
        assert!(e.to_string().contains("`a.yaml`, `b.yaml`"), "{e}");
        assert_eq!(
            pick_key(&data, "cm", Some("b.yaml")).ok(),
            Some(("b.yaml", "y"))
        );
        let e = pick_key(&data, "cm", Some("c")).expect_err("missing");
        assert!(e.to_string().contains("no key `c`"), "{e}");
    }
}
