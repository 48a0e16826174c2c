//! Prune at load what no part of wasctl reads, as kube-scheduler's informer transform strips
//! `managedFields` (issue 15). Decided field by field:
//!
//! | dropped | why it is safe |
//! |---|---|
//! | `metadata.managedFields` (every kind) | nothing reads it; export drops it anyway |
//! | the `kubectl.kubernetes.io/last-applied-configuration` annotation (every kind) | nothing reads it; export drops it anyway |
//! | Pod `status.containerStatuses`, `initContainerStatuses`, `ephemeralContainerStatuses` | the simulator takes requests from the spec (in-place resize's `allocatedResources` is not modelled); tree and doctor read `phase`, `conditions`, `nominatedNodeName` |
//! | Node `status.images` but one empty entry (kept when the node lists any), `volumesInUse`, `volumesAttached` | ImageLocality and volume limits are not modelled; whether nodes list images decides whether the `image-locality` note is printed |
//! | Pod containers' (and init containers') `env`, `envFrom`, `volumeMounts`, `volumeDevices`, probes, `lifecycle`, `securityContext`, `workingDir`, termination message fields; `spec.ephemeralContainers` | no command reads them (the simulator reads `resources`, `ports`, `restartPolicy`, `name`, `image`); they are most of a real pod's bytes |
//! | Pod `spec.volumes` | volume binding and volume limits are not modelled; DRA claims come from `spec.resourceClaims` |
//! | Pod conditions other than `PodScheduled`, `DisruptionTarget` and `Ready` (dropped by `tidy`, after reading) | nothing reads `Initialized`, `ContainersReady`, `PodReadyToStartContainers` |
//! | Pod containers' `command` and `args`, except in `kube-system` | facts read control-plane flags (`--feature-gates`) from kube-system pods only |
//! | A Job's pod template, as a pod's spec (`spec.template.spec`: the container fields, `volumes`, `ephemeralContainers`, `command` and `args`; the template's last-applied annotation) | capacity reads the template's resources, scheduling group, claims, tolerations and affinity; the graph, doctor and the evidence read the Job's owners, status, labels and `spec.scheduling` |
//!
//! Kept on purpose: node `conditions` and `nodeInfo` (facts read kubelet versions), every other
//! spec field. A pod then goes into the snapshot's pod record ([`crate::snapshot::pod`]),
//! which keeps only the fields some command reads (its own table).
//!
//! The table above is one list, [`Rules`] per kind, and it is applied *while* deserializing
//! ([`Pruned`], a `Deserializer` adapter): a dropped subtree is skipped as
//! [`IgnoredAny`] and never built, so a 10 KB pod costs what its kept
//! fields cost. Untyped objects (foreign and stale kinds) are pruned with the same rules by
//! [`prune_value`]. A dropped field is not type-checked either, as it is never read.

use std::fmt;

use k8s_openapi::api::core::v1::{LimitRange, ResourceQuota};
use k8s_openapi::api::core::v1::{Namespace, Node, Pod};
use k8s_openapi::api::node::v1::RuntimeClass;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::api::resource::v1::{
    DeviceClass, DeviceTaintRule, ResourceClaim, ResourceClaimTemplate, ResourceSlice,
};
use k8s_openapi::api::scheduling::v1::PriorityClass;
use k8s_openapi::api::scheduling::v1alpha3::CompositePodGroup;
use k8s_openapi::api::scheduling::v1beta1::{PodGroup, Workload};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, IntoDeserializer, Visitor};
use serde_json::Value;

use crate::snapshot::facts::ClusterFacts;
use k8s_openapi::api::batch::v1::Job;

/// The annotation `kubectl apply` writes: a full copy of the object, never read.
pub(crate) const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// What to drop below one value: for a mapping, the keys in `drop` are skipped and the keys
/// in `below` get their own rules; for a sequence, every element gets these rules. Anything
/// else is read as it is.
#[derive(Debug)]
pub(crate) struct Rules {
    /// Keys dropped with their whole value.
    pub drop: &'static [&'static str],
    /// Keys whose value has rules of its own.
    pub below: &'static [(&'static str, &'static Rules)],
}

