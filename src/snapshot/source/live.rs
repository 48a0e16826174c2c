//! Live mode: read a cluster through the kube client, like kubectl does.
//!
//! Kubeconfig discovery follows kubectl (`--kubeconfig`, `KUBECONFIG`, `~/.kube/config`,
//! `--context`, in-cluster config). API discovery runs first; then every resource wasctl needs
//! is listed in parallel with pagination (`limit`/`continue`). A resource the server does not
//! serve (404) or forbids (403) becomes a [`Warning`] in the snapshot, never an error.
//! Facts come from `/version`, kube-apiserver `/metrics` (`kubernetes_feature_enabled`) and
//! discovery. Read-only: only GET requests are sent, and Secrets are never read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures::future::join_all;
use kube::config::{KubeConfigOptions, Kubeconfig, KubeconfigError};
use kube::{Client, Config};

use super::{Collector, parse};
use crate::snapshot::facts::{Component, ComponentFacts, parse_feature_metrics};
use crate::snapshot::{KindCoverage, Snapshot, Warning};

/// Page size of list requests (kubectl uses 500 too).
pub(crate) const PAGE_SIZE: usize = 500;

/// How long one request may take when `--request-timeout` is not given (kubectl has no
/// limit, which lets a server that never answers hang the command).
pub(crate) const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// How to reach the cluster.
#[derive(Debug, Clone)]
pub(crate) struct LiveOptions {
    /// `--kubeconfig`.
    pub kubeconfig: Option<PathBuf>,
    /// `--context`.
    pub context: Option<String>,
    /// `-n`: the namespace to fall back to when cluster-wide lists are forbidden.
    pub namespace: Option<String>,
    /// `--server`: the API server's address, instead of the kubeconfig's.
    pub server: Option<String>,
    /// `--token`: a bearer token, instead of the kubeconfig's credentials.
    pub token: Option<String>,
    /// `--as`: the user to impersonate.
    pub impersonate: Option<String>,
    /// `--as-group`: groups to impersonate (repeatable).
    pub impersonate_groups: Vec<String>,
    /// `--request-timeout`: the longest one request (headers and body) may take; `None` waits
    /// forever (`--request-timeout 0`).
    pub request_timeout: Option<Duration>,
    /// Read Kueue's manager configuration (`kueue-system/kueue-manager-config`) when the
    /// cluster serves Kueue's API (off when `--kueue-config` names one).
    pub kueue_config: bool,
    /// `--watch`: the longest a watch may stay silent (no event, no bookmark) before it is
    /// taken as stalled and opened again; `None` waits forever.
    pub watch_idle: Option<Duration>,
}

/// How long a watch may stay silent when `--request-timeout` is not given: kube-apiserver
/// sends a bookmark about once a minute.
pub(crate) const DEFAULT_WATCH_IDLE: Duration = Duration::from_secs(150);

impl Default for LiveOptions {
    fn default() -> Self {
        Self {
            kubeconfig: None,
            context: None,
            namespace: None,
            server: None,
            token: None,
            impersonate: None,
            impersonate_groups: Vec::new(),
            request_timeout: Some(DEFAULT_REQUEST_TIMEOUT),
            kueue_config: true,
            watch_idle: Some(DEFAULT_WATCH_IDLE),
        }
    }
}

/// Reads the kubeconfig as kubectl does: `--kubeconfig`; else every file named by
/// `KUBECONFIG` that exists, merged (missing ones are skipped); else `~/.kube/config`.
/// `Ok(None)` when there is none at all.
fn read_kubeconfig(explicit: Option<&PathBuf>) -> Result<Option<Kubeconfig>, String> {
    if let Some(path) = explicit {
        return read_capped(path).map(Some);
    }
    let paths: Vec<PathBuf> = match std::env::var_os("KUBECONFIG") {
        Some(v) if !v.is_empty() => std::env::split_paths(&v)
            .filter(|p| !p.as_os_str().is_empty())
            .collect(),
        _ => std::env::var_os("HOME")
            .map(|h| PathBuf::from(h).join(".kube").join("config"))
            .into_iter()
            .collect(),
    };
    let mut merged: Option<Kubeconfig> = None;
    for path in paths.iter().filter(|p| p.is_file()) {
        let next = read_capped(path)?;
        merged = Some(match merged {
            None => next,
            Some(m) => m.merge(next).map_err(|e| kubeconfig_error(path, &e))?,
        });
    }
    Ok(merged)
}

/// The most bytes a kubeconfig may have: a thousand clusters with their CA certificates
/// inline are a few MiB; `--kubeconfig /dev/zero` would otherwise be read until memory runs
/// out.
const MAX_KUBECONFIG_BYTES: u64 = 32 << 20;

/// Reads one kubeconfig file, refusing one larger than [`MAX_KUBECONFIG_BYTES`]. A regular
/// file is judged by its size and read by kube (which makes its relative paths absolute); a
/// device, FIFO or `/dev/stdin` is read here, up to the cap.
fn read_capped(path: &Path) -> Result<Kubeconfig, String> {
    use std::io::Read as _;
    let file = path.display();
    let too_large = || {
        format!(
            "`{file}`: more than {} MiB: not a kubeconfig",
            MAX_KUBECONFIG_BYTES >> 20
        )
    };
    let io = |e: std::io::Error| format!("`{file}`: {}", crate::sanitize::io_in_words(&e));
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.is_file() {
        if meta.len() > MAX_KUBECONFIG_BYTES {
            return Err(too_large());
        }
        return Kubeconfig::read_from(path).map_err(|e| kubeconfig_error(path, &e));
    }
    if meta.is_dir() {
        return Err(format!("`{file}`: is a directory, not a kubeconfig file"));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_KUBECONFIG_BYTES + 1).read_to_end(&mut bytes))
        .map_err(io)?;
    if bytes.len() as u64 > MAX_KUBECONFIG_BYTES {
        return Err(too_large());
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("`{file}`: not UTF-8 text: not a kubeconfig"))?;
    Kubeconfig::from_yaml(&text).map_err(|e| kubeconfig_error(path, &e))
}

/// A kubeconfig error as the user sees it: the file, line, column and field path, never the
/// file's content. A kubeconfig holds tokens and keys, and the YAML parser's own message
/// quotes the source around the error (and the offending value), so neither is shown.
fn kubeconfig_error(path: &Path, e: &KubeconfigError) -> String {
    let file = path.display();
    match e {
        KubeconfigError::Parse(inner) => {
            let what = redact_quoted(&parse::first_line(&inner.without_snippet().to_string()));
            match inner.location() {
                Some(at) => {
                    let text = std::fs::read_to_string(path).unwrap_or_default();
                    let field = yaml_key_path(&text, at.line());
                    let field = if field.is_empty() {
                        String::new()
                    } else {
                        format!(", field `{field}`")
                    };
                    format!(
                        "`{file}`:{}:{}{field}: not a valid kubeconfig: {what}",
                        at.line(),
                        at.column()
                    )
                }
                None => format!("`{file}`: not a valid kubeconfig: {what}"),
            }
        }
        KubeconfigError::ReadConfig(io, _) => format!("`{file}`: {io}"),
        other => format!("`{file}`: {}", redact_quoted(&other.to_string())),
    }
}

/// `message` with every quoted value (`"…"`, `` `…` ``, `'…'`) replaced by `…`: a parser
/// quotes the value it rejected, and in a kubeconfig that may be a credential.
fn redact_quoted(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut open: Option<char> = None;
    for c in message.chars() {
        match open {
            Some(q) if c == q => {
                out.push('…');
                out.push(c);
                open = None;
            }
            Some(_) => {}
            None if matches!(c, '"' | '`' | '\'') => {
                out.push(c);
                open = Some(c);
            }
            None => out.push(c),
        }
    }
    if open.is_some() {
        out.push('…');
    }
    out
}

/// The mapping keys that lead to line `line` (1-based) of a block-style YAML text, joined with
/// dots (`users.user.token`); only keys are read, never values.
fn yaml_key_path(text: &str, line: u64) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let Some(last) = usize::try_from(line).ok().and_then(|l| l.checked_sub(1)) else {
        return String::new();
    };
    let Some(start) = lines.get(last) else {
        return String::new();
    };
    // A line's indentation and key; a list item's key is indented past its dash.
    let parse = |l: &str| -> Option<(usize, Option<String>)> {
        let body = l.trim_start_matches(' ');
        if body.is_empty() || body.starts_with('#') {
            return None;
        }
        let mut indent = l.len() - body.len();
        let mut body = body;
        while let Some(rest) = body.strip_prefix("- ") {
            indent += 2;
            body = rest.trim_start_matches(' ');
        }
        let key = body.split_once(':').map(|(k, _)| k).filter(|k| {
            !k.is_empty()
                && k.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        });
        Some((indent, key.map(str::to_owned)))
    };
    let mut keys = Vec::new();
    let Some((mut indent, key)) = parse(start) else {
        return String::new();
    };
    keys.extend(key);
    for l in lines[..last].iter().rev() {
        if indent == 0 {
            break;
        }
        if let Some((i, Some(k))) = parse(l)
            && i < indent
        {
            keys.push(k);
            indent = i;
        }
    }
    keys.reverse();
    keys.join(".")
}

