//! `--from PATH`: YAML or JSON files, directories (recursive), or `-` for stdin.
//!
//! Accepts multi-document YAML, `kind: List` (as `kubectl get -o yaml` and
//! `kwokctl snapshot export` print it), JSON objects, JSON arrays and concatenated JSON values.
//! Every error names the file, the 1-based line and column, and for a known kind with a wrong
//! field the object and the field path. Limits on size, depth and node count keep hostile input
//! from exhausting memory or the stack; nothing here panics on any input.

use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

use super::Collector;
pub(crate) use super::parse::LoadError;
use super::parse::{
    MAX_INPUT_BYTES, MAX_STREAM_BYTES, OverLimit, read_error, strip_position, yaml_message,
    yaml_options,
};
use super::stream;
pub(crate) use super::stream::Format;

/// Where `load_path` reports how far it got: bytes read so far and the total when known.
pub(crate) type Progress<'a> = &'a (dyn Fn(u64, Option<u64>) + Sync);

/// Loads `path` (file, directory, or `-` for stdin) into `collector`.
pub fn load_path(path: &Path, collector: &mut Collector) -> Result<(), LoadError> {
    load_path_with_progress(path, collector, &|_, _| {})
}

/// [`load_path`], reporting bytes read (per file) to `progress`.
pub(crate) fn load_path_with_progress(
    path: &Path,
    collector: &mut Collector,
    progress: Progress<'_>,
) -> Result<(), LoadError> {
    if path.as_os_str() == "-" {
        let stdin = std::io::stdin();
        return load_reader(stdin.lock(), "<stdin>", None, collector, progress);
    }
    let display = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|source| LoadError::Io {
        path: display.clone(),
        source,
    })?;
    if meta.is_dir() {
        let mut files = Vec::new();
        collect_files(path, &mut files, 0)?;
        if files.is_empty() {
            return Err(LoadError::Empty { path: display });
        }
        for file in files {
            load_file(&file, collector, progress)?;
        }
        Ok(())
    } else {
        load_file(path, collector, progress)
    }
}

/// Every `.yaml`/`.yml`/`.json` file under `dir`, sorted, hidden entries skipped (also used by
/// lint). A directory reached twice (a symlink cycle such as `ln -s . loop`, or two links to one
/// directory) is walked once, and a file reached twice is read once: both are recognised by
/// (device, inode). Entries that are not regular files (FIFOs, devices, sockets) are refused.
pub(crate) fn collect_files(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    depth: usize,
) -> Result<(), LoadError> {
    let mut seen = Seen::default();
    seen.first(dir);
    walk(dir, out, depth, &mut seen)
}

/// Directories and files already visited, by (device, inode) where the platform has them, else
/// by canonical path.
#[derive(Default)]
struct Seen(std::collections::HashSet<FileId>);

#[derive(Hash, PartialEq, Eq)]
enum FileId {
    #[cfg_attr(not(unix), allow(dead_code))]
    Inode(u64, u64),
    #[cfg_attr(unix, allow(dead_code))]
    Path(PathBuf),
}

impl Seen {
    /// Records `path`; false when it was seen before.
    fn first(&mut self, path: &Path) -> bool {
        match file_id(path) {
            Some(id) => self.0.insert(id),
            None => true,
        }
    }
}

#[cfg(unix)]
fn file_id(path: &Path) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path)
        .ok()
        .map(|m| FileId::Inode(m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_id(path: &Path) -> Option<FileId> {
    std::fs::canonicalize(path).ok().map(FileId::Path)
}

fn walk(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    depth: usize,
    seen: &mut Seen,
) -> Result<(), LoadError> {
    const MAX_DIR_DEPTH: usize = 32;
    let io = |source| LoadError::Io {
        path: dir.display().to_string(),
        source,
    };
    if depth > MAX_DIR_DEPTH {
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for entry in entries {
        let hidden = entry
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        // `metadata` follows symlinks; a dangling link is skipped rather than fatal.
        let Ok(meta) = std::fs::metadata(&entry) else {
            continue;
        };
        let wanted = matches!(
            entry.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "json")
        );
        if meta.is_dir() {
            if seen.first(&entry) {
                walk(&entry, out, depth + 1, seen)?;
            }
        } else if wanted {
            if !meta.is_file() {
                return Err(LoadError::NotRegularFile {
                    path: entry.display().to_string(),
                });
            }
            if seen.first(&entry) {
                out.push(entry);
            }
        }
    }
    Ok(())
}

/// Opens a file for reading, refusing anything but a regular file (a FIFO or `/dev/zero`
/// would be read forever).
fn open_regular(path: &Path) -> Result<(String, std::fs::File, u64), LoadError> {
    let display = path.display().to_string();
    let io = |source| LoadError::Io {
        path: display.clone(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(LoadError::NotRegularFile { path: display });
    }
    let file = std::fs::File::open(path).map_err(io)?;
    Ok((display, file, meta.len()))
}

/// Reads a regular file within [`MAX_INPUT_BYTES`] (counting the bytes actually read, not
/// the size the file claims); returns its display name and bytes. Used by lint, which needs
/// the text whole.
pub(crate) fn read_limited(path: &Path) -> Result<(String, Vec<u8>), LoadError> {
    let (display, file, size) = open_regular(path)?;
    if size > MAX_INPUT_BYTES {
        return Err(LoadError::TooLarge {
            path: display,
            size,
            limit: MAX_INPUT_BYTES,
        });
    }
    let mut bytes = Vec::new();
    file.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| LoadError::Io {
            path: display.clone(),
            source,
        })?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(LoadError::TooLarge {
            path: display,
            size: bytes.len() as u64,
            limit: MAX_INPUT_BYTES,
        });
    }
    Ok((display, bytes))
}

fn load_file(
    path: &Path,
    collector: &mut Collector,
    progress: Progress<'_>,
) -> Result<(), LoadError> {
    let (display, file, size) = open_regular(path)?;
    if size > MAX_STREAM_BYTES {
        return Err(LoadError::TooLarge {
            path: display,
            size,
            limit: MAX_STREAM_BYTES,
        });
    }
    load_reader(file, &display, Some(size), collector, progress)
}

/// A reader that counts what it hands out, fails once more than the limit was read, and
/// reports progress every few megabytes.
struct Counted<'a, R> {
    inner: R,
    read: u64,
    limit: u64,
    reported: u64,
    total: Option<u64>,
    progress: Progress<'a>,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if self.read > self.limit {
            return Err(std::io::Error::other(OverLimit(self.limit)));
        }
        if self.read - self.reported >= 4 << 20 || (n == 0 && self.read != self.reported) {
            self.reported = self.read;
            (self.progress)(self.read, self.total);
        }
        Ok(n)
    }
}