impl Rules {
    fn child(&self, key: &str) -> Option<&'static Rules> {
        self.below.iter().find(|(k, _)| *k == key).map(|(_, r)| *r)
    }

    fn drops(&self, key: &str) -> bool {
        self.drop.contains(&key)
    }
}

/// No rules: read everything.
pub(crate) static NOTHING: Rules = Rules {
    drop: &[],
    below: &[],
};

/// `metadata` of every kind.
pub(crate) static META: Rules = Rules {
    drop: &["managedFields"],
    below: &[(
        "annotations",
        &Rules {
            drop: &[LAST_APPLIED],
            below: &[],
        },
    )],
};

/// An object whose only pruned fields are in its metadata.
pub(crate) static META_ONLY: Rules = Rules {
    drop: &[],
    below: &[("metadata", &META)],
};

/// What a container drops: the fields no command reads, and `extra`.
macro_rules! container_drop {
    ($($extra:literal),*) => {
        &[
            "env",
            "envFrom",
            "volumeMounts",
            "volumeDevices",
            "livenessProbe",
            "readinessProbe",
            "startupProbe",
            "lifecycle",
            "securityContext",
            "workingDir",
            "terminationMessagePath",
            "terminationMessagePolicy",
            $($extra),*
        ]
    };
}

/// What a container drops in `kube-system`, where facts read `command` and `args`.
const CONTAINER_CONTROL_PLANE: &[&str] = container_drop!();

/// What a container drops elsewhere.
const CONTAINER: &[&str] = container_drop!("command", "args");

const POD_STATUS: Rules = Rules {
    drop: &[
        "containerStatuses",
        "initContainerStatuses",
        "ephemeralContainerStatuses",
    ],
    below: &[],
};

/// The rules of a pod's spec (or a pod template's) whose containers drop `container`.
macro_rules! pod_spec_rules {
    ($container:expr) => {
        Rules {
            drop: &["volumes", "ephemeralContainers"],
            below: &[
                (
                    "containers",
                    &Rules {
                        drop: $container,
                        below: &[],
                    },
                ),
                (
                    "initContainers",
                    &Rules {
                        drop: $container,
                        below: &[],
                    },
                ),
            ],
        }
    };
}

/// The rules of a pod whose containers drop `container`.
macro_rules! pod_rules {
    ($container:expr) => {
        Rules {
            drop: &[],
            below: &[
                ("metadata", &META),
                ("spec", &pod_spec_rules!($container)),
                ("status", &POD_STATUS),
            ],
        }
    };
}

/// A pod template (a Job's, a Kueue Workload pod set's): metadata as every object's, the spec
/// as a pod's.
static POD_TEMPLATE: Rules = Rules {
    drop: &[],
    below: &[("metadata", &META), ("spec", &pod_spec_rules!(CONTAINER))],
};

/// A Job: its pod template's spec as a pod's (what capacity, the graph and the evidence read
/// of it: resources, the scheduling group, claims, labels), and the metadata of both.
pub(crate) static JOB: Rules = Rules {
    drop: &[],
    below: &[
        ("metadata", &META),
        (
            "spec",
            &Rules {
                drop: &[],
                below: &[("template", &POD_TEMPLATE)],
            },
        ),
    ],
};

/// A Kueue object: metadata as every object's; a Kueue Workload's pod set templates as a
/// Job's template (the containers keep what the simulator reads).
pub(crate) static KUEUE: Rules = Rules {
    drop: &[],
    below: &[
        ("metadata", &META),
        (
            "spec",
            &Rules {
                drop: &[],
                below: &[(
                    "podSets",
                    &Rules {
                        drop: &[],
                        below: &[("template", &POD_TEMPLATE)],
                    },
                )],
            },
        ),
    ],
};

