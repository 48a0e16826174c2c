//! Strips terminal control characters from untrusted strings (object names, messages).
//!
//! A name or annotation from a cluster could carry escape sequences that move the cursor,
//! rewrite the screen or set the window title. Control characters (C0, DEL, C1) are replaced
//! by a visible `\xNN` / `\u{NNNN}` escape, as ripgrep's `grep-cli` escape does for bytes.
//! An io error is put in words without its `(os error N)` suffix ([`io_in_words`]).
//!
//! A leaf module: it imports nothing from the crate, so loaders, errors and views all use it
//! (docs/development.md, "Layers").

use std::borrow::Cow;
use std::io;

/// Returns `s` with every control character escaped; borrows when there is none.
pub(crate) fn sanitize(s: &str) -> Cow<'_, str> {
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
        // Bidirectional overrides, isolates and marks can reorder what a terminal shows
        // (CVE-2021-42574); zero-width characters hide text or make two names look alike.
        || matches!(
            c,
            '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{200b}'..='\u{200f}'
                | '\u{061c}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{2060}'..='\u{2064}'
                | '\u{feff}'
        )
}

/// [`sanitize`] for text of several lines (an error chain): each line is sanitised, the line
/// breaks stay.
pub(crate) fn sanitize_lines(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| c != '\n' && is_unsafe(c)) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.split('\n')
            .map(|l| sanitize(l).into_owned())
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// `text` with the user information of every URL in it (`https://user:password@host`)
/// removed, so credentials in a server URL never reach a message.
pub(crate) fn redact_userinfo(text: &str) -> Cow<'_, str> {
    if !text.contains("://") || !text.contains('@') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        // The authority ends at the first `/`, `?`, `#`, whitespace or quote.
        let end = tail
            .find(|c: char| matches!(c, '/' | '?' | '#' | '`' | '\'' | '"') || c.is_whitespace())
            .unwrap_or(tail.len());
        let authority = &tail[..end];
        match authority.rfind('@') {
            Some(i) => out.push_str(&authority[i + 1..]),
            None => out.push_str(authority),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// An io error in words, without the `(os error N)` suffix: a full disk is "disk full".
pub(crate) fn io_in_words(e: &io::Error) -> String {
    let words = match e.kind() {
        io::ErrorKind::StorageFull => "disk full (no space left on device)",
        io::ErrorKind::QuotaExceeded => "disk quota exceeded",
        io::ErrorKind::PermissionDenied => "permission denied",
        io::ErrorKind::ReadOnlyFilesystem => "read-only file system",
        io::ErrorKind::NotFound => "no such file or directory",
        io::ErrorKind::IsADirectory => "it is a directory",
        io::ErrorKind::NotADirectory => "a component of the path is not a directory",
        io::ErrorKind::FileTooLarge => "file too large",
        io::ErrorKind::CrossesDevices => {
            "the temporary file and the target are on different file systems"
        }
        _ => {
            let text = e.to_string();
            return match text.rfind(" (os error ") {
                Some(i) if text.ends_with(')') => text[..i].to_owned(),
                _ => text,
            };
        }
    };
    words.to_owned()
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
    fn escapes_invisible_and_reordering_characters() {
        assert_eq!(sanitize("a\u{200b}b"), "a\\u{200b}b");
        assert_eq!(sanitize("rlm\u{200f}"), "rlm\\u{200f}");
        assert_eq!(sanitize("alm\u{61c}"), "alm\\u{061c}");
        assert_eq!(sanitize("bom\u{feff}"), "bom\\u{feff}");
        assert_eq!(sanitize_lines("a\u{1b}]0;x\u{7}\nb"), "a\\x1b]0;x\\x07\nb");
        assert!(matches!(sanitize_lines("a\nb"), Cow::Borrowed(_)));
    }

    #[test]
    fn user_information_is_removed_from_urls() {
        assert_eq!(
            redact_userinfo("cannot reach `https://admin:s3cret@10.0.0.1:6443/api` now"),
            "cannot reach `https://10.0.0.1:6443/api` now"
        );
        assert_eq!(
            redact_userinfo("a http://u@h b https://x:y@z"),
            "a http://h b https://z"
        );
        assert_eq!(redact_userinfo("mail a@b, no url"), "mail a@b, no url");
        assert_eq!(redact_userinfo("https://h/p@q"), "https://h/p@q");
    }

    #[test]
    fn borrows_clean_strings() {
        assert!(matches!(sanitize("train-a-0"), Cow::Borrowed(_)));
        assert_eq!(sanitize("ünïcode-ok"), "ünïcode-ok");
    }

    #[test]
    fn io_errors_are_put_in_words() {
        assert_eq!(
            io_in_words(&io::Error::from_raw_os_error(28)),
            "disk full (no space left on device)"
        );
        assert_eq!(io_in_words(&io::Error::other("bad value")), "bad value");
        assert_eq!(
            io_in_words(&io::Error::from_raw_os_error(5)),
            "Input/output error"
        );
    }
}
