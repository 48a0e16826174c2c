//! The screen registry and the key map, k9s-style: one table ([`SCREENS`]) says, per screen,
//! its name, the `:` commands that open it, whether Tab cycles through it, its own keys and its
//! line in the help. The app dispatches from it, `?` shows the current screen's keys and the
//! keys every view shares ([`GLOBAL`]), and a test checks the key table of docs/guide/tui.md
//! against it.

use crate::snapshot::ObjKind;

/// A key and what it does.
pub(crate) type Binding = (&'static str, &'static str);

/// The screens. The main ones (Tab cycles through them) come first, in [`SCREENS`] order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Screen {
    /// The object tree.
    Tree,
    /// Units the simulator did not place.
    Pending,
    /// Nodes by topology domain.
    Nodes,
    /// Doctor findings.
    Doctor,
    /// One object's diagnosis.
    Explain,
    /// One object's YAML.
    Yaml,
    /// Kueue's ClusterQueues and LocalQueues (`:cq`, `:lq`).
    Queues,
}

/// One screen's entry in the registry.
#[derive(Debug)]
pub(crate) struct ScreenSpec {
    /// The screen this entry describes (each appears once in [`SCREENS`]).
    pub screen: Screen,
    /// Its name: the tab label, the help title and its `:` command.
    pub name: &'static str,
    /// Other `:` commands that open it.
    pub aliases: &'static [&'static str],
    /// Whether Tab cycles through it and the tab bar always shows it; the others open from a
    /// selected object (`e`, `y`, Enter) and show while they are current.
    pub main: bool,
    /// What it shows, for the help.
    pub about: &'static str,
    /// Its own keys.
    pub keys: &'static [Binding],
}

/// The registry: every screen, main ones first in Tab order.
pub(crate) const SCREENS: &[ScreenSpec] = &[
    ScreenSpec {
        screen: Screen::Tree,
        name: "tree",
        aliases: &[],
        main: true,
        about: "Workload → CompositePodGroup → PodGroup → Pod → ResourceClaim, with the simulated outcome",
        keys: TREE,
    },
    ScreenSpec {
        screen: Screen::Pending,
        name: "pending",
        aliases: &["plan"],
        main: true,
        about: "the units the simulator did not place, or placed by preempting",
        keys: PENDING,
    },
    ScreenSpec {
        screen: Screen::Nodes,
        name: "nodes",
        aliases: &["no"],
        main: true,
        about: "nodes by topology domain, with their usage",
        keys: NODES,
    },
    ScreenSpec {
        screen: Screen::Doctor,
        name: "doctor",
        aliases: &[],
        main: true,
        about: "doctor's findings by severity",
        keys: DOCTOR,
    },
    ScreenSpec {
        screen: Screen::Queues,
        name: "queues",
        aliases: &[],
        main: false,
        about: "Kueue's ClusterQueues or LocalQueues (`:cq`, `:lq`), with what the plan admits",
        keys: QUEUES,
    },
    ScreenSpec {
        screen: Screen::Explain,
        name: "explain",
        aliases: &[],
        main: false,
        about: "one object's diagnosis (`e` or Enter on it)",
        keys: EXPLAIN,
    },
    ScreenSpec {
        screen: Screen::Yaml,
        name: "yaml",
        aliases: &[],
        main: false,
        about: "one object's YAML (`y` on it)",
        keys: YAML,
    },
];

impl Screen {
    /// The screen's registry entry.
    pub(crate) fn spec(self) -> &'static ScreenSpec {
        SCREENS
            .iter()
            .find(|s| s.screen == self)
            .unwrap_or(&SCREENS[0])
    }

    /// The screen's name.
    pub(crate) fn name(self) -> &'static str {
        self.spec().name
    }

    /// The main screens, in Tab order.
    pub(crate) fn main() -> impl Iterator<Item = Screen> {
        SCREENS.iter().filter(|s| s.main).map(|s| s.screen)
    }

    /// The main screen a `:` command opens.
    pub(crate) fn by_command(cmd: &str) -> Option<Screen> {
        SCREENS
            .iter()
            .find(|s| s.main && (s.name == cmd || s.aliases.contains(&cmd)))
            .map(|s| s.screen)
    }
}

