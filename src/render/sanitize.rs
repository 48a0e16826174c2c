//! Strips terminal control characters from untrusted strings (object names, messages).
//!
//! A name or annotation from a cluster could carry escape sequences that move the cursor,
//! rewrite the screen or set the window title. Control characters (C0, DEL, C1) are replaced
//! by a visible `\xNN` / `\u{NNNN}` escape, as ripgrep's `grep-cli` escape does for bytes.

use std::borrow::Cow;

/// Returns `s` with every control character escaped; borrows when there is none.
pub fn sanitize(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) {
            let code = u32::from(c);
            if code <= 0xff {
                out.push_str(&format!("\\x{code:02x}"));
            } else {
                out.push_str(&format!("\\u{{{code:04x}}}"));
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn is_unsafe(c: char) -> bool {
    c.is_control()
        // Bidirectional overrides can reorder what a terminal shows (CVE-2021-42574).
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_terminal_sequences() {
        assert_eq!(sanitize("pod-\u{1b}[2Jx\u{7}"), "pod-\\x1b[2Jx\\x07");
        assert_eq!(sanitize("a\nb\tc"), "a\\x0ab\\x09c");
        assert_eq!(sanitize("\u{9b}31m"), "\\x9b31m");
        assert_eq!(sanitize("evil\u{202e}txt"), "evil\\u{202e}txt");
    }

    #[test]
    fn borrows_clean_strings() {
        assert!(matches!(sanitize("train-a-0"), Cow::Borrowed(_)));
        assert_eq!(sanitize("ünïcode-ok"), "ünïcode-ok");
    }
}
