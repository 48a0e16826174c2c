//! Every example output in README.md and the documentation under docs/ is produced by the
//! binary: a block introduced by `<!-- example: kubectl wasctl ARGS -->` must equal what
//! `kubectl-wasctl ARGS` prints on stdout. `WASCTL_UPDATE_README=1 cargo test --test cli readme`
//! rewrites the blocks.

use crate::support::{root, run};

/// One example: the command's arguments, and where its fenced block's body sits.
struct Example {
    args: Vec<String>,
    body_start: usize,
    body_end: usize,
}

fn examples(readme: &str) -> Vec<Example> {
    let lines: Vec<&str> = readme.split_inclusive('\n').collect();
    let mut offsets = Vec::with_capacity(lines.len() + 1);
    let mut at = 0;
    for l in &lines {
        offsets.push(at);
        at += l.len();
    }
    offsets.push(at);
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim();
        if let Some(cmd) = line
            .strip_prefix("<!-- example: kubectl wasctl ")
            .and_then(|r| r.strip_suffix("-->"))
        {
            assert!(
                lines.get(i + 1).is_some_and(|l| l.starts_with("```")),
                "README line {}: an example marker must be followed by a fenced block",
                i + 1
            );
            let start = i + 2;
            let end = (start..lines.len())
                .find(|j| lines[*j].trim_end() == "```")
                .unwrap_or_else(|| panic!("README line {}: unclosed block", i + 2));
            out.push(Example {
                args: cmd.split_whitespace().map(str::to_owned).collect(),
                body_start: offsets[start],
                body_end: offsets[end],
            });
            i = end + 1;
        } else {
            i += 1;
        }
    }
    out
}

/// README.md and every Markdown file under docs/, in path order.
fn documents() -> Vec<std::path::PathBuf> {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "md") {
                out.push(p);
            }
        }
    }
    let mut out = vec![root().join("README.md")];
    walk(&root().join("docs"), &mut out);
    out
}

#[test]
fn readme_example_outputs_are_what_the_commands_print() {
    let update = std::env::var_os("WASCTL_UPDATE_README").is_some();
    let mut total = 0;
    for path in documents() {
        let text = std::fs::read_to_string(&path).unwrap();
        let found = examples(&text);
        total += found.len();
        let mut updated = text.clone();
        // Replace from the end so earlier offsets stay valid.
        for e in found.iter().rev() {
            let args: Vec<&str> = e.args.iter().map(String::as_str).collect();
            let r = run(&args);
            assert!(
                r.code == 0 || r.code == 1,
                "{}: `kubectl wasctl {}` failed: {}",
                path.display(),
                e.args.join(" "),
                r.stderr
            );
            let shown = &text[e.body_start..e.body_end];
            if update {
                updated.replace_range(e.body_start..e.body_end, &r.stdout);
            } else {
                assert_eq!(
                    shown,
                    r.stdout,
                    "{}: the output of `kubectl wasctl {}` is stale (run with WASCTL_UPDATE_README=1 to refresh)",
                    path.display(),
                    e.args.join(" ")
                );
            }
        }
        if update && updated != text {
            std::fs::write(&path, updated).unwrap();
        }
    }
    assert!(total >= 10, "the documentation has {total} examples");
}

#[test]
fn readme_stays_a_front_door() {
    // The README orients; the guide under docs/ teaches. Its links stay inside the repository
    // (or go to public URLs), and every relative link resolves.
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines <= 300, "README.md has {lines} lines (at most 300)");
    for path in documents() {
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            !text.contains("../shared/"),
            "{} links outside the repository",
            path.display()
        );
        let dir = path.parent().unwrap();
        let mut rest = text.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let Some(end) = rest.find(')') else { break };
            let target = &rest[..end];
            let target = target.split('#').next().unwrap_or("");
            if target.is_empty() || target.contains("://") || target.contains(' ') {
                continue;
            }
            assert!(
                dir.join(target).exists(),
                "{}: the link `{target}` resolves to nothing",
                path.display()
            );
        }
    }
}
