//! A loopback fake Kubernetes API server for integration tests.
//!
//! [`FakeApiServer::start`] binds `127.0.0.1:0` (never another address) and serves plain
//! HTTP/1.1 from a background thread, one thread per connection. Every response carries a
//! correct `Content-Length` and `Connection: close`, and the connection is closed after it,
//! which the hyper client inside kube-rs handles without ever reusing a dead pooled connection.
//!
//! What it serves, all read-only:
//!
//! - `GET /version`, with `major`/`minor` derived from [`FakeConfig::server_version`];
//! - `GET /metrics`, Prometheus text with one `kubernetes_feature_enabled` line per gate in
//!   [`FakeConfig::feature_gates`];
//! - discovery (`/api`, `/api/v1`, `/apis`, `/apis/{group}`, `/apis/{group}/{version}`) for a
//!   built-in table of the resources wasctl reads, unioned with the group/version/kinds of the
//!   given objects;
//! - lists and single-object `GET`s of the given objects, cluster-wide or per namespace, in a
//!   stable (namespace, name) order, paginated with `limit` and `continue`;
//! - watches (`?watch=true`), as kube-apiserver serves them: a chunked stream of one JSON event
//!   per line (`ADDED`, `MODIFIED`, `DELETED`, and `BOOKMARK` with `allowWatchBookmarks=true`)
//!   from the `resourceVersion` asked for (none or `0`: the current objects as `ADDED` first),
//!   an `ERROR` event with a `Status` of code 410 for a version older than the retained history
//!   ([`FakeApiServer::compact`]), ended by `timeoutSeconds` or the server stopping; faults per
//!   resource drop the connection mid-stream or stall it ([`WatchFault`]). The changes are
//!   scripted: [`FakeApiServer::apply`] / [`FakeApiServer::play`] create, update, bind (a pretend
//!   scheduler), cordon and delete objects, each a new `resourceVersion` that lists report too.
//!
//! Forbidden resources answer 403, missing groups and unknown paths 404, and any method other
//! than `GET` 405; all with a `Status` body like the real server's. Every request, including the
//! rejected ones, is recorded and can be read back with [`FakeApiServer::requests`], so a test
//! can assert what a command did and did not read. Objects of `apiVersion: wasctl.dev/v1alpha1`
//! (wasctl's own documents) are ignored. The server stops when the [`FakeApiServer`] is dropped.

use std::collections::BTreeMap;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError, RwLock};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use serde_json::{Value, json};

/// `apiVersion` of wasctl's own documents, which the fake never serves.
const WASCTL_API_VERSION: &str = "wasctl.dev/v1alpha1";

/// Verbs advertised for every resource in discovery.
const VERBS: [&str; 3] = ["get", "list", "watch"];

/// Kinds that are cluster-scoped when they come from the objects rather than the built-in table.
const CLUSTER_SCOPED_KINDS: [&str; 14] = [
    "Node",
    "Namespace",
    "PriorityClass",
    "ResourceSlice",
    "DeviceClass",
    "DeviceTaintRule",
    "ClusterRole",
    // `lint --crd-from-cluster` lists them.
    "CustomResourceDefinition",
    // Kueue's cluster-scoped kinds.
    "ClusterQueue",
    "ResourceFlavor",
    "Cohort",
    "WorkloadPriorityClass",
    "AdmissionCheck",
    "Topology",
];

/// Groups whose preferred version is not simply the highest-priority served version.
const PREFERRED_VERSIONS: [(&str, &str); 1] = [("scheduling.k8s.io", "v1beta1")];

/// How long a connection may stay silent before its thread gives up on it.
const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// Upper bound on the size of a request line plus headers.
const MAX_HEAD_BYTES: usize = 64 * 1024;

/// One row of the built-in discovery table.
struct BuiltinResource {
    group: &'static str,
    version: &'static str,
    plural: &'static str,
    singular: &'static str,
    kind: &'static str,
    namespaced: bool,
}

/// Shorthand constructor for [`BUILTIN_RESOURCES`] rows.
const fn builtin(
    group: &'static str,
    version: &'static str,
    plural: &'static str,
    singular: &'static str,
    kind: &'static str,
    namespaced: bool,
) -> BuiltinResource {
    BuiltinResource {
        group,
        version,
        plural,
        singular,
        kind,
        namespaced,
    }
}

/// The resources wasctl reads, served in discovery whether or not any object exists.
const BUILTIN_RESOURCES: &[BuiltinResource] = &[
    builtin("", "v1", "nodes", "node", "Node", false),
    builtin("", "v1", "pods", "pod", "Pod", true),
    builtin("", "v1", "namespaces", "namespace", "Namespace", false),
    builtin("", "v1", "limitranges", "limitrange", "LimitRange", true),
    builtin(
        "",
        "v1",
        "resourcequotas",
        "resourcequota",
        "ResourceQuota",
        true,
    ),
    builtin(
        "node.k8s.io",
        "v1",
        "runtimeclasses",
        "runtimeclass",
        "RuntimeClass",
        false,
    ),
    // Read for PodTopologySpread's system-default selector (with ReplicaSets and
    // StatefulSets).
    builtin("", "v1", "services", "service", "Service", true),
    builtin(
        "",
        "v1",
        "replicationcontrollers",
        "replicationcontroller",
        "ReplicationController",
        true,
    ),
    builtin(
        "apps",
        "v1",
        "replicasets",
        "replicaset",
        "ReplicaSet",
        true,
    ),
    // What Volcano records on its gangs and their pods.
    builtin("", "v1", "events", "event", "Event", true),
    // Served so that a test can prove the client never reads them.
    builtin("", "v1", "secrets", "secret", "Secret", true),
    // Read one by name for `--scheduler-config configmap/NS/NAME`, never listed.
    builtin("", "v1", "configmaps", "configmap", "ConfigMap", true),
    builtin(
        "scheduling.k8s.io",
        "v1",
        "priorityclasses",
        "priorityclass",
        "PriorityClass",
        false,
    ),
    builtin(
        "scheduling.k8s.io",
        "v1beta1",
        "workloads",
        "workload",
        "Workload",
        true,
    ),
    builtin(
        "scheduling.k8s.io",
        "v1beta1",
        "podgroups",
        "podgroup",
        "PodGroup",
        true,
    ),
    builtin(
        "scheduling.k8s.io",
        "v1alpha3",
        "workloads",
        "workload",
        "Workload",
        true,
    ),
    builtin(
        "scheduling.k8s.io",
        "v1alpha3",
        "podgroups",
        "podgroup",
        "PodGroup",
        true,
    ),
    builtin(
        "scheduling.k8s.io",
        "v1alpha3",
        "compositepodgroups",
        "compositepodgroup",
        "CompositePodGroup",
        true,
    ),
    builtin(
        "resource.k8s.io",
        "v1",
        "resourceclaims",
        "resourceclaim",
        "ResourceClaim",
        true,
    ),
    builtin(
        "resource.k8s.io",
        "v1",
        "resourceclaimtemplates",
        "resourceclaimtemplate",
        "ResourceClaimTemplate",
        true,
    ),
    builtin(
        "resource.k8s.io",
        "v1",
        "resourceslices",
        "resourceslice",
        "ResourceSlice",
        false,
    ),
    builtin(
        "resource.k8s.io",
        "v1",
        "deviceclasses",
        "deviceclass",
        "DeviceClass",
        false,
    ),
    builtin(
        "resource.k8s.io",
        "v1",
        "devicetaintrules",
        "devicetaintrule",
        "DeviceTaintRule",
        false,
    ),
    builtin(
        "policy",
        "v1",
        "poddisruptionbudgets",
        "poddisruptionbudget",
        "PodDisruptionBudget",
        true,
    ),
    builtin("batch", "v1", "jobs", "job", "Job", true),
];

/// Stage labels for the gates wasctl cares about; other gates get `stage=""` (as GA gates do).
const GATE_STAGES: [(&str, &str); 6] = [
    ("GenericWorkload", "BETA"),
    ("CompositePodGroup", "ALPHA"),
    ("TopologyAwareWorkloadScheduling", "ALPHA"),
    ("WorkloadWithJob", "ALPHA"),
    ("PodGroupPreemptionPolicy", "ALPHA"),
    ("DRAWorkloadResourceClaims", "ALPHA"),
];

/// How the fake server behaves beyond the objects it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FakeConfig {
    /// `gitVersion` answered by `/version`, e.g. `v1.37.0`; `major`/`minor` are derived from it.
    pub server_version: String,
    /// Feature gates reported by `/metrics` as `kubernetes_feature_enabled` (1 on, 0 off).
    pub feature_gates: BTreeMap<String, bool>,
    /// `(group, plural)` pairs (`""` is the core group) that answer 403 on every path.
    pub forbidden: Vec<(String, String)>,
    /// `(group, plural, namespace)`: the resource answers 403 everywhere except in the
    /// namespaces listed for it (a user with namespaced Roles only).
    pub forbidden_except_in: Vec<(String, String, String)>,
    /// API groups absent from `/apis`; every path under `/apis/{group}/` answers 404.
    pub missing_groups: Vec<String>,
    /// Server-side page cap: when set, no list page holds more items than this, whatever the
    /// client's `limit` (also when the client sends none), and a `continue` token is returned.
    pub page_size: Option<usize>,
    /// Misbehaviours of list requests, per resource (see [`Fault`]).
    pub faults: Vec<Fault>,
    /// Extra `(group, version, plural, kind)` rows served in discovery only (names a real
    /// server would never advertise, to check that the client does not put them in paths).
    pub extra_discovery: Vec<(String, String, String, String)>,
    /// When set, every request without `Authorization: Bearer <this>` answers 401.
    pub required_token: Option<String>,
    /// Misbehaviours of one exact path (`/version`, `/apis`, `/api/v1/pods`, …), whatever
    /// the query; checked before [`Self::faults`].
    pub path_faults: Vec<(String, FaultKind)>,
    /// Misbehaviours of watch requests, per resource (see [`WatchFault`]); list requests of
    /// the resource behave.
    pub watch_faults: Vec<WatchFault>,
    /// How often a watch with `allowWatchBookmarks=true` gets a `BOOKMARK` while nothing
    /// happens (kube-apiserver: about once a minute; tests want it sooner).
    pub bookmark_every: Duration,
}

/// A misbehaviour of the watch requests of one resource (`group` `""` is core). Each fires
/// on the first `times` watches of the resource, then the watch behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchFault {
    /// API group of the resource.
    pub group: String,
    /// Plural name of the resource.
    pub plural: String,
    /// What goes wrong.
    pub kind: WatchFaultKind,
    /// How many watches of the resource it hits.
    pub times: usize,
}

impl WatchFault {
    /// A fault on the first watch of `plural` of `group`.
    pub fn once(group: &str, plural: &str, kind: WatchFaultKind) -> Self {
        Self {
            group: group.to_owned(),
            plural: plural.to_owned(),
            kind,
            times: 1,
        }
    }
}

/// What a faulty watch does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchFaultKind {
    /// Sends this many events, then closes the connection without ending the chunked body
    /// (a load balancer cutting a long request, an API server restarting).
    DropAfter(usize),
    /// Sends the head and nothing else (no event, no bookmark) for [`FAULT_HOLD`].
    Stall,
    /// Answers with an `ERROR` event whose `Status` has code 410 (`Expired`), as
    /// kube-apiserver does for a version its watch cache no longer holds.
    Gone,
    /// Answers the watch request itself with this status and a `Status` body (403: RBAC
    /// grants `list` but not `watch`).
    Status(u16),
}

