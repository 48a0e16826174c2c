//! JSON Schemas of the kinds lint checks, from the k8s-openapi `v1_37` types (their
//! `schemars` impls), and validation with the `jsonschema` crate, each schema compiled once
//! per process. The same schemas are written to `schemas/` by `kubectl wasctl generate
//! schemas` (for editors and other tools); CI checks that the committed files do not drift.
//!
//! [`KINDS`] is the one table of checked kinds: apiVersion, kind, schema file, schema, and the
//! typed check (`serde` deserialization, which also finds unknown fields for `--strict`).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use k8s_openapi::schemars::{JsonSchema, SchemaGenerator, generate::SchemaSettings};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A wrong-type error (field path, message) and the unknown field paths of one object.
pub(crate) type TypedResult = (Option<(String, String)>, Vec<String>);

/// A kind lint checks against the 1.37 types.
pub(crate) struct CheckedKind {
    /// `apiVersion`, e.g. `scheduling.k8s.io/v1beta1`.
    pub api_version: &'static str,
    /// `kind`, e.g. `PodGroup`.
    pub kind: &'static str,
    /// The schema's file name in `schemas/`.
    pub file: &'static str,
    /// The JSON Schema (draft 2020-12).
    pub schema: fn() -> Value,
    /// Deserializes into the typed object.
    pub typed: fn(&Value) -> TypedResult,
}

macro_rules! kinds {
    ($($api_version:literal, $kind:literal, $file:literal => $ty:ty;)*) => {
        /// Every kind lint checks against a schema.
        pub(crate) const KINDS: &[CheckedKind] = &[$(
            CheckedKind {
                api_version: $api_version,
                kind: $kind,
                file: $file,
                schema: schema_of::<$ty>,
                typed: typed::<$ty>,
            },
        )*];
    };
}

kinds! {
    "scheduling.k8s.io/v1beta1", "Workload", "workload-scheduling-v1beta1.json" => k8s_openapi::api::scheduling::v1beta1::Workload;
    "scheduling.k8s.io/v1beta1", "PodGroup", "podgroup-scheduling-v1beta1.json" => k8s_openapi::api::scheduling::v1beta1::PodGroup;
    "scheduling.k8s.io/v1alpha3", "Workload", "workload-scheduling-v1alpha3.json" => k8s_openapi::api::scheduling::v1alpha3::Workload;
    "scheduling.k8s.io/v1alpha3", "PodGroup", "podgroup-scheduling-v1alpha3.json" => k8s_openapi::api::scheduling::v1alpha3::PodGroup;
    "scheduling.k8s.io/v1alpha3", "CompositePodGroup", "compositepodgroup-scheduling-v1alpha3.json" => k8s_openapi::api::scheduling::v1alpha3::CompositePodGroup;
    "scheduling.k8s.io/v1", "PriorityClass", "priorityclass-scheduling-v1.json" => k8s_openapi::api::scheduling::v1::PriorityClass;
    "resource.k8s.io/v1", "ResourceClaim", "resourceclaim-resource-v1.json" => k8s_openapi::api::resource::v1::ResourceClaim;
    "resource.k8s.io/v1", "ResourceClaimTemplate", "resourceclaimtemplate-resource-v1.json" => k8s_openapi::api::resource::v1::ResourceClaimTemplate;
    "resource.k8s.io/v1", "DeviceClass", "deviceclass-resource-v1.json" => k8s_openapi::api::resource::v1::DeviceClass;
    "resource.k8s.io/v1", "ResourceSlice", "resourceslice-resource-v1.json" => k8s_openapi::api::resource::v1::ResourceSlice;
    "resource.k8s.io/v1", "DeviceTaintRule", "devicetaintrule-resource-v1.json" => k8s_openapi::api::resource::v1::DeviceTaintRule;
    "v1", "Pod", "pod-v1.json" => k8s_openapi::api::core::v1::Pod;
    "v1", "Node", "node-v1.json" => k8s_openapi::api::core::v1::Node;
    "v1", "Namespace", "namespace-v1.json" => k8s_openapi::api::core::v1::Namespace;
    "batch/v1", "Job", "job-batch-v1.json" => k8s_openapi::api::batch::v1::Job;
    "batch/v1", "CronJob", "cronjob-batch-v1.json" => k8s_openapi::api::batch::v1::CronJob;
    "apps/v1", "Deployment", "deployment-apps-v1.json" => k8s_openapi::api::apps::v1::Deployment;
    "apps/v1", "StatefulSet", "statefulset-apps-v1.json" => k8s_openapi::api::apps::v1::StatefulSet;
    "apps/v1", "ReplicaSet", "replicaset-apps-v1.json" => k8s_openapi::api::apps::v1::ReplicaSet;
    "apps/v1", "DaemonSet", "daemonset-apps-v1.json" => k8s_openapi::api::apps::v1::DaemonSet;
    "policy/v1", "PodDisruptionBudget", "poddisruptionbudget-policy-v1.json" => k8s_openapi::api::policy::v1::PodDisruptionBudget;
}

