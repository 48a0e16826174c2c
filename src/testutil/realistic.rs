//! Realistic clusters, shaped like what an API server returns (issue 15): every pod carries
//! `managedFields` for two managers, the last-applied annotation, an ownerReference to its Job,
//! eight env vars, three volumes (the projected service-account token among them), the default
//! tolerations, and a status with five conditions and a containerStatus (6–8 KB of JSON each);
//! nodes carry images, addresses, conditions and nodeInfo. Pending gangs (PodGroups with their
//! members) come on top. Objects are written one at a time, so a size-L dump (5,000 nodes,
//! 150,000 pods, about 1 GB) never sits in memory: benches and tests write it to a temp dir.
//!
//! Sizes: [`RealisticProfile::small`] (S: 1,000 nodes / 30,000 running pods) and
//! [`RealisticProfile::large`] (L: 5,000 nodes / 150,000 running pods). The same seed always
//! gives the same bytes.

use std::io::{self, Write};

use serde_json::{Value, json};

use super::synthetic::Rng;

/// What to generate.
#[derive(Debug, Clone)]
pub struct RealisticProfile {
    /// Nodes (64 cpu, 512 GiB, 110 pods each).
    pub nodes: usize,
    /// Running pods, spread round-robin over the nodes (1–2 cpu each).
    pub running_pods: usize,
    /// Pending gangs: (number of PodGroups, members each); members ask for 4 cpu.
    pub gangs: (usize, usize),
    /// Pending gangs that cannot schedule, this many of each kind, queued after the others:
    /// `wide-K` (20 members of 8 GPUs in one rack of 16 nodes: the topology constraint or
    /// minCount is the fix), `big-K` (members of 12 GPUs, more than any node has) and
    /// `inference-K` (members pinned to the tainted `pool=inference` nodes without the
    /// toleration). They give explain's fixes work at scale.
    pub stuck: usize,
}

impl RealisticProfile {
    /// S: 1,000 nodes, 30,000 running pods, 50 pending gangs of 8, 3 that cannot schedule.
    pub fn small() -> Self {
        Self {
            nodes: 1_000,
            running_pods: 30_000,
            gangs: (50, 8),
            stuck: 1,
        }
    }

    /// L: 5,000 nodes, 150,000 running pods, 250 pending gangs of 8, 6 that cannot schedule.
    pub fn large() -> Self {
        Self {
            nodes: 5_000,
            running_pods: 150_000,
            gangs: (250, 8),
            stuck: 2,
        }
    }

    /// A small cluster for tests: `nodes` nodes with 3 running pods each and 2 gangs of 3.
    #[cfg(test)]
    pub(crate) fn tiny(nodes: usize) -> Self {
        Self {
            nodes,
            running_pods: nodes * 3,
            gangs: (2, 3),
            stuck: 0,
        }
    }
}

/// How objects are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One JSON `kind: List` (what `kubectl get -o json` prints), pretty-printed.
    JsonList,
    /// A multi-document YAML stream, one object per document.
    YamlStream,
}

const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";
const T0: &str = "2026-11-20T00:00:00Z";

fn uid(rng: &mut Rng) -> String {
    let mut hex = String::with_capacity(36);
    for i in 0..32 {
        if matches!(i, 8 | 12 | 16 | 20) {
            hex.push('-');
        }
        let d = rng.below(16) as u32;
        hex.push(char::from_digit(d, 16).unwrap_or('0'));
    }
    hex
}

/// Every fiftieth node is in the tainted inference pool.
fn is_inference(i: usize) -> bool {
    i % 50 == 49
}

