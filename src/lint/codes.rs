//! The one table mapping stable `WAS###` codes to rules (ruff's `codes.rs`). Codes are never
//! reused: a retired rule keeps its number. Families: `WAS0xx` input, `WAS1xx` names and
//! limits, `WAS2xx` unions and structure, `WAS3xx` cross-object references, `WAS4xx` versions
//! and feature gates, `WAS5xx` upstream's declarative validation, `WAS6xx` DRA and PriorityClass
//! semantics. Each rule's documentation lives next to its check in `rules/<family>.rs`.

use super::Severity;
use super::rules::{
    declarative, input, limits, metadata, references, semantic, structure, versions,
};

macro_rules! rules {
    ($($code:literal => $variant:ident, $name:literal, $severity:ident, $summary:literal, $doc:path;)*) => {
        /// A lint rule. [`Rule::code`] is its stable identity.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub(crate) enum Rule {
            $(
                #[doc = $summary]
                $variant,
            )*
        }

        /// Every rule, in code order.
        pub(crate) const ALL: &[Rule] = &[$(Rule::$variant),*];

        impl Rule {
            /// The stable code, e.g. `WAS101`.
            pub(crate) fn code(self) -> &'static str {
                match self { $(Self::$variant => $code,)* }
            }

            /// The kebab-case name, e.g. `invalid-object-name`.
            pub(crate) fn name(self) -> &'static str {
                match self { $(Self::$variant => $name,)* }
            }

            /// The severity unless `--config` changes it.
            pub(crate) fn default_severity(self) -> Severity {
                match self { $(Self::$variant => Severity::$severity,)* }
            }

            /// One line: what the rule checks.
            pub(crate) fn summary(self) -> &'static str {
                match self { $(Self::$variant => $summary,)* }
            }

            /// The full documentation (What it does / Why is this bad? / Example / Use instead / References).
            pub(crate) fn doc(self) -> &'static str {
                match self { $(Self::$variant => $doc,)* }
            }
        }
    };
}