/// One kind's `:` aliases (k9s's resource aliases) and the screen that lists it.
#[derive(Debug)]
pub(crate) struct KindSpec {
    /// The kind.
    pub kind: ObjKind,
    /// Its `:` commands: kubectl's plural and short names, as the commands' `TYPE/NAME`
    /// takes them (a test checks each names this kind there).
    pub aliases: &'static [&'static str],
    /// The screen that lists it: the tree shows the kind alone as a flat list; nodes and
    /// queues have screens of their own.
    pub screen: Screen,
}

/// Every kind the TUI lists, with its aliases: the one table `:` reads.
pub(crate) const KINDS: &[KindSpec] = &[
    KindSpec {
        kind: ObjKind::Workload,
        aliases: &["workloads", "wl"],
        screen: Screen::Tree,
    },
    KindSpec {
        kind: ObjKind::CompositePodGroup,
        aliases: &["compositepodgroups", "cpg"],
        screen: Screen::Tree,
    },
    KindSpec {
        kind: ObjKind::PodGroup,
        aliases: &["podgroups", "pg"],
        screen: Screen::Tree,
    },
    KindSpec {
        kind: ObjKind::VolcanoPodGroup,
        aliases: &["vcpg", "vcpgs"],
        screen: Screen::Tree,
    },
    KindSpec {
        kind: ObjKind::YunikornTaskGroup,
        aliases: &["tg", "taskgroups"],
        screen: Screen::Tree,
    },
    KindSpec {
        kind: ObjKind::Pod,
        aliases: &["pods", "po"],
        screen: Screen::Tree,
    },
    KindSpec {
        kind: ObjKind::ResourceClaim,
        aliases: &["claims", "resourceclaims"],
        screen: Screen::Tree,
    },
    KindSpec {
        kind: ObjKind::Job,
        aliases: &["jobs"],
        screen: Screen::Tree,
    },
    KindSpec {
        kind: ObjKind::Node,
        aliases: &["nodes", "no"],
        screen: Screen::Nodes,
    },
    KindSpec {
        kind: ObjKind::KueueWorkload,
        aliases: &["kwl", "workloads.kueue.x-k8s.io"],
        screen: Screen::Tree,
    },
    KindSpec {
        kind: ObjKind::ClusterQueue,
        aliases: &["cq", "clusterqueues"],
        screen: Screen::Queues,
    },
    KindSpec {
        kind: ObjKind::LocalQueue,
        aliases: &["lq", "localqueues"],
        screen: Screen::Queues,
    },
];

/// The kind a `:` command names, with the screen that lists it.
pub(crate) fn kind_by_command(cmd: &str) -> Option<&'static KindSpec> {
    KINDS.iter().find(|k| k.aliases.contains(&cmd))
}

/// The `:` commands that are not screens.
pub(crate) const OTHER_COMMANDS: &[&str] = &["ns", "ctx", "add", "help", "quit"];