/// Why the cluster could not be read at all.
#[derive(Debug, thiserror::Error)]
pub enum AccessError {
    /// No usable kubeconfig (and not in a cluster).
    #[error("cannot load a kubeconfig{}", context.as_ref().map(|c| format!(" for context `{c}`")).unwrap_or_default())]
    Config {
        /// The context asked for.
        context: Option<String>,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The server could not be reached, or refused discovery.
    #[error("cannot reach the Kubernetes API server at `{server}`")]
    Unreachable {
        /// The server URL.
        server: String,
        /// Why.
        #[source]
        source: kube::Error,
    },
    /// The kubeconfig's credentials could not be obtained: an exec credential plugin failed
    /// or printed no credential, a token file cannot be read. Never holds what the plugin
    /// printed on stdout (the credential).
    #[error("cannot authenticate to the Kubernetes API server at `{server}`: {message}")]
    Auth {
        /// The server URL.
        server: String,
        /// What failed, in kubectl's terms (the plugin's command, exit status and stderr).
        message: String,
    },
    /// The server rejected the credentials (401).
    #[error("the Kubernetes API server at `{server}` rejected the credentials (401 Unauthorized)")]
    Unauthorized {
        /// The server URL.
        server: String,
    },
    /// The server answered discovery with another error status.
    #[error("the Kubernetes API server at `{server}` answered {code}{}", if message.is_empty() { String::new() } else { format!(": {message}") })]
    Refused {
        /// The server URL.
        server: String,
        /// The HTTP status.
        code: u16,
        /// The `Status` message.
        message: String,
    },
    /// Something answered discovery, but not as the API server does (a proxy's HTML page, an
    /// unrequested encoding, a malformed body, a redirect, a long `Retry-After`).
    #[error("cannot read the Kubernetes API server at `{server}`: {what}")]
    Answered {
        /// The server URL.
        server: String,
        /// What happened, in words.
        what: String,
        /// The suggestion that fits.
        hint: String,
    },
    /// The server did not answer discovery within `--request-timeout`.
    #[error("the Kubernetes API server at `{server}` did not answer within {after}")]
    Timeout {
        /// The server URL.
        server: String,
        /// The timeout, e.g. `60s`.
        after: String,
    },
    /// The async runtime could not start.
    #[error("cannot start the async runtime")]
    Runtime(#[source] std::io::Error),
    /// While watching (`--watch`), the API server stopped answering, after the retries.
    #[error("lost the Kubernetes API server at `{server}`: {reason}")]
    Lost {
        /// The server URL.
        server: String,
        /// What happened, in words.
        reason: String,
    },
}

impl AccessError {
    /// A suggestion for the user.
    pub(crate) fn hint(&self) -> Option<String> {
        Some(match self {
            Self::Config { .. } => "pass `--kubeconfig FILE` or set `KUBECONFIG`; or read files with `--from PATH`, or try `--demo`".to_owned(),
            Self::Timeout { .. } => "check `kubectl cluster-info`, or give the server more time with `--request-timeout 2m`".to_owned(),
            Self::Unreachable { .. } => "check `kubectl cluster-info` and `--context`; or read files with `--from PATH`, or try `--demo`".to_owned(),
            Self::Auth { .. } => "run the credential plugin's command by hand to see what it needs (a login, a path), or check the context's `user` in the kubeconfig".to_owned(),
            Self::Unauthorized { .. } => "the token or certificate of the context's user is wrong or expired: check `kubectl auth whoami`, or log in again".to_owned(),
            Self::Refused { code: 403, .. } => "the user may not read the API's discovery documents: check `kubectl auth can-i --list`".to_owned(),
            Self::Refused { .. } => "check `kubectl cluster-info` and `--context`".to_owned(),
            Self::Answered { hint, .. } => hint.clone(),
            Self::Lost { .. } => "check `kubectl cluster-info`; what was printed last is what wasctl knew of the cluster".to_owned(),
            Self::Runtime(_) => return None,
        })
    }
}

/// One resource wasctl lists.
#[derive(Debug, Clone, Copy)]
struct Wanted {
    group: &'static str,
    version: &'static str,
    plural: &'static str,
    kind: &'static str,
    namespaced: bool,
    /// Optional resources (other schedulers' objects) are skipped silently when not served.
    optional: bool,
}

const fn want(
    group: &'static str,
    version: &'static str,
    plural: &'static str,
    kind: &'static str,
    namespaced: bool,
) -> Wanted {
    Wanted {
        group,
        version,
        plural,
        kind,
        namespaced,
        optional: false,
    }
}

/// A cluster-scoped kind of an optional API group.
const fn optional_cluster(group: &'static str, plural: &'static str, kind: &'static str) -> Wanted {
    Wanted {
        group,
        version: "",
        plural,
        kind,
        namespaced: false,
        optional: true,
    }
}

const fn optional(
    group: &'static str,
    version: &'static str,
    plural: &'static str,
    kind: &'static str,
) -> Wanted {
    Wanted {
        group,
        version,
        plural,
        kind,
        namespaced: true,
        optional: true,
    }
}

/// Every resource wasctl reads. Secrets are deliberately absent.
const WANTED: &[Wanted] = &[
    want("", "v1", "nodes", "Node", false),
    want("", "v1", "pods", "Pod", true),
    want("", "v1", "namespaces", "Namespace", false),
    want(
        "scheduling.k8s.io",
        "v1",
        "priorityclasses",
        "PriorityClass",
        false,
    ),
    want(
        "scheduling.k8s.io",
        "v1beta1",
        "workloads",
        "Workload",
        true,
    ),
    want(
        "scheduling.k8s.io",
        "v1beta1",
        "podgroups",
        "PodGroup",
        true,
    ),
    want(
        "scheduling.k8s.io",
        "v1alpha3",
        "compositepodgroups",
        "CompositePodGroup",
        true,
    ),
    want(
        "resource.k8s.io",
        "v1",
        "resourceclaims",
        "ResourceClaim",
        true,
    ),
    want(
        "resource.k8s.io",
        "v1",
        "resourceclaimtemplates",
        "ResourceClaimTemplate",
        true,
    ),
    want(
        "resource.k8s.io",
        "v1",
        "resourceslices",
        "ResourceSlice",
        false,
    ),
    want(
        "resource.k8s.io",
        "v1",
        "deviceclasses",
        "DeviceClass",
        false,
    ),
    want(
        "resource.k8s.io",
        "v1",
        "devicetaintrules",
        "DeviceTaintRule",
        false,
    ),
    want(
        "policy",
        "v1",
        "poddisruptionbudgets",
        "PodDisruptionBudget",
        true,
    ),
    want("batch", "v1", "jobs", "Job", true),
    // Read for admitting manifests (`--add`): container defaults, pod overhead, and the
    // quota a controller's pods are created under.
    want("", "v1", "limitranges", "LimitRange", true),
    want("", "v1", "resourcequotas", "ResourceQuota", true),
    want("node.k8s.io", "v1", "runtimeclasses", "RuntimeClass", false),
    optional("jobset.x-k8s.io", "", "jobsets", "JobSet"),
    optional(
        "leaderworkerset.x-k8s.io",
        "",
        "leaderworkersets",
        "LeaderWorkerSet",
    ),
    // Kueue's queues, quotas and workloads (issue 49): its admission runs before
    // kube-scheduler's placement.
    optional("kueue.x-k8s.io", "", "workloads", "Workload"),
    optional("kueue.x-k8s.io", "", "localqueues", "LocalQueue"),
    optional_cluster("kueue.x-k8s.io", "clusterqueues", "ClusterQueue"),
    optional_cluster("kueue.x-k8s.io", "resourceflavors", "ResourceFlavor"),
    optional_cluster("kueue.x-k8s.io", "cohorts", "Cohort"),
    optional_cluster(
        "kueue.x-k8s.io",
        "workloadpriorityclasses",
        "WorkloadPriorityClass",
    ),
    optional_cluster("kueue.x-k8s.io", "admissionchecks", "AdmissionCheck"),
    optional_cluster("kueue.x-k8s.io", "topologies", "Topology"),
    // Volcano's gangs and queues (issue 52): shown, explained and checked, never simulated.
    optional("scheduling.volcano.sh", "", "podgroups", "PodGroup"),
    optional_cluster("scheduling.volcano.sh", "queues", "Queue"),
    optional("batch.volcano.sh", "", "jobs", "Job"),
    // What Volcano recorded on its gangs and their pods (issue 52), listed only when Volcano
    // is served ([`wanted_jobs`]); the loader keeps only Events on Volcano's objects and
    // pods' scheduling reasons.
    optional("", "v1", "events", "Event"),
    // Owners of LeaderWorkerSet and serving pods; named in the tree's owner chains. With
    // ReplicaSets, Services and ReplicationControllers they make PodTopologySpread's
    // system-default selector (`helper.DefaultSelector`).
    optional("apps", "v1", "statefulsets", "StatefulSet"),
    optional("apps", "v1", "replicasets", "ReplicaSet"),
    optional("", "v1", "services", "Service"),
    optional("", "v1", "replicationcontrollers", "ReplicationController"),
];

/// Groups whose served versions are recorded in the facts.
const FACT_GROUPS: &[&str] = &["scheduling.k8s.io", "resource.k8s.io"];

/// A list request to run: where, and what to call the items.
#[derive(Debug, Clone)]
struct ListJob {
    group: String,
    version: String,
    plural: String,
    kind: String,
    namespaced: bool,
}

impl ListJob {
    fn path(&self, namespace: Option<&str>) -> String {
        let base = if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        };
        match namespace {
            Some(ns) => format!("{base}/namespaces/{ns}/{}", self.plural),
            None => format!("{base}/{}", self.plural),
        }
    }

    fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    fn display(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }
}

/// Loads a snapshot from the cluster. `progress` is called with short status lines.
pub(crate) fn load(
    options: &LiveOptions,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Snapshot, AccessError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(AccessError::Runtime)?;
    runtime.block_on(load_async(options, progress))
}

/// Reads one ConfigMap's `data` by name (`GET /api/v1/namespaces/NS/configmaps/NAME`: a
/// single ConfigMap is read by name, never listed), for `--scheduler-config
/// configmap/NS/NAME`. `Ok(None)` when it does not exist (404).
pub(crate) fn get_config_map(
    options: &LiveOptions,
    namespace: &str,
    name: &str,
) -> Result<Option<BTreeMap<String, String>>, AccessError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(AccessError::Runtime)?;
    runtime.block_on(async {
        let (client, server, _) = client_for(options).await?;
        // Names go into the path: only DNS names (a ConfigMap's name is a DNS subdomain).
        if !is_dns_label(namespace) || !is_dns_subdomain(name) {
            return Ok(None);
        }
        let uri = format!("/api/v1/namespaces/{namespace}/configmaps/{name}");
        match fetch_json::<k8s_openapi::api::core::v1::ConfigMap>(
            &client,
            &uri,
            options.request_timeout,
        )
        .await
        {
            Ok(cm) => Ok(Some(cm.data.unwrap_or_default())),
            Err(ListFailure::Status { code: 404, .. }) => Ok(None),
            Err(failure) => Err(discovery_error(&server, failure)),
        }
    })
}

/// The cluster's CustomResourceDefinitions as plain JSON (`GET
/// /apis/apiextensions.k8s.io/v1/customresourcedefinitions`, page by page), for `lint
/// --crd-from-cluster`. A 403 or 404 is an error that says so: the user asked for them.
pub(crate) fn list_crds(options: &LiveOptions) -> Result<Vec<serde_json::Value>, AccessError> {
    /// CRDs carry whole schemas: smaller pages than the other lists.
    const CRD_PAGE_SIZE: usize = 50;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(AccessError::Runtime)?;
    runtime.block_on(async {
        let (client, server, _) = client_for(options).await?;
        let path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
        let mut out = Vec::new();
        let mut token: Option<String> = None;
        let mut seen = std::collections::HashSet::new();
        for _ in 0..MAX_PAGES {
            let mut uri = format!("{path}?limit={CRD_PAGE_SIZE}");
            if let Some(t) = &token {
                uri.push_str("&continue=");
                uri.push_str(&percent_encode(t));
            }
            let page = fetch(&client, &uri, options.request_timeout)
                .await
                .map_err(|e| discovery_error(&server, e))?;
            let text = page_text(&page.body).map_err(|e| discovery_error(&server, e))?;
            let (envelope, items) = page_envelope(text).map_err(|e| discovery_error(&server, e))?;
            let items: Vec<serde_json::Value> = if items.get() == "null" {
                Vec::new()
            } else {
                serde_json::from_str(items.get()).map_err(|_| {
                    discovery_error(
                        &server,
                        ListFailure::Malformed("`items` is not a list of objects".to_owned()),
                    )
                })?
            };
            // A list's items carry no apiVersion and kind: give them theirs.
            out.extend(items.into_iter().map(|mut item| {
                if let Some(m) = item.as_object_mut() {
                    m.entry("apiVersion")
                        .or_insert_with(|| "apiextensions.k8s.io/v1".into());
                    m.entry("kind")
                        .or_insert_with(|| "CustomResourceDefinition".into());
                }
                item
            }));
            token = envelope
                .metadata
                .and_then(|m| m.continue_token)
                .filter(|t| !t.is_empty());
            match &token {
                None => return Ok(out),
                Some(t) if !seen.insert(t.clone()) => {
                    return Err(discovery_error(&server, ListFailure::RepeatedContinue));
                }
                Some(_) => {}
            }
        }
        Err(discovery_error(&server, ListFailure::TooManyPages))
    })
}

