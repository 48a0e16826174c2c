//! Where a [`Snapshot`] comes from: files (`--from`), the embedded demo (`--demo`), or a live
//! cluster (default).
//!
//! Every source hands raw JSON objects to one [`Collector`], which dispatches them by
//! `apiVersion`/`kind` into the typed lists, converts served alternatives (`v1alpha3`
//! PodGroup/Workload → `v1beta1`), keeps stale and foreign objects raw, counts unknown kinds
//! (never silently dropped) and refuses Secrets. The collector is pure.

pub mod demo;
pub mod files;
pub(crate) mod live;
pub(crate) mod parse;
pub(crate) mod prune;
pub(crate) mod stream;
pub(crate) mod tls;
pub(crate) mod watch;
pub(crate) mod yaml_fast;

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::batch::v1::Job as ApiJob;
use k8s_openapi::api::core::v1::Pod as ApiPod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;

use super::facts::{ClusterFacts, WASCTL_API_VERSION};
use super::scheduler_config;
use super::{FOREIGN_GROUPS, RawObject, Snapshot, Warning};

/// How many names of objects of an unknown kind the `UnknownKinds` warning shows.
const UNKNOWN_NAMES_SHOWN: usize = 3;

/// Why one object could not be taken into the snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ObjectError {
    /// `Kind namespace/name` (or what is known of it).
    pub object: String,
    /// The JSON path of the offending field (`spec.containers[0].resources`), if any.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

/// `Kind ns/name: field `path`: message`, as warnings and watch errors say it.
impl std::fmt::Display for ObjectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: ", self.object)?;
        if let Some(field) = &self.field {
            write!(f, "field `{field}`: ")?;
        }
        f.write_str(&self.message)
    }
}

/// Accumulates objects into a snapshot. Feed it with [`Collector::add`], then [`finish`](Collector::finish).
#[derive(Debug, Default)]
pub struct Collector {
    snapshot: Snapshot,
    /// Objects of kinds wasctl does not model: count, and the first few `namespace/name`s.
    unknown: BTreeMap<String, (usize, Vec<String>)>,
    secrets: usize,
    facts_documents: usize,
    /// Facts documents that carried an `objectCount`, and the sum of their counts.
    counted_facts: usize,
    declared_objects: u64,
    /// True once a file was found cut short ([`Collector::check_complete`]).
    truncated: bool,
    /// The highest `formatVersion` of the facts documents read.
    format_version: u32,
}

/// How much a [`Collector`] held before a file was read into it, to judge that file alone.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FileMarks {
    objects: usize,
    facts_documents: usize,
    counted_facts: usize,
    declared_objects: u64,
}

fn type_of(value: &Value) -> (&str, &str) {
    let api_version = value
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let kind = value.get("kind").and_then(Value::as_str).unwrap_or("");
    (api_version, kind)
}

fn describe(value: &Value) -> String {
    let (_, kind) = type_of(value);
    let meta = value.get("metadata");
    let name = meta
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("<unnamed>");
    match meta
        .and_then(|m| m.get("namespace"))
        .and_then(Value::as_str)
    {
        Some(ns) => format!("{kind} {ns}/{name}"),
        None => format!("{kind} {name}"),
    }
}

/// Deserializes a typed object, reporting the failing field path, and prunes it.
fn typed<T: DeserializeOwned + prune::Prune + 'static>(
    mut value: Value,
    object: &str,
) -> Result<T, ObjectError> {
    let namespace = value
        .get("metadata")
        .and_then(|m| m.get("namespace"))
        .and_then(Value::as_str);
    let rules = T::rules(namespace);
    prune::prune_value(&mut value, rules);
    // Year-9999 times the API server accepts but jiff cannot hold (`snapshot::times`).
    crate::snapshot::times::clamp_value(&mut value);
    let mut o: T = serde_path_to_error::deserialize(value).map_err(|e| field_error(e, object))?;
    checked(&o, object)?;
    o.tidy();
    Ok(o)
}

/// Deserializes a typed object in `namespace` from JSON text, pruning while it reads (what
/// is pruned is never built), and reports the failing field path. Trailing characters after
/// the object are an error, as in `serde_json::from_str`.
///
/// The path is tracked only when the fast read failed: reading again with
/// `serde_path_to_error` costs a string per key, which is most of the time of a clean read.
fn typed_str<T: DeserializeOwned + prune::Prune + 'static>(
    text: &str,
    object: &str,
    namespace: Option<&str>,
) -> Result<T, ObjectError> {
    let rules = T::rules(namespace);
    let fast = {
        let mut de = serde_json::Deserializer::from_str(text);
        T::deserialize(prune::Pruned::new(&mut de, rules)).and_then(|o| de.end().map(|()| o))
    };
    let mut o = match fast {
        Ok(o) => o,
        // A time in the last two days of year 9999 (valid for the API server, past jiff's
        // range): read through the untyped path, which clamps it (`snapshot::times`).
        Err(_) if crate::snapshot::times::may_need_clamping(text) => {
            let value: Value = serde_json::from_str(text).map_err(|e| ObjectError {
                object: object.to_owned(),
                field: None,
                message: parse::strip_position(&e.to_string()),
            })?;
            return typed(value, object);
        }
        Err(_) => {
            let mut de = serde_json::Deserializer::from_str(text);
            let o: T = serde_path_to_error::deserialize(prune::Pruned::new(&mut de, rules))
                .map_err(|e| field_error(e, object))?;
            de.end().map_err(|e| ObjectError {
                object: object.to_owned(),
                field: None,
                message: parse::strip_position(&e.to_string()),
            })?;
            o
        }
    };
    checked(&o, object)?;
    o.tidy();
    Ok(o)
}

/// What the API server would have refused in a typed object (quantities: [`validate`]).
///
/// [`validate`]: crate::snapshot::validate
fn checked(o: &dyn std::any::Any, object: &str) -> Result<(), ObjectError> {
    crate::snapshot::validate::check(o).map_err(|(field, message)| ObjectError {
        object: object.to_owned(),
        field: Some(field),
        message,
    })
}

