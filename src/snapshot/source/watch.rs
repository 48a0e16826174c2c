//! Keeping a live snapshot current by WATCH: the pure part.
//!
//! Live mode lists every resource once (paged, [`super::live`]); with `--watch` it then
//! watches each resource from its list's `resourceVersion`, with bookmarks, as client-go's
//! reflector does (`k8s.io/client-go/tools/cache/reflector.go`: `ListAndWatch`, `watchHandler`)
//! — but into the snapshot's compact, pruned records, not a cache of full objects. This module
//! holds what can be decided without IO:
//!
//! - [`parse_line`]: one line of a watch stream (`{"type": …, "object": …}`);
//! - [`Follow`]: the state machine of one resource's watch: the version to resume from, what
//!   to do when a stream ends, breaks, is refused or reports `410 Gone` (re-list that resource
//!   only), the backoff between attempts and when the API server counts as lost;
//! - [`apply`] / [`replace_kind`]: an event's object typed as the loader types it and
//!   upserted into (or deleted from) the snapshot's sorted lists by namespace and name, with
//!   what changed in words ("pod ml/w-3 deleted", "node gpu-7 cordoned"), or nothing when the
//!   kept record is the same (a status heartbeat).
//!
//! The tokio/kube edge that opens the streams is in [`super::live`]. [`apply`] keeps the
//! snapshot's index current per event, in place (O(the object's entries), see
//! [`crate::snapshot::index`]); after a batch of events the caller refreshes the rest of
//! what is derived from the objects ([`Snapshot::after_objects_changed`]), from what the
//! events noted in [`Snapshot::pending`], not from every object.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde_json::value::RawValue;

use super::{Collector, JsonError};
use crate::snapshot::Snapshot;
use crate::snapshot::index::{At, Index, Indexed};

/// One line of a watch stream, as kube-apiserver writes it
/// (`k8s.io/apimachinery/pkg/apis/meta/v1/watch.go`, `WatchEvent`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Line<'a> {
    /// `ADDED` or `MODIFIED` (`deleted: false`), `DELETED` (`deleted: true`): the object as
    /// text, and its `metadata.resourceVersion`.
    Object {
        /// True for `DELETED` (the object is its last state).
        deleted: bool,
        /// The object's `metadata.resourceVersion`, the version to resume from after it.
        rv: Option<String>,
        /// The object, as JSON text.
        object: &'a str,
    },
    /// `BOOKMARK`: nothing changed up to `rv` (`allowWatchBookmarks`).
    Bookmark {
        /// The version to resume from.
        rv: String,
    },
    /// `ERROR`: a `Status` (code 410: the version asked for is too old).
    Error {
        /// The `Status`'s `code`.
        code: u16,
        /// Its `message`.
        message: String,
    },
}

#[derive(serde::Deserialize)]
struct RawLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    object: &'a RawValue,
}

#[derive(serde::Deserialize, Default)]
struct Head {
    #[serde(default)]
    metadata: HeadMeta,
    code: Option<u16>,
    message: Option<String>,
}

#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct HeadMeta {
    resource_version: Option<String>,
}

/// Parses one line of a watch stream; `Err` says what is wrong with it.
pub(crate) fn parse_line(line: &str) -> Result<Line<'_>, String> {
    let raw: RawLine<'_> = serde_json::from_str(line).map_err(|e| {
        format!(
            "not a watch event: {}",
            super::parse::strip_position(&e.to_string())
        )
    })?;
    let object = raw.object.get();
    let head: Head = serde_json::from_str(object).map_err(|e| {
        format!(
            "the event's object is not an object: {}",
            super::parse::strip_position(&e.to_string())
        )
    })?;
    let rv = head.metadata.resource_version.filter(|v| !v.is_empty());
    Ok(match raw.kind.as_ref() {
        "ADDED" | "MODIFIED" => Line::Object {
            deleted: false,
            rv,
            object,
        },
        "DELETED" => Line::Object {
            deleted: true,
            rv,
            object,
        },
        "BOOKMARK" => Line::Bookmark {
            rv: rv.ok_or("a BOOKMARK without `metadata.resourceVersion`")?,
        },
        "ERROR" => Line::Error {
            code: head.code.unwrap_or(500),
            message: head.message.unwrap_or_default(),
        },
        other => return Err(format!("unknown watch event type `{other}`")),
    })
}

/// How one watch request ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ended {
    /// The server ended the stream (its `timeoutSeconds`, a restart announced).
    Closed,
    /// The stream broke (connection reset, cut mid-chunk) or stayed silent past the idle
    /// limit (stalled): what happened, in words.
    Broken(String),
    /// The watch request was answered with an error status.
    Refused {
        /// The HTTP status.
        code: u16,
        /// The `Status` message.
        message: String,
    },
    /// No answer at all (connection refused, no route, TLS failure): what happened.
    Unreachable(String),
}

/// What to do next for one resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Next {
    /// Watch again from [`Follow::rv`], after waiting this long (zero: at once).
    Watch(Duration),
    /// List the resource again (its version expired: `410 Gone`), then watch from the new
    /// list's version ([`Follow::listed`]).
    Relist,
    /// Stop watching this resource; the snapshot keeps what it has of it, with this warning
    /// (forbidden, no longer served).
    Stop(String),
    /// The API server is lost: it did not answer this many times in a row.
    Lost(String),
}

/// The first wait after a failure; doubled per failure in a row, up to [`MAX_BACKOFF`]
/// (client-go's reflector backs off from 800 ms to 30 s; wasctl watches a command's few
/// resources and retries sooner).
pub(crate) const FIRST_BACKOFF: Duration = Duration::from_millis(250);
/// The longest wait between two attempts.
pub(crate) const MAX_BACKOFF: Duration = Duration::from_secs(8);
/// Attempts in a row without an answer after which the API server counts as lost (the waits
/// between them add up to about 8 s).
pub(crate) const MAX_UNANSWERED: u32 = 6;

