//! Drift checks for the shipped files (style §3.5 item 7): completions and the man pages match
//! `generate --check`, `krew-manifest.yaml` passes krew's rules, `packaging/release.sh` packs a usable archive, and `packaging/rbac.yaml`
//! grants exactly what wasctl requests from a (fake) cluster.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::fake_apiserver::{FakeApiServer, FakeConfig};
use crate::support::{demo_objects, root, run, run_cmd, wasctl};

/// The five krew platforms wasctl ships, as `(os, arch)`.
const PLATFORMS: [(&str, &str); 5] = [
    ("linux", "amd64"),
    ("linux", "arm64"),
    ("darwin", "amd64"),
    ("darwin", "arm64"),
    ("windows", "amd64"),
];

fn read_yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

// ---------------------------------------------------------------------------------------------
// Completions and man page

#[test]
fn committed_completions_and_man_page_are_up_to_date() {
    for what in ["completions", "man"] {
        let r = run(&["generate", what, "--check"]);
        assert_eq!(r.code, 0, "`generate {what} --check`:\n{}", r.transcript());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(root().join("completions/kubectl_complete-wasctl"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o111, 0o111, "kubectl_complete-wasctl is executable");
    }
}

#[test]
fn drift_exits_1_naming_the_file_and_the_command() {
    let cases = [
        ("completions", "_kubectl-wasctl"),
        ("completions", "kubectl_complete-wasctl"),
        ("man", "kubectl-wasctl.1"),
    ];
    for (what, file) in cases {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        let written = run(&["generate", what, "--dir", d]);
        assert_eq!(written.code, 0, "{}", written.transcript());
        let clean = run(&["generate", what, "--check", "--dir", d]);
        assert_eq!(clean.code, 0, "{}", clean.transcript());

        let path = dir.path().join(file);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("# edited by hand\n");
        std::fs::write(&path, text).unwrap();
        let r = run(&["generate", what, "--check", "--dir", d]);
        assert_eq!(r.code, 1, "{}", r.transcript());
        assert!(
            r.stderr.contains(&format!("`{}` differs", path.display())),
            "{}",
            r.stderr
        );
        assert!(
            r.stderr.contains(&format!(
                "hint: regenerate with `cargo run --locked -- generate {what} --dir {d}`"
            )),
            "{}",
            r.stderr
        );
        assert!(r.stderr.contains("+ (end of file)"), "{}", r.stderr);

        std::fs::remove_file(&path).unwrap();
        let r = run(&["generate", what, "--check", "--dir", d]);
        assert_eq!(r.code, 1, "a missing file is drift: {}", r.transcript());
        assert!(r.stderr.contains(file), "{}", r.stderr);
    }
}

// ---------------------------------------------------------------------------------------------
// krew manifest

/// The rules `validate-krew-manifest` (krew-index) enforces, plus wasctl's own: every problem
/// found. `placeholders` says whether `uri`/`sha256` are release.sh's placeholders (the
/// committed file) or real values (a rendered one).
fn krew_problems(m: &Value, placeholders: bool) -> Vec<String> {
    let mut problems = Vec::new();
    let mut check = |ok: bool, what: String| {
        if !ok {
            problems.push(what);
        }
    };
    check(
        m["apiVersion"] == "krew.googlecontainertools.github.com/v1alpha2",
        format!("apiVersion is {}", m["apiVersion"]),
    );
    check(m["kind"] == "Plugin", format!("kind is {}", m["kind"]));
    check(
        m["metadata"]["name"] == "wasctl",
        "metadata.name is not `wasctl` (the plugin is `kubectl-wasctl`)".to_owned(),
    );
    let spec = &m["spec"];
    let version = spec["version"].as_str().unwrap_or_default();
    check(
        is_semver_with_v(version),
        format!("version `{version}` is not semver with a leading `v`"),
    );
    check(
        version == format!("v{}", env!("CARGO_PKG_VERSION")),
        format!("version `{version}` is not Cargo.toml's"),
    );
    let homepage = spec["homepage"].as_str().unwrap_or_default();
    check(
        homepage.starts_with("https://"),
        format!("homepage `{homepage}`"),
    );
    let short = spec["shortDescription"].as_str().unwrap_or_default();
    check(
        !short.is_empty() && short.chars().count() <= 50,
        format!("shortDescription has {} chars", short.chars().count()),
    );
    check(
        !short.ends_with('.'),
        "shortDescription ends with a period".to_owned(),
    );
    let description = spec["description"].as_str().unwrap_or_default();
    check(!description.is_empty(), "no description".to_owned());
    for line in description
        .lines()
        .chain(spec["caveats"].as_str().unwrap_or_default().lines())
    {
        check(
            line.chars().count() <= 80,
            format!("line longer than 80 columns: `{line}`"),
        );
    }
    let platforms = spec["platforms"].as_array().cloned().unwrap_or_default();
    check(!platforms.is_empty(), "no platforms".to_owned());
    let mut selectors: Vec<BTreeMap<String, String>> = Vec::new();
    for (i, p) in platforms.iter().enumerate() {
        let labels: BTreeMap<String, String> = p["selector"]["matchLabels"]
            .as_object()
            .map(|o| {
                o.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                    .collect()
            })
            .unwrap_or_default();
        check(!labels.is_empty(), format!("platform {i} has no selector"));
        let (os, arch) = (
            labels.get("os").cloned().unwrap_or_default(),
            labels.get("arch").cloned().unwrap_or_default(),
        );
        let key = format!("{os}_{arch}").to_uppercase();
        let uri = p["uri"].as_str().unwrap_or_default();
        let sha = p["sha256"].as_str().unwrap_or_default();
        if placeholders {
            check(
                uri == format!("URI_{key}"),
                format!("{os}/{arch} uri `{uri}`"),
            );
            check(
                sha == format!("SHA256_{key}"),
                format!("{os}/{arch} sha256 `{sha}`"),
            );
        } else {
            check(
                uri.starts_with("https://") || uri.starts_with("http://"),
                format!("{os}/{arch} uri `{uri}`"),
            );
            check(
                sha.len() == 64 && sha.chars().all(|c| c.is_ascii_hexdigit()),
                format!("{os}/{arch} sha256 `{sha}`"),
            );
            let ext = if os == "windows" { ".zip" } else { ".tar.gz" };
            check(uri.ends_with(ext), format!("{os}/{arch} uri `{uri}`"));
        }
        let bin = p["bin"].as_str().unwrap_or_default();
        let want_bin = if os == "windows" {
            "kubectl-wasctl.exe"
        } else {
            "kubectl-wasctl"
        };
        check(bin == want_bin, format!("{os}/{arch} bin `{bin}`"));
        let from: BTreeSet<&str> = p["files"]
            .as_array()
            .map(|f| f.iter().filter_map(|f| f["from"].as_str()).collect())
            .unwrap_or_default();
        check(
            from.contains("LICENSE") && from.contains(bin),
            format!("{os}/{arch} files {from:?} lack LICENSE or `{bin}`"),
        );
        selectors.push(labels);
    }
    // Two matchLabels selectors overlap when some label set satisfies both: they agree on
    // every key they share.
    for (i, a) in selectors.iter().enumerate() {
        for b in &selectors[i + 1..] {
            let disjoint = a.iter().any(|(k, v)| b.get(k).is_some_and(|w| w != v));
            check(disjoint, format!("selectors {a:?} and {b:?} overlap"));
        }
    }
    problems
}

/// `vMAJOR.MINOR.PATCH` with an optional `-pre` and `+build`.
fn is_semver_with_v(v: &str) -> bool {
    let Some(rest) = v.strip_prefix('v') else {
        return false;
    };
    let core = rest.split(['-', '+']).next().unwrap_or_default();
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.chars().all(|c| c.is_ascii_digit())
                && (p.len() == 1 || !p.starts_with('0'))
        })
}

