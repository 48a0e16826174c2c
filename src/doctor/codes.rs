//! The one table mapping stable `WASD###` IDs to doctor checks (ruff's `codes.rs`, like lint's).
//! IDs are never reused: a retired check keeps its number. Families: `WASD0xx` orphans, leaks
//! and broken references, `WASD1xx` version, feature-gate and API skew, `WASD2xx` gang health,
//! `WASD3xx` coexistence with other batch schedulers, `WASD4xx` DRA, `WASD6xx` Kueue queues
//! and quotas.

use serde::{Serialize, Serializer};

use super::Severity;

macro_rules! checks {
    ($($id:literal => $variant:ident, $severity:ident, $title:literal, $doc:literal;)*) => {
        /// A doctor check. [`Check::id`] is its stable identity.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Check {
            $(
                #[doc = $title]
                $variant,
            )*
        }

        /// Every check, in ID order.
        pub(crate) const ALL: &[Check] = &[$(Check::$variant),*];

        impl Check {
            /// The stable ID, e.g. `WASD001`.
            pub fn id(self) -> &'static str {
                match self { $(Self::$variant => $id,)* }
            }

            /// The severity of every finding of this check.
            pub fn severity(self) -> Severity {
                match self { $(Self::$variant => Severity::$severity,)* }
            }

            /// One line: what the check finds.
            pub fn title(self) -> &'static str {
                match self { $(Self::$variant => $title,)* }
            }

            /// Why it matters and how the check decides.
            pub fn doc(self) -> &'static str {
                match self { $(Self::$variant => $doc,)* }
            }
        }
    };
}

