//! Consumable capacity (gate DRAConsumableCapacity): how much of a device capacity one
//! allocation consumes, rounded up per the capacity's `requestPolicy` (semantics §7.3 item 4).
//!
//! Upstream: `k8s.io/dynamic-resource-allocation/structured/internal/experimental/consumable_capacity.go`
//! (`CmpRequestOverCapacity`, `calculateConsumedCapacity`, `roundUpRange`,
//! `roundUpValidValues`, `violatesPolicy`). Every capacity of a device is consumed by every
//! allocation that checks it: the requested amount when the request names the capacity,
//! otherwise the policy's `default`, otherwise the whole capacity value. A request is rounded
//! up: `validRange` to `min + k·step` (to `min` when below it; as is without a step),
//! `validValues` to the smallest listed value not below it. The rounded amount then violates
//! the policy when it is above `validRange.max`, off the step grid, or not a listed value (the
//! `default` itself never does); such a device is skipped. With DRAFractionalCapacityRange
//! (beta, on) range arithmetic is done in milli-units; without it in whole units
//! (`Quantity.Value()`, rounded up).
//!
//! Amounts are kept as milli-units (`i128`) together with a text for reports: the text the
//! amount was written with when it is used as is, a canonical form when it was computed.

use std::collections::BTreeMap;

use k8s_openapi::api::resource::v1::{CapacityRequestPolicy, DeviceCapacity};

use crate::snapshot::quantity::{parse_quantity, parse_quantity_scaled};

/// An amount of a capacity: milli-units and how to print it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Amount {
    /// Value in milli-units (`1` = `1m`, `1000` = `1`).
    pub milli: i128,
    /// Text for reports.
    pub text: String,
}

impl Amount {
    /// Parses a Kubernetes quantity (rounded up to milli-units, as `MilliValue()` does).
    pub(crate) fn parse(q: &str) -> Option<Self> {
        // Milli-units saturate at an i64 sooner than base units: past that, count in base
        // units (saturated at an i64 themselves, as the parser does).
        let milli = match parse_quantity_scaled(q, 3)? {
            m if m.abs() == i64::MAX => i128::from(parse_quantity(q)?) * 1000,
            m => i128::from(m),
        };
        Some(Self {
            milli,
            text: q.trim().to_owned(),
        })
    }

    /// An amount with a canonical text (`binary` prefers `Ki`…`Ei` suffixes).
    pub(crate) fn from_milli(milli: i128, binary: bool) -> Self {
        Self {
            milli,
            text: format_milli(milli, binary),
        }
    }
}

/// A canonical quantity text for `milli` milli-units: `1500m`, `16Gi`, `3G`, `1536`.
pub(crate) fn format_milli(milli: i128, binary: bool) -> String {
    if milli % 1000 != 0 {
        return format!("{milli}m");
    }
    let base = milli / 1000;
    if base == 0 {
        return "0".to_owned();
    }
    if binary {
        for (shift, suffix) in [
            (60, "Ei"),
            (50, "Pi"),
            (40, "Ti"),
            (30, "Gi"),
            (20, "Mi"),
            (10, "Ki"),
        ] {
            let unit = 1i128 << shift;
            if base % unit == 0 {
                return format!("{}{suffix}", base / unit);
            }
        }
        return base.to_string();
    }
    for (exp, suffix) in [
        (18, "E"),
        (15, "P"),
        (12, "T"),
        (9, "G"),
        (6, "M"),
        (3, "k"),
    ] {
        let unit = 10i128.pow(exp);
        if base % unit == 0 {
            return format!("{}{suffix}", base / unit);
        }
    }
    base.to_string()
}

/// Whether a quantity text uses a binary suffix (`Ki`, `Mi`, …).
fn is_binary(text: &str) -> bool {
    text.trim_end().ends_with('i')
}

/// `validRange` of a request policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidRange {
    /// Minimum (requests below it are raised to it).
    pub min: Amount,
    /// Maximum (a rounded request above it violates the policy).
    pub max: Option<Amount>,
    /// Step from `min`.
    pub step: Option<Amount>,
}