/// The checked kind of an object, if lint has a schema for it.
pub(crate) fn lookup(api_version: &str, kind: &str) -> Option<(usize, &'static CheckedKind)> {
    KINDS
        .iter()
        .enumerate()
        .find(|(_, k)| k.api_version == api_version && k.kind == kind)
}

fn schema_of<T: JsonSchema>() -> Value {
    let generator = SchemaGenerator::new(SchemaSettings::draft2020_12());
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    if let Some(object) = schema.as_object_mut() {
        object.insert(
            "title".to_owned(),
            Value::String(format!(
                "{} (Kubernetes 1.37, k8s-openapi v1_37)",
                T::schema_name()
            )),
        );
    }
    schema
}

fn typed<T: DeserializeOwned>(value: &Value) -> TypedResult {
    // One pass: the path of the first wrong-type error, and otherwise the ignored fields.
    let mut track = serde_path_to_error::Track::new();
    let mut unknown = Vec::new();
    let result = serde_ignored::deserialize::<_, _, T>(
        serde_path_to_error::Deserializer::new(value, &mut track),
        |p| unknown.push(ignored_path(&p)),
    );
    match result {
        Ok(_) => (None, unknown),
        Err(e) => {
            let path = track.path().to_string();
            let path = if path == "." { String::new() } else { path };
            // serde's "invalid value: integer `2147483648`, expected i32" in the loader's
            // words (issue 46 item 6: no library wording in any message).
            let message = crate::snapshot::source::parse::strip_position(&e.to_string());
            (Some((path, message)), Vec::new())
        }
    }
}

fn ignored_path(p: &serde_ignored::Path<'_>) -> String {
    fn walk(p: &serde_ignored::Path<'_>, out: &mut String) {
        match p {
            serde_ignored::Path::Root => {}
            serde_ignored::Path::Seq { parent, index } => {
                walk(parent, out);
                out.push_str(&format!("[{index}]"));
            }
            serde_ignored::Path::Map { parent, key } => {
                walk(parent, out);
                push_key(out, key);
            }
            serde_ignored::Path::Some { parent }
            | serde_ignored::Path::NewtypeStruct { parent }
            | serde_ignored::Path::NewtypeVariant { parent } => walk(parent, out),
        }
    }
    let mut out = String::new();
    walk(p, &mut out);
    out
}

/// Appends a key to a field path, in brackets when it holds a `.` or brackets.
fn push_key(out: &mut String, key: &str) {
    if key.contains(['.', '[', ']']) {
        out.push_str(&format!("[{key}]"));
    } else {
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(key);
    }
}

/// Turns a JSON pointer (`/spec/containers/0/name`) into a field path (`spec.containers[0].name`).
pub(crate) fn pointer_to_path(pointer: &str) -> String {
    let mut out = String::new();
    for raw in pointer.split('/').skip(1) {
        let seg = raw.replace("~1", "/").replace("~0", "~");
        if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
            out.push_str(&format!("[{seg}]"));
        } else {
            push_key(&mut out, &seg);
        }
    }
    out
}

const MAX_SCHEMA_ERRORS: usize = 10;

static VALIDATORS: [OnceLock<Option<jsonschema::Validator>>; KINDS.len()] =
    [const { OnceLock::new() }; KINDS.len()];

/// Validates `value` against the schema of `KINDS[index]`: (field path, message) per error,
/// at most ten. The schema is compiled on first use.
pub(crate) fn validate(index: usize, value: &Value) -> Vec<(String, String)> {
    let Some(validator) = VALIDATORS.get(index).and_then(|cell| {
        cell.get_or_init(|| jsonschema::validator_for(&(KINDS[index].schema)()).ok())
            .as_ref()
    }) else {
        return Vec::new();
    };
    // A `null` field is an unset optional field to the API server (`creationTimestamp: null`
    // in `kubectl create --dry-run -o yaml` output); the schemas do not say `nullable`.
    validator
        .iter_errors(value)
        .filter(|e| !e.instance().is_null())
        .take(MAX_SCHEMA_ERRORS)
        .map(|e| (pointer_to_path(e.instance_path().as_str()), e.to_string()))
        .collect()
}

/// The type of a property in the checked kinds' schemas, as far as the declarative rules and the
/// unknown-field hints need it.
#[derive(Debug, Clone)]
pub(crate) enum Shape {
    /// An object of a named definition (`io.k8s.api.core.v1.PodSpec`).
    Def(String),
    /// A list of items.
    List(Box<Shape>),
    /// A map with string keys.
    Map(Box<Shape>),
    /// Anything else (scalars, int-or-string, quantities).
    Scalar,
}

/// One definition: its properties and their shapes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Def {
    /// `group.Type`, e.g. `core.PodSpec`, `resource.DeviceRequest`, `meta.ObjectMeta`.
    pub short: String,
    /// Properties by JSON name.
    pub props: BTreeMap<String, Shape>,
}

