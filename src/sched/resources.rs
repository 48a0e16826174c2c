//! Resource quantities as integers, and resource vectors indexed by interned names.
//!
//! Kubernetes quantities (`100m`, `1.5`, `64Gi`, `1e3`) are parsed once into integers by
//! [`crate::snapshot::quantity`]: CPU in milli-cores, everything else in base units, rounded up
//! as `resource.Quantity`'s `MilliValue()`/`Value()` do. Hot loops only see `i64`s.

use std::collections::HashMap;

use crate::snapshot::quantity::{parse_milli, parse_quantity};

/// Index of a resource in a [`ResourceTable`].
pub(crate) type ResourceId = u16;

/// The id shared by every resource name past the table's capacity; no node has it.
pub(crate) const OVERFLOW: ResourceId = ResourceId::MAX;

/// The CPU resource, in milli-cores.
pub(crate) const CPU: ResourceId = 0;
/// Memory, in bytes.
pub(crate) const MEMORY: ResourceId = 1;
/// Ephemeral storage, in bytes.
pub(crate) const EPHEMERAL_STORAGE: ResourceId = 2;
/// The pod count.
pub(crate) const PODS: ResourceId = 3;

/// Interned resource names; ids 0–3 are cpu, memory, ephemeral-storage and pods.
#[derive(Debug, Clone)]
pub struct ResourceTable {
    names: Vec<String>,
    ids: HashMap<String, ResourceId>,
}

impl Default for ResourceTable {
    fn default() -> Self {
        let mut t = Self {
            names: Vec::new(),
            ids: HashMap::new(),
        };
        for n in ["cpu", "memory", "ephemeral-storage", "pods"] {
            t.intern(n);
        }
        t
    }
}

impl ResourceTable {
    /// The id of `name`, adding it if new. Past [`OVERFLOW`] distinct names (far more than
    /// any cluster has: only invented input gets there) every new name shares that one id,
    /// which no node ever has: a pod requesting such a resource fits nowhere, rather than
    /// matching another name's capacity.
    pub(crate) fn intern(&mut self, name: &str) -> ResourceId {
        if let Some(id) = self.ids.get(name) {
            return *id;
        }
        let Some(id) = ResourceId::try_from(self.names.len())
            .ok()
            .filter(|id| *id < OVERFLOW)
        else {
            return OVERFLOW;
        };
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        id
    }

    /// The id of `name`, if known.
    pub(crate) fn get(&self, name: &str) -> Option<ResourceId> {
        self.ids.get(name).copied()
    }

    /// The name of `id`.
    pub(crate) fn name(&self, id: ResourceId) -> &str {
        self.names
            .get(usize::from(id))
            .map_or("(one of more than 65,535 resource names)", String::as_str)
    }

    /// How many resources are interned.
    pub(crate) fn len(&self) -> usize {
        self.names.len()
    }

    /// Parses `value` for resource `name` (milli for cpu, base units otherwise).
    pub(crate) fn parse(name: &str, value: &str) -> Option<i64> {
        if name == "cpu" {
            parse_milli(value)
        } else {
            parse_quantity(value)
        }
    }
}

/// A sparse list of (resource, amount), as pods request them.
pub(crate) type Requests = Vec<(ResourceId, i64)>;

/// How many (resource, amount) pairs a pod's [`PodRequests`] holds without an allocation: cpu,
/// memory, an accelerator and ephemeral storage.
const INLINE_REQUESTS: usize = 4;

/// A compiled pod's requests, sorted by resource: inline up to four pairs.
///
/// Every placement, eviction and fit check reads them; in a separate allocation each read
/// chased a pointer into one of 150,000 scattered blocks, which at 5,000 nodes cost a third of
/// a gang preemption (B6g) in cache and TLB misses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodRequests(RequestsRepr);

#[derive(Debug, Clone, PartialEq, Eq)]
enum RequestsRepr {
    Inline(u8, [(ResourceId, i64); INLINE_REQUESTS]),
    Heap(Box<[(ResourceId, i64)]>),
}

impl Default for PodRequests {
    fn default() -> Self {
        Self(RequestsRepr::Inline(0, [(0, 0); INLINE_REQUESTS]))
    }
}

impl From<Requests> for PodRequests {
    fn from(r: Requests) -> Self {
        if r.len() <= INLINE_REQUESTS {
            let mut items = [(0, 0); INLINE_REQUESTS];
            items[..r.len()].copy_from_slice(&r);
            // At most INLINE_REQUESTS (4): fits a u8.
            Self(RequestsRepr::Inline(r.len() as u8, items))
        } else {
            Self(RequestsRepr::Heap(r.into_boxed_slice()))
        }
    }
}