/// A misbehaviour of the list requests of one resource (`group` `""` is core).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// API group of the resource.
    pub group: String,
    /// Plural name of the resource.
    pub plural: String,
    /// What goes wrong.
    pub kind: FaultKind,
}

impl Fault {
    /// A fault on `plural` of `group`.
    pub fn new(group: &str, plural: &str, kind: FaultKind) -> Self {
        Self {
            group: group.to_owned(),
            plural: plural.to_owned(),
            kind,
        }
    }
}

/// What a faulty list does. Every behaviour is bounded in time: the fake never holds a
/// connection for more than [`FAULT_HOLD`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultKind {
    /// Accepts the request and sends nothing.
    Hang,
    /// Answers every list with this status and a `Status` body (403, 404, 410, 500, …).
    Status(u16),
    /// Answers `410 Gone` to the first request that carries a `continue` token, then behaves.
    GoneOnce,
    /// A 200 whose body stops halfway (the `Content-Length` promises more).
    Truncated,
    /// A 200 whose body is not JSON.
    Garbage,
    /// A `302 Found` to this URL.
    Redirect(String),
    /// Every page, the first included, carries the same `continue` token.
    RepeatedContinue,
    /// A 200 whose body is a `Status`.
    StatusBody,
    /// A 200 list whose `items` is an object.
    ItemsNotList,
    /// The body is written one byte every 20 ms.
    Trickle,
    /// This status with an HTML page, as a proxy or load balancer in front of the API server
    /// answers (nginx's `502 Bad Gateway` page).
    HtmlPage(u16),
    /// A 200 `application/json` answer whose body is not valid JSON.
    MalformedJson,
    /// The right answer, gzip-compressed with `Content-Encoding: gzip` although the client
    /// sent no `Accept-Encoding` (a misconfigured proxy).
    UnrequestedGzip,
    /// `429 Too Many Requests` with `Retry-After: seconds` to the first `times` requests
    /// (of this fault), then the right answer.
    TooManyRequests {
        /// The `Retry-After` value, in seconds.
        retry_after: u64,
        /// How many requests are refused before the server answers.
        times: usize,
    },
}

/// The longest a faulty response holds its connection.
pub const FAULT_HOLD: Duration = Duration::from_secs(10);

impl Default for FakeConfig {
    fn default() -> Self {
        Self {
            server_version: "v1.37.0".to_owned(),
            feature_gates: BTreeMap::new(),
            forbidden: Vec::new(),
            forbidden_except_in: Vec::new(),
            missing_groups: Vec::new(),
            page_size: None,
            faults: Vec::new(),
            extra_discovery: Vec::new(),
            required_token: None,
            path_faults: Vec::new(),
            watch_faults: Vec::new(),
            bookmark_every: Duration::from_secs(1),
        }
    }
}

/// One request as the fake server received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedRequest {
    /// HTTP method, e.g. `GET`.
    pub method: String,
    /// Request path without the query string, as sent (not percent-decoded).
    pub path: String,
    /// Raw query string without the leading `?` (`""` when there is none).
    pub query: String,
}

/// A running fake API server; it stops when dropped.
pub struct FakeApiServer {
    /// The bound loopback address.
    addr: SocketAddr,
    /// Set on drop to make the accept loop exit.
    shutdown: Arc<AtomicBool>,
    /// Every request received so far, in arrival order.
    log: Arc<Mutex<Vec<LoggedRequest>>>,
    /// The accept loop, joined on drop.
    accept_thread: Option<JoinHandle<()>>,
    /// What the server serves; swapped whole by every
    /// scripted change (a connection keeps the state it started with, as a real list keeps
    /// its resourceVersion).
    state: Arc<RwLock<Arc<State>>>,
    /// The configuration, for rebuilding the state.
    config: FakeConfig,
    /// The objects as they are now, the resourceVersion, and the history watches read.
    store: Arc<Store>,
}

/// One scripted change of the cluster ([`FakeApiServer::apply`]).
#[derive(Debug, Clone)]
pub enum Step {
    /// Creates an object (`ADDED`).
    Create(Value),
    /// Replaces the object of the same apiVersion, kind, namespace and name (`MODIFIED`).
    Update(Value),
    /// A pretend scheduler binds a pending pod: `spec.nodeName`, phase `Running` and the
    /// `PodScheduled` condition (`MODIFIED`).
    Bind {
        /// The pod's namespace.
        namespace: String,
        /// The pod's name.
        name: String,
        /// The node.
        node: String,
    },
    /// Sets a node's `spec.unschedulable` (`MODIFIED`).
    Cordon(String),
    /// Deletes an object (`DELETED`, carrying its last state).
    Delete {
        /// `apiVersion` of the object.
        api_version: String,
        /// `kind` of the object.
        kind: String,
        /// `""` for a cluster-scoped object.
        namespace: String,
        /// The name.
        name: String,
    },
    /// Forgets the history so far ([`FakeApiServer::compact`]).
    Compact,
    /// Waits before the next step.
    Sleep(Duration),
}

impl Step {
    /// Deletes pod `namespace/name`.
    pub fn delete_pod(namespace: &str, name: &str) -> Self {
        Self::Delete {
            api_version: "v1".to_owned(),
            kind: "Pod".to_owned(),
            namespace: namespace.to_owned(),
            name: name.to_owned(),
        }
    }

    /// Binds pod `namespace/name` to `node`.
    pub fn bind(namespace: &str, name: &str, node: &str) -> Self {
        Self::Bind {
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            node: node.to_owned(),
        }
    }
}

/// The fake's etcd: the objects as they are now, the last resourceVersion, and every change
/// since the last compaction, which watches read. Waiters are woken on every change and when
/// the server stops.
struct Store {
    data: Mutex<StoreData>,
    changed: Condvar,
}

struct StoreData {
    /// The current objects, as given.
    objects: Vec<Value>,
    /// The resourceVersion of the last change (1 before any).
    rv: u64,
    /// Changes after `oldest`, in order.
    history: Vec<Recorded>,
    /// A watch from a resourceVersion below this is too old (410).
    oldest: u64,
    /// Set when the server stops: every watch ends.
    closed: bool,
    /// Watches started so far per `(group, plural)`, for [`WatchFault::times`].
    watches: BTreeMap<(String, String), usize>,
}

/// One change in the history.
#[derive(Debug, Clone)]
struct Recorded {
    rv: u64,
    event: &'static str,
    group: String,
    version: String,
    kind: String,
    namespace: String,
    value: Value,
}

