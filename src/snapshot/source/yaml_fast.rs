//! A fast path for the YAML that dumps are made of: block-style YAML as `kubectl get -o yaml`
//! (sigs.k8s.io/yaml over go-yaml) and people write it, turned into JSON text in one pass so
//! that it takes the JSON loader's typed, pruning path instead of a full YAML tree.
//!
//! [`to_json`] handles a subset of YAML 1.2 exactly and gives up (`None`) at the first
//! construct outside it, and the caller then parses the document with the full parser
//! (serde-saphyr), so the fast path never changes an answer, only the time it takes:
//!
//! - block mappings and sequences (including `key:` followed by a sequence at the key's own
//!   column, and compact `- key: value` items), flow collections on one line
//!   (`{cpu: "1"}`, `[a, b]`, a line of JSON);
//! - plain scalars, also over several lines (folded as YAML folds them), with ` #` comments;
//! - single- and double-quoted scalars, also over several lines, with every escape that JSON
//!   can hold;
//! - block scalars, literal (`|`, `|-`, `|+`) and folded (`>`, `>-`, `>+`).
//!
//! It gives up on anchors, aliases, tags, directives, flow collections over several lines,
//! explicit indentation indicators, complex keys, duplicate keys, tabs in
//! indentation, carriage returns and anything it cannot parse. A plain scalar that a YAML
//! schema could read as something other than a string or a plain decimal integer (`1.5`,
//! `0755`, `1e3`, `yes`, `~`, `.inf`) is resolved by serde-saphyr itself, so both paths type
//! it alike. The test `the_fast_path_and_the_full_parser_agree_on_every_yaml_file_in_testdata`
//! holds the two paths to the
//! same value on every YAML file under `testdata/` and on generated documents.

use std::borrow::Cow;

/// The JSON text of a YAML document, and whether its top-level `kind` names a list.
#[derive(Debug)]
pub(crate) struct Converted {
    /// The document as JSON.
    pub json: String,
    /// The top-level `kind` ends with `List` (the caller keeps lists on the full path).
    pub list: bool,
}

#[derive(serde::Deserialize)]
struct Head<'a> {
    #[serde(borrow)]
    kind: Option<Cow<'a, str>>,
}

/// Deeper documents are left to the full parser (and its depth budget).
const MAX_DEPTH: usize = 64;

/// Converts a YAML document (one unit of the YAML splitter) to JSON text, or `None` when it
/// holds anything outside the subset described in the module documentation.
pub(crate) fn to_json(text: &str) -> Option<Converted> {
    if text.contains('\r') || text.starts_with('\u{feff}') {
        return None;
    }
    let mut p = Parser {
        src: text.as_bytes(),
        text,
        pos: 0,
        inline: None,
        out: String::with_capacity(text.len()),
        depth: 0,
        keys: Vec::new(),
        list: false,
    };
    p.skip_document_start()?;
    let line = p.peek()?;
    if line.indent != 0 || line.is_seq_item_in(p.src) {
        return None;
    }
    if p.src.get(line.content) == Some(&b'{') {
        // One line of JSON (or a flow mapping): the whole document.
        p.consume(line);
        if !matches!(p.inline_value(line, 0)?, After::Done) {
            return None;
        }
        p.list = serde_json::from_str::<Head<'_>>(&p.out)
            .ok()
            .and_then(|h| h.kind)
            .is_some_and(|k| k.ends_with("List"));
    } else {
        p.mapping(0, true)?;
    }
    if p.peek().is_some() {
        return None;
    }
    Some(Converted {
        json: p.out,
        list: p.list,
    })
}

/// One significant line (not blank, not a comment): where its content starts.
#[derive(Debug, Clone, Copy)]
struct Line {
    /// Column of the content.
    indent: usize,
    /// Byte offset of the content.
    content: usize,
    /// Byte offset of the line's end (its `\n`, or the text's end).
    end: usize,
}

impl Line {
    fn is_seq_item_in(self, src: &[u8]) -> bool {
        src.get(self.content) == Some(&b'-')
            && src
                .get(self.content + 1)
                .is_none_or(|c| *c == b' ' || *c == b'\n')
    }
}

struct Parser<'a> {
    src: &'a [u8],
    text: &'a str,
    /// Start of the next unread line.
    pos: usize,
    /// A line's rest that is the next node's first line (after `- `), as a line of its own.
    inline: Option<Line>,
    out: String,
    depth: usize,
    /// Keys of the mappings being read (a stack): duplicates go to the full parser.
    keys: Vec<Cow<'a, str>>,
    list: bool,
}

/// How a scalar's first line ended.
enum After {
    /// The value is on following lines (`key:` alone).
    Block,
    /// The value was read.
    Done,
}

impl<'a> Parser<'a> {
    /// `---` alone on the first significant line is the document's start marker.
    fn skip_document_start(&mut self) -> Option<()> {
        let line = self.peek()?;
        let rest = &self.text[line.content..line.end];
        if line.indent == 0 && rest.starts_with("---") {
            if rest.trim_end() != "---" {
                return None;
            }
            self.consume(line);
        } else if line.indent == 0 && rest.starts_with('%') {
            return None;
        }
        Some(())
    }

