//! The cluster's scheduler configuration against the gangs it must schedule (issue 48 item
//! 6): gang pods whose `schedulerName` no profile serves (WASD204), a profile without the
//! gang plugin scheduling PodGroups (WASD205), profiles that would run the same gang
//! differently (WASD206), and pods naming an unknown scheduler while no configuration was
//! given (WASD303).
//!
//! A pod's profile is the one named by its `spec.schedulerName` (`default-scheduler` when
//! unset), as kube-scheduler's `profile.Map` picks it (`pkg/scheduler/profile/profile.go`).

use std::collections::{BTreeMap, BTreeSet};

use super::{Check, Checker, list, obj, pod_active};
use crate::snapshot::scheduler_config::{
    DEFAULT_SCHEDULER_NAME, GANG_PLUGINS, KNOWN_OTHER_SCHEDULERS, KubeSchedulerProfile,
};
use crate::snapshot::{ObjKind, ObjRef, Pod, name_of, namespace_of};

/// The plugins whose presence changes how a gang is scheduled: gang admission (minCount at
/// PreEnqueue, the pod-group cycle), topology placement and its scoring, and preemption.
const GANG_BEHAVIOUR_PLUGINS: &[(&str, &str)] = &[
    ("GangScheduling", "gang admission (`minCount`)"),
    ("TopologyPlacementGenerator", "topology placement"),
    ("PodGroupPodsCount", "placement scoring by pod count"),
    ("DefaultPreemption", "preemption"),
    ("DynamicResources", "DRA claims"),
];

/// The scheduler a pod names (`default-scheduler` when unset or empty).
fn scheduler_of(pod: &Pod) -> &str {
    pod.spec
        .as_ref()
        .and_then(|s| s.scheduler_name.as_deref())
        .filter(|s| !s.is_empty())
        .unwrap_or(DEFAULT_SCHEDULER_NAME)
}

/// True when `name` is a scheduler other than kube-scheduler (Volcano, YuniKorn, …).
fn known_other(name: &str) -> bool {
    KNOWN_OTHER_SCHEDULERS.contains(&name)
}

/// The gang-relevant plugins a profile runs.
fn gang_plugins(p: &KubeSchedulerProfile) -> BTreeSet<&'static str> {
    GANG_BEHAVIOUR_PLUGINS
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| p.enables(n))
        .collect()
}

/// Runs the scheduler-configuration checks.
pub(crate) fn check(c: &mut Checker<'_>) {
    let s = c.s;
    // Scheduler name → pending pods in native PodGroups, by PodGroup.
    let mut by_scheduler: BTreeMap<&str, BTreeMap<ObjRef, Vec<String>>> = BTreeMap::new();
    for pg in &s.pod_groups {
        let (ns, name) = (namespace_of(&pg.metadata), name_of(&pg.metadata));
        for i in s.index.pods_by_group.get(ns, name) {
            let Some(pod) = s.pods.get(*i) else { continue };
            let bound = pod
                .spec
                .as_ref()
                .and_then(|sp| sp.node_name.as_ref())
                .is_some();
            if !pod_active(pod) || bound {
                continue;
            }
            by_scheduler
                .entry(scheduler_of(pod))
                .or_default()
                .entry(obj(ObjKind::PodGroup, &pg.metadata))
                .or_default()
                .push(name_of(&pod.metadata).to_owned());
        }
    }
    match &s.scheduler_config {
        Some(loaded) => {
            let config = &loaded.config;
            unserved_gangs(c, &by_scheduler, &config.scheduler_names(), &loaded.source);
            let gang_profiles: Vec<&KubeSchedulerProfile> = config
                .profiles
                .iter()
                .filter(|p| by_scheduler.contains_key(p.name()))
                .collect();
            gangs_without_gang_plugin(c, &by_scheduler, &gang_profiles);
            profiles_disagree(c, &by_scheduler, &config.profiles, &loaded.source);
        }
        None => config_not_supplied(c),
    }
}

/// WASD204: gang pods whose scheduler no profile serves (other batch schedulers are
/// WASD301's).
fn unserved_gangs(
    c: &mut Checker<'_>,
    by_scheduler: &BTreeMap<&str, BTreeMap<ObjRef, Vec<String>>>,
    served: &[&str],
    source: &str,
) {
    let profiles: Vec<String> = served.iter().map(|s| (*s).to_owned()).collect();
    for (scheduler, groups) in by_scheduler {
        if served.contains(scheduler) || known_other(scheduler) {
            continue;
        }
        for (group, pods) in groups {
            c.emit(
                Check::GangSchedulerNotServed,
                group.clone(),
                format!(
                    "pending pods {} name `schedulerName: {scheduler}`, which no profile of the scheduler configuration (`{source}`: {}) serves: kube-scheduler never schedules them and the gang never forms",
                    list(pods, 3),
                    list(&profiles, 5)
                ),
                format!(
                    "set the pods' `schedulerName` to a profile that schedules gangs, or add a profile `{scheduler}` to the configuration"
                ),
            );
        }
    }
}

