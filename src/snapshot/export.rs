//! `wasctl snapshot`: writes a loaded snapshot (facts included) as one YAML stream or one
//! JSON `List` that `--from` reads back to the same snapshot.
//!
//! Redaction, so a snapshot can be attached to a bug report: every object is cut to the
//! allowlist of its kind ([`KEPT`]: the annotations something reads, the container fields the
//! simulator reads, no DRA opaque driver parameters), container `env` values that remain
//! become `<redacted>`, `valueFrom` Secret/ConfigMap key names become `<redacted>`, and
//! `managedFields` are dropped. Objects read in another served version are written back in it,
//! except Kueue's, which are written in Kueue's storage version (`v1beta2`).

use std::io::{self, Write};

use serde::Serialize;
use serde_json::{Map, Value};

use super::facts::{SNAPSHOT_FORMAT_VERSION, SNAPSHOT_HEADER, WASCTL_API_VERSION};
use super::{Snapshot, name_of, namespace_of};

/// The text that replaces redacted values.
pub(crate) const REDACTED: &str = "<redacted>";

const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// What a snapshot keeps of one kind: the allowlist row of [`KEPT`].
#[derive(Debug)]
pub(crate) struct Kept {
    /// API group (`""` for core) and kind; `*` in both for every kind without a row.
    pub group: &'static str,
    /// The kind.
    pub kind: &'static str,
    /// The annotations kept on the object itself; every other annotation is dropped.
    pub annotations: &'static [&'static str],
    /// The fields kept in each container of the object's pod templates (or of the pod): a
    /// container's other fields (`env`, `envFrom`, `args`, `command`, probes, mounts) are
    /// dropped. Pod templates' own annotations are cut to [`POD_ANNOTATIONS`], the ones their
    /// pods will carry.
    pub containers: &'static [&'static str],
    /// The container fields kept in `kube-system`, where facts read control-plane flags.
    pub control_plane_containers: &'static [&'static str],
    /// Whether DRA opaque driver parameters (`config[].opaque.parameters`, free-form and
    /// often credentials) are emptied: nothing reads them.
    pub opaque_parameters: bool,
}

/// The annotations a pod keeps: the ones something reads ([`crate::snapshot::pod`]:
/// the kubelet's mirror-pod mark, YuniKorn's application ID, task groups and placeholder
/// mark, the Volcano PodGroup a pod belongs to and its Volcano task).
pub(crate) const POD_ANNOTATIONS: &[&str] = &[
    crate::snapshot::pod::MIRROR_ANNOTATION,
    crate::snapshot::pod::YUNIKORN_KEYS[0],
    crate::snapshot::pod::YUNIKORN_KEYS[1],
    crate::snapshot::yunikorn::TASK_GROUPS,
    crate::snapshot::yunikorn::TASK_GROUP_NAME,
    crate::snapshot::yunikorn::PLACEHOLDER,
    crate::snapshot::yunikorn_queues::QUEUE_ANNOTATION,
    crate::snapshot::volcano::GROUP_NAME_ANNOTATIONS[0],
    crate::snapshot::volcano::GROUP_NAME_ANNOTATIONS[1],
    crate::snapshot::volcano::TASK_SPEC_ANNOTATION,
];

/// Container fields facts read of a `kube-system` pod: the simulator's, and `command` and
/// `args` (control-plane flags such as `--feature-gates`).
const CONTROL_PLANE_CONTAINER: &[&str] = &[
    "name",
    "image",
    "command",
    "args",
    "ports",
    "resources",
    "restartPolicy",
];

/// Container fields the simulator and capacity read, of a pod or an owner object's pod
/// template. A pod made from a manifest's template (a StatefulSet's `db-0`) is cut as well.
const TEMPLATE_CONTAINER: &[&str] = &["name", "image", "ports", "resources", "restartPolicy"];