/// An [`ObjectError`] naming the failing field (the position serde_json appends is dropped:
/// the loader reports its own).
fn field_error(e: serde_path_to_error::Error<serde_json::Error>, object: &str) -> ObjectError {
    let path = e.path().to_string();
    ObjectError {
        object: object.to_owned(),
        field: (path != ".").then_some(path),
        message: parse::strip_position(&e.into_inner().to_string()),
    }
}

/// Why [`Collector::add_json`] refused its input.
#[derive(Debug)]
pub(crate) enum JsonError {
    /// The text is not JSON the loader accepts (e.g. nested deeper than serde_json's limit).
    Syntax(serde_json::Error),
    /// An object that does not fit its type.
    Object(ObjectError),
}

impl From<ObjectError> for JsonError {
    fn from(e: ObjectError) -> Self {
        Self::Object(e)
    }
}

/// The object's `apiVersion` and `kind` when they are its first two keys, as plain strings
/// (no escapes), which is how both the API server (`kind`, `apiVersion`) and kubectl
/// (sorted keys) write them; `None` for anything else, which then takes the full [`Head`]
/// read. Costs a few bytes of lexing instead of a pass over the whole object.
fn leading_type(text: &str) -> Option<(&str, &str)> {
    fn ws(b: &[u8], mut i: usize) -> usize {
        while b
            .get(i)
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
        {
            i += 1;
        }
        i
    }
    // A string without escapes starting at `i` (at its quote): its contents and the index
    // after the closing quote.
    fn plain(text: &str, i: usize) -> Option<(&str, usize)> {
        let b = text.as_bytes();
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let len = b
            .get(i + 1..)?
            .iter()
            .position(|c| matches!(c, b'"' | b'\\'))?;
        let end = i + 1 + len;
        if b.get(end) != Some(&b'"') {
            return None;
        }
        Some((text.get(i + 1..end)?, end + 1))
    }
    let b = text.as_bytes();
    let mut i = ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    let (mut api_version, mut kind) = (None, None);
    for n in 0..2 {
        // Past the `{`, then past the `,`.
        i = ws(b, i + 1);
        let (key, after) = plain(text, i)?;
        i = ws(b, after);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let (value, after) = plain(text, ws(b, i + 1))?;
        match key {
            "apiVersion" if api_version.is_none() => api_version = Some(value),
            "kind" if kind.is_none() => kind = Some(value),
            _ => return None,
        }
        i = ws(b, after);
        // A comma after the first pair; after the second, whatever follows is the full
        // read's to check.
        if n == 0 && b.get(i) != Some(&b',') {
            return None;
        }
    }
    Some((api_version?, kind?))
}

/// Reads a typed object from JSON text the quick way: with the rules for any namespace, no
/// path tracking and no head read first. `None` when anything is off (a syntax or type error,
/// a refused quantity, a missing name), and the caller then takes the full read, which
/// reports it; a clean object comes out the same either way (pruning ends in `tidy`).
fn quick_typed<T>(text: &str) -> Option<T>
where
    T: DeserializeOwned + prune::Prune + k8s_openapi::Metadata<Ty = ObjectMeta> + 'static,
{
    let mut de = serde_json::Deserializer::from_str(text);
    let mut o = T::deserialize(prune::Pruned::new(&mut de, T::rules_any_namespace())).ok()?;
    de.end().ok()?;
    if o.metadata().name.as_deref().is_none_or(str::is_empty) || checked(&o, "").is_err() {
        return None;
    }
    o.tidy();
    Some(o)
}

/// What [`Collector::add_json`] reads first: the type, the name, and a List's items as raw text.
#[derive(serde::Deserialize)]
struct Head<'a> {
    #[serde(rename = "apiVersion", borrow)]
    api_version: Option<Cow<'a, str>>,
    #[serde(borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    metadata: Option<HeadMeta<'a>>,
    #[serde(borrow)]
    items: Option<Vec<&'a RawValue>>,
}

#[derive(serde::Deserialize)]
struct HeadMeta<'a> {
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    namespace: Option<Cow<'a, str>>,
}