fn platforms_of(m: &Value) -> BTreeSet<(String, String)> {
    m["spec"]["platforms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let l = &p["selector"]["matchLabels"];
            (
                l["os"].as_str().unwrap().to_owned(),
                l["arch"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn krew_manifest_is_valid() {
    let m = read_yaml(&root().join("krew-manifest.yaml"));
    assert_eq!(krew_problems(&m, true), Vec::<String>::new());
    let expected: BTreeSet<(String, String)> = PLATFORMS
        .iter()
        .map(|(o, a)| ((*o).to_owned(), (*a).to_owned()))
        .collect();
    assert_eq!(platforms_of(&m), expected);
    let caveats = m["spec"]["caveats"].as_str().unwrap();
    assert!(caveats.contains("GenericWorkload"), "{caveats}");
    assert!(caveats.contains("packaging/rbac.yaml"), "{caveats}");

    // The description names every command.
    use clap::CommandFactory as _;
    let description = m["spec"]["description"].as_str().unwrap();
    for sub in wasctl::cli::Cli::command().get_subcommands() {
        if !sub.is_hide_set() {
            assert!(
                description.contains(&format!("kubectl wasctl {} ", sub.get_name())),
                "the description does not name `{}`",
                sub.get_name()
            );
        }
    }
    // The caveats, the install guide's Permissions section and the ClusterRole name the same
    // verbs.
    let readme = std::fs::read_to_string(root().join("docs/guide/install.md")).unwrap();
    let start = readme.find("## Permissions").unwrap();
    let end = readme[start..]
        .find("\n## ")
        .map_or(readme.len(), |e| start + e);
    let role = read_yaml(&root().join("packaging/rbac.yaml"));
    let granted: BTreeSet<String> = role["rules"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| strings(&r["verbs"]))
        .collect();
    assert_eq!(verbs_in(caveats), granted, "krew caveats");
    // README's prose (its code blocks hold the user's `kubectl create` commands).
    let mut prose = String::new();
    let mut in_code = false;
    for line in readme[start..end].lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        } else if !in_code {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    assert_eq!(
        verbs_in(&prose),
        granted,
        "docs/guide/install.md Permissions"
    );
}

/// The RBAC verbs a text names.
fn verbs_in(text: &str) -> BTreeSet<String> {
    let verbs = [
        "get", "list", "watch", "create", "update", "patch", "delete",
    ];
    text.split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| verbs.contains(w))
        .map(str::to_owned)
        .collect()
}

#[test]
fn krew_validation_catches_broken_manifests() {
    let good = read_yaml(&root().join("krew-manifest.yaml"));
    let breakages: [(&str, Value); 6] = [
        ("/spec/version", json!("0.1.0")),
        (
            "/spec/shortDescription",
            json!("Explain Workload-Aware Scheduling."),
        ),
        (
            "/spec/shortDescription",
            json!("Explain Workload-Aware Scheduling, gangs and DRA claims"),
        ),
        ("/spec/description", json!(format!("{}\n", "x".repeat(81)))),
        (
            "/spec/platforms/1/selector/matchLabels",
            json!({"os": "linux"}),
        ),
        (
            "/spec/platforms/4/files",
            json!([{"from": "kubectl-wasctl.exe", "to": "."}]),
        ),
    ];
    for (pointer, value) in breakages {
        let mut bad = good.clone();
        *bad.pointer_mut(pointer).unwrap() = value.clone();
        assert!(
            !krew_problems(&bad, true).is_empty(),
            "{pointer} = {value} passes"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// release.sh

fn sha256_of(path: &Path) -> String {
    let out = Command::new("sha256sum").arg(path).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned()
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[test]
fn release_script_packs_the_host_target() {
    let dist = tempfile::tempdir().unwrap();
    let out = Command::new("bash")
        .arg(root().join("packaging/release.sh"))
        .args(["x86_64-unknown-linux-gnu", "aarch64-apple-darwin"])
        .current_dir(root())
        .env("DIST_DIR", dist.path())
        .env("WASCTL_RELEASE_PROFILE", "debug")
        .env(
            "WASCTL_RELEASE_PREBUILT",
            env!("CARGO_BIN_EXE_kubectl-wasctl"),
        )
        .env(
            "WASCTL_RELEASE_URL",
            "https://example.test/releases/v0.1.0/",
        )
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "release.sh failed:\n{stderr}");

    let version = env!("CARGO_PKG_VERSION");
    let name = format!("kubectl-wasctl_{version}_linux_amd64.tar.gz");
    let archive = dist.path().join(&name);
    let listing = Command::new("tar")
        .arg("-tzf")
        .arg(&archive)
        .output()
        .unwrap();
    assert!(listing.status.success(), "{listing:?}");
    let mut entries: Vec<String> = String::from_utf8(listing.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    entries.sort();
    // The binary, LICENSE, README.md, every committed completion script and man page.
    let mut expected: Vec<String> = [
        "LICENSE",
        "README.md",
        "kubectl-wasctl",
        "completions/",
        "man/",
    ]
    .map(str::to_owned)
    .to_vec();
    for (dir, into) in [("completions", "completions"), ("packaging/man", "man")] {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            let name = e.unwrap().file_name().into_string().unwrap();
            expected.push(format!("{into}/{name}"));
        }
    }
    expected.sort();
    assert_eq!(entries, expected);

    let sum = sha256_of(&archive);
    let sums = std::fs::read_to_string(dist.path().join("sha256sums.txt")).unwrap();
    assert_eq!(sums, format!("{sum}  {name}\n"));

    let m = read_yaml(&dist.path().join("krew-manifest.yaml"));
    assert_eq!(krew_problems(&m, false), Vec::<String>::new());
    assert_eq!(
        platforms_of(&m),
        BTreeSet::from([("linux".to_owned(), "amd64".to_owned())]),
        "unbuilt platforms are left out"
    );
    let linux = &m["spec"]["platforms"][0];
    assert_eq!(linux["sha256"], sum.as_str());
    assert_eq!(
        linux["uri"],
        format!("https://example.test/releases/v0.1.0/{name}").as_str()
    );
    // Everything but the platforms is the committed manifest.
    let mut committed = read_yaml(&root().join("krew-manifest.yaml"));
    let mut rendered = m.clone();
    committed["spec"]
        .as_object_mut()
        .unwrap()
        .remove("platforms");
    rendered["spec"]
        .as_object_mut()
        .unwrap()
        .remove("platforms");
    assert_eq!(rendered, committed);
    assert!(
        stderr.contains("skipping aarch64-apple-darwin: its standard library is not installed")
            || dist
                .path()
                .join(format!("kubectl-wasctl_{version}_darwin_arm64.tar.gz"))
                .exists(),
        "{stderr}"
    );

    // The packed binary runs.
    let unpacked = tempfile::tempdir().unwrap();
    let status = Command::new("tar")
        .arg("-xzf")
        .arg(&archive)
        .arg("-C")
        .arg(unpacked.path())
        .status()
        .unwrap();
    assert!(status.success());
    let r = run_cmd(Command::new(unpacked.path().join("kubectl-wasctl")).arg("--version"));
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(r.stdout.contains(version), "{}", r.stdout);
}

#[test]
fn release_script_rejects_unknown_targets() {
    let dist = tempfile::tempdir().unwrap();
    let out = Command::new("bash")
        .arg(root().join("packaging/release.sh"))
        .arg("riscv64gc-unknown-linux-gnu")
        .current_dir(root())
        .env("DIST_DIR", dist.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no krew platform for target"),
        "{out:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// RBAC

/// One rule of `packaging/rbac.yaml`.
#[derive(Debug)]
struct Rule {
    groups: Vec<String>,
    resources: Vec<String>,
    urls: Vec<String>,
    verbs: Vec<String>,
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| a.iter().map(|s| s.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default()
}

fn rbac_rules() -> Vec<Rule> {
    let role = read_yaml(&root().join("packaging/rbac.yaml"));
    assert_eq!(role["apiVersion"], "rbac.authorization.k8s.io/v1");
    assert_eq!(role["kind"], "ClusterRole");
    assert_eq!(role["metadata"]["name"], "wasctl-readonly");
    role["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| Rule {
            groups: strings(&r["apiGroups"]),
            resources: strings(&r["resources"]),
            urls: strings(&r["nonResourceURLs"]),
            verbs: strings(&r["verbs"]),
        })
        .collect()
}

/// What a request path asks for, in RBAC terms.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Access {
    /// `(apiGroup, resource, verb)`.
    Resource(String, String, String),
    /// A non-resource URL (discovery, `/version`, `/metrics`).
    Url(String),
}

fn access(path: &str, query: &str) -> Access {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (group, rest) = match segments.as_slice() {
        ["api", _version, rest @ ..] if !rest.is_empty() => ("", rest),
        ["apis", group, _version, rest @ ..] if !rest.is_empty() => (*group, rest),
        _ => return Access::Url(path.to_owned()),
    };
    let (resource, named) = match rest {
        ["namespaces", _ns, resource, tail @ ..] => (*resource, !tail.is_empty()),
        [resource, tail @ ..] => (*resource, !tail.is_empty()),
        [] => unreachable!("rest is not empty"),
    };
    let verb = if named {
        "get"
    } else if query
        .split('&')
        .any(|kv| kv == "watch=true" || kv == "watch=1")
    {
        "watch"
    } else {
        "list"
    };
    Access::Resource(group.to_owned(), resource.to_owned(), verb.to_owned())
}

fn url_matches(pattern: &str, url: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => url.starts_with(prefix),
        None => pattern == url,
    }
}

fn allows(rule: &Rule, access: &Access) -> bool {
    match access {
        Access::Resource(group, resource, verb) => {
            rule.groups.contains(group)
                && rule.resources.contains(resource)
                && rule.verbs.contains(verb)
        }
        Access::Url(url) => {
            rule.urls.iter().any(|p| url_matches(p, url)) && rule.verbs.iter().any(|v| v == "get")
        }
    }
}

/// The demo cluster plus one object of each optional group wasctl reads, so that every API it
/// knows is discovered and listed.
fn every_api_objects() -> Vec<Value> {
    let mut objects = demo_objects();
    for (api_version, kind) in [
        ("jobset.x-k8s.io/v1alpha2", "JobSet"),
        ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"),
        ("kueue.x-k8s.io/v1beta2", "Workload"),
        ("kueue.x-k8s.io/v1beta2", "LocalQueue"),
        ("scheduling.volcano.sh/v1beta1", "PodGroup"),
        ("batch.volcano.sh/v1alpha1", "Job"),
    ] {
        objects.push(json!({
            "apiVersion": api_version,
            "kind": kind,
            "metadata": {"name": "rbac-probe", "namespace": "default"},
            "spec": {},
        }));
    }
    // Kueue's cluster-scoped kinds.
    for kind in [
        "ClusterQueue",
        "ResourceFlavor",
        "Cohort",
        "WorkloadPriorityClass",
        "AdmissionCheck",
        "Topology",
    ] {
        let mut o = json!({
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": kind,
            "metadata": {"name": "rbac-probe"},
            "spec": {},
        });
        if kind == "WorkloadPriorityClass" {
            o["value"] = json!(1);
            if let Some(m) = o.as_object_mut() {
                m.remove("spec");
            }
        }
        objects.push(o);
    }
    // Volcano's Queue (cluster-scoped; its PodGroups are among the namespaced kinds).
    objects.push(json!({
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "Queue",
        "metadata": {"name": "rbac-probe"},
        "spec": {"weight": 1},
    }));
    objects
}

#[test]
fn rbac_grants_exactly_what_wasctl_requests() {
    let gates: BTreeMap<String, bool> = ["GenericWorkload", "CompositePodGroup", "WorkloadWithJob"]
        .into_iter()
        .map(|g| (g.to_owned(), true))
        .collect();
    // Unlike live.rs's demo server, no group is missing, so every API is requested.
    let mut objects = every_api_objects();
    // The CRDs `lint --crd-from-cluster` checks custom resources against.
    for path in [
        "testdata/manifests/crd/volcano-podgroup-crd.yaml",
        "testdata/manifests/crd/kueue-queues-crds.yaml",
    ] {
        let text = std::fs::read_to_string(root().join(path)).unwrap();
        for doc in text.split("\n---\n") {
            objects.push(serde_saphyr::from_str(doc).unwrap());
        }
    }
    // `--scheduler-config configmap/…` reads one ConfigMap by name.
    objects.push(json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "scheduler-config", "namespace": "kube-system"},
        "data": {"config.yaml": "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"},
    }));
    let server = FakeApiServer::start(
        objects,
        FakeConfig {
            feature_gates: gates,
            page_size: Some(7),
            ..FakeConfig::default()
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let r = run_cmd(wasctl().args([
        "snapshot",
        "-o",
        "json",
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
        "--scheduler-config",
        "configmap/kube-system/scheduler-config",
    ]));
    assert_eq!(r.code, 0, "{}", r.transcript());
    // `lint --crd-from-cluster` lists the CRDs.
    let r = run_cmd(wasctl().args([
        "lint",
        "--crd-from-cluster",
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
        "testdata/manifests/crd/resources/valid.yaml",
    ]));
    assert_eq!(r.code, 0, "{}", r.transcript());

    let rules = rbac_rules();
    let mut requested: BTreeSet<Access> = BTreeSet::new();
    for req in server.requests() {
        assert_eq!(req.method, "GET", "{req:?}");
        let a = access(&req.path, &req.query);
        assert!(
            rules.iter().any(|rule| allows(rule, &a)),
            "packaging/rbac.yaml does not allow {a:?} ({req:?})"
        );
        requested.insert(a);
    }

    // Nothing granted that wasctl does not use: every resource was listed, every verb is
    // read-only (`get` and `watch` come with `list` for kubectl-style reads and the TUI).
    let discovery = ["/api", "/api/*", "/apis", "/apis/*"];
    for rule in &rules {
        for word in rule.groups.iter().chain(&rule.resources).chain(&rule.urls) {
            assert!(
                !word.contains('*') || discovery.contains(&word.as_str()),
                "{rule:?}"
            );
            assert!(
                !word.contains("secret"),
                "Secrets are never granted: {rule:?}"
            );
        }
        if rule.resources == ["configmaps"] {
            // One ConfigMap, by name: `get` only, and used.
            assert_eq!(rule.verbs, ["get"], "{rule:?}");
            let got = Access::Resource(String::new(), "configmaps".to_owned(), "get".to_owned());
            assert!(
                requested.contains(&got),
                "rbac.yaml grants configmaps, never read"
            );
            assert!(
                !requested.contains(&Access::Resource(
                    String::new(),
                    "configmaps".to_owned(),
                    "list".to_owned()
                )),
                "ConfigMaps are never listed"
            );
            continue;
        }
        if rule.urls.is_empty() {
            assert_eq!(rule.verbs, ["get", "list", "watch"], "{rule:?}");
        } else {
            assert!(
                rule.groups.is_empty() && rule.resources.is_empty(),
                "{rule:?}"
            );
            assert_eq!(rule.verbs, ["get"], "{rule:?}");
        }
        for group in &rule.groups {
            for resource in &rule.resources {
                let listed = Access::Resource(group.clone(), resource.clone(), "list".to_owned());
                assert!(
                    requested.contains(&listed),
                    "rbac.yaml grants `{resource}` in `{group}`, which wasctl never lists"
                );
            }
        }
        for url in &rule.urls {
            assert!(
                discovery.contains(&url.as_str()) || requested.contains(&Access::Url(url.clone())),
                "rbac.yaml grants `{url}`, which wasctl never requests"
            );
        }
    }
}

/// Every man page renders with groff without a warning, and shows its sections.
#[test]
fn man_pages_render_without_warnings() {
    let groff = crate::support::tool("groff");
    let dir = root().join("packaging/man");
    let pages = crate::support::files_in(&dir, &["1"]);
    assert!(pages.len() >= 9, "{pages:?}");
    for page in pages {
        let out = Command::new(&groff)
            .args(["-man", "-Tutf8", "-ww", "-P", "-cbou"])
            .arg(&page)
            .env("LC_ALL", "C.UTF-8")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}: {out:?}", page.display());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.trim().is_empty(), "{}: {stderr}", page.display());
        let text = String::from_utf8_lossy(&out.stdout);
        for section in ["EXAMPLES", "EXIT STATUS", "ENVIRONMENT"] {
            assert!(text.contains(section), "{} lacks {section}", page.display());
        }
    }
}