/// The one allowlist of what `snapshot` keeps, per kind (issue 46 items 1 and 5). Later
/// kinds and annotations (Kueue, Volcano, YuniKorn, scheduler configuration) are added here
/// by the work that reads them; a kind without a row gets the last (`*`) one.
pub(crate) const KEPT: &[Kept] = &[
    Kept {
        group: "",
        kind: "Pod",
        annotations: POD_ANNOTATIONS,
        containers: TEMPLATE_CONTAINER,
        control_plane_containers: CONTROL_PLANE_CONTAINER,
        opaque_parameters: false,
    },
    Kept {
        group: "resource.k8s.io",
        kind: "ResourceClaim",
        annotations: &[],
        containers: TEMPLATE_CONTAINER,
        control_plane_containers: TEMPLATE_CONTAINER,
        opaque_parameters: true,
    },
    Kept {
        group: "resource.k8s.io",
        kind: "ResourceClaimTemplate",
        annotations: &[],
        containers: TEMPLATE_CONTAINER,
        control_plane_containers: TEMPLATE_CONTAINER,
        opaque_parameters: true,
    },
    Kept {
        group: "resource.k8s.io",
        kind: "DeviceClass",
        annotations: &[],
        containers: TEMPLATE_CONTAINER,
        control_plane_containers: TEMPLATE_CONTAINER,
        opaque_parameters: true,
    },
    // Volcano's PodGroups and Queues (issue 52): spec and status are read whole (minMember,
    // minResources, queue, phase, conditions; weight, capability, state), no annotation.
    Kept {
        group: "scheduling.volcano.sh",
        kind: "PodGroup",
        annotations: &[],
        containers: TEMPLATE_CONTAINER,
        control_plane_containers: TEMPLATE_CONTAINER,
        opaque_parameters: false,
    },
    Kept {
        group: "scheduling.volcano.sh",
        kind: "Queue",
        annotations: &[],
        containers: TEMPLATE_CONTAINER,
        control_plane_containers: TEMPLATE_CONTAINER,
        opaque_parameters: false,
    },
    // Jobs, Deployments, ReplicaSets, StatefulSets, JobSets, LeaderWorkerSets, Kueue objects,
    // Volcano Jobs, PodGroups, Nodes and every other kind: no annotation is read.
    Kept {
        group: "*",
        kind: "*",
        annotations: &[],
        containers: TEMPLATE_CONTAINER,
        control_plane_containers: TEMPLATE_CONTAINER,
        opaque_parameters: false,
    },
];

/// The row of [`KEPT`] for an object.
pub(crate) fn kept(api_version: &str, kind: &str) -> &'static Kept {
    let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
    KEPT.iter()
        .find(|k| (k.group == group && k.kind == kind) || k.kind == "*")
        .unwrap_or(&KEPT[KEPT.len() - 1])
}

/// Cuts one object to its kind's row of [`KEPT`].
pub(crate) fn keep(v: &mut Value) {
    let api_version = v.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = v.get("kind").and_then(Value::as_str).unwrap_or("");
    let row = kept(api_version, kind);
    let namespace = v.pointer("/metadata/namespace").and_then(Value::as_str);
    let containers = if namespace == Some("kube-system") {
        row.control_plane_containers
    } else {
        row.containers
    };
    if let Some(meta) = v.get_mut("metadata").and_then(Value::as_object_mut) {
        keep_annotations(meta, row.annotations);
    }
    if let Value::Object(map) = v {
        for (key, child) in map.iter_mut() {
            if key != "metadata" {
                keep_below(child, row, containers, 0);
            }
        }
    }
}

fn keep_annotations(meta: &mut Map<String, Value>, kept: &[&str]) {
    if let Some(Value::Object(ann)) = meta.get_mut("annotations") {
        ann.retain(|k, _| kept.contains(&k.as_str()));
        if ann.is_empty() {
            meta.remove("annotations");
        }
    }
}

/// Below an object's top level: containers, template metadata and opaque parameters.
fn keep_below(v: &mut Value, row: &Kept, containers: &[&str], depth: usize) {
    if depth > 64 {
        return;
    }
    match v {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                match (key.as_str(), child) {
                    (
                        "containers" | "initContainers" | "ephemeralContainers",
                        Value::Array(list),
                    ) => {
                        for c in list.iter_mut().filter_map(Value::as_object_mut) {
                            c.retain(|k, _| containers.contains(&k.as_str()));
                        }
                    }
                    // A pod template's metadata: its pods' annotations.
                    ("metadata", Value::Object(meta)) => keep_annotations(meta, POD_ANNOTATIONS),
                    ("opaque", Value::Object(opaque)) if row.opaque_parameters => {
                        // Required by the API type: emptied, not removed.
                        if opaque.contains_key("parameters") {
                            opaque.insert("parameters".to_owned(), Value::Object(Map::new()));
                        }
                    }
                    (_, child) => keep_below(child, row, containers, depth + 1),
                }
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|c| keep_below(c, row, containers, depth + 1)),
        _ => {}
    }
}

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
pub(crate) fn each_document<E>(
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
        events => "Event",
    );
    for raw in s.foreign.iter().chain(&s.selecting).chain(&s.stale) {
        if super::kueue::is_typed(&raw.api_version, &raw.kind) {
            continue;
        }
        let mut v = raw.value.clone();
        redact(&mut v);
        f(v)?;
    }
    // Kueue's objects are written from their typed copies, in Kueue's storage version.
    for mut v in s.kueue.to_values() {
        redact(&mut v);
        f(v)?;
    }
    // The cluster's scheduler configuration, as written (an extender's `tlsConfig` was never
    // kept), so that `--from` this file simulates with the same profiles. Not an object: the
    // facts document does not count it.
    if let Some(loaded) = &s.scheduler_config {
        f(serde_json::to_value(&loaded.written).map_err(conv)?)?;
    }
    // YuniKorn's queues, as the ConfigMap they were read from (`queues.yaml` only). Not
    // counted as an object, as the configurations are not.
    if let super::yunikorn_queues::YunikornQueues::Read { config, .. } = &s.yunikorn_queues {
        let v = super::yunikorn_queues::to_config_map(config)
            .map_err(|e| conv(serde_json::Error::io(io::Error::other(e))))?;
        f(v)?;
    }
    // Kueue's manager configuration, converted to v1beta2 and defaulted (what `kueue-config`
    // prints), so that `--from` this file admits as the cluster's Kueue does.
    if let Some(loaded) = &s.kueue_config {
        f(serde_json::to_value(&loaded.config).map_err(conv)?)?;
    }
    f(facts_document(s).map_err(conv)?)
}

