//! `wasctl snapshot`: writes a loaded snapshot (facts included) as one YAML stream or one
//! JSON `List` that `--from` reads back to the same snapshot.
//!
//! Redaction, so a snapshot can be attached to a bug report: container `env` values become
//! `<redacted>`, `valueFrom` Secret/ConfigMap key names become `<redacted>`, the
//! `kubectl.kubernetes.io/last-applied-configuration` annotation is removed, and
//! `managedFields` are dropped. Objects read in another served version are written back in it.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::{Map, Value};

use super::facts::{SNAPSHOT_FORMAT_VERSION, SNAPSHOT_HEADER, WASCTL_API_VERSION};
use super::{Snapshot, name_of, namespace_of};

/// The text that replaces redacted values.
pub const REDACTED: &str = "<redacted>";

const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// Every object of the snapshot as redacted JSON values, facts document last.
pub fn documents(s: &Snapshot) -> io::Result<Vec<Value>> {
    let mut docs = Vec::with_capacity(s.object_count() + 1);
    each_document(s, io::Error::other, |doc| {
        docs.push(doc);
        Ok(())
    })?;
    Ok(docs)
}

/// The `ClusterFacts` document of a snapshot of `s`: the facts, every typed kind's coverage,
/// the file format version and the number of objects written before it.
fn facts_document(s: &Snapshot) -> Result<Value, serde_json::Error> {
    // Record every typed kind's coverage, so that a kind read completely with no objects
    // is not taken for a kind missing from the input when the file is read back.
    let mut full = s.facts.clone();
    for (_, kind) in super::TYPED_KINDS {
        full.coverage
            .entry((*kind).to_owned())
            .or_insert_with(|| s.coverage(kind));
    }
    full.format_version = Some(SNAPSHOT_FORMAT_VERSION);
    full.object_count = Some(u64::try_from(s.object_count()).unwrap_or(u64::MAX));
    let mut facts = serde_json::to_value(&full)?;
    if let Value::Object(map) = &mut facts {
        let mut head = Map::new();
        head.insert("apiVersion".to_owned(), Value::from(WASCTL_API_VERSION));
        head.insert("kind".to_owned(), Value::from("ClusterFacts"));
        head.append(map);
        facts = Value::Object(head);
    }
    Ok(facts)
}

/// True for the document [`facts_document`] makes.
fn is_facts(doc: &Value) -> bool {
    doc.get("kind").and_then(Value::as_str) == Some("ClusterFacts")
        && doc.get("apiVersion").and_then(Value::as_str) == Some(WASCTL_API_VERSION)
}

/// Hands every object of the snapshot to `f` as a redacted JSON value, then the facts
/// document, one at a time: the writers stream them, so an export holds one object's value at
/// a time (a `Vec` of every value was four times the snapshot's own memory). `conv` turns a
/// serialization error into `f`'s error type.
///
/// The facts document comes last and counts the objects before it: a file cut short has no
/// facts document, or fewer objects than it counts, and the loader says so.
pub fn each_document<E>(
    s: &Snapshot,
    conv: fn(serde_json::Error) -> E,
    mut f: impl FnMut(Value) -> Result<(), E>,
) -> Result<(), E> {
    fn each<T: Serialize, E>(
        s: &Snapshot,
        kind: &str,
        list: &[T],
        meta: impl Fn(&T) -> (&str, &str),
        conv: fn(serde_json::Error) -> E,
        f: &mut impl FnMut(Value) -> Result<(), E>,
    ) -> Result<(), E> {
        for o in list {
            let mut v = serde_json::to_value(o).map_err(conv)?;
            let (ns, name) = meta(o);
            if let Some(api_version) =
                s.read_as
                    .get(&(kind.to_owned(), ns.to_owned(), name.to_owned()))
            {
                v["apiVersion"] = Value::from(api_version.clone());
            }
            redact(&mut v);
            f(v)?;
        }
        Ok(())
    }
    macro_rules! each {
        ($($field:ident => $kind:literal),* $(,)?) => {
            $( each(s, $kind, &s.$field, |o| (namespace_of(&o.metadata), name_of(&o.metadata)), conv, &mut f)?; )*
        };
    }
    each!(
        namespaces => "Namespace",
        nodes => "Node",
        priority_classes => "PriorityClass",
        device_classes => "DeviceClass",
        device_taint_rules => "DeviceTaintRule",
        resource_slices => "ResourceSlice",
        workloads => "Workload",
        composite_pod_groups => "CompositePodGroup",
        pod_groups => "PodGroup",
        jobs => "Job",
        pods => "Pod",
        resource_claim_templates => "ResourceClaimTemplate",
        resource_claims => "ResourceClaim",
        pod_disruption_budgets => "PodDisruptionBudget",
        limit_ranges => "LimitRange",
        resource_quotas => "ResourceQuota",
        runtime_classes => "RuntimeClass",
    );
    for raw in s.foreign.iter().chain(&s.stale) {
        let mut v = raw.value.clone();
        redact(&mut v);
        f(v)?;
    }
    f(facts_document(s).map_err(conv)?)
}

