//! Live mode: read a cluster through the kube client, like kubectl does.
//!
//! Kubeconfig discovery follows kubectl (`--kubeconfig`, `KUBECONFIG`, `~/.kube/config`,
//! `--context`, in-cluster config). API discovery runs first; then every resource wasctl needs
//! is listed in parallel with pagination (`limit`/`continue`). A resource the server does not
//! serve (404) or forbids (403) becomes a [`Warning`] in the snapshot, never an error.
//! Facts come from `/version`, kube-apiserver `/metrics` (`kubernetes_feature_enabled`) and
//! discovery. Read-only: only GET requests are sent, and Secrets are never read.

use std::collections::BTreeMap;
use std::path::PathBuf;

use futures::future::join_all;
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};
use serde_json::Value;

use super::Collector;
use crate::snapshot::facts::{Component, ComponentFacts, parse_feature_metrics};
use crate::snapshot::{KindCoverage, Snapshot, Warning};

/// Page size of list requests (kubectl uses 500 too).
pub const PAGE_SIZE: usize = 500;

/// How to reach the cluster.
#[derive(Debug, Clone, Default)]
pub struct LiveOptions {
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
}

/// Reads the kubeconfig as kubectl does: `--kubeconfig`; else every file named by
/// `KUBECONFIG` that exists, merged (missing ones are skipped); else `~/.kube/config`.
/// `Ok(None)` when there is none at all.
fn read_kubeconfig(explicit: Option<&PathBuf>) -> Result<Option<Kubeconfig>, String> {
    if let Some(path) = explicit {
        return Kubeconfig::read_from(path)
            .map(Some)
            .map_err(|e| format!("`{}`: {e}", path.display()));
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
        let next = Kubeconfig::read_from(path).map_err(|e| format!("`{}`: {e}", path.display()))?;
        merged = Some(match merged {
            None => next,
            Some(m) => m
                .merge(next)
                .map_err(|e| format!("`{}`: {e}", path.display()))?,
        });
    }
    Ok(merged)
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
    /// The async runtime could not start.
    #[error("cannot start the async runtime")]
    Runtime(#[source] std::io::Error),
}

impl AccessError {
    /// A suggestion for the user.
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            Self::Config { .. } => "pass `--kubeconfig FILE` or set `KUBECONFIG`; or read files with `--from PATH`, or try `--demo`".to_owned(),
            Self::Unreachable { .. } => "check `kubectl cluster-info` and `--context`; or read files with `--from PATH`, or try `--demo`".to_owned(),
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
    optional("jobset.x-k8s.io", "", "jobsets", "JobSet"),
    optional(
        "leaderworkerset.x-k8s.io",
        "",
        "leaderworkersets",
        "LeaderWorkerSet",
    ),
    optional("kueue.x-k8s.io", "", "workloads", "Workload"),
    optional("scheduling.volcano.sh", "", "podgroups", "PodGroup"),
    // Owners of LeaderWorkerSet and serving pods; named in the tree's owner chains.
    optional("apps", "v1", "statefulsets", "StatefulSet"),
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
pub fn load(
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
    if let Some(user) = &options.impersonate {
        config.auth_info.impersonate = Some(user.clone());
    }
    if !options.impersonate_groups.is_empty() {
        config.auth_info.impersonate_groups = Some(options.impersonate_groups.clone());
    }
    let server = config.cluster_url.to_string();
    let namespace = config.default_namespace.clone();
    let client = Client::try_from(config).map_err(|source| AccessError::Unreachable {
        server: server.clone(),
        source,
    })?;
    Ok((client, server, namespace))
}

fn status_code(e: &kube::Error) -> Option<u16> {
    match e {
        kube::Error::Api(status) => Some(status.code),
        _ => None,
    }
}

async fn load_async(
    options: &LiveOptions,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Snapshot, AccessError> {
    let (client, server, default_namespace) = client_for(options).await?;
    let unreachable = |source| AccessError::Unreachable {
        server: server.clone(),
        source,
    };
    progress("discovering APIs");
    let groups = client.list_api_groups().await.map_err(unreachable)?;
    let mut collector = Collector::new();
    let mut served: BTreeMap<String, (Vec<String>, String)> = BTreeMap::new();
    served.insert(String::new(), (vec!["v1".to_owned()], "v1".to_owned()));
    for g in &groups.groups {
        let versions: Vec<String> = g.versions.iter().map(|v| v.version.clone()).collect();
        let preferred = g
            .preferred_version
            .as_ref()
            .map(|p| p.version.clone())
            .or_else(|| versions.first().cloned())
            .unwrap_or_default();
        served.insert(g.name.clone(), (versions, preferred));
    }
    let mut facts = crate::snapshot::ClusterFacts::default();
    for group in FACT_GROUPS {
        if let Some((versions, _)) = served.get(*group) {
            facts
                .served_versions
                .insert((*group).to_owned(), versions.clone());
        }
    }

    // Decide what to list. Resource lists per group/version confirm the plural is served.
    let mut resource_lists: BTreeMap<String, Option<Vec<String>>> = BTreeMap::new();
    let mut jobs = Vec::new();
    let mut warnings = Vec::new();
    for w in WANTED {
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
            continue;
        };
        let version = if w.version.is_empty() {
            preferred.clone()
        } else if versions.iter().any(|v| v == w.version) {
            w.version.to_owned()
        } else if w.group == "scheduling.k8s.io"
            && w.version == "v1beta1"
            && versions.iter().any(|v| v == "v1alpha3")
        {
            // A cluster serving only the alpha line: read it and convert.
            "v1alpha3".to_owned()
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
            continue;
        };
        let gv = if w.group.is_empty() {
            version.clone()
        } else {
            format!("{}/{version}", w.group)
        };
        if !resource_lists.contains_key(&gv) {
            let list = if w.group.is_empty() {
                client.list_core_api_resources(&version).await
            } else {
                client.list_api_group_resources(&gv).await
            };
            resource_lists.insert(
                gv.clone(),
                list.ok()
                    .map(|l| l.resources.into_iter().map(|r| r.name).collect()),
            );
        }
        let Some(names) = resource_lists.get(&gv).and_then(Option::as_ref) else {
            // Discovery of the group version failed: whether the kind exists is unknown.
            facts.coverage.insert(
                w.kind.to_owned(),
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
    // Stale scheduling.k8s.io versions: read every resource they serve, for doctor and lint.
    if let Some((versions, _)) = served.get("scheduling.k8s.io") {
        for version in versions
            .iter()
            .filter(|v| matches!(v.as_str(), "v1alpha1" | "v1alpha2"))
        {
            let gv = format!("scheduling.k8s.io/{version}");
            if let Ok(list) = client.list_api_group_resources(&gv).await {
                for r in list.resources.iter().filter(|r| !r.name.contains('/')) {
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

    let results = join_all(
        jobs.iter()
            .map(|job| list_all(&client, job, options.namespace.as_deref(), progress)),
    )
    .await;
    for (job, result) in jobs.iter().zip(results) {
        match result {
            Ok((items, note)) => {
                if let Some((note, namespace)) = note {
                    warnings.push(note);
                    facts
                        .coverage
                        .insert(job.kind.clone(), KindCoverage::Namespace { namespace });
                }
                for item in items {
                    if let Err(e) = collector.add(item) {
                        warnings.push(Warning::new(
                            "InvalidObject",
                            format!(
                                "{}: {}{}",
                                e.object,
                                e.field
                                    .map(|f| format!("field `{f}`: "))
                                    .unwrap_or_default(),
                                e.message
                            ),
                        ));
                    }
                }
            }
            Err(e) => {
                let reason = match status_code(&e) {
                    Some(403) => "forbidden".to_owned(),
                    Some(code) => format!("HTTP {code}"),
                    None => "the list failed".to_owned(),
                };
                facts
                    .coverage
                    .insert(job.kind.clone(), KindCoverage::Unreadable { reason });
                warnings.push(list_warning(job, &e));
            }
        }
    }

    progress("reading /version and /metrics");
    match client.apiserver_version().await {
        Ok(info) => facts.server_version = Some(info.git_version),
        Err(e) => warnings.push(Warning::new(
            "VersionUnavailable",
            format!("cannot read `/version`: {e}"),
        )),
    }
    let metrics = http::Request::get("/metrics").body(Vec::new());
    match metrics {
        Ok(request) => match client.request_text(request).await {
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
                let why = match status_code(&e) {
                    Some(403) => "forbidden".to_owned(),
                    _ => e.to_string(),
                };
                warnings.push(Warning::new(
                    "MetricsUnavailable",
                    format!("cannot read kube-apiserver `/metrics` ({why}): feature gates come from static pods or assumptions"),
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
        },
        Err(e) => warnings.push(Warning::new("MetricsUnavailable", e.to_string())),
    }
    // "Now" is the server's clock (the `Date` of its answer), so that ages agree with what
    // the cluster sees; the local clock only when the server sends no usable `Date`.
    match server_time(&client).await {
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
    collector.merge_facts(facts);
    for w in warnings {
        collector.warn(w);
    }
    let mut snapshot = collector.finish();
    snapshot.default_namespace = Some(default_namespace);
    Ok(snapshot)
}

/// The server's clock: the `Date` header of a `/version` answer (RFC 9110 IMF-fixdate, which
/// RFC 2822 parsing accepts).
async fn server_time(client: &Client) -> Option<k8s_openapi::jiff::Timestamp> {
    let request = http::Request::get("/version")
        .body(kube::client::Body::from(Vec::new()))
        .ok()?;
    let response = client.send(request).await.ok()?;
    let date = response.headers().get(http::header::DATE)?.to_str().ok()?;
    k8s_openapi::jiff::fmt::rfc2822::DateTimeParser::new()
        .parse_timestamp(date)
        .ok()
}

fn display_group(group: &str) -> &str {
    if group.is_empty() { "core" } else { group }
}

fn list_warning(job: &ListJob, e: &kube::Error) -> Warning {
    match status_code(e) {
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
            format!("listing `{}` failed: {e}", job.display()),
        ),
    }
}

/// Lists every page of one resource. When a cluster-wide list of a namespaced resource is
/// forbidden and a namespace is known, lists that namespace instead and says so.
async fn list_all(
    client: &Client,
    job: &ListJob,
    namespace: Option<&str>,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<(Vec<Value>, Option<(Warning, String)>), kube::Error> {
    match list_pages(client, job, None, progress).await {
        Ok(items) => Ok((items, None)),
        Err(e) if status_code(&e) == Some(403) && job.namespaced && namespace.is_some() => {
            let ns = namespace.unwrap_or_default();
            let items = list_pages(client, job, Some(ns), progress).await?;
            let note = Warning::new(
                "Forbidden",
                format!(
                    "listing `{}` in all namespaces is forbidden: read namespace `{ns}` only",
                    job.display()
                ),
            );
            Ok((items, Some((note, ns.to_owned()))))
        }
        Err(e) => Err(e),
    }
}

async fn list_pages(
    client: &Client,
    job: &ListJob,
    namespace: Option<&str>,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Vec<Value>, kube::Error> {
    let path = job.path(namespace);
    let api_version = job.api_version();
    let mut items = Vec::new();
    let mut token: Option<String> = None;
    // A server that keeps returning continue tokens forever is cut off after this many pages.
    for _ in 0..100_000 {
        let mut uri = format!("{path}?limit={PAGE_SIZE}");
        if let Some(t) = &token {
            uri.push_str("&continue=");
            uri.push_str(&percent_encode(t));
        }
        let request = http::Request::get(uri)
            .body(Vec::new())
            .map_err(kube::Error::HttpError)?;
        let mut page: Value = client.request(request).await?;
        if let Some(Value::Array(list)) = page.get_mut("items").map(Value::take) {
            for mut item in list {
                if let Some(obj) = item.as_object_mut() {
                    obj.insert("apiVersion".to_owned(), Value::from(api_version.clone()));
                    obj.insert("kind".to_owned(), Value::from(job.kind.clone()));
                }
                items.push(item);
            }
        }
        progress(&format!("listing {} ({})", job.display(), items.len()));
        token = page
            .get("metadata")
            .and_then(|m| m.get("continue"))
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .map(str::to_owned);
        if token.is_none() {
            break;
        }
    }
    Ok(items)
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

#[cfg(test)]
mod tests {
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
    fn continue_tokens_are_encoded() {
        assert_eq!(percent_encode("eyJ2+/="), "eyJ2%2B%2F%3D");
    }
}
