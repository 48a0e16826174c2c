//! Timestamps as the API server takes them, and which of them are believable.
//!
//! `metav1.Time` is Go's `time.Time` in RFC 3339: the API server stores any year up to 9999,
//! including `9999-12-31T23:59:59Z` and Go's zero time `0001-01-01T00:00:00Z` (what a
//! client that never set the field sends). The time library here ends at
//! `9999-12-30T22:00:00Z`, so a later instant is read as that one ([`within_range`]) instead
//! of rejecting the file. Neither a zero time nor a far-future one is a real event: ages and
//! GPU-hours computed from them would be nonsense ("loses 142068384 GPU-hours"), so
//! [`is_plausible`] keeps them out and [`implausible_warning`] names them. Pure: no IO.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;

/// The first instant believable for a Kubernetes object: 2014-06-06, Kubernetes' first
/// commit. Go's zero time, the Unix epoch and other defaults fall before it.
pub(crate) const PLAUSIBLE_FLOOR_SECONDS: i64 = 1_402_012_800;

/// Go's zero `time.Time`, `0001-01-01T00:00:00Z`, in Unix seconds.
pub(crate) const GO_ZERO_SECONDS: i64 = -62_135_596_800;

/// How far past the snapshot's time a timestamp may be and still be clock skew: one day.
pub(crate) const FUTURE_SLACK_SECONDS: i64 = 86_400;

/// `text`, or jiff's last instant when `text` is an RFC 3339 time the API server accepts
/// but jiff cannot represent (after `9999-12-30T22:00:00Z`, still in year 9999). Anything
/// else is returned as is, for the time parser to accept or refuse.
pub(crate) fn within_range(text: String) -> String {
    // Only the last two days of year 9999 are past jiff's range.
    let last_days = text.starts_with("9999-12-30T") || text.starts_with("9999-12-31T");
    if !last_days || text.parse::<Timestamp>().is_ok() {
        return text;
    }
    // The same text on an earlier day of year 9999 parses: only the range was wrong.
    let earlier = text.get(10..).map(|rest| format!("9999-01-01{rest}"));
    if earlier.is_some_and(|t| t.parse::<Timestamp>().is_ok()) {
        Timestamp::MAX.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
    } else {
        text
    }
}

/// True when `text` (an object's JSON) may hold a time [`within_range`] changes: a cheap
/// test before the slow path.
pub(crate) fn may_need_clamping(text: &str) -> bool {
    text.contains("\"9999-12-30T") || text.contains("\"9999-12-31T")
}

/// Applies [`within_range`] to every string of `value` that starts like a time in the last
/// days of year 9999 (only the range is fixed: any other string is left alone, a malformed
/// time stays malformed for the parser to refuse).
pub(crate) fn clamp_value(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::String(s) if s.starts_with("9999-12-3") => {
            *s = within_range(std::mem::take(s));
        }
        Value::Array(items) => items.iter_mut().for_each(clamp_value),
        Value::Object(map) => map.values_mut().for_each(clamp_value),
        _ => {}
    }
}

/// Why a timestamp cannot be a real event, relative to the snapshot's time `now`.
pub(crate) fn implausible(t: Timestamp, now: Timestamp) -> Option<&'static str> {
    let s = t.as_second();
    if s < PLAUSIBLE_FLOOR_SECONDS {
        Some(if s == GO_ZERO_SECONDS {
            "Go's zero time"
        } else {
            "before Kubernetes existed"
        })
    } else if s > now.as_second().saturating_add(FUTURE_SLACK_SECONDS) {
        Some("in the future")
    } else {
        None
    }
}

/// True when `seconds` (a Unix time) can be a real start: not before
/// [`PLAUSIBLE_FLOOR_SECONDS`]. (A start after the snapshot's time counts zero hours.)
pub(crate) fn is_plausible(seconds: i64) -> bool {
    seconds >= PLAUSIBLE_FLOOR_SECONDS
}

/// The RFC 3339 text of `t`, saying "or later" for jiff's last instant (a clamped year-9999
/// time).
pub(crate) fn show(t: Timestamp) -> String {
    let text = t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
    if t.as_second() == Timestamp::MAX.as_second() {
        format!("{text} or later")
    } else {
        text
    }
}