async fn client_for(options: &LiveOptions) -> Result<(Client, String, String), AccessError> {
    let kc_options = KubeConfigOptions {
        context: options.context.clone(),
        ..KubeConfigOptions::default()
    };
    let config_error = |e: Box<dyn std::error::Error + Send + Sync>| AccessError::Config {
        context: options.context.clone(),
        source: e,
    };
    let kubeconfig =
        read_kubeconfig(options.kubeconfig.as_ref()).map_err(|e| config_error(e.into()))?;
    if let (Some(kc), Some(wanted)) = (&kubeconfig, &options.context)
        && !kc.contexts.iter().any(|c| &c.name == wanted)
    {
        let known: Vec<&str> = kc.contexts.iter().map(|c| c.name.as_str()).collect();
        return Err(config_error(
            format!(
                "context `{wanted}` does not exist; the kubeconfig has {}",
                if known.is_empty() {
                    "no contexts".to_owned()
                } else {
                    known
                        .iter()
                        .map(|c| format!("`{c}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            )
            .into(),
        ));
    }
    let mut config = match (kubeconfig, &options.server) {
        (Some(kc), _) => Config::from_custom_kubeconfig(kc, &kc_options)
            .await
            .map_err(|e| config_error(Box::new(e)))?,
        (None, Some(server)) => {
            let url = server
                .parse::<http::Uri>()
                .map_err(|e| config_error(format!("`--server`: {e}").into()))?;
            Config::new(url)
        }
        (None, None) => Config::incluster().map_err(|_| {
            config_error(
                "no kubeconfig found (`--kubeconfig`, `KUBECONFIG`, `~/.kube/config`) and not running in a cluster"
                    .into(),
            )
        })?,
    };
    if let Some(server) = &options.server {
        config.cluster_url = server
            .parse::<http::Uri>()
            .map_err(|e| config_error(format!("`--server`: {e}").into()))?;
    }
    if let Some(token) = &options.token {
        // The token replaces the kubeconfig's credentials, as with kubectl.
        config.auth_info = kube::config::AuthInfo::default();
        let mut value = http::HeaderValue::from_str(&format!("Bearer {token}"))
            .map_err(|_| config_error("`--token` holds characters a header cannot".into()))?;
        value.set_sensitive(true);
        config.headers.push((http::header::AUTHORIZATION, value));
    }
    trim_token_file(&mut config.auth_info);
    // `Retry-After` is honoured by [`fetch`], within `--request-timeout`; kube's own retry
    // layer would wait past it in silence.
    config.default_retry = false;
    if let Some(user) = &options.impersonate {
        config.auth_info.impersonate = Some(user.clone());
    }
    if !options.impersonate_groups.is_empty() {
        config.auth_info.impersonate_groups = Some(options.impersonate_groups.clone());
    }
    // Shown in messages and reports: without `user:password@`.
    let server = without_userinfo(&config.cluster_url.to_string());
    let namespace = config.default_namespace.clone();
    let plugin = exec_plugin(&config.auth_info);
    let built = if super::tls::applies(&config) {
        super::tls::client(&config)
    } else {
        Client::try_from(config)
    };
    let client = built.map_err(|source| {
        if matches!(source, kube::Error::HttpError(_)) {
            // kube builds the impersonation headers from the kubeconfig's user.
            return config_error(
                "the context's user has a value an HTTP header cannot carry (a line break in `as`, `as-groups` or `as-user-extra`?)"
                    .into(),
            );
        }
        match auth_failure(&source, plugin.as_deref()) {
            Some(message) => AccessError::Auth {
                server: server.clone(),
                message,
            },
            None => AccessError::Unreachable {
                server: server.clone(),
                source,
            },
        }
    })?;
    Ok((client, server, namespace))
}

/// The command of the exec credential plugin kube runs for `auth`, if it runs one (a token
/// or token file takes precedence, as in client-go).
fn exec_plugin(auth: &kube::config::AuthInfo) -> Option<String> {
    if auth.token.is_some() || auth.token_file.is_some() {
        return None;
    }
    auth.exec.as_ref()?.command.clone()
}

/// Reads the kubeconfig's `tokenFile` as client-go does, surrounding whitespace (the
/// trailing newline of `echo TOKEN > file`) trimmed, and puts the token in its place (kube
/// sends the file's bytes as they are, and a newline cannot be in a header). A file that
/// cannot be read is left to kube, which names it.
fn trim_token_file(auth: &mut kube::config::AuthInfo) {
    use std::io::Read as _;
    if auth.token.is_some() {
        return;
    }
    let Some(path) = auth.token_file.clone() else {
        return;
    };
    let mut text = String::new();
    // A token is a few KiB: a file over 1 MiB (or not text) is left to kube as it is.
    const MAX_TOKEN_BYTES: u64 = 1 << 20;
    let read = std::fs::File::open(&path)
        .and_then(|f| f.take(MAX_TOKEN_BYTES + 1).read_to_string(&mut text));
    if read.is_ok_and(|n| n as u64 <= MAX_TOKEN_BYTES) {
        auth.token = Some(text.trim().to_owned().into());
        auth.token_file = None;
    }
}

/// When `e` is (or wraps) a failure to obtain credentials, what failed in words, without
/// the plugin's stdout (the credential) and without a debug dump; `None` for other errors.
fn auth_failure(e: &kube::Error, plugin: Option<&str>) -> Option<String> {
    use kube::client::AuthError;
    let mut found: Option<&AuthError> = match e {
        kube::Error::Auth(a) => Some(a),
        _ => None,
    };
    let mut source = std::error::Error::source(e);
    while found.is_none()
        && let Some(cause) = source
    {
        found = cause.downcast_ref::<AuthError>();
        source = cause.source();
    }
    let plugin = match plugin {
        Some(p) => format!("the kubeconfig's exec credential plugin `{p}`"),
        None => "the kubeconfig's exec credential plugin".to_owned(),
    };
    Some(match found? {
        AuthError::AuthExecRun { out, .. } => {
            let status = match out.status.code() {
                Some(code) => format!("exit status {code}"),
                None => out.status.to_string(),
            };
            let stderr = plugin_stderr(&out.stderr);
            if stderr.is_empty() {
                format!("{plugin} failed: {status}")
            } else {
                format!("{plugin} failed: {status}: {stderr}")
            }
        }
        AuthError::AuthExecStart(io) => format!(
            "{plugin} could not be started: {}",
            crate::sanitize::io_in_words(io)
        ),
        AuthError::AuthExecParse(_) => format!(
            "{plugin} printed no valid ExecCredential on stdout (not shown: it may hold a credential)"
        ),
        AuthError::ExecPluginFailed => {
            format!("{plugin} printed an ExecCredential without `status`")
        }
        AuthError::MalformedTokenExpirationDate(_) => format!(
            "{plugin} printed an ExecCredential whose `status.expirationTimestamp` is not an RFC 3339 time"
        ),
        AuthError::MissingCommand => {
            "the kubeconfig's `user.exec` has no `command`".to_owned()
        }
        AuthError::ExecMissingClusterInfo => {
            "the kubeconfig's `user.exec` sets `provideClusterInfo` but the context's cluster is missing".to_owned()
        }
        AuthError::ReadTokenFile(io, path) => format!(
            "cannot read the kubeconfig's `tokenFile` `{}`: {}",
            path.display(),
            crate::sanitize::io_in_words(io)
        ),
        AuthError::InvalidBearerToken(_) => {
            "the token holds characters an HTTP header cannot (a line break?)".to_owned()
        }
        AuthError::InvalidBasicAuth(_) => {
            "the username or password holds characters an HTTP header cannot".to_owned()
        }
        AuthError::UnrefreshableTokenResponse => {
            "the credential could not be refreshed".to_owned()
        }
        AuthError::AuthExec(_) => "the kubeconfig's `auth-provider` failed".to_owned(),
        other => format!("the credentials could not be obtained: {}", redact_quoted(&other.to_string())),
    })
}

/// When `e` is (or wraps) a refusal of the server's certificate, what is wrong with it and
/// how to fix it, in words (rustls says `invalid peer certificate: Other(…)`); `None` for
/// other errors.
fn tls_failure(e: &(dyn std::error::Error + 'static)) -> Option<(String, String)> {
    use rustls::CertificateError as C;
    let found = find_rustls(e, 0);
    let rustls::Error::InvalidCertificate(certificate) = found? else {
        return None;
    };
    let ca =
        "check the context's `certificate-authority(-data)` (`kubectl config view --minify --raw`)";
    Some(match certificate {
        C::Other(other)
            if other
                .0
                .downcast_ref::<webpki::Error>()
                .is_some_and(|w| *w == webpki::Error::CaUsedAsEndEntity) =>
        {
            (
                "its certificate is a CA certificate (basicConstraints CA:TRUE) signed by another CA: the TLS library wasctl uses (rustls) cannot accept a CA certificate as a server certificate, though kubectl (Go) does".to_owned(),
                "reissue the API server's certificate without CA:TRUE (a leaf signed by the cluster's CA); or, if it is self-signed, put that very certificate in the kubeconfig's `certificate-authority-data`, which wasctl accepts".to_owned(),
            )
        }
        C::UnknownIssuer => (
            "its certificate is not signed by the kubeconfig's certificate authority".to_owned(),
            ca.to_owned(),
        ),
        C::NotValidForName | C::NotValidForNameContext { .. } => (
            "its certificate is not valid for the name wasctl connected to".to_owned(),
            "use a server address (or `tls-server-name`) that the certificate names".to_owned(),
        ),
        C::Expired | C::ExpiredContext { .. } => (
            "its certificate has expired".to_owned(),
            "renew the API server's certificate (or check this machine's clock)".to_owned(),
        ),
        C::NotValidYet | C::NotValidYetContext { .. } => (
            "its certificate is not valid yet".to_owned(),
            "check this machine's clock".to_owned(),
        ),
        _ => return None,
    })
}

/// The rustls error somewhere in `e`'s causes. hyper-rustls wraps it in an `io::Error`, which
/// hyper wraps again, so each `io::Error`'s inner error is searched as well as `source()`.
fn find_rustls<'a>(
    e: &'a (dyn std::error::Error + 'static),
    depth: usize,
) -> Option<&'a rustls::Error> {
    if depth > 32 {
        return None;
    }
    if let Some(r) = e.downcast_ref::<rustls::Error>() {
        return Some(r);
    }
    if let Some(inner) = e
        .downcast_ref::<std::io::Error>()
        .and_then(std::io::Error::get_ref)
        && let Some(r) = find_rustls(inner, depth + 1)
    {
        return Some(r);
    }
    e.source().and_then(|s| find_rustls(s, depth + 1))
}

/// What an exec plugin printed on stderr, as kubectl shows it: at most 20 lines and 2,000
/// bytes (the end, where the reason usually is).
fn plugin_stderr(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.trim().lines().collect();
    let mut out = lines[lines.len().saturating_sub(20)..].join("\n");
    if out.len() > 2000 {
        let mut start = out.len() - 2000;
        while !out.is_char_boundary(start) {
            start += 1;
        }
        out = format!("…{}", &out[start..]);
    }
    out
}

async fn load_async(
    options: &LiveOptions,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Snapshot, AccessError> {
    Ok(load_listed(options, progress).await?.snapshot)
}

/// A snapshot as listed, with what watching it needs.
struct LoadedLive {
    snapshot: Snapshot,
    client: Client,
    server: String,
    /// Every resource listed: where, and the list's resourceVersion.
    listed: Vec<(ListJob, Option<String>, String)>,
}

async fn load_listed(
    options: &LiveOptions,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<LoadedLive, AccessError> {
    let (client, server, default_namespace) = client_for(options).await?;
    let timeout = options.request_timeout;
    progress("discovering APIs");
    let groups: k8s_openapi::apimachinery::pkg::apis::meta::v1::APIGroupList =
        fetch_json(&client, "/apis", timeout)
            .await
            .map_err(|failure| discovery_error(&server, failure))?;
    let mut collector = Collector::new();
    let served = served_groups(&groups);
    let mut facts = crate::snapshot::ClusterFacts::default();
    for group in FACT_GROUPS {
        if let Some((versions, _)) = served.get(*group) {
            facts
                .served_versions
                .insert((*group).to_owned(), versions.clone());
        }
    }
    let mut warnings = Vec::new();
    let mut jobs = wanted_jobs(&client, timeout, &served, &mut facts, &mut warnings).await;
    stale_scheduling_jobs(&client, timeout, &served, &mut jobs).await;

    let results = join_all(jobs.iter().map(|job| {
        list_all(
            &client,
            job,
            options.namespace.as_deref(),
            timeout,
            progress,
        )
    }))
    .await;
    let mut listed = Vec::new();
    for (job, result) in jobs.iter().zip(results) {
        match result {
            Ok((items, notes, namespace, rv)) => {
                listed.push((job.clone(), namespace.clone(), rv));
                if let Some(namespace) = namespace {
                    facts.coverage.insert(
                        crate::snapshot::coverage_key(&job.group, &job.kind),
                        KindCoverage::Namespace { namespace },
                    );
                }
                warnings.extend(notes);
                collector.merge(items);
            }
            Err(e) => {
                facts.coverage.insert(
                    crate::snapshot::coverage_key(&job.group, &job.kind),
                    KindCoverage::Unreadable { reason: e.reason() },
                );
                warnings.push(list_warning(job, &e));
            }
        }
    }

    let kueue_config = if options.kueue_config && served.contains_key("kueue.x-k8s.io") {
        progress("reading Kueue's configuration");
        read_kueue_config(&client, timeout, &mut facts, &mut warnings).await
    } else {
        None
    };

    progress("reading /version and /metrics");
    let server_date = read_version(&client, timeout, &mut facts, &mut warnings).await;
    read_metrics(&client, timeout, &mut facts, &mut warnings).await;
    set_snapshot_time(&mut facts, server_date);
    collector.merge_facts(facts);
    for w in warnings {
        collector.warn(w);
    }
    let mut snapshot = collector.finish();
    snapshot.default_namespace = Some(default_namespace);
    snapshot.kueue_config = kueue_config;
    if let Some(w) = volcano_not_served(&snapshot, &listed) {
        snapshot.warnings.push(w);
    }
    // YuniKorn's queues, when YuniKorn's gangs are among the pods: its one ConfigMap, by name.
    if !snapshot.yunikorn.is_empty() {
        progress("reading YuniKorn's queues");
        snapshot.yunikorn_queues = read_yunikorn_queues(&client, timeout).await;
    }
    Ok(LoadedLive {
        snapshot,
        client,
        server,
        listed,
    })
}

/// Reads YuniKorn's ConfigMap `yunikorn/yunikorn-configs` by name (never listed): its
/// queues, or why they could not be read (`forbidden`, `not found`).
async fn read_yunikorn_queues(
    client: &Client,
    timeout: Option<Duration>,
) -> crate::snapshot::yunikorn_queues::YunikornQueues {
    use crate::snapshot::yunikorn_queues::{NAME, NAMESPACE, YunikornQueues, from_config_map};
    let uri = format!("/api/v1/namespaces/{NAMESPACE}/configmaps/{NAME}");
    match fetch_json::<serde_json::Value>(client, &uri, timeout).await {
        Ok(cm) => from_config_map(&cm),
        Err(ListFailure::Status { code: 404, .. }) => {
            YunikornQueues::Unreadable("not found".to_owned())
        }
        Err(failure) => YunikornQueues::Unreadable(failure.reason()),
    }
}

/// One warning when pods name the scheduler `volcano` (or carry Volcano's group annotation)
/// but Volcano's PodGroups were not listed because the server does not serve
/// `scheduling.volcano.sh` (not discovered, or its list answered 404): without them Volcano's
/// gangs cannot be shown or checked.
fn volcano_not_served(
    s: &Snapshot,
    listed: &[(ListJob, Option<String>, String)],
) -> Option<Warning> {
    use crate::snapshot::volcano;
    let read = listed
        .iter()
        .any(|(job, _, _)| job.group == volcano::GROUP && job.plural == "podgroups");
    if read {
        return None;
    }
    // A list that failed for another reason (forbidden, a timeout) has its own warning.
    let key = crate::snapshot::coverage_key(volcano::GROUP, "PodGroup");
    if let Some(KindCoverage::Unreadable { reason }) = s.facts.coverage.get(&key)
        && !reason.contains("404")
    {
        return None;
    }
    let volcano_pods = s.pods.iter().any(|p| {
        p.spec.as_ref().and_then(|sp| sp.scheduler_name.as_deref()) == Some(volcano::SCHEDULER_NAME)
            || volcano::group_name_of(&p.metadata).is_some()
    });
    volcano_pods.then(|| {
        Warning::new(
            "VolcanoNotServed",
            "pods name scheduler volcano, but the API server does not serve scheduling.volcano.sh: Volcano PodGroups cannot be read",
        )
    })
}

/// How long a watch asks the server to keep its stream open (`timeoutSeconds`); the server
/// ends it then and the watch is opened again from the last version seen. client-go picks
/// 5 to 10 minutes.
const WATCH_TIMEOUT_SECONDS: u64 = 290;

/// One change a resource's watch reports to the command following the cluster.
#[derive(Debug)]
pub(crate) enum Update {
    /// An object was added, changed or deleted ([`super::watch::apply`] takes it).
    Event {
        /// The listed `apiVersion` of the resource.
        api_version: String,
        /// The resource's kind.
        kind: String,
        /// The object, as JSON text.
        object: String,
        /// A `DELETED` event.
        deleted: bool,
    },
    /// The resource was listed again after its version expired (`410 Gone`): its objects
    /// replace those held ([`super::watch::replace_kind`]).
    Relisted {
        /// The resource's group (`""`: core).
        group: String,
        /// The resource's kind.
        kind: String,
        /// What the list read.
        objects: Box<Collector>,
    },
    /// Something to say on stderr; the watch goes on (or this resource is no longer
    /// watched, which the warning says).
    Warning(Warning),
    /// A resource's watch failed and is opened again after a backoff (the TUI's status line
    /// says so; the commands wait quietly).
    Reconnecting {
        /// The resource, as `plural.group`.
        resource: String,
        /// The attempt in a row, from 1.
        attempt: u32,
    },
    /// A resource's watch that was [`Update::Reconnecting`] read a line again.
    Resumed {
        /// The resource, as `plural.group`.
        resource: String,
    },
    /// The API server is lost: the command ends (exit 3).
    Lost(AccessError),
}

/// What a batch of updates did to a snapshot ([`apply_updates`]).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Applied {
    /// The changes of kept records, in words and in order ("pod ml/w-3 deleted").
    pub(crate) causes: Vec<String>,
    /// What to tell the user: an object that did not fit its type, a resource no longer
    /// watched.
    pub(crate) warnings: Vec<String>,
}

/// Applies a batch of updates to `snapshot` in order: events in place
/// ([`super::watch::apply`]), a re-listed resource's objects in place of those held
/// ([`super::watch::replace_kind`]); the derived state is left to the caller
/// ([`Snapshot::after_objects_changed`], once per batch). `Err`: the API server is lost.
pub(crate) fn apply_updates(
    snapshot: &mut Snapshot,
    batch: Vec<Update>,
) -> Result<Applied, AccessError> {
    use super::watch;
    let mut out = Applied::default();
    for update in batch {
        match update {
            Update::Event {
                api_version,
                kind,
                object,
                deleted,
            } => match watch::apply(snapshot, &api_version, &kind, &object, deleted) {
                Ok(watch::Applied::Changed(words)) => out.causes.push(words),
                Ok(watch::Applied::Same) => {}
                Err(why) => out
                    .warnings
                    .push(format!("a watched {kind} was not applied: {why}")),
            },
            // The watch's version expired: what the list found changed, object by object.
            Update::Relisted {
                group,
                kind,
                objects,
                ..
            } => out
                .causes
                .extend(watch::replace_kind(snapshot, &group, &kind, *objects)),
            Update::Warning(w) => out.warnings.push(w.message),
            Update::Reconnecting { .. } | Update::Resumed { .. } => {}
            Update::Lost(e) => return Err(e),
        }
    }
    Ok(out)
}

/// A live snapshot's watches, running on their own runtime until this is dropped.
pub(crate) struct Watched {
    /// Keeps the watch tasks running.
    _runtime: tokio::runtime::Runtime,
    /// What the watches report, in arrival order.
    pub(crate) updates: std::sync::mpsc::Receiver<Update>,
}

impl Watched {
    /// The updates, and what keeps the watches running (dropping it stops them).
    pub(crate) fn into_parts(self) -> (std::sync::mpsc::Receiver<Update>, Box<dyn Send>) {
        (self.updates, Box::new(self._runtime))
    }
}

/// Lists the cluster as [`load`] does, then watches every resource read from its list's
/// resourceVersion (with bookmarks), each in a task of its own: a `410 Gone` lists that
/// resource again, a stream that breaks or stalls (nothing, not even a bookmark, for
/// `watch_idle`) is opened again with backoff, a watch that is forbidden or no longer served
/// becomes a warning, and an API server that stops answering is [`Update::Lost`].
pub(crate) fn load_watched(
    options: &LiveOptions,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<(Snapshot, Watched), AccessError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(AccessError::Runtime)?;
    let loaded = runtime.block_on(load_listed(options, progress))?;
    let (tx, updates) = std::sync::mpsc::channel();
    for (job, namespace, rv) in loaded.listed {
        let follow = Following {
            client: loaded.client.clone(),
            server: loaded.server.clone(),
            job,
            namespace,
            idle: options.watch_idle,
            timeout: options.request_timeout,
            tx: tx.clone(),
        };
        runtime.spawn(follow.run(rv));
    }
    Ok((
        loaded.snapshot,
        Watched {
            _runtime: runtime,
            updates,
        },
    ))
}

/// One resource's watch, as a task.
struct Following {
    client: Client,
    server: String,
    job: ListJob,
    namespace: Option<String>,
    idle: Option<Duration>,
    timeout: Option<Duration>,
    tx: std::sync::mpsc::Sender<Update>,
}

impl Following {
    /// Watches until the receiver goes away, the watch stops or the server is lost.
    async fn run(self, rv: String) {
        use super::watch::{Ended, Follow, Next};
        let mut state = Follow::new(rv);
        let mut wait = Duration::ZERO;
        loop {
            if !wait.is_zero() {
                tokio::time::sleep(wait).await;
            }
            state.opening();
            let Ok(next) = self.watch_once(&mut state).await else {
                return;
            };
            wait = match next {
                Next::Watch(after) => {
                    if !after.is_zero() {
                        let update = Update::Reconnecting {
                            resource: self.job.display(),
                            attempt: state.failures(),
                        };
                        if self.tx.send(update).is_err() {
                            return;
                        }
                    }
                    after
                }
                Next::Relist => {
                    let listed = list_pages(
                        &self.client,
                        &self.job,
                        self.namespace.as_deref(),
                        None,
                        self.timeout,
                        &|_| {},
                    )
                    .await;
                    match listed {
                        Ok((objects, warnings, rv)) => {
                            state.listed(rv);
                            let relisted = Update::Relisted {
                                group: self.job.group.clone(),
                                kind: self.job.kind.clone(),
                                objects: Box::new(objects),
                            };
                            if self.tx.send(relisted).is_err() {
                                return;
                            }
                            for w in warnings {
                                if self.tx.send(Update::Warning(w)).is_err() {
                                    return;
                                }
                            }
                            Duration::ZERO
                        }
                        Err(failure) => {
                            let ended = match failure {
                                ListFailure::Status { code, .. } => Ended::Refused {
                                    code,
                                    message: String::new(),
                                },
                                ListFailure::Unsent(e) => {
                                    Ended::Unreachable(parse::first_line(&e.to_string()))
                                }
                                other => Ended::Broken(other.reason()),
                            };
                            match state.ended(&ended) {
                                Next::Watch(after) => after,
                                other => {
                                    let _ = self.finish(other);
                                    return;
                                }
                            }
                        }
                    }
                }
                other => {
                    let _ = self.finish(other);
                    return;
                }
            };
        }
    }

    /// Reports why the watch stops.
    fn finish(&self, next: super::watch::Next) -> Result<(), ()> {
        use super::watch::Next;
        let update = match next {
            Next::Stop(why) => Update::Warning(Warning::new(
                "WatchStopped",
                format!("`{}` is no longer watched: {why}", self.job.display()),
            )),
            Next::Lost(reason) => Update::Lost(AccessError::Lost {
                server: self.server.clone(),
                reason: format!("watching `{}`: {reason}", self.job.display()),
            }),
            Next::Watch(_) | Next::Relist => return Ok(()),
        };
        self.tx.send(update).map_err(|_| ())
    }

    /// Opens one watch request and reads it until it ends; `Err` when the receiver is gone.
    async fn watch_once(&self, state: &mut super::watch::Follow) -> Result<super::watch::Next, ()> {
        use super::watch::{Ended, Line, Next, parse_line};
        use futures::AsyncBufReadExt as _;
        let uri = format!(
            "{}?allowWatchBookmarks=true&resourceVersion={}&timeoutSeconds={WATCH_TIMEOUT_SECONDS}&watch=true",
            self.job.path(self.namespace.as_deref()),
            percent_encode(&state.rv)
        );
        if !path_is_allowed(&uri) {
            return Ok(Next::Stop(format!("refused to request `{uri}`")));
        }
        let Ok(request) = http::Request::get(&uri).body(Vec::new()) else {
            return Ok(Next::Stop(format!("cannot request `{uri}`")));
        };
        let idle = self.idle;
        let opened = match idle {
            Some(limit) => tokio::time::timeout(limit, self.client.request_stream(request))
                .await
                .map_err(|_| Ended::Broken(format!("no answer within {}", humanize(limit)))),
            None => Ok(self.client.request_stream(request).await),
        };
        let reader = match opened {
            Err(ended) => return Ok(state.ended(&ended)),
            Ok(Err(kube::Error::Api(status))) => {
                // Only the code: a body that was not a `Status` (a proxy's page) is in the
                // message, and may echo the request.
                return Ok(state.ended(&Ended::Refused {
                    code: status.code,
                    message: String::new(),
                }));
            }
            Ok(Err(e)) => {
                return Ok(state.ended(&Ended::Unreachable(parse::first_line(&e.to_string()))));
            }
            Ok(Ok(reader)) => reader,
        };
        let mut reader = Box::pin(reader);
        let mut line = String::new();
        let mut failing = state.failures() > 0;
        loop {
            line.clear();
            let read = match idle {
                Some(limit) => {
                    match tokio::time::timeout(limit, reader.read_line(&mut line)).await {
                        Ok(read) => read,
                        Err(_) => {
                            return Ok(state.ended(&Ended::Broken(format!(
                                "nothing, not even a bookmark, for {}",
                                humanize(limit)
                            ))));
                        }
                    }
                }
                None => reader.read_line(&mut line).await,
            };
            match read {
                Ok(0) => return Ok(state.ended(&Ended::Closed)),
                Ok(_) => {}
                Err(e) => {
                    return Ok(state.ended(&Ended::Broken(parse::first_line(&e.to_string()))));
                }
            }
            let text = line.trim();
            if text.is_empty() {
                continue;
            }
            let parsed = match parse_line(text) {
                Ok(parsed) => parsed,
                Err(why) => {
                    return Ok(state.ended(&Ended::Broken(format!("the server sent {why}"))));
                }
            };
            if let Line::Object {
                deleted, object, ..
            } = &parsed
            {
                let update = Update::Event {
                    api_version: self.job.api_version(),
                    kind: self.job.kind.clone(),
                    object: (*object).to_owned(),
                    deleted: *deleted,
                };
                self.tx.send(update).map_err(|_| ())?;
            }
            if let Some(next) = state.line(&parsed) {
                return Ok(next);
            }
            if failing && state.failures() == 0 {
                failing = false;
                let resumed = Update::Resumed {
                    resource: self.job.display(),
                };
                self.tx.send(resumed).map_err(|_| ())?;
            }
        }
    }
}

/// Reads Kueue's manager configuration from the ConfigMap Kueue's manifests mount
/// (`GET /api/v1/namespaces/kueue-system/configmaps/kueue-manager-config`, by name: RBAC
/// grants `get` on that one name). Absent (404), forbidden (403), unreadable or invalid:
/// Kueue's defaults, said once in `facts.assumed` (and a warning when it could not be used),
/// never an error and never "Kueue is not configured" from a 403.
async fn read_kueue_config(
    client: &Client,
    timeout: Option<Duration>,
    facts: &mut crate::snapshot::ClusterFacts,
    warnings: &mut Vec<Warning>,
) -> Option<crate::snapshot::LoadedKueueConfig> {
    use crate::snapshot::kueue_config::{CONFIGMAP_KEY, CONFIGMAP_NAME, CONFIGMAP_NAMESPACE};
    let what = format!("configmap/{CONFIGMAP_NAMESPACE}/{CONFIGMAP_NAME}");
    let uri = format!("/api/v1/namespaces/{CONFIGMAP_NAMESPACE}/configmaps/{CONFIGMAP_NAME}");
    let assumed = |why: &str| {
        format!(
            "Kueue's configuration: Kueue's defaults ({why}; give it with `--kueue-config FILE` or `--kueue-config configmap/NAMESPACE/NAME`)"
        )
    };
    match fetch_json::<k8s_openapi::api::core::v1::ConfigMap>(client, &uri, timeout).await {
        Ok(cm) => {
            let data = cm.data.unwrap_or_default();
            let Some(text) = data.get(CONFIGMAP_KEY) else {
                facts
                    .assumed
                    .push(assumed(&format!("`{what}` has no key `{CONFIGMAP_KEY}`")));
                return None;
            };
            let origin = format!("{what}:{CONFIGMAP_KEY}");
            let mut collector = Collector::new();
            let loaded = super::files::load_str(text, &origin, &mut collector)
                .map_err(|e| e.to_string())
                .and_then(|()| {
                    collector
                        .finish()
                        .kueue_config
                        .ok_or_else(|| "it holds no Kueue `Configuration`".to_owned())
                });
            match loaded {
                Ok(mut l) => {
                    l.source = origin;
                    Some(l)
                }
                Err(e) => {
                    warnings.push(Warning::new(
                        "KueueConfigUnusable",
                        format!("cannot use `{origin}`: {e}"),
                    ));
                    facts
                        .assumed
                        .push(assumed(&format!("`{origin}` could not be used")));
                    None
                }
            }
        }
        Err(ListFailure::Status { code: 404, .. }) => {
            facts
                .assumed
                .push(assumed(&format!("`{what}` does not exist")));
            None
        }
        Err(ListFailure::Status { code: 403, .. }) => {
            facts.assumed.push(assumed(&format!(
                "reading `{what}` is forbidden: grant `get` on it, as packaging/rbac.yaml does"
            )));
            None
        }
        Err(failure) => {
            facts.assumed.push(assumed(&format!(
                "`{what}` could not be read: {}",
                failure.reason()
            )));
            None
        }
    }
}

/// Why discovery (`/apis`) failed, as an access error. A status answer is the server
/// speaking: say what it said (without kube's debug dump of the `Status`); a proxy's page, an
/// unrequested encoding or a long `Retry-After` say what happened; only a request that got no
/// answer means the server could not be reached.
fn discovery_error(server: &str, failure: ListFailure) -> AccessError {
    match failure {
        ListFailure::Unsent(source) => match (auth_failure(&source, None), tls_failure(&source)) {
            (Some(message), _) => AccessError::Auth {
                server: server.to_owned(),
                message,
            },
            (None, Some((what, hint))) => AccessError::Answered {
                server: server.to_owned(),
                what: format!("the TLS handshake failed: {what}"),
                hint,
            },
            (None, None) => AccessError::Unreachable {
                server: server.to_owned(),
                source,
            },
        },
        ListFailure::Status { code: 401, .. } => AccessError::Unauthorized {
            server: server.to_owned(),
        },
        ListFailure::Status { code, message } => AccessError::Refused {
            server: server.to_owned(),
            code,
            message,
        },
        ListFailure::Timeout(d) => AccessError::Timeout {
            server: server.to_owned(),
            after: humanize(d),
        },
        other => {
            let what = other.reason();
            AccessError::Answered {
                server: server.to_owned(),
                hint: unreadable_hint(&what, "pods"),
                what,
            }
        }
    }
}

/// Discovery's groups as group → (served versions, preferred version), with the core group
/// (`""`) serving `v1`. Names from discovery go into paths: a group that is not a DNS name is
/// ignored, and so is a version that is not a DNS label.
fn served_groups(
    groups: &k8s_openapi::apimachinery::pkg::apis::meta::v1::APIGroupList,
) -> BTreeMap<String, (Vec<String>, String)> {
    let mut served: BTreeMap<String, (Vec<String>, String)> = BTreeMap::new();
    served.insert(String::new(), (vec!["v1".to_owned()], "v1".to_owned()));
    for g in &groups.groups {
        if !is_dns_subdomain(&g.name) {
            continue;
        }
        let versions: Vec<String> = g
            .versions
            .iter()
            .map(|v| v.version.clone())
            .filter(|v| is_dns_label(v))
            .collect();
        let preferred = g
            .preferred_version
            .as_ref()
            .map(|p| p.version.clone())
            .filter(|v| is_dns_label(v))
            .or_else(|| versions.first().cloned())
            .unwrap_or_default();
        served.insert(g.name.clone(), (versions, preferred));
    }
    served
}

/// The list jobs for [`WANTED`], in its order. Each group version's resource list is fetched
/// once to confirm the plural is served; what cannot be read is a warning (and, when
/// discovery of the group version failed, an unreadable kind in `facts`).
async fn wanted_jobs(
    client: &Client,
    timeout: Option<Duration>,
    served: &BTreeMap<String, (Vec<String>, String)>,
    facts: &mut crate::snapshot::ClusterFacts,
    warnings: &mut Vec<Warning>,
) -> Vec<ListJob> {
    let mut resource_lists: BTreeMap<String, Option<Vec<String>>> = BTreeMap::new();
    let mut jobs = Vec::new();
    for w in WANTED {
        // Events are read for Volcano's gangs only: a cluster without Volcano is not asked
        // for its (often very long) Event list.
        let volcano =
            served.contains_key("scheduling.volcano.sh") || served.contains_key("batch.volcano.sh");
        if w.group.is_empty() && w.kind == "Event" && !volcano {
            continue;
        }
        let Some(version) = version_to_read(w, served, warnings) else {
            continue;
        };
        let gv = if w.group.is_empty() {
            version.clone()
        } else {
            format!("{}/{version}", w.group)
        };
        if !resource_lists.contains_key(&gv) {
            let path = if w.group.is_empty() {
                format!("/api/{version}")
            } else {
                format!("/apis/{gv}")
            };
            let list: Result<APIResourceList, _> = fetch_json(client, &path, timeout).await;
            resource_lists.insert(
                gv.clone(),
                list.ok()
                    .map(|l| l.resources.into_iter().map(|r| r.name).collect()),
            );
        }
        let Some(names) = resource_lists.get(&gv).and_then(Option::as_ref) else {
            // Discovery of the group version failed: whether the kind exists is unknown.
            facts.coverage.insert(
                crate::snapshot::coverage_key(w.group, w.kind),
                KindCoverage::Unreadable {
                    reason: format!("discovery of `{gv}` failed"),
                },
            );
            warnings.push(Warning::new(
                "ListFailed",
                format!(
                    "cannot read the resources of `{gv}`: no `{}` were read",
                    w.plural
                ),
            ));
            continue;
        };
        let has_plural = names.iter().any(|n| n == w.plural);
        if !has_plural {
            if !w.optional {
                warnings.push(Warning::new(
                    "MissingApi",
                    format!(
                        "the server does not serve `{}` in `{gv}`: none were read",
                        w.plural
                    ),
                ));
            }
            continue;
        }
        jobs.push(ListJob {
            group: w.group.to_owned(),
            version,
            plural: w.plural.to_owned(),
            kind: w.kind.to_owned(),
            namespaced: w.namespaced,
        });
    }
    jobs
}

/// The version of `w`'s group to read: the preferred one when `w` names none, else `w`'s
/// own, else `v1alpha3` for a cluster serving only the alpha scheduling line (read and
/// converted). `None`, with a warning unless `w` is optional, when the server does not serve
/// it.
fn version_to_read(
    w: &Wanted,
    served: &BTreeMap<String, (Vec<String>, String)>,
    warnings: &mut Vec<Warning>,
) -> Option<String> {
    let Some((versions, preferred)) = served.get(w.group) else {
        if !w.optional {
            warnings.push(Warning::new(
                "MissingApi",
                format!(
                    "the server does not serve API group `{}`: no `{}` were read",
                    display_group(w.group),
                    w.plural
                ),
            ));
        }
        return None;
    };
    if w.version.is_empty() {
        Some(preferred.clone())
    } else if versions.iter().any(|v| v == w.version) {
        Some(w.version.to_owned())
    } else if w.group == "scheduling.k8s.io"
        && w.version == "v1beta1"
        && versions.iter().any(|v| v == "v1alpha3")
    {
        // A cluster serving only the alpha line: read it and convert.
        Some("v1alpha3".to_owned())
    } else {
        warnings.push(Warning::new(
            "MissingApi",
            format!(
                "the server does not serve `{}/{}` (it serves {}): no `{}` were read",
                w.group,
                w.version,
                versions.join(", "),
                w.plural
            ),
        ));
        None
    }
}

/// Adds a list job for every resource the stale scheduling.k8s.io versions (`v1alpha1`,
/// `v1alpha2`) serve, for doctor and lint. Subresources (`x/status`) and names that are not
/// DNS labels are skipped; `secrets` is never read, whatever group claims to serve it. A
/// version whose resource list cannot be read adds nothing.
async fn stale_scheduling_jobs(
    client: &Client,
    timeout: Option<Duration>,
    served: &BTreeMap<String, (Vec<String>, String)>,
    jobs: &mut Vec<ListJob>,
) {
    let Some((versions, _)) = served.get("scheduling.k8s.io") else {
        return;
    };
    for version in versions
        .iter()
        .filter(|v| matches!(v.as_str(), "v1alpha1" | "v1alpha2"))
    {
        let gv = format!("scheduling.k8s.io/{version}");
        let list: Result<APIResourceList, _> =
            fetch_json(client, &format!("/apis/{gv}"), timeout).await;
        if let Ok(list) = list {
            for r in list
                .resources
                .iter()
                .filter(|r| is_dns_label(&r.name) && r.name != "secrets")
            {
                jobs.push(ListJob {
                    group: "scheduling.k8s.io".to_owned(),
                    version: version.clone(),
                    plural: r.name.clone(),
                    kind: r.kind.clone(),
                    namespaced: r.namespaced,
                });
            }
        }
    }
}

/// Reads `/version` into `facts.server_version` and returns the server's clock (the `Date`
/// of its answer); a failure is a warning.
async fn read_version(
    client: &Client,
    timeout: Option<Duration>,
    facts: &mut crate::snapshot::ClusterFacts,
    warnings: &mut Vec<Warning>,
) -> Option<k8s_openapi::jiff::Timestamp> {
    match fetch(client, "/version", timeout).await.and_then(|answer| {
        let info: VersionInfo = serde_json::from_slice(&answer.body)
            .map_err(|e| ListFailure::Malformed(parse::strip_position(&e.to_string())))?;
        Ok((info, answer.headers))
    }) {
        Ok((info, headers)) => {
            facts.server_version = info.git_version;
            date_of(&headers)
        }
        Err(e) => {
            warnings.push(Warning::new(
                "VersionUnavailable",
                format!(
                    "cannot read `/version`: {}{}",
                    e.reason(),
                    match &e {
                        ListFailure::Status { message, .. } if !message.is_empty() => {
                            format!(" ({})", message.chars().take(200).collect::<String>())
                        }
                        _ => String::new(),
                    }
                ),
            ));
            None
        }
    }
}

/// Reads kube-apiserver's feature gates from `/metrics` into `facts.components`. Without
/// them (a warning), the apiserver is still recorded with the version `/version` gave, if any.
async fn read_metrics(
    client: &Client,
    timeout: Option<Duration>,
    facts: &mut crate::snapshot::ClusterFacts,
    warnings: &mut Vec<Warning>,
) {
    let metrics = fetch(client, "/metrics", timeout).await.and_then(|answer| {
        String::from_utf8(answer.body)
            .map_err(|_| ListFailure::Malformed("the body is not UTF-8".to_owned()))
    });
    match metrics {
        Ok(text) => {
            let gates = parse_feature_metrics(&text);
            facts.components.push(ComponentFacts {
                component: Component::KubeApiserver,
                node: None,
                version: facts.server_version.clone(),
                feature_gates: gates,
                source: Some("metrics".to_owned()),
            });
        }
        Err(e) => {
            warnings.push(Warning::new(
                "MetricsUnavailable",
                format!(
                    "cannot read kube-apiserver `/metrics` ({}): feature gates come from static pods or assumptions",
                    e.reason()
                ),
            ));
            if let Some(v) = &facts.server_version {
                facts.components.push(ComponentFacts {
                    component: Component::KubeApiserver,
                    node: None,
                    version: Some(v.clone()),
                    feature_gates: BTreeMap::new(),
                    source: Some("version".to_owned()),
                });
            }
        }
    }
}

/// "Now" is the server's clock, so that ages agree with what the cluster sees; the local
/// clock only when the server sends no usable `Date` (said in `facts.assumed`).
fn set_snapshot_time(
    facts: &mut crate::snapshot::ClusterFacts,
    server_date: Option<k8s_openapi::jiff::Timestamp>,
) {
    match server_date {
        Some(t) => {
            facts.snapshot_time = Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(t));
        }
        None => {
            let now = k8s_openapi::jiff::Timestamp::now();
            facts.snapshot_time = Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(now));
            facts.assumed.push(format!(
                "the server sent no `Date` header: ages are relative to the local clock ({})",
                now.strftime("%Y-%m-%dT%H:%M:%SZ")
            ));
        }
    }
}

/// The server's clock: the `Date` header of an answer (RFC 9110 IMF-fixdate, which RFC 2822
/// parsing accepts).
fn date_of(headers: &http::HeaderMap) -> Option<k8s_openapi::jiff::Timestamp> {
    let date = headers.get(http::header::DATE)?.to_str().ok()?;
    k8s_openapi::jiff::fmt::rfc2822::DateTimeParser::new()
        .parse_timestamp(date)
        .ok()
}

/// The part of `/version` wasctl reads.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct VersionInfo {
    git_version: Option<String>,
}