impl Store {
    fn lock(&self) -> std::sync::MutexGuard<'_, StoreData> {
        self.data.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// `(group, version, kind, namespace, name)` of an object.
fn identity(value: &Value) -> (String, String, String, String, String) {
    let field = |pointer: &str| {
        value
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let (group, version) = split_api_version(&field("/apiVersion"));
    (
        group,
        version,
        field("/kind"),
        field("/metadata/namespace"),
        field("/metadata/name"),
    )
}

impl FakeApiServer {
    /// Binds `127.0.0.1:0` and starts serving `objects` as configured by `config`.
    ///
    /// # Panics
    ///
    /// If an object lacks `apiVersion`, `kind` or `metadata.name` (a broken fixture), or if the
    /// loopback socket or the server thread cannot be created.
    pub fn start(objects: Vec<Value>, config: FakeConfig) -> Self {
        let log = Arc::new(Mutex::new(Vec::new()));
        let store = Arc::new(Store {
            data: Mutex::new(StoreData {
                objects: objects.clone(),
                rv: 1,
                history: Vec::new(),
                oldest: 1,
                closed: false,
                watches: BTreeMap::new(),
            }),
            changed: Condvar::new(),
        });
        let state = Arc::new(RwLock::new(Arc::new(State::new(
            objects,
            config.clone(),
            Arc::clone(&log),
            Arc::clone(&store),
            1,
        ))));
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .expect("fake apiserver: binding 127.0.0.1:0 should succeed");
        let addr = listener
            .local_addr()
            .expect("fake apiserver: a bound socket has an address");
        let shutdown = Arc::new(AtomicBool::new(false));
        let accept_thread = {
            let shutdown = Arc::clone(&shutdown);
            let state = Arc::clone(&state);
            thread::Builder::new()
                .name("fake-apiserver".to_owned())
                .spawn(move || accept_loop(&listener, &shutdown, &state))
                .expect("fake apiserver: spawning the accept thread should succeed")
        };
        Self {
            addr,
            shutdown,
            log,
            accept_thread: Some(accept_thread),
            state,
            config,
            store,
        }
    }

    /// Serves `objects` at resourceVersion `rv` from now on.
    fn serve(&self, objects: Vec<Value>, rv: u64) {
        let next = Arc::new(State::new(
            objects,
            self.config.clone(),
            Arc::clone(&self.log),
            Arc::clone(&self.store),
            rv,
        ));
        *self.state.write().unwrap_or_else(PoisonError::into_inner) = next;
    }

    /// The resourceVersion of the last change (1 before any).
    pub fn resource_version(&self) -> u64 {
        self.store.lock().rv
    }

    /// Forgets the history so far: a watch from an earlier resourceVersion than the current
    /// one gets an `ERROR` event with a 410 `Status`, as from a compacted etcd.
    pub fn compact(&self) {
        let mut data = self.store.lock();
        data.oldest = data.rv;
        data.history.clear();
    }

    /// Plays `steps` in order (sleeping where they say).
    pub fn play(&self, steps: &[Step]) {
        for step in steps {
            self.apply(step);
        }
    }

    /// Makes one scripted change: the objects served change, the resourceVersion goes up by
    /// one, and every watch of the object's resource gets the event.
    ///
    /// # Panics
    ///
    /// On a broken script: creating an object that exists, or changing one that does not.
    pub fn apply(&self, step: &Step) {
        let find = |objects: &[Value], id: &(String, String, String, String, String)| {
            objects.iter().position(|o| {
                let other = identity(o);
                (&other.0, &other.2, &other.3, &other.4) == (&id.0, &id.2, &id.3, &id.4)
            })
        };
        let (event, mut value) = {
            let data = self.store.lock();
            match step {
                Step::Sleep(d) => {
                    drop(data);
                    thread::sleep(*d);
                    return;
                }
                Step::Compact => {
                    drop(data);
                    self.compact();
                    return;
                }
                Step::Create(v) => {
                    assert!(
                        find(&data.objects, &identity(v)).is_none(),
                        "fake apiserver: {v} exists already"
                    );
                    ("ADDED", v.clone())
                }
                Step::Update(v) => {
                    assert!(
                        find(&data.objects, &identity(v)).is_some(),
                        "fake apiserver: {v} does not exist"
                    );
                    ("MODIFIED", v.clone())
                }
                Step::Bind {
                    namespace,
                    name,
                    node,
                } => {
                    let id = (
                        String::new(),
                        "v1".to_owned(),
                        "Pod".to_owned(),
                        namespace.clone(),
                        name.clone(),
                    );
                    let at = find(&data.objects, &id).unwrap_or_else(|| {
                        panic!("fake apiserver: no pod {namespace}/{name} to bind")
                    });
                    let mut pod = data.objects[at].clone();
                    pod["spec"]["nodeName"] = json!(node);
                    pod["status"]["phase"] = json!("Running");
                    pod["status"]["conditions"] = json!([
                        {"type": "PodScheduled", "status": "True"}
                    ]);
                    ("MODIFIED", pod)
                }
                Step::Cordon(node) => {
                    let id = (
                        String::new(),
                        "v1".to_owned(),
                        "Node".to_owned(),
                        String::new(),
                        node.clone(),
                    );
                    let at = find(&data.objects, &id)
                        .unwrap_or_else(|| panic!("fake apiserver: no node {node} to cordon"));
                    let mut n = data.objects[at].clone();
                    n["spec"]["unschedulable"] = json!(true);
                    ("MODIFIED", n)
                }
                Step::Delete {
                    api_version,
                    kind,
                    namespace,
                    name,
                } => {
                    let (group, version) = split_api_version(api_version);
                    let id = (
                        group,
                        version,
                        kind.clone(),
                        namespace.clone(),
                        name.clone(),
                    );
                    let at = find(&data.objects, &id).unwrap_or_else(|| {
                        panic!("fake apiserver: no {kind} {namespace}/{name} to delete")
                    });
                    ("DELETED", data.objects[at].clone())
                }
            }
        };
        let (objects, rv) = {
            let mut data = self.store.lock();
            data.rv += 1;
            let rv = data.rv;
            value["metadata"]["resourceVersion"] = json!(rv.to_string());
            let id = identity(&value);
            let at = find(&data.objects, &id);
            match (event, at) {
                ("DELETED", Some(i)) => {
                    data.objects.remove(i);
                }
                (_, Some(i)) => data.objects[i] = value.clone(),
                (_, None) => data.objects.push(value.clone()),
            }
            let (group, version, kind, namespace, _) = id;
            data.history.push(Recorded {
                rv,
                event,
                group,
                version,
                kind,
                namespace,
                value,
            });
            (data.objects.clone(), rv)
        };
        self.serve(objects, rv);
        self.store.changed.notify_all();
    }

    /// Base URL of the server, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request received so far, in arrival order, including rejected ones.
    pub fn requests(&self) -> Vec<LoggedRequest> {
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Writes `dir/kubeconfig` pointing at this server and returns its path.
    ///
    /// The kubeconfig has one cluster (`server` = [`Self::url`]), one user with the dummy token
    /// `fake-token`, and one context `fake` (namespace `default`) set as `current-context`.
    ///
    /// # Panics
    ///
    /// If the file cannot be written.
    pub fn write_kubeconfig(&self, dir: &Path) -> PathBuf {
        let path = dir.join("kubeconfig");
        let text = format!(
            "apiVersion: v1\n\
             kind: Config\n\
             clusters:\n\
             - name: fake\n  \
               cluster:\n    \
                 server: {url}\n\
             users:\n\
             - name: fake\n  \
               user:\n    \
                 token: fake-token\n\
             contexts:\n\
             - name: fake\n  \
               context:\n    \
                 cluster: fake\n    \
                 user: fake\n    \
                 namespace: default\n\
             current-context: fake\n\
             preferences: {{}}\n",
            url = self.url()
        );
        std::fs::write(&path, text).unwrap_or_else(|e| {
            panic!("fake apiserver: writing kubeconfig {}: {e}", path.display())
        });
        path
    }
}

impl Drop for FakeApiServer {
    fn drop(&mut self) {
        self.shutdown.store(true, Ordering::SeqCst);
        self.store.lock().closed = true;
        self.store.changed.notify_all();
        // Wake the accept loop, which then sees the flag and drops the listener. The connection
        // is accepted by the kernel backlog even before the loop gets to it, so this cannot hang.
        let woke = TcpStream::connect_timeout(&self.addr, Duration::from_secs(5)).is_ok();
        // A panicked accept thread has already stopped serving; nothing more to do then.
        if let Some(handle) = self.accept_thread.take()
            && woke
        {
            let _ = handle.join();
        }
    }
}

/// Accepts connections until `shutdown` is set, handing each to its own thread.
fn accept_loop(listener: &TcpListener, shutdown: &AtomicBool, state: &RwLock<Arc<State>>) {
    for conn in listener.incoming() {
        if shutdown.load(Ordering::SeqCst) {
            break;
        }
        match conn {
            Ok(stream) => {
                let state = Arc::clone(&state.read().unwrap_or_else(PoisonError::into_inner));
                // If the thread cannot be spawned the stream is dropped and the client sees the
                // connection closed, which is all a test can usefully learn.
                let _ = thread::Builder::new()
                    .name("fake-apiserver-conn".to_owned())
                    .spawn(move || handle_connection(stream, &state));
            }
            // E.g. out of file descriptors: back off instead of spinning.
            Err(_) => thread::sleep(Duration::from_millis(10)),
        }
    }
}

/// Serves one request on `stream`, then closes it.
fn handle_connection(mut stream: TcpStream, state: &State) {
    // Failures here only mean the client went away; there is no one to report them to.
    let _ = serve_one(&mut stream, state);
    let _ = stream.shutdown(Shutdown::Write);
}

/// Reads one request (including any body, so that closing does not reset the connection),
/// logs it, and writes the response.
fn serve_one(stream: &mut TcpStream, state: &State) -> io::Result<()> {
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    stream.set_nodelay(true)?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let Some(head) = read_head(&mut reader)? else {
        // Closed without a request, like the wake-up connection on drop.
        return Ok(());
    };
    if head
        .header("expect")
        .is_some_and(|v| v.eq_ignore_ascii_case("100-continue"))
    {
        stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
    }
    discard_body(&mut reader, &head)?;

    let (path, query) = head
        .target
        .split_once('?')
        .unwrap_or((head.target.as_str(), ""));
    state
        .log
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(LoggedRequest {
            method: head.method.clone(),
            path: path.to_owned(),
            query: query.to_owned(),
        });

    let authorized = state
        .config
        .required_token
        .as_ref()
        .is_none_or(|t| head.header("authorization") == Some(format!("Bearer {t}").as_str()));
    let response = if !authorized {
        Response::status(401, "Unauthorized", "Unauthorized")
    } else if head.method == "GET" || head.method == "HEAD" {
        state.get(path, &Query::parse(query))
    } else {
        Response::status(
            405,
            "MethodNotAllowed",
            &format!(
                "the fake apiserver is read-only: method {} is not allowed",
                head.method
            ),
        )
    };
    if let (Delivery::Watch, Some(spec)) = (response.delivery, &response.watch) {
        return serve_watch(stream, state, spec);
    }
    write_response(stream, &response, head.method == "HEAD")
}

/// One event line of a watch.
fn event_line(event: &str, object: &Value) -> String {
    let mut line = json!({"type": event, "object": object}).to_string();
    line.push('\n');
    line
}

/// Writes one chunk of a chunked body.
fn write_chunk(stream: &mut TcpStream, data: &str) -> io::Result<()> {
    stream.write_all(format!("{:x}\r\n{data}\r\n", data.len()).as_bytes())?;
    stream.flush()
}

/// Streams a watch as kube-apiserver does: `200` with a chunked body of one JSON event per
/// line, from the resourceVersion asked for, with bookmarks when allowed, until
/// `timeoutSeconds`, the server stopping, or the client going away; or one `ERROR` event with
/// a 410 `Status` when the version is older than the history kept.
fn serve_watch(stream: &mut TcpStream, state: &State, spec: &WatchSpec) -> io::Result<()> {
    let store = &state.store;
    let fault = {
        let mut data = store.lock();
        let seen = data
            .watches
            .entry((spec.group.clone(), spec.plural.clone()))
            .or_insert(0);
        *seen += 1;
        let nth = *seen;
        state
            .config
            .watch_faults
            .iter()
            .find(|f| f.group == spec.group && f.plural == spec.plural && nth <= f.times)
            .map(|f| f.kind)
    };
    stream.write_all(
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\
             Cache-Control: no-cache, private\r\nDate: {SERVER_DATE}\r\nConnection: close\r\n\r\n"
        )
        .as_bytes(),
    )?;
    stream.flush()?;
    if fault == Some(WatchFaultKind::Stall) {
        thread::sleep(FAULT_HOLD);
        return Ok(());
    }
    let api_version = api_version(&spec.group, &spec.version);
    let matches = |group: &str, version: &str, kind: &str, namespace: &str| {
        group == spec.group
            && version == spec.version
            && kind == spec.kind
            && spec.namespace.as_deref().is_none_or(|ns| ns == namespace)
    };
    let gone = |from: u64, oldest: u64| {
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
               "message": format!("too old resource version: {from} ({oldest})"),
               "reason": "Expired", "code": 410})
    };
    let mut sent = 0usize;
    let drop_after = match fault {
        Some(WatchFaultKind::DropAfter(n)) => Some(n),
        _ => None,
    };
    // Sends one event; `false` once the connection is to be dropped mid-stream.
    let mut send = |stream: &mut TcpStream, line: &str| -> io::Result<bool> {
        if drop_after.is_some_and(|n| sent >= n) {
            return Ok(false);
        }
        write_chunk(stream, line)?;
        sent += 1;
        Ok(true)
    };
    let mut last = {
        let data = store.lock();
        if fault == Some(WatchFaultKind::Gone) {
            let from = spec.from.unwrap_or(data.rv);
            drop(data);
            write_chunk(stream, &event_line("ERROR", &gone(from, from + 1)))?;
            return write_chunk(stream, "");
        }
        match spec.from {
            Some(from) if from < data.oldest => {
                let line = event_line("ERROR", &gone(from, data.oldest));
                drop(data);
                write_chunk(stream, &line)?;
                return write_chunk(stream, "");
            }
            Some(from) => from,
            None => {
                // No version: the current objects first, as `ADDED` events.
                let rv = data.rv;
                let mut initial: Vec<String> = data
                    .objects
                    .iter()
                    .filter(|o| {
                        let (g, v, k, ns, _) = identity(o);
                        matches(&g, &v, &k, &ns)
                    })
                    .map(|o| {
                        let mut o = o.clone();
                        o["apiVersion"] = json!(api_version);
                        event_line("ADDED", &o)
                    })
                    .collect();
                initial.sort();
                drop(data);
                for line in &initial {
                    if !send(stream, line)? {
                        return Ok(());
                    }
                }
                rv
            }
        }
    };
    let deadline = std::time::Instant::now() + spec.timeout;
    let mut next_bookmark = std::time::Instant::now() + state.config.bookmark_every;
    loop {
        let (lines, now_rv) = {
            let mut data = store.lock();
            loop {
                if data.closed {
                    return Ok(());
                }
                if data.rv > last || std::time::Instant::now() >= next_bookmark.min(deadline) {
                    break;
                }
                let wait = next_bookmark
                    .min(deadline)
                    .saturating_duration_since(std::time::Instant::now());
                data = store
                    .changed
                    .wait_timeout(data, wait)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
            }
            if last < data.oldest {
                // Compacted while this watch was behind: kube-apiserver ends it with a 410.
                let line = event_line("ERROR", &gone(last, data.oldest));
                drop(data);
                write_chunk(stream, &line)?;
                return write_chunk(stream, "");
            }
            let lines: Vec<String> = data
                .history
                .iter()
                .filter(|r| r.rv > last && matches(&r.group, &r.version, &r.kind, &r.namespace))
                .map(|r| {
                    let mut o = r.value.clone();
                    o["apiVersion"] = json!(api_version);
                    event_line(r.event, &o)
                })
                .collect();
            (lines, data.rv)
        };
        for line in &lines {
            if !send(stream, line)? {
                return Ok(());
            }
        }
        last = now_rv;
        let now = std::time::Instant::now();
        if now >= deadline {
            return write_chunk(stream, "");
        }
        if now >= next_bookmark {
            next_bookmark = now + state.config.bookmark_every;
            if spec.bookmarks {
                let bookmark = json!({"kind": spec.kind, "apiVersion": api_version,
                                      "metadata": {"resourceVersion": last.to_string()}});
                if !send(stream, &event_line("BOOKMARK", &bookmark))? {
                    return Ok(());
                }
            }
        }
    }
}

