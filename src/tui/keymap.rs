//! The screen registry and the key map, k9s-style: one table ([`SCREENS`]) says, per screen,
//! its name, the `:` commands that open it, whether Tab cycles through it, its own keys and its
//! line in the help. The app dispatches from it, `?` shows the current screen's keys and the
//! keys every view shares ([`GLOBAL`]), and a test checks the key table of docs/guide/tui.md
//! against it.

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

/// The `:` commands that are not screens.
pub(crate) const OTHER_COMMANDS: &[&str] = &["ns", "ctx", "add", "help", "quit"];

/// Keys that work in every view.
pub(crate) const GLOBAL: &[Binding] = &[
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
    ("Ctrl-R", "reload the cluster (live mode)"),
    ("?", "this help"),
    ("q Ctrl-C", "quit"),
];

/// The tree view's keys.
pub(crate) const TREE: &[Binding] = &[
    ("space l →", "expand (space toggles)"),
    ("h ←", "collapse, or go to the parent"),
    ("p", "jump to the parent"),
    ("Enter", "explain the selected Workload, group or pod"),
];

/// The pending view's keys.
pub(crate) const PENDING: &[Binding] = &[
    ("Enter e", "explain the selected unit"),
    ("x", "what-if: simulate without preemption (toggle)"),
];

/// The explain view's keys.
pub(crate) const EXPLAIN: &[Binding] = &[("j k g G PgDn PgUp", "scroll")];

/// The doctor view's keys.
pub(crate) const DOCTOR: &[Binding] = &[("Enter", "jump to the finding's object in the tree")];

/// The nodes view's keys.
pub(crate) const NODES: &[Binding] = &[
    ("t", "next topology key to group nodes by"),
    ("d", "what-if: drain the selected node (toggle)"),
    ("c", "what-if: cordon the selected node (toggle)"),
    ("Enter", "the node's pods, gangs and claims (below)"),
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
            .filter(|c| c.starts_with(input))
            .map(str::to_owned)
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