use k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResourceList;

/// A GET whose 2xx body is one JSON document of type `T`.
async fn fetch_json<T: serde::de::DeserializeOwned>(
    client: &Client,
    uri: &str,
    timeout: Option<Duration>,
) -> Result<T, ListFailure> {
    let answer = fetch(client, uri, timeout).await?;
    serde_json::from_slice(&answer.body).map_err(|e| {
        ListFailure::Malformed(format!(
            "{} (at byte {} of {})",
            parse::strip_position(&e.to_string()),
            e.column(),
            answer.body.len()
        ))
    })
}

fn display_group(group: &str) -> &str {
    if group.is_empty() { "core" } else { group }
}

fn list_warning(job: &ListJob, e: &ListFailure) -> Warning {
    match e.code() {
        Some(403) => Warning::new(
            "Forbidden",
            format!("listing `{}` is forbidden: none were read", job.display()),
        ),
        Some(404) => Warning::new(
            "MissingApi",
            format!(
                "the server does not serve `{}`: none were read",
                job.display()
            ),
        ),
        _ => Warning::new(
            "ListFailed",
            format!(
                "listing `{}` failed: {}{}: none were used",
                job.display(),
                e.reason(),
                match e {
                    ListFailure::Status { message, .. } if !message.is_empty() => {
                        let short: String = message.chars().take(200).collect();
                        format!(" ({short})")
                    }
                    _ => String::new(),
                }
            ),
        ),
    }
}

