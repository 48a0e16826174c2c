//! Streaming input: splits a buffered reader into *units* (one object, one YAML document or
//! one item of a `List`) without ever holding the whole input, and types the units on worker
//! threads while the reader goes on.
//!
//! JSON is split by a small structural scanner (strings, escapes, brackets; iterative, so
//! nesting depth costs no stack): a top-level `List`'s `items` are cut out one by one, every
//! other top-level value is one unit. The scanner checks the syntax between units (commas,
//! colons, a trailing comma is an error as in serde_json); serde_json checks the inside of each
//! unit. YAML is split into documents at `---`/`...` lines, and a document's block sequence
//! `items:` in column 1 (what `kubectl get -o yaml` prints) is cut into one unit per item.
//! Every unit remembers where it starts, so errors keep their file line and column.

use std::io::BufRead;

use super::files::{LoadError, strip_position};
use super::{Collector, JsonError, ObjectError};

/// How a source is parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Strict JSON (RFC 8259): values, arrays and concatenated values.
    Json,
    /// YAML 1.2, multi-document.
    Yaml,
}

impl Format {
    /// The one rule that picks the parser, shared by the loader and `lint`: a `.json` file is
    /// JSON and a `.yaml`/`.yml` file is YAML, whatever they start with (a YAML flow mapping
    /// `{a: 1}` stays YAML); anything else (stdin, other names) is JSON when its first
    /// non-blank byte (after a UTF-8 byte order mark) is `{` or `[`, else YAML.
    pub fn of(name: &str, first: Option<u8>) -> Self {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".json") {
            Self::Json
        } else if lower.ends_with(".yaml") || lower.ends_with(".yml") {
            Self::Yaml
        } else if matches!(first, Some(b'{' | b'[')) {
            Self::Json
        } else {
            Self::Yaml
        }
    }

    /// The name used in syntax errors.
    pub fn label(self) -> &'static str {
        match self {
            Self::Json => "JSON",
            Self::Yaml => "YAML",
        }
    }
}

/// One piece of input that becomes zero or more objects.
#[derive(Debug)]
pub(crate) struct Unit {
    /// The text (for a YAML List item, de-indented).
    pub text: String,
    /// How to parse it.
    pub format: Format,
    /// 1-based line of the first byte in the file.
    pub line: usize,
    /// 1-based column of the first byte in the file.
    pub column: usize,
    /// Columns removed from every line (YAML List items are de-indented by 2).
    pub indent: usize,
    /// Index in the enclosing `List`, if the unit is an item of one.
    pub item: Option<usize>,
}

/// Why production stopped.
#[derive(Debug)]
pub(crate) enum Stop {
    /// An error in the input (or reading it).
    Load(LoadError),
    /// A worker found an error in an earlier unit; that error is the one to report.
    Aborted,
}

impl From<LoadError> for Stop {
    fn from(e: LoadError) -> Self {
        Self::Load(e)
    }
}

/// Receives units in input order.
pub(crate) type Sink<'a> = dyn FnMut(Unit) -> Result<(), Stop> + 'a;

/// Turns one unit into objects in `collector`; errors carry file positions.
pub(crate) fn process(unit: &Unit, path: &str, collector: &mut Collector) -> Result<(), LoadError> {
    let abs = |line: usize, column: usize| -> (usize, usize) {
        let l = unit.line + line.max(1) - 1;
        let c = if line <= 1 {
            unit.column + column.max(1) - 1
        } else {
            column.max(1) + unit.indent
        };
        (l, c)
    };
    let prefix = |mut e: ObjectError| -> ObjectError {
        if let Some(i) = unit.item {
            e.field = Some(match e.field.take() {
                Some(f) => format!("items[{i}].{f}"),
                None => format!("items[{i}]"),
            });
        }
        e
    };
    let object_error = |e: ObjectError, located: Option<(usize, usize)>| {
        let (line, column) = match located {
            Some((l, c)) => abs(l, c),
            None => (unit.line, unit.column),
        };
        let e = prefix(e);
        LoadError::Object {
            path: path.to_owned(),
            line,
            column,
            object: e.object,
            field: e.field,
            message: e.message,
        }
    };
    match unit.format {
        Format::Json => collector.add_json(&unit.text).map_err(|e| match e {
            JsonError::Syntax(e) => {
                let (line, column) = abs(e.line(), e.column());
                LoadError::Syntax {
                    path: path.to_owned(),
                    format: "JSON",
                    line,
                    column,
                    message: strip_position(&e.to_string()),
                }
            }
            JsonError::Object(e) => {
                let located = super::files::locate_json(&unit.text, &e);
                object_error(e, located)
            }
        }),
        Format::Yaml => {
            if !super::files::has_content(&unit.text) {
                return Ok(());
            }
            let value: serde_json::Value =
                serde_saphyr::from_str_with_options(&unit.text, super::files::yaml_options())
                    .map_err(|e| {
                        let (line, column) = e.location().map_or((1, 1), |l| {
                            (
                                usize::try_from(l.line()).unwrap_or(1),
                                usize::try_from(l.column()).unwrap_or(1),
                            )
                        });
                        let (line, column) = abs(line, column);
                        LoadError::Syntax {
                            path: path.to_owned(),
                            format: "YAML",
                            line,
                            column,
                            message: super::files::first_line(&e.to_string()),
                        }
                    })?;
            collector.add(value).map_err(|e| {
                let located = super::files::locate_yaml(&unit.text, &e);
                object_error(e, located)
            })
        }
    }
}