impl Collector {
    /// Adds one object (or a `List`) given as JSON text. Nodes, pods, namespaces and Jobs, the bulk of
    /// any snapshot, are deserialized straight from the text; everything else, and anything
    /// unusual about the head (missing type or name, non-string fields), takes the
    /// [`Collector::add`] path, so errors are the same either way.
    pub(crate) fn add_json(&mut self, text: &str) -> Result<(), JsonError> {
        if let Some(type_) = leading_type(text) {
            let s = &mut self.snapshot;
            let added = match type_ {
                ("v1", "Pod") => {
                    quick_typed::<ApiPod>(text).map(|p| s.pods.push(Arc::new(p.into())))
                }
                ("v1", "Node") => quick_typed(text).map(|n| s.nodes.push(n)),
                ("v1", "Namespace") => quick_typed(text).map(|n| s.namespaces.push(n)),
                ("batch/v1", "Job") => {
                    quick_typed::<ApiJob>(text).map(|j| s.jobs.push(Arc::new(j.into())))
                }
                _ => None,
            };
            if added.is_some() {
                return Ok(());
            }
        }
        let slow = |c: &mut Self| match serde_json::from_str::<Value>(text) {
            Ok(value) => c.add(value).map_err(JsonError::Object),
            Err(e) => Err(JsonError::Syntax(e)),
        };
        let Ok(head) = serde_json::from_str::<Head<'_>>(text) else {
            return slow(self);
        };
        let api_version = head.api_version.as_deref().unwrap_or("");
        let kind = head.kind.as_deref().unwrap_or("");
        if kind == "List" || kind.ends_with("List") {
            let Some(items) = head.items else {
                return slow(self);
            };
            for (i, item) in items.iter().enumerate() {
                self.add_json(item.get()).map_err(|e| match e {
                    JsonError::Object(mut e) => {
                        e.field = Some(match e.field.take() {
                            Some(f) => format!("items[{i}].{f}"),
                            None => format!("items[{i}]"),
                        });
                        JsonError::Object(e)
                    }
                    syntax @ JsonError::Syntax(_) => syntax,
                })?;
            }
            return Ok(());
        }
        let meta = head.metadata.as_ref();
        let name = meta.and_then(|m| m.name.as_deref()).unwrap_or("");
        if name.is_empty() {
            return slow(self);
        }
        let object = match meta.and_then(|m| m.namespace.as_deref()) {
            Some(ns) => format!("{kind} {ns}/{name}"),
            None => format!("{kind} {name}"),
        };
        let namespace = meta.and_then(|m| m.namespace.as_deref());
        let s = &mut self.snapshot;
        match (api_version, kind) {
            ("v1", "Pod") => s.pods.push(Arc::new(
                typed_str::<ApiPod>(text, &object, namespace)?.into(),
            )),
            ("v1", "Node") => s.nodes.push(typed_str(text, &object, namespace)?),
            ("v1", "Namespace") => s.namespaces.push(typed_str(text, &object, namespace)?),
            _ => return slow(self),
        }
        Ok(())
    }

    /// Adds one item of a live list page, given as JSON text, typed as `kind` at
    /// `api_version` (list items usually carry neither). The bulk kinds are deserialized straight
    /// from the text into their types; versions that need converting and untyped kinds take
    /// the [`Collector::add`] path with the type filled in.
    pub(crate) fn add_item_json(
        &mut self,
        api_version: &str,
        kind: &str,
        text: &str,
    ) -> Result<(), JsonError> {
        fn named<
            T: DeserializeOwned + prune::Prune + k8s_openapi::Metadata<Ty = ObjectMeta> + 'static,
        >(
            kind: &str,
            text: &str,
        ) -> Result<T, ObjectError> {
            if let Some(o) = quick_typed::<T>(text) {
                return Ok(o);
            }
            let object = |text: &str| {
                let head = serde_json::from_str::<Head<'_>>(text).ok();
                let meta = head.as_ref().and_then(|h| h.metadata.as_ref());
                let name = meta.and_then(|m| m.name.as_deref()).unwrap_or("<unnamed>");
                match meta.and_then(|m| m.namespace.as_deref()) {
                    Some(ns) => format!("{kind} {ns}/{name}"),
                    None => format!("{kind} {name}"),
                }
            };
            // The rules depend on the namespace only for pods (kube-system keeps commands).
            let head;
            let namespace = if std::ptr::eq(T::rules(None), T::rules(Some("kube-system"))) {
                None
            } else {
                head = serde_json::from_str::<Head<'_>>(text).ok();
                head.as_ref()
                    .and_then(|h| h.metadata.as_ref())
                    .and_then(|m| m.namespace.as_deref())
            };
            let o: T = typed_str(text, kind, namespace).map_err(|mut e| {
                e.object = object(text);
                e
            })?;
            if o.metadata().name.as_deref().is_none_or(str::is_empty) {
                return Err(ObjectError {
                    object: object(text),
                    field: Some("metadata.name".to_owned()),
                    message: "missing or empty".to_owned(),
                });
            }
            Ok(o)
        }
        let s = &mut self.snapshot;
        match (api_version, kind) {
            ("v1", "Pod") => s.pods.push(Arc::new(named::<ApiPod>(kind, text)?.into())),
            ("v1", "Node") => s.nodes.push(named(kind, text)?),
            ("v1", "Namespace") => s.namespaces.push(named(kind, text)?),
            ("batch/v1", "Job") => s.jobs.push(Arc::new(named::<ApiJob>(kind, text)?.into())),
            ("scheduling.k8s.io/v1beta1", "PodGroup") => s.pod_groups.push(named(kind, text)?),
            ("scheduling.k8s.io/v1beta1", "Workload") => s.workloads.push(named(kind, text)?),
            ("resource.k8s.io/v1", "ResourceClaim") => {
                s.resource_claims.push(named(kind, text)?);
            }
            ("resource.k8s.io/v1", "ResourceSlice") => {
                s.resource_slices.push(named(kind, text)?);
            }
            _ => {
                let mut value: Value = serde_json::from_str(text).map_err(JsonError::Syntax)?;
                if let Some(obj) = value.as_object_mut() {
                    obj.insert("apiVersion".to_owned(), Value::from(api_version));
                    obj.insert("kind".to_owned(), Value::from(kind));
                }
                self.add(value)?;
            }
        }
        Ok(())
    }

    /// A collector with nothing in it.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one object (or a `List` of objects). Returns an error for a known kind whose
    /// fields do not fit its type, or an object without `apiVersion`, `kind` or name.
    pub(crate) fn add(&mut self, value: Value) -> Result<(), ObjectError> {
        let (api_version, kind) = type_of(&value);
        let (api_version, kind) = (api_version.to_owned(), kind.to_owned());
        let (api_version, kind) = (api_version.as_str(), kind.as_str());
        if api_version.is_empty() || kind.is_empty() {
            if value.is_null() {
                return Ok(()); // an empty YAML document
            }
            return Err(ObjectError {
                object: describe(&value),
                field: Some(
                    if api_version.is_empty() {
                        "apiVersion"
                    } else {
                        "kind"
                    }
                    .to_owned(),
                ),
                message: "missing or not a string".to_owned(),
            });
        }
        if kind == "List" || (kind.ends_with("List") && value.get("items").is_some()) {
            return self.add_list(kind, value);
        }
        if api_version == WASCTL_API_VERSION && kind == "ClusterFacts" {
            let facts: ClusterFacts = typed(value, "ClusterFacts")?;
            self.merge_facts(facts);
            return Ok(());
        }
        if kind == scheduler_config::KIND && api_version.starts_with("kubescheduler.config.k8s.io/")
        {
            return self.add_scheduler_config(value);
        }
        if kind == super::kueue_config::KIND
            && api_version.starts_with(&format!("{}/", super::kueue_config::GROUP))
        {
            return self.add_kueue_config(value);
        }
        let object = describe(&value);
        let has_name = value
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Value::as_str)
            .is_some_and(|n| !n.is_empty());
        if !has_name {
            return Err(ObjectError {
                object,
                field: Some("metadata.name".to_owned()),
                message: "missing or empty".to_owned(),
            });
        }
        self.store(api_version, kind, value, &object)
    }

    /// Takes a `KubeSchedulerConfiguration` document (the cluster's scheduler configuration,
    /// beside the objects: `snapshot` writes it so a dump reproduces the run). One per input.
    fn add_scheduler_config(&mut self, value: Value) -> Result<(), ObjectError> {
        let object = scheduler_config::KIND.to_owned();
        if self.snapshot.scheduler_config.is_some() {
            return Err(ObjectError {
                object,
                field: None,
                message: "a second KubeSchedulerConfiguration: kube-scheduler runs with one (give each profile in one document)".to_owned(),
            });
        }
        let loaded =
            super::LoadedSchedulerConfig::from_value(value, "--from").map_err(|e| ObjectError {
                object,
                field: (!e.field.is_empty()).then_some(e.field),
                message: e.message,
            })?;
        self.snapshot.scheduler_config = Some(loaded);
        Ok(())
    }

    /// Takes a Kueue manager `Configuration` document (`config.kueue.x-k8s.io`: Kueue's own
    /// configuration, written by `snapshot` beside the objects). One per input.
    fn add_kueue_config(&mut self, value: Value) -> Result<(), ObjectError> {
        let object = "Configuration.config.kueue.x-k8s.io".to_owned();
        if self.snapshot.kueue_config.is_some() {
            return Err(ObjectError {
                object,
                field: None,
                message: "a second Kueue Configuration: Kueue's manager runs with one".to_owned(),
            });
        }
        let loaded =
            super::LoadedKueueConfig::from_value(value, "--from").map_err(|e| ObjectError {
                object,
                field: (!e.field.is_empty()).then_some(e.field),
                message: e.message,
            })?;
        self.snapshot.kueue_config = Some(loaded);
        Ok(())
    }

    /// Adds the items of a `List` (a `kind` ending in `List` with `items`) one by one; an
    /// item's error names its index in the field path.
    fn add_list(&mut self, kind: &str, mut value: Value) -> Result<(), ObjectError> {
        let items = match value.get_mut("items").map(Value::take) {
            Some(Value::Array(items)) => items,
            Some(Value::Null) | None => Vec::new(),
            Some(_) => {
                return Err(ObjectError {
                    object: kind.to_owned(),
                    field: Some("items".to_owned()),
                    message: "expected a sequence of objects".to_owned(),
                });
            }
        };
        for (i, item) in items.into_iter().enumerate() {
            self.add(item).map_err(|mut e| {
                e.field = Some(match e.field.take() {
                    Some(f) => format!("items[{i}].{f}"),
                    None => format!("items[{i}]"),
                });
                e
            })?;
        }
        Ok(())
    }

    /// Stores a named object under its kind: a typed list for the kinds the simulator reads
    /// (older scheduling and DRA versions converted, the version read recorded), raw for
    /// stale scheduling versions and foreign groups, a count for Secrets and unknown kinds.
    fn store(
        &mut self,
        api_version: &str,
        kind: &str,
        mut value: Value,
        object: &str,
    ) -> Result<(), ObjectError> {
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        let s = &mut self.snapshot;
        match (group, version, kind) {
            ("", "v1", "Secret") => self.secrets += 1,
            ("", "v1", "Node") => s.nodes.push(typed(value, object)?),
            ("", "v1", "Pod") => s
                .pods
                .push(Arc::new(typed::<ApiPod>(value, object)?.into())),
            ("", "v1", "Namespace") => s.namespaces.push(typed(value, object)?),
            // PodTopologySpread's system-default selector reads them (`helper.DefaultSelector`).
            ("", "v1", "Service" | "ReplicationController") => {
                s.selecting.push(raw(value, object)?);
            }
            ("", "v1", "ConfigMap")
                if value.pointer("/metadata/namespace").and_then(Value::as_str)
                    == Some(crate::snapshot::yunikorn_queues::NAMESPACE)
                    && value.pointer("/metadata/name").and_then(Value::as_str)
                        == Some(crate::snapshot::yunikorn_queues::NAME) =>
            {
                s.yunikorn_queues = crate::snapshot::yunikorn_queues::from_config_map(&value);
            }
            ("" | "events.k8s.io", "v1", "Event") => {
                // Only what a report reads is kept (`events::is_kept`).
                let value = if group.is_empty() {
                    value
                } else {
                    crate::snapshot::events::from_events_v1(value)
                };
                if crate::snapshot::events::is_kept(&value) {
                    s.events.push(typed(value, object)?);
                }
            }
            ("batch", "v1", "Job") => {
                s.jobs
                    .push(Arc::new(typed::<ApiJob>(value, object)?.into()));
            }
            ("", "v1", "LimitRange") => s.limit_ranges.push(typed(value, object)?),
            ("", "v1", "ResourceQuota") => s.resource_quotas.push(typed(value, object)?),
            ("node.k8s.io", "v1", "RuntimeClass") => {
                s.runtime_classes.push(typed(value, object)?);
            }
            ("policy", "v1", "PodDisruptionBudget") => {
                s.pod_disruption_budgets.push(typed(value, object)?);
            }
            ("scheduling.k8s.io", "v1", "PriorityClass") => {
                s.priority_classes.push(typed(value, object)?);
            }
            ("scheduling.k8s.io", "v1beta1" | "v1alpha3", "PodGroup" | "Workload") => {
                if version != "v1beta1" {
                    let key = object_key(kind, &value);
                    s.read_as.insert(key, api_version.to_owned());
                    value["apiVersion"] = Value::from("scheduling.k8s.io/v1beta1");
                }
                if kind == "PodGroup" {
                    s.pod_groups.push(typed(value, object)?);
                } else {
                    s.workloads.push(typed(value, object)?);
                }
            }
            ("scheduling.k8s.io", "v1alpha3", "CompositePodGroup") => {
                s.composite_pod_groups.push(typed(value, object)?);
            }
            ("scheduling.k8s.io", "v1alpha1" | "v1alpha2", _) => s.stale.push(raw(value, object)?),
            ("resource.k8s.io", "v1" | "v1beta2", _) if is_dra_kind(kind) => {
                if version != "v1" {
                    let key = object_key(kind, &value);
                    s.read_as.insert(key, api_version.to_owned());
                    value["apiVersion"] = Value::from("resource.k8s.io/v1");
                }
                match kind {
                    "ResourceClaim" => s.resource_claims.push(typed(value, object)?),
                    "ResourceClaimTemplate" => {
                        s.resource_claim_templates.push(typed(value, object)?);
                    }
                    "ResourceSlice" => s.resource_slices.push(typed(value, object)?),
                    "DeviceClass" => s.device_classes.push(typed(value, object)?),
                    _ => s.device_taint_rules.push(typed(value, object)?),
                }
            }
            _ if crate::snapshot::kueue::is_typed(api_version, kind) => {
                // Typed for Kueue's admission; the graph and doctor name the object from a
                // raw copy of its type and metadata only.
                prune::prune_value(&mut value, &prune::KUEUE);
                crate::snapshot::times::clamp_value(&mut value);
                let o = crate::snapshot::kueue::parse(value.clone())
                    .map_err(|e| field_error(e, object))?;
                s.kueue.push(o);
                let mut head = serde_json::Map::new();
                for key in ["apiVersion", "kind", "metadata"] {
                    if let Some(v) = value.get_mut(key) {
                        head.insert(key.to_owned(), v.take());
                    }
                }
                s.foreign.push(raw(Value::Object(head), object)?);
            }
            _ if crate::snapshot::volcano::is_typed(api_version, kind) => {
                // Kept raw (the graph, export and the watch treat it as any owner object),
                // typed by `Snapshot::build`: checked here so a wrong field is an error.
                let value = {
                    let mut v = value;
                    prune::prune_value(&mut v, &prune::META_ONLY);
                    crate::snapshot::times::clamp_value(&mut v);
                    v
                };
                crate::snapshot::volcano::check(&value).map_err(|e| field_error(e, object))?;
                s.foreign.push(raw(value, object)?);
            }
            _ if FOREIGN_GROUPS.contains(&group) => s.foreign.push(raw(value, object)?),
            _ => self.count_unknown(api_version, kind, &value),
        }
        Ok(())
    }

    /// Counts an object of a kind wasctl does not read, keeping the first few names to show.
    fn count_unknown(&mut self, api_version: &str, kind: &str, value: &Value) {
        let meta = value.get("metadata");
        let field = |f: &str| {
            meta.and_then(|m| m.get(f))
                .and_then(Value::as_str)
                .unwrap_or_default()
        };
        let who = match field("namespace") {
            "" => field("name").to_owned(),
            ns => format!("{ns}/{}", field("name")),
        };
        let entry = self
            .unknown
            .entry(format!("{api_version}/{kind}"))
            .or_default();
        entry.0 += 1;
        if entry.1.len() < UNKNOWN_NAMES_SHOWN {
            entry.1.push(who);
        }
    }

    /// Merges a `ClusterFacts` document (later documents add to and override earlier ones).
    pub(crate) fn merge_facts(&mut self, mut facts: ClusterFacts) {
        self.facts_documents += 1;
        // The count describes the file, not the cluster: it is checked once the file is
        // read, never kept.
        if let Some(v) = facts.format_version.take() {
            self.format_version = self.format_version.max(v);
        }
        if let Some(n) = facts.object_count.take() {
            self.counted_facts += 1;
            self.declared_objects = self.declared_objects.saturating_add(n);
        }
        let mine = &mut self.snapshot.facts;
        if facts.snapshot_time.is_some() {
            mine.snapshot_time = facts.snapshot_time;
        }
        if facts.server_version.is_some() {
            mine.server_version = facts.server_version;
        }
        mine.served_versions.extend(facts.served_versions);
        mine.coverage.extend(facts.coverage);
        mine.assumed.extend(facts.assumed);
        for c in facts.components {
            mine.components
                .retain(|m| !(m.component == c.component && m.node == c.node));
            mine.components.push(c);
        }
    }

    /// True when a `ClusterFacts` document was read (a `wasctl snapshot` file, or a fixture
    /// that describes its cluster): such a file vouches for its kinds being complete unless
    /// its `coverage` says otherwise.
    ///
    /// A snapshot file found cut short vouches for nothing.
    pub(crate) fn has_facts_document(&self) -> bool {
        self.facts_documents > 0 && !self.truncated
    }

    /// What this collector holds now, before a file is read into it.
    pub(crate) fn marks(&self) -> FileMarks {
        FileMarks {
            objects: self.len(),
            facts_documents: self.facts_documents,
            counted_facts: self.counted_facts,
            declared_objects: self.declared_objects,
        }
    }

    /// After the file `path` was read into this collector (which held `before`): warns when
    /// the file is a snapshot cut short. A `wasctl snapshot` file (`header`: it starts with
    /// [`SNAPSHOT_HEADER`](crate::snapshot::facts::SNAPSHOT_HEADER)) ends with a
    /// `ClusterFacts` document that counts the objects before it; a file without a count (an
    /// older snapshot, a hand-written fixture) is not judged.
    pub(crate) fn check_complete(&mut self, path: &str, before: FileMarks, header: bool) {
        let read = u64::try_from(self.len().saturating_sub(before.objects)).unwrap_or(u64::MAX);
        let facts = self.facts_documents.saturating_sub(before.facts_documents);
        let counted = self.counted_facts.saturating_sub(before.counted_facts);
        let declared = self
            .declared_objects
            .saturating_sub(before.declared_objects);
        let what = if counted > 0 {
            if read == declared {
                return;
            } else if read < declared {
                format!("{read} of {declared} objects")
            } else {
                format!(
                    "{read} objects, but its ClusterFacts document counts {declared} (was it edited or cut inside that document?)"
                )
            }
        } else if header && facts == 0 {
            format!("its ClusterFacts document, written last, is missing ({read} objects read)")
        } else if header {
            "its ClusterFacts document, written last, lacks its `objectCount`".to_owned()
        } else {
            return;
        };
        self.truncated = true;
        self.warn(Warning::new(
            "TruncatedSnapshot",
            format!(
                "snapshot `{path}` is truncated: {what}. Objects and facts after the cut are missing, so findings about them are not checked; take the snapshot again"
            ),
        ));
    }

    /// Appends everything `other` collected after what this collector holds, as if its
    /// objects had been added here one by one (parallel loading merges per-chunk collectors
    /// in input order, so "the last copy wins" and facts overrides keep their meaning).
    pub(crate) fn merge(&mut self, other: Collector) {
        let Collector {
            snapshot: o,
            unknown,
            secrets,
            facts_documents,
            counted_facts,
            declared_objects,
            truncated,
            format_version,
        } = other;
        self.format_version = self.format_version.max(format_version);
        self.counted_facts += counted_facts;
        self.declared_objects = self.declared_objects.saturating_add(declared_objects);
        self.truncated |= truncated;
        for (k, (n, names)) in unknown {
            let entry = self.unknown.entry(k).or_default();
            entry.0 += n;
            let room = UNKNOWN_NAMES_SHOWN.saturating_sub(entry.1.len());
            entry.1.extend(names.into_iter().take(room));
        }
        self.secrets += secrets;
        if facts_documents > 0 {
            self.merge_facts(o.facts);
            self.facts_documents += facts_documents - 1;
        }
        let s = &mut self.snapshot;
        macro_rules! append {
            // Into an empty vector without room reserved, the other's buffer is taken as it
            // is (no copy of a 150,000-pod list).
            ($($field:ident),* $(,)?) => { $(
                if s.$field.is_empty() && s.$field.capacity() < o.$field.len() {
                    s.$field = o.$field;
                } else {
                    s.$field.extend(o.$field);
                }
            )* };
        }
        crate::snapshot::object_lists!(append);
        s.kueue.extend(o.kueue);
        s.warnings.extend(o.warnings);
        s.read_as.extend(o.read_as);
        // A KubeSchedulerConfiguration document read by another chunk; two in one chunk
        // are refused by `add`, two in different chunks keep the first (in input order).
        match (&s.scheduler_config, o.scheduler_config) {
            (None, theirs) => s.scheduler_config = theirs,
            (Some(_), Some(_)) => s.warnings.push(Warning::new(
                "SecondSchedulerConfig",
                "the input holds more than one KubeSchedulerConfiguration: the first is used (kube-scheduler runs with one; give every profile in one document)",
            )),
            (Some(_), None) => {}
        }
        if s.yunikorn_queues == crate::snapshot::yunikorn_queues::YunikornQueues::NotRead {
            s.yunikorn_queues = o.yunikorn_queues;
        }
        match (&s.kueue_config, o.kueue_config) {
            (None, theirs) => s.kueue_config = theirs,
            (Some(_), Some(_)) => s.warnings.push(Warning::new(
                "SecondKueueConfig",
                "the input holds more than one Kueue Configuration: the first is used (Kueue's manager runs with one)",
            )),
            (Some(_), None) => {}
        }
    }

    /// Reserves room for merging `others` (exactly: a 150,000-pod list read in batches used to
    /// grow its vectors by doubling while merging, leaving up to half of a 2.5 KB-per-pod
    /// buffer unused and copying it at every growth).
    pub(crate) fn reserve_for<'a>(&mut self, others: impl Iterator<Item = &'a Collector> + Clone) {
        let s = &mut self.snapshot;
        macro_rules! reserve {
            ($($field:ident),* $(,)?) => { $(
                s.$field.reserve(others.clone().map(|o| o.snapshot.$field.len()).sum());
            )* };
        }
        crate::snapshot::object_lists!(reserve);
    }

    /// Number of objects collected so far (for progress).
    pub(crate) fn len(&self) -> usize {
        self.snapshot.object_count()
    }

    /// Records a warning (e.g. a forbidden resource in live mode).
    pub(crate) fn warn(&mut self, warning: Warning) {
        self.snapshot.warnings.push(warning);
    }

    /// Turns what was collected into an indexed snapshot, with warnings for unknown kinds,
    /// skipped Secrets and duplicates.
    pub fn finish(mut self) -> Snapshot {
        if self.format_version > crate::snapshot::facts::SNAPSHOT_FORMAT_VERSION {
            self.snapshot.warnings.push(Warning::new(
                "NewerSnapshotFormat",
                format!(
                    "the input was written by a newer wasctl (snapshot formatVersion {}; this wasctl reads up to {}): what that version added is ignored",
                    self.format_version,
                    crate::snapshot::facts::SNAPSHOT_FORMAT_VERSION
                ),
            ));
        }
        if !self.unknown.is_empty() {
            let total: usize = self.unknown.values().map(|(n, _)| n).sum();
            // Each kind with the objects it names (a few), so an `--add` file's object that
            // nothing uses is named, never silently dropped.
            let kinds: Vec<String> = self
                .unknown
                .iter()
                .map(|(k, (n, names))| {
                    let more = if *n > names.len() { ", …" } else { "" };
                    let names: Vec<String> = names.iter().map(|x| format!("`{x}`")).collect();
                    format!("{n} {k} ({}{more})", names.join(", "))
                })
                .collect();
            self.snapshot.warnings.push(Warning::new(
                "UnknownKinds",
                format!(
                    "{total} object(s) of kinds wasctl does not model were not loaded: {}",
                    kinds.join(", ")
                ),
            ));
        }
        if self.secrets > 0 {
            self.snapshot.warnings.push(Warning::new(
                "SecretsSkipped",
                format!(
                    "{} Secret(s) in the input were skipped: wasctl never reads Secrets",
                    self.secrets
                ),
            ));
        }
        let duplicates = dedup_all(&mut self.snapshot);
        if duplicates > 0 {
            self.snapshot.warnings.push(Warning::new(
                "Duplicates",
                format!("{duplicates} object(s) appeared more than once; the last copy was kept"),
            ));
        }
        self.snapshot.build()
    }
}