/// Request line and headers of one HTTP request.
struct RequestHead {
    method: String,
    target: String,
    /// Header names lowercased.
    headers: Vec<(String, String)>,
}

impl RequestHead {
    /// The first value of header `name` (lowercase).
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Reads the request line and headers; `None` when the peer closes before sending a request.
fn read_head(reader: &mut impl BufRead) -> io::Result<Option<RequestHead>> {
    let mut total = 0;
    let mut request_line = String::new();
    // RFC 9112 §2.2: ignore empty lines before the request line.
    while request_line.trim().is_empty() {
        request_line.clear();
        let n = reader.read_line(&mut request_line)?;
        if n == 0 {
            return Ok(None);
        }
        total += n;
        check_head_size(total)?;
    }
    let mut parts = request_line.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        return Err(invalid("malformed request line"));
    };
    let (method, target) = (method.to_owned(), target.to_owned());

    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        let n = reader.read_line(&mut line)?;
        if n == 0 {
            return Err(invalid("connection closed inside the request head"));
        }
        total += n;
        check_head_size(total)?;
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    Ok(Some(RequestHead {
        method,
        target,
        headers,
    }))
}

/// Fails once the request head exceeds [`MAX_HEAD_BYTES`].
fn check_head_size(total: usize) -> io::Result<()> {
    if total > MAX_HEAD_BYTES {
        Err(invalid("request head too large"))
    } else {
        Ok(())
    }
}

/// Reads and drops the request body, whether sized by `Content-Length` or chunked.
fn discard_body(reader: &mut impl BufRead, head: &RequestHead) -> io::Result<()> {
    let chunked = head
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        loop {
            let mut size_line = String::new();
            if reader.read_line(&mut size_line)? == 0 {
                return Err(invalid("connection closed inside a chunked body"));
            }
            let size = size_line.split(';').next().unwrap_or_default().trim();
            let size =
                u64::from_str_radix(size, 16).map_err(|_| invalid("malformed chunk size"))?;
            if size == 0 {
                // Trailers, up to the empty line.
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
                        return Ok(());
                    }
                }
            }
            // The chunk and its trailing CRLF.
            skip(reader, size + 2)?;
        }
    }
    let length = match head.header("content-length") {
        Some(v) => v
            .parse::<u64>()
            .map_err(|_| invalid("malformed Content-Length"))?,
        None => 0,
    };
    skip(reader, length)
}

/// Reads and drops exactly `n` bytes.
fn skip(reader: &mut impl Read, n: u64) -> io::Result<()> {
    let copied = io::copy(&mut reader.take(n), &mut io::sink())?;
    if copied == n {
        Ok(())
    } else {
        Err(invalid("connection closed inside the request body"))
    }
}

/// An `InvalidData` error with `message`.
fn invalid(message: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message.to_owned())
}

/// A response ready to be written.
struct Response {
    code: u16,
    content_type: &'static str,
    body: String,
    /// How the response goes out.
    delivery: Delivery,
    /// A `Location` header.
    location: Option<String>,
    /// A `Retry-After` header, in seconds.
    retry_after: Option<u64>,
    /// What a [`Delivery::Watch`] streams.
    watch: Option<WatchSpec>,
}

/// One watch request, as understood.
#[derive(Debug, Clone)]
struct WatchSpec {
    group: String,
    version: String,
    plural: String,
    kind: String,
    namespace: Option<String>,
    /// `resourceVersion`: `None` for absent, `""` or `0` (the current objects first).
    from: Option<u64>,
    bookmarks: bool,
    timeout: Duration,
}

/// How a response is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Delivery {
    /// Whole, at once.
    Normal,
    /// Nothing at all, for [`FAULT_HOLD`].
    Hang,
    /// The head and half of the body, then the connection closes.
    Truncated,
    /// One byte every 20 ms, for at most [`FAULT_HOLD`].
    Trickle,
    /// Whole, gzip-compressed, with `Content-Encoding: gzip`.
    Gzip,
    /// A watch: a chunked stream of events (see [`serve_watch`]).
    Watch,
}

impl Response {
    /// A 200 response with a JSON body.
    fn json(value: &Value) -> Self {
        Self {
            code: 200,
            content_type: "application/json",
            body: value.to_string(),
            delivery: Delivery::Normal,
            location: None,
            retry_after: None,
            watch: None,
        }
    }

    /// An error response with a Kubernetes `Status` body.
    fn status(code: u16, reason: &str, message: &str) -> Self {
        Self::status_with_details(code, reason, message, None)
    }

    /// An error response with a Kubernetes `Status` body carrying `details`.
    fn status_with_details(code: u16, reason: &str, message: &str, details: Option<Value>) -> Self {
        let mut status = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": message,
            "reason": reason,
            "code": code,
        });
        if let Some(details) = details {
            status["details"] = details;
        }
        Self {
            code,
            content_type: "application/json",
            body: status.to_string(),
            delivery: Delivery::Normal,
            location: None,
            retry_after: None,
            watch: None,
        }
    }

    /// The Kubernetes 404 for a path nothing is served at.
    fn not_found() -> Self {
        Self::status(
            404,
            "NotFound",
            "the server could not find the requested resource",
        )
    }
}

/// The fake server's clock, sent as `Date` on every answer: wasctl takes "now" from it.
pub const SERVER_DATE: &str = "Sun, 29 Nov 2026 12:00:00 GMT";

/// Writes `response` with a correct `Content-Length` and `Connection: close`.
fn write_response(stream: &mut TcpStream, response: &Response, head_only: bool) -> io::Result<()> {
    if response.delivery == Delivery::Hang {
        thread::sleep(FAULT_HOLD);
        return Ok(());
    }
    let reason = match response.code {
        200 => "OK",
        302 => "Found",
        410 => "Gone",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        _ => "Unknown",
    };
    let allow = if response.code == 405 {
        "Allow: GET, HEAD\r\n"
    } else {
        ""
    };
    let location = response
        .location
        .as_ref()
        .map(|l| format!("Location: {l}\r\n"))
        .unwrap_or_default();
    let retry_after = response
        .retry_after
        .map(|s| format!("Retry-After: {s}\r\n"))
        .unwrap_or_default();
    let gzipped;
    let (body, encoding) = if response.delivery == Delivery::Gzip {
        gzipped = gzip_stored(response.body.as_bytes());
        (gzipped.as_slice(), "Content-Encoding: gzip\r\n")
    } else {
        (response.body.as_bytes(), "")
    };
    let mut out = format!(
        "HTTP/1.1 {} {reason}\r\nContent-Type: {}\r\nContent-Length: {}\r\n{allow}{location}\
         {retry_after}{encoding}Cache-Control: no-cache, private\r\nDate: {SERVER_DATE}\r\n\
         Connection: close\r\n\r\n",
        response.code,
        response.content_type,
        body.len(),
    )
    .into_bytes();
    match response.delivery {
        Delivery::Truncated => {
            out.extend_from_slice(&body[..body.len() / 2]);
            stream.write_all(&out)?;
            return stream.flush();
        }
        Delivery::Trickle => {
            stream.write_all(&out)?;
            let start = std::time::Instant::now();
            for b in body {
                if start.elapsed() > FAULT_HOLD {
                    break;
                }
                stream.write_all(&[*b])?;
                stream.flush()?;
                thread::sleep(Duration::from_millis(20));
            }
            return Ok(());
        }
        Delivery::Normal | Delivery::Hang | Delivery::Gzip | Delivery::Watch => {}
    }
    if !head_only {
        out.extend_from_slice(body);
    }
    stream.write_all(&out)?;
    stream.flush()
}

/// `data` as a gzip member (RFC 1952) holding stored (uncompressed) deflate blocks
/// (RFC 1951 §3.2.4): a valid gzip stream without a compression library.
fn gzip_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    let mut chunks = data.chunks(0xffff).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(chunk) = chunks.next() {
        let last = u8::from(chunks.peek().is_none());
        let len = u16::try_from(chunk.len()).unwrap_or(u16::MAX);
        out.push(last);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out.extend_from_slice(&crc32(data).to_le_bytes());
    out.extend_from_slice(
        &u32::try_from(data.len() % (1 << 32))
            .unwrap_or(0)
            .to_le_bytes(),
    );
    out
}

/// CRC-32 (IEEE 802.3, reflected), bit by bit.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// The query parameters the fake understands; the rest (selectors, …) are ignored but still
/// appear in the request log.
#[derive(Debug, Default)]
struct Query {
    /// `limit`; absent, `0` or unparsable means no limit.
    limit: Option<usize>,
    /// `continue`, percent-decoded.
    continue_token: Option<String>,
    /// `watch=true` (or `1`).
    watch: bool,
    /// `resourceVersion`.
    resource_version: Option<String>,
    /// `allowWatchBookmarks=true`.
    bookmarks: bool,
    /// `timeoutSeconds`.
    timeout_seconds: Option<u64>,
}

impl Query {
    /// Parses a raw query string (tolerating empty pieces such as kube-rs's leading `&`).
    fn parse(raw: &str) -> Self {
        let mut query = Self::default();
        for piece in raw.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = piece.split_once('=').unwrap_or((piece, ""));
            match key {
                "limit" => query.limit = value.parse().ok().filter(|&n: &usize| n > 0),
                "continue" if !value.is_empty() => {
                    query.continue_token = Some(percent_decode(value));
                }
                "watch" => query.watch = matches!(value, "true" | "1"),
                "resourceVersion" => query.resource_version = Some(percent_decode(value)),
                "allowWatchBookmarks" => query.bookmarks = matches!(value, "true" | "1"),
                "timeoutSeconds" => query.timeout_seconds = value.parse().ok(),
                _ => {}
            }
        }
        query
    }
}

