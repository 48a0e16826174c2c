//! Resource quantities as integers, and resource vectors indexed by interned names.
//!
//! Kubernetes quantities (`100m`, `1.5`, `64Gi`, `1e3`) are parsed once into integers: CPU in
//! milli-cores, everything else in base units, rounded up as `resource.Quantity`'s
//! `MilliValue()`/`Value()` do. Hot loops only see `i64`s.

use std::collections::HashMap;

/// Index of a resource in a [`ResourceTable`].
pub type ResourceId = u16;

/// The CPU resource, in milli-cores.
pub const CPU: ResourceId = 0;
/// Memory, in bytes.
pub const MEMORY: ResourceId = 1;
/// Ephemeral storage, in bytes.
pub const EPHEMERAL_STORAGE: ResourceId = 2;
/// The pod count.
pub const PODS: ResourceId = 3;

/// Parses a quantity to its value in units of `10^-scale` (scale 3 = milli), rounded up.
/// Returns `None` for malformed or out-of-range input.
pub fn parse_quantity_scaled(q: &str, scale: u32) -> Option<i64> {
    let q = q.trim();
    if q.is_empty() {
        return None;
    }
    let (sign, rest) = match q.as_bytes()[0] {
        b'-' => (-1i128, &q[1..]),
        b'+' => (1, &q[1..]),
        _ => (1, q),
    };
    let num_end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let (number, suffix) = rest.split_at(num_end);
    if number.is_empty() || number == "." || number.matches('.').count() > 1 {
        return None;
    }
    let (int_part, frac_part) = number.split_once('.').unwrap_or((number, ""));
    if int_part.len() + frac_part.len() > 30 {
        return None;
    }
    let digits: i128 = format!("{int_part}{frac_part}").parse().ok()?;
    let frac_digits = i32::try_from(frac_part.len()).ok()?;
    // value = digits * 10^-frac_digits * factor, factor = 2^bin * 10^dec.
    let (bin, dec): (u32, i32) = match suffix {
        "" => (0, 0),
        "Ki" => (10, 0),
        "Mi" => (20, 0),
        "Gi" => (30, 0),
        "Ti" => (40, 0),
        "Pi" => (50, 0),
        "Ei" => (60, 0),
        "n" => (0, -9),
        "u" => (0, -6),
        "m" => (0, -3),
        "k" => (0, 3),
        "M" => (0, 6),
        "G" => (0, 9),
        "T" => (0, 12),
        "P" => (0, 15),
        "E" => (0, 18),
        s if s.starts_with(['e', 'E']) => {
            (0, s[1..].parse::<i32>().ok().filter(|e| e.abs() <= 30)?)
        }
        _ => return None,
    };
    let exp10 = dec - frac_digits + i32::try_from(scale).ok()?;
    let mut value = digits.checked_mul(1i128.checked_shl(bin)?)?;
    if exp10 >= 0 {
        value = value.checked_mul(10i128.checked_pow(u32::try_from(exp10).ok()?)?)?;
    } else {
        let div = 10i128.checked_pow(u32::try_from(-exp10).ok()?)?;
        value = (value + div - 1) / div; // round up, as Kubernetes does
    }
    i64::try_from(sign * value).ok()
}

/// A quantity in base units (bytes, counts), rounded up.
pub fn parse_quantity(q: &str) -> Option<i64> {
    parse_quantity_scaled(q, 0)
}

/// A quantity in milli-units (CPU), rounded up.
pub fn parse_milli(q: &str) -> Option<i64> {
    parse_quantity_scaled(q, 3)
}

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
    /// The id of `name`, adding it if new.
    pub fn intern(&mut self, name: &str) -> ResourceId {
        if let Some(id) = self.ids.get(name) {
            return *id;
        }
        let id = ResourceId::try_from(self.names.len()).unwrap_or(ResourceId::MAX);
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        id
    }

    /// The id of `name`, if known.
    pub fn get(&self, name: &str) -> Option<ResourceId> {
        self.ids.get(name).copied()
    }

    /// The name of `id`.
    pub fn name(&self, id: ResourceId) -> &str {
        self.names.get(usize::from(id)).map_or("?", String::as_str)
    }

    /// How many resources are interned.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Always false: the four standard resources are always present.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Parses `value` for resource `name` (milli for cpu, base units otherwise).
    pub fn parse(name: &str, value: &str) -> Option<i64> {
        if name == "cpu" {
            parse_milli(value)
        } else {
            parse_quantity(value)
        }
    }
}

/// A sparse list of (resource, amount), as pods request them.
pub type Requests = Vec<(ResourceId, i64)>;

/// Adds `b` into `a` (both sparse).
pub fn add_into(a: &mut Requests, b: &[(ResourceId, i64)]) {
    for (id, v) in b {
        match a.iter_mut().find(|(i, _)| i == id) {
            Some((_, x)) => *x = x.saturating_add(*v),
            None => a.push((*id, *v)),
        }
    }
}

/// Element-wise max of `a` and `b` into `a`.
pub fn max_into(a: &mut Requests, b: &[(ResourceId, i64)]) {
    for (id, v) in b {
        match a.iter_mut().find(|(i, _)| i == id) {
            Some((_, x)) => *x = (*x).max(*v),
            None => a.push((*id, *v)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_parse_like_kubernetes() {
        assert_eq!(parse_milli("100m"), Some(100));
        assert_eq!(parse_milli("1"), Some(1000));
        assert_eq!(parse_milli("1.5"), Some(1500));
        assert_eq!(parse_milli("0.0001"), Some(1), "rounded up");
        assert_eq!(parse_milli("2k"), Some(2_000_000));
        assert_eq!(parse_quantity("64Gi"), Some(64 << 30));
        assert_eq!(parse_quantity("1.5Gi"), Some(3 << 29));
        assert_eq!(parse_quantity("500M"), Some(500_000_000));
        assert_eq!(parse_quantity("1e3"), Some(1000));
        assert_eq!(parse_quantity("1E3"), Some(1000));
        assert_eq!(parse_quantity("100m"), Some(1), "0.1 rounds up to 1");
        assert_eq!(parse_quantity("8"), Some(8));
        assert_eq!(parse_quantity("-1"), Some(-1));
        for bad in [
            "",
            "abc",
            "1.2.3",
            "1Zi",
            ".",
            "1e999",
            "99999999999999999999999999999999Ei",
        ] {
            assert_eq!(parse_quantity(bad), None, "{bad}");
        }
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