/// Why one list could not be read completely.
#[derive(Debug)]
enum ListFailure {
    /// The server answered with a non-2xx status (other than a redirect).
    Status {
        /// The HTTP status.
        code: u16,
        /// The `Status` message, or the start of the body.
        message: String,
    },
    /// The server answered an error status with something other than a `Status`: an HTML
    /// page or a text, which a proxy or load balancer in front of it serves.
    Page {
        /// The HTTP status.
        code: u16,
        /// What the body is, in words (`an HTML page`, `an empty body`, …).
        what: &'static str,
    },
    /// A 2xx answer that is not JSON: an HTML page (a login or captive portal, a proxy).
    NotJson {
        /// The HTTP status.
        code: u16,
        /// What the body is, in words.
        what: &'static str,
    },
    /// A body compressed with an encoding wasctl did not ask for (`Content-Encoding: gzip`
    /// without `Accept-Encoding`).
    Encoded(String),
    /// The server asked to retry later (`Retry-After` on a 429 or 5xx) for longer than the
    /// request may take, or again and again.
    Throttled {
        /// The HTTP status of the last answer.
        code: u16,
        /// Its `Retry-After`.
        after: Duration,
        /// `--request-timeout`, when the wait would have outlasted it; `None` when the server
        /// asked [`MAX_RETRY_AFTER`] times.
        limit: Option<Duration>,
    },
    /// The request could not be sent or got no answer (connection refused, TLS, credentials).
    Unsent(kube::Error),
    /// The server redirected; wasctl does not follow redirects.
    Redirect {
        /// The HTTP status.
        code: u16,
        /// The `Location` header, without userinfo.
        location: String,
    },
    /// No answer within the request timeout.
    Timeout(Duration),
    /// The request or the body failed on the way (connection reset, truncated body).
    Transport(String),
    /// A 2xx answer that is not a list: a `Status` body, `items` not a list, invalid JSON.
    Malformed(String),
    /// The server sent a `continue` token it had sent before.
    RepeatedContinue,
    /// More pages than any real list has.
    TooManyPages,
    /// The continue token expired (410) again and again.
    Expired,
}

