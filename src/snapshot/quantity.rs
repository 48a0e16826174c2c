//! Kubernetes quantities (`100m`, `1.5`, `64Gi`, `1e3`) as integers, parsed as
//! `k8s.io/apimachinery/pkg/api/resource/quantity.go` parses them: CPU in milli-units,
//! everything else in base units, rounded up as `Quantity.MilliValue()`/`Value()` do.
//!
//! Here, below every layer that reads a quantity: validation, admission (ResourceQuota,
//! LimitRange) and the simulator's resource vectors.

/// Why a string is not a Kubernetes quantity: upstream's `ParseQuantity` errors
/// (`k8s.io/apimachinery/pkg/api/resource/quantity.go`), with their texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum QuantityError {
    /// `ErrFormatWrong`: not `<sign><digits>.<digits><suffix>`.
    Format,
    /// `ErrSuffix`: the suffix is none of the SI, binary or exponent suffixes.
    Suffix,
}

impl std::fmt::Display for QuantityError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Format => {
                "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
            }
            Self::Suffix => "unable to parse quantity's suffix",
        })
    }
}

/// A quantity split as upstream's `parseQuantityString` splits it.
struct Parts<'a> {
    negative: bool,
    /// Integer digits without leading zeros (may be empty: `.5`, `Ki`, `-`).
    num: &'a [u8],
    /// Fraction digits (may be empty).
    denom: &'a [u8],
    /// The multiplier: 2^`bin` × 10^`dec`.
    bin: u32,
    dec: i64,
}

/// Upstream's decimal and binary suffix tables and its exponent rule (`suffix.go`,
/// `interpret`): `e`/`E` followed by what `strconv.ParseInt(…, 10, 64)` accepts, truncated to
/// an int32 as upstream does.
fn interpret_suffix(suffix: &[u8]) -> Option<(u32, i64)> {
    Some(match suffix {
        b"n" => (0, -9),
        b"u" => (0, -6),
        b"m" => (0, -3),
        b"" => (0, 0),
        b"k" => (0, 3),
        b"M" => (0, 6),
        b"G" => (0, 9),
        b"T" => (0, 12),
        b"P" => (0, 15),
        b"E" => (0, 18),
        b"Ki" => (10, 0),
        b"Mi" => (20, 0),
        b"Gi" => (30, 0),
        b"Ti" => (40, 0),
        b"Pi" => (50, 0),
        b"Ei" => (60, 0),
        [b'e' | b'E', rest @ ..] if !rest.is_empty() => {
            let text = std::str::from_utf8(rest).ok()?;
            let parsed: i64 = text.parse().ok()?;
            // Go's `int32(parsed)`: the low 32 bits.
            (0, i64::from(parsed as i32))
        }
        _ => return None,
    })
}

/// Scans `q` as upstream's `parseQuantityString` does: an optional sign, digits (leading zeros
/// dropped; none at all is zero), an optional `.` and digits, then suffix letters from
/// `eEinumkKMGTP`, an optional sign and digits. Surrounding whitespace is trimmed, as
/// `Quantity.UnmarshalJSON` does.
fn split(q: &str) -> Result<Parts<'_>, QuantityError> {
    let b = q.trim().as_bytes();
    if b.is_empty() {
        return Err(QuantityError::Format);
    }
    let mut pos = 0;
    let negative = match b.first() {
        Some(b'-') => {
            pos += 1;
            true
        }
        Some(b'+') => {
            pos += 1;
            false
        }
        _ => false,
    };
    while b.get(pos) == Some(&b'0') {
        pos += 1;
    }
    let digits = |from: usize| from + b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let num_end = digits(pos);
    let num = &b[pos..num_end];
    pos = num_end;
    let mut denom: &[u8] = &[];
    if b.get(pos) == Some(&b'.') {
        let end = digits(pos + 1);
        denom = &b[pos + 1..end];
        pos = end;
    }
    let suffix_start = pos;
    while b.get(pos).is_some_and(|c| b"eEinumkKMGTP".contains(c)) {
        pos += 1;
    }
    if matches!(b.get(pos), Some(b'-' | b'+')) {
        pos += 1;
    }
    if digits(pos) != b.len() {
        return Err(QuantityError::Format);
    }
    let (bin, dec) = interpret_suffix(&b[suffix_start..]).ok_or(QuantityError::Suffix)?;
    Ok(Parts {
        negative,
        num,
        denom,
        bin,
        dec,
    })
}

/// Multiplies a big-endian decimal digit vector by `m` in place.
fn mul_small(digits: &mut Vec<u8>, m: u64) {
    let mut carry = 0u64;
    for d in digits.iter_mut().rev() {
        let v = u64::from(*d) * m + carry;
        *d = (v % 10) as u8;
        carry = v / 10;
    }
    while carry > 0 {
        digits.insert(0, (carry % 10) as u8);
        carry /= 10;
    }
}