/// Streams one source into `collector`: the format is decided by [`Format::of`], the input is
/// read through a buffer and split into units, and units are typed and pruned on worker
/// threads.
fn load_reader(
    reader: impl Read,
    path: &str,
    total: Option<u64>,
    collector: &mut Collector,
    progress: Progress<'_>,
) -> Result<(), LoadError> {
    load_reader_limited(reader, path, total, MAX_STREAM_BYTES, collector, progress)
}

fn load_reader_limited(
    reader: impl Read,
    path: &str,
    total: Option<u64>,
    limit: u64,
    collector: &mut Collector,
    progress: Progress<'_>,
) -> Result<(), LoadError> {
    let counted = Counted {
        inner: reader,
        read: 0,
        limit,
        reported: 0,
        total,
        progress,
    };
    // The buffer holds the whole of a small input (so the first byte is found as before) and
    // is never larger than it: lint asks this function for its verdict on thousands of small
    // files, and a 256 KiB buffer per file cost more than parsing them.
    let capacity = total.map_or(256 << 10, |t| {
        usize::try_from(t.saturating_add(1))
            .unwrap_or(usize::MAX)
            .clamp(8 << 10, 256 << 10)
    });
    let mut reader = std::io::BufReader::with_capacity(capacity, counted);
    let first = first_byte(&mut reader).map_err(|e| read_error(path, e))?;
    let format = Format::of(path, first);
    let header = format == Format::Yaml && starts_with_snapshot_header(&mut reader);
    let chunk = stream::chunk_for(total);
    let before = collector.marks();
    let cut = stream::Cut::loader(path);
    stream::drive(path, collector, |sink, buffers| match format {
        Format::Json => stream::split_json(&mut reader, path, chunk, cut, buffers, sink),
        Format::Yaml => stream::split_yaml(&mut reader, path, cut, buffers, sink),
    })?;
    collector.check_complete(path, before, header);
    Ok(())
}

/// True when the input starts with the first line `wasctl snapshot` writes (looked at
/// without consuming it).
fn starts_with_snapshot_header(reader: &mut impl BufRead) -> bool {
    let header = crate::snapshot::facts::SNAPSHOT_HEADER;
    let mark = header.split(" (").next().unwrap_or(header).as_bytes();
    reader.fill_buf().is_ok_and(|buf| {
        buf.strip_prefix(b"\xEF\xBB\xBF")
            .unwrap_or(buf)
            .starts_with(mark)
    })
}

/// The first byte that is not blank (after a UTF-8 byte order mark), without consuming it.
fn first_byte(reader: &mut impl BufRead) -> std::io::Result<Option<u8>> {
    let buf = reader.fill_buf()?;
    let buf = buf.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(buf);
    Ok(buf
        .iter()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .copied())
}

/// Test clusters: YAML documents loaded into an indexed snapshot (a load error fails the test).
#[cfg(test)]
pub(crate) fn test_snapshot(yaml: &str) -> crate::snapshot::Snapshot {
    let mut c = Collector::new();
    load_str(yaml, "<test>", &mut c).unwrap_or_else(|e| panic!("test YAML does not load: {e:?}"));
    c.finish()
}

/// [`test_snapshot`] of objects given as JSON values.
#[cfg(test)]
pub(crate) fn test_snapshot_of(objects: &[serde_json::Value]) -> crate::snapshot::Snapshot {
    let mut c = Collector::new();
    for o in objects {
        c.add(o.clone())
            .unwrap_or_else(|e| panic!("test object does not load: {e:?}"));
    }
    c.finish()
}

/// Loads the text of one file; `path` is only used in messages and to pick the format
/// ([`Format::of`]). The same streaming path as files: the text is read as a reader.
pub fn load_str(text: &str, path: &str, collector: &mut Collector) -> Result<(), LoadError> {
    let len = u64::try_from(text.len()).unwrap_or(u64::MAX);
    load_reader(text.as_bytes(), path, Some(len), collector, &|_, _| {})
}

/// One document of an input as the loader sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceDocument {
    /// How the loader parses it.
    pub format: Format,
    /// 1-based line of the document's first line.
    pub line: usize,
    /// 1-based column of its first byte (a JSON value may start mid-line).
    pub column: usize,
    /// The document's text.
    pub text: String,
}