checks! {
    "WASD001" => ClaimReservedForMissingConsumer, Error,
        "A ResourceClaim is reserved for a Pod or PodGroup that does not exist",
        "Its devices stay allocated until the reservation is removed; nothing will use them.";
    "WASD002" => ClaimOwnerGone, Error,
        "A generated ResourceClaim's owning Pod or PodGroup is gone",
        "The claim was generated for a consumer that no longer exists; garbage collection did not remove it (finalizer, or the collector is behind).";
    "WASD003" => ClaimHoldsDevicesWithoutConsumer, Error,
        "A ResourceClaim holds allocated devices but no Pod or PodGroup uses it",
        "No pod or PodGroup references the claim and it is reserved for nobody, yet devices stay allocated to it.";
    "WASD004" => ClaimWithoutConsumer, Info,
        "A ResourceClaim is not used by any Pod or PodGroup (nothing allocated)",
        "It holds no devices; it may be waiting for a consumer, or be left over.";
    "WASD005" => DeletingPodGroupHoldsClaims, Error,
        "A PodGroup being deleted still holds allocated claims",
        "A deletion timestamp with a stuck finalizer keeps the PodGroup's claims allocated (operations §10).";
    "WASD006" => PodGroupWithoutPods, Warning,
        "A PodGroup has no pods",
        "No pod names the PodGroup in `spec.schedulingGroup`: the controller did not create them yet, used another name, or the group is left over.";
    "WASD007" => NoOwner, Info,
        "A Workload, PodGroup or CompositePodGroup has no owner",
        "Nothing garbage-collects it (e.g. it was created by hand); it stays after its pods are gone.";
    "WASD008" => DuplicateGroupsForJob, Warning,
        "One Job has more than one PodGroup or Workload",
        "The parent (JobSet) and the Job controller both created the group, or pods of one Job name different PodGroups (operations §6).";
    "WASD009" => ReservedForNearLimit, Warning,
        "A ResourceClaim's `reservedFor` is near its limit of 256 entries",
        "New consumers cannot reserve the claim once the list is full; a PodGroup-level reservation uses one slot for all members.";
    "WASD010" => MissingWorkloadRef, Warning,
        "A `workloadRef` names a missing Workload or template",
        "The group points at intent that does not exist; controllers and tools that follow the reference are misled.";
    "WASD011" => MissingParent, Error,
        "A PodGroup or CompositePodGroup names a missing parent CompositePodGroup",
        "The group belongs to a tree whose root does not exist, so the tree cannot be scheduled.";
    "WASD012" => MissingPodGroup, Error,
        "A pod's `schedulingGroup` names a PodGroup that does not exist",
        "The pod waits at PreEnqueue until the PodGroup exists (operations §1).";
    "WASD013" => ParentCycle, Error,
        "CompositePodGroups name each other as parents in a cycle",
        "A group that is its own parent, or `a → b → a`, has no root: the tree cannot be scheduled and tools that walk up the hierarchy never reach a top.";
    "WASD014" => HierarchyTooDeep, Error,
        "A CompositePodGroup hierarchy is too deep or mixes Workloads",
        "kube-scheduler 1.37 refuses a hierarchy deeper than 4 levels, the PodGroup included (\"hierarchy depth 5 exceeds maximum allowed depth 4\"), a CompositePodGroup at level 4 (no room for its children), and a tree whose groups reference different Workloads: none of the tree's pods is scheduled.";
    "WASD015" => PodOnMissingNode, Warning,
        "A pod is bound to a missing node",
        "Its `spec.nodeName` names a Node that does not exist. kube-scheduler never queues a bound pod, so it is not rescheduled, and its requests count on no node; its gang counts it as a running member. The pod garbage collector (kube-controller-manager) deletes such pods; one that stays means it is not running. Reported only when every Node was read.";
    "WASD016" => ClaimReservedForReplacedConsumer, Error,
        "A ResourceClaim is reserved for a Pod or PodGroup that was re-created (same name, another UID)",
        "`status.reservedFor` names its consumer by UID, as the resourceclaim controller compares it (pkg/controller/resourceclaim/controller.go: an entry whose object has another UID is no consumer). The reservation belongs to the old object: the scheduler keeps the claim reserved and its devices held, and the new object with that name cannot use the claim until the stale entry is removed.";
    "WASD101" => VersionSkew, Warning,
        "A component's version is outside the supported skew with kube-apiserver",
        "kube-scheduler and kube-controller-manager may be at most one minor older than kube-apiserver, kubelets three, and none newer.";
    "WASD102" => GateSkewInUse, Error,
        "A workload-aware scheduling feature gate differs between components, and objects use it",
        "Gates are per component: one component accepts the objects and another ignores them (with DRAWorkloadResourceClaims, no claim is generated at all).";
    "WASD103" => GateSkew, Warning,
        "A workload-aware scheduling feature gate differs between components (nothing uses it yet)",
        "The first object that uses the feature will be accepted by one component and ignored by another.";
    "WASD104" => StaleGateName, Warning,
        "A component's `--feature-gates` names a gate removed in 1.37",
        "`GangScheduling` and `WorkloadAwarePreemption` were folded into `GenericWorkload`; a 1.37 component refuses to start with an unknown gate.";
    "WASD105" => GatedFieldGateOff, Warning,
        "An object uses a field whose feature gate is off",
        "The API server drops the field on write, or the component that acts on it ignores it.";
    "WASD106" => ServedVersionMissing, Warning,
        "An API version wasctl expects is not served",
        "`scheduling.k8s.io/v1beta1` (Workload, PodGroup) or `resource.k8s.io/v1` is missing from discovery: the gate is off or the API server is not 1.37.";
    "WASD107" => LeftoverOldVersion, Warning,
        "A `scheduling.k8s.io/v1alpha2` or `v1alpha1` object is left over",
        "1.37 no longer serves these versions; the object is not acted on and must be removed (and re-created in v1beta1) across the 1.36 to 1.37 upgrade.";
    "WASD201" => RunningBelowMinCount, Error,
        "A gang was scheduled once, but fewer members than `minCount` run now",
        "`PodGroupInitiallyScheduled=True` is terminal, not health: members were lost after admission (operations §4).";
    "WASD202" => CompositeStatusEmpty, Info,
        "A CompositePodGroup has an empty status",
        "Expected in 1.37 alpha: the scheduler does not fill CompositePodGroup conditions. Read the leaf PodGroups instead (operations §7).";
    "WASD203" => PodClaimEntryMismatch, Warning,
        "A pod's claim entry has the name of a PodGroup claim but another source",
        "Pod and PodGroup entries must match exactly (name, and the same claim or template) to share the group's claim; otherwise the resourceclaim controller gives each pod a claim of its own (its per-pod branch, as with DRAWorkloadResourceClaims off) and the pods schedule without sharing the group's devices.";
    "WASD204" => GangSchedulerNotServed, Error,
        "Pending pods of a native gang name a `schedulerName` no profile of the scheduler configuration serves",
        "kube-scheduler schedules a pod only with the profile its `spec.schedulerName` names (`pkg/scheduler/profile`); with none, the pods stay pending and the gang never forms. Checked only when the configuration is known (`--scheduler-config`, or a KubeSchedulerConfiguration in the input); pods of Volcano, YuniKorn and the like are WASD301's.";
    "WASD205" => GangPluginsDisabled, Error,
        "A gang is scheduled by a profile that disables the gang plugin",
        "Without `GangScheduling` a profile schedules a PodGroup's pods one by one: `minCount` is not enforced, so part of a gang can start and hold devices while the rest waits.";
    "WASD206" => ProfilesDisagreeOnGangs, Warning,
        "Two profiles run different gang-relevant plugins while gangs use one of them",
        "GangScheduling, topology placement, placement scoring, preemption and DRA decide how a gang is placed; when profiles differ in them, the same gang lands (or waits) differently depending on the `schedulerName` its pods name.";
    "WASD301" => PodsUnderTwoSchedulers, Warning,
        "Pods of a native gang are also managed by Kueue, Volcano or YuniKorn",
        "Two systems admit, gang or preempt the same pods.";
    "WASD302" => NamespaceSharedWithBatchScheduler, Info,
        "A namespace holds native gangs and objects of another batch scheduler",
        "Kueue, Volcano or YuniKorn run beside native gang scheduling in this namespace; their quota and preemption do not see each other.";
    "WASD303" => SchedulerConfigNotSupplied, Info,
        "Pods name a scheduler that is neither the default profile nor a known other scheduler, and no scheduler configuration was given",
        "wasctl simulates kube-scheduler's default profile unless it is given the cluster's KubeSchedulerConfiguration; a profile named by these pods may schedule them differently. Pass `--scheduler-config`.";
    "WASD304" => VolcanoGroupStuck, Warning,
        "A Volcano PodGroup has been `Pending` or `Inqueue` longer than `--stuck-after` (default 10m)",
        "Volcano keeps a gang pending while its queue, capacity or `minMember` cannot be met; the finding gives the reason Volcano recorded. wasctl does not simulate Volcano: `explain vcpg/NAME` runs the checks that hold for any scheduler.";
    "WASD305" => VolcanoPodOtherScheduler, Error,
        "A pending pod of a Volcano gang names another scheduler",
        "A pod annotated `scheduling.k8s.io/group-name` (or `scheduling.volcano.sh/group-name`) counts toward its Volcano PodGroup, but only a pod with `schedulerName: volcano` is placed by Volcano: the gang never reaches `minMember`.";
    "WASD306" => YunikornPlaceholderLeft, Warning,
        "YuniKorn placeholder pods are left behind",
        "YuniKorn reserves a task group's room with placeholder pods (`yunikorn.apache.org/placeholder: \"true\"`) and swaps each for a real pod; placeholders of a task group whose real pods all run, or have all finished, hold resources nobody uses.";
    "WASD307" => VolcanoTaskMembersMissing, Warning,
        "A Volcano gang has fewer pods of a task than its `minTaskMember`",
        "Volcano starts a PodGroup only when every task named in `minTaskMember` has that many pods (by the pod annotation `volcano.sh/task-spec`); with fewer, the gang waits however much room the cluster has. The task's pods were not created (a Volcano Job's task `replicas` below the minimum, a controller that failed) or do not carry the annotation.";
    "WASD401" => PreScheduledPodUnallocatedClaim, Error,
        "A pod with `spec.nodeName` set has a claim that is not allocated",
        "The pod bypassed the scheduler, so nothing allocates its claim; the kubelet retries forever while the pod holds CPU and memory.";
    "WASD402" => DeviceAllocatedTwice, Error,
        "One device is allocated to two claims",
        "Only shared allocations (consumable capacity, `shareID`) and admin access may repeat a device.";
    "WASD403" => SliceOfMissingNode, Warning,
        "A ResourceSlice publishes devices of a node that does not exist",
        "The driver or its cleanup left the slice behind; device counts overstate capacity.";
    "WASD404" => IncompletePool, Warning,
        "A device pool is incomplete",
        "The pool's current generation does not have exactly `resourceSliceCount` ResourceSlices (fewer, more, or a count of 0): the scheduler allocates nothing from it, so no request can use the pool (and `allocationMode: All` over its devices fails).";
    "WASD405" => InvalidPool, Error,
        "A device pool is invalid",
        "Duplicate device names, duplicate counter sets or unknown counters: the scheduler allocates nothing from it.";
    "WASD601" => LocalQueueWithoutClusterQueue, Error,
        "A Kueue LocalQueue names a ClusterQueue that does not exist",
        "Kueue admits nothing from the LocalQueue: its workloads wait forever. Only when ClusterQueues were read.";
    "WASD602" => FlavorMatchesNoNode, Warning,
        "A Kueue ResourceFlavor's nodeLabels match no node",
        "Workloads admitted to the flavor get Kueue's node selector for it, and no node accepts their pods. Only when Nodes were read.";
    "WASD603" => QuotaBeyondNodes, Warning,
        "Kueue nominal quota of a flavor is more than its nodes hold",
        "The nominal quotas of every ClusterQueue and Cohort for the flavor, summed, exceed the allocatable of the nodes its labels select: Kueue admits workloads that kube-scheduler can never place.";
    "WASD604" => StoppedQueueWithWork, Warning,
        "A stopped Kueue ClusterQueue or LocalQueue has pending workloads",
        "`stopPolicy` Hold or HoldAndDrain: nothing waiting in it is admitted until it is set back to None.";
    "WASD605" => KueueWorkloadOwnerGone, Warning,
        "A Kueue Workload whose owner no longer exists",
        "Kueue keeps the workload queued (or its quota reserved) for a job that is gone. Only when the owner's kind was read.";
    "WASD606" => GangSizeDisagreesWithKueue, Error,
        "A native gang asks for more members than its Kueue Workload admits",
        "The PodGroup of a Kueue-managed Job has a `minCount` above the pod count Kueue admits: the gang never reaches its quorum.";
}