fn node(i: usize, rng: &mut Rng) -> Value {
    let name = format!("node-{i:05}");
    let rack = i / 16;
    let pool = if is_inference(i) {
        "inference"
    } else {
        "training"
    };
    let images: Vec<Value> = (0..24)
        .map(|k| {
            json!({"names": [
                format!("registry.example/team-{k}/service@sha256:{:064x}", (i as u64) * 31 + k as u64),
                format!("registry.example/team-{k}/service:v1.{k}.{}", i % 7)],
                "sizeBytes": 50_000_000 + rng.below(900_000_000)})
        })
        .collect();
    let condition = |t: &str, status: &str, reason: &str, message: &str| {
        json!({"type": t, "status": status, "lastHeartbeatTime": T0, "lastTransitionTime": T0,
            "reason": reason, "message": message})
    };
    let mut node = json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "uid": uid(rng), "resourceVersion": format!("{}", 1000 + i),
            "creationTimestamp": T0,
            "labels": {
                "beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                "node.kubernetes.io/instance-type": "m7i.16xlarge",
                "topology.kubernetes.io/region": "region-1",
                "topology.kubernetes.io/zone": format!("zone-{}", rack / 4),
                "topology.kubernetes.io/rack": format!("rack-{rack:04}"),
                "nvidia.com/gpu.product": if i.is_multiple_of(3) { "A100" } else { "H100" },
                "pool": pool},
            "annotations": {
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
                "kubeadm.alpha.kubernetes.io/cri-socket": "unix:///run/containerd/containerd.sock"},
            "managedFields": [
                {"manager": "kubelet", "operation": "Update", "apiVersion": "v1", "time": T0,
                 "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:annotations": {".": {},
                    "f:volumes.kubernetes.io/controller-managed-attach-detach": {}},
                    "f:labels": {".": {}, "f:kubernetes.io/arch": {}, "f:kubernetes.io/hostname": {},
                    "f:kubernetes.io/os": {}}}, "f:spec": {"f:providerID": {}}}},
                {"manager": "kubelet", "operation": "Update", "apiVersion": "v1", "time": T0,
                 "fieldsType": "FieldsV1", "subresource": "status", "fieldsV1": {"f:status": {
                    "f:allocatable": {"f:cpu": {}, "f:memory": {}, "f:pods": {}},
                    "f:capacity": {"f:cpu": {}, "f:memory": {}, "f:pods": {}},
                    "f:conditions": {"k:{\"type\":\"DiskPressure\"}": {"f:lastHeartbeatTime": {}},
                        "k:{\"type\":\"MemoryPressure\"}": {"f:lastHeartbeatTime": {}},
                        "k:{\"type\":\"PIDPressure\"}": {"f:lastHeartbeatTime": {}},
                        "k:{\"type\":\"Ready\"}": {"f:lastHeartbeatTime": {}, "f:message": {}}},
                    "f:images": {}, "f:nodeInfo": {"f:bootID": {}}}}}]},
        "spec": {"podCIDR": format!("10.{}.{}.0/24", i / 256, i % 256),
            "podCIDRs": [format!("10.{}.{}.0/24", i / 256, i % 256)],
            "providerID": format!("aws:///zone-{}/i-{:017x}", rack / 4, i)},
        "status": {
            "capacity": {"cpu": "64", "ephemeral-storage": "507904Mi", "hugepages-1Gi": "0",
                "hugepages-2Mi": "0", "memory": "528280576Ki", "pods": "110", "nvidia.com/gpu": "8"},
            "allocatable": {"cpu": "64", "ephemeral-storage": "468081783390", "hugepages-1Gi": "0",
                "hugepages-2Mi": "0", "memory": "536870912Ki", "pods": "110", "nvidia.com/gpu": "8"},
            "conditions": [
                condition("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
                condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                condition("Ready", "True", "KubeletReady", "kubelet is posting ready status")],
            "addresses": [{"type": "InternalIP", "address": format!("10.200.{}.{}", i / 256, i % 256)},
                {"type": "Hostname", "address": name}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {"machineID": format!("{:032x}", i), "systemUUID": uid(rng),
                "bootID": uid(rng), "kernelVersion": "6.8.0-1019-aws",
                "osImage": "Ubuntu 24.04.1 LTS", "containerRuntimeVersion": "containerd://2.0.1",
                "kubeletVersion": "v1.37.0", "kubeProxyVersion": "", "operatingSystem": "linux",
                "architecture": "amd64"},
            "images": images}});
    if is_inference(i) {
        node["spec"]["taints"] =
            json!([{"key": "dedicated", "value": "inference", "effect": "NoSchedule"}]);
    }
    node
}

struct PodShape<'a> {
    name: String,
    namespace: &'a str,
    job: String,
    job_uid: String,
    cpu: u64,
    mem_gi: u64,
    gpu: u64,
    node: Option<String>,
    group: Option<String>,
    node_selector: Option<(&'a str, &'a str)>,
    minute: u64,
}