    /// The next significant line, without consuming it; `None` at the end. Tabs in
    /// indentation give up (via an indent the callers cannot match).
    fn peek(&mut self) -> Option<Line> {
        if let Some(l) = self.inline {
            return Some(l);
        }
        let mut pos = self.pos;
        while pos < self.src.len() {
            let end = memchr::memchr(b'\n', &self.src[pos..]).map_or(self.src.len(), |i| pos + i);
            let line = &self.src[pos..end];
            let indent = line.iter().take_while(|b| **b == b' ').count();
            match line.get(indent) {
                None => {}
                Some(b'#') => {}
                Some(b'\t') => {
                    if line[indent..].iter().all(|b| b.is_ascii_whitespace()) {
                        // A blank line with a tab: blank.
                    } else {
                        return Some(Line {
                            indent: usize::MAX,
                            content: pos + indent,
                            end,
                        });
                    }
                }
                Some(_) => {
                    self.pos = pos;
                    return Some(Line {
                        indent,
                        content: pos + indent,
                        end,
                    });
                }
            }
            pos = end + 1;
        }
        self.pos = self.src.len();
        None
    }

    fn consume(&mut self, line: Line) {
        self.inline = None;
        self.pos = (line.end + 1).min(self.src.len());
    }

    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    /// A block node whose lines are indented more than `parent` (the value of `key:` alone,
    /// or of `-` alone). A sequence may also start at `parent` itself when `seq_at_parent`
    /// (YAML's "compact" sequence under a mapping key).
    fn block_node(&mut self, parent: usize, seq_at_parent: bool) -> Option<()> {
        let Some(line) = self.peek() else {
            self.out.push_str("null");
            return Some(());
        };
        let seq = line.is_seq_item_in(self.src);
        if line.indent == usize::MAX {
            return None;
        }
        if line.indent > parent || (seq_at_parent && seq && line.indent == parent) {
            if seq {
                self.sequence(line.indent)
            } else if self.key_end(line).is_some() {
                self.mapping(line.indent, false)
            } else {
                // A scalar alone on the lines below its key: left to the full parser.
                None
            }
        } else {
            self.out.push_str("null");
            Some(())
        }
    }

    /// A block mapping whose keys are at column `indent`.
    fn mapping(&mut self, indent: usize, top: bool) -> Option<()> {
        self.enter()?;
        let keys_from = self.keys.len();
        self.out.push('{');
        let mut first = true;
        while let Some(line) = self.peek() {
            if line.indent != indent {
                if line.indent > indent {
                    return None;
                }
                break;
            }
            if line.is_seq_item_in(self.src) {
                break;
            }
            let (key, value_at) = self.key(line)?;
            if self.keys[keys_from..].contains(&key) {
                return None;
            }
            if !first {
                self.out.push(',');
            }
            first = false;
            write_string(&mut self.out, &key);
            self.out.push(':');
            let is_kind = top && key == "kind";
            self.keys.push(key);
            self.consume(line);
            let value_from = self.out.len();
            let rest = Line {
                indent: indent + (value_at - line.content),
                content: value_at,
                end: line.end,
            };
            match self.inline_value(rest, indent)? {
                After::Block => self.block_node(indent, true)?,
                After::Done => {}
            }
            if is_kind {
                self.list = self.out[value_from..].ends_with("List\"");
            }
        }
        self.keys.truncate(keys_from);
        self.out.push('}');
        self.depth -= 1;
        Some(())
    }

    /// A block sequence whose `-` are at column `indent`.
    fn sequence(&mut self, indent: usize) -> Option<()> {
        self.enter()?;
        self.out.push('[');
        let mut first = true;
        while let Some(line) = self.peek() {
            if line.indent != indent || !line.is_seq_item_in(self.src) {
                if line.indent > indent {
                    return None;
                }
                break;
            }
            if !first {
                self.out.push(',');
            }
            first = false;
            self.consume(line);
            let after_dash = &self.src[line.content + 1..line.end];
            let spaces = after_dash.iter().take_while(|b| **b == b' ').count();
            let at = line.content + 1 + spaces;
            let rest = Line {
                indent: indent + 1 + spaces,
                content: at,
                end: line.end,
            };
            if at >= line.end || self.src.get(at) == Some(&b'#') && spaces > 0 {
                self.block_node(indent, false)?;
            } else if rest.is_seq_item_in(self.src) || self.src.get(at) == Some(&b'\t') {
                return None;
            } else if self.key_end(rest).is_some() {
                // `- key: value`: a mapping whose keys are at the item's content column.
                self.inline = Some(rest);
                self.mapping(rest.indent, false)?;
            } else {
                match self.inline_value(rest, indent)? {
                    After::Block => self.block_node(indent, false)?,
                    After::Done => {}
                }
            }
        }
        self.out.push(']');
        self.depth -= 1;
        Some(())
    }