/// The definitions of every checked kind's schema, plus one root definition per kind
/// (`KINDS[i]`), built once per process.
#[derive(Debug, Default)]
pub(crate) struct Shapes {
    /// Definitions by full name; roots are named `<root>apiVersion/kind`.
    pub defs: BTreeMap<String, Def>,
}

/// `io.k8s.api.core.v1.PodSpec` → `core.PodSpec`; `io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`
/// → `meta.ObjectMeta` (the group is the segment before the version).
pub(crate) fn short_name(full: &str) -> String {
    let parts: Vec<&str> = full.split('.').collect();
    match parts.as_slice() {
        [.., group, _version, ty] => format!("{group}.{ty}"),
        _ => full.to_owned(),
    }
}

fn shape_of(schema: &Value) -> Shape {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        return Shape::Def(r.trim_start_matches("#/$defs/").to_owned());
    }
    if let Some(items) = schema.get("items") {
        return Shape::List(Box::new(shape_of(items)));
    }
    if let Some(values) = schema.get("additionalProperties").filter(|v| v.is_object()) {
        return Shape::Map(Box::new(shape_of(values)));
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(first) = schema
            .get(key)
            .and_then(Value::as_array)
            .and_then(|a| a.first())
        {
            return shape_of(first);
        }
    }
    Shape::Scalar
}

fn def_of(short: String, schema: &Value) -> Def {
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.iter().map(|(k, v)| (k.clone(), shape_of(v))).collect())
        .unwrap_or_default();
    Def { short, props }
}

/// The root definition name of a checked kind.
pub(crate) fn root_name(kind: &CheckedKind) -> String {
    format!("<root>{}/{}", kind.api_version, kind.kind)
}

/// The group of an apiVersion as the short definition names spell it (`core` for `v1`,
/// `scheduling` for `scheduling.k8s.io/v1beta1`).
pub(crate) fn short_group(api_version: &str) -> &str {
    match api_version.rsplit_once('/') {
        None => "core",
        Some((group, _)) => group.split('.').next().unwrap_or(group),
    }
}

/// The shapes of every checked kind (built on first use).
pub(crate) fn shapes() -> &'static Shapes {
    static SHAPES: OnceLock<Shapes> = OnceLock::new();
    SHAPES.get_or_init(|| {
        let mut defs = BTreeMap::new();
        for kind in KINDS {
            let schema = (kind.schema)();
            if let Some(all) = schema.get("$defs").and_then(Value::as_object) {
                for (name, def) in all {
                    defs.entry(name.clone())
                        .or_insert_with(|| def_of(short_name(name), def));
                }
            }
            let short = format!("{}.{}", short_group(kind.api_version), kind.kind);
            defs.insert(root_name(kind), def_of(short, &schema));
        }
        Shapes { defs }
    })
}

impl Shapes {
    /// The definition a field path (`spec.containers[0]`) leads to from `root`, if the path
    /// follows the schema.
    pub(crate) fn def_at(&self, root: &str, path: &[crate::lint::span::Segment]) -> Option<&Def> {
        use crate::lint::span::Segment;
        let mut shape = Shape::Def(root.to_owned());
        for seg in path {
            shape = match (&shape, seg) {
                (Shape::Def(name), Segment::Key(k)) => self.defs.get(name)?.props.get(k)?.clone(),
                (Shape::List(item), Segment::Index(_)) | (Shape::Map(item), Segment::Key(_)) => {
                    (**item).clone()
                }
                _ => return None,
            };
        }
        match shape {
            Shape::Def(name) => self.defs.get(&name),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_schema_compiles() {
        for (i, k) in KINDS.iter().enumerate() {
            let schema = (k.schema)();
            assert!(jsonschema::validator_for(&schema).is_ok(), "{}", k.file);
            assert!(
                VALIDATORS[i].get().is_none() || validate(i, &json!({})).len() <= MAX_SCHEMA_ERRORS
            );
        }
    }

    #[test]
    fn wrong_types_are_reported_with_a_field_path() {
        let (i, _) = lookup("scheduling.k8s.io/v1beta1", "PodGroup").unwrap();
        let errors = validate(
            i,
            &json!({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                "metadata": {"name": "x"},
                "spec": {"schedulingPolicy": {"gang": {"minCount": "four"}}}}),
        );
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].0, "spec.schedulingPolicy.gang.minCount");
    }

    #[test]
    fn null_fields_are_unset_not_wrong() {
        let (i, _) = lookup("v1", "Namespace").unwrap();
        let errors = validate(
            i,
            &json!({"apiVersion": "v1", "kind": "Namespace",
                "metadata": {"name": "x", "creationTimestamp": null}}),
        );
        assert!(errors.is_empty(), "{errors:?}");
    }

    #[test]
    fn pointers_become_paths() {
        assert_eq!(
            pointer_to_path("/spec/containers/0/name"),
            "spec.containers[0].name"
        );
        assert_eq!(
            pointer_to_path("/metadata/annotations/example.com~1x"),
            "metadata.annotations[example.com/x]"
        );
    }
}