impl ListFailure {
    fn code(&self) -> Option<u16> {
        match self {
            Self::Status { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// The short reason recorded in the snapshot's coverage: what happened, never a body
    /// other than a `Status` message, never a debug dump.
    fn reason(&self) -> String {
        match self {
            Self::Status { code: 403, .. } => "forbidden".to_owned(),
            Self::Status { code, .. } => format!("HTTP {}", status_words(*code)),
            Self::Page { code, what } => format!(
                "the API server answered {} with {what} ({PROXY_GUESS})",
                status_words(*code)
            ),
            Self::NotJson { code, what } => format!(
                "the API server answered {} with {what}, not JSON ({PROXY_GUESS})",
                status_words(*code)
            ),
            Self::Encoded(encoding) => format!(
                "the API server answered with a `{encoding}`-encoded body wasctl did not ask for (a proxy in front of it that compresses answers?)"
            ),
            Self::Throttled {
                code,
                after,
                limit: Some(limit),
            } if after > limit => format!(
                "the API server asked to retry after {}, longer than --request-timeout {} ({})",
                humanize(*after),
                humanize(*limit),
                status_words(*code)
            ),
            Self::Throttled {
                code,
                after,
                limit: Some(limit),
            } => format!(
                "the API server asked to retry after {}, longer than what was left of --request-timeout {} ({})",
                humanize(*after),
                humanize(*limit),
                status_words(*code)
            ),
            Self::Throttled {
                code, limit: None, ..
            } => format!(
                "the API server asked to retry later ({}) {MAX_RETRY_AFTER} times in a row",
                status_words(*code)
            ),
            Self::Unsent(e) => match auth_failure(e, None) {
                Some(auth) => auth,
                None => format!("no answer ({})", parse::first_line(&e.to_string())),
            },
            Self::Redirect { code, location } => {
                format!("HTTP {code} redirect to `{location}` (not followed)")
            }
            Self::Timeout(d) => format!("no answer within {}", humanize(*d)),
            Self::Transport(why) => format!("the response was cut off ({why})"),
            Self::Malformed(why) => format!("malformed list response: {why}"),
            Self::RepeatedContinue => "the server repeated a `continue` token".to_owned(),
            Self::TooManyPages => format!("more than {MAX_PAGES} pages"),
            Self::Expired => "the list expired (HTTP 410) on every retry".to_owned(),
        }
    }
}

/// What a proxy's answer suggests, said once for every kind of answer that is not the API
/// server's own.
const PROXY_GUESS: &str = "a proxy or load balancer in front of it?";

/// `502 Bad Gateway`: a status code with its reason phrase.
fn status_words(code: u16) -> String {
    match http::StatusCode::from_u16(code)
        .ok()
        .and_then(|s| s.canonical_reason())
    {
        Some(phrase) => format!("{code} {phrase}"),
        None => code.to_string(),
    }
}

/// The suggestion that fits why a kind could not be read, from the reason this module
/// recorded in its coverage (`ListFailure::reason`): `list` permission only for a 403.
pub(crate) fn unreadable_hint(reason: &str, plural: &str) -> String {
    if reason == "forbidden" {
        format!(
            "wasctl needs `list` on {plural} cluster-wide (packaging/ has a ClusterRole with every permission it uses)"
        )
    } else if reason.contains(PROXY_GUESS) || reason.contains("did not ask for") {
        "something between wasctl and the API server answered in its place: check the context's `server` (`kubectl config view --minify`) and any proxy (`HTTPS_PROXY`, a load balancer) in front of the API server".to_owned()
    } else if reason.contains("asked to retry") {
        "the API server is overloaded or rate-limits this user (API Priority and Fairness): try again later, or allow more time with `--request-timeout 5m`".to_owned()
    } else if reason.starts_with("no answer within") {
        "give the API server more time with `--request-timeout 2m`, or check `kubectl get --raw /readyz`".to_owned()
    } else if reason.contains("redirect") {
        "the context's `server` redirects (a login page, an old address?): point it at the API server itself".to_owned()
    } else if reason.starts_with("HTTP 5") || reason.contains("cut off") {
        "the API server failed while answering: try again, and check `kubectl get --raw /readyz`"
            .to_owned()
    } else {
        format!(
            "`kubectl get --raw '/api/v1/{plural}?limit=1'` shows what the server answers; or read files with `--from PATH`"
        )
    }
}

fn humanize(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// A URL or `Location` value without `user:password@`.
fn without_userinfo(url: &str) -> String {
    crate::sanitize::redact_userinfo(url).into_owned()
}

/// A 2xx answer: its headers and its whole body.
struct Fetched {
    headers: http::HeaderMap,
    body: Vec<u8>,
}

/// How often one GET is sent again when the server asks to retry later: client-go's
/// `maxRetries` default (`k8s.io/client-go/rest/request.go`, `checkWait`).
const MAX_RETRY_AFTER: usize = 10;

/// One answer to one attempt of a GET.
enum Attempt {
    /// A 2xx, or a failure that sending again would not change.
    Done(Result<Fetched, ListFailure>),
    /// A 429 or 5xx with `Retry-After: SECONDS`.
    RetryAfter { code: u16, after: Duration },
}

/// One GET whose 2xx body is returned whole; anything else is a [`ListFailure`] that says
/// what happened (the status, the kind of body, a `Status` message, an unrequested encoding).
///
/// A 429 or 5xx with `Retry-After: SECONDS` is sent again after that wait, up to
/// [`MAX_RETRY_AFTER`] times, as client-go does (`checkWait` in
/// `k8s.io/client-go/rest/request.go`: any 5xx or 429, integer seconds only) — but never past
/// `timeout`, which bounds the whole GET, waits included: a wait that would outlast it is
/// named ([`ListFailure::Throttled`]) at once, not turned into "no answer".
async fn fetch(
    client: &Client,
    uri: &str,
    timeout: Option<Duration>,
) -> Result<Fetched, ListFailure> {
    if !path_is_allowed(uri) {
        return Err(ListFailure::Malformed(format!(
            "refused to request `{uri}`"
        )));
    }
    let deadline = timeout.map(|t| tokio::time::Instant::now() + t);
    let mut retries = 0;
    loop {
        let left = deadline.map(|d| d.saturating_duration_since(tokio::time::Instant::now()));
        let attempt = match left {
            Some(left) => tokio::time::timeout(left, fetch_once(client, uri))
                .await
                .map_err(|_| ListFailure::Timeout(timeout.unwrap_or_default()))?,
            None => fetch_once(client, uri).await,
        };
        match attempt {
            Attempt::Done(result) => return result,
            Attempt::RetryAfter { code, after } => {
                if retries >= MAX_RETRY_AFTER {
                    return Err(ListFailure::Throttled {
                        code,
                        after,
                        limit: None,
                    });
                }
                if let (Some(deadline), Some(limit)) = (deadline, timeout)
                    && tokio::time::Instant::now() + after >= deadline
                {
                    return Err(ListFailure::Throttled {
                        code,
                        after,
                        limit: Some(limit),
                    });
                }
                tokio::time::sleep(after).await;
                retries += 1;
            }
        }
    }
}

/// Sends one GET and classifies its answer.
async fn fetch_once(client: &Client, uri: &str) -> Attempt {
    let request = match http::Request::get(uri).body(kube::client::Body::from(Vec::new())) {
        Ok(r) => r,
        Err(e) => return Attempt::Done(Err(ListFailure::Transport(e.to_string()))),
    };
    let response = match client.send(request).await {
        Ok(r) => r,
        Err(e) => return Attempt::Done(Err(ListFailure::Unsent(e))),
    };
    let status = response.status();
    let code = status.as_u16();
    let headers = response.headers().clone();
    if status.is_redirection() {
        let location = headers
            .get(http::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .map(without_userinfo)
            .unwrap_or_default();
        return Attempt::Done(Err(ListFailure::Redirect { code, location }));
    }
    if code == 429 || status.is_server_error() {
        let after = headers
            .get(http::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        if let Some(after) = after {
            return Attempt::RetryAfter {
                code,
                after: Duration::from_secs(after),
            };
        }
    }
    let body = match response.into_body().collect_bytes().await {
        Ok(b) => Vec::from(b),
        Err(e) => {
            return Attempt::Done(Err(ListFailure::Transport(parse::first_line(
                &e.to_string(),
            ))));
        }
    };
    Attempt::Done(classify(code, &headers, body))
}

/// What an answer is: a 2xx JSON (or text) body, or a [`ListFailure`] naming the status and
/// the kind of body. Only a `Status` message is ever quoted from a body (a proxy's page may
/// echo the request, credentials included).
fn classify(code: u16, headers: &http::HeaderMap, body: Vec<u8>) -> Result<Fetched, ListFailure> {
    let header = |name: http::header::HeaderName| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().to_ascii_lowercase())
            .unwrap_or_default()
    };
    let encoding = header(http::header::CONTENT_ENCODING);
    if !encoding.is_empty() && encoding != "identity" {
        let shown: String = encoding
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | ',' | ' '))
            .take(40)
            .collect();
        return Err(ListFailure::Encoded(shown));
    }
    if body.starts_with(&[0x1f, 0x8b]) {
        return Err(ListFailure::Encoded("gzip".to_owned()));
    }
    let content_type = header(http::header::CONTENT_TYPE);
    let start = body
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .map_or(&[][..], |i| &body[i..]);
    let what = if content_type.contains("html") || start.starts_with(b"<") {
        "an HTML page"
    } else if start.is_empty() {
        "an empty body"
    } else if content_type.contains("json") || start.starts_with(b"{") {
        "a JSON body"
    } else {
        "a body that is not JSON"
    };
    if (200..300).contains(&code) {
        if what == "an HTML page" {
            return Err(ListFailure::NotJson { code, what });
        }
        return Ok(Fetched {
            headers: headers.clone(),
            body,
        });
    }
    match serde_json::from_slice::<StatusBody>(&body) {
        Ok(status) if status.kind.as_deref() == Some("Status") || status.message.is_some() => {
            Err(ListFailure::Status {
                code,
                message: status.message.unwrap_or_default(),
            })
        }
        _ if what == "a JSON body" => Err(ListFailure::Status {
            code,
            message: String::new(),
        }),
        _ => Err(ListFailure::Page { code, what }),
    }
}

#[derive(serde::Deserialize)]
struct StatusBody {
    kind: Option<String>,
    message: Option<String>,
}

/// The parts of a list page wasctl reads; `items` stay raw text until typed one by one.
#[derive(serde::Deserialize)]
struct Page<'a> {
    #[serde(borrow)]
    kind: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    message: Option<std::borrow::Cow<'a, str>>,
    metadata: Option<PageMeta>,
    #[serde(borrow)]
    items: Option<&'a serde_json::value::RawValue>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct PageMeta {
    #[serde(rename = "continue")]
    continue_token: Option<String>,
    remaining_item_count: Option<u64>,
    /// The list's resourceVersion (the same on every page), which a watch starts from.
    resource_version: Option<String>,
}

/// The most pages one list may take (150,000 pods are 300 pages of 500).
const MAX_PAGES: usize = 100_000;
/// How often a list is started again after its continue token expired (410 Gone).
const MAX_RELISTS: usize = 3;

/// Lists every page of one resource. When a cluster-wide list of a namespaced resource is
/// forbidden and a namespace is known, lists that namespace instead and says so.
async fn list_all(
    client: &Client,
    job: &ListJob,
    namespace: Option<&str>,
    timeout: Option<Duration>,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Listed, ListFailure> {
    match list_pages(client, job, None, None, timeout, progress).await {
        Ok((items, invalid, rv)) => Ok((items, invalid, None, rv)),
        Err(e) if e.code() == Some(403) && job.namespaced && namespace.is_some() => {
            let ns = namespace.unwrap_or_default();
            let (mut items, mut invalid, rv) =
                list_pages(client, job, Some(ns), None, timeout, progress).await?;
            // What the other namespaces hold is unknown: for pods, what they use of the
            // nodes. The control plane's static pods in `kube-system` carry the scheduler's
            // and controller manager's `--feature-gates`: they are read when RBAC allows, so
            // that the gates stay known rather than assumed.
            let unread = if job.kind != "Pod" {
                format!("the {} of every other namespace are unread", job.display())
            } else if ns == CONTROL_PLANE_NAMESPACE {
                "the pods of every other namespace are unread: what they use of the nodes is unknown, so free capacity is overstated".to_owned()
            } else {
                let static_pods = list_pages(
                    client,
                    job,
                    Some(CONTROL_PLANE_NAMESPACE),
                    Some(CONTROL_PLANE_SELECTOR),
                    timeout,
                    progress,
                )
                .await;
                let gates = match static_pods {
                    Ok((control_plane, notes, _)) => {
                        items.merge(control_plane);
                        invalid.extend(notes);
                        format!(
                            "(the control plane's static pods in `{CONTROL_PLANE_NAMESPACE}` were read, for the components' feature gates)"
                        )
                    }
                    Err(e) => format!(
                        "(and the control plane's static pods in `{CONTROL_PLANE_NAMESPACE}` could not be read ({}): the scheduler's feature gates are those of kube-apiserver or assumed)",
                        e.reason()
                    ),
                };
                format!(
                    "the pods of every other namespace are unread: what they use of the nodes is unknown, so free capacity is overstated {gates}"
                )
            };
            invalid.push(Warning::new(
                "Forbidden",
                format!(
                    "listing `{}` in all namespaces is forbidden: read namespace `{ns}` only; {unread}",
                    job.display()
                ),
            ));
            Ok((items, invalid, Some(ns.to_owned()), rv))
        }
        Err(e) => Err(e),
    }
}

/// What [`list_all`] read: the objects, the warnings, the namespace it fell back to, and the
/// list's resourceVersion.
type Listed = (Collector, Vec<Warning>, Option<String>, String);

/// Where the control plane's static pods are.
const CONTROL_PLANE_NAMESPACE: &str = "kube-system";
/// The label kubeadm (and most installers) put on the control plane's static pods.
const CONTROL_PLANE_SELECTOR: &str = "tier=control-plane";

/// Reads one list page by page, each page typed as it arrives. A `410 Gone` on a continued
/// page starts the list again from the beginning, as client-go's pager does; a token seen
/// twice, a redirect, a timeout or a page that is not a list stop it with a [`ListFailure`].
/// Objects that do not fit their type become warnings, not failures.
///
/// A page is typed on a blocking thread while the next one is fetched: the continue token is
/// read from the page first, so the request for the next page goes out at once (typing 500
/// real pods takes about as long as fetching them). At most one page is typed at a time, so
/// at most two pages' bodies are held; the pages' objects are added in page order, and a
/// page's failure is reported before anything a later page did.
async fn list_pages(
    client: &Client,
    job: &ListJob,
    namespace: Option<&str>,
    selector: Option<&str>,
    timeout: Option<Duration>,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<(Collector, Vec<Warning>, String), ListFailure> {
    let path = job.path(namespace);
    let api_version = job.api_version();
    'relist: for _ in 0..=MAX_RELISTS {
        let mut listed = ListedSoFar {
            collector: Collector::new(),
            invalid: Vec::new(),
            count: 0,
        };
        let mut rv = String::new();
        let mut seen = std::collections::HashSet::new();
        let mut token: Option<String> = None;
        let mut typing: Option<tokio::task::JoinHandle<Result<TypedPage, ListFailure>>> = None;
        for _ in 0..MAX_PAGES {
            let mut uri = format!("{path}?limit={PAGE_SIZE}");
            if let Some(selector) = selector {
                uri.push_str("&labelSelector=");
                uri.push_str(&percent_encode(selector));
            }
            if let Some(t) = &token {
                uri.push_str("&continue=");
                uri.push_str(&percent_encode(t));
            }
            let fetched = fetch(client, &uri, timeout).await.map(|page| {
                let meta = page_meta(&page.body);
                (page.body, meta)
            });
            // The page before this one first: its objects come first, and so does its failure.
            if let Some(previous) = typing.take() {
                listed.absorb(joined(previous).await?, job, progress);
            }
            let (body, meta) = match fetched {
                Ok(page) => page,
                Err(ListFailure::Status { code: 410, .. }) if token.is_some() => continue 'relist,
                Err(e) => return Err(e),
            };
            let meta = meta?;
            if token.is_none() {
                rv = meta.resource_version.clone().unwrap_or_default();
            }
            let (api_version, kind) = (api_version.clone(), job.kind.clone());
            typing = Some(tokio::task::spawn_blocking(move || {
                let mut page = type_page(&body, &api_version, &kind)?;
                page.remaining = meta.remaining_item_count;
                Ok(page)
            }));
            token = meta.continue_token.filter(|t| !t.is_empty());
            match &token {
                None => {
                    if let Some(last) = typing.take() {
                        listed.absorb(joined(last).await?, job, progress);
                    }
                    return Ok((listed.collector, listed.invalid, rv));
                }
                Some(t) if !seen.insert(t.clone()) => return Err(ListFailure::RepeatedContinue),
                Some(_) => {}
            }
        }
        return Err(ListFailure::TooManyPages);
    }
    Err(ListFailure::Expired)
}

/// What one list has read so far.
struct ListedSoFar {
    collector: Collector,
    invalid: Vec<Warning>,
    count: usize,
}

impl ListedSoFar {
    /// Adds a typed page after the pages before it and reports the progress.
    fn absorb(&mut self, page: TypedPage, job: &ListJob, progress: &(dyn Fn(&str) + Sync)) {
        self.collector.merge(page.collector);
        self.invalid.extend(page.invalid);
        self.count += page.items;
        let listed = self.count;
        match page.remaining {
            Some(rest) => progress(&format!(
                "listing {} ({listed} of {})",
                job.display(),
                listed as u64 + rest
            )),
            None => progress(&format!("listing {} ({listed})", job.display())),
        }
    }
}

/// One page's objects, typed.
struct TypedPage {
    collector: Collector,
    invalid: Vec<Warning>,
    items: usize,
    remaining: Option<u64>,
}

/// The answer of a page's typing thread.
async fn joined(
    handle: tokio::task::JoinHandle<Result<TypedPage, ListFailure>>,
) -> Result<TypedPage, ListFailure> {
    match handle.await {
        Ok(page) => page,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(_) => Err(ListFailure::Transport(
            "the page was dropped before it was read".to_owned(),
        )),
    }
}

/// A page's text, when it is UTF-8.
fn page_text(body: &[u8]) -> Result<&str, ListFailure> {
    std::str::from_utf8(body)
        .map_err(|_| ListFailure::Malformed("the body is not UTF-8".to_owned()))
}

/// A page as a list: its envelope, with its `items` left as text. A `Status` or a page
/// without `items` is a failure.
fn page_envelope(text: &str) -> Result<(Page<'_>, &serde_json::value::RawValue), ListFailure> {
    let page: Page<'_> = serde_json::from_str(text).map_err(|e| {
        ListFailure::Malformed(format!(
            "{} (at byte {} of {})",
            parse::strip_position(&e.to_string()),
            byte_offset(text, e.line(), e.column()),
            text.len()
        ))
    })?;
    if page.kind.as_deref() == Some("Status") {
        return Err(ListFailure::Malformed(format!(
            "the server answered 2xx with a `Status`{}",
            page.message.map(|m| format!(": {m}")).unwrap_or_default()
        )));
    }
    let Some(items) = page.items else {
        return Err(ListFailure::Malformed("no `items`".to_owned()));
    };
    Ok((page, items))
}