    /// Where the key on `line` ends (the offset of its `:`), if the line holds `key:`.
    fn key_end(&self, line: Line) -> Option<usize> {
        let s = &self.src[line.content..line.end];
        match s.first()? {
            b'"' | b'\'' => {
                let quote = s[0];
                let mut i = 1;
                while i < s.len() {
                    if s[i] == b'\\' && quote == b'"' {
                        i += 2;
                        continue;
                    }
                    if s[i] == quote {
                        if quote == b'\'' && s.get(i + 1) == Some(&b'\'') {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                let after = i + 1;
                (s.get(after) == Some(&b':') && ends_key(s, after)).then_some(line.content + after)
            }
            // A flow collection is a value, not a key.
            b'{' | b'[' => None,
            _ => {
                let mut from = 0;
                while let Some(i) = memchr::memchr(b':', &s[from..]) {
                    let at = from + i;
                    if ends_key(s, at) {
                        return Some(line.content + at);
                    }
                    from = at + 1;
                }
                None
            }
        }
    }

    /// The key on `line` and the offset where its value starts.
    fn key(&self, line: Line) -> Option<(Cow<'a, str>, usize)> {
        let colon = self.key_end(line)?;
        let raw = &self.text[line.content..colon];
        let key: Cow<'a, str> = match raw.as_bytes().first()? {
            b'"' => double_quoted_line(&raw[1..raw.len().checked_sub(1)?])?,
            b'\'' => Cow::Owned(raw[1..raw.len().checked_sub(1)?].replace("''", "'")),
            _ => {
                let key = raw.trim_end_matches(' ');
                if !plain_key(key) {
                    return None;
                }
                Cow::Borrowed(key)
            }
        };
        let mut value_at = colon + 1;
        while self.src.get(value_at) == Some(&b' ') {
            value_at += 1;
        }
        Some((key, value_at.min(line.end)))
    }

    /// The value that starts on a line at `rest` (after `key: ` or `- `), in a block whose
    /// indentation is `parent`.
    fn inline_value(&mut self, rest: Line, parent: usize) -> Option<After> {
        let s = &self.text[rest.content..rest.end];
        let Some(first) = s.bytes().next() else {
            return Some(After::Block);
        };
        match first {
            b'#' => Some(After::Block),
            b'|' | b'>' => self.block_scalar(s, parent).map(|()| After::Done),
            b'\'' | b'"' => self.quoted(rest, parent).map(|()| After::Done),
            b'{' | b'[' => {
                let mut flow = Flow {
                    s: s.as_bytes(),
                    text: s,
                    i: 0,
                };
                flow.node(self, 0)?;
                let rest = &s[flow.i..];
                let t = rest.trim_start_matches([' ', '\t']);
                if !(t.is_empty() || (t.starts_with('#') && t.len() != rest.len())) {
                    return None;
                }
                Some(After::Done)
            }
            b'&' | b'*' | b'!' | b'%' | b'@' | b'`' | b'\t' => None,
            b'-' if s.len() == 1 || s.as_bytes().get(1) == Some(&b' ') => None,
            b'?' | b':' if s.len() == 1 || s.as_bytes().get(1) == Some(&b' ') => None,
            _ => self.plain(s, parent).map(|()| After::Done),
        }
    }

    /// A plain scalar whose first line is `first`, continued on lines indented more than
    /// `parent`.
    fn plain(&mut self, first: &str, parent: usize) -> Option<()> {
        let head = strip_comment(first);
        if head.contains(": ") || head.ends_with(':') || head.contains(" \t") {
            return None;
        }
        let had_comment = head.len() != first.trim_end().len();
        let mut value = Cow::Borrowed(head);
        // Continuation lines (folded): lines indented more than `parent`, up to a line that
        // is not.
        let mut blank = 0usize;
        let mut pos = self.pos;
        while pos < self.src.len() {
            let end = memchr::memchr(b'\n', &self.src[pos..]).map_or(self.src.len(), |i| pos + i);
            let line = &self.text[pos..end];
            let indent = line.bytes().take_while(|b| *b == b' ').count();
            let content = &line[indent..];
            if content.trim().is_empty() {
                if content.contains('\t') {
                    return None;
                }
                blank += 1;
                pos = end + 1;
                continue;
            }
            if indent <= parent {
                break;
            }
            let c = strip_comment(content);
            if had_comment
                || content.starts_with('#')
                || c.len() != content.trim_end().len()
                || c.contains(": ")
                || c.ends_with(':')
                || content.starts_with('\t')
                || c.starts_with("- ")
                || c == "-"
            {
                return None;
            }
            let v = value.to_mut();
            if blank == 0 {
                v.push(' ');
            } else {
                (0..blank).for_each(|_| v.push('\n'));
            }
            v.push_str(c);
            blank = 0;
            pos = end + 1;
            self.pos = pos.min(self.src.len());
        }
        self.scalar(&value)
    }

    /// Writes a plain scalar: a string, a decimal integer, or what serde-saphyr resolves it to.
    fn scalar(&mut self, s: &str) -> Option<()> {
        match resolve(s)? {
            Resolved::String => write_string(&mut self.out, s),
            Resolved::Raw => self.out.push_str(s),
            Resolved::Value(v) => self.out.push_str(&serde_json::to_string(&v).ok()?),
        }
        Some(())
    }

    /// A single- or double-quoted scalar starting at `rest`, possibly over several lines
    /// (folded), followed by nothing but a comment.
    fn quoted(&mut self, rest: Line, parent: usize) -> Option<()> {
        let quote = self.src[rest.content];
        let mut value = String::new();
        let mut i = rest.content + 1;
        // Output length before the current run of unescaped blanks (trimmed at a line end).
        let mut blanks_from: Option<usize> = None;
        loop {
            let &b = self.src.get(i)?;
            match b {
                b'\'' if quote == b'\'' => {
                    if self.src.get(i + 1) == Some(&b'\'') {
                        value.push('\'');
                        blanks_from = None;
                        i += 2;
                        continue;
                    }
                    break;
                }
                b'"' if quote == b'"' => break,
                b'\\' if quote == b'"' => {
                    if self.src.get(i + 1) == Some(&b'\n') {
                        i = self.skip_folded_indent(i + 2, parent)?;
                        blanks_from = None;
                        continue;
                    }
                    i = escape(self.text, i + 1, &mut value)?;
                    blanks_from = None;
                }
                b'\n' => {
                    if let Some(from) = blanks_from.take() {
                        value.truncate(from);
                    }
                    i = self.fold(i, parent, &mut value)?;
                }
                b' ' | b'\t' => {
                    blanks_from.get_or_insert(value.len());
                    value.push(b as char);
                    i += 1;
                }
                _ => {
                    blanks_from = None;
                    let len = utf8_len(b);
                    value.push_str(self.text.get(i..i + len)?);
                    i += len;
                }
            }
        }
        // After the closing quote: only blanks and a comment.
        let end = memchr::memchr(b'\n', &self.src[i..]).map_or(self.src.len(), |k| i + k);
        let after = self.text.get(i + 1..end)?;
        let t = after.trim_start_matches([' ', '\t']);
        if !(t.is_empty() || (t.starts_with('#') && after.len() != t.len())) {
            return None;
        }
        self.pos = (end + 1).min(self.src.len());
        write_string(&mut self.out, &value);
        Some(())
    }

    /// A line break inside a quoted scalar at `i`: empty lines become `\n`, a single break a
    /// space; returns where the next line's content starts.
    fn fold(&self, i: usize, parent: usize, value: &mut String) -> Option<usize> {
        let mut pos = i + 1;
        let mut empty = 0usize;
        loop {
            let end = memchr::memchr(b'\n', &self.src[pos..]).map_or(self.src.len(), |k| pos + k);
            let line = &self.src[pos..end];
            let indent = line
                .iter()
                .take_while(|b| **b == b' ' || **b == b'\t')
                .count();
            if indent == line.len() && end < self.src.len() {
                empty += 1;
                pos = end + 1;
                continue;
            }
            let spaces = line.iter().take_while(|b| **b == b' ').count();
            if spaces <= parent || end >= self.src.len() && indent == line.len() {
                return None;
            }
            if empty == 0 {
                value.push(' ');
            } else {
                (0..empty).for_each(|_| value.push('\n'));
            }
            return Some(pos + indent);
        }
    }

    /// After an escaped line break: the next line's leading blanks are dropped.
    fn skip_folded_indent(&self, pos: usize, parent: usize) -> Option<usize> {
        let line_end = memchr::memchr(b'\n', &self.src[pos..]).map_or(self.src.len(), |k| pos + k);
        let line = &self.src[pos..line_end];
        let spaces = line.iter().take_while(|b| **b == b' ').count();
        let blanks = line
            .iter()
            .take_while(|b| **b == b' ' || **b == b'\t')
            .count();
        if blanks == line.len() || spaces <= parent {
            return None;
        }
        Some(pos + blanks)
    }

    /// A block scalar, literal (`|`, `|-`, `|+`) or folded (`>`, `>-`, `>+`), whose header
    /// is `header`, its content on the following lines indented more than `parent`. Folding
    /// and chomping as libyaml's `yaml_parser_scan_block_scalar` does them.
    fn block_scalar(&mut self, header: &str, parent: usize) -> Option<()> {
        let (folded, chomp) = match strip_comment(header) {
            "|" => (false, Chomp::Clip),
            "|-" => (false, Chomp::Strip),
            "|+" => (false, Chomp::Keep),
            ">" => (true, Chomp::Clip),
            ">-" => (true, Chomp::Strip),
            ">+" => (true, Chomp::Keep),
            _ => return None,
        };
        let mut lines: Vec<&str> = Vec::new();
        let mut indent: Option<usize> = None;
        let mut pos = self.pos;
        let mut leading_max = 0usize;
        while pos < self.src.len() {
            let nl = memchr::memchr(b'\n', &self.src[pos..]);
            let end = nl.map_or(self.src.len(), |k| pos + k);
            let line = &self.text[pos..end];
            let spaces = line.bytes().take_while(|b| *b == b' ').count();
            let blank = spaces == line.len();
            match indent {
                None if blank => {
                    leading_max = leading_max.max(spaces);
                    lines.push("");
                }
                None => {
                    if spaces <= parent || spaces < leading_max || line[spaces..].starts_with('\t')
                    {
                        return None;
                    }
                    indent = Some(spaces);
                    lines.push(&line[spaces..]);
                }
                Some(n) if blank => lines.push(line.get(n..).unwrap_or("")),
                Some(n) if spaces >= n => lines.push(&line[n..]),
                Some(_) => break,
            }
            nl?;
            pos = end + 1;
        }
        indent?;
        self.pos = pos.min(self.src.len());
        let value = fold_block(&lines, folded, chomp);
        write_string(&mut self.out, &value);
        Some(())
    }
}

/// A block scalar's text from its lines (indentation removed, `""` for an empty line):
/// a folded scalar joins two adjacent lines that do not start with a blank with a space,
/// every empty line is a line break; then the final break and trailing empty lines are
/// chomped.
fn fold_block(lines: &[&str], folded: bool, chomp: Chomp) -> String {
    let mut out = String::new();
    let (mut leading_break, mut leading_blank, mut trailing) = (false, false, 0usize);
    for line in lines {
        if line.is_empty() {
            trailing += 1;
            continue;
        }
        let trailing_blank = line.starts_with([' ', '\t']);
        if folded && leading_break && !leading_blank && !trailing_blank {
            if trailing == 0 {
                out.push(' ');
            }
        } else if leading_break {
            out.push('\n');
        }
        (0..trailing).for_each(|_| out.push('\n'));
        trailing = 0;
        leading_blank = trailing_blank;
        out.push_str(line);
        leading_break = true;
    }
    match chomp {
        Chomp::Strip => {}
        Chomp::Clip => {
            if leading_break {
                out.push('\n');
            }
        }
        Chomp::Keep => {
            if leading_break {
                out.push('\n');
            }
            (0..trailing).for_each(|_| out.push('\n'));
        }
    }
    out
}

/// A flow collection on one line (`{cpu: "1", memory: 1Gi}`, `[a, b]`), as people write
/// them in manifests; one that goes on to another line goes to the full parser.
struct Flow<'s> {
    s: &'s [u8],
    text: &'s str,
    i: usize,
}

impl<'s> Flow<'s> {
    fn blanks(&mut self) {
        while matches!(self.s.get(self.i), Some(b' ' | b'\t')) {
            self.i += 1;
        }
    }