/// WASD205: PodGroups scheduled by a profile without GangScheduling.
fn gangs_without_gang_plugin(
    c: &mut Checker<'_>,
    by_scheduler: &BTreeMap<&str, BTreeMap<ObjRef, Vec<String>>>,
    profiles: &[&KubeSchedulerProfile],
) {
    for p in profiles {
        let missing: Vec<String> = GANG_PLUGINS
            .iter()
            .filter(|g| !p.enables(g))
            .map(|g| (*g).to_owned())
            .collect();
        if missing.is_empty() {
            continue;
        }
        let Some(groups) = by_scheduler.get(p.name()) else {
            continue;
        };
        for group in groups.keys() {
            let Some(pg) = c.s.pod_group(&group.namespace, &group.name) else {
                continue;
            };
            let Some(gang) = pg.spec.scheduling_policy.gang.as_ref() else {
                continue;
            };
            c.emit(
                Check::GangPluginsDisabled,
                group.clone(),
                format!(
                    "a gang (`minCount` {}) scheduled by profile `{}`, which disables {}: its pods are scheduled one by one, so part of the gang can start and hold resources while the rest waits",
                    gang.min_count,
                    p.name(),
                    list(&missing, 3)
                ),
                format!(
                    "enable {} in profile `{}` (remove it from `disabled`, or add it to `multiPoint.enabled`), or schedule the gang with a profile that has it",
                    list(&missing, 3),
                    p.name()
                ),
            );
        }
    }
}

