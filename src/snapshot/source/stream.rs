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

use std::io::{BufRead, Read};

use super::parse::{LoadError, strip_position};
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
    /// The one rule that picks the parser a text starts with, shared by every path (`--from
    /// FILE`, `--from -`, directories, `lint`, `--add`, `--shape`), as kubectl's
    /// `YAMLOrJSONDecoder` sniffs it (k8s.io/apimachinery/pkg/util/yaml/decoder.go), whatever
    /// the file is named: JSON when the first non-blank byte (after a UTF-8 byte order mark)
    /// is `{` or `[`, else YAML, except that a `.json` file is always JSON. A JSON stream
    /// goes on as YAML after a `---` line, and a first value that is not JSON (a YAML flow
    /// mapping `{a: 1}`) is read as YAML, except in a `.json` file (`Cut`).
    pub(crate) fn of(name: &str, first: Option<u8>) -> Self {
        if matches!(first, Some(b'{' | b'[')) || name.to_ascii_lowercase().ends_with(".json") {
            Self::Json
        } else {
            Self::Yaml
        }
    }

    /// The name used in syntax errors.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Self::Json => "JSON",
            Self::Yaml => "YAML",
        }
    }
}

/// One piece of input that becomes zero or more objects: a range of its [`Batch`]'s text.
#[derive(Debug)]
pub(crate) struct Unit {
    /// Where the text starts in the batch (for a YAML List item, de-indented).
    pub start: usize,
    /// Where it ends.
    pub end: usize,
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
    /// The unit is a run of a YAML `List`'s items written as a block sequence (`- a: 1` at
    /// column 1), starting at item `item`: a List whose items use YAML anchors is cut here
    /// into the items before the first anchor and one unit for the rest, so that an alias
    /// finds its anchor (YAML anchors are scoped to their document).
    pub seq: bool,
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

/// Units and the text they are ranges of: what one worker types at a time.
#[derive(Debug)]
pub(crate) struct Batch {
    /// The text; bytes outside the units' ranges are not input (or not this batch's).
    pub text: Vec<u8>,
    /// The units, in input order.
    pub units: Vec<Unit>,
}

/// Receives batches in input order.
pub(crate) type Sink<'a> = dyn FnMut(Batch) -> Result<(), Stop> + 'a;

/// The text of `unit` in `text`, which must be UTF-8 (the error points at the first byte
/// that is not).
pub(crate) fn unit_text<'t>(text: &'t [u8], unit: &Unit, path: &str) -> Result<&'t str, LoadError> {
    let bytes = text.get(unit.start..unit.end).unwrap_or_default();
    std::str::from_utf8(bytes).map_err(|e| {
        let (l, c) = super::parse::line_col(bytes, e.valid_up_to());
        LoadError::Syntax {
            path: path.to_owned(),
            format: "UTF-8",
            line: unit.line + l - 1,
            column: if l == 1 {
                unit.column + c - 1
            } else {
                c + unit.indent
            },
            message: "the file is not valid UTF-8".to_owned(),
        }
    })
}

/// Turns the units of `batch` into objects in `collector`, stopping at the first error.
fn process_batch(batch: &Batch, path: &str, collector: &mut Collector) -> Result<(), LoadError> {
    for unit in &batch.units {
        process(unit, unit_text(&batch.text, unit, path)?, path, collector)?;
    }
    Ok(())
}

/// Turns one unit, whose text is `text`, into objects in `collector`; errors carry file
/// positions.
pub(crate) fn process(
    unit: &Unit,
    text: &str,
    path: &str,
    collector: &mut Collector,
) -> Result<(), LoadError> {
    let abs = |line: usize, column: usize| absolute(unit, line, column);
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
        Format::Json => collector.add_json(text).map_err(|e| match e {
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
                let located = super::parse::locate_json(text, &e);
                object_error(e, located)
            }
        }),
        Format::Yaml => {
            // Block YAML as dumps hold it takes the JSON path; anything else, and any object
            // the JSON path refuses (so that the error names its YAML line), the full parser.
            // (A document without content gives no JSON.)
            if !unit.seq
                && let Some(fast) = super::yaml_fast::to_json(text)
                && !fast.list
                && collector.add_json(&fast.json).is_ok()
            {
                return Ok(());
            }
            if !super::parse::has_content(text) {
                return Ok(());
            }
            let value: serde_json::Value =
                serde_saphyr::from_str_with_options(text, super::parse::yaml_options()).map_err(
                    |e| {
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
                            message: super::parse::yaml_message(&e.to_string(), line),
                        }
                    },
                )?;
            if unit.seq {
                return add_list_run(unit, text, value, path, collector);
            }
            collector.add(value).map_err(|e| {
                let located = super::parse::locate_yaml(text, &e);
                object_error(e, located)
            })
        }
    }
}

/// A unit's position in its file for a `line`/`column` inside its text (1-based; the first
/// line starts at the unit's column, the others at its indent).
fn absolute(unit: &Unit, line: usize, column: usize) -> (usize, usize) {
    let l = unit.line + line.max(1) - 1;
    let c = if line <= 1 {
        unit.column + column.max(1) - 1
    } else {
        column.max(1) + unit.indent
    };
    (l, c)
}