    /// One node: a collection, a quoted or a plain scalar.
    fn node(&mut self, p: &mut Parser<'_>, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.blanks();
        match *self.s.get(self.i)? {
            b'{' => self.mapping(p, depth),
            b'[' => self.sequence(p, depth),
            b'"' | b'\'' => {
                let value = self.quoted()?;
                write_string(&mut p.out, &value);
                Some(())
            }
            _ => {
                let plain = self.plain()?;
                p.scalar(plain)
            }
        }
    }

    fn sequence(&mut self, p: &mut Parser<'_>, depth: usize) -> Option<()> {
        self.i += 1;
        p.out.push('[');
        let mut first = true;
        loop {
            self.blanks();
            if self.s.get(self.i) == Some(&b']') {
                self.i += 1;
                break;
            }
            if !first {
                p.out.push(',');
            }
            first = false;
            self.node(p, depth + 1)?;
            self.blanks();
            match *self.s.get(self.i)? {
                b',' => self.i += 1,
                b']' => {}
                _ => return None,
            }
        }
        p.out.push(']');
        Some(())
    }

    fn mapping(&mut self, p: &mut Parser<'_>, depth: usize) -> Option<()> {
        self.i += 1;
        p.out.push('{');
        let mut keys: Vec<Cow<'s, str>> = Vec::new();
        loop {
            self.blanks();
            if self.s.get(self.i) == Some(&b'}') {
                self.i += 1;
                break;
            }
            let key: Cow<'s, str> = match *self.s.get(self.i)? {
                b'"' | b'\'' => Cow::Owned(self.quoted()?),
                _ => {
                    let k = self.plain()?;
                    if !plain_key(k) {
                        return None;
                    }
                    Cow::Borrowed(k)
                }
            };
            self.blanks();
            // `key: value` only (a key alone, or `key:value`, goes to the full parser).
            if self.s.get(self.i) != Some(&b':') || !matches!(self.s.get(self.i + 1), Some(b' ')) {
                return None;
            }
            self.i += 1;
            if keys.contains(&key) {
                return None;
            }
            if !keys.is_empty() {
                p.out.push(',');
            }
            write_string(&mut p.out, &key);
            p.out.push(':');
            keys.push(key);
            self.blanks();
            if matches!(self.s.get(self.i), Some(b',' | b'}')) {
                p.out.push_str("null");
            } else {
                self.node(p, depth + 1)?;
            }
            self.blanks();
            match *self.s.get(self.i)? {
                b',' => self.i += 1,
                b'}' => {}
                _ => return None,
            }
        }
        p.out.push('}');
        Some(())
    }