rules! {
    "WAS001" => SyntaxError, "syntax-error", Error, "The document is not valid YAML or JSON", input::WAS001;
    "WAS002" => UnknownKind, "unknown-kind", Info, "The kind is not one wasctl checks and no CRD defines it, so it was not checked", input::WAS002;
    "WAS003" => UnknownField, "unknown-field", Error, "A field the Kubernetes 1.37 type (or the CRD's schema) does not have: a typo, or renamed or removed (`--field-validation`)", input::WAS003;
    "WAS004" => InvalidObject, "invalid-object", Error, "`apiVersion`, `kind` or `metadata.name` is missing, or the object does not match its 1.37 schema or its CRD's", input::WAS004;
    "WAS005" => NotKubernetes, "not-kubernetes", Info, "A document with neither `apiVersion` nor `kind` (package.json, a CI workflow) was skipped", input::WAS005;
    "WAS006" => EmptyInput, "empty-input", Info, "A file has no YAML or JSON documents", input::WAS006;
    "WAS007" => CrdRuleFailed, "crd-rule-failed", Error, "A custom resource breaks a CEL `x-kubernetes-validations` rule of its CRD", input::WAS007;
    "WAS008" => CrdCheckSkipped, "crd-check-skipped", Info, "A CRD check wasctl could not run: a CEL rule it cannot evaluate (`oldSelf`, a missing CEL library, a compile error) or a schema it cannot compile", input::WAS008;
    "WAS101" => InvalidObjectName, "invalid-object-name", Error, "A Workload, PodGroup or CompositePodGroup name is not a DNS subdomain", limits::WAS101;
    "WAS102" => InvalidTemplateName, "invalid-template-name", Error, "A template name is missing or not a DNS label", limits::WAS102;
    "WAS103" => InvalidReferenceName, "invalid-reference-name", Error, "A reference (workloadRef, parent, claim, schedulingGroup, controllerRef) has an invalid name", limits::WAS103;
    "WAS104" => TooManyTemplates, "too-many-templates", Error, "More than 8 PodGroup or CompositePodGroup templates in one list", limits::WAS104;
    "WAS105" => TemplateTreeTooDeep, "template-tree-too-deep", Error, "The template hierarchy is deeper than 4", limits::WAS105;
    "WAS106" => TooManyTopologyConstraints, "too-many-topology-constraints", Error, "`schedulingConstraints.topology` has more than 1 entry", limits::WAS106;
    "WAS107" => InvalidTopologyKey, "invalid-topology-key", Error, "A topology constraint key is missing or not a label key", limits::WAS107;
    "WAS108" => TooManyResourceClaims, "too-many-resource-claims", Error, "More than 4 resourceClaims or resourceClaimStatuses", limits::WAS108;
    "WAS109" => PriorityOutOfRange, "priority-out-of-range", Error, "`priority` is above 1,000,000,000", limits::WAS109;
    "WAS110" => MinCountBelowOne, "min-count-below-one", Error, "`gang.minCount` or `gang.minGroupCount` is missing or below 1", limits::WAS110;
    "WAS111" => AnnotationsTooLarge, "annotations-too-large", Error, "An object's annotations, keys and values, total more than 262,144 bytes (any kind)", metadata::WAS111;
    "WAS201" => TemplateListUnion, "template-list-union", Error, "A Workload sets both or neither of podGroupTemplates and compositePodGroupTemplates", structure::WAS201;
    "WAS202" => SchedulingPolicyUnion, "scheduling-policy-union", Error, "`schedulingPolicy` sets both or neither of `basic` and `gang`", structure::WAS202;
    "WAS203" => DisruptionModeUnion, "disruption-mode-union", Error, "`disruptionMode` sets both or neither of `single` and `all`", structure::WAS203;
    "WAS204" => ClaimSourceUnion, "claim-source-union", Error, "A resourceClaims entry sets both or neither of resourceClaimName and resourceClaimTemplateName", structure::WAS204;
    "WAS205" => CompositeWithoutChildren, "composite-template-without-children", Error, "A composite template has no child template", structure::WAS205;
    "WAS206" => DuplicateTemplateName, "duplicate-template-name", Error, "Two templates in one Workload tree share a name", structure::WAS206;
    "WAS207" => MixedTemplatePriorities, "mixed-template-priorities", Error, "Templates of one Workload differ in priority or priorityClassName", structure::WAS207;
    "WAS208" => MissingWorkloadRef, "missing-workload-ref", Error, "A CompositePodGroup, or a PodGroup with a parent, has no workloadRef", structure::WAS208;
    "WAS209" => ClaimStatusNameMismatch, "claim-status-name-mismatch", Error, "A status.resourceClaimStatuses name is not in spec.resourceClaims, or repeats", structure::WAS209;
    "WAS210" => JobGangExceedsParallelism, "job-gang-exceeds-parallelism", Error, "A Job's gang minCount is larger than its parallelism", structure::WAS210;
    "WAS301" => MissingPodGroup, "missing-pod-group", Warning, "A pod's schedulingGroup names a PodGroup that does not exist", references::WAS301;
    "WAS302" => PodClaimMismatch, "pod-claim-mismatch", Warning, "A pod claim has the name of a PodGroup claim but another source", references::WAS302;
    "WAS303" => MissingWorkload, "missing-workload", Warning, "A workloadRef names a Workload that does not exist", references::WAS303;
    "WAS304" => MissingTemplate, "missing-template", Warning, "A workloadRef names a template the Workload does not have", references::WAS304;
    "WAS305" => PolicyMismatch, "policy-mismatch", Warning, "A PodGroup's schedulingPolicy differs from its template's", references::WAS305;
    "WAS306" => MissingParentComposite, "missing-parent-composite", Warning, "parentCompositePodGroupName names a CompositePodGroup that does not exist", references::WAS306;
    "WAS307" => MissingGroupTemplate, "missing-group-template", Warning, "A Job's group-template-name annotation names no template of its owner's Workload", references::WAS307;
    "WAS308" => MissingPriorityClass, "missing-priority-class", Warning, "priorityClassName names a PriorityClass the cluster does not have", references::WAS308;
    "WAS309" => MissingDeviceClass, "missing-device-class", Warning, "A claim request names a DeviceClass the cluster does not have", references::WAS309;
    "WAS310" => UnknownTopologyKey, "unknown-topology-key", Warning, "A topology key is not a label of any node in the cluster", references::WAS310;
    "WAS311" => ImmutableFieldChanged, "immutable-field-changed", Error, "An immutable field differs from the object in the cluster", references::WAS311;
    "WAS313" => ParentCycle, "parent-cycle", Error, "parentCompositePodGroupName references form a cycle", references::WAS313;
    "WAS314" => HierarchyTooDeep, "hierarchy-too-deep", Error, "A CompositePodGroup hierarchy is deeper than 4 levels or mixes Workloads", references::WAS314;
    "WAS312" => GangCannotFit, "gang-cannot-fit", Error, "With `--feasibility`: a linted gang cannot be placed even on the empty cluster", references::WAS312;
    "WAS401" => RemovedApiVersion, "removed-api-version", Error, "An apiVersion 1.37 does not serve for the kind (scheduling `v1alpha1`/`v1alpha2`, PodGroup/Workload `scheduling.k8s.io/v1`, PriorityClass `v1beta1`, resource `v1alpha2`, …)", versions::WAS401;
    "WAS402" => RenamedDisruptionMode, "renamed-disruption-mode", Error, "`disruptionMode` uses the 1.36 string form", versions::WAS402;
    "WAS403" => AlphaFeatureGate, "alpha-feature-gate", Info, "A field or kind needs an alpha feature gate that is off by default", versions::WAS403;
    "WAS404" => PreferStableVersion, "prefer-stable-version", Info, "A `scheduling.k8s.io/v1alpha3` Workload or PodGroup, where `v1beta1` exists", versions::WAS404;
    "WAS405" => DeprecatedApiVersion, "deprecated-api-version", Warning, "A served but deprecated apiVersion (resource `v1beta1`/`v1beta2` → `v1`)", versions::WAS405;
    "WAS501" => InvalidEnumValue, "invalid-enum-value", Error, "A value that is not one of the field's enum values (`+enum`)", declarative::WAS501;
    "WAS502" => InvalidFormat, "invalid-format", Error, "A name, key or label that does not have its upstream format (DNS label or subdomain, qualified name); `metadata` of every kind", declarative::WAS502;
    "WAS503" => UnionMembers, "union-members", Error, "A union with both or neither of its members (pod claim source, DRA `exactly`/`firstAvailable`, …)", declarative::WAS503;
    "WAS504" => DuplicateListKey, "duplicate-list-key", Error, "Two items of a keyed list (`+listType=map`) share a key", declarative::WAS504;
    "WAS505" => OutOfRange, "out-of-range", Error, "A number or list size outside its upstream bounds", declarative::WAS505;
    "WAS601" => InvalidCelSelector, "invalid-cel-selector", Error, "A DRA CEL selector does not compile, is too long or exceeds the cost limit", semantic::WAS601;
    "WAS602" => InvalidDeviceRequest, "invalid-device-request", Error, "A device request's shape, or a constraint or config naming no request of the claim", semantic::WAS602;
    "WAS603" => InvalidCapacity, "invalid-capacity", Error, "A device capacity or its request policy is not valid", semantic::WAS603;
    "WAS604" => InvalidPriorityClass, "invalid-priority-class", Error, "A PriorityClass value above 1,000,000,000 or a reserved `system-` name", semantic::WAS604;
    "WAS605" => InvalidQuantity, "invalid-quantity", Error, "A pod's or node's resource quantity is not a Kubernetes quantity, or is negative", semantic::WAS605;
}