/// WASD206: two profiles whose gang-relevant plugin sets differ, one of them scheduling
/// PodGroups: the same gang behaves differently depending on the `schedulerName` its pods
/// name. One finding per pair, about the configuration.
fn profiles_disagree(
    c: &mut Checker<'_>,
    by_scheduler: &BTreeMap<&str, BTreeMap<ObjRef, Vec<String>>>,
    profiles: &[KubeSchedulerProfile],
    source: &str,
) {
    let object = ObjRef::new(
        ObjKind::Other("KubeSchedulerConfiguration".to_owned()),
        "",
        source,
    );
    for (i, a) in profiles.iter().enumerate() {
        for b in profiles.iter().skip(i + 1) {
            let uses_a = by_scheduler.get(a.name());
            let uses_b = by_scheduler.get(b.name());
            if uses_a.is_none() && uses_b.is_none() {
                continue;
            }
            let (pa, pb) = (gang_plugins(a), gang_plugins(b));
            if pa == pb {
                continue;
            }
            let words = |only: Vec<&&str>| -> String {
                only.iter()
                    .map(|n| {
                        let what = GANG_BEHAVIOUR_PLUGINS
                            .iter()
                            .find(|(p, _)| p == *n)
                            .map_or("", |(_, w)| *w);
                        format!("`{n}` ({what})")
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let only_a = words(pa.difference(&pb).collect());
            let only_b = words(pb.difference(&pa).collect());
            let mut diffs = Vec::new();
            if !only_a.is_empty() {
                diffs.push(format!("only `{}` runs {only_a}", a.name()));
            }
            if !only_b.is_empty() {
                diffs.push(format!("only `{}` runs {only_b}", b.name()));
            }
            let groups: Vec<String> = uses_a
                .into_iter()
                .chain(uses_b)
                .flat_map(|g| g.keys())
                .map(|r| format!("{}/{}", r.namespace, r.name))
                .collect();
            c.emit(
                Check::ProfilesDisagreeOnGangs,
                object.clone(),
                format!(
                    "profiles `{}` and `{}` schedule gangs differently: {}; a gang's outcome depends on which `schedulerName` its pods name (gangs now: {})",
                    a.name(),
                    b.name(),
                    diffs.join("; "),
                    list(&groups, 3)
                ),
                "give the profiles that schedule gangs the same gang plugins, or make sure each gang's pods name the profile meant for it",
            );
        }
    }
}

/// WASD303: no configuration given, while active pods name a scheduler that is neither the
/// default profile nor a known other scheduler: whether a profile serves them is unknown.
fn config_not_supplied(c: &mut Checker<'_>) {
    let s = c.s;
    let mut unknown: BTreeMap<&str, Vec<&Pod>> = BTreeMap::new();
    for pod in s.pods.iter().filter(|p| pod_active(p)) {
        let name = scheduler_of(pod);
        if name != DEFAULT_SCHEDULER_NAME && !known_other(name) {
            unknown.entry(name).or_default().push(pod);
        }
    }
    for (scheduler, pods) in unknown {
        let Some(first) = pods.first() else { continue };
        let names: Vec<String> = pods
            .iter()
            .map(|p| format!("{}/{}", namespace_of(&p.metadata), name_of(&p.metadata)))
            .collect();
        c.emit(
            Check::SchedulerConfigNotSupplied,
            obj(ObjKind::Pod, &first.metadata),
            format!(
                "{} {} name `schedulerName: {scheduler}` ({}), which is neither kube-scheduler's default profile nor a known other scheduler: without the cluster's scheduler configuration wasctl simulates the default profile only",
                pods.len(),
                if pods.len() == 1 { "pod" } else { "pods" },
                list(&names, 3)
            ),
            format!(
                "pass --scheduler-config with the KubeSchedulerConfiguration that serves `{scheduler}` (a file, or `configmap/NAMESPACE/NAME[:KEY]`)"
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::doctor::{Check, Options};
    use crate::snapshot::source::{Collector, files};
    use crate::snapshot::{LoadedSchedulerConfig, Snapshot};

    fn snapshot(objects: &str, config: Option<&str>) -> Snapshot {
        let mut c = Collector::new();
        files::load_str(objects, "objects.yaml", &mut c).expect("objects");
        let mut s = c.finish();
        if let Some(text) = config {
            let value: serde_json::Value = serde_saphyr::from_str(text).expect("yaml");
            s.scheduler_config =
                Some(LoadedSchedulerConfig::from_value(value, "sched.yaml").expect("valid"));
        }
        s
    }

    fn findings(s: &Snapshot) -> Vec<(Check, String, String)> {
        let g = crate::graph::Graph::build(s);
        let options = Options {
            now: s.now(),
            gate_overrides: Default::default(),
            stuck_after: crate::doctor::DEFAULT_STUCK_AFTER,
        };
        let (f, _) = crate::doctor::check(s, &g, &options);
        f.into_iter()
            .filter(|f| {
                matches!(
                    f.id,
                    Check::GangSchedulerNotServed
                        | Check::GangPluginsDisabled
                        | Check::ProfilesDisagreeOnGangs
                        | Check::SchedulerConfigNotSupplied
                )
            })
            .map(|f| (f.id, f.object.to_string(), f.message))
            .collect()
    }

    const GANG: &str = "apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: train, namespace: ml}
spec:
  schedulingPolicy:
    gang: {minCount: 2}
---
apiVersion: v1
kind: Pod
metadata: {name: train-0, namespace: ml}
spec:
  schedulerName: SCHED
  schedulingGroup: {podGroupName: train}
  containers: [{name: c, image: i}]
---
apiVersion: v1
kind: Pod
metadata: {name: train-1, namespace: ml}
spec:
  schedulerName: SCHED
  schedulingGroup: {podGroupName: train}
  containers: [{name: c, image: i}]
";

    const TWO_PROFILES: &str = "apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: no-gang
  plugins:
    multiPoint:
      disabled: [{name: GangScheduling}]
";

    #[test]
    fn gang_pods_naming_no_profile_are_an_error() {
        let s = snapshot(&GANG.replace("SCHED", "gpu-binpack"), Some(TWO_PROFILES));
        let f = findings(&s);
        assert!(
            f.iter().any(|(c, o, m)| *c == Check::GangSchedulerNotServed
                && o.contains("ml/train")
                && m.contains("`schedulerName: gpu-binpack`")
                && m.contains("`default-scheduler`, `no-gang`")),
            "{f:?}"
        );
        // Volcano's pods are WASD301's, not WASD204's.
        let s = snapshot(&GANG.replace("SCHED", "volcano"), Some(TWO_PROFILES));
        assert!(
            !findings(&s)
                .iter()
                .any(|(c, _, _)| *c == Check::GangSchedulerNotServed)
        );
    }

    #[test]
    fn profile_without_gang_plugin_scheduling_a_gang_is_an_error() {
        let s = snapshot(&GANG.replace("SCHED", "no-gang"), Some(TWO_PROFILES));
        let f = findings(&s);
        assert!(
            f.iter().any(|(c, o, m)| *c == Check::GangPluginsDisabled
                && o.contains("ml/train")
                && m.contains("profile `no-gang`")
                && m.contains("`GangScheduling`")),
            "{f:?}"
        );
        // The same gang under the default profile: no WASD205, but the two profiles differ.
        let s = snapshot(
            &GANG.replace("SCHED", "default-scheduler"),
            Some(TWO_PROFILES),
        );
        let f = findings(&s);
        assert!(
            !f.iter().any(|(c, _, _)| *c == Check::GangPluginsDisabled),
            "{f:?}"
        );
        assert!(
            f.iter()
                .any(|(c, o, m)| *c == Check::ProfilesDisagreeOnGangs
                    && o.contains("sched.yaml")
                    && m.contains("only `default-scheduler` runs `GangScheduling`")),
            "{f:?}"
        );
    }

    #[test]
    fn profiles_that_agree_on_gang_plugins_are_fine() {
        let config = "apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: gpu-binpack
  pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: MostAllocated}}
";
        let s = snapshot(&GANG.replace("SCHED", "gpu-binpack"), Some(config));
        assert!(findings(&s).is_empty(), "{:?}", findings(&s));
    }

    #[test]
    fn unknown_scheduler_without_config_is_info() {
        let s = snapshot(&GANG.replace("SCHED", "my-scheduler"), None);
        let f = findings(&s);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, Check::SchedulerConfigNotSupplied);
        assert!(
            f[0].2
                .starts_with("2 pods name `schedulerName: my-scheduler`"),
            "{f:?}"
        );
        // Known other schedulers and the default profile need no configuration.
        for name in ["volcano", "yunikorn", "default-scheduler"] {
            let s = snapshot(&GANG.replace("SCHED", name), None);
            assert!(findings(&s).is_empty(), "{name}");
        }
    }
}