    /// A plain scalar in flow context: up to `,`, `[`, `]`, `{`, `}`, `: ` or ` #`.
    fn plain(&mut self) -> Option<&'s str> {
        let from = self.i;
        let first = *self.s.get(from)?;
        if matches!(
            first,
            b'-' | b'?'
                | b':'
                | b'#'
                | b'&'
                | b'*'
                | b'!'
                | b'|'
                | b'>'
                | b'%'
                | b'@'
                | b'`'
                | b','
        ) && !(first == b'-'
            && self
                .s
                .get(from + 1)
                .is_some_and(|c| !matches!(c, b' ' | b',' | b']' | b'}')))
        {
            return None;
        }
        while let Some(&c) = self.s.get(self.i) {
            match c {
                b',' | b'[' | b']' | b'{' | b'}' => break,
                b':' if matches!(
                    self.s.get(self.i + 1),
                    None | Some(b' ' | b',' | b']' | b'}')
                ) =>
                {
                    break;
                }
                b'#' if matches!(self.s.get(self.i.wrapping_sub(1)), Some(b' ' | b'\t')) => {
                    return None;
                }
                b'\t' => return None,
                _ => self.i += 1,
            }
        }
        let plain = self.text[from..self.i].trim_end_matches(' ');
        (!plain.is_empty()).then_some(plain)
    }

    /// A quoted scalar that ends on this line.
    fn quoted(&mut self) -> Option<String> {
        let quote = self.s[self.i];
        let mut value = String::new();
        let mut i = self.i + 1;
        loop {
            let b = *self.s.get(i)?;
            if b == quote {
                if quote == b'\'' && self.s.get(i + 1) == Some(&b'\'') {
                    value.push('\'');
                    i += 2;
                    continue;
                }
                break;
            }
            if b == b'\\' && quote == b'"' {
                i = escape(self.text, i + 1, &mut value)?;
                continue;
            }
            let len = utf8_len(b);
            value.push_str(self.text.get(i..i + len)?);
            i += len;
        }
        self.i = i + 1;
        Some(value)
    }
}

