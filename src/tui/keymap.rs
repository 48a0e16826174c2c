//! The key map, k9s-style: the keys every view shares, and each view's own. `?` shows both
//! for the current view; the key table of docs/guide/tui.md is this table.

/// A key and what it does.
pub type Binding = (&'static str, &'static str);

/// Keys that work in every view.
pub const GLOBAL: &[Binding] = &[
    (
        ":",
        "command prompt (Tab completes): tree, pending, nodes, doctor, ns NAME, ctx NAME, add FILE, help, quit",
    ),
    ("/", "filter rows by name (Enter keeps it, Esc clears it)"),
    ("Enter", "drill in"),
    ("Esc", "back (clears the filter first)"),
    (
        "Tab / Shift-Tab",
        "next / previous view: tree, pending, nodes, doctor",
    ),
    ("j k ↓ ↑", "move down / up (mouse: scroll, click selects)"),
    ("g G", "first / last row"),
    ("PgDn PgUp", "page down / up"),
    ("y", "the selected object's YAML"),
    ("e", "explain the selected object"),
    ("u", "undo the last what-if"),
    ("?", "this help"),
    ("q Ctrl-C", "quit"),
];

/// The tree view's keys.
pub const TREE: &[Binding] = &[
    ("space l →", "expand (space toggles)"),
    ("h ←", "collapse, or go to the parent"),
    ("p", "jump to the parent"),
    ("Enter", "explain the selected Workload, group or pod"),
];

/// The pending view's keys.
pub const PENDING: &[Binding] = &[
    ("Enter e", "explain the selected unit"),
    ("x", "what-if: simulate without preemption (toggle)"),
];

/// The explain view's keys.
pub const EXPLAIN: &[Binding] = &[("j k g G PgDn PgUp", "scroll")];

/// The doctor view's keys.
pub const DOCTOR: &[Binding] = &[("Enter", "jump to the finding's object in the tree")];

/// The nodes view's keys.
pub const NODES: &[Binding] = &[
    ("t", "next topology key to group nodes by"),
    ("d", "what-if: drain the selected node (toggle)"),
    ("c", "what-if: cordon the selected node (toggle)"),
    ("Enter", "the node's pods, gangs and claims (below)"),
];

/// The YAML view's keys.
pub const YAML: &[Binding] = &[("j k g G PgDn PgUp", "scroll")];

/// The commands of the `:` prompt, for completion.
pub const COMMANDS: &[&str] = &[
    "tree", "pending", "nodes", "doctor", "ns", "ctx", "add", "help", "quit",
];

/// Completes a `:` prompt: the commands starting with the typed word, or (after `ns `) the
/// namespaces starting with the typed name.
pub fn complete(input: &str, namespaces: &[String]) -> Vec<String> {
    match input.split_once(' ') {
        None => COMMANDS
            .iter()
            .filter(|c| c.starts_with(input))
            .map(|c| (*c).to_owned())
            .collect(),
        Some(("ns", prefix)) => std::iter::once("all")
            .chain(namespaces.iter().map(String::as_str))
            .filter(|n| n.starts_with(prefix))
            .map(|n| format!("ns {n}"))
            .collect(),
        Some(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completes_commands_and_namespaces() {
        assert_eq!(complete("pe", &[]), ["pending"]);
        assert_eq!(complete("n", &[]), ["nodes", "ns"]);
        let ns = vec!["ml".to_owned(), "research".to_owned()];
        assert_eq!(complete("ns r", &ns), ["ns research"]);
        assert_eq!(complete("ns ", &ns), ["ns all", "ns ml", "ns research"]);
        assert!(complete("zzz", &ns).is_empty());
    }
}