// ---------------------------------------------------------------------------------------------
// JSON

/// A position-tracking reader over a `BufRead`.
struct Scanner<'r, R: BufRead> {
    r: &'r mut R,
    path: &'r str,
    line: usize,
    column: usize,
    /// A little more than the last unit's length, at most [`UNIT_RESERVE_MAX`]: the next
    /// unit's buffer starts that large (the items of one list are much alike), instead of
    /// doubling its way up. The cap keeps one large object (a big ResourceSlice before
    /// 150,000 pods) from making every later small unit reserve its size while it waits in a batch.
    last_unit: usize,
    /// Where the units' buffers come from: the buffers of units already typed, handed back.
    buffers: &'r Buffers,
    /// Buffers taken from `buffers` and not used yet (taken many at once, so the pool's lock
    /// is held once per batch rather than once per unit).
    spare: Vec<Vec<u8>>,
}

/// The most a unit's buffer reserves up front (a real pod is 6–10 KB of JSON).
const UNIT_RESERVE_MAX: usize = 64 << 10;

/// Unit buffers handed back by the threads that typed them, for the reader to fill again.
///
/// Each unit of a 150,000-pod dump is a buffer of 6–10 KB that the reading thread fills and a
/// worker thread frees: a fresh buffer for every unit took memory the process had never
/// touched, and the kernel's zeroing of those pages (with the allocator setting up each one)
/// was two thirds of the reading thread's time. The pool is bounded: at most
/// [`Buffers::MAX`] buffers, none larger than [`Buffers::MAX_CAPACITY`]. It keeps nothing until
/// the producer first takes from it, so a producer that builds its texts otherwise (the YAML
/// splitter) does not leave a full pool of buffers nobody reuses.
#[derive(Debug, Default)]
pub(crate) struct Buffers {
    pool: std::sync::Mutex<Vec<Vec<u8>>>,
    /// Whether the producer takes buffers from the pool.
    taken: std::sync::atomic::AtomicBool,
}

impl Buffers {
    /// The most buffers the pool keeps (a few batches' worth: what is in flight).
    const MAX: usize = 4 * BATCH_UNITS;
    /// The largest buffer the pool keeps (a larger one is freed).
    const MAX_CAPACITY: usize = 4 * UNIT_RESERVE_MAX;

    /// Hands back the buffers of units already typed.
    pub(crate) fn give(&self, texts: impl IntoIterator<Item = Vec<u8>>) {
        if !self.taken.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let Ok(mut pool) = self.pool.lock() else {
            return;
        };
        for mut text in texts {
            if pool.len() >= Self::MAX {
                break;
            }
            if text.capacity() <= Self::MAX_CAPACITY {
                text.clear();
                pool.push(text);
            }
        }
    }

    /// Moves every pooled buffer into `into`.
    fn take_all(&self, into: &mut Vec<Vec<u8>>) {
        self.taken.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Ok(mut pool) = self.pool.lock() {
            into.append(&mut pool);
        }
    }
}

