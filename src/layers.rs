//! The crate's layers, checked: a module imports only from layers below its own (the table in
//! docs/development.md, "Layers", is read here, so the documentation and the check cannot
//! drift), and no files of one module import each other in a circle.
//!
//! The sources are read as text: comments, strings and `#[cfg(test)]` items are dropped (a
//! test may use anything), then every `crate::`, `super::` and `self::` path (in `use` lists
//! and inline) is resolved to the module it names. Std only, so the check costs no
//! dependency.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path from the crate root, e.g. `["sched", "dra"]`.
type ModPath = Vec<String>;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The layer table: top-level module → rank, from the rows `| N | `a`, `b` | … |` under the
/// "## Layers" heading of docs/development.md.
fn layer_table() -> BTreeMap<String, u32> {
    let text = std::fs::read_to_string(root().join("docs/development.md")).expect("docs");
    let section = text
        .split("\n## Layers")
        .nth(1)
        .expect("docs/development.md has a `## Layers` section");
    let section = section.split("\n## ").next().unwrap_or(section);
    let mut table = BTreeMap::new();
    for line in section.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (Some(rank), Some(modules)) = (cells.get(1), cells.get(2)) else {
            continue;
        };
        let Ok(rank) = rank.parse::<u32>() else {
            continue;
        };
        for m in modules.split(',') {
            let m = m.trim().trim_matches('`');
            assert!(
                table.insert(m.to_owned(), rank).is_none(),
                "`{m}` is listed twice in the layer table"
            );
        }
    }
    assert!(!table.is_empty(), "the layer table has no rows");
    table
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Punct(char),
    /// `::`
    Path,
}

/// Tokens of `src` without comments, strings and character literals.
fn tokens(src: &str) -> Vec<Tok> {
    tokens_at(src).into_iter().map(|(t, _)| t).collect()
}