/// Parses a quantity exactly as Kubernetes does (`resource.ParseQuantity`) and returns its
/// value in units of `10^-scale` (scale 3 = milli), rounded up away from zero as
/// `MilliValue()`/`Value()` round (upstream first rounds up to nano; rounding up to a coarser
/// unit after that gives the same number). Values beyond an `i64` saturate: upstream caps
/// binary-suffixed quantities at 2^63-1 and has no meaningful int64 for larger decimal ones,
/// so the simulator treats them as "more than any node has".
pub(crate) fn quantity_scaled(q: &str, scale: u32) -> Result<i64, QuantityError> {
    let p = split(q)?;
    let mut digits: Vec<u8> = p
        .num
        .iter()
        .chain(p.denom)
        .skip_while(|c| **c == b'0')
        .map(|c| c - b'0')
        .collect();
    // value = digits × 10^exp10 × 2^bin
    let mut exp10 = p.dec + i64::from(scale) - i64::try_from(p.denom.len()).unwrap_or(i64::MAX);
    while digits.last() == Some(&0) {
        digits.pop();
        exp10 = exp10.saturating_add(1);
    }
    if digits.is_empty() {
        return Ok(0);
    }
    let sign = |v: i64| if p.negative { -v } else { v };
    let n = i64::try_from(digits.len()).unwrap_or(i64::MAX);
    // 10^⌊bin·0.301⌋ ≤ 2^bin < 10^(⌊bin·0.301⌋+1): bounds on the number of integer digits, before any arithmetic.
    let bin_digits = i64::from(p.bin) * 301 / 1000;
    if n.saturating_add(exp10)
        .saturating_sub(1)
        .saturating_add(bin_digits)
        >= 19
    {
        return Ok(sign(i64::MAX)); // ≥ 10^19 > i64::MAX
    }
    if n.saturating_add(exp10).saturating_add(bin_digits + 1) <= 0 {
        return Ok(sign(1)); // in (0, 1): rounded up
    }
    let mut bin = p.bin;
    while bin > 0 {
        let step = bin.min(30);
        mul_small(&mut digits, 1u64 << step);
        bin -= step;
    }
    let (int_digits, rest_nonzero) = if exp10 >= 0 {
        digits.extend(std::iter::repeat_n(0, usize::try_from(exp10).unwrap_or(0)));
        (&digits[..], false)
    } else {
        let k = usize::try_from(-exp10).unwrap_or(usize::MAX);
        let cut = digits.len().saturating_sub(k);
        (&digits[..cut], digits[cut..].iter().any(|d| *d != 0))
    };
    if int_digits.len() > 19 {
        return Ok(sign(i64::MAX));
    }
    let mut v: u128 = 0;
    for d in int_digits {
        v = v * 10 + u128::from(*d);
    }
    if rest_nonzero {
        v += 1;
    }
    Ok(sign(i64::try_from(v).unwrap_or(i64::MAX)))
}

/// [`quantity_scaled`] without the reason: `None` for a string that is not a quantity.
pub(crate) fn parse_quantity_scaled(q: &str, scale: u32) -> Option<i64> {
    quantity_scaled(q, scale).ok()
}

/// A quantity in base units (bytes, counts), rounded up.
pub(crate) fn parse_quantity(q: &str) -> Option<i64> {
    parse_quantity_scaled(q, 0)
}