/// A pod outside `kube-system`.
pub(crate) static POD: Rules = pod_rules!(CONTAINER);

/// A pod in `kube-system`.
pub(crate) static POD_CONTROL_PLANE: Rules = pod_rules!(CONTAINER_CONTROL_PLANE);

/// An entry of a node's `status.images`: only that it exists is kept (see `Node`'s `tidy`).
static IMAGE: Rules = Rules {
    drop: &["names", "sizeBytes"],
    below: &[],
};

/// A node.
pub(crate) static NODE: Rules = Rules {
    drop: &[],
    below: &[
        ("metadata", &META),
        (
            "status",
            &Rules {
                drop: &["volumesInUse", "volumesAttached"],
                below: &[("images", &IMAGE)],
            },
        ),
    ],
};

/// A type loaded with pruning rules.
pub(crate) trait Prune {
    /// The rules for an object in `namespace`.
    fn rules(namespace: Option<&str>) -> &'static Rules;

    /// The rules to read with before the namespace is known: the ones that drop least, so
    /// that [`Prune::tidy`], which sees the namespace, can finish the pruning (only a pod's
    /// rules depend on the namespace).
    fn rules_any_namespace() -> &'static Rules {
        Self::rules(None)
    }

    /// Tidies what the rules left (an annotation map emptied by the pruning becomes `None`).
    fn tidy(&mut self) {}
}

/// An annotation map that pruning emptied is no map at all.
fn tidy_meta(meta: &mut ObjectMeta) {
    if meta.annotations.as_ref().is_some_and(|a| a.is_empty()) {
        meta.annotations = None;
    }
}

macro_rules! meta_only {
    ($($t:ty),* $(,)?) => {
        $( impl Prune for $t {
            fn rules(_: Option<&str>) -> &'static Rules {
                &META_ONLY
            }
            fn tidy(&mut self) {
                tidy_meta(&mut self.metadata);
            }
        } )*
    };
}

meta_only!(
    Namespace,
    PodDisruptionBudget,
    LimitRange,
    ResourceQuota,
    RuntimeClass,
    DeviceClass,
    DeviceTaintRule,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
    PriorityClass,
    CompositePodGroup,
    PodGroup,
    Workload,
    k8s_openapi::api::core::v1::Event,
);

impl Prune for Pod {
    fn rules(namespace: Option<&str>) -> &'static Rules {
        if namespace == Some("kube-system") {
            &POD_CONTROL_PLANE
        } else {
            &POD
        }
    }
    fn rules_any_namespace() -> &'static Rules {
        &POD_CONTROL_PLANE
    }
    fn tidy(&mut self) {
        tidy_meta(&mut self.metadata);
        // What `POD` drops beyond `POD_CONTROL_PLANE`, for a pod read before its namespace
        // was known (a no-op after reading with the pod's own rules).
        if self.metadata.namespace.as_deref() != Some("kube-system")
            && let Some(spec) = self.spec.as_mut()
        {
            let init = spec.init_containers.iter_mut().flatten();
            for c in spec.containers.iter_mut().chain(init) {
                c.command = None;
                c.args = None;
            }
        }
        if let Some(conditions) = self.status.as_mut().and_then(|s| s.conditions.as_mut()) {
            conditions.retain(|c| KEPT_POD_CONDITIONS.contains(&c.type_.as_str()));
            conditions.shrink_to_fit();
        }
    }
}

/// The pod conditions anything reads: tree (`PodScheduled=False`, `DisruptionTarget`), the
/// simulator (`DisruptionTarget` of a preemption), explain and the TUI (`Ready`). A running
/// pod's `PodReadyToStartContainers`, `Initialized` and `ContainersReady` are dropped.
const KEPT_POD_CONDITIONS: &[&str] = &["PodScheduled", "DisruptionTarget", "Ready"];

