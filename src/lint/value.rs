//! Small helpers on JSON values and field names that the rules and the CRD checks share (a
//! leaf: it imports nothing of lint).

use serde_json::Value;

/// The value at a dotted path (`spec.workloadRef.workloadName`; no indexes).
pub(crate) fn get<'v>(v: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.').try_fold(v, |v, k| v.get(k))
}

/// The string at a dotted path.
pub(crate) fn get_str<'v>(v: &'v Value, path: &str) -> Option<&'v str> {
    get(v, path).and_then(Value::as_str)
}

/// The closest field name of `candidates` to `field`, when it is close enough to be a typo.
pub(crate) fn did_you_mean<'a>(
    field: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (field.chars().count() / 3).clamp(1, 3);
    candidates
        .map(|c| {
            let d = if c.eq_ignore_ascii_case(field) {
                0
            } else {
                distance(field, c)
            };
            (d, c)
        })
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, c)| c)
}

/// Levenshtein distance, for "did you mean" (field names are short).
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}