/// The documents of `text` (named `name`) cut exactly as the loader cuts them (the same
/// scanner, [`Format::of`], the same switch from JSON to YAML at `---` and the same YAML
/// fallback), except that a `List` stays one document. The error, if any, is the one that
/// stopped the cut (a JSON stream cannot be cut past its first structural error); the
/// documents before it are returned. Not parsed beyond that: see [`parse_documents`].
pub(crate) fn split_documents(name: &str, text: &str) -> (Vec<SourceDocument>, Option<LoadError>) {
    let first = text
        .strip_prefix('\u{feff}')
        .unwrap_or(text)
        .bytes()
        .find(|b| !b.is_ascii_whitespace());
    let format = Format::of(name, first);
    let cut = stream::Cut {
        lists: false,
        ..stream::Cut::loader(name)
    };
    let mut docs = Vec::new();
    let mut bad = None;
    let buffers = stream::Buffers::default();
    let mut sink = |batch: stream::Batch| -> Result<(), stream::Stop> {
        for unit in &batch.units {
            let text = stream::unit_text(&batch.text, unit, name)?;
            docs.push(SourceDocument {
                format: unit.format,
                line: unit.line,
                column: unit.column,
                text: text.to_owned(),
            });
        }
        Ok(())
    };
    let mut reader = text.as_bytes();
    let len = u64::try_from(text.len()).ok();
    let split = match format {
        Format::Json => stream::split_json(
            &mut reader,
            name,
            stream::chunk_for(len),
            cut,
            &buffers,
            &mut sink,
        ),
        Format::Yaml => stream::split_yaml(&mut reader, name, cut, &buffers, &mut sink),
    };
    if let Err(stream::Stop::Load(e)) = split {
        bad = Some(e);
    }
    (docs, bad)
}

/// The loader's verdict on `text` (named `name`), document by document ([`split_documents`]):
/// each entry is a document with its format and position, or the syntax error found in it.
/// JSON is strict (serde_json: a trailing comma is an error), YAML goes through serde-saphyr
/// with the loader's limits.
pub fn parse_documents(name: &str, text: &str) -> Vec<Result<SourceDocument, LoadError>> {
    let (docs, stop) = split_documents(name, text);
    let mut out: Vec<Result<SourceDocument, LoadError>> = docs
        .into_iter()
        .map(|doc| {
            let error = match doc.format {
                Format::Json => serde_json::from_str::<serde::de::IgnoredAny>(&doc.text)
                    .err()
                    .map(|e| {
                        let (line, column) = (e.line().max(1), e.column().max(1));
                        (
                            doc.line + line - 1,
                            if line == 1 {
                                doc.column + column - 1
                            } else {
                                column
                            },
                            strip_position(&e.to_string()),
                        )
                    }),
                Format::Yaml => serde_saphyr::from_str_with_options::<serde::de::IgnoredAny>(
                    &doc.text,
                    yaml_options(),
                )
                .err()
                .map(|e| {
                    let (l, c) = e.location().map_or((1, 1), |l| {
                        (
                            usize::try_from(l.line()).unwrap_or(1),
                            usize::try_from(l.column()).unwrap_or(1),
                        )
                    });
                    {
                        let line = doc.line + l.max(1) - 1;
                        (line, c.max(1), yaml_message(&e.to_string(), line))
                    }
                }),
            };
            match error {
                None => Ok(doc),
                Some((line, column, message)) => Err(LoadError::Syntax {
                    path: name.to_owned(),
                    format: doc.format.label(),
                    line,
                    column,
                    message,
                }),
            }
        })
        .collect();
    out.extend(stop.map(Err));
    out
}

/// The YAML documents of a stream with the 1-based line each starts on (the tests' reference
/// for the splitter; the loader and lint cut with [`split_documents`]). Documents are split at
/// `---` and `...` markers in column 1, which YAML reserves for that use.
#[cfg(test)]
pub(crate) fn yaml_documents(text: &str) -> Vec<(usize, &str)> {
    let mut docs = Vec::new();
    let mut start = 0;
    let mut start_line = 1;
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let bare = line.trim_end_matches(['\n', '\r']);
        let is_start = bare == "---" || bare.starts_with("--- ") || bare.starts_with("---\t");
        let is_end = bare == "...";
        if (is_start || is_end) && offset > start {
            docs.push((start_line, &text[start..offset]));
            start = offset;
            start_line = i + 1;
        }
        offset += line.len();
        if is_end {
            start = offset;
            start_line = i + 2;
        }
    }
    if offset > start {
        docs.push((start_line, &text[start..]));
    }
    docs
}

/// Parses one typed object from YAML text, for tests and the demo.
#[cfg(test)]
pub(crate) fn parse_yaml<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    serde_saphyr::from_str_with_options(text, yaml_options())
        .map_err(|e| super::parse::first_line(&e.to_string()))
}

#[cfg(test)]
mod tests {

    #[test]
    fn parser_messages_say_what_was_expected_and_found_once() {
        assert_eq!(
            strip_position("invalid type: string \"three\", expected i32 at line 9 column 17"),
            "expected an integer, found the string \"three\""
        );
        assert_eq!(
            first_line("invalid type: boolean `true`, expected a string\n  --> x"),
            "expected a string, found true"
        );
        assert_eq!(
            strip_position("invalid type: sequence, expected a map"),
            "expected an object, found a list"
        );
        assert_eq!(
            strip_position("unclosed bracket '[' at line 4, column 9"),
            "unclosed bracket '['"
        );
        assert_eq!(strip_position("trailing comma"), "trailing comma");
        assert_eq!(
            strip_position(
                "failed to parse two digit integer as month: parameter 'month' is not in the required range of 1..=12"
            ),
            "not an RFC 3339 time like `2026-01-31T12:00:00Z`: parameter 'month' is not in the required range of 1..=12"
        );
    }
    use super::*;
    use crate::snapshot::source::parse::{first_line, has_content};
    use serde_json::Value;