fn pod(p: &PodShape<'_>, i: usize, rng: &mut Rng) -> Value {
    let created = format!(
        "2026-11-20T{:02}:{:02}:00Z",
        (p.minute / 60) % 24,
        p.minute % 60
    );
    let job_uid = &p.job_uid;
    let token_volume = format!("kube-api-access-{:05x}", rng.below(1 << 20));
    let container = container(p, i, &token_volume);
    let last_applied = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"labels": {"app": "trainer"}, "name": p.name, "namespace": p.namespace},
        "spec": {"containers": [{"name": "main", "image": "registry.example/train/worker:v2.14.3",
            "env": [{"name": "LOG_LEVEL", "value": "info"}, {"name": "WORKER_THREADS", "value": "8"}],
            "resources": {"requests": {"cpu": p.cpu.to_string()}}}]}})
    .to_string();
    let mut spec = json!({"containers": [container],
        "volumes": [
            {"name": "config", "configMap": {"name": "worker-config", "defaultMode": 420}},
            {"name": "scratch", "emptyDir": {"sizeLimit": "10Gi"}},
            {"name": token_volume, "projected": {"defaultMode": 420, "sources": [
                {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}]}}],
        "restartPolicy": "Never", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
        "serviceAccountName": "default", "serviceAccount": "default", "securityContext": {},
        "schedulerName": "default-scheduler", "enableServiceLinks": true,
        "preemptionPolicy": "PreemptLowerPriority", "priority": 0,
        "tolerations": [
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}]});
    if let Some(n) = &p.node {
        spec["nodeName"] = json!(n);
    }
    if let Some(g) = &p.group {
        spec["schedulingGroup"] = json!({"podGroupName": g});
    }
    if let Some((k, v)) = p.node_selector {
        spec["nodeSelector"] = json!({k: v});
    }
    let status = pod_status(i, &created, p.node.is_some());
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": p.name, "generateName": format!("{}-", p.job), "namespace": p.namespace,
            "uid": uid(rng), "resourceVersion": format!("{}", 200_000 + i), "creationTimestamp": created,
            "labels": {"app": "trainer", "batch.kubernetes.io/controller-uid": job_uid,
                "batch.kubernetes.io/job-name": p.job, "controller-uid": job_uid, "job-name": p.job,
                "batch.kubernetes.io/job-completion-index": format!("{}", i % 8)},
            "annotations": {LAST_APPLIED: last_applied,
                "batch.kubernetes.io/job-completion-index": format!("{}", i % 8)},
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": p.job, "uid": job_uid,
                "controller": true, "blockOwnerDeletion": true}],
            "finalizers": ["batch.kubernetes.io/job-tracking"],
            "managedFields": managed_fields(&created, job_uid)},
        "spec": spec, "status": status})
}

/// The pod's one container: the worker image with a realistic env (a secret reference
/// among it), requests and limits (GPUs when it has any), mounts and security context.
fn container(p: &PodShape<'_>, i: usize, token_volume: &str) -> Value {
    let env: Vec<Value> = [
        ("LOG_LEVEL", "info"),
        ("WORKER_THREADS", "8"),
        ("DATA_DIR", "/data"),
        ("CACHE_DIR", "/cache"),
        ("FEATURE_FLAGS", "fast-path,metrics,tracing"),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://otel-collector.observability:4317"),
    ]
    .iter()
    .map(|(k, v)| json!({"name": k, "value": v}))
    .chain([
        json!({"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}),
        json!({"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db-credentials", "key": "password"}}}),
    ])
    .collect();
    let mut requests = json!({"cpu": p.cpu.to_string(), "memory": format!("{}Gi", p.mem_gi)});
    let mut limits = json!({"memory": format!("{}Gi", p.mem_gi)});
    if p.gpu > 0 {
        requests["nvidia.com/gpu"] = json!(p.gpu.to_string());
        limits["nvidia.com/gpu"] = json!(p.gpu.to_string());
    }
    json!({"name": "main", "image": "registry.example/train/worker:v2.14.3",
        "imagePullPolicy": "IfNotPresent", "command": ["/bin/worker"],
        "args": ["--config=/etc/worker/config.yaml", "--shard", format!("{}", i % 64)],
        "ports": [{"name": "metrics", "containerPort": 9090, "protocol": "TCP"}],
        "env": env, "resources": {"requests": requests, "limits": limits},
        "volumeMounts": [
            {"name": "config", "mountPath": "/etc/worker", "readOnly": true},
            {"name": "scratch", "mountPath": "/data"},
            {"name": token_volume, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true}],
        "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
        "securityContext": {"allowPrivilegeEscalation": false, "runAsNonRoot": true,
            "capabilities": {"drop": ["ALL"]}}})
}