/// The number of `\n` in `bytes`, counted 255 bytes at a time in a `u8` so that the compiler
/// turns it into a few vector instructions per 32 bytes (a `usize` count per byte was 8% of
/// reading a pretty-printed dump).
fn count_newlines(bytes: &[u8]) -> usize {
    bytes
        .chunks(255)
        .map(|chunk| {
            usize::from(
                chunk
                    .iter()
                    .fold(0u8, |n, b| n.wrapping_add(u8::from(*b == b'\n'))),
            )
        })
        .sum()
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

impl<'r, R: BufRead> Scanner<'r, R> {
    /// An empty buffer for the next unit, with room for `capacity` bytes: a pooled one when
    /// there is one.
    fn buffer(&mut self, capacity: usize) -> Vec<u8> {
        if self.spare.is_empty() {
            self.buffers.take_all(&mut self.spare);
        }
        match self.spare.pop() {
            Some(mut text) => {
                text.reserve(capacity);
                text
            }
            None => Vec::with_capacity(capacity),
        }
    }

    fn io(&self, e: std::io::Error) -> Stop {
        Stop::Load(super::files::read_error(self.path, e))
    }

    fn syntax(&self, message: &str) -> Stop {
        Stop::Load(LoadError::Syntax {
            path: self.path.to_owned(),
            format: "JSON",
            line: self.line,
            column: self.column,
            message: message.to_owned(),
        })
    }

    /// Consumes `n` bytes of the current buffer, appending them to `out`.
    fn advance(&mut self, n: usize, out: Option<&mut Vec<u8>>) {
        let Ok(buf) = self.r.fill_buf() else { return };
        let n = n.min(buf.len());
        let taken = &buf[..n];
        match memchr::memrchr(b'\n', taken) {
            Some(last) => {
                self.line += count_newlines(taken);
                self.column = n - last;
            }
            None => self.column += n,
        }
        if let Some(out) = out {
            out.extend_from_slice(taken);
        }
        self.r.consume(n);
    }

    /// Skips whitespace, appending it to `out`.
    fn skip_ws(&mut self, mut out: Option<&mut Vec<u8>>) -> Result<Option<u8>, Stop> {
        loop {
            let buf = match self.r.fill_buf() {
                Ok(b) => b,
                Err(e) => return Err(self.io(e)),
            };
            if buf.is_empty() {
                return Ok(None);
            }
            match buf.iter().position(|b| !is_ws(*b)) {
                Some(i) => {
                    let next = buf[i];
                    self.advance(i, out.as_deref_mut());
                    return Ok(Some(next));
                }
                None => {
                    let n = buf.len();
                    self.advance(n, out.as_deref_mut());
                }
            }
        }
    }

    /// Reads one complete value (structurally: strings, escapes and brackets are tracked; the
    /// rest is checked by serde_json later) and appends it to `out`.
    fn value(&mut self, out: &mut Vec<u8>) -> Result<(), Stop> {
        let Some(first) = self.skip_ws(None)? else {
            return Err(self.syntax("EOF while parsing a value"));
        };
        match first {
            b'{' | b'[' | b'"' => {
                // Only the brackets of the value's own kind are counted: in valid JSON they
                // balance by themselves, and serde_json checks the rest of the unit. Each step
                // jumps (memchr) to the next byte that matters: in a string a quote or a
                // backslash, outside one a quote or one of the two brackets.
                let (open, close) = if first == b'[' {
                    (b'[', b']')
                } else {
                    (b'{', b'}')
                };
                let mut depth = 0usize;
                let mut in_string = false;
                // A backslash ended the last buffer: its escaped byte starts this one.
                let mut escape = false;
                loop {
                    let buf = match self.r.fill_buf() {
                        Ok(b) => b,
                        Err(e) => return Err(self.io(e)),
                    };
                    if buf.is_empty() {
                        return Err(self.syntax(match first {
                            b'{' => "EOF while parsing an object",
                            b'[' => "EOF while parsing a list",
                            _ => "EOF while parsing a string",
                        }));
                    }
                    let mut end = None;
                    let mut i = usize::from(std::mem::take(&mut escape));
                    while i < buf.len() {
                        let rest = &buf[i..];
                        let found = if in_string {
                            memchr::memchr2(b'"', b'\\', rest)
                        } else {
                            memchr::memchr3(b'"', open, close, rest)
                        };
                        let Some(j) = found else {
                            i = buf.len();
                            break;
                        };
                        i += j;
                        let b = buf[i];
                        i += 1;
                        if in_string {
                            if b == b'\\' {
                                // Skip the escaped byte (`\"`, `\\`; a `\u` escape's
                                // hex digits are plain bytes).
                                if i < buf.len() {
                                    i += 1;
                                } else {
                                    escape = true;
                                }
                                continue;
                            }
                            in_string = false;
                        } else if b == b'"' {
                            in_string = true;
                            continue;
                        } else if b == open {
                            depth += 1;
                            continue;
                        } else {
                            depth = depth.saturating_sub(1);
                        }
                        if depth == 0 {
                            end = Some(i);
                            break;
                        }
                    }
                    match end {
                        Some(n) => {
                            self.advance(n, Some(out));
                            return Ok(());
                        }
                        None => {
                            let n = buf.len();
                            self.advance(n, Some(out));
                        }
                    }
                }
            }
            _ => loop {
                // A scalar: up to the next delimiter.
                let buf = match self.r.fill_buf() {
                    Ok(b) => b,
                    Err(e) => return Err(self.io(e)),
                };
                if buf.is_empty() {
                    return Ok(());
                }
                match buf
                    .iter()
                    .position(|b| is_ws(*b) || matches!(b, b',' | b']' | b'}' | b'[' | b'{' | b'"'))
                {
                    Some(0) if out.is_empty() => {
                        return Err(self.syntax("expected value"));
                    }
                    Some(i) => {
                        self.advance(i, Some(out));
                        return Ok(());
                    }
                    None => {
                        let n = buf.len();
                        self.advance(n, Some(out));
                    }
                }
            },
        }
    }

    fn expect(&mut self, what: u8, message: &str, out: Option<&mut Vec<u8>>) -> Result<(), Stop> {
        let mut out = out;
        match self.skip_ws(out.as_deref_mut())? {
            Some(b) if b == what => {
                self.advance(1, out);
                Ok(())
            }
            Some(_) => Err(self.syntax(message)),
            None => Err(self.syntax("EOF while parsing an object")),
        }
    }

    fn unit(
        &self,
        text: Vec<u8>,
        line: usize,
        column: usize,
        item: Option<usize>,
    ) -> Result<Unit, Stop> {
        let text = String::from_utf8(text).map_err(|e| {
            let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let (l, c) = super::files::line_col(valid, valid.len());
            Stop::Load(LoadError::Syntax {
                path: self.path.to_owned(),
                format: "UTF-8",
                line: line + l - 1,
                column: if l == 1 { column + c - 1 } else { c },
                message: "the file is not valid UTF-8".to_owned(),
            })
        })?;
        Ok(Unit {
            text,
            format: Format::Json,
            line,
            column,
            indent: 0,
            item,
        })
    }

    /// A top-level array: every element is a unit.
    fn array(&mut self, sink: &mut Sink<'_>) -> Result<(), Stop> {
        self.advance(1, None);
        let mut first = true;
        loop {
            match self.skip_ws(None)? {
                None => return Err(self.syntax("EOF while parsing a list")),
                Some(b']') => {
                    if !first {
                        return Err(self.syntax("trailing comma"));
                    }
                    self.advance(1, None);
                    return Ok(());
                }
                Some(_) => {}
            }
            let (line, column) = (self.line, self.column);
            let mut text = self.buffer(self.last_unit);
            self.value(&mut text)?;
            self.last_unit = (text.len() + text.len() / 8).min(UNIT_RESERVE_MAX);
            sink(self.unit(text, line, column, None)?)?;
            first = false;
            match self.skip_ws(None)? {
                Some(b',') => self.advance(1, None),
                Some(b']') => {
                    self.advance(1, None);
                    return Ok(());
                }
                Some(_) => return Err(self.syntax("expected `,` or `]`")),
                None => return Err(self.syntax("EOF while parsing a list")),
            }
        }
    }

    /// A top-level object: a `List` has its `items` streamed one by one; any other object is
    /// one unit.
    fn object(&mut self, sink: &mut Sink<'_>) -> Result<(), Stop> {
        let (line, column) = (self.line, self.column);
        // The object's text, verbatim, while it may still be a plain object.
        let mut whole: Option<Vec<u8>> = Some(Vec::new());
        self.advance(1, whole.as_mut());
        let mut kind: Option<String> = None;
        let mut streamed = false;
        let mut first = true;
        loop {
            match self.skip_ws(whole.as_mut())? {
                None => return Err(self.syntax("EOF while parsing an object")),
                Some(b'}') => {
                    if !first {
                        return Err(self.syntax("trailing comma"));
                    }
                    self.advance(1, whole.as_mut());
                    break;
                }
                Some(b'"') => {}
                Some(_) => return Err(self.syntax("key must be a string")),
            }
            let mut key = Vec::new();
            self.value(&mut key)?;
            if let Some(w) = whole.as_mut() {
                w.extend_from_slice(&key);
            }
            let key: String = serde_json::from_slice(&key)
                .map_err(|e| self.syntax(&strip_position(&e.to_string())))?;
            self.expect(b':', "expected `:`", whole.as_mut())?;
            let next = self.skip_ws(whole.as_mut())?;
            let list_like = kind.as_deref().is_none_or(is_list_kind);
            if key == "items" && next == Some(b'[') && list_like {
                whole = None;
                streamed = true;
                self.items(sink)?;
            } else {
                let mut value = Vec::new();
                self.value(&mut value)?;
                if key == "kind" {
                    kind = serde_json::from_slice::<String>(&value).ok();
                }
                if let Some(w) = whole.as_mut() {
                    w.extend_from_slice(&value);
                }
            }
            first = false;
            match self.skip_ws(whole.as_mut())? {
                Some(b',') => self.advance(1, whole.as_mut()),
                Some(b'}') => {
                    self.advance(1, whole.as_mut());
                    break;
                }
                Some(_) => return Err(self.syntax("expected `,` or `}`")),
                None => return Err(self.syntax("EOF while parsing an object")),
            }
        }
        match whole {
            Some(text) => sink(self.unit(text, line, column, None)?),
            None if streamed && kind.as_deref().is_some_and(is_list_kind) => Ok(()),
            None => Err(Stop::Load(LoadError::Object {
                path: self.path.to_owned(),
                line,
                column,
                object: kind.clone().unwrap_or_else(|| "<unknown>".to_owned()),
                field: Some("kind".to_owned()),
                message: format!(
                    "an object with `items` must be a `List`, found {}",
                    kind.map_or("no `kind`".to_owned(), |k| format!("`{k}`"))
                ),
            })),
        }
    }

    /// The `items` array of a List: one unit per element.
    fn items(&mut self, sink: &mut Sink<'_>) -> Result<(), Stop> {
        self.advance(1, None);
        let mut index = 0;
        loop {
            match self.skip_ws(None)? {
                None => return Err(self.syntax("EOF while parsing a list")),
                Some(b']') => {
                    if index > 0 {
                        return Err(self.syntax("trailing comma"));
                    }
                    self.advance(1, None);
                    return Ok(());
                }
                Some(_) => {}
            }
            let (line, column) = (self.line, self.column);
            let mut text = self.buffer(self.last_unit);
            self.value(&mut text)?;
            self.last_unit = (text.len() + text.len() / 8).min(UNIT_RESERVE_MAX);
            sink(self.unit(text, line, column, Some(index))?)?;
            index += 1;
            match self.skip_ws(None)? {
                Some(b',') => self.advance(1, None),
                Some(b']') => {
                    self.advance(1, None);
                    return Ok(());
                }
                Some(_) => return Err(self.syntax("expected `,` or `]`")),
                None => return Err(self.syntax("EOF while parsing a list")),
            }
        }
    }
}

fn is_list_kind(kind: &str) -> bool {
    kind.ends_with("List")
}

/// Splits JSON from `reader` into units.
pub(crate) fn split_json<R: BufRead>(
    reader: &mut R,
    path: &str,
    buffers: &Buffers,
    sink: &mut Sink<'_>,
) -> Result<(), Stop> {
    let mut s = Scanner {
        r: reader,
        path,
        line: 1,
        column: 1,
        last_unit: 0,
        buffers,
        spare: Vec::new(),
    };
    // A UTF-8 byte order mark is skipped.
    if let Ok(buf) = s.r.fill_buf()
        && buf.starts_with(b"\xEF\xBB\xBF")
    {
        s.r.consume(3);
    }
    loop {
        match s.skip_ws(None)? {
            None => return Ok(()),
            Some(b'[') => s.array(sink)?,
            Some(b'{') => s.object(sink)?,
            Some(_) => {
                let (line, column) = (s.line, s.column);
                let mut text = Vec::new();
                s.value(&mut text)?;
                sink(s.unit(text, line, column, None)?)?;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// YAML

/// State of the YAML splitter inside one document.
enum Items {
    /// No `items:` seen (or it is not a column-1 block sequence).
    None,
    /// `items:` seen; the first non-blank line decides.
    Pending(String),
    /// Inside the block sequence, at item `index`.
    Active {
        index: usize,
        current: Option<(usize, String)>,
    },
}

struct YamlDoc {
    start: usize,
    text: String,
    items: Items,
    streamed: bool,
}

impl YamlDoc {
    fn new(start: usize) -> Self {
        Self {
            start,
            text: String::new(),
            items: Items::None,
            streamed: false,
        }
    }
}

fn yaml_unit(text: String, line: usize, indent: usize, item: Option<usize>) -> Unit {
    Unit {
        text,
        format: Format::Yaml,
        line,
        column: 1 + indent,
        indent,
        item,
    }
}

/// Ends the current item, if any.
fn flush_item(doc: &mut YamlDoc, sink: &mut Sink<'_>) -> Result<(), Stop> {
    if let Items::Active { index, current } = &mut doc.items
        && let Some((line, text)) = current.take()
    {
        let i = *index;
        *index += 1;
        doc.streamed = true;
        sink(yaml_unit(text, line, 2, Some(i)))?;
    }
    Ok(())
}

/// Ends a document: its shell (everything outside a streamed `items`) is one unit, checked to
/// be a List when items were streamed.
fn flush_doc(doc: &mut YamlDoc, path: &str, sink: &mut Sink<'_>) -> Result<(), Stop> {
    flush_item(doc, sink)?;
    if let Items::Pending(line) = std::mem::replace(&mut doc.items, Items::None) {
        doc.text.push_str(&line);
    }
    let text = std::mem::take(&mut doc.text);
    if doc.streamed {
        let shell: serde_json::Value = if super::files::has_content(&text) {
            serde_saphyr::from_str_with_options(&text, super::files::yaml_options()).map_err(
                |e| {
                    let (line, column) = e.location().map_or((1, 1), |l| {
                        (
                            usize::try_from(l.line()).unwrap_or(1),
                            usize::try_from(l.column()).unwrap_or(1),
                        )
                    });
                    Stop::Load(LoadError::Syntax {
                        path: path.to_owned(),
                        format: "YAML",
                        line: doc.start + line.max(1) - 1,
                        column: column.max(1),
                        message: super::files::first_line(&e.to_string()),
                    })
                },
            )?
        } else {
            serde_json::Value::Null
        };
        let kind = shell.get("kind").and_then(serde_json::Value::as_str);
        if !kind.is_some_and(is_list_kind) {
            return Err(Stop::Load(LoadError::Object {
                path: path.to_owned(),
                line: doc.start,
                column: 1,
                object: kind.unwrap_or("<unknown>").to_owned(),
                field: Some("kind".to_owned()),
                message: format!(
                    "an object with `items` must be a `List`, found {}",
                    kind.map_or("no `kind`".to_owned(), |k| format!("`{k}`"))
                ),
            }));
        }
        doc.streamed = false;
        return Ok(());
    }
    if super::files::has_content(&text) {
        sink(yaml_unit(text, doc.start, 0, None))?;
    }
    Ok(())
}

/// Splits YAML from `reader` into units (documents, and List items when the List is written
/// as a column-1 block sequence).
pub(crate) fn split_yaml<R: BufRead>(
    reader: &mut R,
    path: &str,
    sink: &mut Sink<'_>,
) -> Result<(), Stop> {
    let mut raw = Vec::new();
    let mut number = 0usize;
    let mut doc = YamlDoc::new(1);
    loop {
        raw.clear();
        let n = reader
            .read_until(b'\n', &mut raw)
            .map_err(|e| Stop::Load(super::files::read_error(path, e)))?;
        if n == 0 {
            break;
        }
        number += 1;
        let mut bytes = raw.as_slice();
        if number == 1 && bytes.starts_with(b"\xEF\xBB\xBF") {
            bytes = &bytes[3..];
        }
        let line = std::str::from_utf8(bytes).map_err(|e| {
            Stop::Load(LoadError::Syntax {
                path: path.to_owned(),
                format: "UTF-8",
                line: number,
                column: e.valid_up_to() + 1,
                message: "the file is not valid UTF-8".to_owned(),
            })
        })?;
        let bare = line.trim_end_matches(['\n', '\r']);
        let is_start = bare == "---" || bare.starts_with("--- ") || bare.starts_with("---\t");
        let is_end = bare == "...";
        if is_start || is_end {
            flush_doc(&mut doc, path, sink)?;
            if is_end {
                doc = YamlDoc::new(number + 1);
                continue;
            }
            doc = YamlDoc::new(number);
            doc.text.push_str(line);
            continue;
        }
        let first = bare.as_bytes().first().copied();
        let blank_or_comment = bare.trim().is_empty() || first == Some(b'#');
        match &mut doc.items {
            Items::None => {
                if bare.trim_end() == "items:" {
                    doc.items = Items::Pending(line.to_owned());
                } else {
                    doc.text.push_str(line);
                }
            }
            Items::Pending(held) => {
                if blank_or_comment {
                    held.push_str(line);
                } else if bare == "-" || bare.starts_with("- ") {
                    doc.items = Items::Active {
                        index: 0,
                        current: Some((number, dedent(line))),
                    };
                    // Keep the line count of the shell right for its own errors.
                    doc.text.push_str("items: []\n");
                } else {
                    let held = std::mem::take(held);
                    doc.text.push_str(&held);
                    doc.text.push_str(line);
                    doc.items = Items::None;
                }
            }
            Items::Active { .. } => {
                if bare == "-" || bare.starts_with("- ") {
                    flush_item(&mut doc, sink)?;
                    if let Items::Active { current, .. } = &mut doc.items {
                        *current = Some((number, dedent(line)));
                    }
                } else if blank_or_comment || first == Some(b' ') {
                    if let Items::Active {
                        current: Some((_, text)),
                        ..
                    } = &mut doc.items
                    {
                        if first == Some(b' ') {
                            text.push_str(&dedent(line));
                        } else {
                            text.push('\n');
                        }
                    }
                } else {
                    // A column-1 key after the sequence: back to the shell.
                    flush_item(&mut doc, sink)?;
                    doc.items = Items::None;
                    doc.text.push_str(line);
                }
            }
        }
    }
    flush_doc(&mut doc, path, sink)
}

/// Removes the first two columns (`- ` or two spaces) of a List item line.
fn dedent(line: &str) -> String {
    let cut = line
        .bytes()
        .take(2)
        .take_while(|b| *b == b' ' || *b == b'-')
        .count();
    line[cut..].to_owned()
}

// ---------------------------------------------------------------------------------------------
// Parallel typing

/// The number of cores this process may use, asked once: `available_parallelism` reads the
/// cgroup files on every call (open, read, close), and `lint` of 10,000 files loaded each one
/// through [`drive`] (a tenth of its time went there).
pub(crate) fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, std::num::NonZero::get))
}

/// Units per batch handed to a worker, and the bytes after which a batch is sent early.
const BATCH_UNITS: usize = 256;
const BATCH_BYTES: usize = 2 << 20;

/// Feeds the units `produce` makes into `collector`, typing batches on worker threads when the
/// input is larger than one batch, and merging them in input order (so the first error in the
/// input is the one reported, and "the last copy wins" keeps its meaning).
pub(crate) fn drive(
    path: &str,
    collector: &mut Collector,
    produce: impl FnOnce(&mut Sink<'_>, &Buffers) -> Result<(), Stop>,
) -> Result<(), LoadError> {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Mutex, mpsc};

    let workers = cores().clamp(1, 4);
    let failed = AtomicBool::new(false);
    let (job_tx, job_rx) = mpsc::sync_channel::<(usize, Vec<Unit>)>(workers * 2);
    let job_rx = Mutex::new(job_rx);
    let (result_tx, result_rx) = mpsc::channel::<(usize, Result<Collector, LoadError>)>();
    let buffers = Buffers::default();
    let run_batch = |units: Vec<Unit>| -> Result<Collector, LoadError> {
        let mut c = Collector::new();
        for u in &units {
            process(u, path, &mut c)?;
        }
        buffers.give(units.into_iter().map(|u| u.text.into_bytes()));
        Ok(c)
    };
    let run_batch = &run_batch;
    std::thread::scope(|scope| {
        let mut spawned = false;
        let mut batch: Vec<Unit> = Vec::new();
        let mut bytes = 0usize;
        let mut sent = 0usize;
        let mut inline = Collector::new();
        let mut inline_error: Option<LoadError> = None;
        let produced = {
            let mut sink = |unit: Unit| -> Result<(), Stop> {
                if failed.load(Ordering::Relaxed) {
                    return Err(Stop::Aborted);
                }
                bytes += unit.text.len();
                batch.push(unit);
                if batch.len() < BATCH_UNITS && bytes < BATCH_BYTES {
                    return Ok(());
                }
                if !spawned && workers > 1 {
                    spawned = true;
                    for _ in 0..workers {
                        let (job_rx, result_tx, failed) = (&job_rx, result_tx.clone(), &failed);
                        scope.spawn(move || {
                            loop {
                                let job = job_rx.lock().map(|rx| rx.recv());
                                let Ok(Ok((seq, units))) = job else { break };
                                let result = run_batch(units);
                                if result.is_err() {
                                    failed.store(true, Ordering::Relaxed);
                                }
                                if result_tx.send((seq, result)).is_err() {
                                    break;
                                }
                            }
                        });
                    }
                }
                let units = std::mem::take(&mut batch);
                bytes = 0;
                if spawned {
                    if job_tx.send((sent, units)).is_err() {
                        return Err(Stop::Aborted);
                    }
                    sent += 1;
                } else if inline_error.is_none() {
                    // One core: type in place.
                    for u in &units {
                        if let Err(e) = process(u, path, &mut inline) {
                            inline_error = Some(e);
                            return Err(Stop::Aborted);
                        }
                    }
                    buffers.give(units.into_iter().map(|u| u.text.into_bytes()));
                }
                Ok(())
            };
            produce(&mut sink, &buffers)
        };
        // What is left is typed here.
        let rest = std::mem::take(&mut batch);
        let mut rest_result = Ok(());
        if matches!(produced, Ok(()) | Err(Stop::Load(_))) && inline_error.is_none() {
            for u in &rest {
                if let Err(e) = process(u, path, &mut inline) {
                    rest_result = Err(e);
                    break;
                }
            }
        }
        drop(job_tx);
        drop(result_tx);
        let mut results: Vec<(usize, Result<Collector, LoadError>)> = result_rx.iter().collect();
        results.sort_by_key(|(seq, _)| *seq);
        collector.reserve_for(
            results
                .iter()
                .filter_map(|(_, r)| r.as_ref().ok())
                .chain(std::iter::once(&inline)),
        );
        for (_, r) in results {
            collector.merge(r?);
        }
        if let Some(e) = inline_error {
            return Err(e);
        }
        // Units typed here come after every batch sent to workers.
        rest_result?;
        collector.merge(inline);
        match produced {
            Ok(()) => Ok(()),
            Err(Stop::Load(e)) => Err(e),
            // A worker failed, and its error was returned above.
            Err(Stop::Aborted) => Ok(()),
        }
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn newlines_are_counted_across_chunks() {
        let text: Vec<u8> = (0..2000u32)
            .map(|i| if i % 7 == 0 { b'\n' } else { b'x' })
            .collect();
        let slow = text.iter().filter(|b| **b == b'\n').count();
        assert_eq!(super::count_newlines(&text), slow);
        assert_eq!(super::count_newlines(&[b'\n'; 600]), 600);
        assert_eq!(super::count_newlines(b""), 0);
    }

    /// Items are cut at the same places whatever the reader's buffer size, so a backslash, a
    /// quote or a bracket at a buffer's end is carried into the next one.
    #[test]
    fn items_are_cut_alike_across_every_buffer_boundary() {
        let items = [
            r#"{"kind":"A","s":"a \"quoted\" } ] [ { string\\","n":[1,{"x":"]"}]}"#,
            r#"{"kind":"B","t":"\\","u":"\u007b"}"#,
            r#"[{"k":"}"},"]"]"#,
            r#""a top-level string with a \" and a }""#,
        ];
        let text = format!(
            "{{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n{}\n]}}",
            items.join(",\n")
        );
        for capacity in 1..=24 {
            let mut reader = std::io::BufReader::with_capacity(capacity, text.as_bytes());
            let mut cut = Vec::new();
            // Reused buffers arrive cleared, whatever they held.
            let buffers = super::Buffers::default();
            buffers.take_all(&mut Vec::new());
            buffers.give((0..3).map(|i| format!("stale text {i}").into_bytes()));
            super::split_json(&mut reader, "t.json", &buffers, &mut |u: super::Unit| {
                cut.push(u.text);
                Ok(())
            })
            .unwrap_or_else(|_| panic!("capacity {capacity}: the list splits"));
            assert_eq!(cut, items, "capacity {capacity}");
        }
    }

    /// The pool keeps nothing for a producer that never takes from it, at most `MAX` buffers,
    /// none over `MAX_CAPACITY`, and hands them out cleared.
    #[test]
    fn the_buffer_pool_is_bounded_and_hands_out_cleared_buffers() {
        use super::Buffers;
        let pool = Buffers::default();
        pool.give([b"never taken".to_vec()]);
        let mut out = Vec::new();
        pool.take_all(&mut out);
        assert!(
            out.is_empty(),
            "a producer that never took gets nothing pooled"
        );

        pool.give([
            vec![b'x'; 10],
            Vec::with_capacity(Buffers::MAX_CAPACITY + 1),
        ]);
        pool.take_all(&mut out);
        assert_eq!(out.len(), 1, "the oversized buffer is freed");
        assert!(out[0].is_empty() && out[0].capacity() >= 10);

        out.clear();
        pool.give((0..Buffers::MAX + 10).map(|_| Vec::with_capacity(16)));
        pool.take_all(&mut out);
        assert_eq!(out.len(), Buffers::MAX);
    }
}