enum Chomp {
    Clip,
    Strip,
    Keep,
}

/// A `:` at `at` in `s` ends a key when a blank or the line's end follows it.
fn ends_key(s: &[u8], at: usize) -> bool {
    matches!(s.get(at + 1), None | Some(b' '))
}

/// A plain key the fast path takes as a string: not empty, not starting with an indicator or
/// a character that could make it a number, boolean or null, no comment.
fn plain_key(key: &str) -> bool {
    let Some(first) = key.bytes().next() else {
        return false;
    };
    if key == "." {
        return true;
    }
    let indicator = matches!(
        first,
        b'-' | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'%'
            | b'@'
            | b'`'
            | b'+'
            | b'.'
            | b'~'
            | b'\t'
    );
    !indicator
        && !first.is_ascii_digit()
        && !special_word(key)
        && !key.contains(" #")
        && !key.contains('\t')
}

/// Words some YAML schema reads as booleans, null or a float (any case). Runs on every short
/// letter-led plain scalar, so it compares in place instead of lowercasing a copy.
fn special_word(s: &str) -> bool {
    const WORDS: [&str; 13] = [
        "true", "false", "null", "yes", "no", "on", "off", "y", "n", "~", "inf", "infinity", "nan",
    ];
    s.len() <= 8 && WORDS.iter().any(|w| w.eq_ignore_ascii_case(s))
}

/// The text of a line's value without a trailing ` #` comment and trailing blanks.
fn strip_comment(s: &str) -> &str {
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(i) = memchr::memchr(b'#', &b[from..]) {
        let at = from + i;
        if at == 0 || matches!(b[at - 1], b' ' | b'\t') {
            return s[..at].trim_end_matches([' ', '\t']);
        }
        from = at + 1;
    }
    s.trim_end_matches([' ', '\t'])
}

enum Resolved {
    String,
    /// A decimal integer, written as it is.
    Raw,
    /// What serde-saphyr reads.
    Value(serde_json::Value),
}

/// How a plain scalar is typed: strings and decimal integers here, anything that a YAML
/// schema might read otherwise by serde-saphyr.
fn resolve(s: &str) -> Option<Resolved> {
    let b = s.as_bytes();
    let first = *b.first()?;
    let numeric = first.is_ascii_digit() || matches!(first, b'-' | b'+' | b'.');
    if !numeric && !special_word(s) {
        return Some(Resolved::String);
    }
    if quantity_like(b) {
        return Some(Resolved::String);
    }
    let digits = b.strip_prefix(b"-").unwrap_or(b);
    let decimal = !digits.is_empty()
        && digits.len() <= 18
        && digits.iter().all(u8::is_ascii_digit)
        && (digits[0] != b'0' || digits.len() == 1);
    if decimal && s != "-0" {
        return Some(Resolved::Raw);
    }
    let v: serde_json::Value =
        serde_saphyr::from_str_with_options(s, super::parse::yaml_options()).ok()?;
    Some(Resolved::Value(v))
}

/// Digits then one of Kubernetes' quantity suffixes that no YAML number syntax ends with
/// (`64Gi`, `500m`, `16k`; not `E`, which reads as an exponent): a string in every schema,
/// the commonest digit-led scalar of a dump, so not worth a parser call.
fn quantity_like(b: &[u8]) -> bool {
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    digits > 0
        && matches!(
            &b[digits..],
            b"Ki" | b"Mi" | b"Gi" | b"Ti" | b"Pi" | b"Ei" | b"m" | b"k" | b"M" | b"G" | b"T" | b"P"
        )
}

/// One escape of a double-quoted scalar at `i` (after the `\`); returns the offset after it.
fn escape(text: &str, i: usize, value: &mut String) -> Option<usize> {
    let b = *text.as_bytes().get(i)?;
    let simple = match b {
        b'0' => Some('\0'),
        b'a' => Some('\u{7}'),
        b'b' => Some('\u{8}'),
        b't' | b'\t' => Some('\t'),
        b'n' => Some('\n'),
        b'v' => Some('\u{b}'),
        b'f' => Some('\u{c}'),
        b'r' => Some('\r'),
        b'e' => Some('\u{1b}'),
        b' ' => Some(' '),
        b'"' => Some('"'),
        b'/' => Some('/'),
        b'\\' => Some('\\'),
        b'N' => Some('\u{85}'),
        b'_' => Some('\u{a0}'),
        b'L' => Some('\u{2028}'),
        b'P' => Some('\u{2029}'),
        _ => None,
    };
    if let Some(c) = simple {
        value.push(c);
        return Some(i + 1);
    }
    let len = match b {
        b'x' => 2,
        b'u' => 4,
        b'U' => 8,
        _ => return None,
    };
    let hex = text.get(i + 1..i + 1 + len)?;
    if !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let code = u32::from_str_radix(hex, 16).ok()?;
    value.push(char::from_u32(code)?);
    Some(i + 1 + len)
}