impl Prune for Job {
    fn rules(_: Option<&str>) -> &'static Rules {
        &JOB
    }
    fn tidy(&mut self) {
        tidy_meta(&mut self.metadata);
        if let Some(meta) = self
            .spec
            .as_mut()
            .and_then(|s| s.template.metadata.as_mut())
        {
            tidy_meta(meta);
        }
    }
}

impl Prune for Node {
    fn rules(_: Option<&str>) -> &'static Rules {
        &NODE
    }
    fn tidy(&mut self) {
        tidy_meta(&mut self.metadata);
        // Whether the node lists images (ImageLocality could score it) is all that is read:
        // one empty entry stands for the list.
        if let Some(images) = self.status.as_mut().and_then(|s| s.images.as_mut()) {
            images.truncate(1);
            images.shrink_to_fit();
        }
    }
}

impl Prune for ClusterFacts {
    fn rules(_: Option<&str>) -> &'static Rules {
        &NOTHING
    }
}

impl Prune for ObjectMeta {
    fn rules(_: Option<&str>) -> &'static Rules {
        &META
    }
    fn tidy(&mut self) {
        tidy_meta(self);
    }
}

/// Applies `rules` to an untyped object in place.
pub(crate) fn prune_value(value: &mut Value, rules: &Rules) {
    match value {
        Value::Object(map) => {
            for key in rules.drop {
                map.remove(*key);
            }
            for (key, below) in rules.below {
                if let Some(v) = map.get_mut(*key) {
                    prune_value(v, below);
                }
            }
        }
        Value::Array(items) => {
            for v in items {
                prune_value(v, rules);
            }
        }
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------------
// The deserializer adapter

/// A `Deserializer` that reads through `inner`, skipping what `rules` drop.
pub(crate) struct Pruned<D> {
    inner: D,
    rules: &'static Rules,
}

impl<D> Pruned<D> {
    /// Wraps `inner`.
    pub(crate) fn new(inner: D, rules: &'static Rules) -> Self {
        Self { inner, rules }
    }
}

/// A visitor that hands its mappings and sequences on pruned.
struct Wrap<V> {
    visitor: V,
    rules: &'static Rules,
}

macro_rules! forward_plain {
    ($($method:ident),* $(,)?) => {
        $( fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.inner.$method(visitor)
        } )*
    };
}

macro_rules! forward_wrapped {
    ($($method:ident($($arg:ident: $t:ty),*)),* $(,)?) => {
        $( fn $method<V: Visitor<'de>>(self, $($arg: $t,)* visitor: V) -> Result<V::Value, D::Error> {
            let rules = self.rules;
            self.inner.$method($($arg,)* Wrap { visitor, rules })
        } )*
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Pruned<D> {
    type Error = D::Error;

    forward_plain!(
        deserialize_bool,
        deserialize_i8,
        deserialize_i16,
        deserialize_i32,
        deserialize_i64,
        deserialize_i128,
        deserialize_u8,
        deserialize_u16,
        deserialize_u32,
        deserialize_u64,
        deserialize_u128,
        deserialize_f32,
        deserialize_f64,
        deserialize_char,
        deserialize_str,
        deserialize_string,
        deserialize_bytes,
        deserialize_byte_buf,
        deserialize_unit,
        deserialize_identifier,
        deserialize_ignored_any,
    );
    forward_wrapped!(
        deserialize_any(),
        deserialize_option(),
        deserialize_seq(),
        deserialize_map(),
        deserialize_newtype_struct(name: &'static str),
        deserialize_tuple(len: usize),
        deserialize_tuple_struct(name: &'static str, len: usize),
        deserialize_struct(name: &'static str, fields: &'static [&'static str]),
    );

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.inner.deserialize_unit_struct(name, visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.inner.deserialize_enum(name, variants, visitor)
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

macro_rules! visit_plain {
    ($($method:ident: $t:ty),* $(,)?) => {
        $( fn $method<E: de::Error>(self, v: $t) -> Result<V::Value, E> {
            self.visitor.$method(v)
        } )*
    };
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Wrap<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    visit_plain!(
        visit_bool: bool,
        visit_i8: i8,
        visit_i16: i16,
        visit_i32: i32,
        visit_i64: i64,
        visit_i128: i128,
        visit_u8: u8,
        visit_u16: u16,
        visit_u32: u32,
        visit_u64: u64,
        visit_u128: u128,
        visit_f32: f32,
        visit_f64: f64,
        visit_char: char,
        visit_str: &str,
        visit_borrowed_str: &'de str,
        visit_string: String,
        visit_bytes: &[u8],
        visit_borrowed_bytes: &'de [u8],
        visit_byte_buf: Vec<u8>,
    );

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.visitor.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.visitor.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.visitor.visit_some(Pruned::new(d, self.rules))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.visitor
            .visit_newtype_struct(Pruned::new(d, self.rules))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_seq(Seq {
            inner: seq,
            rules: self.rules,
        })
    }

    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_map(Map {
            inner: map,
            rules: self.rules,
            pending: None,
        })
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_enum(data)
    }
}

/// A seed that deserializes through a [`Pruned`].
struct Seed<S> {
    seed: S,
    rules: &'static Rules,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(Pruned::new(d, self.rules))
    }
}

/// Every element of a pruned sequence gets the sequence's rules.
struct Seq<A> {
    inner: A,
    rules: &'static Rules,
}

impl<'de, A: de::SeqAccess<'de>> de::SeqAccess<'de> for Seq<A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        self.inner.next_element_seed(Seed {
            seed,
            rules: self.rules,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

/// A mapping key, borrowed from the input where it can be.
enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl Key<'_> {
    fn as_str(&self) -> &str {
        match self {
            Key::Borrowed(s) => s,
            Key::Owned(s) => s,
        }
    }
}

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key::Borrowed(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key::Owned(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key::Owned(v))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

/// A pruned mapping: dropped keys are skipped with their values, and the values of keys with
/// rules of their own are read through those rules.
struct Map<A> {
    inner: A,
    rules: &'static Rules,
    pending: Option<&'static Rules>,
}

impl<'de, A: de::MapAccess<'de>> de::MapAccess<'de> for Map<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        loop {
            let Some(key) = self.inner.next_key::<Key<'de>>()? else {
                return Ok(None);
            };
            if self.rules.drops(key.as_str()) {
                self.inner.next_value::<IgnoredAny>()?;
                continue;
            }
            self.pending = self.rules.child(key.as_str());
            return match key {
                Key::Borrowed(s) => seed
                    .deserialize(de::value::BorrowedStrDeserializer::new(s))
                    .map(Some),
                Key::Owned(s) => seed.deserialize(s.into_deserializer()).map(Some),
            };
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        match self.pending.take() {
            Some(rules) => self.inner.next_value_seed(Seed { seed, rules }),
            None => self.inner.next_value_seed(seed),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropped_subtrees_are_skipped_and_the_rest_is_read() {
        let text = r#"{"apiVersion":"v1","kind":"Pod",
            "metadata":{"name":"p","namespace":"ml","managedFields":[{"manager":"x","fieldsV1":{"f:a":{}}}],
              "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}","keep":"me"}},
            "spec":{"volumes":[{"name":"v"}],"containers":[{"name":"c","image":"i","command":["run"],
              "env":[{"name":"A","value":"1"}],"resources":{"requests":{"cpu":"1"}}}]},
            "status":{"phase":"Running","containerStatuses":[{"name":"c"}]}}"#;
        let mut de = serde_json::Deserializer::from_str(text);
        let pod: Pod = de::Deserialize::deserialize(Pruned::new(&mut de, &POD)).unwrap();
        assert!(pod.metadata.managed_fields.is_none());
        let ann = pod.metadata.annotations.as_ref().unwrap();
        assert_eq!(ann.len(), 1);
        assert_eq!(ann["keep"], "me");
        let spec = pod.spec.as_ref().unwrap();
        assert!(spec.volumes.is_none());
        let c = &spec.containers[0];
        assert!(c.env.is_none() && c.command.is_none());
        assert_eq!(c.image.as_deref(), Some("i"));
        assert!(c.resources.as_ref().unwrap().requests.is_some());
        let status = pod.status.as_ref().unwrap();
        assert!(status.container_statuses.is_none());
        assert_eq!(status.phase.as_deref(), Some("Running"));

        // Conditions: the ones something reads stay, in their order.
        let with_conditions = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
            "status":{"conditions":[{"type":"Initialized","status":"True"},
              {"type":"Ready","status":"True"},{"type":"ContainersReady","status":"True"},
              {"type":"DisruptionTarget","status":"True","reason":"PreemptionByScheduler"},
              {"type":"PodScheduled","status":"True"}]}}"#;
        let mut pod: Pod = serde_json::from_str(with_conditions).unwrap();
        pod.tidy();
        let kept: Vec<&str> = pod
            .status
            .as_ref()
            .unwrap()
            .conditions
            .as_ref()
            .unwrap()
            .iter()
            .map(|c| c.type_.as_str())
            .collect();
        assert_eq!(kept, ["Ready", "DisruptionTarget", "PodScheduled"]);

        // The same rules on an untyped value, and in kube-system `command` stays.
        let mut value: Value = serde_json::from_str(text).unwrap();
        prune_value(&mut value, &POD_CONTROL_PLANE);
        let pod: Pod = serde_json::from_value(value).unwrap();
        let c = &pod.spec.as_ref().unwrap().containers[0];
        assert!(c.env.is_none());
        assert_eq!(c.command.as_deref(), Some(&["run".to_owned()][..]));
        assert!(pod.metadata.managed_fields.is_none());
    }

    #[test]
    fn a_nodes_images_are_kept_as_one_empty_entry_saying_that_it_lists_some() {
        let text = r#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},
            "status":{"images":[{"names":["registry/a:1"],"sizeBytes":123},{"names":["b"]}],
              "volumesInUse":["v"]}}"#;
        let mut de = serde_json::Deserializer::from_str(text);
        let mut node: Node = de::Deserialize::deserialize(Pruned::new(&mut de, &NODE)).unwrap();
        node.tidy();
        let status = node.status.as_ref().unwrap();
        assert!(status.volumes_in_use.is_none());
        let images = status.images.as_ref().unwrap();
        assert_eq!(images.len(), 1);
        assert!(images[0].names.is_none() && images[0].size_bytes.is_none());
        let without = r#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"status":{}}"#;
        let mut de = serde_json::Deserializer::from_str(without);
        let mut node: Node = de::Deserialize::deserialize(Pruned::new(&mut de, &NODE)).unwrap();
        node.tidy();
        assert!(node.status.as_ref().unwrap().images.is_none());
    }

    #[test]
    fn a_dropped_field_of_the_wrong_type_is_not_read_but_a_kept_one_is_checked() {
        let dropped =
            r#"{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","env":"oops"}]}}"#;
        let mut de = serde_json::Deserializer::from_str(dropped);
        let pod: Pod = de::Deserialize::deserialize(Pruned::new(&mut de, &POD)).unwrap();
        assert_eq!(pod.spec.unwrap().containers[0].name, "c");
        let kept =
            r#"{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","ports":"eighty"}]}}"#;
        let mut de = serde_json::Deserializer::from_str(kept);
        let err =
            serde_path_to_error::deserialize::<_, Pod>(Pruned::new(&mut de, &POD)).unwrap_err();
        assert_eq!(err.path().to_string(), "spec.containers[0].ports");
    }
}