    fn load(text: &str, path: &str) -> Result<crate::snapshot::Snapshot, LoadError> {
        let mut c = Collector::new();
        load_str(text, path, &mut c)?;
        Ok(c.finish())
    }

    #[test]
    fn multi_document_yaml_with_list_and_comments() {
        let text = "# a comment\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\n---\n\
            apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n2}\n...\n";
        let s = load(text, "x.yaml").unwrap();
        assert_eq!(s.nodes.len(), 2);
    }

    #[test]
    fn malformed_yaml_names_file_line_and_column() {
        let text =
            "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\napiVersion: v1\nkind: [Node\n";
        let err = load(text, "bad.yaml").unwrap_err();
        let LoadError::Syntax { line, format, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(*format, "YAML");
        assert!(
            *line >= 6,
            "line {line} should be in the second document: {err}"
        );
        assert!(err.to_string().starts_with("bad.yaml:"));
    }

    #[test]
    fn wrong_field_type_in_yaml_points_at_the_field() {
        let text = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\napiVersion: v1\nkind: Pod\n\
            metadata:\n  name: p\n  namespace: ml\nspec:\n  containers:\n  - name: c\n    ports: eighty\n";
        let err = load(text, "pod.yaml").unwrap_err();
        let LoadError::Object {
            line,
            column,
            object,
            field,
            ..
        } = &err
        else {
            panic!("{err:?}")
        };
        assert_eq!(object, "Pod ml/p");
        assert_eq!(field.as_deref(), Some("spec.containers[0].ports"));
        assert_eq!((*line, *column), (13, 12), "{err}");
    }

    #[test]
    fn json_fast_path_reads_the_same_objects_as_the_value_path() {
        // The demo as one JSON List: nodes, pods and namespaces take the typed fast path.
        let yaml = super::super::demo::DEMO_YAML;
        let docs: Vec<Value> = yaml_documents(yaml)
            .into_iter()
            .filter(|(_, d)| has_content(d))
            .map(|(_, d)| parse_yaml::<Value>(d).unwrap())
            .collect();
        let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": docs});
        let from_json = load(&list.to_string(), "demo.json").unwrap();
        let from_yaml = load(yaml, "demo.yaml").unwrap();
        assert!(!from_json.pods.is_empty() && !from_json.nodes.is_empty());
        let json = |s: &crate::snapshot::Snapshot| {
            serde_json::json!([
                s.nodes,
                s.pods,
                s.namespaces,
                s.pod_groups,
                s.resource_claims
            ])
        };
        assert_eq!(json(&from_json), json(&from_yaml));
    }

    #[test]
    fn wrong_field_type_in_a_json_list_points_at_the_item_field() {
        let text = "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n\
            {\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"n1\"}},\n\
            {\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"p\", \"namespace\": \"ml\"},\n\
             \"spec\": {\"containers\": [{\"name\": \"c\", \"ports\": \"eighty\"}]}}]}\n";
        let err = load(text, "pods.json").unwrap_err();
        let LoadError::Object {
            line,
            object,
            field,
            message,
            ..
        } = &err
        else {
            panic!("{err:?}")
        };
        assert_eq!(object, "Pod ml/p");
        assert_eq!(field.as_deref(), Some("items[1].spec.containers[0].ports"));
        assert_eq!(*line, 4, "{err}");
        assert!(!message.contains(" at line "), "{message}");
    }

    #[test]
    fn malformed_json_names_line_and_column() {
        let err = load("{\n  \"apiVersion\": \"v1\",\n  \"kind\": \n}", "x.json").unwrap_err();
        let LoadError::Syntax {
            line,
            column,
            format,
            ..
        } = &err
        else {
            panic!("{err:?}")
        };
        assert_eq!((*format, *line, *column), ("JSON", 4, 1));
    }

    #[test]
    fn json_array_and_stream() {
        let text = "[{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"a\"}}]\n\
            {\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"b\"}}";
        assert_eq!(load(text, "x.json").unwrap().nodes.len(), 2);
    }

    #[test]
    fn deep_nesting_is_refused_not_crashing() {
        let deep = format!(
            "apiVersion: v1\nkind: Node\nmetadata: {{name: n}}\nx: {}{}",
            "[".repeat(5000),
            "]".repeat(5000)
        );
        assert!(matches!(
            load(&deep, "deep.yaml"),
            Err(LoadError::Syntax { .. })
        ));
        let deep_json = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(matches!(
            load(&deep_json, "deep.json"),
            Err(LoadError::Syntax { .. })
        ));
    }

    #[test]
    fn alias_bomb_is_refused() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let prev = i - 1;
            text.push_str(&format!("a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"));
        }
        assert!(load(&text, "bomb.yaml").is_err());
    }

    #[test]
    fn yaml_flow_mapping_in_a_yaml_file_is_yaml() {
        // See: issue 14 item 10. A `.yaml` starting with `{` is still YAML.
        let text = "{apiVersion: v1, kind: Node, metadata: {name: n1}}\n";
        assert_eq!(load(text, "flow.yaml").unwrap().nodes.len(), 1);
        assert!(parse_documents("flow.yaml", text)[0].is_ok());
        // The same text on stdin is sniffed as JSON, is not JSON, and is read as YAML, as
        // kubectl's decoder falls back when its first object is not JSON (issue 46).
        assert_eq!(load(text, "<stdin>").unwrap().nodes.len(), 1);
        // A `.json` file is strict JSON.
        assert!(load(text, "flow.json").is_err());
    }

    /// See: issue 46 item 3: kubectl's `YAMLOrJSONDecoder`
    /// (k8s.io/apimachinery/pkg/util/yaml/decoder.go) reads a JSON stream that goes on with
    /// `---` as YAML, and concatenated objects whatever the file's name.
    #[test]
    fn json_streams_with_markers_and_concatenated_objects_are_read_under_every_name() {
        let a = r#"{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"}}"#;
        let b = r#"{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "b"}}"#;
        for text in [
            format!("{a}\n---\n{b}\n"),
            format!("{a}{b}"),
            format!("[{a}, {b}]"),
            format!("{a}\n---\napiVersion: v1\nkind: Node\nmetadata: {{name: b}}\n...\n"),
        ] {
            for name in ["x.yaml", "x.json", "<stdin>", "x"] {
                if name == "x.json" && text.contains("kind: Node") {
                    continue;
                }
                let s = load(&text, name).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
                let names: Vec<_> = s
                    .nodes
                    .iter()
                    .map(|n| n.metadata.name.clone().unwrap_or_default())
                    .collect();
                assert_eq!(names, ["a", "b"], "{name}: {text}");
                let docs = parse_documents(name, &text);
                assert!(docs.iter().all(Result::is_ok), "{name}: {docs:?}");
            }
        }
        // Positions after the switch are the file's: the unclosed `[` of line 4 is found
        // there or at the end of the input (line 5), never counted from the switch.
        let bad = format!("{a}\n---\napiVersion: v1\nkind: [Node\n");
        match load(&bad, "<stdin>") {
            Err(LoadError::Syntax { line, format, .. }) => {
                assert!(matches!(line, 4 | 5) && format == "YAML", "{line} {format}");
            }
            other => panic!("{other:?}"),
        }
    }

    /// See: issue 46 item 3: a YAML alias to an anchor earlier in the same `List` (the
    /// loader cuts Lists item by item; items from the first anchor on stay together).
    #[test]
    fn a_yaml_alias_to_an_anchor_in_an_earlier_list_item_is_read() {
        let text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: a\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: b\n    labels: &l\n      zone: z1\n\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: c\n    labels: *l\n- &pod\n  apiVersion: v1\n  kind: Pod\n  metadata: {name: p, namespace: ns}\n  spec:\n    priority: x\n";
        let err = load(text, "l.yaml").unwrap_err();
        // The error in the run of items names the item and the field, at the file's line.
        match &err {
            LoadError::Object { line, field, .. } => {
                assert_eq!(
                    (*line, field.as_deref()),
                    (25, Some("items[3].spec.priority")),
                    "{err}"
                );
            }
            other => panic!("{other:?}"),
        }
        let fixed = text.replace("priority: x", "priority: 1");
        let s = load(&fixed, "l.yaml").unwrap();
        let zone = |i: usize| {
            s.nodes[i]
                .metadata
                .labels
                .as_ref()
                .and_then(|l| l.get("zone").cloned())
        };
        assert_eq!(s.nodes.len(), 3);
        assert_eq!(
            (zone(0), zone(1), zone(2)),
            (None, Some("z1".to_owned()), Some("z1".to_owned()))
        );
        assert_eq!(s.pods.len(), 1);
        // An anchor before `items:` keeps the document whole.
        let shell = "apiVersion: v1\nkind: List\nmetadata: {labels: &l {zone: z2}}\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a, labels: *l}\n";
        let s = load(shell, "l.yaml").unwrap();
        assert_eq!(
            s.nodes[0]
                .metadata
                .labels
                .as_ref()
                .and_then(|l| l.get("zone").cloned()),
            Some("z2".to_owned())
        );
    }

    /// See: issue 46 item 6: parser wording in our words.
    #[test]
    fn duplicate_keys_and_out_of_range_integers_are_said_in_our_words() {
        let err = load(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  name: b\n",
            "d.yaml",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("duplicate key `name` at line 5"), "{err}");
        assert!(!err.contains("DuplicateKeyPolicy"), "{err}");
        // A loader limit is said in words, not as serde-saphyr's Debug dump.
        let deep = format!(
            "apiVersion: v1\nkind: Node\nmetadata: {{name: n}}\nx: {}{}",
            "[".repeat(150),
            "]".repeat(150)
        );
        let err = load(&deep, "deep.yaml").unwrap_err().to_string();
        assert!(!err.contains("budget") && !err.contains('{'), "{err}");
        assert!(err.contains("nested deeper than 100 levels"), "{err}");
        let err = load(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec: {priority: 2147483648, containers: [{name: c, image: i}]}\n",
            "p.yaml",
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("field `spec.priority`: 2147483648 is out of range: the field takes a 32-bit integer, -2147483648 to 2147483647"),
            "{err}"
        );
    }

    #[test]
    fn json_trailing_comma_is_rejected_by_loader_and_lint_entry_point() {
        // See: issue 14 item 10.
        for text in [
            "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"a\"}},\n]}",
            "{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"a\",}}",
            "[{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"a\"}},]",
        ] {
            let err = load(text, "x.json").unwrap_err();
            assert!(
                matches!(err, LoadError::Syntax { format: "JSON", .. }),
                "{err}"
            );
            assert!(
                parse_documents("x.json", text).iter().any(Result::is_err),
                "{text}"
            );
        }
    }

    #[test]
    fn kubectl_yaml_list_is_streamed_item_by_item_with_positions() {
        let text = "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n1\n\
            - apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p\n    namespace: ml\n  spec:\n    containers:\n\
            \x20   - name: c\n      ports: eighty\nkind: List\nmetadata:\n  resourceVersion: \"\"\n";
        let err = load(text, "list.yaml").unwrap_err();
        let LoadError::Object {
            line,
            column,
            field,
            ..
        } = &err
        else {
            panic!("{err:?}")
        };
        assert_eq!(field.as_deref(), Some("items[1].spec.containers[0].ports"));
        assert_eq!((*line, *column), (15, 14), "{err}");
        let good = text.replace("ports: eighty", "ports: []");
        let s = load(&good, "list.yaml").unwrap();
        assert_eq!((s.nodes.len(), s.pods.len()), (1, 1));
        // Items under a kind that is not a List are refused, not silently read.
        let wrong = good.replace("kind: List", "kind: Node");
        assert!(load(&wrong, "list.yaml").is_err());
    }

    #[test]
    fn large_inputs_load_the_same_in_json_and_yaml_and_in_parallel() {
        use crate::testutil::realistic::{Layout, RealisticProfile, write};
        let p = RealisticProfile::tiny(120);
        let (mut json, mut yaml) = (Vec::new(), Vec::new());
        write(&mut json, &p, 5, Layout::JsonList).unwrap();
        write(&mut yaml, &p, 5, Layout::YamlStream).unwrap();
        let from_json = load(std::str::from_utf8(&json).unwrap(), "r.json").unwrap();
        let from_yaml = load(std::str::from_utf8(&yaml).unwrap(), "r.yaml").unwrap();
        assert_eq!(from_json.pods.len(), 360 + 6);
        let dump = |s: &crate::snapshot::Snapshot| {
            serde_json::to_string(&crate::snapshot::export::documents(s).unwrap()).unwrap()
        };
        assert_eq!(dump(&from_json), dump(&from_yaml));
        // Sequential loading (one unit at a time) gives the same snapshot.
        let mut c = Collector::new();
        let value: Value = serde_json::from_slice(&json).unwrap();
        for item in value["items"].as_array().unwrap() {
            c.add(item.clone()).unwrap();
        }
        assert_eq!(dump(&c.finish()), dump(&from_json));
    }

    #[test]
    fn pruned_fields_are_gone_and_what_commands_read_survives() {
        // See: issue 15 item 3.
        use crate::testutil::realistic::{Layout, RealisticProfile, write};
        let mut json = Vec::new();
        write(&mut json, &RealisticProfile::tiny(4), 9, Layout::JsonList).unwrap();
        let s = load(std::str::from_utf8(&json).unwrap(), "r.json").unwrap();
        let running = s
            .pods
            .iter()
            .find(|p| p.spec.as_ref().and_then(|s| s.node_name.as_ref()).is_some())
            .unwrap();
        let member = s
            .pods
            .iter()
            .find(|p| p.metadata.namespace.as_deref() == Some("train"))
            .unwrap();
        for p in [running, member] {
            assert!(p.metadata.managed_fields.is_none());
            // Neither the last-applied copy nor the Job's completion index is read by anything.
            assert!(p.metadata.annotations.is_none());
            let status = p.status.as_ref().unwrap();
            // The record has no room for what nothing reads; what it writes shows it.
            let written = serde_json::to_value(p).unwrap();
            assert!(written["status"].get("containerStatuses").is_none());
            // Read by tree, doctor and the simulator:
            assert!(status.phase.is_some() && status.conditions.is_some());
            let spec = p.spec.as_ref().unwrap();
            let c = &spec.containers[0];
            assert!(c.resources.as_ref().unwrap().requests.is_some());
            // Pruned: nothing reads them, and they are most of a real pod's bytes.
            assert!(written["spec"]["containers"][0].get("env").is_none());
            assert!(
                written["spec"]["containers"][0]
                    .get("volumeMounts")
                    .is_none()
            );
            assert!(written["spec"].get("volumes").is_none());
            assert_eq!(spec.tolerations.as_ref().unwrap().len(), 2);
            assert!(spec.priority.is_some());
            assert_eq!(p.metadata.owner_references.as_ref().unwrap()[0].kind, "Job");
            assert!(p.metadata.labels.is_some() && p.metadata.creation_timestamp.is_some());
        }
        assert!(member.spec.as_ref().unwrap().scheduling_group.is_some());
        let node = &s.nodes[0];
        assert!(node.metadata.managed_fields.is_none());
        let status = node.status.as_ref().unwrap();
        // Images: one empty entry says the node lists some (the image-locality note).
        let images = status.images.as_deref().unwrap_or_default();
        assert!(images.len() <= 1 && images.iter().all(|i| i.names.is_none()));
        assert!(status.allocatable.is_some() && status.conditions.is_some());
        assert!(status.node_info.is_some() && node.metadata.labels.is_some());
        // A Job's pod template is pruned as a pod's spec; what capacity, the graph and the
        // evidence read of it survives.
        let job = &s.jobs[0];
        assert!(job.metadata.managed_fields.is_none() && job.metadata.annotations.is_none());
        let last = crate::snapshot::source::prune::LAST_APPLIED;
        let job_json = serde_json::json!({"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "j", "namespace": "ns", "managedFields": [{"manager": "m"}],
                "annotations": {last: "{}"}},
            "spec": {"parallelism": 2, "template": {
                "metadata": {"labels": {"app": "x"}, "annotations": {last: "{}"}},
                "spec": {"schedulingGroup": {"podGroupName": "g"},
                    "volumes": [{"name": "v", "emptyDir": {}}],
                    "containers": [{"name": "c", "image": "i",
                        "env": [{"name": "E", "value": "1"}],
                        "volumeMounts": [{"name": "v", "mountPath": "/v"}],
                        "resources": {"requests": {"cpu": "2", "nvidia.com/gpu": "1"}}}]}}},
            "status": {"active": 2}})
        .to_string();
        let js = load(&job_json, "job.json").unwrap();
        let job = serde_json::to_value(&*js.jobs[0]).unwrap();
        let template = &job["spec"]["template"];
        assert!(template["spec"].get("volumes").is_none(), "{job}");
        assert!(
            template["spec"]["containers"][0].get("env").is_none(),
            "{job}"
        );
        assert!(
            template["spec"]["containers"][0]
                .get("volumeMounts")
                .is_none()
        );
        assert!(template["metadata"].get("annotations").is_none(), "{job}");
        assert!(job["metadata"].get("managedFields").is_none());
        assert_eq!(
            template["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"],
            "1"
        );
        assert_eq!(template["spec"]["schedulingGroup"]["podGroupName"], "g");
        assert_eq!(template["metadata"]["labels"]["app"], "x");
        assert_eq!(
            (
                job["spec"]["parallelism"].as_i64(),
                job["status"]["active"].as_i64()
            ),
            (Some(2), Some(2))
        );
        // The export round trip reads back the same snapshot.
        let mut out = Vec::new();
        crate::snapshot::export::write_json(&mut out, &s).unwrap();
        let again = load(std::str::from_utf8(&out).unwrap(), "again.json").unwrap();
        let mut out2 = Vec::new();
        crate::snapshot::export::write_json(&mut out2, &again).unwrap();
        assert_eq!(out, out2);
        let plan = |s: &crate::snapshot::Snapshot| {
            serde_json::to_string(
                &crate::sched::simulate(s, &crate::sched::Options::default()).summary,
            )
            .unwrap()
        };
        assert_eq!(plan(&s), plan(&again));
    }

    fn truncation_warnings(s: &crate::snapshot::Snapshot) -> Vec<String> {
        s.warnings
            .iter()
            .filter(|w| w.code == "TruncatedSnapshot")
            .map(|w| w.message.clone())
            .collect()
    }

    /// See: issue 46 item 1: a snapshot cut short is named, never read in silence.
    #[test]
    fn a_truncated_snapshot_is_detected_and_a_whole_one_is_not() {
        let demo = crate::snapshot::source::demo::load().unwrap();
        let total = demo.object_count();
        let mut yaml = Vec::new();
        crate::snapshot::export::write_yaml(&mut yaml, &demo).unwrap();
        let yaml = String::from_utf8(yaml).unwrap();
        assert!(yaml.trim_end().ends_with(&format!("objectCount: {total}")));

        // The whole file: no warning, and the count is not kept in the facts.
        let whole = load(&yaml, "snap.yaml").unwrap();
        assert_eq!(truncation_warnings(&whole), Vec::<String>::new());
        assert_eq!(whole.object_count(), total);
        assert_eq!(whole.facts.object_count, None);

        // Cut in the middle of its objects, at a document boundary and inside a document.
        let docs: Vec<usize> = yaml.match_indices("\n---\n").map(|(i, _)| i + 1).collect();
        let middle = docs[docs.len() / 2];
        // Inside a document, the cut object is refused or read in part: never read in silence.
        let inside = yaml[middle..].find("\n  ").map(|i| middle + i + 1).unwrap();
        let before_facts = yaml[..docs[docs.len() - 1]].rfind('\n').unwrap() + 1;
        for (cut, at_boundary) in [(middle, true), (inside, false), (before_facts, false)] {
            let s = match load(&yaml[..cut], "snap.yaml") {
                Ok(s) => s,
                Err(_) if !at_boundary => continue,
                Err(e) => panic!("cut at {cut}: {e}"),
            };
            let w = truncation_warnings(&s);
            assert_eq!(w.len(), 1, "cut at {cut}: {w:?}");
            assert!(
                w[0].starts_with("snapshot `snap.yaml` is truncated: its ClusterFacts document, written last, is missing ("),
                "{}",
                w[0]
            );
        }

        // An object lost in the middle (the facts document survives): N of M.
        let lost = format!("{}{}", &yaml[..docs[5]], &yaml[docs[6]..]);
        let s = load(&lost, "snap.yaml").unwrap();
        assert_eq!(
            truncation_warnings(&s),
            vec![format!(
                "snapshot `snap.yaml` is truncated: {} of {total} objects. Objects and facts after the cut are missing, so findings about them are not checked; take the snapshot again",
                total - 1
            )]
        );

        // Cut inside the facts document, before or inside its count.
        let count_at = yaml.rfind("objectCount: ").unwrap();
        for cut in [count_at, count_at + "objectCount: ".len() + 1] {
            let s = load(&yaml[..cut], "snap.yaml").unwrap();
            assert_eq!(truncation_warnings(&s).len(), 1, "cut at {cut}");
        }

        // JSON: facts last with the count; a cut is a syntax error, never a silent read.
        let mut json = Vec::new();
        crate::snapshot::export::write_json(&mut json, &demo).unwrap();
        let json = String::from_utf8(json).unwrap();
        let whole = load(&json, "snap.json").unwrap();
        assert_eq!(truncation_warnings(&whole), Vec::<String>::new());
        assert!(load(&json[..json.len() / 2], "snap.json").is_err());
    }

    /// A snapshot of a later format is read, with a warning that says so.
    #[test]
    fn a_newer_snapshot_format_is_named() {
        let facts = |v: u32| {
            format!(
                "apiVersion: wasctl.dev/v1alpha1\nkind: ClusterFacts\nformatVersion: {v}\nobjectCount: 1\n---\napiVersion: v1\nkind: Node\nmetadata: {{name: n1}}\n"
            )
        };
        let codes = |text: &str| -> Vec<String> {
            load(text, "s.yaml")
                .unwrap()
                .warnings
                .iter()
                .map(|w| w.code.clone())
                .collect()
        };
        assert!(!codes(&facts(2)).contains(&"NewerSnapshotFormat".to_owned()));
        assert!(codes(&facts(3)).contains(&"NewerSnapshotFormat".to_owned()));
    }

    /// Snapshots written before the count (facts first, no header) load without a warning.
    #[test]
    fn an_old_snapshot_without_a_count_is_read_without_a_warning() {
        let old = include_str!("../../../testdata/clusters/demo.yaml");
        let s = load(old, "old.yaml").unwrap();
        assert_eq!(truncation_warnings(&s), Vec::<String>::new());
        let half = &old[..old.len() / 2];
        let cut = &half[..half.rfind("\n---\n").unwrap() + 1];
        assert_eq!(
            truncation_warnings(&load(cut, "old.yaml").unwrap()),
            Vec::<String>::new()
        );
    }

    #[test]
    fn bytes_read_are_capped_whatever_the_size_claims() {
        // See: issue 14 item 3: an endless source stops at the cap.
        let mut c = Collector::new();
        let endless = std::io::repeat(b' ');
        let err = load_reader_limited(endless, "<endless>", None, 1 << 20, &mut c, &|_, _| {})
            .unwrap_err();
        assert!(
            matches!(err, LoadError::TooLarge { limit, .. } if limit == 1 << 20),
            "{err}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn devices_and_fifos_are_refused_and_directory_cycles_walked_once() {
        // See: issue 14 item 3.
        let mut c = Collector::new();
        let err = load_path(Path::new("/dev/zero"), &mut c).unwrap_err();
        assert!(matches!(err, LoadError::NotRegularFile { .. }), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let node = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n";
        std::fs::write(dir.path().join("n.yaml"), node).unwrap();
        std::os::unix::fs::symlink(".", dir.path().join("loop")).unwrap();
        std::os::unix::fs::symlink(".", dir.path().join("again")).unwrap();
        std::os::unix::fs::symlink("n.yaml", dir.path().join("same.yaml")).unwrap();
        let mut files = Vec::new();
        collect_files(dir.path(), &mut files, 0).unwrap();
        assert_eq!(files.len(), 1, "{files:?}");
        let mut c = Collector::new();
        load_path(dir.path(), &mut c).unwrap();
        let s = c.finish();
        assert_eq!(s.nodes.len(), 1);
        assert!(
            s.warnings.iter().all(|w| w.code != "Duplicates"),
            "{:?}",
            s.warnings
        );
        let fifo = dir.path().join("pipe.yaml");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let err = load_path(&fifo, &mut Collector::new()).unwrap_err();
            assert!(matches!(err, LoadError::NotRegularFile { .. }), "{err}");
            let err = load_path(dir.path(), &mut Collector::new()).unwrap_err();
            assert!(matches!(err, LoadError::NotRegularFile { .. }), "{err}");
        }
    }
}