/// Writes a YAML document stream, one object at a time, after [`SNAPSHOT_HEADER`]. The
/// facts document's `objectCount` is its last line, so a cut anywhere before the end leaves
/// a count that is missing or wrong.
pub(crate) fn write_yaml(out: &mut dyn Write, s: &Snapshot) -> io::Result<()> {
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
pub(crate) fn write_json(out: &mut dyn Write, s: &Snapshot) -> io::Result<()> {
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
pub(crate) fn redact(v: &mut Value) {
    keep(v);
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
        // A pod outside kube-system: the allowlist keeps neither `env` nor an annotation
        // nothing reads; an owner object keeps `env` nowhere either.
        let mut pod = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "managedFields": [{}],
                "annotations": {LAST_APPLIED: "{...}", "keep": "me",
                    "kubernetes.io/config.mirror": "m"}},
            "spec": {"containers": [{"name": "c", "image": "i", "env": [
                {"name": "TOKEN", "value": "hunter2"},
                {"name": "PW", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}}],
                "resources": {"requests": {"cpu": "1"}}}]}});
        redact(&mut pod);
        let text = pod.to_string();
        assert!(
            !text.contains("hunter2")
                && !text.contains("password")
                && !text.contains("managedFields")
        );
        assert!(!text.contains(LAST_APPLIED) && !text.contains("keep"));
        assert!(text.contains("config.mirror") && text.contains("\"cpu\":\"1\""));
    }

    /// See: issue 46 item 5: the allowlist, row by row.
    #[test]
    fn every_kind_is_cut_to_its_row() {
        let mut deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d", "annotations": {"a": "SECRET"}},
            "spec": {"template": {"metadata": {"annotations": {"b": "SECRET",
                "yunikorn.apache.org/app-id": "app"}},
                "spec": {"initContainers": [{"name": "i", "args": ["SECRET"]}],
                    "containers": [{"name": "c", "command": ["SECRET"],
                    "envFrom": [{"secretRef": {"name": "SECRET"}}], "ports": [{"containerPort": 80}]}]}}}});
        redact(&mut deployment);
        let text = deployment.to_string();
        assert!(!text.contains("SECRET"), "{text}");
        assert!(
            text.contains("app-id") && text.contains("containerPort"),
            "{text}"
        );
        assert!(deployment["metadata"].get("annotations").is_none());

        for (kind, mut claim) in [
            (
                "DeviceClass",
                json!({"spec": {"config": [{"opaque": {"driver": "d", "parameters": {"k": "SECRET"}}}]}}),
            ),
            (
                "ResourceClaim",
                json!({"spec": {"devices": {"config": [{"requests": ["r"], "opaque": {"driver": "d", "parameters": {"k": "SECRET"}}}]}},
                "status": {"allocation": {"devices": {"config": [{"source": "FromClaim", "opaque": {"driver": "d", "parameters": "SECRET"}}]}}}}),
            ),
            (
                "ResourceClaimTemplate",
                json!({"spec": {"spec": {"devices": {"config": [{"opaque": {"driver": "d", "parameters": {"k": "SECRET"}}}]}}}}),
            ),
        ] {
            claim["apiVersion"] = json!("resource.k8s.io/v1");
            claim["kind"] = json!(kind);
            redact(&mut claim);
            let text = claim.to_string();
            assert!(!text.contains("SECRET"), "{kind}: {text}");
            assert!(
                text.contains("\"driver\":\"d\"") && text.contains("\"parameters\":{}"),
                "{kind}: {text}"
            );
        }
        assert_eq!(kept("v1", "Pod").annotations, POD_ANNOTATIONS);
        // A pod's `args` survive in kube-system only, where facts read control-plane flags.
        for (ns, kept_args) in [("kube-system", true), ("ns", false)] {
            let mut pod = json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "p", "namespace": ns},
                "spec": {"containers": [{"name": "c", "args": ["--feature-gates=A=true"]}]}});
            redact(&mut pod);
            assert_eq!(pod.to_string().contains("feature-gates"), kept_args, "{ns}");
        }
        assert_eq!(kept("example.com/v1", "Pod").kind, "*");
    }
}