/// One resource's watch: where to resume, and how many attempts failed in a row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Follow {
    /// The resourceVersion to watch from: the list's, then each event's and bookmark's.
    pub(crate) rv: String,
    /// Failed attempts in a row (any kind), for the backoff.
    failures: u32,
    /// Attempts in a row that got no answer at all, for [`Next::Lost`].
    unanswered: u32,
    /// Lines read since the current request was opened.
    lines: u64,
}

impl Follow {
    /// Starts from a list's resourceVersion.
    pub(crate) fn new(rv: impl Into<String>) -> Self {
        Self {
            rv: rv.into(),
            failures: 0,
            unanswered: 0,
            lines: 0,
        }
    }

    /// A new watch request is being opened.
    pub(crate) fn opening(&mut self) {
        self.lines = 0;
    }

    /// One line was read. An object or bookmark moves the version on (and the stream is
    /// healthy again); an `ERROR` ends this request with what to do next.
    pub(crate) fn line(&mut self, line: &Line<'_>) -> Option<Next> {
        self.lines += 1;
        match line {
            Line::Object { rv, .. } => {
                if let Some(rv) = rv {
                    self.rv.clone_from(rv);
                }
                self.healthy();
                None
            }
            Line::Bookmark { rv } => {
                self.rv.clone_from(rv);
                self.healthy();
                None
            }
            // `410 Gone` (`Expired`): the version is older than what the server keeps; the
            // reflector lists again (`isExpiredError`).
            Line::Error { code: 410, .. } => Some(Next::Relist),
            Line::Error { .. } => Some(self.backoff()),
        }
    }

    /// The request ended: what to do next.
    pub(crate) fn ended(&mut self, ended: &Ended) -> Next {
        match ended {
            // A stream that ends after serving lines (its `timeoutSeconds`) is renewed at
            // once; one that ends without a line, again and again, is backed off.
            Ended::Closed if self.lines > 0 => Next::Watch(Duration::ZERO),
            Ended::Closed | Ended::Broken(_) => {
                self.unanswered = 0;
                self.backoff()
            }
            Ended::Refused { code: 410, .. } => Next::Relist,
            Ended::Refused { code: 403, .. } => Next::Stop(
                "watching it is forbidden (RBAC grants `list` but not `watch`): its changes are not seen".to_owned(),
            ),
            Ended::Refused { code: 404, .. } => Next::Stop(
                "the server no longer serves it: its changes are not seen".to_owned(),
            ),
            Ended::Refused { code: 401, .. } => Next::Lost(
                "the API server rejected the credentials (401 Unauthorized): they may have expired".to_owned(),
            ),
            Ended::Refused { .. } => {
                self.unanswered = 0;
                self.backoff()
            }
            Ended::Unreachable(why) => {
                self.unanswered += 1;
                if self.unanswered >= MAX_UNANSWERED {
                    return Next::Lost(format!(
                        "no answer {} times in a row ({why})",
                        self.unanswered
                    ));
                }
                self.backoff()
            }
        }
    }

    /// The resource was listed again at `rv`: watch from there at once.
    pub(crate) fn listed(&mut self, rv: impl Into<String>) {
        self.rv = rv.into();
        self.healthy();
    }

    /// Failed attempts in a row (0: the stream is healthy), as the status line counts them.
    pub(crate) fn failures(&self) -> u32 {
        self.failures
    }

    fn healthy(&mut self) {
        self.failures = 0;
        self.unanswered = 0;
    }

    fn backoff(&mut self) -> Next {
        let wait = FIRST_BACKOFF
            .saturating_mul(1u32 << self.failures.min(16))
            .min(MAX_BACKOFF);
        self.failures = self.failures.saturating_add(1);
        Next::Watch(wait)
    }
}

/// How long events are gathered after the first of a batch before the result is made again
/// (`--watch`'s lines, the TUI's views).
pub(crate) const COALESCE: Duration = Duration::from_millis(200);

/// Moves the snapshot's "now" on with the local clock: the server's time at the list
/// (`listed_at`) plus the time since (`started`, the local instant of the list).
pub(crate) fn advance_clock(
    snapshot: &mut Snapshot,
    listed_at: k8s_openapi::jiff::Timestamp,
    started: std::time::Instant,
) {
    let elapsed = k8s_openapi::jiff::SignedDuration::try_from(started.elapsed())
        .unwrap_or(k8s_openapi::jiff::SignedDuration::ZERO);
    if let Ok(now) = listed_at.checked_add(elapsed) {
        snapshot.facts.snapshot_time =
            Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(now));
    }
}

/// What an event did to the snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Applied {
    /// The object changed what the snapshot keeps: this, in words.
    Changed(String),
    /// Nothing wasctl keeps changed (a heartbeat, a field pruned on load), or the kind is
    /// not one wasctl keeps.
    Same,
}

/// The key a list is sorted by.
fn key(m: &ObjectMeta) -> (&str, &str) {
    (
        m.namespace.as_deref().unwrap_or(""),
        m.name.as_deref().unwrap_or(""),
    )
}

/// `namespace/name`, or `name` for a cluster-scoped object.
fn who(m: &ObjectMeta) -> String {
    match key(m) {
        ("", name) => name.to_owned(),
        (ns, name) => format!("{ns}/{name}"),
    }
}

/// What happened to one list's record, and where in the list.
enum Upserted<T> {
    Added(usize),
    Replaced(usize, T),
    Deleted(usize, T),
    Same,
    Unknown,
}