/// Keys that work in every view.
pub(crate) const GLOBAL: &[Binding] = &[
    (
        ":",
        "command prompt (Tab completes): tree, pending, nodes, doctor, ns NAME, ctx NAME, add FILE, help, quit",
    ),
    (
        ":KIND",
        "list one kind: pg, cpg, wl, pods, claims, jobs, nodes, kwl, cq, lq, vcpg, tg (kubectl's names)",
    ),
    (
        "Shift-letter",
        "sort by a column (each view's letters below; again reverses; the header shows ↑ ↓)",
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
    ("Ctrl-R", "reload the cluster (live mode)"),
    ("?", "this help"),
    ("q Ctrl-C", "quit"),
];

/// The tree view's keys.
pub(crate) const TREE: &[Binding] = &[
    (
        "N E S L P O I A",
        "sort by NAME, NAMESPACE, STATUS, POLICY, PRIORITY, NODE, SIMULATED, AGE",
    ),
    ("space l →", "expand (space toggles)"),
    ("h ←", "collapse, or go to the parent"),
    ("p", "jump to the parent"),
    ("Enter", "explain the selected Workload, group or pod"),
];

/// The pending view's keys.
pub(crate) const PENDING: &[Binding] = &[
    (
        "C E N O A L M V W",
        "sort by CHANGE, NAMESPACE, UNIT, OUTCOME, ADMISSION, PLACED, MIN, VICTIMS, WHY",
    ),
    ("Enter e", "explain the selected unit"),
    ("x", "what-if: simulate without preemption (toggle)"),
];

/// The explain view's keys.
pub(crate) const EXPLAIN: &[Binding] = &[("j k g G PgDn PgUp", "scroll")];

/// The doctor view's keys.
pub(crate) const DOCTOR: &[Binding] = &[
    (
        "I N M",
        "sort by ID, OBJECT, MESSAGE (within each severity)",
    ),
    (
        "Enter",
        "go to the finding's object: the tree, the nodes view, else its YAML",
    ),
];

/// The nodes view's keys.
pub(crate) const NODES: &[Binding] = &[
    (
        "N S C M U D P L",
        "sort by NAME, STATE, CPU, MEMORY, GPU, DEVICES, PODS, PLAN (within each domain)",
    ),
    ("t", "next topology key to group nodes by"),
    ("d", "what-if: drain the selected node (toggle)"),
    ("c", "what-if: cordon the selected node (toggle)"),
    ("Enter", "the node's pods, gangs and claims (below)"),
];

/// The queues view's keys.
pub(crate) const QUEUES: &[Binding] = &[
    (
        "N E Q A W",
        "sort by NAME, NAMESPACE, QUEUE, ADMITTED, WAITING",
    ),
    ("Enter", "the queue's quota per flavor and resource (below)"),
    ("y", "the queue's YAML"),
];

/// The YAML view's keys.
pub(crate) const YAML: &[Binding] = &[("j k g G PgDn PgUp", "scroll")];

/// The key table of docs/guide/tui.md: the keys every view shares, then each screen's own, in
/// registry order (a test keeps the guide equal to it).
#[cfg(test)]
pub(crate) fn markdown_table() -> String {
    let mut out = String::from("| key | in | does |\n|---|---|---|\n");
    let rows = GLOBAL.iter().map(|b| ("every view", b)).chain(
        SCREENS
            .iter()
            .flat_map(|s| s.keys.iter().map(|b| (s.name, b))),
    );
    for (screen, (key, does)) in rows {
        out.push_str(&format!("| `{key}` | {screen} | {does} |\n"));
    }
    out
}

/// The commands of the `:` prompt, for completion: the main screens' names, then the others.
pub(crate) fn commands() -> Vec<&'static str> {
    SCREENS
        .iter()
        .filter(|s| s.main)
        .map(|s| s.name)
        .chain(OTHER_COMMANDS.iter().copied())
        .collect()
}