impl Rule {
    /// Finds a rule by code (`WAS101`, case-insensitive) or name (`invalid-object-name`).
    pub(crate) fn parse(s: &str) -> Option<Self> {
        ALL.iter()
            .copied()
            .find(|r| r.code().eq_ignore_ascii_case(s) || r.name() == s)
    }
}

/// The anchor of a rule's heading in the rules page (`## WAS101` → `was101`, as GitHub
/// derives heading anchors).
pub(crate) fn anchor(rule: Rule) -> String {
    rule.code().to_ascii_lowercase()
}

/// The rules page (`schemas/rules.md`, written by `kubectl wasctl generate schemas`): one
/// heading per rule, which SARIF `helpUri`s point at, with its documentation.
pub(crate) fn rules_page() -> String {
    let mut out = String::from(
        "# wasctl lint rules\n\n\
         Generated by `kubectl wasctl generate schemas` from the rule table (`src/lint/codes.rs`);\n\
         do not edit. `kubectl wasctl lint --explain CODE` prints the same text.\n\n\
         | code | name | severity | checks |\n|---|---|---|---|\n",
    );
    for r in ALL {
        out.push_str(&format!(
            "| [{}](#{}) | `{}` | {} | {} |\n",
            r.code(),
            anchor(*r),
            r.name(),
            r.default_severity().as_str(),
            r.summary()
        ));
    }
    for r in ALL {
        out.push_str(&format!(
            "\n## {}\n\n`{}`, default severity {}: {}\n\n",
            r.code(),
            r.name(),
            r.default_severity().as_str(),
            r.summary()
        ));
        // The doc's own headings go one level down, under the rule's.
        for line in r.doc().lines() {
            match line.strip_prefix("## ") {
                Some(h) => out.push_str(&format!("### {h}\n")),
                None => {
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_well_formed() {
        let mut codes: Vec<&str> = ALL.iter().map(|r| r.code()).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), ALL.len());
        for r in ALL {
            assert!(r.code().starts_with("WAS") && r.code().len() == 6, "{r:?}");
        }
    }

    #[test]
    fn every_doc_follows_the_template() {
        for r in ALL {
            let doc = r.doc();
            for heading in [
                "## What it does",
                "## Why is this bad?",
                "## Example",
                "Use instead:",
                "## References",
            ] {
                assert!(doc.contains(heading), "{} lacks `{heading}`", r.code());
            }
        }
    }

    #[test]
    fn rules_page_has_one_heading_per_rule() {
        let page = rules_page();
        for r in ALL {
            assert_eq!(
                page.lines()
                    .filter(|l| *l == format!("## {}", r.code()))
                    .count(),
                1,
                "{}",
                r.code()
            );
        }
        assert!(
            !page
                .lines()
                .any(|l| l.starts_with("## ") && !l.starts_with("## WAS"))
        );
    }

    #[test]
    fn parse_accepts_code_and_name() {
        assert_eq!(Rule::parse("was101"), Some(Rule::InvalidObjectName));
        assert_eq!(
            Rule::parse("invalid-object-name"),
            Some(Rule::InvalidObjectName)
        );
        assert_eq!(Rule::parse("WAS999"), None);
    }
}