/// Puts `o` into the sorted `list` in place of the record of the same namespace and name
/// (or removes that record, `deleted`). A record that differs only in its
/// `metadata.resourceVersion` (a status heartbeat, a field the loader prunes) is the same:
/// the stored one stays (it may be shared with an earlier result).
fn upsert<T: PartialEq>(
    list: &mut Vec<T>,
    mut o: T,
    meta: impl Fn(&T) -> &ObjectMeta,
    meta_mut: impl Fn(&mut T) -> &mut ObjectMeta,
    deleted: bool,
) -> Upserted<T> {
    let at = list.binary_search_by(|x| key(meta(x)).cmp(&key(meta(&o))));
    match (at, deleted) {
        (Ok(i), true) => Upserted::Deleted(i, list.remove(i)),
        (Err(_), true) => Upserted::Unknown,
        (Ok(i), false) => {
            let rv = std::mem::replace(
                &mut meta_mut(&mut o).resource_version,
                meta(&list[i]).resource_version.clone(),
            );
            if list[i] == o {
                return Upserted::Same;
            }
            meta_mut(&mut o).resource_version = rv;
            Upserted::Replaced(i, std::mem::replace(&mut list[i], o))
        }
        (Err(i), false) => {
            list.insert(i, o);
            Upserted::Added(i)
        }
    }
}

/// Updates the index of the snapshot's list `name` (`list`, as it is after the change) for
/// what [`upsert`] did: the record's own entries, and the positions after it when it was
/// added or removed (see [`Index::changed`]).
fn reindex<T: Indexed>(ix: &mut Index, name: &str, list: &[T], u: &Upserted<T>) {
    match u {
        Upserted::Added(i) => ix.changed(name, list, At::Added(*i)),
        Upserted::Replaced(i, old) => ix.changed(name, list, At::Replaced(*i, old)),
        Upserted::Deleted(i, old) => ix.changed(name, list, At::Deleted(*i, old)),
        Upserted::Same | Upserted::Unknown => {}
    }
}

/// Whether [`upsert`] changed the list.
fn is_change<T>(u: &Upserted<T>) -> bool {
    !matches!(u, Upserted::Same | Upserted::Unknown)
}

/// The words for a generic change of an object of `kind` (`podgroup ml/train created`).
fn generic<T>(kind: &str, name: &str, u: &Upserted<T>) -> Applied {
    let kind = kind.to_ascii_lowercase();
    match u {
        Upserted::Added(_) => Applied::Changed(format!("{kind} {name} created")),
        Upserted::Replaced(..) => Applied::Changed(format!("{kind} {name} changed")),
        Upserted::Deleted(..) => Applied::Changed(format!("{kind} {name} deleted")),
        Upserted::Same | Upserted::Unknown => Applied::Same,
    }
}

/// Applies one event's object (`deleted`: a `DELETED` event) of `kind` at `api_version` (as
/// listed) to `s`: typed and pruned as the loader does it, then upserted or removed by
/// namespace and name, and the snapshot's index updated in place for it (O(the object's
/// entries), plus a shift of the positions after it when it was added or removed). What
/// else is derived from the objects (the gates inferred from them, Volcano's and YuniKorn's
/// gangs, the components' facts) is noted in [`Snapshot::pending`] and refreshed by
/// [`Snapshot::after_objects_changed`], once per batch. `Err`: the object does not fit its
/// type (the loader's words), and the snapshot is unchanged.
pub(crate) fn apply(
    s: &mut Snapshot,
    api_version: &str,
    kind: &str,
    object: &str,
    deleted: bool,
) -> Result<Applied, String> {
    let mut new = decode_one(api_version, kind, object)?;
    for (k, v) in std::mem::take(&mut new.read_as) {
        s.pending.evidence = true;
        if deleted {
            s.read_as.remove(&k);
        } else {
            s.read_as.insert(k, v);
        }
    }
    if let Some(n) = new.nodes.pop() {
        return Ok(apply_node(s, n, deleted));
    }
    if let Some(p) = new.pods.pop() {
        return Ok(apply_pod(s, p, deleted));
    }
    if let Some(c) = new.resource_claims.pop() {
        return Ok(apply_claim(s, c, deleted));
    }
    if let Some(j) = new.jobs.pop() {
        let name = who(&j.metadata);
        let u = upsert(
            &mut s.jobs,
            j,
            |j| &j.metadata,
            |j| &mut Arc::make_mut(j).metadata,
            deleted,
        );
        reindex(&mut s.index, "jobs", &s.jobs, &u);
        s.pending.evidence |= is_change(&u);
        return Ok(generic("Job", &name, &u));
    }
    if !new.kueue.is_empty() {
        // Few objects: the lists are sorted again whole.
        if deleted {
            s.kueue.remove_same(&new.kueue);
        } else {
            s.kueue.extend(std::mem::take(&mut new.kueue));
            s.kueue.sort_and_dedup();
        }
    }
    // Every other list of `object_lists!` (nodes, pods, claims and Jobs were taken above:
    // pods and Jobs are shared `Arc`s, changed by `Arc::make_mut`), so that a list added
    // there is followed by watch events too.
    macro_rules! rest {
        ($($field:ident),* $(,)?) => { $( rest!(@one $field); )* };
        (@one nodes) => {};
        (@one pods) => {};
        (@one resource_claims) => {};
        (@one jobs) => {};
        (@one $field:ident) => {
            if let Some(o) = new.$field.pop() {
                let name = who(&o.metadata);
                let u = upsert(&mut s.$field, o, |o| &o.metadata, |o| &mut o.metadata, deleted);
                reindex(&mut s.index, stringify!($field), &s.$field, &u);
                if is_change(&u) {
                    s.pending.note_list(stringify!($field));
                }
                return Ok(generic(kind, &name, &u));
            }
        };
    }
    crate::snapshot::object_lists!(rest);
    Ok(Applied::Same)
}

/// One event's object, typed and pruned as the loader does it, alone in a snapshot.
fn decode_one(api_version: &str, kind: &str, object: &str) -> Result<Snapshot, String> {
    let mut one = Collector::new();
    one.add_item_json(api_version, kind, object)
        .map_err(|e| match e {
            JsonError::Object(e) => e.to_string(),
            JsonError::Syntax(e) => super::parse::strip_position(&e.to_string()),
        })?;
    Ok(one.snapshot)
}

