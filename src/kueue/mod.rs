//! Kueue's admission, simulated: which pending Kueue Workloads Kueue's scheduler would admit
//! (quota, cohorts, flavors, preemption) before kube-scheduler places their pods.
//!
//! Pure: no IO. Built up from Kueue's own code (kubernetes-sigs/kueue, August 2026), each
//! file naming the Kueue file it ports:
//! - [`quota`]: the quota forest of ClusterQueues and Cohorts (`resource_node.go`);
//! - [`workload`]: a Kueue Workload's queue, priority, order and requests (`workload.go`);
//! - [`flavor`]: flavor assignment (`flavorassigner.go`);
//! - [`preempt`]: classical preemption (`preemption.go`, `classical/*`);
//! - [`admission`]: the scheduling loop, run until it settles (`scheduler.go`);
//! - [`launch`]: the Jobs admitted workloads start (`jobframework`, `podset.go`).
//! - [`view`]: the current quota state, read from the workloads holding quota (no simulation).

pub(crate) mod admission;
pub(crate) mod dry_run;
#[cfg(test)]
mod fixtures;
pub(crate) mod flavor;
pub(crate) mod launch;
pub(crate) mod preempt;
pub(crate) mod quota;
pub(crate) mod stages;
pub(crate) mod view;
pub(crate) mod workload;