/// `requestPolicy` of a device capacity.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestPolicy {
    /// Consumed by requests that do not name the capacity.
    pub default: Option<Amount>,
    /// Valid range.
    pub valid_range: Option<ValidRange>,
    /// Valid values, ascending (`Some(empty)` is kept apart from unset, as upstream does).
    pub valid_values: Option<Vec<Amount>>,
}

impl RequestPolicy {
    fn from_api(p: &CapacityRequestPolicy) -> Self {
        Self {
            default: p.default.as_ref().and_then(|q| Amount::parse(&q.0)),
            valid_range: p.valid_range.as_ref().and_then(|r| {
                Some(ValidRange {
                    min: Amount::parse(&r.min.0)?,
                    max: r.max.as_ref().and_then(|q| Amount::parse(&q.0)),
                    step: r
                        .step
                        .as_ref()
                        .and_then(|q| Amount::parse(&q.0))
                        .filter(|s| s.milli > 0),
                })
            }),
            valid_values: p
                .valid_values
                .as_ref()
                .map(|v| v.iter().filter_map(|q| Amount::parse(&q.0)).collect()),
        }
    }
}

/// One capacity of a device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapacityDef {
    /// The name as the ResourceSlice wrote it (used as the key of `consumedCapacity`).
    pub name: String,
    /// Total.
    pub value: Amount,
    /// How requests consume it.
    pub policy: Option<RequestPolicy>,
}

impl CapacityDef {
    /// Compiles a slice's capacity; `None` if its value is not a quantity.
    pub(crate) fn from_api(name: &str, c: &DeviceCapacity) -> Option<Self> {
        Some(Self {
            name: name.to_owned(),
            value: Amount::parse(&c.value.0)?,
            policy: c.request_policy.as_ref().map(RequestPolicy::from_api),
        })
    }
}

fn ceil_div(a: i128, b: i128) -> i128 {
    if b <= 0 {
        return a;
    }
    let q = a / b;
    if a % b != 0 && a > 0 { q + 1 } else { q }
}

/// Whole units, rounded up (`Quantity.Value()`).
fn whole(milli: i128) -> i128 {
    ceil_div(milli, 1000)
}

/// `roundUpRange`: raises to `min`, then up to `min + k·step`.
fn round_up_range(requested: &Amount, range: &ValidRange, fractional: bool) -> Amount {
    if requested.milli < range.min.milli {
        return range.min.clone();
    }
    let Some(step) = &range.step else {
        return requested.clone();
    };
    let binary = is_binary(&step.text);
    if fractional {
        let added = requested.milli - range.min.milli;
        let n = ceil_div(added, step.milli);
        let value = range.min.milli.saturating_add(step.milli.saturating_mul(n));
        return Amount::from_milli(value, binary);
    }
    let (req, min, step) = (
        whole(requested.milli),
        whole(range.min.milli),
        whole(step.milli),
    );
    let n = ceil_div(req - min, step);
    let value = min.saturating_add(step.saturating_mul(n));
    Amount::from_milli(value.saturating_mul(1000), binary)
}

/// `roundUpValidValues`: the first valid value not below the request, else the request.
fn round_up_valid_values(requested: &Amount, values: &[Amount]) -> Amount {
    values
        .iter()
        .find(|v| requested.milli <= v.milli)
        .unwrap_or(requested)
        .clone()
}

/// `calculateConsumedCapacity`: what one allocation consumes of `cap` given the requested
/// amount (`None` when the request does not name the capacity).
pub(crate) fn consumed(requested: Option<&Amount>, cap: &CapacityDef, fractional: bool) -> Amount {
    let Some(requested) = requested else {
        return cap
            .policy
            .as_ref()
            .and_then(|p| p.default.clone())
            .unwrap_or_else(|| cap.value.clone());
    };
    let Some(policy) = &cap.policy else {
        return requested.clone();
    };
    if let Some(range) = &policy.valid_range {
        return round_up_range(requested, range, fractional);
    }
    if let Some(values) = &policy.valid_values {
        return round_up_valid_values(requested, values);
    }
    requested.clone()
}