/// Decodes `%XX` escapes and `+` (space) in a query value; malformed escapes are kept as is.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = s
                    .get(i + 1..i + 3)
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                if let Some(byte) = hex {
                    out.push(byte);
                    i += 2;
                } else {
                    out.push(b'%');
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Prefix of decoded continue tokens, so that foreign tokens are rejected.
const CONTINUE_PREFIX: &str = "fake-apiserver-offset:";

/// Encodes a list offset as an opaque continue token (hex, so it needs no URL escaping).
fn encode_continue(offset: usize) -> String {
    format!("{CONTINUE_PREFIX}{offset}")
        .bytes()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Decodes a token made by [`encode_continue`].
fn decode_continue(token: &str) -> Option<usize> {
    if !token.len().is_multiple_of(2) || !token.is_ascii() {
        return None;
    }
    let bytes = (0..token.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&token[i..i + 2], 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    String::from_utf8(bytes)
        .ok()?
        .strip_prefix(CONTINUE_PREFIX)?
        .parse()
        .ok()
}

/// A resource as served in discovery.
#[derive(Debug, Clone)]
struct ResourceDef {
    plural: String,
    singular: String,
    kind: String,
    namespaced: bool,
}

/// One object the server holds.
#[derive(Debug)]
struct StoredObject {
    group: String,
    version: String,
    kind: String,
    /// `""` for cluster-scoped objects.
    namespace: String,
    name: String,
    value: Value,
}

/// `(group, version)`; the core group is `""`.
type GroupVersion = (String, String);

/// Everything the connection threads share.
struct State {
    config: FakeConfig,
    /// Served resources by group/version, then by plural.
    resources: BTreeMap<GroupVersion, BTreeMap<String, ResourceDef>>,
    /// Objects sorted by (namespace, name).
    objects: Vec<StoredObject>,
    log: Arc<Mutex<Vec<LoggedRequest>>>,
    /// Set once a [`FaultKind::GoneOnce`] answered 410.
    gone_sent: AtomicBool,
    /// How many requests a [`FaultKind::TooManyRequests`] refused so far.
    throttled: std::sync::atomic::AtomicUsize,
    /// The live objects and history, for watches.
    store: Arc<Store>,
    /// The resourceVersion lists of this state report.
    list_rv: u64,
}

/// Splits an `apiVersion` into (group, version).
fn split_api_version(api_version: &str) -> GroupVersion {
    match api_version.split_once('/') {
        Some((group, version)) => (group.to_owned(), version.to_owned()),
        None => (String::new(), api_version.to_owned()),
    }
}

/// Joins a group and version into an `apiVersion`.
fn api_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    }
}

/// Sort key putting Kubernetes versions in priority order: GA, then beta, then alpha, higher
/// numbers first; versions that do not look like Kubernetes versions last, alphabetically.
fn version_priority(version: &str) -> (u8, std::cmp::Reverse<u32>, std::cmp::Reverse<u32>, String) {
    use std::cmp::Reverse;
    let parsed = version.strip_prefix('v').and_then(|rest| {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let major: u32 = rest[..digits].parse().ok()?;
        let tail = &rest[digits..];
        if tail.is_empty() {
            return Some((0, major, 0));
        }
        let (rank, minor) = if let Some(n) = tail.strip_prefix("beta") {
            (1, n)
        } else if let Some(n) = tail.strip_prefix("alpha") {
            (2, n)
        } else {
            return None;
        };
        Some((rank, major, minor.parse().ok()?))
    });
    match parsed {
        Some((rank, major, minor)) => (rank, Reverse(major), Reverse(minor), String::new()),
        None => (3, Reverse(0), Reverse(0), version.to_owned()),
    }
}

impl State {
    /// Indexes `objects` and builds the discovery table.
    fn new(
        objects: Vec<Value>,
        config: FakeConfig,
        log: Arc<Mutex<Vec<LoggedRequest>>>,
        store: Arc<Store>,
        list_rv: u64,
    ) -> Self {
        let mut resources: BTreeMap<GroupVersion, BTreeMap<String, ResourceDef>> = BTreeMap::new();
        for r in BUILTIN_RESOURCES {
            resources
                .entry((r.group.to_owned(), r.version.to_owned()))
                .or_default()
                .insert(
                    r.plural.to_owned(),
                    ResourceDef {
                        plural: r.plural.to_owned(),
                        singular: r.singular.to_owned(),
                        kind: r.kind.to_owned(),
                        namespaced: r.namespaced,
                    },
                );
        }

        let mut stored = Vec::new();
        for value in objects {
            let field = |pointer: &str| value.pointer(pointer).and_then(Value::as_str);
            let api_version = field("/apiVersion")
                .unwrap_or_else(|| panic!("fake apiserver: object without apiVersion: {value}"));
            if api_version == WASCTL_API_VERSION {
                continue;
            }
            let kind = field("/kind")
                .unwrap_or_else(|| panic!("fake apiserver: object without kind: {value}"));
            let name = field("/metadata/name")
                .unwrap_or_else(|| panic!("fake apiserver: object without metadata.name: {value}"));
            let (group, version) = split_api_version(api_version);
            let object = StoredObject {
                kind: kind.to_owned(),
                namespace: field("/metadata/namespace").unwrap_or_default().to_owned(),
                name: name.to_owned(),
                group: group.clone(),
                version: version.clone(),
                value: value.clone(),
            };
            let served = resources.entry((group, version)).or_default();
            if !served.values().any(|r| r.kind == object.kind) {
                let singular = object.kind.to_ascii_lowercase();
                let plural = if singular.ends_with('s') {
                    format!("{singular}es")
                } else if let Some(stem) = singular.strip_suffix('y') {
                    format!("{stem}ies")
                } else {
                    format!("{singular}s")
                };
                let namespaced = !CLUSTER_SCOPED_KINDS.contains(&object.kind.as_str());
                served.insert(
                    plural.clone(),
                    ResourceDef {
                        plural,
                        singular,
                        kind: object.kind.clone(),
                        namespaced,
                    },
                );
            }
            stored.push(object);
        }
        stored.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));

        for (group, version, plural, kind) in &config.extra_discovery {
            resources
                .entry((group.clone(), version.clone()))
                .or_default()
                .insert(
                    plural.clone(),
                    ResourceDef {
                        plural: plural.clone(),
                        singular: plural.clone(),
                        kind: kind.clone(),
                        namespaced: true,
                    },
                );
        }
        // A missing group is gone entirely, whatever the table or the objects say.
        resources.retain(|(group, _), _| !config.missing_groups.contains(group));
        stored.retain(|o| !config.missing_groups.contains(&o.group));
        Self {
            config,
            resources,
            objects: stored,
            gone_sent: AtomicBool::new(false),
            throttled: std::sync::atomic::AtomicUsize::new(0),
            log,
            store,
            list_rv,
        }
    }

    /// Answers a `GET` of `path`, with the fault configured for the path if there is one.
    fn get(&self, path: &str, query: &Query) -> Response {
        match self.config.path_faults.iter().find(|(p, _)| p == path) {
            Some((_, fault)) => self.faulty(fault, query, || self.get_right(path, query)),
            None => self.get_right(path, query),
        }
    }

    /// Answers a `GET` of `path` as configured, without path faults.
    fn get_right(&self, path: &str, query: &Query) -> Response {
        let trimmed = path.trim_end_matches('/');
        let segments: Vec<&str> = trimmed.split('/').skip(1).collect();
        match segments.as_slice() {
            ["version"] => self.version(),
            ["metrics"] => self.metrics(),
            ["api"] => Response::json(&json!({
                "kind": "APIVersions",
                "versions": self.versions_of(""),
                "serverAddressByClientCIDRs": [],
            })),
            ["api", version, rest @ ..] => self.group_version_path("", version, rest, query),
            ["apis"] => self.group_list(),
            ["apis", group, ..] if self.config.missing_groups.iter().any(|g| g == group) => {
                Response::not_found()
            }
            ["apis", group] => match self.group(group) {
                Some(mut group) => {
                    group["kind"] = json!("APIGroup");
                    group["apiVersion"] = json!("v1");
                    Response::json(&group)
                }
                None => Response::not_found(),
            },
            ["apis", group, version, rest @ ..] => {
                self.group_version_path(group, version, rest, query)
            }
            _ => Response::not_found(),
        }
    }

    /// `/version`.
    fn version(&self) -> Response {
        let git_version = &self.config.server_version;
        let mut numbers = git_version.trim_start_matches('v').split('.');
        let major = numbers.next().unwrap_or_default();
        let minor: String = numbers
            .next()
            .unwrap_or_default()
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        Response::json(&json!({
            "major": major,
            "minor": minor,
            "gitVersion": git_version,
            "gitCommit": "fake",
            "gitTreeState": "clean",
            "buildDate": "2026-09-01T00:00:00Z",
            "goVersion": "go1.25",
            "compiler": "gc",
            "platform": "linux/amd64",
        }))
    }

    /// `/metrics`: the feature-gate gauge plus a couple of unrelated series.
    fn metrics(&self) -> Response {
        let mut text = String::from(
            "# HELP apiserver_requested_deprecated_apis [STABLE] Gauge of deprecated APIs that \
             have been requested.\n\
             # TYPE apiserver_requested_deprecated_apis gauge\n\
             # HELP kubernetes_feature_enabled [BETA] This metric records the data about the \
             stage and enablement of a k8s feature.\n\
             # TYPE kubernetes_feature_enabled gauge\n",
        );
        for (name, enabled) in &self.config.feature_gates {
            let stage = GATE_STAGES
                .iter()
                .find(|(n, _)| n == name)
                .map_or("", |(_, s)| s);
            let value = u8::from(*enabled);
            text.push_str(&format!(
                "kubernetes_feature_enabled{{name=\"{name}\",stage=\"{stage}\"}} {value}\n"
            ));
        }
        text.push_str(
            "# HELP process_start_time_seconds [ALPHA] Start time of the process since unix \
             epoch in seconds.\n\
             # TYPE process_start_time_seconds gauge\n\
             process_start_time_seconds 1.7880192e+09\n\
             # HELP apiserver_storage_objects [STABLE] Number of stored objects.\n\
             # TYPE apiserver_storage_objects gauge\n\
             apiserver_storage_objects{resource=\"pods\"} 3\n",
        );
        Response {
            code: 200,
            content_type: "text/plain; version=0.0.4; charset=utf-8",
            body: text,
            delivery: Delivery::Normal,
            location: None,
            retry_after: None,
            watch: None,
        }
    }

    /// Served versions of `group`, in priority order.
    fn versions_of(&self, group: &str) -> Vec<String> {
        let mut versions: Vec<String> = self
            .resources
            .keys()
            .filter(|(g, _)| g == group)
            .map(|(_, v)| v.clone())
            .collect();
        versions.sort_by_cached_key(|v| version_priority(v));
        versions
    }

    /// The `APIGroup` entry for `group`, or `None` if it is not served.
    fn group(&self, group: &str) -> Option<Value> {
        let versions = self.versions_of(group);
        let first = versions.first()?;
        let preferred = PREFERRED_VERSIONS
            .iter()
            .find(|(g, v)| *g == group && versions.iter().any(|served| served == v))
            .map_or(first.as_str(), |(_, v)| v);
        let entry = |v: &str| json!({"groupVersion": api_version(group, v), "version": v});
        Some(json!({
            "name": group,
            "versions": versions.iter().map(|v| entry(v)).collect::<Vec<_>>(),
            "preferredVersion": entry(preferred),
        }))
    }

    /// `/apis`.
    fn group_list(&self) -> Response {
        let mut names: Vec<&str> = self.resources.keys().map(|(g, _)| g.as_str()).collect();
        names.dedup();
        let groups: Vec<Value> = names
            .into_iter()
            .filter(|g| !g.is_empty())
            .filter_map(|g| self.group(g))
            .collect();
        Response::json(&json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}))
    }

    /// Paths under `/api/{version}` (group `""`) or `/apis/{group}/{version}`.
    fn group_version_path(
        &self,
        group: &str,
        version: &str,
        rest: &[&str],
        query: &Query,
    ) -> Response {
        let key = (group.to_owned(), version.to_owned());
        let (namespace, plural, name) = match rest {
            [] => {
                return match self.resources.get(&key) {
                    Some(served) => self.resource_list(group, version, served),
                    None => Response::not_found(),
                };
            }
            ["namespaces", ns, plural] => (Some(*ns), *plural, None),
            ["namespaces", ns, plural, name] => (Some(*ns), *plural, Some(*name)),
            [plural] => (None, *plural, None),
            [plural, name] => (None, *plural, Some(*name)),
            _ => return Response::not_found(),
        };
        if self
            .config
            .forbidden
            .iter()
            .any(|(g, p)| g == group && p == plural)
        {
            return forbidden(group, plural, namespace, name);
        }
        let mut allowed_in = self
            .config
            .forbidden_except_in
            .iter()
            .filter(|(g, p, _)| g == group && p == plural)
            .map(|(_, _, ns)| ns.as_str())
            .peekable();
        if allowed_in.peek().is_some() && !allowed_in.any(|ns| namespace == Some(ns)) {
            return forbidden(group, plural, namespace, name);
        }
        let Some(resource) = self
            .resources
            .get(&key)
            .and_then(|served| served.get(plural))
        else {
            return Response::not_found();
        };
        match (namespace.is_some(), resource.namespaced, name) {
            // A namespaced path for a cluster-scoped resource.
            (true, false, _) => Response::not_found(),
            // `GET /…/pods/NAME` without a namespace is not a thing.
            (false, true, Some(_)) => Response::not_found(),
            (_, _, Some(name)) => self.get_object(group, version, resource, namespace, name),
            (_, _, None) => self.list_objects(group, version, resource, namespace, query),
        }
    }

    /// `APIResourceList` for one group/version.
    fn resource_list(
        &self,
        group: &str,
        version: &str,
        served: &BTreeMap<String, ResourceDef>,
    ) -> Response {
        let resources: Vec<Value> = served
            .values()
            .map(|r| {
                json!({
                    "name": r.plural,
                    "singularName": r.singular,
                    "namespaced": r.namespaced,
                    "kind": r.kind,
                    "verbs": VERBS,
                })
            })
            .collect();
        Response::json(&json!({
            "kind": "APIResourceList",
            "apiVersion": "v1",
            "groupVersion": api_version(group, version),
            "resources": resources,
        }))
    }

    /// The objects of `resource` at exactly `group`/`version`, optionally in one namespace.
    fn matching<'a>(
        &'a self,
        group: &'a str,
        version: &'a str,
        resource: &'a ResourceDef,
        namespace: Option<&'a str>,
    ) -> impl Iterator<Item = &'a StoredObject> + 'a {
        self.objects.iter().filter(move |o| {
            o.group == group
                && o.version == version
                && o.kind == resource.kind
                && namespace.is_none_or(|ns| o.namespace == ns)
        })
    }

    /// A single object, or a 404 `Status` naming it.
    fn get_object(
        &self,
        group: &str,
        version: &str,
        resource: &ResourceDef,
        namespace: Option<&str>,
        name: &str,
    ) -> Response {
        match self
            .matching(group, version, resource, namespace)
            .find(|o| o.name == name)
        {
            Some(object) => Response::json(&served_item(object, group, version)),
            None => {
                let qualified = if group.is_empty() {
                    resource.plural.clone()
                } else {
                    format!("{}.{group}", resource.plural)
                };
                Response::status_with_details(
                    404,
                    "NotFound",
                    &format!("{qualified} \"{name}\" not found"),
                    Some(json!({"name": name, "group": group, "kind": resource.plural})),
                )
            }
        }
    }

    /// One page of a list.
    fn list_objects(
        &self,
        group: &str,
        version: &str,
        resource: &ResourceDef,
        namespace: Option<&str>,
        query: &Query,
    ) -> Response {
        if query.watch {
            return self.watch(group, version, resource, namespace, query);
        }
        let page = || self.list_page(group, version, resource, namespace, query);
        let Some(fault) = self
            .config
            .faults
            .iter()
            .find(|f| f.group == group && f.plural == resource.plural)
        else {
            return page();
        };
        self.faulty(&fault.kind, query, page)
    }

    /// The answer `fault` makes of the right one.
    fn faulty(&self, fault: &FaultKind, query: &Query, right: impl Fn() -> Response) -> Response {
        match fault {
            FaultKind::Hang => Response {
                delivery: Delivery::Hang,
                ..Response::json(&json!({}))
            },
            FaultKind::Status(code) => Response::status(*code, "InternalError", "injected fault"),
            FaultKind::GoneOnce => {
                if query.continue_token.is_some() && !self.gone_sent.swap(true, Ordering::SeqCst) {
                    Response::status(
                        410,
                        "Expired",
                        "The provided continue parameter is too old to display a consistent \
                         list result. You can start a new list without the continue parameter.",
                    )
                } else {
                    right()
                }
            }
            FaultKind::Truncated => Response {
                delivery: Delivery::Truncated,
                ..right()
            },
            FaultKind::Trickle => Response {
                delivery: Delivery::Trickle,
                ..right()
            },
            FaultKind::Garbage => Response {
                content_type: "text/html",
                body: "<html><body>502 Bad Gateway</body></html>".to_owned(),
                ..Response::json(&json!({}))
            },
            FaultKind::Redirect(url) => Response {
                code: 302,
                body: String::new(),
                location: Some(url.clone()),
                ..Response::json(&json!({}))
            },
            FaultKind::RepeatedContinue => {
                let mut list: Value =
                    serde_json::from_str(&right().body).unwrap_or_else(|_| json!({}));
                list["metadata"]["continue"] = json!(encode_continue(0));
                Response::json(&list)
            }
            FaultKind::StatusBody => Response::json(&json!({"kind": "Status", "apiVersion": "v1",
                "metadata": {}, "status": "Failure", "message": "etcdserver: request timed out",
                "reason": "InternalError", "code": 500})),
            FaultKind::ItemsNotList => {
                let mut list: Value =
                    serde_json::from_str(&right().body).unwrap_or_else(|_| json!({}));
                list["items"] = json!({"not": "a list"});
                Response::json(&list)
            }
            FaultKind::HtmlPage(code) => Response {
                code: *code,
                content_type: "text/html",
                body: html_page(*code),
                ..Response::json(&json!({}))
            },
            FaultKind::MalformedJson => {
                let right = right().body;
                Response {
                    body: right[..right.len() / 2].to_owned(),
                    ..Response::json(&json!({}))
                }
            }
            FaultKind::UnrequestedGzip => Response {
                delivery: Delivery::Gzip,
                ..right()
            },
            FaultKind::TooManyRequests { retry_after, times } => {
                if self.throttled.fetch_add(1, Ordering::SeqCst) < *times {
                    Response {
                        retry_after: Some(*retry_after),
                        ..Response::status(
                            429,
                            "TooManyRequests",
                            "Too many requests, please try again later.",
                        )
                    }
                } else {
                    right()
                }
            }
        }
    }

    /// The answer to a watch request: a [`Delivery::Watch`], or an error status (a
    /// [`WatchFaultKind::Status`], a `resourceVersion` that is not a number).
    fn watch(
        &self,
        group: &str,
        version: &str,
        resource: &ResourceDef,
        namespace: Option<&str>,
        query: &Query,
    ) -> Response {
        let from = match query.resource_version.as_deref() {
            None | Some("" | "0") => None,
            Some(rv) => match rv.parse::<u64>() {
                Ok(rv) => Some(rv),
                Err(_) => {
                    return Response::status(
                        400,
                        "BadRequest",
                        &format!("invalid resource version: {rv:?}"),
                    );
                }
            },
        };
        let refused = self.config.watch_faults.iter().find_map(|f| match f.kind {
            WatchFaultKind::Status(code) if f.group == group && f.plural == resource.plural => {
                Some(code)
            }
            _ => None,
        });
        if let Some(code) = refused {
            return if code == 403 {
                forbidden_verb(group, &resource.plural, namespace, "watch")
            } else {
                Response::status(code, "InternalError", "injected watch fault")
            };
        }
        Response {
            delivery: Delivery::Watch,
            watch: Some(WatchSpec {
                group: group.to_owned(),
                version: version.to_owned(),
                plural: resource.plural.clone(),
                kind: resource.kind.clone(),
                namespace: namespace.map(str::to_owned),
                from,
                bookmarks: query.bookmarks,
                // kube-apiserver's default is its `--min-request-timeout` (30 min), randomized;
                // the fake ends sooner so that no test thread outlives its test by much.
                timeout: Duration::from_secs(query.timeout_seconds.unwrap_or(60).min(300)),
            }),
            ..Response::json(&json!({}))
        }
    }

    /// One page of a list, as a well-behaved server answers it.
    fn list_page(
        &self,
        group: &str,
        version: &str,
        resource: &ResourceDef,
        namespace: Option<&str>,
        query: &Query,
    ) -> Response {
        let all: Vec<&StoredObject> = self.matching(group, version, resource, namespace).collect();
        let start = match &query.continue_token {
            None => 0,
            Some(token) => match decode_continue(token) {
                Some(offset) if offset <= all.len() => offset,
                _ => {
                    return Response::status(
                        400,
                        "BadRequest",
                        "continue key is not valid: the fake apiserver did not issue it",
                    );
                }
            },
        };
        let page = match (query.limit, self.config.page_size) {
            (Some(limit), Some(cap)) => Some(limit.min(cap)),
            (limit, cap) => limit.or(cap),
        };
        // A page of zero items would never make progress.
        let end = page.map_or(all.len(), |p| start.saturating_add(p.max(1)).min(all.len()));
        let items: Vec<Value> = all[start..end]
            .iter()
            .map(|o| served_item(o, group, version))
            .collect();
        let mut metadata = json!({"resourceVersion": self.list_rv.to_string()});
        if end < all.len() {
            metadata["continue"] = json!(encode_continue(end));
            metadata["remainingItemCount"] = json!(all.len() - end);
        }
        Response::json(&json!({
            "kind": format!("{}List", resource.kind),
            "apiVersion": api_version(group, version),
            "metadata": metadata,
            "items": items,
        }))
    }
}