/// A node event: added, removed, cordoned or uncordoned, or changed.
fn apply_node(s: &mut Snapshot, n: k8s_openapi::api::core::v1::Node, deleted: bool) -> Applied {
    let name = who(&n.metadata);
    let cordoned = |n: &k8s_openapi::api::core::v1::Node| {
        n.spec
            .as_ref()
            .and_then(|s| s.unschedulable)
            .unwrap_or(false)
    };
    let now = cordoned(&n);
    let u = upsert(
        &mut s.nodes,
        n,
        |n| &n.metadata,
        |n| &mut n.metadata,
        deleted,
    );
    reindex(&mut s.index, "nodes", &s.nodes, &u);
    if matches!(u, Upserted::Added(_) | Upserted::Replaced(..)) {
        s.pending.nodes.push(name.clone());
    }
    match u {
        Upserted::Added(_) => Applied::Changed(format!("node {name} added")),
        Upserted::Deleted(..) => Applied::Changed(format!("node {name} removed")),
        Upserted::Replaced(_, old) if cordoned(&old) != now => Applied::Changed(format!(
            "node {name} {}",
            if now { "cordoned" } else { "uncordoned" }
        )),
        Upserted::Replaced(..) => Applied::Changed(format!("node {name} changed")),
        Upserted::Same | Upserted::Unknown => Applied::Same,
    }
}

/// A pod event: created (on a node), deleted, bound, finished, or changed.
fn apply_pod(s: &mut Snapshot, p: Arc<crate::snapshot::Pod>, deleted: bool) -> Applied {
    let name = who(&p.metadata);
    let node = |p: &crate::snapshot::Pod| p.spec.as_ref().and_then(|s| s.node_name.clone());
    let phase = |p: &crate::snapshot::Pod| p.status.as_ref().and_then(|s| s.phase.clone());
    let (now_node, now_phase) = (node(&p), phase(&p));
    let u = upsert(
        &mut s.pods,
        p,
        |p| &p.metadata,
        |p| &mut Arc::make_mut(p).metadata,
        deleted,
    );
    reindex(&mut s.index, "pods", &s.pods, &u);
    // The stored pod (not a second `Arc` of it: `upsert`'s `Arc::make_mut` would copy it).
    let new = match &u {
        Upserted::Added(i) | Upserted::Replaced(i, _) => s.pods.get(*i),
        _ => None,
    };
    s.pending.note_pod(&mut s.yunikorn, new.map(|p| &**p), &u);
    match u {
        Upserted::Added(_) => Applied::Changed(match &now_node {
            Some(n) => format!("pod {name} created on node {n}"),
            None => format!("pod {name} created"),
        }),
        Upserted::Deleted(..) => Applied::Changed(format!("pod {name} deleted")),
        Upserted::Replaced(_, old) => {
            Applied::Changed(match (node(&old), &now_node, now_phase.as_deref()) {
                (None, Some(n), _) => format!("pod {name} bound to node {n}"),
                (_, _, Some(p @ ("Succeeded" | "Failed"))) if phase(&old).as_deref() != Some(p) => {
                    format!("pod {name} {}", p.to_ascii_lowercase())
                }
                _ => format!("pod {name} changed"),
            })
        }
        Upserted::Same | Upserted::Unknown => Applied::Same,
    }
}

impl crate::snapshot::Pending {
    /// Notes what a pod event changes beyond the index: the components' facts (a pod of
    /// `kube-system`), YuniKorn's gangs (gathered again when the pod is one of theirs;
    /// otherwise their positions move with an added or removed pod), and the gates' pod
    /// evidence.
    fn note_pod(
        &mut self,
        gangs: &mut [crate::snapshot::yunikorn::Gang],
        present: Option<&crate::snapshot::Pod>,
        u: &Upserted<Arc<crate::snapshot::Pod>>,
    ) {
        use crate::snapshot::yunikorn;
        let old = match u {
            Upserted::Replaced(_, old) | Upserted::Deleted(_, old) => Some(&**old),
            Upserted::Added(_) => None,
            Upserted::Same | Upserted::Unknown => return,
        };
        if let Some(p) = present.filter(|p| p.metadata.namespace.as_deref() == Some("kube-system"))
        {
            self.kube_system_pods.push(who(&p.metadata));
        }
        let of = crate::snapshot::index::PodEvidence::of;
        if old.map(of).unwrap_or_default() != present.map(of).unwrap_or_default() {
            self.evidence = true;
        }
        let theirs = |p: Option<&crate::snapshot::Pod>| {
            p.is_some_and(|p| yunikorn::app_id(&p.metadata).is_some())
        };
        if theirs(old) || theirs(present) {
            self.yunikorn = true;
        } else if let Upserted::Added(i) | Upserted::Deleted(i, _) = u {
            yunikorn::shift(gangs, *i, matches!(u, Upserted::Added(_)));
        }
    }
}

/// A ResourceClaim event: allocated or deallocated, else a generic change.
fn apply_claim(
    s: &mut Snapshot,
    c: k8s_openapi::api::resource::v1::ResourceClaim,
    deleted: bool,
) -> Applied {
    let name = who(&c.metadata);
    let allocated = |c: &k8s_openapi::api::resource::v1::ResourceClaim| {
        c.status.as_ref().is_some_and(|s| s.allocation.is_some())
    };
    let now = allocated(&c);
    let u = upsert(
        &mut s.resource_claims,
        c,
        |c| &c.metadata,
        |c| &mut c.metadata,
        deleted,
    );
    reindex(&mut s.index, "resource_claims", &s.resource_claims, &u);
    match u {
        Upserted::Replaced(_, old) if allocated(&old) != now => Applied::Changed(format!(
            "resourceclaim {name} {}",
            if now { "allocated" } else { "deallocated" }
        )),
        other => generic("ResourceClaim", &name, &other),
    }
}