/// A page's `metadata` (its continue token), read before its objects are typed.
fn page_meta(body: &[u8]) -> Result<PageMeta, ListFailure> {
    let (page, _) = page_envelope(page_text(body)?)?;
    Ok(page.metadata.unwrap_or(PageMeta {
        continue_token: None,
        remaining_item_count: None,
        resource_version: None,
    }))
}

/// Types a page's objects into a collector of their own: objects that do not fit their type
/// become warnings; a page that is not a list of objects is a failure.
fn type_page(body: &[u8], api_version: &str, kind: &str) -> Result<TypedPage, ListFailure> {
    let (_, items) = page_envelope(page_text(body)?)?;
    let items: Vec<&serde_json::value::RawValue> = if items.get() == "null" {
        Vec::new()
    } else {
        serde_json::from_str(items.get())
            .map_err(|_| ListFailure::Malformed("`items` is not a list of objects".to_owned()))?
    };
    let mut collector = Collector::new();
    let mut invalid = Vec::new();
    for item in &items {
        match collector.add_item_json(api_version, kind, item.get()) {
            Ok(()) => {}
            Err(super::JsonError::Object(e)) => {
                invalid.push(Warning::new("InvalidObject", e.to_string()));
            }
            Err(super::JsonError::Syntax(e)) => {
                return Err(ListFailure::Malformed(parse::strip_position(
                    &e.to_string(),
                )));
            }
        }
    }
    Ok(TypedPage {
        collector,
        invalid,
        items: items.len(),
        remaining: None,
    })
}