/// [`tokens`], each with the byte offset it starts at.
fn tokens_at(src: &str) -> Vec<(Tok, usize)> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                while i < b.len() {
                    if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        i += 2;
                    } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            b'"' => i = skip_string(b, i + 1),
            b'r' if matches!(b.get(i + 1), Some(b'"' | b'#'))
                && (i == 0 || !is_ident(b[i - 1])) =>
            {
                let mut hashes = 0;
                let mut j = i + 1;
                while b.get(j) == Some(&b'#') {
                    hashes += 1;
                    j += 1;
                }
                if b.get(j) != Some(&b'"') {
                    out.push((Tok::Ident("r".to_owned()), i));
                    i += 1;
                    continue;
                }
                j += 1;
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                while j < b.len() && !b[j..].starts_with(&close) {
                    j += 1;
                }
                i = j + close.len();
            }
            b'b' if b.get(i + 1) == Some(&b'"') && (i == 0 || !is_ident(b[i - 1])) => {
                i = skip_string(b, i + 2);
            }
            b'\'' => {
                // A char literal ('x', '\n', '\u{..}') or a lifetime ('a).
                if b.get(i + 1) == Some(&b'\\') {
                    let mut j = i + 2;
                    while j < b.len() && b[j] != b'\'' {
                        j += 1;
                    }
                    i = j + 1;
                } else if b.get(i + 2) == Some(&b'\'') {
                    i += 3;
                } else if let Some(n) = src[i + 1..].chars().next()
                    && src[i + 1 + n.len_utf8()..].starts_with('\'')
                {
                    i += 2 + n.len_utf8();
                } else {
                    i += 1;
                }
            }
            b':' if b.get(i + 1) == Some(&b':') => {
                out.push((Tok::Path, i));
                i += 2;
            }
            c if is_ident(c) => {
                let start = i;
                while i < b.len() && is_ident(b[i]) {
                    i += 1;
                }
                out.push((Tok::Ident(src[start..i].to_owned()), start));
            }
            c if c.is_ascii_whitespace() => i += 1,
            c => {
                if c.is_ascii() {
                    out.push((Tok::Punct(char::from(c)), i));
                }
                i += 1;
            }
        }
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn skip_string(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// One source file's module, the modules it declares as files, and the paths it names.
struct Parsed {
    /// Child modules declared `mod x;` outside test code.
    children: Vec<String>,
    /// Every path the non-test code names, resolved from the crate root.
    paths: Vec<ModPath>,
}

fn ident(t: Option<&Tok>) -> Option<&str> {
    match t {
        Some(Tok::Ident(s)) => Some(s),
        _ => None,
    }
}

/// The index after the item starting at `i`: its `;` or its balanced `{ … }` block.
fn item_end(toks: &[Tok], mut i: usize) -> usize {
    let mut depth = 0i32;
    while i < toks.len() {
        match toks[i] {
            Tok::Punct('{' | '(' | '[') => depth += 1,
            Tok::Punct('}' | ')' | ']') => {
                depth -= 1;
                if depth == 0 && toks[i] == Tok::Punct('}') {
                    return i + 1;
                }
            }
            Tok::Punct(';') if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    i
}

/// Whether the attribute `#[…]` whose `[` is at `i` is a `cfg` that needs `test`; returns the
/// index after its `]`.
fn test_attribute(toks: &[Tok], i: usize) -> (bool, usize) {
    let mut depth = 0;
    let mut j = i;
    let mut words = Vec::new();
    while j < toks.len() {
        match &toks[j] {
            Tok::Punct('[') => depth += 1,
            Tok::Punct(']') => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            Tok::Ident(s) => words.push(s.as_str()),
            _ => {}
        }
        j += 1;
    }
    let test = words.first() == Some(&"cfg") && words.contains(&"test") && !words.contains(&"not");
    (test, j + 1)
}

/// Parses a path whose first segment is at `i`, below `prefix` (the part before a `{` group;
/// empty at the start of a path), in module `here`; pushes what it names and returns the index
/// after it.
fn read_path(
    toks: &[Tok],
    mut i: usize,
    prefix: ModPath,
    here: &[String],
    out: &mut Vec<ModPath>,
) -> usize {
    let start = prefix.is_empty();
    let mut path = prefix;
    let mut previous: Option<&str> = None;
    loop {
        match (ident(toks.get(i)), previous) {
            (Some("crate"), None) if start => path.clear(),
            (Some("self"), None) if start => path = here.to_vec(),
            // `{self, …}` names the prefix itself.
            (Some("self"), None) => {}
            (Some("super"), None) if start => {
                path = here.to_vec();
                path.pop();
            }
            (Some("super"), Some("super")) => {
                path.pop();
            }
            (Some(seg), _) => path.push(seg.to_owned()),
            (None, _) => match toks.get(i) {
                Some(Tok::Punct('{')) => {
                    i += 1;
                    while i < toks.len() && toks[i] != Tok::Punct('}') {
                        match &toks[i] {
                            Tok::Punct(',') => i += 1,
                            Tok::Punct('*') => {
                                out.push(path.clone());
                                i += 1;
                            }
                            Tok::Ident(_) => {
                                i = read_path(toks, i, path.clone(), here, out);
                                if ident(toks.get(i)) == Some("as") {
                                    i += 2;
                                }
                            }
                            _ => i += 1,
                        }
                    }
                    return i + 1;
                }
                _ => {
                    out.push(path);
                    return i;
                }
            },
        }
        previous = ident(toks.get(i));
        i += 1;
        if toks.get(i) == Some(&Tok::Path) {
            i += 1;
        } else {
            out.push(path);
            return i;
        }
    }
}

fn parse(src: &str, module: &[String]) -> Parsed {
    let toks = tokens(src);
    let mut parsed = Parsed {
        children: Vec::new(),
        paths: Vec::new(),
    };
    // Inline modules: (name, the depth of braces their block closes at).
    let mut scope: Vec<(String, i32)> = Vec::new();
    let mut depth = 0i32;
    let mut i = 0;
    while i < toks.len() {
        let here: ModPath = module
            .iter()
            .cloned()
            .chain(scope.iter().map(|(n, _)| n.clone()))
            .collect();
        match &toks[i] {
            Tok::Punct('#') if toks.get(i + 1) == Some(&Tok::Punct('[')) => {
                let (test, after) = test_attribute(&toks, i + 1);
                if test {
                    // Skip further attributes, then the item.
                    let mut j = after;
                    while toks.get(j) == Some(&Tok::Punct('#')) {
                        j = test_attribute(&toks, j + 1).1;
                    }
                    i = item_end(&toks, j);
                } else {
                    i = after;
                }
                continue;
            }
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                if scope.last().is_some_and(|(_, d)| *d == depth) {
                    scope.pop();
                }
                depth -= 1;
            }
            Tok::Ident(w) if w == "mod" => {
                if let Some(name) = ident(toks.get(i + 1)) {
                    match toks.get(i + 2) {
                        Some(Tok::Punct(';')) if scope.is_empty() => {
                            parsed.children.push(name.to_owned());
                        }
                        Some(Tok::Punct('{')) => {
                            scope.push((name.to_owned(), depth + 1));
                        }
                        _ => {}
                    }
                }
            }
            Tok::Ident(w)
                if matches!(w.as_str(), "crate" | "super" | "self")
                    && toks.get(i + 1) == Some(&Tok::Path)
                    && !(i > 0 && toks[i - 1] == Tok::Path) =>
            {
                i = read_path(&toks, i, Vec::new(), &here, &mut parsed.paths);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    parsed
}

/// Every non-test module file from `src/lib.rs` down, with the paths its code names.
fn crate_files() -> BTreeMap<ModPath, Vec<ModPath>> {
    crate_walk()
        .into_iter()
        .map(|(module, _, paths)| (module, paths))
        .collect()
}

/// Every non-test module file from `src/lib.rs` down: its module, its file, and the paths its
/// code names.
fn crate_walk() -> Vec<(ModPath, PathBuf, Vec<ModPath>)> {
    let src = root().join("src");
    let mut out = Vec::new();
    let mut todo: Vec<(ModPath, PathBuf)> = vec![(Vec::new(), src.join("lib.rs"))];
    while let Some((module, file)) = todo.pop() {
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file:?}: {e}"));
        let parsed = parse(&text, &module);
        let dir = if module.is_empty() || file.ends_with("mod.rs") {
            file.parent().map(Path::to_path_buf).unwrap_or_default()
        } else {
            file.with_extension("")
        };
        for child in parsed.children {
            let flat = dir.join(format!("{child}.rs"));
            let nested = dir.join(&child).join("mod.rs");
            let path = if flat.exists() { flat } else { nested };
            let mut m = module.clone();
            m.push(child);
            todo.push((m, path));
        }
        out.push((module, file, parsed.paths));
    }
    out
}

#[test]
fn every_module_imports_only_from_layers_below_it() {
    let table = layer_table();
    let files = crate_files();
    let top: BTreeSet<&str> = files
        .keys()
        .filter(|m| m.len() == 1)
        .map(|m| m[0].as_str())
        .collect();
    for m in &top {
        assert!(
            table.contains_key(*m),
            "module `{m}` is not in the layer table of docs/development.md: give it a layer"
        );
    }
    let mut wrong = Vec::new();
    for (module, paths) in &files {
        let Some(from) = module.first() else { continue };
        for p in paths {
            let Some(to) = p.first() else { continue };
            if to == from || !top.contains(to.as_str()) {
                continue;
            }
            if table[to] >= table[from] {
                wrong.push(format!(
                    "{} (layer {}) uses {} (layer {})",
                    module.join("::"),
                    table[from],
                    p.join("::"),
                    table[to]
                ));
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(
        wrong.is_empty(),
        "imports from the same or a higher layer (docs/development.md, \"Layers\"):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_files_of_a_module_import_each_other_in_a_circle() {
    let files = crate_files();
    let known: BTreeSet<&ModPath> = files.keys().collect();
    let mut edges: BTreeMap<&ModPath, BTreeSet<&ModPath>> = BTreeMap::new();
    for (module, paths) in &files {
        let e = edges.entry(module).or_default();
        for p in paths {
            // The longest prefix that is a module file.
            let Some(target) = (1..=p.len())
                .rev()
                .find_map(|k| known.get(&p[..k].to_vec()).copied())
            else {
                continue;
            };
            // A module and its ancestors or descendants are one room, not a circle.
            if target.starts_with(module) || module.starts_with(target) {
                continue;
            }
            e.insert(target);
        }
    }
    // Tarjan's strongly connected components.
    struct State<'a> {
        edges: &'a BTreeMap<&'a ModPath, BTreeSet<&'a ModPath>>,
        index: BTreeMap<&'a ModPath, usize>,
        low: BTreeMap<&'a ModPath, usize>,
        stack: Vec<&'a ModPath>,
        on: BTreeSet<&'a ModPath>,
        circles: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a ModPath) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        for w in s.edges.get(v).into_iter().flatten() {
            if !s.index.contains_key(*w) {
                visit(s, w);
                let lw = s.low[*w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on.contains(*w) {
                let iw = s.index[*w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                comp.push(w.join("::"));
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.circles.push(comp);
            }
        }
    }
    let mut s = State {
        edges: &edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        circles: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(*v) {
            visit(&mut s, v);
        }
    }
    assert!(
        s.circles.is_empty(),
        "files that import each other in a circle: {:?}",
        s.circles
    );
}

#[test]
fn the_reader_resolves_paths_and_skips_tests_comments_and_strings() {
    let src = r#"
        use super::{a::B, c};
        use crate::{graph::Graph, sched::{plan::Plan, status}};
        // use crate::tui::App;
        /* crate::cli::run */
        const S: &str = "crate::tui";
        mod inner { use super::d::E; }
        mod child;
        #[cfg(test)]
        mod tests { use crate::cli::Args; }
        #[cfg(test)]
        mod fixture;
        fn f<'a>(x: &'a str) -> char { let _ = crate::render::json::write; 'x' }
    "#;
    let here: ModPath = vec!["sched".into(), "gang".into()];
    let p = parse(src, &here);
    let names: Vec<String> = p.paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        names,
        [
            "sched::a::B",
            "sched::c",
            "graph::Graph",
            "sched::plan::Plan",
            "sched::status",
            "sched::gang::d::E",
            "render::json::write",
        ]
    );
    assert_eq!(p.children, ["child"]);
    // A breach is caught: an upward import in the table's terms.
    let table: BTreeMap<&str, u32> = [("snapshot", 1), ("sched", 3)].into();
    let upward = parse("use crate::sched::plan::Plan;", &["snapshot".into()]);
    assert!(
        upward
            .paths
            .iter()
            .any(|p| table[p[0].as_str()] >= table["snapshot"])
    );
}

/// The longest a production function's body may be, in lines. A longer one does several
/// things: name its steps as functions of their own.
const MAX_FUNCTION_LINES: usize = 120;

/// The functions of `src` whose bodies run over `max` lines, as (name, first line, lines),
/// outside `#[cfg(test)]` items. A body counts from the line of its `{` to that of its `}`;
/// a declaration without a body (`fn f();`) has none.
fn long_functions(src: &str, max: usize) -> Vec<(String, usize, usize)> {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(src.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line = |offset: usize| starts.partition_point(|&s| s <= offset);
    let toks = tokens_at(src);
    let plain: Vec<Tok> = toks.iter().map(|(t, _)| t.clone()).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < plain.len() {
        if plain[i] == Tok::Punct('#') && plain.get(i + 1) == Some(&Tok::Punct('[')) {
            let (test, after) = test_attribute(&plain, i + 1);
            i = if test {
                let mut j = after;
                while plain.get(j) == Some(&Tok::Punct('#')) {
                    j = test_attribute(&plain, j + 1).1;
                }
                item_end(&plain, j)
            } else {
                after
            };
            continue;
        }
        if let (Some("fn"), Some(name)) = (ident(plain.get(i)), ident(plain.get(i + 1))) {
            // The body is the first `{` outside the signature's brackets, unless a `;` ends
            // the declaration first.
            let mut depth = 0i32;
            let mut j = i + 2;
            while j < plain.len() {
                match plain[j] {
                    Tok::Punct('(' | '[') => depth += 1,
                    Tok::Punct(')' | ']') => depth -= 1,
                    Tok::Punct('{' | ';') if depth == 0 => break,
                    _ => {}
                }
                j += 1;
            }
            if plain.get(j) == Some(&Tok::Punct('{')) {
                let end = item_end(&plain, j).saturating_sub(1);
                let (first, last) = (line(toks[j].1), line(toks[end.max(j)].1));
                if last - first + 1 > max {
                    out.push((name.to_owned(), first, last - first + 1));
                }
            }
        }
        i += 1;
    }
    out
}

#[test]
fn no_production_function_is_over_120_lines() {
    let mut long = Vec::new();
    for (_, file, _) in crate_walk() {
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file:?}: {e}"));
        let rel = file
            .strip_prefix(root())
            .unwrap_or(&file)
            .display()
            .to_string();
        for (name, at, lines) in long_functions(&text, MAX_FUNCTION_LINES) {
            long.push(format!("{rel}:{at} `{name}` ({lines} lines)"));
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines: split them into named steps:\n{}",
        long.join("\n")
    );
}

#[test]
fn the_length_check_counts_bodies_and_skips_tests_and_declarations() {
    let body = |n: usize| "    let _x = 1;\n".repeat(n);
    let src = format!(
        "trait T {{ fn declared(&self) -> u32; }}\n\
         fn short() {{\n{}}}\n\
         pub(crate) fn long<'a, T: Fn(u32) -> u32>(f: T, s: &'a str) -> &'a str\n\
         where\n    T: Copy,\n{{\n{}    s\n}}\n\
         // fn commented() {{ }}\n\
         #[cfg(test)]\n#[allow(dead_code)]\nfn long_test() {{\n{}}}\n\
         #[cfg(test)]\nmod tests {{ fn in_tests() {{\n{}}} }}\n",
        body(3),
        body(9),
        body(20),
        body(20)
    );
    // `long`'s body: `{`, nine lines, `s`, `}` = 12 lines.
    assert_eq!(
        long_functions(&src, 10),
        [("long".to_owned(), 10, 12)],
        "{src}"
    );
    assert!(long_functions(&src, 12).is_empty());
}