/// Replaces every object of `kind` in `group` with `listed` (a re-list after `410 Gone`):
/// what the watch missed in between is then in the snapshot. The lists stay sorted. Returns
/// what changed, in the words of [`apply`] (`pod ml/a deleted`); for kinds kept raw, and
/// Kueue's, one sentence that they were listed again.
pub(crate) fn replace_kind(
    s: &mut Snapshot,
    group: &str,
    kind: &str,
    listed: Collector,
) -> Vec<String> {
    let mut new = listed.snapshot;
    // A whole kind replaced: everything derived is derived again, the index too.
    s.pending.all = true;
    s.read_as.retain(|(k, _, _), _| k != kind);
    s.read_as.append(&mut new.read_as);
    macro_rules! relist {
        ($field:ident) => {{
            let mut list = std::mem::take(&mut new.$field);
            list.sort_by(|a, b| key(&a.metadata).cmp(&key(&b.metadata)));
            list.dedup_by(|a, b| key(&a.metadata) == key(&b.metadata));
            let changed = list_changes(kind, &s.$field, &list, |o| &o.metadata);
            s.$field = list;
            changed
        }};
    }
    match (group, kind) {
        ("", "Node") => return relist!(nodes),
        ("", "Pod") => return relist!(pods),
        ("", "Namespace") => return relist!(namespaces),
        ("", "LimitRange") => return relist!(limit_ranges),
        ("", "ResourceQuota") => return relist!(resource_quotas),
        ("batch", "Job") => return relist!(jobs),
        ("node.k8s.io", "RuntimeClass") => return relist!(runtime_classes),
        ("policy", "PodDisruptionBudget") => return relist!(pod_disruption_budgets),
        ("scheduling.k8s.io", "PriorityClass") => return relist!(priority_classes),
        ("scheduling.k8s.io", "PodGroup") => return relist!(pod_groups),
        ("scheduling.k8s.io", "Workload") => return relist!(workloads),
        ("scheduling.k8s.io", "CompositePodGroup") => return relist!(composite_pod_groups),
        ("resource.k8s.io", "ResourceClaim") => return relist!(resource_claims),
        ("resource.k8s.io", "ResourceClaimTemplate") => return relist!(resource_claim_templates),
        ("resource.k8s.io", "ResourceSlice") => return relist!(resource_slices),
        ("resource.k8s.io", "DeviceClass") => return relist!(device_classes),
        ("resource.k8s.io", "DeviceTaintRule") => return relist!(device_taint_rules),
        _ => {}
    }
    let raw_of = |o: &crate::snapshot::RawObject| o.group() == group && o.kind == kind;
    s.foreign.retain(|o| !raw_of(o));
    s.selecting.retain(|o| !raw_of(o));
    s.stale.retain(|o| !raw_of(o));
    if group == crate::snapshot::kueue::GROUP {
        s.kueue.remove_kind(kind);
    }
    macro_rules! put {
        ($($field:ident),* $(,)?) => { $(
            if !new.$field.is_empty() {
                s.$field.append(&mut new.$field);
                s.$field.sort_by(|a, b| key(&a.metadata).cmp(&key(&b.metadata)));
                s.$field.dedup_by(|a, b| key(&a.metadata) == key(&b.metadata));
            }
        )* };
    }
    put!(foreign, selecting, stale);
    if !new.kueue.is_empty() {
        s.kueue.extend(new.kueue);
        s.kueue.sort_and_dedup();
    }
    vec![format!("every {kind} listed again")]
}