/// Writes a YAML document stream, one object at a time, after [`SNAPSHOT_HEADER`]. The
/// facts document's `objectCount` is its last line, so a cut anywhere before the end leaves
/// a count that is missing or wrong.
pub fn write_yaml(out: &mut dyn Write, s: &Snapshot) -> io::Result<()> {
    out.write_all(SNAPSHOT_HEADER.as_bytes())?;
    each_document(s, io::Error::other, |mut doc| {
        out.write_all(b"---\n")?;
        let count = if is_facts(&doc) {
            doc.as_object_mut().and_then(|m| m.remove("objectCount"))
        } else {
            None
        };
        let text = serde_saphyr::to_string(&doc).map_err(io::Error::other)?;
        out.write_all(text.as_bytes())?;
        match count {
            Some(n) => {
                let sep = if text.ends_with('\n') { "" } else { "\n" };
                writeln!(out, "{sep}objectCount: {n}")
            }
            None => Ok(()),
        }
    })
}

/// Writes one JSON `List` (pretty, keys in order: `apiVersion`, `items`, `kind`), one item
/// at a time.
pub fn write_json(out: &mut dyn Write, s: &Snapshot) -> io::Result<()> {
    /// The `items` of the list, serialized as [`each_document`] makes them.
    struct Items<'a>(&'a Snapshot);
    impl Serialize for Items<'_> {
        fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
            use serde::ser::{Error as _, SerializeSeq as _};
            let mut seq = ser.serialize_seq(None)?;
            each_document(self.0, S::Error::custom, |doc| seq.serialize_element(&doc))?;
            seq.end()
        }
    }
    #[derive(Serialize)]
    struct List<'a> {
        #[serde(rename = "apiVersion")]
        api_version: &'static str,
        items: Items<'a>,
        kind: &'static str,
    }
    let list = List {
        api_version: "v1",
        items: Items(s),
        kind: "List",
    };
    serde_json::to_writer_pretty(&mut *out, &list).map_err(io::Error::other)?;
    out.write_all(b"\n")
}

/// Redacts one object in place (see the module docs).
pub fn redact(v: &mut Value) {
    if let Some(meta) = v.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("managedFields");
        if let Some(Value::Object(ann)) = meta.get_mut("annotations") {
            ann.remove(LAST_APPLIED);
        }
    }
    redact_env(v, 0);
}

fn redact_env(v: &mut Value, depth: usize) {
    if depth > 64 {
        return;
    }
    match v {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                if key == "env" {
                    if let Value::Array(vars) = child {
                        vars.iter_mut().for_each(redact_var);
                    }
                } else {
                    redact_env(child, depth + 1);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|c| redact_env(c, depth + 1)),
        _ => {}
    }
}

fn redact_var(var: &mut Value) {
    let Some(map) = var.as_object_mut() else {
        return;
    };
    if map.contains_key("value") {
        map.insert("value".to_owned(), Value::from(REDACTED));
    }
    if let Some(Value::Object(from)) = map.get_mut("valueFrom") {
        for r in ["secretKeyRef", "configMapKeyRef"] {
            if let Some(Value::Object(refmap)) = from.get_mut(r)
                && refmap.contains_key("key")
            {
                refmap.insert("key".to_owned(), Value::from(REDACTED));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn redacts_env_values_secret_keys_and_last_applied() {
        let mut pod = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "managedFields": [{}],
                "annotations": {LAST_APPLIED: "{...}", "keep": "me"}},
            "spec": {"containers": [{"name": "c", "env": [
                {"name": "TOKEN", "value": "hunter2"},
                {"name": "PW", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}},
                {"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}]}]}});
        redact(&mut pod);
        let text = pod.to_string();
        assert!(
            !text.contains("hunter2")
                && !text.contains("password")
                && !text.contains("managedFields")
        );
        assert!(!text.contains(LAST_APPLIED));
        assert!(
            text.contains("\"keep\":\"me\"")
                && text.contains("spec.nodeName")
                && text.contains("\"name\":\"db\"")
        );
    }
}