/// Property and corpus tests: no input makes the loader panic. The same property is fuzzed by
/// `fuzz/fuzz_targets/load_files.rs` (cargo-fuzz, nightly); these run in every `cargo test`.
#[cfg(test)]
mod no_panic {
    use proptest::prelude::*;

    use super::*;
    use crate::snapshot::source::demo::DEMO_YAML;

    fn load_any(text: &str, path: &str) {
        // The other entry paths of the one loader, on the same text (as the fuzz target).
        let _ = parse_documents(path, text);
        let mut stdin = Collector::new();
        if load_str(text, "<stdin>", &mut stdin).is_ok() {
            let _ = stdin.finish();
        }
        let mut c = Collector::new();
        if load_str(text, path, &mut c).is_ok() {
            let s = c.finish();
            let graph = crate::graph::Graph::build(&s);
            let _ = crate::tree::build(
                &s,
                &graph,
                &crate::tree::TreeScope::default(),
                k8s_openapi::jiff::Timestamp::UNIX_EPOCH,
                Vec::new(),
                None,
            );
        }
    }

    /// A window of the demo cluster, cut at line boundaries, as a realistic seed.
    fn demo_window(start: usize, len: usize) -> String {
        let lines: Vec<&str> = DEMO_YAML.lines().collect();
        let start = start % lines.len();
        lines[start..(start + len).min(lines.len())].join("\n")
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

        #[test]
        fn arbitrary_text_never_panics(text in "\\PC{0,400}") {
            load_any(&text, "x.yaml");
            load_any(&text, "x.json");
        }

        #[test]
        fn yamlish_text_never_panics(text in "([a-zA-Z]{1,6}: (\\[|\\{|&a |\\*a |!!str |\"|'|-|[0-9]{1,3}|\\n  |\\n- ){0,3}\\n?){0,40}") {
            load_any(&text, "x.yaml");
        }

        #[test]
        fn mutated_demo_never_panics(start in 0usize..5000, len in 1usize..150, cut in 0usize..4000, insert in "\\PC{0,3}") {
            let mut text = demo_window(start, len);
            let at = text.char_indices().map(|(i, _)| i).nth(cut % text.len().max(1)).unwrap_or(0);
            text.insert_str(at, &insert);
            load_any(&text, "demo.yaml");
        }
    }

    #[test]
    fn every_bad_fixture_fails_without_panicking() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/manifests/bad");
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let mut c = Collector::new();
            assert!(
                load_path(&path, &mut c).is_err(),
                "{} must fail",
                path.display()
            );
        }
    }
}