/// kubectl-style age (k8s.io/apimachinery `duration.HumanDuration`): `45s`, `5m`, `5m30s`,
/// `2h30m`, `36h`, `5d`, `5d4h`, `2y`.
pub(crate) fn age(created: &Time, now: Timestamp) -> String {
    let secs = now.as_second().saturating_sub(created.0.as_second()).max(0);
    let minutes = secs / 60;
    let hours = secs / 3600;
    match secs {
        s if s < 120 => format!("{s}s"),
        s if s < 600 => match s % 60 {
            0 => format!("{minutes}m"),
            rest => format!("{minutes}m{rest}s"),
        },
        s if s < 3 * 3600 => format!("{minutes}m"),
        s if s < 8 * 3600 => match minutes % 60 {
            0 => format!("{hours}h"),
            rest => format!("{hours}h{rest}m"),
        },
        s if s < 48 * 3600 => format!("{hours}h"),
        s if s < 8 * 86400 => match hours % 24 {
            0 => format!("{}d", hours / 24),
            rest => format!("{}d{rest}h", hours / 24),
        },
        s if s < 2 * 365 * 86400 => format!("{}d", hours / 24),
        s if s < 8 * 365 * 86400 => match (hours / 24) % 365 {
            0 => format!("{}y", hours / 24 / 365),
            rest => format!("{}y{rest}d", hours / 24 / 365),
        },
        _ => format!("{}y", hours / 24 / 365),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_like_kubectl() {
        let now: Timestamp = "2026-11-20T12:00:00Z".parse().unwrap();
        let at = |s: &str| k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(s.parse().unwrap());
        assert_eq!(age(&at("2026-11-20T11:59:30Z"), now), "30s");
        assert_eq!(age(&at("2026-11-20T11:55:00Z"), now), "5m");
        assert_eq!(age(&at("2026-11-20T11:54:30Z"), now), "5m30s");
        assert_eq!(age(&at("2026-11-20T09:30:00Z"), now), "150m");
        assert_eq!(age(&at("2026-11-20T07:30:00Z"), now), "4h30m");
        assert_eq!(age(&at("2026-11-19T00:00:00Z"), now), "36h");
        assert_eq!(age(&at("2026-11-15T12:00:00Z"), now), "5d");
        assert_eq!(age(&at("2026-11-15T08:00:00Z"), now), "5d4h");
        assert_eq!(age(&at("2026-12-01T00:00:00Z"), now), "0s");
    }

    #[test]
    fn year_9999_times_the_api_server_accepts_are_read() {
        let max = within_range("9999-12-31T23:59:59Z".to_owned());
        assert_eq!(max, "9999-12-30T22:00:00Z");
        assert!(max.parse::<Timestamp>().is_ok());
        assert_eq!(
            within_range("9999-12-31T23:59:59.123456Z".to_owned()),
            "9999-12-30T22:00:00Z"
        );
        // What parses is kept; what is malformed stays malformed (the parser says why).
        assert_eq!(
            within_range("2026-01-01T00:00:00Z".to_owned()),
            "2026-01-01T00:00:00Z"
        );
        assert_eq!(
            within_range("9999-13-01T00:00:00Z".to_owned()),
            "9999-13-01T00:00:00Z"
        );
        assert_eq!(within_range("tomorrow".to_owned()), "tomorrow");
    }

    #[test]
    fn zero_and_far_future_times_are_implausible() {
        let now: Timestamp = "2026-06-01T00:00:00Z".parse().unwrap();
        let zero: Timestamp = "0001-01-01T00:00:00Z".parse().unwrap();
        assert_eq!(implausible(zero, now), Some("Go's zero time"));
        let epoch: Timestamp = "1970-01-01T00:00:00Z".parse().unwrap();
        assert_eq!(implausible(epoch, now), Some("before Kubernetes existed"));
        assert_eq!(implausible(Timestamp::MAX, now), Some("in the future"));
        let recent: Timestamp = "2026-05-31T12:00:00Z".parse().unwrap();
        assert_eq!(implausible(recent, now), None);
        let skew: Timestamp = "2026-06-01T01:00:00Z".parse().unwrap();
        assert_eq!(
            implausible(skew, now),
            None,
            "an hour of clock skew is real"
        );
        assert!(!is_plausible(zero.as_second()));
        assert!(is_plausible(recent.as_second()));
        assert_eq!(show(Timestamp::MAX), "9999-12-30T22:00:00Z or later");
    }
}

/// A warning naming the implausible timestamps of `s` (pods' creation and start, and the
/// creation of nodes, Jobs, PodGroups and Workloads), relative to the snapshot's time: at most
/// three named, with the count. `None` when every timestamp is believable.
pub(crate) fn implausible_warning(s: &super::Snapshot) -> Option<super::Warning> {
    use super::{name_of, namespace_of};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
    let now = s.now();
    let mut found: Vec<String> = Vec::new();
    let mut count = 0usize;
    let mut check = |kind: &str, meta: &ObjectMeta, field: &str, t: Option<&Time>| {
        let Some(t) = t else { return };
        if let Some(why) = implausible(t.0, now) {
            count += 1;
            if found.len() < 3 {
                let ns = namespace_of(meta);
                let who = if ns.is_empty() {
                    name_of(meta).to_owned()
                } else {
                    format!("{ns}/{}", name_of(meta))
                };
                found.push(format!("{kind} `{who}` `{field}` `{}` ({why})", show(t.0)));
            }
        }
    };
    for p in &s.pods {
        let m = &p.metadata;
        check(
            "Pod",
            m,
            "metadata.creationTimestamp",
            m.creation_timestamp.as_ref(),
        );
        check(
            "Pod",
            m,
            "status.startTime",
            p.status.as_ref().and_then(|st| st.start_time.as_ref()),
        );
    }
    let created = (s.nodes.iter().map(|n| ("Node", &n.metadata)))
        .chain(s.jobs.iter().map(|j| ("Job", &j.metadata)))
        .chain(s.pod_groups.iter().map(|g| ("PodGroup", &g.metadata)))
        .chain(s.workloads.iter().map(|w| ("Workload", &w.metadata)));
    for (kind, m) in created {
        check(
            kind,
            m,
            "metadata.creationTimestamp",
            m.creation_timestamp.as_ref(),
        );
    }
    if count == 0 {
        return None;
    }
    let more = if count > found.len() {
        format!(", and {} more", count - found.len())
    } else {
        String::new()
    };
    Some(super::Warning::new(
        "ImplausibleTimestamps",
        format!(
            "{count} implausible timestamp(s), not used for ages or GPU-hours: {}{more}",
            found.join(", ")
        ),
    ))
}

#[cfg(test)]
mod load_tests {
    use crate::snapshot::source::{Collector, files};

    /// The whole file was rejected for one `9999-12-31T23:59:59Z` (issue 46); now it loads,
    /// through every loader path (YAML, JSON), and the time reads as jiff's last instant.
    #[test]
    fn a_year_9999_start_time_loads_in_yaml_and_json() {
        let yaml = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ml\n  creationTimestamp: \"0001-01-01T00:00:00Z\"\nspec:\n  containers:\n  - name: c\n    image: x\nstatus:\n  startTime: \"9999-12-31T23:59:59Z\"\n";
        let json = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ml"},"spec":{"containers":[{"name":"c","image":"x"}]},"status":{"startTime":"9999-12-31T23:59:59Z"}}"#;
        for (text, path) in [(yaml, "p.yaml"), (json, "p.json")] {
            let mut c = Collector::new();
            files::load_str(text, path, &mut c).unwrap_or_else(|e| panic!("{path}: {e}"));
            let s = c.finish();
            let start = s.pods[0]
                .status
                .as_ref()
                .and_then(|st| st.start_time.as_ref())
                .map(|t| t.0.as_second());
            assert_eq!(start, Some(super::Timestamp::MAX.as_second()), "{path}");
        }
        let mut c = Collector::new();
        files::load_str(yaml, "p.yaml", &mut c).unwrap();
        let mut s = c.finish();
        s.stamp_time("2026-06-01T00:00:00Z".parse().unwrap());
        let w = super::implausible_warning(&s).unwrap();
        assert_eq!(w.code, "ImplausibleTimestamps");
        assert_eq!(
            w.message,
            "2 implausible timestamp(s), not used for ages or GPU-hours: Pod `ml/p` `metadata.creationTimestamp` `0001-01-01T00:00:00Z` (Go's zero time), Pod `ml/p` `status.startTime` `9999-12-30T22:00:00Z or later` (in the future)"
        );
    }
}