fn is_dra_kind(kind: &str) -> bool {
    matches!(
        kind,
        "ResourceClaim"
            | "ResourceClaimTemplate"
            | "ResourceSlice"
            | "DeviceClass"
            | "DeviceTaintRule"
    )
}

fn object_key(kind: &str, value: &Value) -> (String, String, String) {
    let meta = value.get("metadata");
    let field = |f: &str| {
        meta.and_then(|m| m.get(f))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    (kind.to_owned(), field("namespace"), field("name"))
}

fn raw(mut value: Value, object: &str) -> Result<RawObject, ObjectError> {
    prune::prune_value(&mut value, &prune::META_ONLY);
    let (api_version, kind) = type_of(&value);
    let (api_version, kind) = (api_version.to_owned(), kind.to_owned());
    let metadata: ObjectMeta = match value.get("metadata") {
        Some(m) => typed(m.clone(), object).map_err(|mut e| {
            e.field = Some(format!("metadata.{}", e.field.unwrap_or_default()));
            e
        })?,
        None => ObjectMeta::default(),
    };
    Ok(RawObject {
        api_version,
        kind,
        metadata,
        value,
    })
}

/// Removes earlier copies of objects that appear twice (same kind, namespace, name), keeping
/// the last one read. Lists are stable-sorted by key first. Returns how many were removed.
fn dedup_all(s: &mut Snapshot) -> usize {
    fn dedup<T>(list: &mut Vec<T>, meta: impl Fn(&T) -> &ObjectMeta) -> usize {
        // Lists from the API server come sorted and unique: check that first, without copies.
        let sorted_unique = list.windows(2).all(|w| {
            let (a, b) = (meta(&w[0]), meta(&w[1]));
            (
                a.namespace.as_deref().unwrap_or(""),
                a.name.as_deref().unwrap_or(""),
            ) < (
                b.namespace.as_deref().unwrap_or(""),
                b.name.as_deref().unwrap_or(""),
            )
        });
        if sorted_unique {
            return 0;
        }
        let key = |o: &T| {
            let m = meta(o);
            (
                m.namespace.clone().unwrap_or_default(),
                m.name.clone().unwrap_or_default(),
            )
        };
        list.sort_by_cached_key(&key);
        let before = list.len();
        // Keep the last of each run of equal keys: reverse, dedup keeping first, reverse.
        list.reverse();
        list.dedup_by(|a, b| {
            let (a, b) = (meta(a), meta(b));
            a.namespace.as_deref().unwrap_or("") == b.namespace.as_deref().unwrap_or("")
                && a.name.as_deref().unwrap_or("") == b.name.as_deref().unwrap_or("")
        });
        list.reverse();
        before - list.len()
    }
    let mut n = 0;
    n += dedup(&mut s.nodes, |o| &o.metadata);
    n += dedup(&mut s.pods, |o| &o.metadata);
    n += dedup(&mut s.pod_groups, |o| &o.metadata);
    n += dedup(&mut s.composite_pod_groups, |o| &o.metadata);
    n += dedup(&mut s.workloads, |o| &o.metadata);
    n += dedup(&mut s.resource_claims, |o| &o.metadata);
    n += dedup(&mut s.resource_claim_templates, |o| &o.metadata);
    n += dedup(&mut s.resource_slices, |o| &o.metadata);
    n += dedup(&mut s.device_classes, |o| &o.metadata);
    n += dedup(&mut s.device_taint_rules, |o| &o.metadata);
    n += dedup(&mut s.priority_classes, |o| &o.metadata);
    n += dedup(&mut s.pod_disruption_budgets, |o| &o.metadata);
    n += dedup(&mut s.limit_ranges, |o| &o.metadata);
    n += dedup(&mut s.resource_quotas, |o| &o.metadata);
    n += dedup(&mut s.runtime_classes, |o| &o.metadata);
    n += dedup(&mut s.jobs, |o| &o.metadata);
    n += dedup(&mut s.namespaces, |o| &o.metadata);
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn v1alpha3_podgroup_is_converted_and_remembered() {
        let mut c = Collector::new();
        c.add(
            json!({"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "PodGroup",
            "metadata": {"name": "pg", "namespace": "ml"},
            "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}}),
        )
        .unwrap();
        let s = c.finish();
        assert_eq!(s.pod_groups.len(), 1);
        assert_eq!(
            s.read_as
                .get(&("PodGroup".into(), "ml".into(), "pg".into()))
                .map(String::as_str),
            Some("scheduling.k8s.io/v1alpha3")
        );
        assert!(s.pod_group("ml", "pg").is_some());
    }

    #[test]
    fn stale_foreign_unknown_and_secrets_are_sorted_out() {
        let mut c = Collector::new();
        c.add(
            json!({"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
            "metadata": {"name": "old", "namespace": "ml"}}),
        )
        .unwrap();
        c.add(
            json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": "js", "namespace": "ml"}}),
        )
        .unwrap();
        c.add(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}}))
            .unwrap();
        c.add(
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
            "data": {"k": "c2VjcmV0"}}),
        )
        .unwrap();
        let s = c.finish();
        assert_eq!(s.stale.len(), 1);
        assert_eq!(s.foreign.len(), 1);
        let codes: Vec<_> = s.warnings.iter().map(|w| w.code.as_str()).collect();
        assert_eq!(codes, ["SecretsSkipped", "UnknownKinds"]);
        assert!(s.warnings[1].message.contains("1 v1/ConfigMap"));
    }

    #[test]
    fn wrong_field_type_names_the_field_path() {
        let mut c = Collector::new();
        let err = c
            .add(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ml"},
                "spec": {"containers": [{"name": "c", "ports": "eighty"}]}}))
            .unwrap_err();
        assert_eq!(err.object, "Pod ml/p");
        assert_eq!(err.field.as_deref(), Some("spec.containers[0].ports"));
    }

    #[test]
    fn list_items_are_added_and_errors_point_into_items() {
        let mut c = Collector::new();
        let err = c
            .add(json!({"apiVersion": "v1", "kind": "List", "items": [
                {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}},
                {"apiVersion": "v1", "kind": "Node", "metadata": {}}]}))
            .unwrap_err();
        assert_eq!(err.field.as_deref(), Some("items[1].metadata.name"));
    }

    #[test]
    fn duplicates_keep_the_last_copy() {
        let mut c = Collector::new();
        for cpu in ["1", "2"] {
            c.add(
                json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
                "status": {"allocatable": {"cpu": cpu}}}),
            )
            .unwrap();
        }
        let s = c.finish();
        assert_eq!(s.nodes.len(), 1);
        let cpu = &s.nodes[0]
            .status
            .as_ref()
            .unwrap()
            .allocatable
            .as_ref()
            .unwrap()["cpu"];
        assert_eq!(cpu.0, "2");
        assert!(s.warnings.iter().any(|w| w.code == "Duplicates"));
    }

    #[test]
    fn leading_type_reads_only_plain_leading_pairs() {
        assert_eq!(
            leading_type(r#" {"apiVersion": "v1", "kind": "Pod", "metadata": {}}"#),
            Some(("v1", "Pod"))
        );
        // The API server's order.
        assert_eq!(
            leading_type("{\n  \"kind\":\"Node\",\n  \"apiVersion\":\"v1\"}"),
            Some(("v1", "Node"))
        );
        for other in [
            r#"{"metadata": {}, "apiVersion": "v1", "kind": "Pod"}"#,
            r#"{"apiVersion": "v1"}"#,
            r#"{"apiVersion": "v1", "apiVersion": "v1"}"#,
            r#"{"apiVersion": "v\u0031", "kind": "Pod"}"#,
            r#"{"apiVersion": 1, "kind": "Pod"}"#,
            r#"{"apiVersion": "v1" "kind": "Pod"}"#,
            r#"["apiVersion"]"#,
            r#"{"apiVersion": "v1", "kind": "Po"#,
            "",
        ] {
            assert_eq!(leading_type(other), None, "{other}");
        }
    }

    /// The quick read (rules for any namespace, finished by `tidy`) and the full read (the
    /// namespace's own rules) give the same object, and every error still comes from the
    /// full read.
    #[test]
    fn quick_and_full_reads_agree() {
        let pod = |ns: &str| {
            format!(
                r#"{{"apiVersion": "v1", "kind": "Pod", "metadata": {{"name": "p", "namespace": "{ns}",
                "managedFields": [{{"manager": "m"}}]}}, "spec": {{"containers": [{{"name": "c",
                "command": ["run"], "args": ["--feature-gates=A=true"], "env": [{{"name": "E"}}]}}],
                "initContainers": [{{"name": "i", "command": ["init"]}}]}}}}"#
            )
        };
        for ns in ["ml", "kube-system"] {
            let text = pod(ns);
            let mut quick = Collector::new();
            quick.add_json(&text).unwrap();
            let mut full = Collector::new();
            full.add(serde_json::from_str(&text).unwrap()).unwrap();
            let (quick, full) = (quick.finish(), full.finish());
            let as_json = |s: &Snapshot| serde_json::to_value(&s.pods).unwrap();
            assert_eq!(as_json(&quick), as_json(&full), "{ns}");
            let spec = quick.pods[0].spec.as_ref().unwrap();
            let kept = ns == "kube-system";
            assert_eq!(spec.containers[0].command.is_some(), kept, "{ns}");
            assert_eq!(spec.containers[0].args.is_some(), kept, "{ns}");
            let init = &spec.init_containers.as_ref().unwrap()[0];
            assert_eq!(init.command.is_some(), kept, "{ns}");
        }
        // A command of the wrong type is dropped unread outside kube-system, as before.
        let odd = r#"{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ml"},
            "spec": {"containers": [{"name": "c", "command": 5}]}}"#;
        let mut c = Collector::new();
        c.add_json(odd).unwrap();
        assert_eq!(c.finish().pods.len(), 1);
        // And refused in kube-system, with the field named.
        let mut c = Collector::new();
        let Err(JsonError::Object(e)) = c.add_json(&odd.replace("\"ml\"", "\"kube-system\""))
        else {
            panic!("kube-system's command is read");
        };
        assert_eq!(e.object, "Pod kube-system/p");
        assert_eq!(e.field.as_deref(), Some("spec.containers[0].command"));
        // A missing name is the full read's error too.
        let mut c = Collector::new();
        let Err(JsonError::Object(e)) =
            c.add_json(r#"{"apiVersion": "v1", "kind": "Node", "metadata": {}}"#)
        else {
            panic!("a nameless node is refused");
        };
        assert_eq!(e.field.as_deref(), Some("metadata.name"));
    }
}