/// A quantity in milli-units (CPU), rounded up.
pub(crate) fn parse_milli(q: &str) -> Option<i64> {
    parse_quantity_scaled(q, 3)
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
        assert_eq!(parse_quantity(" 2 "), Some(2), "JSON unmarshalling trims");
        for bad in [
            "", "abc", "1.2.3", "1Zi", "NaN", "Inf", "1e", "1 e3", "1ki", "0x10", "1e3m", "--1",
        ] {
            assert_eq!(parse_quantity(bad), None, "{bad}");
        }
        assert_eq!(quantity_scaled("abc", 0), Err(QuantityError::Format));
        assert_eq!(quantity_scaled("1Zi", 0), Err(QuantityError::Format));
        assert_eq!(quantity_scaled("1ki", 0), Err(QuantityError::Suffix));
        assert_eq!(
            quantity_scaled("1e99999999999999999999", 0),
            Err(QuantityError::Suffix)
        );
    }

    #[test]
    fn upstream_quirks_and_saturation() {
        // Upstream accepts a quantity without digits as zero (`parseQuantityString`).
        for zero in [".", "-", "+", "m", "Ki", "e3", "-.", "0.000"] {
            assert_eq!(parse_quantity(zero), Some(0), "{zero}");
        }
        assert_eq!(parse_quantity("1."), Some(1));
        assert_eq!(parse_milli(".5"), Some(500));
        // The exponent is truncated to an int32: 2^32 wraps to 0.
        assert_eq!(parse_quantity("7e4294967296"), Some(7));
        // Beyond an i64: saturated, never wrapped or dropped.
        assert_eq!(parse_milli("1e30"), Some(i64::MAX));
        assert_eq!(parse_milli("7Ei"), Some(i64::MAX));
        assert_eq!(parse_quantity("7Ei"), Some(7 << 60));
        assert_eq!(
            parse_quantity("8Ei"),
            Some(i64::MAX),
            "upstream caps BinarySI at 2^63-1"
        );
        assert_eq!(parse_quantity("-1e30"), Some(-i64::MAX));
        assert_eq!(parse_quantity("1e999999999"), Some(i64::MAX));
        assert_eq!(parse_quantity("9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_quantity("9223372036854775808"), Some(i64::MAX));
        // Tiny values round up to one unit.
        assert_eq!(parse_quantity("1e-999999999"), Some(1));
        assert_eq!(parse_milli("0.000000000001"), Some(1));
        assert_eq!(parse_quantity("0.5Ki"), Some(512));
        assert_eq!(parse_quantity("0.001Ki"), Some(2), "1.024 rounds up");
        let long = format!("0.{}1", "0".repeat(100_000));
        assert_eq!(parse_quantity(&long), Some(1));
    }

    /// Property tests against a reference written from upstream's documented grammar
    /// (`<quantity> ::= <signedNumber><suffix>`, `quantity.go`) plus the scanner's
    /// leniencies (digits optional), by other means than the parser: a recogniser over
    /// characters classes, and exact values in i128 for bounded inputs.
    mod properties {
        use proptest::prelude::*;

        use super::super::*;

        const SUFFIXES: &[(&str, u32, i32)] = &[
            ("", 0, 0),
            ("n", 0, -9),
            ("u", 0, -6),
            ("m", 0, -3),
            ("k", 0, 3),
            ("M", 0, 6),
            ("G", 0, 9),
            ("T", 0, 12),
            ("P", 0, 15),
            ("E", 0, 18),
            ("Ki", 10, 0),
            ("Mi", 20, 0),
            ("Gi", 30, 0),
            ("Ti", 40, 0),
            ("Pi", 50, 0),
            ("Ei", 60, 0),
            ("e0", 0, 0),
            ("e3", 0, 3),
            ("E-2", 0, -2),
            ("e+5", 0, 5),
            ("e-12", 0, -12),
        ];

        /// Whether `q` is accepted: sign? digits* (. digits*)? then a suffix that is one of
        /// the tables or e/E with a signed integer.
        fn reference_accepts(q: &str) -> bool {
            let t = q.trim();
            if t.is_empty() {
                return false;
            }
            let body = t.strip_prefix(['+', '-']).unwrap_or(t);
            let number_len = body
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(body.len());
            let (number, suffix) = body.split_at(number_len);
            if number.matches('.').count() > 1 {
                return false;
            }
            if SUFFIXES[..16].iter().any(|(s, _, _)| *s == suffix) {
                return true;
            }
            let Some(exp) = suffix.strip_prefix(['e', 'E']) else {
                return false;
            };
            let digits = exp.strip_prefix(['+', '-']).unwrap_or(exp);
            !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
                && exp.parse::<i64>().is_ok()
        }

        /// The exact value in units of 10^-scale, rounded up away from zero, saturated.
        fn reference_value(neg: bool, int: u64, frac: &str, bin: u32, dec: i32, scale: u32) -> i64 {
            let frac_digits = i32::try_from(frac.len()).unwrap();
            let mut v =
                i128::from(int) * 10i128.pow(frac.len() as u32) + frac.parse::<i128>().unwrap_or(0);
            v <<= bin;
            let e = dec - frac_digits + i32::try_from(scale).unwrap();
            let magnitude = if e >= 0 {
                v.checked_mul(10i128.pow(e.unsigned_abs()))
                    .unwrap_or(i128::MAX)
            } else {
                let div = 10i128.pow(e.unsigned_abs());
                v / div + i128::from(v % div != 0)
            };
            let m = i64::try_from(magnitude).unwrap_or(i64::MAX);
            if neg { -m } else { m }
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

            #[test]
            fn random_strings_never_panic_and_agree_with_the_reference(q in "[-+ .0-9eEinumkKMGTPZx]{0,12}") {
                let got = quantity_scaled(&q, 3);
                prop_assert_eq!(got.is_ok(), reference_accepts(&q), "{:?}: {:?}", q, got);
            }

            #[test]
            fn any_text_never_panics(q in any::<String>()) {
                let _ = quantity_scaled(&q, 0);
                let _ = quantity_scaled(&q, 3);
            }

            #[test]
            fn valid_quantities_have_their_exact_value(
                neg in any::<bool>(),
                int in 0u64..1_000_000_000_000,
                frac in "[0-9]{0,6}",
                dot in any::<bool>(),
                zeros in 0usize..3,
                suffix in 0usize..SUFFIXES.len(),
                scale in prop::sample::select(vec![0u32, 3]),
            ) {
                let (text, bin, dec) = SUFFIXES[suffix];
                let frac = if dot { frac } else { String::new() };
                let q = format!(
                    "{}{}{int}{}{frac}{text}",
                    if neg { "-" } else { "" },
                    "0".repeat(zeros),
                    if dot { "." } else { "" },
                );
                let want = reference_value(neg, int, &frac, bin, dec, scale);
                prop_assert_eq!(quantity_scaled(&q, scale), Ok(want), "{}", q);
            }
        }
    }
}