/// The object as served at `group`/`version`.
fn served_item(object: &StoredObject, group: &str, version: &str) -> Value {
    let mut value = object.value.clone();
    value["apiVersion"] = json!(api_version(group, version));
    value
}

/// The error page nginx serves in front of an API server for `code`; it echoes the request's
/// `Authorization` in a comment, as a debugging proxy might, so that a client that printed
/// the page would print the token the tests hand out.
fn html_page(code: u16) -> String {
    let title = match code {
        502 => "502 Bad Gateway",
        503 => "503 Service Temporarily Unavailable",
        504 => "504 Gateway Time-out",
        200 => "Welcome",
        _ => "Error",
    };
    format!(
        "<html>\r\n<head><title>{title}</title></head>\r\n<body>\r\n<center><h1>{title}</h1></center>\r\n\
         <!-- Authorization: Bearer fake-token -->\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
    )
}

/// The 403 the real server gives when RBAC denies a read.
fn forbidden(group: &str, plural: &str, namespace: Option<&str>, name: Option<&str>) -> Response {
    let verb = if name.is_some() { "get" } else { "list" };
    forbidden_with(group, plural, namespace, name, verb)
}

/// The 403 for `verb` (`watch`) on a collection.
fn forbidden_verb(group: &str, plural: &str, namespace: Option<&str>, verb: &str) -> Response {
    forbidden_with(group, plural, namespace, None, verb)
}

/// The 403 the real server gives when RBAC denies `verb`.
fn forbidden_with(
    group: &str,
    plural: &str,
    namespace: Option<&str>,
    name: Option<&str>,
    verb: &str,
) -> Response {
    let scope = match namespace {
        Some(ns) => format!("in the namespace \"{ns}\""),
        None => "at the cluster scope".to_owned(),
    };
    let subject = match name {
        Some(name) => format!("{plural} \"{name}\""),
        None => plural.to_owned(),
    };
    let mut details = json!({"group": group, "kind": plural});
    if let Some(name) = name {
        details["name"] = json!(name);
    }
    Response::status_with_details(
        403,
        "Forbidden",
        &format!(
            "{subject} is forbidden: User \"fake\" cannot {verb} resource \"{plural}\" in API \
             group \"{group}\" {scope}"
        ),
        Some(details),
    )
}

// ---------------------------------------------------------------------------------------------
// Tests: raw HTTP over std::net, so that the fake is checked independently of any client.
// ---------------------------------------------------------------------------------------------

/// Sends `GET path` and returns (status code, headers block, body).
fn raw_get(server: &FakeApiServer, path: &str) -> (u16, String, String) {
    raw_request(server, "GET", path, "")
}