impl std::ops::Deref for PodRequests {
    type Target = [(ResourceId, i64)];

    fn deref(&self) -> &Self::Target {
        match &self.0 {
            RequestsRepr::Inline(len, items) => &items[..usize::from(*len)],
            RequestsRepr::Heap(items) => items,
        }
    }
}

impl<'a> IntoIterator for &'a PodRequests {
    type Item = &'a (ResourceId, i64);
    type IntoIter = std::slice::Iter<'a, (ResourceId, i64)>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Combines `b` into `a` with `op` where both hold an id, appending the others. A pod holds a
/// handful of resources, searched linearly; past that (invented input with thousands of names)
/// an index keeps it linear instead of quadratic.
fn merge_into(a: &mut Requests, b: &[(ResourceId, i64)], op: impl Fn(i64, i64) -> i64) {
    // `a` grows while `b` is merged: the linear search costs up to (a + b) × b steps.
    if a.len().saturating_add(b.len()).saturating_mul(b.len()) <= 4096 {
        for (id, v) in b {
            match a.iter_mut().find(|(i, _)| i == id) {
                Some((_, x)) => *x = op(*x, *v),
                None => a.push((*id, *v)),
            }
        }
        return;
    }
    let mut at: HashMap<ResourceId, usize> =
        a.iter().enumerate().map(|(k, (i, _))| (*i, k)).collect();
    for (id, v) in b {
        match at.get(id) {
            Some(&k) => a[k].1 = op(a[k].1, *v),
            None => {
                at.insert(*id, a.len());
                a.push((*id, *v));
            }
        }
    }
}

/// Adds `b` into `a` (both sparse).
pub(crate) fn add_into(a: &mut Requests, b: &[(ResourceId, i64)]) {
    merge_into(a, b, i64::saturating_add);
}

/// Element-wise max of `a` and `b` into `a`.
pub(crate) fn max_into(a: &mut Requests, b: &[(ResourceId, i64)]) {
    merge_into(a, b, i64::max);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pod_requests_keep_every_pair_inline_or_not() {
        for n in [0usize, 1, INLINE_REQUESTS, INLINE_REQUESTS + 1, 40] {
            let pairs: Requests = (0..n)
                .map(|i| (ResourceId::try_from(i).unwrap_or(0), 10 * i as i64 + 1))
                .collect();
            let r = PodRequests::from(pairs.clone());
            assert_eq!(&r[..], &pairs[..], "{n} pairs");
            assert_eq!((&r).into_iter().count(), n);
            assert_eq!(
                r,
                PodRequests::from(pairs.clone()),
                "equal contents compare equal"
            );
            let mut other = pairs;
            if let Some(last) = other.last_mut() {
                last.1 += 1;
                assert_ne!(r, PodRequests::from(other), "{n} pairs, one amount differs");
            }
        }
        assert!(PodRequests::default().is_empty());
        assert_eq!(PodRequests::default(), PodRequests::from(Vec::new()));
    }

    #[test]
    fn merging_many_resources_indexes_and_agrees_with_a_few() {
        let a: Requests = (0..3000u16).map(|i| (i, 1)).collect();
        let b: Requests = (1500..4500u16).map(|i| (i, 2)).collect();
        let mut sum = a.clone();
        add_into(&mut sum, &b);
        assert_eq!(sum.len(), 4500);
        assert_eq!(sum[0], (0, 1));
        assert_eq!(sum[1500], (1500, 3), "both: added");
        assert_eq!(sum[4499], (4499, 2), "only in b: appended");
        let mut max = a;
        max_into(&mut max, &b);
        assert_eq!(max[1500], (1500, 2));
        // A few, searched linearly: the same rules.
        let mut small: Requests = vec![(CPU, 1), (MEMORY, 5)];
        add_into(&mut small, &[(MEMORY, 1), (PODS, 1)]);
        assert_eq!(small, vec![(CPU, 1), (MEMORY, 6), (PODS, 1)]);
    }

    #[test]
    fn table_interns_standard_resources_first() {
        let mut t = ResourceTable::default();
        assert_eq!(t.get("cpu"), Some(CPU));
        assert_eq!(t.get("pods"), Some(PODS));
        let gpu = t.intern("nvidia.com/gpu");
        assert_eq!(gpu, 4);
        assert_eq!(t.intern("nvidia.com/gpu"), gpu);
        assert_eq!(t.name(gpu), "nvidia.com/gpu");
    }
}