impl Serialize for Check {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.id())
    }
}

impl Check {
    /// Parses an ID (`WASD001`, case-insensitive).
    pub(crate) fn parse(id: &str) -> Option<Self> {
        ALL.iter()
            .copied()
            .find(|c| c.id().eq_ignore_ascii_case(id.trim()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 51: doctor's WASD203 was an error while lint's WAS302 for the same mismatch was a
    /// warning. kube-scheduler does not refuse such a group: the pod's entry does not match the
    /// group's (`k8s.io/dra/resourceclaim` matches name and source), so the resourceclaim
    /// controller gives the pod a claim of its own and the gang schedules without sharing the
    /// group's devices (docs semantics §1.6): it degrades the group, a warning in both.
    #[test]
    fn the_claim_entry_mismatch_has_one_severity_in_doctor_and_lint() {
        let lint = crate::lint::codes::Rule::parse("WAS302").expect("WAS302");
        assert_eq!(Check::PodClaimEntryMismatch.id(), "WASD203");
        assert_eq!(Check::PodClaimEntryMismatch.severity(), Severity::Warning);
        assert_eq!(
            Check::PodClaimEntryMismatch.severity(),
            lint.default_severity()
        );
    }

    #[test]
    fn ids_are_unique_sorted_and_parse_back() {
        let ids: Vec<&str> = ALL.iter().map(|c| c.id()).collect();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(ids, sorted);
        for c in ALL {
            assert_eq!(Check::parse(&c.id().to_lowercase()), Some(*c));
            assert!(!c.title().ends_with('.'), "{}", c.id());
        }
    }
}