/// Sends one raw HTTP/1.1 request and reads the whole response (the server closes after it).
fn raw_request(
    server: &FakeApiServer,
    method: &str,
    path: &str,
    body: &str,
) -> (u16, String, String) {
    let addr = server.url().trim_start_matches("http://").to_owned();
    let mut stream = TcpStream::connect(&addr).expect("connect to the fake apiserver");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("set a read timeout");
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream
        .write_all(request.as_bytes())
        .expect("send the request");
    let mut response = String::new();
    stream
        .read_to_string(&mut response)
        .expect("read the response");
    let (head, body) = response.split_once("\r\n\r\n").expect("a response head");
    let code = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .expect("a status line with a code");
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length: "))
        .and_then(|l| l.parse().ok())
        .expect("a Content-Length header");
    assert_eq!(length, body.len(), "Content-Length must match the body");
    (code, head.to_owned(), body.to_owned())
}

/// Sends `GET path` and parses the JSON body, asserting the status code.
fn get_json(server: &FakeApiServer, path: &str, expected_code: u16) -> Value {
    let (code, _, body) = raw_get(server, path);
    assert_eq!(code, expected_code, "GET {path}: {body}");
    serde_json::from_str(&body).expect("a JSON body")
}

/// A namespaced pod fixture.
fn pod(namespace: &str, name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace}})
}

/// A namespaced Workload fixture at `scheduling.k8s.io/{version}`.
fn workload(version: &str, namespace: &str, name: &str) -> Value {
    json!({
        "apiVersion": format!("scheduling.k8s.io/{version}"),
        "kind": "Workload",
        "metadata": {"name": name, "namespace": namespace},
    })
}

/// Names of the items of a list body.
fn item_names(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["metadata"]["name"].as_str().expect("a name").to_owned())
        .collect()
}

#[test]
fn discovery_lists_builtin_and_object_groups() {
    let objects = vec![
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "d", "namespace": "default"}}),
        json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}}),
        json!({"apiVersion": "wasctl.dev/v1alpha1", "kind": "ClusterFacts",
               "metadata": {"name": "facts"}}),
    ];
    let server = FakeApiServer::start(objects, FakeConfig::default());

    let api = get_json(&server, "/api", 200);
    assert_eq!(api["kind"], "APIVersions");
    assert_eq!(api["versions"], json!(["v1"]));

    let groups = get_json(&server, "/apis", 200);
    assert_eq!(groups["kind"], "APIGroupList");
    let names: Vec<&str> = groups["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .filter_map(|g| g["name"].as_str())
        .collect();
    for expected in [
        "scheduling.k8s.io",
        "resource.k8s.io",
        "policy",
        "batch",
        "apps",
        "example.com",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    assert!(
        !names.contains(&"wasctl.dev"),
        "wasctl documents are not served"
    );
    let scheduling = groups["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .find(|g| g["name"] == "scheduling.k8s.io")
        .expect("scheduling group");
    let versions: Vec<&str> = scheduling["versions"]
        .as_array()
        .expect("versions")
        .iter()
        .filter_map(|v| v["version"].as_str())
        .collect();
    assert_eq!(versions, ["v1", "v1beta1", "v1alpha3"]);
    assert_eq!(
        scheduling["preferredVersion"]["groupVersion"],
        "scheduling.k8s.io/v1beta1"
    );

    let core = get_json(&server, "/api/v1", 200);
    assert_eq!(core["kind"], "APIResourceList");
    assert_eq!(core["groupVersion"], "v1");
    let secrets = core["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .find(|r| r["name"] == "secrets")
        .expect("secrets are served in discovery");
    assert_eq!(secrets["namespaced"], true);
    assert_eq!(secrets["verbs"], json!(["get", "list", "watch"]));

    let alpha = get_json(&server, "/apis/scheduling.k8s.io/v1alpha3", 200);
    let plurals: Vec<&str> = alpha["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert_eq!(plurals, ["compositepodgroups", "podgroups", "workloads"]);

    let gadgets = get_json(&server, "/apis/example.com/v1", 200);
    assert_eq!(gadgets["resources"][0]["name"], "gadgets");
    assert_eq!(gadgets["resources"][0]["kind"], "Gadget");
    assert_eq!(gadgets["resources"][0]["namespaced"], true);

    let group = get_json(&server, "/apis/apps", 200);
    assert_eq!(group["kind"], "APIGroup");
    assert_eq!(group["preferredVersion"]["version"], "v1");

    get_json(&server, "/apis/wasctl.dev/v1alpha1", 404);
    get_json(&server, "/apis/nope.example/v1", 404);
}

#[test]
fn pagination_returns_pages_with_continue_token() {
    let objects = vec![
        pod("default", "c"),
        pod("default", "a"),
        pod("default", "b"),
    ];
    let server = FakeApiServer::start(objects, FakeConfig::default());

    let first = get_json(&server, "/api/v1/namespaces/default/pods?limit=2", 200);
    assert_eq!(first["kind"], "PodList");
    assert_eq!(first["apiVersion"], "v1");
    assert_eq!(item_names(&first), ["a", "b"]);
    assert_eq!(first["metadata"]["resourceVersion"], "1");
    let token = first["metadata"]["continue"]
        .as_str()
        .expect("a continue token");
    assert!(!token.is_empty());

    let second = get_json(
        &server,
        &format!("/api/v1/namespaces/default/pods?limit=2&continue={token}"),
        200,
    );
    assert_eq!(item_names(&second), ["c"]);
    assert!(
        second["metadata"].get("continue").is_none(),
        "last page has no continue token"
    );

    // kube-rs starts queries with `&`; a forged token is rejected.
    assert_eq!(
        item_names(&get_json(&server, "/api/v1/pods?&limit=500", 200)),
        ["a", "b", "c"]
    );
    get_json(&server, "/api/v1/pods?continue=bogus", 400);
}

#[test]
fn page_size_caps_pages_even_when_the_client_asks_for_more() {
    let objects = vec![
        pod("default", "a"),
        pod("default", "b"),
        pod("default", "c"),
    ];
    let config = FakeConfig {
        page_size: Some(1),
        ..FakeConfig::default()
    };
    let server = FakeApiServer::start(objects, config);
    let mut names = Vec::new();
    let mut path = "/api/v1/pods?limit=500".to_owned();
    let mut pages = 0;
    loop {
        let page = get_json(&server, &path, 200);
        pages += 1;
        names.extend(item_names(&page));
        match page["metadata"]["continue"].as_str() {
            Some(token) => path = format!("/api/v1/pods?limit=500&continue={token}"),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(names, ["a", "b", "c"]);
}

#[test]
fn lists_filter_by_namespace_and_version_and_get_single_objects() {
    let objects = vec![
        pod("b-ns", "p1"),
        pod("a-ns", "p2"),
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}),
        workload("v1alpha3", "default", "old"),
        workload("v1beta1", "default", "new"),
    ];
    let server = FakeApiServer::start(objects, FakeConfig::default());

    let all = get_json(&server, "/api/v1/pods", 200);
    assert_eq!(
        item_names(&all),
        ["p2", "p1"],
        "ordered by (namespace, name)"
    );
    assert_eq!(
        item_names(&get_json(&server, "/api/v1/namespaces/b-ns/pods", 200)),
        ["p1"]
    );

    let alpha = get_json(&server, "/apis/scheduling.k8s.io/v1alpha3/workloads", 200);
    assert_eq!(item_names(&alpha), ["old"]);
    assert_eq!(
        alpha["items"][0]["apiVersion"],
        "scheduling.k8s.io/v1alpha3"
    );
    assert_eq!(alpha["kind"], "WorkloadList");
    let beta = get_json(
        &server,
        "/apis/scheduling.k8s.io/v1beta1/namespaces/default/workloads",
        200,
    );
    assert_eq!(item_names(&beta), ["new"]);

    let node = get_json(&server, "/api/v1/nodes/n1", 200);
    assert_eq!(node["metadata"]["name"], "n1");
    let p1 = get_json(&server, "/api/v1/namespaces/b-ns/pods/p1", 200);
    assert_eq!(p1["kind"], "Pod");
    let missing = get_json(&server, "/api/v1/namespaces/a-ns/pods/p1", 404);
    assert_eq!(missing["kind"], "Status");
    assert_eq!(missing["reason"], "NotFound");
    get_json(&server, "/api/v1/namespaces/default/nodes", 404);
    get_json(&server, "/api/v1/widgets", 404);
    get_json(&server, "/nothing/here", 404);
}

#[test]
fn forbidden_resource_gives_403() {
    let config = FakeConfig {
        forbidden: vec![(String::new(), "secrets".to_owned())],
        ..FakeConfig::default()
    };
    let server = FakeApiServer::start(vec![], config);
    for path in [
        "/api/v1/secrets",
        "/api/v1/namespaces/default/secrets",
        "/api/v1/namespaces/x/secrets/s",
    ] {
        let status = get_json(&server, path, 403);
        assert_eq!(status["kind"], "Status");
        assert_eq!(status["reason"], "Forbidden");
        assert_eq!(status["code"], 403);
    }
    get_json(&server, "/api/v1/pods", 200);
}

#[test]
fn missing_group_gives_404() {
    let config = FakeConfig {
        missing_groups: vec!["scheduling.k8s.io".to_owned()],
        ..FakeConfig::default()
    };
    let server = FakeApiServer::start(vec![workload("v1beta1", "default", "w")], config);
    let groups = get_json(&server, "/apis", 200);
    assert!(
        groups["groups"]
            .as_array()
            .expect("groups")
            .iter()
            .all(|g| g["name"] != "scheduling.k8s.io"),
        "{groups}"
    );
    for path in [
        "/apis/scheduling.k8s.io",
        "/apis/scheduling.k8s.io/v1beta1",
        "/apis/scheduling.k8s.io/v1beta1/workloads",
        "/apis/scheduling.k8s.io/v1beta1/namespaces/default/workloads/w",
    ] {
        let status = get_json(&server, path, 404);
        assert_eq!(
            status,
            json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                   "reason": "NotFound", "code": 404,
                   "message": "the server could not find the requested resource"})
        );
    }
    get_json(&server, "/apis/resource.k8s.io/v1", 200);
}

#[test]
fn version_and_metrics() {
    let config = FakeConfig {
        server_version: "v1.37.2".to_owned(),
        feature_gates: BTreeMap::from([
            ("GenericWorkload".to_owned(), true),
            ("CompositePodGroup".to_owned(), false),
            ("SomethingElse".to_owned(), true),
        ]),
        ..FakeConfig::default()
    };
    let server = FakeApiServer::start(vec![], config);

    let version = get_json(&server, "/version", 200);
    assert_eq!(version["major"], "1");
    assert_eq!(version["minor"], "37");
    assert_eq!(version["gitVersion"], "v1.37.2");
    assert_eq!(version["platform"], "linux/amd64");

    let (code, head, text) = raw_get(&server, "/metrics");
    assert_eq!(code, 200);
    assert!(head.contains("Content-Type: text/plain"), "{head}");
    for line in [
        "# HELP kubernetes_feature_enabled ",
        "# TYPE kubernetes_feature_enabled gauge\n",
        "kubernetes_feature_enabled{name=\"GenericWorkload\",stage=\"BETA\"} 1\n",
        "kubernetes_feature_enabled{name=\"CompositePodGroup\",stage=\"ALPHA\"} 0\n",
        "kubernetes_feature_enabled{name=\"SomethingElse\",stage=\"\"} 1\n",
        "apiserver_storage_objects{resource=\"pods\"} 3\n",
    ] {
        assert!(text.contains(line), "{line:?} missing from:\n{text}");
    }
}

#[test]
fn request_log_records_method_path_and_query() {
    let server = FakeApiServer::start(vec![pod("default", "a")], FakeConfig::default());
    raw_get(
        &server,
        "/api/v1/namespaces/default/pods?labelSelector=app%3Dx&limit=1",
    );
    raw_get(&server, "/version");
    let (code, head, _) = raw_request(
        &server,
        "DELETE",
        "/api/v1/namespaces/default/pods/a",
        "{\"kind\":\"DeleteOptions\"}",
    );
    assert_eq!(code, 405);
    assert!(head.contains("Connection: close"), "{head}");
    let (code, _, _) = raw_request(&server, "PATCH", "/api/v1/nodes/n1", "{}");
    assert_eq!(code, 405);

    let log = server.requests();
    let expected = [
        (
            "GET",
            "/api/v1/namespaces/default/pods",
            "labelSelector=app%3Dx&limit=1",
        ),
        ("GET", "/version", ""),
        ("DELETE", "/api/v1/namespaces/default/pods/a", ""),
        ("PATCH", "/api/v1/nodes/n1", ""),
    ];
    let expected: Vec<LoggedRequest> = expected
        .iter()
        .map(|(method, path, query)| LoggedRequest {
            method: (*method).to_owned(),
            path: (*path).to_owned(),
            query: (*query).to_owned(),
        })
        .collect();
    assert_eq!(log, expected);
}

#[test]
fn kubeconfig_points_at_the_server() {
    let server = FakeApiServer::start(vec![], FakeConfig::default());
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = server.write_kubeconfig(dir.path());
    let text = std::fs::read_to_string(&path).expect("kubeconfig written");
    assert!(
        server.url().starts_with("http://127.0.0.1:"),
        "{}",
        server.url()
    );
    for needle in [
        &format!("server: {}\n", server.url()),
        "token: fake-token\n",
        "current-context: fake\n",
        "namespace: default\n",
    ] {
        assert!(text.contains(needle), "{needle:?} missing from:\n{text}");
    }
}

#[test]
fn dropping_the_server_stops_it() {
    let server = FakeApiServer::start(vec![], FakeConfig::default());
    let addr = server.url().trim_start_matches("http://").to_owned();
    get_json(&server, "/version", 200);
    drop(server);
    assert!(
        TcpStream::connect(&addr).is_err(),
        "{addr} still accepts connections after drop"
    );
}

/// How a raw watch ended.
#[derive(Debug, PartialEq, Eq)]
enum WatchEnd {
    /// The terminating chunk came (a timeout, a 410).
    Ended,
    /// The connection closed without it (dropped mid-stream).
    Dropped,
    /// Nothing came within the read timeout (stalled), or `max` events were read.
    Open,
}

/// Opens a watch of `path` (with `query`) over raw HTTP and reads up to `max` events, each
/// read waiting at most `wait`; returns the status code, the events and how it ended.
fn raw_watch(
    server: &FakeApiServer,
    path: &str,
    max: usize,
    wait: Duration,
) -> (u16, Vec<Value>, WatchEnd) {
    let addr = server.url().trim_start_matches("http://").to_owned();
    let stream = TcpStream::connect(&addr).expect("connect to the fake apiserver");
    stream.set_read_timeout(Some(wait)).expect("a read timeout");
    let mut writer = stream.try_clone().expect("clone the stream");
    writer
        .write_all(format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())
        .expect("send the request");
    let mut reader = BufReader::new(stream);
    let mut status = String::new();
    reader.read_line(&mut status).expect("a status line");
    let code = status
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .expect("a status code");
    let mut chunked = false;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).expect("a header line");
        if line.trim().is_empty() {
            break;
        }
        chunked |= line.eq_ignore_ascii_case("transfer-encoding: chunked\r\n");
    }
    if !chunked {
        let mut body = String::new();
        let _ = reader.read_to_string(&mut body);
        return (
            code,
            vec![serde_json::from_str(&body).expect("a Status")],
            WatchEnd::Ended,
        );
    }
    let mut events = Vec::new();
    while events.len() < max {
        let mut size = String::new();
        match reader.read_line(&mut size) {
            Ok(0) => return (code, events, WatchEnd::Dropped),
            Ok(_) => {}
            Err(_) => return (code, events, WatchEnd::Open),
        }
        let size = usize::from_str_radix(size.trim(), 16).expect("a chunk size");
        let mut data = vec![0; size + 2];
        reader.read_exact(&mut data).expect("a whole chunk");
        if size == 0 {
            return (code, events, WatchEnd::Ended);
        }
        let text = String::from_utf8(data).expect("UTF-8");
        assert!(text.ends_with("\n\r\n"), "one event per line: {text:?}");
        events.push(serde_json::from_str(text.trim_end()).expect("an event"));
    }
    (code, events, WatchEnd::Open)
}

