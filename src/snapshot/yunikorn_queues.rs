//! YuniKorn's queues, from its ConfigMap `yunikorn/yunikorn-configs` (key `queues.yaml`):
//! partitions, each with a tree of queues (`root` first), each with its `resources`
//! (`guaranteed`, `max`). Keys as YuniKorn's `configs.SchedulerConfig` reads them
//! (apache/yunikorn-core `pkg/common/configs/config.go`: `partitions`, `queues`, `name`,
//! `parent`, `resources.guaranteed`, `resources.max`); the rest (ACLs, placement rules,
//! limits) is not read. Pure: no IO.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The ConfigMap's namespace.
pub(crate) const NAMESPACE: &str = "yunikorn";
/// The ConfigMap's name.
pub(crate) const NAME: &str = "yunikorn-configs";
/// The key holding the queue configuration.
pub(crate) const KEY: &str = "queues.yaml";
/// The pod label naming an application's queue (else the annotation [`QUEUE_ANNOTATION`]).
pub(crate) const QUEUE_LABEL: &str = "queue";
/// The pod annotation naming an application's queue.
pub(crate) const QUEUE_ANNOTATION: &str = "yunikorn.apache.org/queue";

/// `queues.yaml`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct QueuesConfig {
    /// The partitions (`default` on most clusters).
    #[serde(default)]
    pub partitions: Vec<Partition>,
}

/// One partition.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Partition {
    /// Its name.
    #[serde(default)]
    pub name: String,
    /// Its top queues (`root`).
    #[serde(default)]
    pub queues: Vec<QueueConfig>,
}

/// One queue, with its children.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct QueueConfig {
    /// Its name (the path joins names with `.`: `root.sandbox`).
    #[serde(default)]
    pub name: String,
    /// Guaranteed and maximum resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Resources>,
    /// Child queues.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queues: Vec<QueueConfig>,
}

/// A queue's resources, as written (`vcore`, `memory`, `nvidia.com/gpu`, …).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Resources {
    /// Guaranteed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub guaranteed: BTreeMap<String, serde_json::Value>,
    /// At most.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub max: BTreeMap<String, serde_json::Value>,
}

/// What is known of YuniKorn's queues.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum YunikornQueues {
    /// The ConfigMap was not among the input (or not asked for).
    #[default]
    NotRead,
    /// It could not be read or parsed (why).
    Unreadable(String),
    /// Read: the ConfigMap `namespace/name`, and its queues.
    Read {
        /// Where it was read from, `namespace/name`.
        source: String,
        /// The parsed `queues.yaml`.
        config: QueuesConfig,
    },
}

/// Parses `queues.yaml`; the error names the problem.
pub(crate) fn parse(text: &str) -> Result<QueuesConfig, String> {
    serde_saphyr::from_str(text)
        .map_err(|e| format!("`{KEY}` is not YuniKorn's queue configuration: {e}"))
}

/// What a ConfigMap (JSON) holds: its `queues.yaml` parsed, or why it is unreadable.
pub(crate) fn from_config_map(value: &serde_json::Value) -> YunikornQueues {
    let source = format!("{NAMESPACE}/{NAME}");
    match value
        .pointer(&format!("/data/{KEY}"))
        .and_then(serde_json::Value::as_str)
    {
        Some(text) => match parse(text) {
            Ok(config) => YunikornQueues::Read { source, config },
            Err(e) => YunikornQueues::Unreadable(e),
        },
        None => YunikornQueues::Unreadable(format!("it has no key `{KEY}`")),
    }
}

/// The ConfigMap export writes back: `queues.yaml` only.
pub(crate) fn to_config_map(config: &QueuesConfig) -> Result<serde_json::Value, String> {
    let text = serde_saphyr::to_string(config).map_err(|e| e.to_string())?;
    Ok(serde_json::json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": NAME, "namespace": NAMESPACE},
        "data": {KEY: text},
    }))
}

impl QueuesConfig {
    /// The queue at `path` (`root.sandbox`) in `partition`, if configured.
    pub(crate) fn queue(&self, partition: &str, path: &str) -> Option<&QueueConfig> {
        let p = self.partitions.iter().find(|p| p.name == partition)?;
        let mut names = path.split('.');
        let first = names.next()?;
        let mut q = p
            .queues
            .iter()
            .find(|q| q.name.eq_ignore_ascii_case(first))?;
        for name in names {
            q = q
                .queues
                .iter()
                .find(|c| c.name.eq_ignore_ascii_case(name))?;
        }
        Some(q)
    }
}

/// A resource map in words: `memory=1T, vcore=200`.
pub(crate) fn words(map: &BTreeMap<String, serde_json::Value>) -> String {
    map.iter()
        .map(|(k, v)| match v {
            serde_json::Value::String(s) => format!("{k}={s}"),
            other => format!("{k}={other}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shaped like YuniKorn's documentation (`docs/user_guide/queue_config.md`).
    const QUEUES: &str = r"
partitions:
  - name: default
    placementrules:
      - name: tag
        value: namespace
        create: true
    queues:
      - name: root
        submitacl: '*'
        queues:
          - name: sandbox
            resources:
              guaranteed: {memory: 500G, vcore: 100}
              max: {memory: 1T, vcore: 200}
";

    #[test]
    fn queues_are_found_by_their_path() {
        let c = parse(QUEUES).unwrap();
        let q = c.queue("default", "root.sandbox").unwrap();
        let r = q.resources.as_ref().unwrap();
        assert_eq!(words(&r.max), "memory=1T, vcore=200");
        assert!(c.queue("default", "root.nope").is_none());
        assert!(c.queue("other", "root").is_none());
        assert!(parse("partitions: 3").is_err());
    }
}