/// What differs between two sorted lists of one kind, object by object: created, deleted,
/// changed (a new `resourceVersion` alone is a change: the list's objects are the server's).
fn list_changes<T: PartialEq>(
    kind: &str,
    old: &[T],
    new: &[T],
    meta: impl Fn(&T) -> &ObjectMeta,
) -> Vec<String> {
    let kind = kind.to_ascii_lowercase();
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    loop {
        match (old.get(i), new.get(j)) {
            (None, None) => return out,
            (Some(a), None) => {
                out.push(format!("{kind} {} deleted", who(meta(a))));
                i += 1;
            }
            (None, Some(b)) => {
                out.push(format!("{kind} {} created", who(meta(b))));
                j += 1;
            }
            (Some(a), Some(b)) => match key(meta(a)).cmp(&key(meta(b))) {
                std::cmp::Ordering::Less => {
                    out.push(format!("{kind} {} deleted", who(meta(a))));
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    out.push(format!("{kind} {} created", who(meta(b))));
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    if a != b {
                        out.push(format!("{kind} {} changed", who(meta(b))));
                    }
                    i += 1;
                    j += 1;
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(objects: &[serde_json::Value]) -> Snapshot {
        crate::snapshot::source::files::test_snapshot_of(objects)
    }

    fn pod(ns: &str, name: &str, node: Option<&str>) -> serde_json::Value {
        let mut p = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "uid": format!("uid-{name}")},
            "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]},
            "status": {"phase": "Pending"}});
        if let Some(n) = node {
            p["spec"]["nodeName"] = n.into();
            p["status"]["phase"] = "Running".into();
        }
        p
    }

    fn node(name: &str, cordoned: bool) -> serde_json::Value {
        serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "spec": {"unschedulable": cordoned},
            "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}})
    }

    fn names(s: &Snapshot) -> Vec<String> {
        s.pods.iter().map(|p| who(&p.metadata)).collect()
    }

    #[test]
    fn watch_lines_parse_as_kube_apiserver_writes_them() {
        // `k8s.io/apimachinery/pkg/apis/meta/v1/watch.go`: `{"type":…,"object":…}`.
        let added = r#"{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a","resourceVersion":"12"}}}"#;
        assert!(matches!(
            parse_line(added),
            Ok(Line::Object { deleted: false, rv: Some(ref rv), object }) if rv == "12" && object.starts_with("{\"kind\"")
        ));
        let deleted =
            r#"{"type":"DELETED","object":{"metadata":{"name":"a","resourceVersion":"13"}}}"#;
        assert!(matches!(
            parse_line(deleted),
            Ok(Line::Object { deleted: true, .. })
        ));
        let bookmark = r#"{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"20"}}}"#;
        assert_eq!(
            parse_line(bookmark),
            Ok(Line::Bookmark {
                rv: "20".to_owned()
            })
        );
        let gone = r#"{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410}}"#;
        assert_eq!(
            parse_line(gone),
            Ok(Line::Error {
                code: 410,
                message: "too old resource version: 1 (5)".to_owned()
            })
        );
        assert!(parse_line("{\"type\":\"ADDED\"}").is_err());
        assert!(parse_line("{\"type\":\"SOMETHING\",\"object\":{}}").is_err());
        assert!(parse_line(r#"{"type":"BOOKMARK","object":{"metadata":{}}}"#).is_err());
        assert!(parse_line("<html>").is_err());
    }

    #[test]
    fn events_and_bookmarks_move_the_version_and_410_relists() {
        let mut f = Follow::new("5");
        f.opening();
        let event = Line::Object {
            deleted: false,
            rv: Some("6".to_owned()),
            object: "{}",
        };
        assert_eq!(f.line(&event), None);
        assert_eq!(f.rv, "6");
        assert_eq!(f.line(&Line::Bookmark { rv: "9".to_owned() }), None);
        assert_eq!(f.rv, "9");
        // The stream's own end (timeoutSeconds) after lines: watch again at once, from 9.
        assert_eq!(f.ended(&Ended::Closed), Next::Watch(Duration::ZERO));
        f.opening();
        let gone = Line::Error {
            code: 410,
            message: "too old resource version".to_owned(),
        };
        assert_eq!(f.line(&gone), Some(Next::Relist));
        f.listed("40");
        assert_eq!(f.rv, "40");
        assert_eq!(
            f.ended(&Ended::Refused {
                code: 410,
                message: String::new()
            }),
            Next::Relist
        );
    }

    #[test]
    fn broken_streams_back_off_and_an_unanswering_server_is_lost() {
        let mut f = Follow::new("1");
        let waits: Vec<Next> = (0..5)
            .map(|_| {
                f.opening();
                f.ended(&Ended::Broken("connection reset".to_owned()))
            })
            .collect();
        assert_eq!(
            waits,
            [250, 500, 1000, 2000, 4000].map(|ms| Next::Watch(Duration::from_millis(ms)))
        );
        f.opening();
        assert_eq!(
            f.ended(&Ended::Broken("stalled".to_owned())),
            Next::Watch(MAX_BACKOFF)
        );
        // One event makes the stream healthy: the next failure waits the first backoff.
        f.line(&Line::Bookmark { rv: "2".to_owned() });
        assert_eq!(
            f.ended(&Ended::Broken("reset".to_owned())),
            Next::Watch(FIRST_BACKOFF)
        );
        // A stream the server closes without a line, again and again, is backed off too.
        let mut quiet = Follow::new("1");
        quiet.opening();
        assert_eq!(quiet.ended(&Ended::Closed), Next::Watch(FIRST_BACKOFF));
        let mut down = Follow::new("1");
        let mut last = Next::Relist;
        for _ in 0..MAX_UNANSWERED {
            down.opening();
            last = down.ended(&Ended::Unreachable("connection refused".to_owned()));
        }
        assert_eq!(
            last,
            Next::Lost("no answer 6 times in a row (connection refused)".to_owned())
        );
        // Answers in between (a 503) reset the count: the server is there.
        let mut busy = Follow::new("1");
        for _ in 0..20 {
            busy.ended(&Ended::Unreachable("refused".to_owned()));
            assert!(matches!(
                busy.ended(&Ended::Refused {
                    code: 503,
                    message: String::new()
                }),
                Next::Watch(_)
            ));
        }
    }

    #[test]
    fn a_forbidden_or_unserved_watch_stops_with_a_warning_and_401_is_lost() {
        let refused = |code| {
            Follow::new("1").ended(&Ended::Refused {
                code,
                message: String::new(),
            })
        };
        assert!(matches!(refused(403), Next::Stop(w) if w.contains("forbidden")));
        assert!(matches!(refused(404), Next::Stop(w) if w.contains("no longer serves")));
        assert!(matches!(refused(401), Next::Lost(_)));
        assert!(matches!(refused(500), Next::Watch(_)));
    }

    #[test]
    fn events_upsert_and_delete_records_in_place_with_their_cause() {
        let mut s = snapshot(&[
            node("gpu-7", false),
            pod("ml", "w-1", Some("gpu-7")),
            pod("ml", "w-3", None),
        ]);
        let text = |v: &serde_json::Value| v.to_string();
        let apply_pod = |s: &mut Snapshot, v: &serde_json::Value, deleted| {
            apply(s, "v1", "Pod", &text(v), deleted).unwrap()
        };
        assert_eq!(
            apply_pod(&mut s, &pod("ml", "w-2", None), false),
            Applied::Changed("pod ml/w-2 created".to_owned())
        );
        assert_eq!(names(&s), ["ml/w-1", "ml/w-2", "ml/w-3"], "kept sorted");
        assert_eq!(
            apply_pod(&mut s, &pod("ml", "w-2", Some("gpu-7")), false),
            Applied::Changed("pod ml/w-2 bound to node gpu-7".to_owned())
        );
        assert_eq!(
            s.pods[1].spec.as_ref().and_then(|p| p.node_name.as_deref()),
            Some("gpu-7")
        );
        // A heartbeat that changes nothing kept is no change.
        let mut same = pod("ml", "w-2", Some("gpu-7"));
        same["metadata"]["resourceVersion"] = "99".into();
        same["metadata"]["managedFields"] = serde_json::json!([{"manager": "kubelet"}]);
        assert_eq!(apply_pod(&mut s, &same, false), Applied::Same);
        let mut done = pod("ml", "w-1", Some("gpu-7"));
        done["status"]["phase"] = "Succeeded".into();
        assert_eq!(
            apply_pod(&mut s, &done, false),
            Applied::Changed("pod ml/w-1 succeeded".to_owned())
        );
        assert_eq!(
            apply_pod(&mut s, &pod("ml", "w-3", None), true),
            Applied::Changed("pod ml/w-3 deleted".to_owned())
        );
        assert_eq!(names(&s), ["ml/w-1", "ml/w-2"]);
        assert_eq!(
            apply_pod(&mut s, &pod("ml", "never", None), true),
            Applied::Same
        );
        assert_eq!(
            apply(&mut s, "v1", "Node", &text(&node("gpu-7", true)), false),
            Ok(Applied::Changed("node gpu-7 cordoned".to_owned()))
        );
        assert_eq!(
            apply(&mut s, "v1", "Node", &text(&node("gpu-8", false)), false),
            Ok(Applied::Changed("node gpu-8 added".to_owned()))
        );
        let pg = serde_json::json!({"metadata": {"name": "train", "namespace": "ml"},
            "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}});
        assert_eq!(
            apply(
                &mut s,
                "scheduling.k8s.io/v1beta1",
                "PodGroup",
                &text(&pg),
                false
            ),
            Ok(Applied::Changed("podgroup ml/train created".to_owned()))
        );
        assert_eq!(s.pod_groups.len(), 1);
        // An object that does not fit its type changes nothing and says why.
        let bad = serde_json::json!({"metadata": {"name": "x", "namespace": "ml"},
            "spec": {"containers": "not a list"}});
        let before = s.pods.len();
        assert!(
            apply(&mut s, "v1", "Pod", &text(&bad), false)
                .is_err_and(|e| e.contains("Pod ml/x") && e.contains("spec.containers"))
        );
        assert_eq!(s.pods.len(), before);
        // The index follows once the batch is done.
        s.after_objects_changed();
        assert_eq!(s.index.pods_by_node.get("gpu-7").map(Vec::len), Some(2));
    }

    #[test]
    fn a_relist_replaces_one_kind_only() {
        let mut s = snapshot(&[
            node("n1", false),
            pod("ml", "a", None),
            pod("ml", "b", None),
        ]);
        let mut listed = Collector::new();
        listed.add(pod("ml", "c", None)).unwrap();
        listed.add(pod("ml", "b", Some("n1"))).unwrap();
        assert_eq!(
            replace_kind(&mut s, "", "Pod", listed),
            ["pod ml/a deleted", "pod ml/b changed", "pod ml/c created"]
        );
        assert_eq!(names(&s), ["ml/b", "ml/c"]);
        assert_eq!(s.nodes.len(), 1);
        // The same objects again: nothing changed.
        let mut again = Collector::new();
        again.add(pod("ml", "c", None)).unwrap();
        again.add(pod("ml", "b", Some("n1"))).unwrap();
        assert!(replace_kind(&mut s, "", "Pod", again).is_empty());
        assert_eq!(replace_kind(&mut s, "", "Pod", Collector::new()).len(), 2);
        assert!(s.pods.is_empty());
        assert_eq!(s.nodes.len(), 1);
    }
    /// A random event over a small synthetic cluster, from pools of names that overlap the
    /// cluster's, so events add, replace and delete objects of every indexed list (and of
    /// what else is derived: kube-system components, YuniKorn gangs, Volcano's raw objects,
    /// the gates' evidence). `None`: a re-list of pods.
    fn random_event(
        rng: &mut crate::testutil::synthetic::Rng,
    ) -> Option<(&'static str, &'static str, serde_json::Value, bool)> {
        use serde_json::json;
        let mut pick = |n: u64| rng.below(n);
        let deleted = pick(4) == 0;
        let node_name = |i: u64| format!("node-{i:05}");
        Some(match pick(12) {
            0..=3 => {
                let i = pick(60);
                let mut p = json!({"apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": format!("run-{i:06}"), "namespace": "default"},
                    "spec": {"containers": [{"name": "c", "image": "x:v1.37.0",
                        "resources": {"requests": {"cpu": "1"}}}]},
                    "status": {"phase": "Pending"}});
                if pick(3) > 0 {
                    p["spec"]["nodeName"] = json!(node_name(pick(10)));
                }
                if pick(3) == 0 {
                    p["spec"]["schedulingGroup"] =
                        json!({"podGroupName": format!("gang-{:05}", pick(4))});
                }
                if pick(5) == 0 {
                    p["metadata"]["namespace"] = json!("kube-system");
                    p["metadata"]["labels"] = json!({"component": "kube-scheduler"});
                    p["spec"]["containers"][0]["args"] =
                        json!([format!("--feature-gates=GenericWorkload={}", pick(2) == 0)]);
                }
                if pick(5) == 0 {
                    p["metadata"]["labels"] = json!({"applicationId": format!("app-{}", pick(2))});
                    p["metadata"]["annotations"] =
                        json!({"yunikorn.apache.org/task-group-name": "tg"});
                }
                if pick(6) == 0 {
                    p["status"]["nodeAllocatableResourceClaimStatuses"] =
                        json!([{"resourceClaimName": "c", "resources": ["cpu"]}]);
                }
                ("v1", "Pod", p, deleted)
            }
            4 => {
                let i = pick(12);
                let mut n = json!({"apiVersion": "v1", "kind": "Node",
                    "metadata": {"name": node_name(i)},
                    "spec": {"unschedulable": pick(2) == 0},
                    "status": {"allocatable": {"cpu": "8", "pods": "110"}}});
                if pick(2) == 0 {
                    n["status"]["nodeInfo"] = json!({"kubeletVersion": "v1.37.0", "machineID": "", "systemUUID": "",
                        "bootID": "", "kernelVersion": "", "osImage": "", "containerRuntimeVersion": "",
                        "kubeProxyVersion": "", "operatingSystem": "linux", "architecture": "amd64"});
                }
                ("v1", "Node", n, deleted)
            }
            5 => {
                let mut spec = json!({"schedulingPolicy": {"gang": {"minCount": 2}}});
                if pick(2) == 0 {
                    spec["parentCompositePodGroupName"] = json!(format!("cpg-{}", pick(3)));
                }
                if pick(3) == 0 {
                    spec["schedulingConstraints"] = json!({"topology": [{"key": "rack"}]});
                }
                let pg = json!({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                    "metadata": {"name": format!("gang-{:05}", pick(5)), "namespace": "train"},
                    "spec": spec});
                ("scheduling.k8s.io/v1beta1", "PodGroup", pg, deleted)
            }
            6 => {
                let mut spec = json!({"workloadRef": {"workloadName": format!("w-{}", pick(2))},
                    "schedulingPolicy": {"gang": {"minCount": 2}}});
                if pick(2) == 0 {
                    spec["parentCompositePodGroupName"] = json!(format!("cpg-{}", pick(3)));
                }
                let c = json!({"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "CompositePodGroup",
                    "metadata": {"name": format!("cpg-{}", pick(3)), "namespace": "train"},
                    "spec": spec});
                (
                    "scheduling.k8s.io/v1alpha3",
                    "CompositePodGroup",
                    c,
                    deleted,
                )
            }
            7 => {
                let i = pick(12);
                let mut c = json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                    "metadata": {"name": format!("run-{i:06}-gpu"), "namespace": "default"},
                    "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}});
                if pick(2) == 0 {
                    c["metadata"]["ownerReferences"] = json!([{"apiVersion": "v1", "kind": "Pod",
                        "name": format!("run-{i:06}"), "uid": format!("uid-{}", pick(3)), "controller": true}]);
                }
                if pick(2) == 0 {
                    c["status"] = json!({"allocation": {"devices": {"results": [{"request": "gpu",
                        "driver": "gpu.example.com", "pool": node_name(i), "device": "gpu-0"}]}}});
                }
                ("resource.k8s.io/v1", "ResourceClaim", c, deleted)
            }
            8 => {
                let i = pick(12);
                let r = json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                    "metadata": {"name": format!("node-{i:05}-gpu")},
                    "spec": {"driver": "gpu.example.com", "nodeName": node_name(pick(12)),
                        "pool": {"name": node_name(i), "generation": 1, "resourceSliceCount": 1}, "devices": []}});
                ("resource.k8s.io/v1", "ResourceSlice", r, deleted)
            }
            9 => {
                let v = json!({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                    "metadata": {"name": format!("vc-{}", pick(3)), "namespace": "default"},
                    "spec": {"minMember": 1 + pick(3)}});
                ("scheduling.volcano.sh/v1beta1", "PodGroup", v, deleted)
            }
            10 => {
                let n = json!({"apiVersion": "v1", "kind": "Namespace",
                    "metadata": {"name": format!("ns-{}", pick(4))}});
                ("v1", "Namespace", n, deleted)
            }
            _ if pick(8) == 0 => return None,
            _ => {
                let j = json!({"apiVersion": "batch/v1", "kind": "Job",
                    "metadata": {"name": format!("job-{}", pick(3)), "namespace": "default"},
                    "spec": {"template": {"spec": {"containers": []}}}});
                ("batch/v1", "Job", j, deleted)
            }
        })
    }

    /// What a snapshot derives from its objects, for comparing two.
    fn derived(s: &Snapshot) -> impl PartialEq + std::fmt::Debug {
        (
            s.index.clone(),
            s.yunikorn.clone(),
            s.volcano.clone(),
            s.facts.inferred_gates.clone(),
            s.facts.components.clone(),
            s.warnings.clone(),
        )
    }

    #[test]
    fn in_place_updates_equal_a_rebuild_after_any_sequence_of_events() {
        use crate::snapshot::index::Index;
        use crate::testutil::synthetic::{Profile, Rng, snapshot};
        let profile = Profile {
            nodes_per_rack: 4,
            running_pods: 40,
            running_group_size: 4,
            devices_per_node: 2,
            running_claims_per_node: 1,
            gangs: vec![(2, 2)],
            ..Profile::with_nodes(8)
        };
        let mut changed = 0;
        for seed in 0..24 {
            let mut rng = Rng::new(seed);
            // `s` is kept current in place; `r` has everything derived again per batch.
            let mut s = snapshot(&profile, seed);
            let mut r = s.clone();
            for _ in 0..12 {
                for _ in 0..=rng.below(12) {
                    let Some((api_version, kind, object, deleted)) = random_event(&mut rng) else {
                        let listed = || {
                            let mut c = Collector::new();
                            c.add(pod("default", "run-000001", Some("node-00001")))
                                .unwrap();
                            c.add(pod("default", "fresh", None)).unwrap();
                            c
                        };
                        let a = replace_kind(&mut s, "", "Pod", listed());
                        assert_eq!(a, replace_kind(&mut r, "", "Pod", listed()));
                        continue;
                    };
                    let text = object.to_string();
                    let a = apply(&mut s, api_version, kind, &text, deleted);
                    assert_eq!(a, apply(&mut r, api_version, kind, &text, deleted));
                    assert!(a.is_ok(), "{kind}: {a:?}");
                    changed += usize::from(matches!(a, Ok(Applied::Changed(_))));
                }
                s.after_objects_changed();
                r.after_objects_replaced();
                assert_eq!(s.index, Index::build(&s), "seed {seed}");
                assert_eq!(derived(&s), derived(&r), "seed {seed}");
            }
        }
        assert!(changed > 1000, "the events change the snapshot: {changed}");
    }
}