/// The byte offset of a 1-based line and column in `text`.
fn byte_offset(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    start + column
}

/// True when `name` is a DNS label (RFC 1123: lowercase alphanumerics and `-`, at most 63),
/// which every resource name and API version is. Names from discovery that are not are never
/// put into a path.
fn is_dns_label(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 63
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
}

/// True when `group` is a DNS subdomain (dot-separated DNS labels, at most 253).
fn is_dns_subdomain(group: &str) -> bool {
    group.len() <= 253 && group.split('.').all(is_dns_label)
}

/// The last line of defence: no request path names `secrets` (in any group, any case, any
/// encoding), and every path is absolute and free of `..`, `%` and query tricks before `?`.
fn path_is_allowed(uri: &str) -> bool {
    let path = uri.split_once('?').map_or(uri, |(p, _)| p);
    path.starts_with('/')
        && !path.contains('%')
        && !path.contains("..")
        && !path
            .split('/')
            .any(|segment| segment.eq_ignore_ascii_case("secrets"))
}

/// Percent-encodes a query value (continue tokens are base64 and may hold `+`, `/`, `=`).
fn percent_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Parses `--request-timeout` as kubectl does: a bare integer is seconds, otherwise a
/// duration with units (`500ms`, `30s`, `2m`, `1h`, `1m30s`); `0` means no timeout.
pub(crate) fn parse_request_timeout(text: &str) -> Result<Option<Duration>, String> {
    let text = text.trim();
    let bad = || {
        format!(
            "`{text}` is not a duration: write a number of seconds or a value with a unit, e.g. `30s`, `2m`, `500ms`"
        )
    };
    if let Ok(seconds) = text.parse::<u64>() {
        return Ok((seconds > 0).then(|| Duration::from_secs(seconds)));
    }
    let mut total = Duration::ZERO;
    let mut rest = text;
    if rest.is_empty() {
        return Err(bad());
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(bad)?;
        let number: f64 = rest[..digits].parse().map_err(|_| bad())?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "ns" => 1e-9,
            "us" | "µs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return Err(bad()),
        };
        rest = &rest[unit_len..];
        let seconds = number * scale;
        if !seconds.is_finite() || seconds > 1e9 {
            return Err(bad());
        }
        total += Duration::from_secs_f64(seconds);
    }
    Ok((!total.is_zero()).then_some(total))
}

#[cfg(test)]
mod tests {

    #[test]
    fn kubeconfig_errors_name_file_line_and_field_but_never_content() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config");
        std::fs::write(
            &path,
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\n    insecure-skip-tls-verify: \"PLANTED-1\"\nusers:\n- name: u\n  user:\n    token: PLANTED-2\n    client-key-data: PLANTED-3\n    as-groups: PLANTED-4\n",
        )
        .unwrap();
        let e = read_kubeconfig(Some(&path)).unwrap_err();
        assert!(!e.contains("PLANTED"), "{e}");
        assert!(e.contains(&format!("`{}`:", path.display())), "{e}");
        assert!(
            e.contains(":7:") && e.contains("clusters.cluster.insecure-skip-tls-verify")
                || e.contains(":13:") && e.contains("users.user.as-groups"),
            "{e}"
        );
    }

    #[test]
    fn yaml_key_paths_follow_indentation_and_list_items() {
        let text =
            "users:\n- name: u\n  user:\n    token: x\n\n    # c\n    client-key-data: y\nk: v\n";
        assert_eq!(yaml_key_path(text, 4), "users.user.token");
        assert_eq!(yaml_key_path(text, 7), "users.user.client-key-data");
        assert_eq!(yaml_key_path(text, 2), "users.name");
        assert_eq!(yaml_key_path(text, 8), "k");
        assert_eq!(yaml_key_path(text, 0), "");
        assert_eq!(yaml_key_path(text, 99), "");
    }

    #[test]
    fn quoted_values_are_redacted() {
        assert_eq!(
            redact_quoted("invalid type: string \"s3cret\", expected a boolean"),
            "invalid type: string \"…\", expected a boolean"
        );
        assert_eq!(redact_quoted("unterminated `abc"), "unterminated `…");
    }
    use super::*;

    #[test]
    fn secrets_are_never_listed() {
        assert!(WANTED.iter().all(|w| w.plural != "secrets"));
    }

    #[test]
    fn paths_follow_the_api_layout() {
        let job = ListJob {
            group: "scheduling.k8s.io".into(),
            version: "v1beta1".into(),
            plural: "podgroups".into(),
            kind: "PodGroup".into(),
            namespaced: true,
        };
        assert_eq!(job.path(None), "/apis/scheduling.k8s.io/v1beta1/podgroups");
        assert_eq!(
            job.path(Some("ml")),
            "/apis/scheduling.k8s.io/v1beta1/namespaces/ml/podgroups"
        );
        let core = ListJob {
            group: String::new(),
            version: "v1".into(),
            plural: "pods".into(),
            kind: "Pod".into(),
            namespaced: true,
        };
        assert_eq!(core.path(None), "/api/v1/pods");
    }

    #[test]
    fn request_timeout_parses_like_kubectl() {
        let d = |s| parse_request_timeout(s).unwrap();
        assert_eq!(d("0"), None);
        assert_eq!(d("0s"), None);
        assert_eq!(d("5"), Some(Duration::from_secs(5)));
        assert_eq!(d("30s"), Some(Duration::from_secs(30)));
        assert_eq!(d("2m"), Some(Duration::from_secs(120)));
        assert_eq!(d("1m30s"), Some(Duration::from_secs(90)));
        assert_eq!(d("500ms"), Some(Duration::from_millis(500)));
        assert_eq!(d("1.5h"), Some(Duration::from_secs(5400)));
        for bad in ["", "s", "5x", "-1s", "1e400s", "abc"] {
            assert!(parse_request_timeout(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn discovery_names_must_be_dns_names_and_secrets_are_never_requested() {
        // See: issue 14 item 13.
        assert!(is_dns_label("podgroups") && is_dns_label("v1alpha3"));
        for bad in [
            "..%2F..%2Fapi%2Fv1%2Fsecrets",
            "a/b",
            "Pods",
            "-x",
            "",
            &"a".repeat(64),
        ] {
            assert!(!is_dns_label(bad), "{bad}");
        }
        assert!(is_dns_subdomain("scheduling.k8s.io") && !is_dns_subdomain("x/../y"));
        assert!(path_is_allowed("/api/v1/pods?limit=500&continue=abc%3D"));
        for bad in [
            "/api/v1/secrets",
            "/api/v1/namespaces/x/Secrets",
            "/apis/evil.example/v1/secrets?limit=1",
            "/apis/x/v1/..%2F..%2Fapi%2Fv1%2Fsecrets",
            "/apis/x/../api/v1/secrets",
            "api/v1/pods",
        ] {
            assert!(!path_is_allowed(bad), "{bad}");
        }
    }

    #[test]
    fn urls_lose_their_userinfo() {
        assert_eq!(
            without_userinfo("https://user:pass@evil.example:8443/api?x=1"),
            "https://evil.example:8443/api?x=1"
        );
        assert_eq!(without_userinfo("http://127.0.0.1:1"), "http://127.0.0.1:1");
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> http::HeaderMap {
        let mut h = http::HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, http::HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn answers_are_classified_by_status_content_type_and_body() {
        // See: issue 46 item 6 (a proxy's 502 page is not an RBAC problem).
        let html = headers(&[("content-type", "text/html")]);
        let page = classify(502, &html, b"<html><body>fake-token</body></html>".to_vec());
        assert!(matches!(
            page,
            Err(ListFailure::Page {
                code: 502,
                what: "an HTML page"
            })
        ));
        let reason = page.err().map(|e| e.reason()).unwrap_or_default();
        assert_eq!(
            reason,
            "the API server answered 502 Bad Gateway with an HTML page (a proxy or load balancer in front of it?)"
        );
        assert!(!reason.contains("fake-token"));
        let json = headers(&[("content-type", "application/json")]);
        let status = br#"{"kind":"Status","code":500,"message":"etcd down"}"#.to_vec();
        assert!(matches!(
            classify(500, &json, status),
            Err(ListFailure::Status { code: 500, ref message }) if message == "etcd down"
        ));
        assert!(matches!(
            classify(200, &html, b"<html>login</html>".to_vec()),
            Err(ListFailure::NotJson { code: 200, .. })
        ));
        let gzip = headers(&[("content-encoding", "gzip")]);
        assert!(matches!(
            classify(200, &gzip, vec![0x1f, 0x8b, 8]),
            Err(ListFailure::Encoded(ref e)) if e == "gzip"
        ));
        assert!(matches!(
            classify(200, &http::HeaderMap::new(), vec![0x1f, 0x8b, 8]),
            Err(ListFailure::Encoded(_))
        ));
        assert!(classify(200, &json, b"{\"items\":[]}".to_vec()).is_ok());
        assert!(matches!(
            classify(503, &http::HeaderMap::new(), Vec::new()),
            Err(ListFailure::Page {
                code: 503,
                what: "an empty body"
            })
        ));
    }

    #[test]
    fn hints_fit_the_failure_and_only_a_403_asks_for_list_permission() {
        let forbidden = unreadable_hint("forbidden", "pods");
        assert!(
            forbidden.contains("needs `list` on pods cluster-wide"),
            "{forbidden}"
        );
        for failure in [
            ListFailure::Page {
                code: 502,
                what: "an HTML page",
            },
            ListFailure::NotJson {
                code: 200,
                what: "an HTML page",
            },
            ListFailure::Encoded("gzip".to_owned()),
            ListFailure::Malformed("EOF while parsing".to_owned()),
            ListFailure::Status {
                code: 500,
                message: String::new(),
            },
            ListFailure::Timeout(Duration::from_secs(5)),
            ListFailure::Throttled {
                code: 429,
                after: Duration::from_secs(120),
                limit: Some(Duration::from_secs(5)),
            },
            ListFailure::Redirect {
                code: 302,
                location: "https://sso.example/".to_owned(),
            },
        ] {
            let hint = unreadable_hint(&failure.reason(), "pods");
            assert!(!hint.contains("needs `list`"), "{failure:?}: {hint}");
        }
        assert_eq!(
            ListFailure::Throttled {
                code: 429,
                after: Duration::from_secs(120),
                limit: Some(Duration::from_secs(5)),
            }
            .reason(),
            "the API server asked to retry after 120s, longer than --request-timeout 5s (429 Too Many Requests)"
        );
    }

    #[test]
    fn continue_tokens_are_encoded() {
        assert_eq!(percent_encode("eyJ2+/="), "eyJ2%2B%2F%3D");
    }
}