/// `(type, name, resourceVersion)` of each event.
fn summary(events: &[Value]) -> Vec<(String, String, String)> {
    events
        .iter()
        .map(|e| {
            let field = |p: &str| {
                e.pointer(p)
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned()
            };
            (
                field("/type"),
                field("/object/metadata/name"),
                field("/object/metadata/resourceVersion"),
            )
        })
        .collect()
}

fn node(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}})
}

#[test]
fn a_watch_streams_scripted_changes_after_its_version_then_bookmarks() {
    let config = FakeConfig {
        bookmark_every: Duration::from_millis(200),
        ..FakeConfig::default()
    };
    let server = Arc::new(FakeApiServer::start(
        vec![pod("ml", "a"), node("n1")],
        config,
    ));
    assert_eq!(
        get_json(&server, "/api/v1/pods", 200)["metadata"]["resourceVersion"],
        "1"
    );
    let script = {
        let server = Arc::clone(&server);
        thread::spawn(move || {
            thread::sleep(Duration::from_millis(100));
            server.play(&[
                Step::Create(pod("ml", "b")),
                Step::bind("ml", "b", "n1"),
                Step::Cordon("n1".to_owned()),
                Step::delete_pod("ml", "a"),
            ]);
        })
    };
    let (code, events, end) = raw_watch(
        &server,
        "/api/v1/pods?watch=true&resourceVersion=1&allowWatchBookmarks=true",
        4,
        Duration::from_secs(10),
    );
    script.join().expect("the script ran");
    assert_eq!((code, &end), (200, &WatchEnd::Open));
    let rows = |v: &[(&str, &str, &str)]| -> Vec<(String, String, String)> {
        v.iter()
            .map(|(a, b, c)| ((*a).to_owned(), (*b).to_owned(), (*c).to_owned()))
            .collect()
    };
    // The node's change (rv 4) is not a pod's: a pod watch never sees it.
    assert_eq!(
        summary(&events),
        rows(&[
            ("ADDED", "b", "2"),
            ("MODIFIED", "b", "3"),
            ("DELETED", "a", "5"),
            ("BOOKMARK", "", "5"),
        ])
    );
    assert_eq!(events[1]["object"]["spec"]["nodeName"], "n1");
    assert_eq!(events[0]["object"]["apiVersion"], "v1");
    // Lists see the same changes, at the same version.
    let list = get_json(&server, "/api/v1/pods", 200);
    assert_eq!(item_names(&list), ["b"]);
    assert_eq!(list["metadata"]["resourceVersion"], "5");
    assert_eq!(
        get_json(&server, "/api/v1/nodes/n1", 200)["spec"]["unschedulable"],
        true
    );
    // Without bookmarks allowed, a quiet watch sends nothing; from a version, what came after.
    let (_, events, end) = raw_watch(
        &server,
        "/api/v1/namespaces/ml/pods?watch=true&resourceVersion=3",
        4,
        Duration::from_millis(600),
    );
    assert_eq!(summary(&events), rows(&[("DELETED", "a", "5")]));
    assert_eq!(end, WatchEnd::Open);
}

#[test]
fn a_watch_without_a_version_starts_with_the_objects_and_ends_at_its_timeout() {
    let server = FakeApiServer::start(vec![pod("ml", "b"), pod("ml", "a")], FakeConfig::default());
    let (code, events, end) = raw_watch(
        &server,
        "/api/v1/pods?watch=1&timeoutSeconds=1",
        10,
        Duration::from_secs(5),
    );
    assert_eq!((code, end), (200, WatchEnd::Ended));
    let names: Vec<String> = summary(&events).into_iter().map(|e| e.1).collect();
    assert_eq!(names, ["a", "b"]);
    assert!(events.iter().all(|e| e["type"] == "ADDED"));
}

#[test]
fn a_compacted_version_gets_an_error_event_with_a_410_status() {
    let server = FakeApiServer::start(vec![pod("ml", "a")], FakeConfig::default());
    let mut b = pod("ml", "b");
    server.apply(&Step::Create(b.clone()));
    b["metadata"]["labels"] = json!({"app": "x"});
    server.play(&[
        Step::Update(b),
        Step::Sleep(Duration::from_millis(1)),
        Step::Compact,
    ]);
    assert_eq!(server.resource_version(), 3);
    let (code, events, end) = raw_watch(
        &server,
        "/api/v1/pods?watch=true&resourceVersion=1",
        5,
        Duration::from_secs(5),
    );
    assert_eq!((code, end), (200, WatchEnd::Ended));
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["type"], "ERROR");
    assert_eq!(events[0]["object"]["kind"], "Status");
    assert_eq!(events[0]["object"]["code"], 410);
    assert_eq!(events[0]["object"]["reason"], "Expired");
    // From the current version the watch is fine.
    let (_, events, end) = raw_watch(
        &server,
        "/api/v1/pods?watch=true&resourceVersion=3",
        5,
        Duration::from_millis(300),
    );
    assert_eq!((events.len(), end), (0, WatchEnd::Open));
}

#[test]
fn watch_faults_drop_stall_expire_or_refuse_the_first_watches_only() {
    let config = FakeConfig {
        watch_faults: vec![
            WatchFault::once("", "pods", WatchFaultKind::DropAfter(1)),
            WatchFault::once("", "nodes", WatchFaultKind::Stall),
            WatchFault::once("", "namespaces", WatchFaultKind::Gone),
            WatchFault {
                times: usize::MAX,
                ..WatchFault::once("", "limitranges", WatchFaultKind::Status(403))
            },
        ],
        ..FakeConfig::default()
    };
    let server = FakeApiServer::start(vec![pod("ml", "a"), pod("ml", "b"), node("n1")], config);
    let wait = Duration::from_millis(500);
    let (_, events, end) = raw_watch(&server, "/api/v1/pods?watch=true", 5, wait);
    assert_eq!((events.len(), end), (1, WatchEnd::Dropped));
    let (_, events, _) = raw_watch(&server, "/api/v1/pods?watch=true", 2, wait);
    assert_eq!(events.len(), 2, "the second watch behaves");
    let (code, events, end) = raw_watch(&server, "/api/v1/nodes?watch=true", 5, wait);
    assert_eq!((code, events.len(), end), (200, 0, WatchEnd::Open));
    let (_, events, _) = raw_watch(
        &server,
        "/api/v1/namespaces?watch=true&resourceVersion=1",
        5,
        wait,
    );
    assert_eq!(events[0]["object"]["code"], 410);
    let (code, events, _) = raw_watch(&server, "/api/v1/limitranges?watch=true", 5, wait);
    assert_eq!(code, 403);
    assert_eq!(events[0]["reason"], "Forbidden");
    assert!(
        events[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("cannot watch resource \"limitranges\"")),
        "{events:?}"
    );
    // Listing what may not be watched is still allowed, and every watch is in the log.
    get_json(&server, "/api/v1/limitranges", 200);
    let watches = server
        .requests()
        .iter()
        .filter(|r| r.query.contains("watch=true"))
        .count();
    assert_eq!(watches, 5);
}
