//! `--demo`: an embedded demo cluster, so every command runs with no cluster at all.
//!
//! The source is `testdata/clusters/demo.yaml`, compiled into the binary. It shows every
//! capability: racks of GPU nodes with DRA ResourceSlices, a running gang, a gang pending for
//! lack of room in one rack, mismatched claim entries, a CompositePodGroup tree, a preemption
//! candidate, orphans, a stale `v1alpha2` object, feature-gate skew, and Kueue in front (two
//! ClusterQueues in a cohort, flavors for the two GPU pools, a Job waiting on quota and one
//! admitted that its nodes cannot place).

use super::Collector;
use super::files::{LoadError, load_str};
use crate::snapshot::Snapshot;

/// The demo cluster's YAML.
pub(crate) const DEMO_YAML: &str = include_str!("../../../testdata/clusters/demo.yaml");

/// Loads the demo cluster.
pub fn load() -> Result<Snapshot, LoadError> {
    let mut collector = Collector::new();
    load_str(DEMO_YAML, "<demo>", &mut collector)?;
    Ok(collector.finish())
}

#[cfg(test)]
mod tests {
    #[test]
    fn demo_loads_without_warnings_beyond_expected_ones() {
        let s = super::load().expect("demo loads");
        assert!(s.nodes.len() >= 6);
        assert!(!s.pod_groups.is_empty());
        assert!(
            !s.stale.is_empty(),
            "the demo keeps a left-over v1alpha2 object"
        );
        assert!(s.facts.snapshot_time.is_some());
        assert!(
            s.warnings.iter().all(|w| w.code != "UnknownKinds"),
            "{:?}",
            s.warnings
        );
    }
}