/// Completes a `:` prompt: the commands starting with the typed word, or (after `ns `) the
/// namespaces starting with the typed name.
pub(crate) fn complete(input: &str, namespaces: &[String]) -> Vec<String> {
    match input.split_once(' ') {
        None => commands()
            .into_iter()
            .chain(KINDS.iter().flat_map(|k| k.aliases.iter().copied()))
            .filter(|c| c.starts_with(input))
            .fold(Vec::new(), |mut out: Vec<String>, c| {
                if !out.iter().any(|o| o == c) {
                    out.push(c.to_owned());
                }
                out
            }),
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
        assert_eq!(complete("n", &[]), ["nodes", "ns", "no"]);
        assert_eq!(complete("kw", &[]), ["kwl"]);
        let ns = vec!["ml".to_owned(), "research".to_owned()];
        assert_eq!(complete("ns r", &ns), ["ns research"]);
        assert_eq!(complete("ns ", &ns), ["ns all", "ns ml", "ns research"]);
        assert!(complete("zzz", &ns).is_empty());
    }

    #[test]
    fn the_registry_names_every_screen_once_and_the_global_help_lists_the_main_ones() {
        for (i, s) in SCREENS.iter().enumerate() {
            assert_eq!(s.screen.spec().name, s.name);
            assert!(
                SCREENS[..i]
                    .iter()
                    .all(|o| o.screen != s.screen && o.name != s.name),
                "{} twice",
                s.name
            );
            for a in s.aliases {
                assert!(!OTHER_COMMANDS.contains(a), "alias `{a}` is a command");
            }
        }
        // Main screens first, so Tab order is registry order.
        let first_other = SCREENS
            .iter()
            .position(|s| !s.main)
            .unwrap_or(SCREENS.len());
        assert!(SCREENS[first_other..].iter().all(|s| !s.main));
        let main: Vec<&str> = Screen::main().map(Screen::name).collect();
        let listed = |key: &str| GLOBAL.iter().find(|(k, _)| *k == key).map(|(_, d)| *d);
        let prompt = listed(":").unwrap_or_default();
        let named: Vec<&str> = prompt
            .split_once(": ")
            .map_or("", |(_, l)| l)
            .split(", ")
            .map(|c| c.split(' ').next().unwrap_or(c))
            .collect();
        assert_eq!(named, commands());
        assert!(listed("Tab / Shift-Tab").is_some_and(|d| d.contains(&main.join(", "))));
        assert_eq!(Screen::by_command("plan"), Some(Screen::Pending));
        assert_eq!(Screen::by_command("explain"), None);
    }

    // Every `:` alias of a kind names that kind as the commands' `TYPE/NAME` does (kubectl's
    // names; Kueue's short names from its CRDs), and none is taken by a screen or a command.
    #[test]
    fn kind_aliases_are_the_commands_type_names() {
        for k in KINDS {
            assert!(!k.aliases.is_empty(), "{} has no alias", k.kind);
            for a in k.aliases {
                assert_eq!(
                    crate::cli::parse_type(a),
                    Some(k.kind.clone()),
                    "`:{a}` names {} in the TUI but not in the commands",
                    k.kind
                );
                assert!(!OTHER_COMMANDS.contains(a), "alias `{a}` is a command");
                if let Some(s) = Screen::by_command(a) {
                    assert_eq!(s, k.screen, "`:{a}` opens two screens");
                }
            }
            assert!(
                KINDS.iter().filter(|o| o.kind == k.kind).count() == 1,
                "{} twice",
                k.kind
            );
        }
        for a in ["pg", "pods", "nodes", "claims", "kwl", "cq", "lq"] {
            assert!(kind_by_command(a).is_some(), "`:{a}` (issue 51)");
        }
        let listed = GLOBAL
            .iter()
            .find(|(k, _)| *k == ":KIND")
            .map_or("", |(_, d)| *d);
        for k in KINDS {
            assert!(
                k.aliases
                    .iter()
                    .any(|a| listed.contains(&format!(" {a},"))
                        || listed.contains(&format!(" {a} "))),
                "the help's `:KIND` line names no alias of {}",
                k.kind
            );
        }
    }

    // Each view's help line of sort keys lists its columns' keys and titles, in order.
    #[test]
    fn the_sort_keys_in_the_help_are_the_columns() {
        use crate::tui::views::{doctor, nodes, pending, queues, tree};
        use crate::tui::widgets::Column;
        let cases: [(&[Binding], &[Column]); 5] = [
            (TREE, &tree::COLUMNS),
            (PENDING, &pending::COLUMNS),
            (NODES, &nodes::COLUMNS),
            (DOCTOR, &doctor::COLUMNS),
            (QUEUES, &queues::COLUMNS),
        ];
        for (keys, columns) in cases {
            let (letters, does) = keys[0];
            let want: Vec<String> = columns
                .iter()
                .filter_map(|c| c.sort.map(|k| k.to_string()))
                .collect();
            assert_eq!(letters, want.join(" "));
            let titles: Vec<&str> = columns.iter().map(|c| c.title).collect();
            assert!(
                does.contains(&titles.join(", ")),
                "{does} should name {titles:?}"
            );
            // Never `G` (last row) nor a letter twice.
            assert!(!want.contains(&"G".to_owned()));
            let mut dedup = want.clone();
            dedup.sort();
            dedup.dedup();
            assert_eq!(dedup.len(), want.len(), "{letters}");
        }
    }

    // docs/guide/tui.md documents each view's column drop order as the columns define it.
    #[test]
    fn the_guide_documents_the_drop_order() {
        use crate::tui::views::{doctor, nodes, pending, queues, tree};
        use crate::tui::widgets::drop_order;
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/guide/tui.md");
        let guide = std::fs::read_to_string(path).unwrap_or_default();
        for (view, columns) in [
            ("tree", &tree::COLUMNS[..]),
            ("pending", &pending::COLUMNS[..]),
            ("nodes", &nodes::COLUMNS[..]),
            ("doctor", &doctor::COLUMNS[..]),
            ("queues", &queues::COLUMNS[..]),
        ] {
            let line = format!("| {view} | {} |", drop_order(columns));
            assert!(
                guide.contains(&line),
                "docs/guide/tui.md should have the row:\n{line}"
            );
        }
    }

    #[test]
    fn the_guide_key_table_is_the_registry() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/guide/tui.md");
        let guide = std::fs::read_to_string(path).unwrap_or_default();
        let table = markdown_table();
        assert!(
            guide.contains(&table),
            "docs/guide/tui.md's key table differs from the registry (src/tui/keymap.rs); it should read:\n{table}"
        );
    }
}