/// A running pod's status (conditions, IPs, one started container), or a pending pod's
/// (not scheduled).
fn pod_status(i: usize, created: &str, running: bool) -> Value {
    let cond = |t: &str, status: &str| json!({"type": t, "status": status, "lastProbeTime": null, "lastTransitionTime": created});
    if running {
        json!({"phase": "Running",
            "conditions": [cond("PodReadyToStartContainers", "True"), cond("Initialized", "True"),
                cond("Ready", "True"), cond("ContainersReady", "True"), cond("PodScheduled", "True")],
            "hostIP": "10.200.0.1", "hostIPs": [{"ip": "10.200.0.1"}],
            "podIP": format!("10.{}.{}.{}", i / 65536 % 256, i / 256 % 256, i % 256),
            "podIPs": [{"ip": format!("10.{}.{}.{}", i / 65536 % 256, i / 256 % 256, i % 256)}],
            "startTime": created, "qosClass": "Burstable",
            "containerStatuses": [{"name": "main", "state": {"running": {"startedAt": created}},
                "lastState": {}, "ready": true, "restartCount": 0, "started": true,
                "image": "registry.example/train/worker:v2.14.3",
                "imageID": format!("registry.example/train/worker@sha256:{:064x}", 7),
                "containerID": format!("containerd://{:064x}", i),
                "volumeMounts": [{"name": "config", "mountPath": "/etc/worker", "readOnly": true, "recursiveReadOnly": "Disabled"},
                    {"name": "scratch", "mountPath": "/data"}]}]})
    } else {
        json!({"phase": "Pending", "qosClass": "Burstable",
            "conditions": [cond("PodScheduled", "False")]})
    }
}

/// The `managedFields` kube-controller-manager and the kubelet leave on a Job's pod.
fn managed_fields(created: &str, job_uid: &str) -> Value {
    json!([
                {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1", "time": created,
                 "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:finalizers": {".": {}, "v:\"batch.kubernetes.io/job-tracking\"": {}},
                    "f:generateName": {}, "f:labels": {".": {}, "f:app": {}, "f:batch.kubernetes.io/controller-uid": {},
                    "f:batch.kubernetes.io/job-name": {}, "f:controller-uid": {}, "f:job-name": {}},
                    "f:ownerReferences": {".": {}, format!("k:{{\"uid\":\"{job_uid}\"}}"): {}}},
                    "f:spec": {"f:containers": {"k:{\"name\":\"main\"}": {".": {}, "f:args": {}, "f:command": {},
                        "f:env": {".": {}, "k:{\"name\":\"LOG_LEVEL\"}": {".": {}, "f:name": {}, "f:value": {}},
                        "k:{\"name\":\"WORKER_THREADS\"}": {".": {}, "f:name": {}, "f:value": {}}},
                        "f:image": {}, "f:imagePullPolicy": {}, "f:name": {}, "f:resources": {".": {}, "f:limits": {}, "f:requests": {}},
                        "f:volumeMounts": {}}}, "f:dnsPolicy": {}, "f:restartPolicy": {}, "f:schedulerName": {},
                        "f:volumes": {}}}},
                {"manager": "kubelet", "operation": "Update", "apiVersion": "v1", "time": created,
                 "fieldsType": "FieldsV1", "subresource": "status", "fieldsV1": {"f:status": {
                    "f:conditions": {"k:{\"type\":\"ContainersReady\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}},
                        "k:{\"type\":\"Initialized\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}},
                        "k:{\"type\":\"Ready\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}}},
                    "f:containerStatuses": {}, "f:hostIP": {}, "f:hostIPs": {}, "f:phase": {}, "f:podIP": {},
                    "f:podIPs": {".": {}, "k:{\"ip\":\"10.0.0.1\"}": {".": {}, "f:ip": {}}}, "f:startTime": {}}}}])
}

/// A pending gang: its name (PodGroup and Job), members (= minCount), GPUs per member, and the
/// members' nodeSelector.
struct Gang {
    name: String,
    members: usize,
    gpu: u64,
    node_selector: Option<(&'static str, &'static str)>,
}

/// A Job's uid, fixed by its number: its pods' ownerReferences and labels name it.
fn job_uid(n: usize) -> String {
    format!("4a0b0000-0000-4000-8000-{n:012x}")
}