/// Adds a run of List items (`unit.seq`), parsed as one YAML sequence `value`: item
/// `first + i` of the List is the run's element `i`, and an error names it as `items[N]` at
/// the position of its field.
fn add_list_run(
    unit: &Unit,
    text: &str,
    value: serde_json::Value,
    path: &str,
    collector: &mut Collector,
) -> Result<(), LoadError> {
    let first = unit.item.unwrap_or(0);
    let serde_json::Value::Array(items) = value else {
        return Ok(());
    };
    for (i, item) in items.into_iter().enumerate() {
        collector.add(item).map_err(|mut e| {
            let inner = e.field.take();
            let local = ObjectError {
                field: Some(match &inner {
                    Some(f) => format!("[{i}].{f}"),
                    None => format!("[{i}]"),
                }),
                ..e.clone()
            };
            let located = super::parse::locate_yaml(text, &local);
            e.field = Some(match inner {
                Some(f) => format!("items[{}].{f}", first + i),
                None => format!("items[{}]", first + i),
            });
            let (line, column) =
                located.map_or((unit.line, unit.column), |(l, c)| absolute(unit, l, c));
            LoadError::Object {
                path: path.to_owned(),
                line,
                column,
                object: e.object,
                field: e.field,
                message: e.message,
            }
        })?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// JSON

/// The size of a fresh chunk of JSON input: a batch of units is one chunk, so this is also
/// how much text a worker types at a time (about 200–300 real pods).
pub(crate) const CHUNK: usize = 2 << 20;

/// The size of the chunk for an input of `total` bytes: the whole of a small input and the
/// read that finds its end fit in one chunk (so lint's thousands of small files each take
/// one buffer of their own size), and no input takes more than [`CHUNK`].
pub(crate) fn chunk_for(total: Option<u64>) -> usize {
    total.map_or(CHUNK, |t| {
        let t = usize::try_from(t).unwrap_or(usize::MAX);
        t.saturating_add(t / 6).saturating_add(64).min(CHUNK)
    })
}

/// A position-tracking scanner that reads its input into chunks and cuts units out of them
/// in place.
///
/// A unit is a range of the chunk it was read into: the scanner copies no unit's bytes,
/// except the unfinished one at a chunk's end, which moves to the start of the next chunk.
/// A finished chunk goes to the sink with its units, as one [`Batch`]. (Copying each unit
/// into a buffer of its own cost the reading thread three times the kernel's copy of the
/// same bytes, in a cold destination.)
struct Scanner<'r, 's, R: Read> {
    r: &'r mut R,
    path: &'r str,
    line: usize,
    column: usize,
    /// The current chunk: `buf[..end]` is input, `buf[pos..end]` is not consumed yet. The
    /// chunk is always initialised to its full length; bytes after `end` are stale.
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    /// The input offset of `buf[0]`.
    base: usize,
    /// The input offset from which bytes must survive the next chunk change: the start of
    /// the value being cut, if any.
    keep: Option<usize>,
    /// The units finished in `buf`, as ranges of it.
    units: Vec<Unit>,
    /// The size of a fresh chunk, and the least room a read is given: smaller reads would
    /// go through the `BufReader`'s own buffer (a second copy), so a chunk with less room
    /// left is finished.
    chunk: usize,
    min_read: usize,
    eof: bool,
    /// Whether a `List`'s `items` are cut one unit each (the loader) or the List is one unit
    /// (lint, which keeps documents whole for its positions).
    lists: bool,
    /// Whether a batch went to the sink already (the input can no longer be read again).
    sent: bool,
    /// The line and column of the top-level value being read.
    top: (usize, usize),
    /// Where chunks come from: those of batches already typed, handed back.
    buffers: &'r Buffers,
    sink: &'r mut Sink<'s>,
}

/// Chunks handed back by the threads that typed their units, for the reader to fill again.
///
/// A fresh buffer for each piece of input took memory the process had never touched, and
/// the kernel's zeroing of those pages was two thirds of the reading thread's time. The
/// pool is bounded: at most [`Buffers::MAX`] buffers (a few more than are in flight), none
/// larger than [`Buffers::MAX_CAPACITY`]. It keeps nothing until the producer first takes
/// from it, so a producer that never does (one small file) leaves no buffer behind.
#[derive(Debug, Default)]
pub(crate) struct Buffers {
    pool: std::sync::Mutex<Vec<Vec<u8>>>,
    /// Whether the producer takes buffers from the pool.
    taken: std::sync::atomic::AtomicBool,
}

impl Buffers {
    /// The most buffers the pool keeps.
    const MAX: usize = 16;
    /// The largest buffer the pool keeps (a larger one, grown for one huge object, is freed).
    const MAX_CAPACITY: usize = 4 * CHUNK;

    /// Hands back the text of a batch already typed.
    pub(crate) fn give(&self, text: Vec<u8>) {
        if !self.taken.load(std::sync::atomic::Ordering::Relaxed)
            || text.capacity() > Self::MAX_CAPACITY
        {
            return;
        }
        if let Ok(mut pool) = self.pool.lock()
            && pool.len() < Self::MAX
        {
            pool.push(text);
        }
    }

    /// A pooled buffer, if there is one. Its contents are stale: a JSON chunk keeps its
    /// length (it is read into in place), a YAML batch clears it.
    fn take(&self) -> Option<Vec<u8>> {
        self.taken.store(true, std::sync::atomic::Ordering::Relaxed);
        self.pool.lock().ok().and_then(|mut pool| pool.pop())
    }

    /// A chunk of at least `len` initialised bytes.
    fn chunk(&self, len: usize) -> Vec<u8> {
        match self.take() {
            Some(mut chunk) => {
                if chunk.len() < len {
                    chunk.resize(len, 0);
                }
                chunk
            }
            None => vec![0; len],
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

impl<R: Read> Scanner<'_, '_, R> {
    fn io(&self, e: std::io::Error) -> Stop {
        Stop::Load(super::parse::read_error(self.path, e))
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

    /// The input offset of the next byte.
    fn offset(&self) -> usize {
        self.base + self.pos
    }

    /// The bytes of an input range that is still in the chunk (one just cut).
    fn bytes(&self, (start, end): (usize, usize)) -> &[u8] {
        &self.buf[start - self.base..end - self.base]
    }

    /// One read into the buffer (making room first), or the end of the input noted.
    fn read_more(&mut self) -> Result<(), Stop> {
        if self.buf.len() - self.end < self.min_read {
            self.next_chunk()?;
        }
        match self.r.read(&mut self.buf[self.end..]) {
            Ok(0) => self.eof = true,
            Ok(n) => self.end += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(self.io(e)),
        }
        Ok(())
    }

    /// Makes at least one unconsumed byte available; `false` at the end of the input.
    fn fill(&mut self) -> Result<bool, Stop> {
        while self.pos == self.end {
            if self.eof {
                return Ok(false);
            }
            self.read_more()?;
        }
        Ok(true)
    }

    /// Finishes the current chunk: its units go to the sink, and the bytes still kept move
    /// to the start of the next chunk (which grows if they fill half of it: one object
    /// larger than a chunk).
    fn next_chunk(&mut self) -> Result<(), Stop> {
        let from = self.keep.map_or(self.end, |k| k - self.base);
        let kept = self.end - from;
        let len = self
            .chunk
            .max(kept.saturating_mul(2))
            .max(kept + self.min_read);
        if self.units.is_empty() {
            self.buf.copy_within(from..self.end, 0);
            if self.buf.len() < len {
                self.buf.resize(len, 0);
            }
        } else {
            let mut next = self.buffers.chunk(len);
            next[..kept].copy_from_slice(&self.buf[from..self.end]);
            let text = std::mem::replace(&mut self.buf, next);
            let units = std::mem::take(&mut self.units);
            self.sent = true;
            (self.sink)(Batch { text, units })?;
        }
        self.base += from;
        self.pos -= from;
        self.end = kept;
        Ok(())
    }

    /// Sends the units still in the current chunk.
    fn finish(&mut self) -> Result<(), Stop> {
        if self.units.is_empty() {
            return Ok(());
        }
        let text = std::mem::take(&mut self.buf);
        let units = std::mem::take(&mut self.units);
        self.sent = true;
        (self.sink)(Batch { text, units })
    }

    /// True when the unconsumed input starts a line `---` or `...` (a YAML document marker):
    /// as kubectl's `YAMLOrJSONDecoder` (k8s.io/apimachinery/pkg/util/yaml/decoder.go), a
    /// JSON stream that meets one goes on as YAML. Only asked at the start of a line between
    /// top-level values; reads ahead without consuming.
    fn at_document_marker(&mut self) -> Result<bool, Stop> {
        if self.column != 1 || !matches!(self.buf.get(self.pos), Some(b'-' | b'.')) {
            return Ok(false);
        }
        let outer = self.keep;
        self.keep = Some(self.offset());
        while self.end - self.pos < 4 && !self.eof {
            self.read_more()?;
        }
        self.keep = outer;
        let ahead = &self.buf[self.pos..self.end];
        let marker = |m: &[u8]| {
            ahead.starts_with(m)
                && ahead
                    .get(3)
                    .is_none_or(|b| matches!(b, b'\n' | b'\r' | b' ' | b'\t'))
        };
        Ok(marker(b"---") || marker(b"..."))
    }

    /// Consumes `n` unconsumed bytes.
    fn advance(&mut self, n: usize) {
        let n = n.min(self.end - self.pos);
        let taken = &self.buf[self.pos..self.pos + n];
        match memchr::memrchr(b'\n', taken) {
            Some(last) => {
                self.line += count_newlines(taken);
                self.column = n - last;
            }
            None => self.column += n,
        }
        self.pos += n;
    }

    /// Skips whitespace; the next byte, not consumed.
    fn skip_ws(&mut self) -> Result<Option<u8>, Stop> {
        loop {
            if !self.fill()? {
                return Ok(None);
            }
            let rest = &self.buf[self.pos..self.end];
            match rest.iter().position(|b| !is_ws(*b)) {
                Some(i) => {
                    let next = rest[i];
                    self.advance(i);
                    return Ok(Some(next));
                }
                None => {
                    let n = rest.len();
                    self.advance(n);
                }
            }
        }
    }

    /// Reads one complete value after any whitespace and returns its input range, which
    /// stays in the chunk until the next read.
    fn cut(&mut self) -> Result<(usize, usize), Stop> {
        self.skip_ws()?;
        let start = self.offset();
        let outer = self.keep;
        self.keep = Some(outer.map_or(start, |k| k.min(start)));
        let read = self.value();
        self.keep = outer;
        read?;
        Ok((start, self.offset()))
    }

    /// Consumes one complete value (structurally: strings, escapes and brackets are
    /// tracked; the rest is checked by serde_json later). Whitespace before it is skipped.
    fn value(&mut self) -> Result<(), Stop> {
        let Some(first) = self.skip_ws()? else {
            return Err(self.syntax("EOF while parsing a value"));
        };
        let start = self.offset();
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
                // A backslash ended the last read: its escaped byte starts this one.
                let mut escape = false;
                loop {
                    if !self.fill()? {
                        return Err(self.syntax(match first {
                            b'{' => "EOF while parsing an object",
                            b'[' => "EOF while parsing a list",
                            _ => "EOF while parsing a string",
                        }));
                    }
                    let buf = &self.buf[self.pos..self.end];
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
                    let n = end.unwrap_or(buf.len());
                    self.advance(n);
                    if end.is_some() {
                        return Ok(());
                    }
                }
            }
            _ => loop {
                // A scalar: up to the next delimiter.
                if !self.fill()? {
                    return Ok(());
                }
                let buf = &self.buf[self.pos..self.end];
                match buf
                    .iter()
                    .position(|b| is_ws(*b) || matches!(b, b',' | b']' | b'}' | b'[' | b'{' | b'"'))
                {
                    Some(0) if self.offset() == start => {
                        return Err(self.syntax("expected value"));
                    }
                    Some(i) => {
                        self.advance(i);
                        return Ok(());
                    }
                    None => {
                        let n = buf.len();
                        self.advance(n);
                    }
                }
            },
        }
    }

    fn expect(&mut self, what: u8, message: &str) -> Result<(), Stop> {
        match self.skip_ws()? {
            Some(b) if b == what => {
                self.advance(1);
                Ok(())
            }
            Some(_) => Err(self.syntax(message)),
            None => Err(self.syntax("EOF while parsing an object")),
        }
    }

    /// Records a unit just cut (its range is still in the chunk).
    fn unit(
        &mut self,
        (start, end): (usize, usize),
        line: usize,
        column: usize,
        item: Option<usize>,
    ) {
        self.units.push(Unit {
            start: start - self.base,
            end: end - self.base,
            format: Format::Json,
            line,
            column,
            indent: 0,
            item,
            seq: false,
        });
    }

    /// The elements of an array (a top-level one, or a List's `items`): one unit each.
    fn elements(&mut self, list: bool) -> Result<(), Stop> {
        self.advance(1);
        let mut index = 0;
        loop {
            match self.skip_ws()? {
                None => return Err(self.syntax("EOF while parsing a list")),
                Some(b']') => {
                    if index > 0 {
                        return Err(self.syntax("trailing comma"));
                    }
                    self.advance(1);
                    return Ok(());
                }
                Some(_) => {}
            }
            let (line, column) = (self.line, self.column);
            let range = self.cut()?;
            self.unit(range, line, column, list.then_some(index));
            index += 1;
            match self.skip_ws()? {
                Some(b',') => self.advance(1),
                Some(b']') => {
                    self.advance(1);
                    return Ok(());
                }
                Some(_) => return Err(self.syntax("expected `,` or `]`")),
                None => return Err(self.syntax("EOF while parsing a list")),
            }
        }
    }

    /// A top-level object: a `List` has its `items` streamed one by one; any other object is
    /// one unit.
    fn object(&mut self) -> Result<(), Stop> {
        let (line, column) = (self.line, self.column);
        let start = self.offset();
        // The object is kept whole until its `items` are streamed (it may be a plain object).
        self.keep = Some(start);
        self.advance(1);
        let mut kind: Option<String> = None;
        let mut streamed = false;
        let mut first = true;
        loop {
            match self.skip_ws()? {
                None => return Err(self.syntax("EOF while parsing an object")),
                Some(b'}') => {
                    if !first {
                        return Err(self.syntax("trailing comma"));
                    }
                    self.advance(1);
                    break;
                }
                Some(b'"') => {}
                Some(_) => return Err(self.syntax(UNQUOTED_KEY)),
            }
            let range = self.cut()?;
            let key: String = serde_json::from_slice(self.bytes(range))
                .map_err(|e| self.syntax(&strip_position(&e.to_string())))?;
            self.expect(b':', "expected `:`")?;
            let next = self.skip_ws()?;
            let list_like = kind.as_deref().is_none_or(is_list_kind);
            if self.lists && key == "items" && next == Some(b'[') && list_like {
                self.keep = None;
                streamed = true;
                self.elements(true)?;
            } else {
                let range = self.cut()?;
                if key == "kind" {
                    kind = serde_json::from_slice::<String>(self.bytes(range)).ok();
                }
            }
            first = false;
            match self.skip_ws()? {
                Some(b',') => self.advance(1),
                Some(b'}') => {
                    self.advance(1);
                    break;
                }
                Some(_) => return Err(self.syntax("expected `,` or `}`")),
                None => return Err(self.syntax("EOF while parsing an object")),
            }
        }
        if !streamed {
            self.keep = None;
            self.unit((start, self.offset()), line, column, None);
            return Ok(());
        }
        if kind.as_deref().is_some_and(is_list_kind) {
            return Ok(());
        }
        Err(Stop::Load(LoadError::Object {
            path: self.path.to_owned(),
            line,
            column,
            object: kind.clone().unwrap_or_else(|| "<unknown>".to_owned()),
            field: Some("kind".to_owned()),
            message: format!(
                "an object with `items` must be a `List`, found {}",
                kind.map_or("no `kind`".to_owned(), |k| format!("`{k}`"))
            ),
        }))
    }

    /// The whole input: top-level values one after another, up to its end (`None`) or to a
    /// YAML document marker at the start of a line (`Some(line)`), after which the input is
    /// YAML.
    fn run(&mut self) -> Result<Option<usize>, Stop> {
        // A UTF-8 byte order mark is skipped (and not counted as a column).
        self.keep = Some(0);
        while self.end < 3 && !self.eof {
            self.pos = self.end;
            self.fill()?;
        }
        self.pos = 0;
        self.keep = None;
        if self.buf[..self.end].starts_with(b"\xEF\xBB\xBF") {
            self.pos = 3;
        }
        loop {
            let next = self.skip_ws()?;
            self.top = (self.line, self.column);
            if next.is_some() && self.at_document_marker()? {
                return Ok(Some(self.line));
            }
            match next {
                None => return Ok(None),
                Some(b'[') => self.elements(false)?,
                Some(b'{') => self.object()?,
                Some(_) => {
                    let (line, column) = (self.line, self.column);
                    let range = self.cut()?;
                    self.unit(range, line, column, None);
                }
            }
        }
    }
}

fn is_list_kind(kind: &str) -> bool {
    kind.ends_with("List")
}

/// The scanner's message for a key without quotes: in a first value, the mark of YAML.
const UNQUOTED_KEY: &str = "key must be a string";

/// How an input is cut into units.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cut {
    /// A `List`'s items are units of their own (the loader), or the List is one (lint).
    pub lists: bool,
    /// A JSON text whose first value is not JSON (a YAML flow mapping `{a: 1}`) is read
    /// again as YAML, as kubectl's decoder does when its JSON decoder fails on the first
    /// object. Off for `.json` files, which are strict JSON.
    pub yaml_fallback: bool,
}

impl Cut {
    /// The loader's cut of an input named `path`.
    pub(crate) fn loader(path: &str) -> Self {
        Self {
            lists: true,
            yaml_fallback: !path.to_ascii_lowercase().ends_with(".json"),
        }
    }
}

/// Splits JSON from `reader` into units, read in chunks of `chunk` bytes (see [`chunk_for`]).
/// A YAML document marker (`---`) between top-level values switches to YAML for the rest
/// of the input; see [`Cut`] for the YAML fallback.
pub(crate) fn split_json<R: Read>(
    reader: &mut R,
    path: &str,
    chunk: usize,
    cut: Cut,
    buffers: &Buffers,
    sink: &mut Sink<'_>,
) -> Result<(), Stop> {
    let chunk = chunk.max(1);
    let mut s = Scanner {
        r: reader,
        path,
        line: 1,
        column: 1,
        buf: vec![0; chunk],
        pos: 0,
        end: 0,
        base: 0,
        keep: None,
        units: Vec::new(),
        chunk,
        min_read: (chunk / 8).max(1),
        eof: false,
        lists: cut.lists,
        sent: false,
        top: (1, 1),
        buffers,
        sink,
    };
    let scanned = s.run();
    // The first value is a YAML flow mapping (a key without quotes) and nothing was cut
    // yet: the whole input, still in the chunk from the value's start, is read again as
    // YAML. Other JSON errors stay JSON errors (kubectl reports its JSON error too when
    // both decoders fail).
    if let Err(Stop::Load(LoadError::Syntax { message, .. })) = &scanned
        && message == UNQUOTED_KEY
        && cut.yaml_fallback
        && !s.sent
        && s.units.is_empty()
        && let Some(keep) = s.keep
    {
        let rest = s.buf.get(keep - s.base..s.end).unwrap_or_default().to_vec();
        let mut reader = std::io::BufReader::new(std::io::Cursor::new(rest).chain(s.r));
        return split_yaml_from(&mut reader, path, s.top.0 - 1, cut, buffers, s.sink);
    }
    // What follows a `---` is YAML: the bytes read past it go first.
    let rest = match &scanned {
        Ok(Some(_)) => s.buf.get(s.pos..s.end).unwrap_or_default().to_vec(),
        _ => Vec::new(),
    };
    // The units before an error still go out: an error inside one of them comes first in
    // the input, so it is the one to report.
    let finished = s.finish();
    match scanned {
        Ok(Some(line)) => {
            finished?;
            let mut reader = std::io::BufReader::new(std::io::Cursor::new(rest).chain(s.r));
            split_yaml_from(&mut reader, path, line - 1, cut, buffers, s.sink)
        }
        Ok(None) => finished,
        Err(e) => Err(e),
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
        /// The item being read: its first line, and where its text starts in the batch.
        current: Option<(usize, usize)>,
        /// The items from this one on are one unit (a sequence, not de-indented): an anchor
        /// was met in it, and a later item may refer to it.
        tail: Option<usize>,
    },
}

struct YamlDoc {
    start: usize,
    text: String,
    items: Items,
    streamed: bool,
    /// An anchor was met outside the items: the document is one unit.
    anchored: bool,
}

/// True when a YAML line may define an anchor (`&name` where a node starts). Quotes are not
/// tracked: a false hit (`"a && b"`) only keeps a List whole, which costs time, not meaning.
fn has_anchor(line: &str) -> bool {
    let b = line.as_bytes();
    memchr::memchr_iter(b'&', b).any(|i| {
        let starts = i == 0 || matches!(b[i - 1], b' ' | b'\t' | b'[' | b'{' | b',');
        let named = b
            .get(i + 1)
            .is_some_and(|c| !c.is_ascii_whitespace() && !matches!(c, b',' | b']' | b'}'));
        starts && named
    })
}

impl YamlDoc {
    fn new(start: usize) -> Self {
        Self {
            start,
            text: String::new(),
            items: Items::None,
            streamed: false,
            anchored: false,
        }
    }
}

/// The batch the YAML splitter fills: units' texts are written straight into it.
struct YamlOut<'a, 's> {
    text: Vec<u8>,
    units: Vec<Unit>,
    buffers: &'a Buffers,
    sink: &'a mut Sink<'s>,
}

impl YamlOut<'_, '_> {
    /// Ends the unit whose text started at `start` and runs to the end of the batch's text;
    /// a full batch goes to the sink.
    fn unit(
        &mut self,
        start: usize,
        line: usize,
        indent: usize,
        item: Option<usize>,
        seq: bool,
    ) -> Result<(), Stop> {
        self.units.push(Unit {
            start,
            end: self.text.len(),
            format: Format::Yaml,
            line,
            column: 1 + indent,
            indent,
            item,
            seq,
        });
        if self.units.len() >= BATCH_UNITS || self.text.len() >= BATCH_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    /// Sends the units ended so far (only ever between units).
    fn flush(&mut self) -> Result<(), Stop> {
        if self.units.is_empty() {
            return Ok(());
        }
        let mut next = self.buffers.take().unwrap_or_default();
        next.clear();
        let text = std::mem::replace(&mut self.text, next);
        let units = std::mem::take(&mut self.units);
        (self.sink)(Batch { text, units })
    }
}

/// Ends the current item, if any (in a tail, the run of items from the tail's first).
fn flush_item(doc: &mut YamlDoc, out: &mut YamlOut<'_, '_>) -> Result<(), Stop> {
    if let Items::Active {
        index,
        current,
        tail,
    } = &mut doc.items
        && let Some((line, start)) = current.take()
    {
        let i = *index;
        *index += 1;
        doc.streamed = true;
        match tail.take() {
            Some(first) => out.unit(start, line, 0, Some(first), true)?,
            None => out.unit(start, line, 2, Some(i), false)?,
        }
    }
    Ok(())
}

/// Turns the current item (de-indented in `out` from `start`) into the first item of a tail:
/// its lines get back their `- ` and indentation.
fn start_tail(out: &mut YamlOut<'_, '_>, start: usize) {
    let item = out.text.split_off(start);
    for (i, line) in item.split_inclusive(|b| *b == b'\n').enumerate() {
        if i == 0 {
            out.text.extend_from_slice(b"- ");
        } else if line != b"\n" {
            out.text.extend_from_slice(b"  ");
        }
        out.text.extend_from_slice(line);
    }
}

/// Ends a document: its shell (everything outside a streamed `items`) is one unit, checked to
/// be a List when items were streamed.
fn flush_doc(doc: &mut YamlDoc, path: &str, out: &mut YamlOut<'_, '_>) -> Result<(), Stop> {
    flush_item(doc, out)?;
    if let Items::Pending(line) = std::mem::replace(&mut doc.items, Items::None) {
        doc.text.push_str(&line);
    }
    let text = std::mem::take(&mut doc.text);
    if doc.streamed {
        let shell: serde_json::Value = if super::parse::has_content(&text) {
            serde_saphyr::from_str_with_options(&text, super::parse::yaml_options()).map_err(
                |e| {
                    let (line, column) = e.location().map_or((1, 1), |l| {
                        (
                            usize::try_from(l.line()).unwrap_or(1),
                            usize::try_from(l.column()).unwrap_or(1),
                        )
                    });
                    let line = doc.start + line.max(1) - 1;
                    Stop::Load(LoadError::Syntax {
                        path: path.to_owned(),
                        format: "YAML",
                        line,
                        column: column.max(1),
                        message: super::parse::yaml_message(&e.to_string(), line),
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
    if super::parse::has_content(&text) {
        let start = out.text.len();
        out.text.extend_from_slice(text.as_bytes());
        out.unit(start, doc.start, 0, None, false)?;
    }
    Ok(())
}

/// Splits YAML from `reader` into units (documents, and List items when the List is written
/// as a column-1 block sequence).
pub(crate) fn split_yaml<R: BufRead>(
    reader: &mut R,
    path: &str,
    cut: Cut,
    buffers: &Buffers,
    sink: &mut Sink<'_>,
) -> Result<(), Stop> {
    split_yaml_from(reader, path, 0, cut, buffers, sink)
}

/// [`split_yaml`] of the rest of an input whose lines before it were `lines_before`.
fn split_yaml_from<R: BufRead>(
    reader: &mut R,
    path: &str,
    lines_before: usize,
    cut: Cut,
    buffers: &Buffers,
    sink: &mut Sink<'_>,
) -> Result<(), Stop> {
    let mut out = YamlOut {
        text: Vec::new(),
        units: Vec::new(),
        buffers,
        sink,
    };
    let split = split_yaml_into(reader, path, lines_before, cut.lists, &mut out);
    // The units before an error still go out: an error inside one of them comes first in
    // the input, so it is the one to report.
    let flushed = out.flush();
    split.and(flushed)
}

fn split_yaml_into<R: BufRead>(
    reader: &mut R,
    path: &str,
    lines_before: usize,
    lists: bool,
    out: &mut YamlOut<'_, '_>,
) -> Result<(), Stop> {
    let mut raw = Vec::new();
    let mut number = lines_before;
    let mut doc = YamlDoc::new(1);
    loop {
        raw.clear();
        let n = reader
            .read_until(b'\n', &mut raw)
            .map_err(|e| Stop::Load(super::parse::read_error(path, e)))?;
        if n == 0 {
            break;
        }
        number += 1;
        let mut bytes = raw.as_slice();
        if number == lines_before + 1 && bytes.starts_with(b"\xEF\xBB\xBF") {
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
            flush_doc(&mut doc, path, out)?;
            if is_end {
                doc = YamlDoc::new(number + 1);
                continue;
            }
            doc = YamlDoc::new(number);
            doc.text.push_str(line);
            continue;
        }
        add_line(&mut doc, line, bare, number, lists, out)?;
    }
    flush_doc(&mut doc, path, out)
}

/// Adds one line of a document that is not a `---`/`...` marker (`bare`: without its line
/// break) to `doc`: to the shell's text, or, in a `List`'s `items:` sequence, to the current
/// item (dedented, or kept as written from an anchor on), flushing each finished item as a
/// unit of its own.
#[inline]
fn add_line(
    doc: &mut YamlDoc,
    line: &str,
    bare: &str,
    number: usize,
    lists: bool,
    out: &mut YamlOut<'_, '_>,
) -> Result<(), Stop> {
    let first = bare.as_bytes().first().copied();
    let blank_or_comment = bare.trim().is_empty() || first == Some(b'#');
    let anchor = !blank_or_comment && has_anchor(bare);
    match &mut doc.items {
        Items::None => {
            doc.anchored |= anchor;
            if lists && !doc.anchored && bare.trim_end() == "items:" {
                doc.items = Items::Pending(line.to_owned());
            } else {
                doc.text.push_str(line);
            }
        }
        Items::Pending(held) => {
            if blank_or_comment {
                held.push_str(line);
            } else if bare == "-" || bare.starts_with("- ") {
                let start = out.text.len();
                out.text.extend_from_slice(dedent(line).as_bytes());
                doc.items = Items::Active {
                    index: 0,
                    current: Some((number, start)),
                    tail: None,
                };
                if anchor && let Items::Active { tail, .. } = &mut doc.items {
                    start_tail(out, start);
                    *tail = Some(0);
                }
                // Keep the line count of the shell right for its own errors.
                doc.text.push_str("items: []\n");
            } else {
                let held = std::mem::take(held);
                doc.text.push_str(&held);
                doc.text.push_str(line);
                doc.items = Items::None;
            }
        }
        Items::Active {
            index,
            current,
            tail,
        } => {
            let item_line = bare == "-" || bare.starts_with("- ");
            if tail.is_some() && (item_line || blank_or_comment || first == Some(b' ')) {
                // In a tail every line is kept as written.
                out.text.extend_from_slice(line.as_bytes());
            } else if item_line {
                flush_item(doc, out)?;
                if let Items::Active {
                    index,
                    current,
                    tail,
                } = &mut doc.items
                {
                    let start = out.text.len();
                    if anchor {
                        out.text.extend_from_slice(line.as_bytes());
                        *tail = Some(*index);
                    } else {
                        out.text.extend_from_slice(dedent(line).as_bytes());
                    }
                    *current = Some((number, start));
                }
            } else if blank_or_comment || first == Some(b' ') {
                if let Some((_, start)) = *current {
                    if anchor && tail.is_none() {
                        start_tail(out, start);
                        *tail = Some(*index);
                        out.text.extend_from_slice(line.as_bytes());
                    } else if first == Some(b' ') {
                        out.text.extend_from_slice(dedent(line).as_bytes());
                    } else {
                        out.text.push(b'\n');
                    }
                }
            } else {
                // A column-1 key after the sequence: back to the shell.
                flush_item(doc, out)?;
                doc.items = Items::None;
                doc.text.push_str(line);
            }
        }
    }
    Ok(())
}

/// Removes the first two columns (`- ` or two spaces) of a List item line.
fn dedent(line: &str) -> &str {
    let cut = line
        .bytes()
        .take(2)
        .take_while(|b| *b == b' ' || *b == b'-')
        .count();
    &line[cut..]
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

/// The most units in a YAML batch, and the bytes after which one is sent early (a JSON batch
/// is one chunk, [`CHUNK`]).
const BATCH_UNITS: usize = 256;
const BATCH_BYTES: usize = 2 << 20;

/// Feeds the batches `produce` makes into `collector`, typing them on worker threads when
/// the input is larger than one batch, and merging them in input order (so the first error
/// in the input is the one reported, and "the last copy wins" keeps its meaning).
///
/// The last batch is typed on this thread once production ends: a batch is held until the
/// next one arrives, so an input of one batch starts no thread at all.
pub(crate) fn drive(
    path: &str,
    collector: &mut Collector,
    produce: impl FnOnce(&mut Sink<'_>, &Buffers) -> Result<(), Stop>,
) -> Result<(), LoadError> {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Mutex, mpsc};

    let workers = cores().clamp(1, 4);
    let failed = AtomicBool::new(false);
    let (job_tx, job_rx) = mpsc::sync_channel::<(usize, Batch)>(workers * 2);
    let job_rx = Mutex::new(job_rx);
    let (result_tx, result_rx) = mpsc::channel::<(usize, Result<Collector, LoadError>)>();
    let buffers = Buffers::default();
    let run_batch = |batch: Batch, c: &mut Collector| -> Result<(), LoadError> {
        process_batch(&batch, path, c)?;
        buffers.give(batch.text);
        Ok(())
    };
    let run_batch = &run_batch;
    std::thread::scope(|scope| {
        let mut spawned = false;
        let mut pending: Option<Batch> = None;
        let mut sent = 0usize;
        let mut inline = Collector::new();
        let mut inline_error: Option<LoadError> = None;
        let produced = {
            let mut sink = |batch: Batch| -> Result<(), Stop> {
                if failed.load(Ordering::Relaxed) {
                    return Err(Stop::Aborted);
                }
                let Some(ready) = pending.replace(batch) else {
                    return Ok(());
                };
                if !spawned && workers > 1 {
                    spawned = true;
                    for _ in 0..workers {
                        let (job_rx, result_tx, failed) = (&job_rx, result_tx.clone(), &failed);
                        scope.spawn(move || {
                            loop {
                                let job = job_rx.lock().map(|rx| rx.recv());
                                let Ok(Ok((seq, batch))) = job else { break };
                                let mut c = Collector::new();
                                let result = run_batch(batch, &mut c).map(|()| c);
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
                if spawned {
                    if job_tx.send((sent, ready)).is_err() {
                        return Err(Stop::Aborted);
                    }
                    sent += 1;
                } else if inline_error.is_none() {
                    // One core: type in place.
                    if let Err(e) = run_batch(ready, &mut inline) {
                        inline_error = Some(e);
                        return Err(Stop::Aborted);
                    }
                }
                Ok(())
            };
            produce(&mut sink, &buffers)
        };
        // The last batch is typed here.
        let mut rest_result = Ok(());
        if let Some(rest) = pending.take()
            && matches!(produced, Ok(()) | Err(Stop::Load(_)))
            && inline_error.is_none()
        {
            rest_result = process_batch(&rest, path, &mut inline);
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

    /// A reader that hands out at most `step` bytes per read, as a pipe may.
    struct Trickle<'a> {
        text: &'a [u8],
        step: usize,
    }

    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.text.len());
            buf[..n].copy_from_slice(&self.text[..n]);
            self.text = &self.text[n..];
            Ok(n)
        }
    }

    /// Splits `text` with chunks of `chunk` bytes and reads of at most `step`; the units'
    /// texts and positions.
    fn cut(text: &str, chunk: usize, step: usize) -> Vec<(String, usize, usize, Option<usize>)> {
        let mut reader = Trickle {
            text: text.as_bytes(),
            step,
        };
        let mut cut = Vec::new();
        // Pooled chunks arrive with stale bytes, whatever they held.
        let buffers = super::Buffers::default();
        let _ = buffers.take();
        for i in 0..3 {
            buffers.give(format!("stale {i} }}]\"").repeat(9).into_bytes());
        }
        super::split_json(
            &mut reader,
            "t.json",
            chunk,
            super::Cut::loader("t.json"),
            &buffers,
            &mut |b: super::Batch| {
                for u in &b.units {
                    let text = super::unit_text(&b.text, u, "t.json").expect("UTF-8");
                    cut.push((text.to_owned(), u.line, u.column, u.item));
                }
                Ok(())
            },
        )
        .unwrap_or_else(|_| panic!("chunk {chunk}, step {step}: the input splits"));
        cut
    }

    /// Items are cut at the same places, with the same positions, whatever the chunk size
    /// and however short the reads: a backslash, a quote or a bracket at a chunk's end is
    /// carried into the next one, and a unit larger than a chunk grows it.
    #[test]
    fn items_are_cut_alike_across_every_chunk_boundary() {
        let items = [
            r#"{"kind":"A","s":"a \"quoted\" } ] [ { string\\","n":[1,{"x":"]"}]}"#,
            r#"{"kind":"B","t":"\\","u":"\u007b"}"#,
            r#"[{"k":"}"},"]"]"#,
            r#""a top-level string with a \" and a }""#,
        ];
        let text = format!(
            "\u{feff}{{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n{}\n],\"metadata\":{{}}}}\n{{\"kind\":\"Pod\"}} 7",
            items.join(",\n")
        );
        let whole = cut(&text, 1 << 20, usize::MAX);
        let texts: Vec<&str> = whole.iter().map(|u| u.0.as_str()).collect();
        assert_eq!(texts[..4], items);
        assert_eq!(texts[4..], [r#"{"kind":"Pod"}"#, "7"]);
        assert_eq!((whole[0].1, whole[0].2, whole[0].3), (2, 1, Some(0)));
        assert_eq!((whole[1].1, whole[1].2, whole[1].3), (3, 1, Some(1)));
        assert_eq!((whole[4].1, whole[4].2, whole[4].3), (7, 1, None));
        assert_eq!((whole[5].1, whole[5].2), (7, 16));
        for chunk in 1..=40 {
            for step in [1, 3, 7, usize::MAX] {
                assert_eq!(cut(&text, chunk, step), whole, "chunk {chunk}, step {step}");
            }
        }
    }

    /// The pool keeps nothing for a producer that never took from it, at most `MAX` buffers,
    /// none over `MAX_CAPACITY`; a chunk from it has the length asked for.
    #[test]
    fn the_buffer_pool_is_bounded() {
        use super::Buffers;
        let pool = Buffers::default();
        pool.give(b"never taken".to_vec());
        assert!(
            pool.take().is_none(),
            "a producer that never took gets nothing pooled"
        );

        pool.give(vec![b'x'; 10]);
        pool.give(Vec::with_capacity(Buffers::MAX_CAPACITY + 1));
        assert_eq!(
            pool.chunk(64).len(),
            64,
            "the small buffer grows to the chunk asked for"
        );
        assert!(pool.take().is_none(), "the oversized buffer was freed");

        for _ in 0..Buffers::MAX + 10 {
            pool.give(Vec::with_capacity(16));
        }
        let mut kept = 0;
        while pool.take().is_some() {
            kept += 1;
        }
        assert_eq!(kept, Buffers::MAX);
    }
}
