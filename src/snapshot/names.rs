//! The API server's string formats for names, label keys and label values, with its own
//! messages: a port of `k8s.io/apimachinery/pkg/util/validation` (`IsQualifiedName`,
//! `IsValidLabelValue`, `IsDNS1123Label`, `IsDNS1123Subdomain`, `IsDNS1035Label`) and
//! `k8s.io/apimachinery/pkg/api/validation/path` (`IsValidPathSegmentName`). Each function
//! returns the problems, empty when the value is valid, worded as upstream words them so a
//! message reads like the API server's or kubectl's. Used by `-l/--selector` parsing and by
//! lint's metadata rules. Pure: no IO.

/// Longest DNS label, label value and qualified-name name part (`DNS1123LabelMaxLength`,
/// `LabelValueMaxLength`, `qualifiedNameMaxLength`).
pub(crate) const LABEL_MAX: usize = 63;
/// Longest DNS subdomain (`DNS1123SubdomainMaxLength`).
pub(crate) const SUBDOMAIN_MAX: usize = 253;
/// Largest total size of an object's annotations, keys plus values
/// (`TotalAnnotationSizeLimitB`, `k8s.io/apimachinery/pkg/api/validation/objectmeta.go`).
pub(crate) const ANNOTATIONS_MAX_BYTES: usize = 256 * 1024;

const QUALIFIED_NAME_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const DNS1123_LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1035_LABEL_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";

/// Upstream `RegexError`: the message, examples and the regex.
fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    let examples = examples
        .iter()
        .map(|e| format!("'{e}', "))
        .collect::<Vec<_>>()
        .join("or ");
    format!("{msg} (e.g. {examples}regex used for validation is '{fmt}')")
}

/// Upstream `MaxLenError`.
pub(crate) fn max_len_error(n: usize) -> String {
    format!("must be no more than {n} characters")
}