/// `violatesPolicy`: whether a (rounded) amount breaks `policy`.
pub(crate) fn violates(amount: &Amount, policy: Option<&RequestPolicy>, fractional: bool) -> bool {
    let Some(policy) = policy else {
        return false;
    };
    if policy
        .default
        .as_ref()
        .is_some_and(|d| d.milli == amount.milli)
    {
        return false;
    }
    if let Some(range) = &policy.valid_range {
        if range.max.as_ref().is_some_and(|m| amount.milli > m.milli) {
            return true;
        }
        if let Some(step) = &range.step {
            let off_grid = if fractional {
                step.milli > 0 && (amount.milli - range.min.milli) % step.milli != 0
            } else {
                let s = whole(step.milli);
                s > 0 && (whole(amount.milli) - whole(range.min.milli)) % s != 0
            };
            return off_grid;
        }
        return false;
    }
    match &policy.valid_values {
        Some(values) if !values.is_empty() => !values.iter().any(|v| v.milli == amount.milli),
        _ => false,
    }
}

/// Capacity consumed on one device: qualified capacity name → amount.
pub(crate) type Consumed = BTreeMap<String, Amount>;

/// Milli-units per qualified capacity name.
pub(crate) type Totals = BTreeMap<String, i128>;

/// Adds (`sign = 1`) or removes (`sign = -1`) `consumed` to `totals`.
pub(crate) fn add_into(totals: &mut Totals, consumed: &Consumed, sign: i128) {
    for (name, a) in consumed {
        let t = totals.entry(name.clone()).or_default();
        *t = t.saturating_add(sign.saturating_mul(a.milli));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn amt(q: &str) -> Amount {
        Amount::parse(q).expect("test quantity")
    }

    fn cap(value: &str, policy: Option<RequestPolicy>) -> CapacityDef {
        CapacityDef {
            name: "memory".into(),
            value: amt(value),
            policy,
        }
    }

    fn range(min: &str, max: Option<&str>, step: Option<&str>) -> RequestPolicy {
        RequestPolicy {
            default: Some(amt(min)),
            valid_range: Some(ValidRange {
                min: amt(min),
                max: max.map(amt),
                step: step.map(amt),
            }),
            valid_values: None,
        }
    }

    /// (consumed text, violates) for a request on `c`.
    fn run(req: Option<&str>, c: &CapacityDef) -> (String, bool) {
        let requested = req.map(amt);
        let got = consumed(requested.as_ref(), c, true);
        let v = violates(&got, c.policy.as_ref(), true);
        (got.text, v)
    }

    #[test]
    fn no_policy_consumes_the_request_or_the_whole_capacity() {
        let c = cap("80Gi", None);
        assert_eq!(run(Some("10Gi"), &c), ("10Gi".into(), false));
        assert_eq!(run(None, &c), ("80Gi".into(), false));
        // Above the capacity is not a policy violation (the sum check rejects it).
        assert_eq!(run(Some("100Gi"), &c), ("100Gi".into(), false));
    }

    #[test]
    fn default_is_used_when_the_request_does_not_name_the_capacity() {
        let c = cap(
            "80Gi",
            Some(RequestPolicy {
                default: Some(amt("8Gi")),
                ..RequestPolicy::default()
            }),
        );
        assert_eq!(run(None, &c), ("8Gi".into(), false));
        assert_eq!(run(Some("3Gi"), &c), ("3Gi".into(), false));
    }

    #[test]
    fn valid_range_with_step_rounds_up_to_min_plus_k_steps() {
        let c = cap("80Gi", Some(range("8Gi", Some("40Gi"), Some("8Gi"))));
        assert_eq!(run(Some("1"), &c), ("8Gi".into(), false), "below min → min");
        assert_eq!(run(Some("8Gi"), &c), ("8Gi".into(), false));
        assert_eq!(run(Some("10Gi"), &c), ("16Gi".into(), false));
        assert_eq!(run(Some("24Gi"), &c), ("24Gi".into(), false));
        assert_eq!(
            run(Some("40Gi"), &c),
            ("40Gi".into(), false),
            "max is valid"
        );
        assert_eq!(run(Some("41Gi"), &c), ("48Gi".into(), true), "above max");
        assert_eq!(run(None, &c), ("8Gi".into(), false), "default");
    }

    #[test]
    fn valid_range_step_is_counted_from_min() {
        let c = cap("100", Some(range("3", None, Some("5"))));
        assert_eq!(run(Some("4"), &c), ("8".into(), false));
        assert_eq!(run(Some("8"), &c), ("8".into(), false));
        assert_eq!(run(Some("9"), &c), ("13".into(), false));
        assert_eq!(run(Some("1000"), &c), ("1003".into(), false), "no max");
    }

    #[test]
    fn valid_range_without_step_keeps_the_request() {
        let c = cap("10", Some(range("2", Some("6"), None)));
        assert_eq!(run(Some("1"), &c), ("2".into(), false));
        assert_eq!(run(Some("3500m"), &c), ("3500m".into(), false));
        assert_eq!(run(Some("7"), &c), ("7".into(), true));
        let unbounded = cap("10", Some(range("2", None, None)));
        assert_eq!(run(Some("9"), &unbounded), ("9".into(), false));
    }

    #[test]
    fn fractional_steps_use_milli_units_only_with_the_fractional_gate() {
        let c = cap("10", Some(range("500m", None, Some("250m"))));
        let req = amt("600m");
        let milli = consumed(Some(&req), &c, true);
        assert_eq!((milli.milli, milli.text.as_str()), (750, "750m"));
        assert!(!violates(&milli, c.policy.as_ref(), true));
        // Gate off: Value() arithmetic, every quantity rounded up to whole units.
        let whole_units = consumed(Some(&req), &c, false);
        assert_eq!(whole_units.milli, 1000);
    }

    #[test]
    fn valid_values_pick_the_smallest_value_not_below_the_request() {
        let c = cap(
            "64Gi",
            Some(RequestPolicy {
                default: Some(amt("4Gi")),
                valid_range: None,
                valid_values: Some(vec![amt("4Gi"), amt("8Gi"), amt("16Gi")]),
            }),
        );
        assert_eq!(run(Some("1Gi"), &c), ("4Gi".into(), false));
        assert_eq!(run(Some("5Gi"), &c), ("8Gi".into(), false));
        assert_eq!(run(Some("16Gi"), &c), ("16Gi".into(), false));
        assert_eq!(
            run(Some("17Gi"), &c),
            ("17Gi".into(), true),
            "above every value"
        );
        assert_eq!(run(None, &c), ("4Gi".into(), false));
    }

    #[test]
    fn policy_without_default_checks_the_whole_capacity() {
        // Upstream checks the filled-in amount against the policy like any other: the
        // whole capacity above `max` makes the device ineligible.
        let mut p = range("1Gi", Some("4Gi"), None);
        p.default = None;
        let c = cap("8Gi", Some(p));
        assert_eq!(run(None, &c), ("8Gi".into(), true));
    }

    #[test]
    fn canonical_texts() {
        assert_eq!(format_milli((16i128 << 20) * 1000, true), "16Mi");
        assert_eq!(format_milli(16_000i128 << 30, true), "16Gi");
        assert_eq!(format_milli(1_536_000, true), "1536");
        assert_eq!(format_milli(3_000_000_000_000, false), "3G");
        assert_eq!(format_milli(1500, false), "1500m");
        assert_eq!(format_milli(0, false), "0");
    }

    #[test]
    fn parse_rounds_up_to_milli_and_handles_huge_values() {
        assert_eq!(amt("1").milli, 1000);
        assert_eq!(amt("1u").milli, 1);
        assert_eq!(amt("4Ei").milli, (4i128 << 60) * 1000);
        assert!(Amount::parse("ten").is_none());
    }
}