/// A double-quoted key's text (one line), unescaped.
fn double_quoted_line(inner: &str) -> Option<Cow<'_, str>> {
    if !inner.contains('\\') {
        return Some(Cow::Borrowed(inner));
    }
    let mut value = String::with_capacity(inner.len());
    let mut i = 0;
    while i < inner.len() {
        let b = inner.as_bytes()[i];
        if b == b'\\' {
            i = escape(inner, i + 1, &mut value)?;
        } else {
            let len = utf8_len(b);
            value.push_str(inner.get(i..i + len)?);
            i += len;
        }
    }
    Some(Cow::Owned(value))
}

fn utf8_len(first: u8) -> usize {
    match first {
        0..0x80 => 1,
        0xC0..0xE0 => 2,
        0xE0..0xF0 => 3,
        _ => 4,
    }
}

/// Writes `s` as a JSON string.
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    let b = s.as_bytes();
    let mut from = 0;
    for (i, &c) in b.iter().enumerate() {
        let esc = match c {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\t' => "\\t",
            b'\r' => "\\r",
            0..0x20 | 0x7f => "",
            _ => continue,
        };
        out.push_str(&s[from..i]);
        if esc.is_empty() {
            out.push_str(&format!("\\u{c:04x}"));
        } else {
            out.push_str(esc);
        }
        from = i + 1;
    }
    out.push_str(&s[from..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    fn full(text: &str) -> Option<Value> {
        serde_saphyr::from_str_with_options(text, super::super::parse::yaml_options()).ok()
    }

    /// `Some(true)` when the fast path took the document and agrees with the full parser,
    /// `Some(false)` when it gave up; panics when it took it and disagrees.
    fn check(text: &str) -> bool {
        let Some(fast) = to_json(text) else {
            return false;
        };
        let ours: Value = serde_json::from_str(&fast.json)
            .unwrap_or_else(|e| panic!("invalid JSON {e} from {text:?}: {}", fast.json));
        let theirs = full(text)
            .unwrap_or_else(|| panic!("fast path took what the full parser refuses: {text:?}"));
        assert_eq!(ours, theirs, "for {text:?}");
        true
    }

    #[test]
    fn kubectl_output_takes_the_fast_path() {
        let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: w-0\n  labels:\n    app: x\n    \
            version: '1.0'\n  annotations:\n    note: |\n      line one\n      line two\n  \
            managedFields:\n  - apiVersion: v1\n    fieldsV1:\n      f:metadata:\n        \
            f:labels:\n          .: {}\n          k:{\"type\":\"Ready\"}: {}\n    time: \
            \"2026-10-01T08:00:00Z\"\nspec:\n  containers:\n  - name: c\n    image: \
            registry.k8s.io/pause:3.10\n    args: []\n    resources:\n      requests:\n        \
            cpu: 500m\n        nvidia.com/gpu: 8\n  tolerations:\n  - effect: NoSchedule\n    \
            operator: Exists\nstatus:\n  phase: Pending\n  hostIP: 10.0.0.1\n  conditions:\n  - \
            message: '0/8 nodes are available: 8 Insufficient nvidia.com/gpu. preemption:\n      \
            0/8 nodes are available.'\n    status: \"False\"\n";
        assert!(check(text));
        let fast = to_json(text).map(|c| c.list);
        assert_eq!(fast, Some(false));
        assert_eq!(
            to_json("apiVersion: v1\nkind: List\nitems: []\n").map(|c| c.list),
            Some(true)
        );
    }

    #[test]
    fn scalars_a_schema_could_read_otherwise_are_typed_as_the_full_parser_types_them() {
        for v in [
            "1.5",
            "0755",
            "1e3",
            "yes",
            "No",
            "on",
            "OFF",
            "y",
            "n",
            "~",
            "null",
            "Null",
            "true",
            "False",
            ".inf",
            "-.inf",
            ".nan",
            "0x1F",
            "0o17",
            "1_000",
            "12:30",
            "-0",
            "+5",
            "2026-10-01",
            "-",
            "007",
            "99999999999999999999",
            "-12",
            "0",
            "10.244.1.0/24",
            "1.2.3",
            "100m",
            "1Gi",
            "-foo",
        ] {
            let text = format!("a: {v}\nb:\n- {v}\n");
            check(&text);
        }
    }

    #[test]
    fn hard_cases_agree_or_go_to_the_full_parser() {
        let cases = [
            // Plain scalars over several lines, comments, blank lines.
            "a: one\n  two\n\n  three\nb: x # note\nc: a#b\n",
            "a:\n- one\n  two\n- # empty\n-\n- x\n",
            // Quoted scalars: escapes, folding, blank lines, escaped breaks.
            "a: \"tab\\there \\\"q\\\" \\u00e9 \\x41 \\U0001F600 \\N\\_\"\n",
            "a: \"long line \\\n  continued\"\nb: 'it''s\n  folded\n\n  twice'\n",
            "a: \"trailing   \n   spaces\"\n",
            "a: 'x' # c\nb: 'y' z\n",
            // Literal scalars with each chomping, blank and deeper lines.
            "a: |\n  one\n\n    two\n\nb: |-\n  x\n\n\nc: |+\n  y\n\n\nd: 1\n",
            "a: |\n\n  after blank\n",
            "- a: |\n    x\n  b: 2\n",
            "a: |2\n   x\n",
            "a: >\n  folded\n  once\n\n  para\n    more\n  back\n\nb: >-\n  x\n   y\n  z\nc: >+\n  k\n\n\nd: 1\n",
            "- >-\n  a long line\n  folded\n- >\n\n  lead\n",
            // Structure.
            "a:\n  b:\n    c: 1\n  d:\n  - x\n  - y: 1\n    z: 2\n  -   - nested\ne: {}\n",
            "'quoted key': 1\n\"dq\\tkey\": 2\n.: 3\n",
            "a: 1\na: 2\n",
            "a: &x 1\nb: *x\n",
            "a: !!str 1\n",
            "a: {b: 1}\n",
            "a: {b: 1, c: [x, \"y\", 'z', 2.5], d: {}, e: , f: -1}\nb: [1, 2] # c\n",
            "a: [a: b]\n",
            "a: {b}\n",
            "a: {b:1}\n",
            "a: [1, 2] x\n",
            "a: {b: 1,\n  c: 2}\n",
            "a: [-1, -x, - y, yes, '', \"\\u00e9\"]\n",
            "a: {b: 1, b: 2}\n",
            "a: [x #y]\n",
            "- {name: cpu, nominalQuota: \"8\"}\n",
            "a: [1, 2]\n",
            "? a\n: b\n",
            "a:\tb\n",
            "a: b: c\n",
            "a:\n  b\n",
            "---\na: 1\n",
            "--- !tag\na: 1\n",
            "%YAML 1.2\n---\na: 1\n",
            "a: 1\n  b: 2\n",
            "a:\n    b: 1\n  c: 2\n",
            "1: a\n",
            "true: a\n",
            "a: \"unterminated\n",
            "a: |\n  no final break",
            "a: - b\n",
            "- a\n- b\n",
            "",
            "# only a comment\n",
            "a: \"\\ud800\"\n",
            "a: 'x'\n\tb: 1\n",
        ];
        for text in cases {
            check(text);
        }
    }

    /// Every YAML file under testdata/: each document either goes to the full parser or
    /// converts to the same value; most documents take the fast path.
    #[test]
    fn the_fast_path_and_the_full_parser_agree_on_every_yaml_file_in_testdata() {
        let mut files = Vec::new();
        let mut dirs = vec![std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/testdata"
        ))];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                    files.push(path);
                }
            }
        }
        let (mut fast, mut all) = (0, 0);
        let mut slow: Vec<String> = Vec::new();
        for path in files {
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let mut doc = String::new();
            for line in text.split_inclusive('\n').chain(std::iter::once("---\n")) {
                if line.trim_end() == "---" || line.starts_with("--- ") {
                    if super::super::parse::has_content(&doc) {
                        all += 1;
                        if full(&doc).is_some() {
                            if check(&doc) {
                                fast += 1;
                            } else if slow.len() < 3 {
                                slow.push(format!("{}:\n{doc}", path.display()));
                            }
                        }
                    }
                    doc.clear();
                } else {
                    doc.push_str(line);
                }
            }
        }
        assert!(all > 1_000, "{all} documents");
        assert!(
            fast * 10 > all * 8,
            "only {fast} of {all} documents took the fast path; some that did not:\n{}",
            slow.join("\n")
        );
    }

    /// The realistic generator's YAML stream (what the YAML rows of docs/performance.md
    /// load): every document takes the fast path, so those figures time it.
    #[test]
    fn every_document_of_the_realistic_yaml_dump_takes_the_fast_path() {
        use crate::testutil::realistic::{Layout, RealisticProfile, write};
        let profile = RealisticProfile {
            nodes: 20,
            running_pods: 200,
            gangs: (3, 4),
            stuck: 1,
        };
        let mut bytes = Vec::new();
        let written = write(&mut bytes, &profile, 1, Layout::YamlStream);
        assert!(written.is_ok());
        let text = String::from_utf8(bytes).unwrap_or_default();
        let docs: Vec<&str> = text
            .split("\n---\n")
            .filter(|d| !d.trim().is_empty())
            .collect();
        assert!(docs.len() > 200, "{} documents", docs.len());
        for doc in docs {
            let doc = doc.strip_prefix("---\n").unwrap_or(doc);
            assert!(check(doc), "the fast path gave up on:\n{doc}");
        }
    }

    fn value() -> impl Strategy<Value = Value> {
        let key = prop_oneof![
            "[a-z][a-z0-9./-]{0,12}",
            "[ -~]{0,10}",
            Just("k:{\"type\":\"Ready\"}".to_owned()),
            Just(".".to_owned()),
        ];
        let text = prop_oneof![
            "[a-zA-Z0-9 .:/#'\"-]{0,30}",
            "[ -~\n\t]{0,60}",
            "\\PC{0,20}",
            Just("yes".to_owned()),
            Just("0755".to_owned()),
            Just("1.0".to_owned()),
            Just(String::new()),
        ];
        let leaf = prop_oneof![
            text.prop_map(Value::String),
            any::<i64>().prop_map(Value::from),
            any::<bool>().prop_map(Value::Bool),
            Just(Value::Null),
        ];
        leaf.prop_recursive(4, 40, 6, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::btree_map(key.clone(), inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// Documents written by a YAML emitter (serde-saphyr's: block style, quoted and
        /// folded scalars).
        #[test]
        fn generated_documents_agree(v in prop::collection::btree_map("[a-z]{1,8}", value(), 1..6)) {
            let Ok(text) = serde_saphyr::to_string(&v) else { return Ok(()) };
            check(&text);
        }
    }
}