/// `[A-Za-z0-9]`, then `[-A-Za-z0-9_.]*`, ending alphanumeric (the qualified-name name part).
fn is_qualified_token(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(f), Some(l)) => {
            f.is_ascii_alphanumeric()
                && l.is_ascii_alphanumeric()
                && b.iter()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?` with no length limit (the regex alone).
fn is_dns1123_label_token(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(f), Some(l)) => {
            (f.is_ascii_lowercase() || f.is_ascii_digit())
                && (l.is_ascii_lowercase() || l.is_ascii_digit())
                && b.iter()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        }
        _ => false,
    }
}

/// Upstream `IsQualifiedName`: `[prefix/]name`, prefix a DNS subdomain, name at most 63 of
/// `[-A-Za-z0-9_.]`, alphanumeric at both ends. Label keys, annotation keys (lowercased).
pub(crate) fn qualified_name_problems(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_owned());
            } else {
                errs.extend(
                    dns1123_subdomain_problems(prefix)
                        .into_iter()
                        .map(|m| format!("prefix part {m}")),
                );
            }
            *name
        }
        _ => {
            return vec![format!(
                "a qualified name {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(
                    QUALIFIED_NAME_MSG,
                    QUALIFIED_NAME_FMT,
                    &["MyName", "my.name", "123-abc"]
                )
            )];
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_owned());
    } else if name.len() > LABEL_MAX {
        errs.push(format!("name part {}", max_len_error(LABEL_MAX)));
    }
    if !is_qualified_token(name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                QUALIFIED_NAME_MSG,
                QUALIFIED_NAME_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errs
}

/// Upstream `IsValidLabelValue`: empty, or at most 63 of `[-A-Za-z0-9_.]`, alphanumeric at
/// both ends.
pub(crate) fn label_value_problems(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > LABEL_MAX {
        errs.push(max_len_error(LABEL_MAX));
    }
    if !value.is_empty() && !is_qualified_token(value) {
        errs.push(regex_error(
            LABEL_VALUE_MSG,
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

/// Upstream `IsDNS1123Label`.
pub(crate) fn dns1123_label_problems(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > LABEL_MAX {
        errs.push(max_len_error(LABEL_MAX));
    }
    if !is_dns1123_label_token(value) {
        errs.push(regex_error(
            DNS1123_LABEL_MSG,
            DNS1123_LABEL_FMT,
            &["my-name", "123-abc"],
        ));
    }
    errs
}

/// Upstream `IsDNS1123Subdomain`: at most 253 characters of dot-separated lowercase labels
/// (the regex bounds no single label's length).
pub(crate) fn dns1123_subdomain_problems(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > SUBDOMAIN_MAX {
        errs.push(max_len_error(SUBDOMAIN_MAX));
    }
    if !value.split('.').all(is_dns1123_label_token) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_MSG,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// Upstream `IsDNS1035Label` (Service names): a DNS label that starts with a letter.
pub(crate) fn dns1035_label_problems(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > LABEL_MAX {
        errs.push(max_len_error(LABEL_MAX));
    }
    if !(is_dns1123_label_token(value) && value.as_bytes()[0].is_ascii_lowercase()) {
        errs.push(regex_error(
            DNS1035_LABEL_MSG,
            DNS1035_LABEL_FMT,
            &["my-name", "abc-123"],
        ));
    }
    errs
}

/// Upstream `IsValidPathSegmentName` (RBAC and PersistentVolume names): not `.` or `..`, no
/// `/` or `%`.
pub(crate) fn path_segment_problems(value: &str) -> Vec<String> {
    if value == "." || value == ".." {
        return vec![format!("may not be '{value}'")];
    }
    ["/", "%"]
        .into_iter()
        .filter(|c| value.contains(c))
        .map(|c| format!("may not contain '{c}'"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Cases from k8s.io/apimachinery/pkg/util/validation/validation_test.go
    // (TestIsQualifiedName, TestIsValidLabelValue, TestIsDNS1123Label,
    // TestIsDNS1123Subdomain, TestIsDNS1035Label).
    #[test]
    fn qualified_names_as_upstream_test_is_qualified_name() {
        for good in [
            "simple",
            "now-with-dashes",
            "1-starts-with-num",
            "1234",
            "simple/simple",
            "now-with-dashes/simple",
            "now-with-dashes/now-with-dashes",
            "now.with.dots/simple",
            "now-with.dashes-and.dots/simple",
            "1-num.2-num/3-num",
            "1234/5678",
            "1.2.3.4/5678",
            "Uppercase_Is_OK_123",
            "example.com/Uppercase_Is_OK_123",
            "requests.storage-foo",
            &"a".repeat(63),
            &format!("{}/{}", "a".repeat(253), "b".repeat(63)),
        ] {
            assert!(qualified_name_problems(good).is_empty(), "{good}");
        }
        for bad in [
            "nospecialchars%^=@",
            "cantendwithadash-",
            "-cantstartwithadash-",
            "only/one/slash",
            "Example.com/abc",
            "example_com/abc",
            "example.com/",
            "/simple",
            &"a".repeat(64),
            &format!("{}/b", "a".repeat(254)),
        ] {
            assert!(!qualified_name_problems(bad).is_empty(), "{bad}");
        }
        assert_eq!(
            qualified_name_problems(&"a".repeat(64)),
            vec!["name part must be no more than 63 characters"]
        );
        assert_eq!(
            qualified_name_problems("/simple"),
            vec!["prefix part must be non-empty"]
        );
    }

    #[test]
    fn label_values_as_upstream_test_is_valid_label_value() {
        for good in [
            "simple",
            "now-with-dashes",
            "1-starts-with-num",
            "end-with-num-1",
            "1234",
            &"a".repeat(63),
            "",
        ] {
            assert!(label_value_problems(good).is_empty(), "{good}");
        }
        for bad in [
            "nospecialchars%^=@",
            "Tama-nui-te-rā.is.Māori.sun",
            "\\backslashes\\are\\bad",
            "-starts-with-dash",
            "ends-with-dash-",
            ".starts.with.dot",
            "ends.with.dot.",
        ] {
            assert!(!label_value_problems(bad).is_empty(), "{bad}");
        }
        assert_eq!(
            label_value_problems(&"a".repeat(64)),
            vec!["must be no more than 63 characters"]
        );
        assert!(
            label_value_problems("a b")[0].starts_with("a valid label must be an empty string")
        );
    }

    #[test]
    fn dns_names_as_upstream() {
        for good in [
            "a",
            "ab",
            "abc",
            "a1",
            "a-1",
            "a--1--2--b",
            "0",
            "01",
            "012",
        ] {
            assert!(dns1123_label_problems(good).is_empty(), "{good}");
            assert!(dns1123_subdomain_problems(good).is_empty(), "{good}");
        }
        for good in ["a.a", "a.b.c", "0.0.0.0", &"a".repeat(100), "11.22.33.44"] {
            assert!(dns1123_subdomain_problems(good).is_empty(), "{good}");
        }
        for bad in ["", "A", "ABC", "a_", "-a", "a-", "a.", ".a", "a..b", "a@b"] {
            assert!(!dns1123_subdomain_problems(bad).is_empty(), "{bad}");
        }
        assert!(!dns1123_label_problems("a.b").is_empty());
        assert!(!dns1123_label_problems(&"a".repeat(64)).is_empty());
        assert!(!dns1123_subdomain_problems(&"a".repeat(254)).is_empty());
        assert!(dns1035_label_problems("a-1").is_empty());
        assert!(!dns1035_label_problems("1-a").is_empty());
        assert!(!dns1035_label_problems("").is_empty());
        assert_eq!(
            dns1123_label_problems("My_Name"),
            vec![
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
            ]
        );
        assert!(path_segment_problems("system:controller:x").is_empty());
        assert_eq!(path_segment_problems(".."), vec!["may not be '..'"]);
        assert_eq!(
            path_segment_problems("a/b%"),
            vec!["may not contain '/'", "may not contain '%'"]
        );
    }
}
