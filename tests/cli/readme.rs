//! Every example output in README.md is produced by the binary: a block introduced by
//! `<!-- example: kubectl wasctl ARGS -->` must equal what `kubectl-wasctl ARGS` prints on
//! stdout. `WASCTL_UPDATE_README=1 cargo test --test cli readme` rewrites the blocks.

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

#[test]
fn readme_example_outputs_are_what_the_commands_print() {
    let path = root().join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let found = examples(&readme);
    assert!(found.len() >= 6, "README has {} examples", found.len());
    let update = std::env::var_os("WASCTL_UPDATE_README").is_some();
    let mut updated = readme.clone();
    // Replace from the end so earlier offsets stay valid.
    for e in found.iter().rev() {
        let args: Vec<&str> = e.args.iter().map(String::as_str).collect();
        let r = run(&args);
        assert!(
            r.code == 0 || r.code == 1,
            "`kubectl wasctl {}` failed: {}",
            e.args.join(" "),
            r.stderr
        );
        let shown = &readme[e.body_start..e.body_end];
        if update {
            updated.replace_range(e.body_start..e.body_end, &r.stdout);
        } else {
            assert_eq!(
                shown,
                r.stdout,
                "README's output of `kubectl wasctl {}` is stale (run with WASCTL_UPDATE_README=1 to refresh)",
                e.args.join(" ")
            );
        }
    }
    if update && updated != readme {
        std::fs::write(&path, updated).unwrap();
    }
}