/// The Job that owns `pods` pods (indexed completions), shaped like API output: kubectl's
/// managedFields and the controller's, the last-applied annotation, the pod template and a
/// status counting the pods active. A gang's Job names its PodGroup in the template.
fn job(
    name: &str,
    namespace: &str,
    uid: &str,
    pods: usize,
    group: Option<&str>,
    cpu: u64,
) -> Value {
    let labels = json!({"app": "trainer", "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": name, "controller-uid": uid, "job-name": name});
    let last_applied = json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"completions": pods, "parallelism": pods, "completionMode": "Indexed",
            "template": {"spec": {"containers": [{"name": "main",
                "image": "registry.example/train/worker:v2.14.3"}]}}}})
    .to_string();
    let mut template_spec = json!({"containers": [{"name": "main",
            "image": "registry.example/train/worker:v2.14.3", "imagePullPolicy": "IfNotPresent",
            "resources": {"requests": {"cpu": cpu.to_string()}},
            "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}],
        "restartPolicy": "Never", "dnsPolicy": "ClusterFirst", "schedulerName": "default-scheduler",
        "securityContext": {}, "terminationGracePeriodSeconds": 30});
    if let Some(g) = group {
        template_spec["schedulingGroup"] = json!({"podGroupName": g});
    }
    let active = if group.is_some() { 0 } else { pods };
    json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name, "namespace": namespace, "uid": uid, "generation": 1,
            "resourceVersion": format!("{}", 100_000 + uid.len()), "creationTimestamp": T0,
            "labels": {"app": "trainer"},
            "annotations": {LAST_APPLIED: last_applied},
            "managedFields": [
                {"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "batch/v1",
                 "time": T0, "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:annotations": {".": {},
                    "f:kubectl.kubernetes.io/last-applied-configuration": {}}, "f:labels": {".": {}, "f:app": {}}},
                    "f:spec": {"f:backoffLimit": {}, "f:completionMode": {}, "f:completions": {},
                        "f:parallelism": {}, "f:template": {"f:spec": {"f:containers": {}}}}}},
                {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "batch/v1",
                 "time": T0, "fieldsType": "FieldsV1", "subresource": "status",
                 "fieldsV1": {"f:status": {"f:active": {}, "f:ready": {}, "f:startTime": {},
                    "f:terminating": {}, "f:uncountedTerminatedPods": {}}}}]},
        "spec": {"parallelism": pods, "completions": pods, "completionMode": "Indexed",
            "backoffLimit": 6, "backoffLimitPerIndex": null, "manualSelector": false,
            "podReplacementPolicy": "TerminatingOrFailed", "suspend": false,
            "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}},
            "template": {"metadata": {"labels": labels}, "spec": template_spec}},
        "status": {"active": active, "ready": active, "terminating": 0, "startTime": T0,
            "uncountedTerminatedPods": {}}})
}

/// Calls `emit` with every object of the cluster, in a fixed order (a facts document, nodes,
/// running pods each after its Job, then each PodGroup followed by its Job and its members).
pub fn for_each_object(
    p: &RealisticProfile,
    seed: u64,
    mut emit: impl FnMut(Value) -> io::Result<()>,
) -> io::Result<()> {
    let mut rng = Rng::new(seed);
    emit(
        json!({"apiVersion": "wasctl.dev/v1alpha1", "kind": "ClusterFacts", "snapshotTime": T0,
        "serverVersion": "v1.37.0", "components": [{"component": "kube-scheduler", "version": "v1.37.0",
        "featureGates": {"GenericWorkload": true, "TopologyAwareWorkloadScheduling": true}}]}),
    )?;
    for i in 0..p.nodes {
        emit(node(i, &mut rng))?;
    }
    for i in 0..p.running_pods {
        let n = i % p.nodes.max(1);
        let job_name = format!("run-{:04}", i / 8);
        if i % 8 == 0 {
            let pods = (p.running_pods - i).min(8);
            emit(job(&job_name, "batch", &job_uid(i / 8), pods, None, 1))?;
        }
        let shape = PodShape {
            name: format!("run-{:04}-{i:06}", i / 8),
            namespace: "batch",
            job: job_name,
            job_uid: job_uid(i / 8),
            cpu: 1 + rng.below(2),
            mem_gi: 1 + rng.below(4),
            gpu: 0,
            node: (p.nodes > 0).then(|| format!("node-{n:05}")),
            group: None,
            node_selector: None,
            minute: rng.below(600),
        };
        emit(pod(&shape, i, &mut rng))?;
    }
    let (gangs, size) = p.gangs;
    let jobs = p.running_pods.div_ceil(8);
    // The schedulable gangs, then the stuck ones (see [`RealisticProfile::stuck`]).
    let gang = |name: String, members: usize, gpu: u64, node_selector| Gang {
        name,
        members,
        gpu,
        node_selector,
    };
    let mut groups: Vec<Gang> = (0..gangs)
        .map(|g| gang(format!("gang-{g:04}"), size, 1, None))
        .collect();
    for k in 0..p.stuck {
        groups.push(gang(format!("wide-{k}"), 20, 8, None));
        groups.push(gang(format!("big-{k}"), 4, 12, None));
        groups.push(gang(
            format!("inference-{k}"),
            4,
            1,
            Some(("pool", "inference")),
        ));
    }
    let mut index = p.running_pods;
    for (g, group) in groups.into_iter().enumerate() {
        let Gang {
            name,
            members,
            gpu,
            node_selector,
        } = group;
        let stuck = g >= gangs;
        emit(
            json!({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "train", "uid": uid(&mut rng), "creationTimestamp": T0},
            "spec": {"schedulingPolicy": {"gang": {"minCount": members}}, "priority": 0,
                "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/rack"}]}}}),
        )?;
        let uid = job_uid(jobs + g);
        emit(job(&name, "train", &uid, members, Some(&name), 4))?;
        for m in 0..members {
            let shape = PodShape {
                name: format!("{name}-{m}"),
                namespace: "train",
                job: name.clone(),
                job_uid: uid.clone(),
                cpu: 4,
                mem_gi: 16,
                gpu,
                node: None,
                group: Some(name.clone()),
                node_selector,
                minute: if stuck { 700 } else { 600 } + rng.below(60),
            };
            emit(pod(&shape, index, &mut rng))?;
            index += 1;
        }
    }
    Ok(())
}

/// Writes the cluster to `out` in `layout`; returns the number of objects written.
pub fn write(
    out: &mut dyn Write,
    p: &RealisticProfile,
    seed: u64,
    layout: Layout,
) -> io::Result<usize> {
    let mut count = 0;
    match layout {
        Layout::JsonList => {
            out.write_all(b"{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n")?;
            for_each_object(p, seed, |o| {
                if count > 0 {
                    out.write_all(b",\n")?;
                }
                count += 1;
                serde_json::to_writer_pretty(&mut *out, &o).map_err(io::Error::other)
            })?;
            out.write_all(
                b"\n    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n",
            )?;
        }
        Layout::YamlStream => {
            for_each_object(p, seed, |o| {
                count += 1;
                out.write_all(b"---\n")?;
                let text = serde_saphyr::to_string(&o).map_err(io::Error::other)?;
                out.write_all(text.as_bytes())
            })?;
        }
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_are_shaped_like_api_output_and_load() {
        let p = RealisticProfile::tiny(4);
        let mut json = Vec::new();
        let n = write(&mut json, &p, 3, Layout::JsonList).unwrap();
        // The facts, 4 nodes, 2 Jobs of running pods and their 12 pods, 2 gangs (PodGroup, Job, 3 pods).
        assert_eq!(n, 1 + 4 + 2 + 12 + 2 * (1 + 1 + 3));
        let mut again = Vec::new();
        write(&mut again, &p, 3, Layout::JsonList).unwrap();
        assert_eq!(json, again, "same seed, same bytes");
        let value: Value = serde_json::from_slice(&json).unwrap();
        let job = &value["items"][5];
        assert_eq!(job["kind"], "Job");
        let pod = &value["items"][6];
        assert_eq!(pod["kind"], "Pod");
        assert_eq!(
            pod["metadata"]["ownerReferences"][0]["uid"],
            job["metadata"]["uid"]
        );
        assert_eq!(
            pod["metadata"]["managedFields"].as_array().unwrap().len(),
            2
        );
        assert!(pod["metadata"]["annotations"][LAST_APPLIED].is_string());
        assert_eq!(
            pod["spec"]["containers"][0]["env"]
                .as_array()
                .unwrap()
                .len(),
            8
        );
        assert_eq!(pod["spec"]["volumes"].as_array().unwrap().len(), 3);
        assert_eq!(pod["status"]["conditions"].as_array().unwrap().len(), 5);
        let size = serde_json::to_string(pod).unwrap().len();
        assert!((5_000..10_000).contains(&size), "a pod is {size} bytes");
        let mut yaml = Vec::new();
        write(&mut yaml, &p, 3, Layout::YamlStream).unwrap();
        let text = String::from_utf8(yaml).unwrap();
        assert_eq!(text.matches("\n---\n").count() + 1, n);
    }
}
