//! `kubectl wasctl scheduler-config` and `--scheduler-config` (issue 48): files and ConfigMaps
//! read, validated as kube-scheduler 1.37 validates them (exit 2 with line and field path),
//! printed with defaults applied, and kept by `snapshot` so a dump reproduces the run.

use serde_json::{Value, json};

use crate::fake_apiserver::{FakeApiServer, FakeConfig};
use crate::support::{demo_objects, root, run, run_cmd, wasctl};

fn fixture(name: &str) -> String {
    root()
        .join("testdata/scheduler-config")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn json_of(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap()
}

fn profile<'a>(config: &'a Value, name: &str) -> &'a Value {
    config["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["schedulerName"] == name)
        .unwrap_or_else(|| panic!("no profile {name} in {config}"))
}

fn plugin_args<'a>(profile: &'a Value, plugin: &str) -> &'a Value {
    &profile["pluginConfig"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == plugin)
        .unwrap_or_else(|| panic!("no args for {plugin}"))["args"]
}

fn names(list: &Value) -> Vec<&str> {
    list["enabled"]
        .as_array()
        .map(|a| a.iter().map(|p| p["name"].as_str().unwrap()).collect())
        .unwrap_or_default()
}

#[test]
fn good_file_is_printed_with_defaults_applied() {
    let r = run(&[
        "scheduler-config",
        &fixture("gpu-binpack.yaml"),
        "-o",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let c = json_of(&r.stdout);
    assert_eq!(c["apiVersion"], "kubescheduler.config.k8s.io/v1");
    assert_eq!(c["percentageOfNodesToScore"], 0);
    let binpack = profile(&c, "gpu-binpack");
    let fit = plugin_args(binpack, "NodeResourcesFit");
    assert_eq!(fit["scoringStrategy"]["type"], "MostAllocated");
    assert_eq!(
        fit["scoringStrategy"]["resources"][0]["name"],
        "nvidia.com/gpu"
    );
    assert_eq!(fit["scoringStrategy"]["resources"][0]["weight"], 5);
    let preempt = plugin_args(binpack, "DefaultPreemption");
    assert_eq!(preempt["minCandidateNodesPercentage"], 20);
    // Disabled at score only: still balanced nowhere else, and the default profile keeps it.
    let score = names(&binpack["plugins"]["score"]);
    assert!(
        !score.contains(&"NodeResourcesBalancedAllocation"),
        "{score:?}"
    );
    assert!(score.contains(&"NodeResourcesFit"));
    let default = profile(&c, "default-scheduler");
    assert!(names(&default["plugins"]["score"]).contains(&"NodeResourcesBalancedAllocation"));
    assert_eq!(
        plugin_args(default, "NodeResourcesFit")["scoringStrategy"]["type"],
        "LeastAllocated"
    );
    // Weights spelled out, as the simulator uses them.
    let weights: Vec<(&str, i64)> = default["plugins"]["score"]["enabled"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), p["weight"].as_i64().unwrap()))
        .collect();
    assert!(weights.contains(&("TaintToleration", 3)), "{weights:?}");
    assert!(weights.contains(&("PodTopologySpread", 2)), "{weights:?}");
}

#[test]
fn default_output_is_the_default_profile() {
    let r = run(&["scheduler-config"]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(
        r.stdout.starts_with(
            "# The effective configuration (defaults applied) of kube-scheduler 1.37's default"
        ),
        "{}",
        r.stdout
    );
    insta::assert_snapshot!("scheduler_config_default_yaml", r.stdout);
    // The printed YAML is a valid --config: read back, it gives the same configuration.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("effective.yaml");
    std::fs::write(&path, &r.stdout).unwrap();
    let again = run(&["scheduler-config", path.to_str().unwrap(), "-o", "json"]);
    let first = run(&["scheduler-config", "-o", "json"]);
    assert_eq!(again.code, 0, "{}", again.transcript());
    assert_eq!(json_of(&again.stdout), json_of(&first.stdout));
}

#[test]
fn bad_files_exit_2_with_line_and_field_path() {
    let cases = [
        (
            "bad-strategy.yaml",
            ":12:",
            "profiles[1].pluginConfig[0].args.scoringStrategy.type",
            "`MostAllocatedd`",
        ),
        (
            "unknown-plugin.yaml",
            ":9:",
            "profiles[0].plugins.score.enabled[0].name",
            "does not exist",
        ),
        (
            "duplicate-name.yaml",
            ":6:",
            "profiles[1].schedulerName",
            "Duplicate",
        ),
        // The position of an unknown field is that of its value (the list on line 6).
        ("unknown-field.yaml", ":6:", "profile", "unknown field"),
    ];
    for (file, line, field, words) in cases {
        for cmd in [
            vec!["scheduler-config".to_owned(), fixture(file)],
            vec![
                "simulate".to_owned(),
                "--demo".to_owned(),
                "--scheduler-config".to_owned(),
                fixture(file),
            ],
        ] {
            let r = run_cmd(wasctl().args(&cmd));
            assert_eq!(r.code, 2, "{file}: {}", r.transcript());
            assert!(
                r.stderr.contains(&format!("{file}{line}")),
                "{file}: {}",
                r.stderr
            );
            assert!(
                r.stderr.contains(&format!("`{field}`")),
                "{file}: {}",
                r.stderr
            );
            assert!(r.stderr.contains(words), "{file}: {}", r.stderr);
            assert!(
                r.stderr.contains("kube-scheduler 1.37 refuses"),
                "{file}: {}",
                r.stderr
            );
            assert!(r.stdout.is_empty(), "{file}: {}", r.stdout);
        }
    }
}

#[test]
fn missing_file_and_wrong_document_are_input_errors() {
    let r = run(&["scheduler-config", "/nonexistent/sched.yaml"]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("node.yaml");
    std::fs::write(
        &path,
        "apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\n",
    )
    .unwrap();
    let r = run(&["scheduler-config", path.to_str().unwrap()]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        r.stderr.contains("holds no KubeSchedulerConfiguration"),
        "{}",
        r.stderr
    );
    let path = dir.path().join("beta.yaml");
    std::fs::write(
        &path,
        "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
    )
    .unwrap();
    let r = run(&["scheduler-config", path.to_str().unwrap()]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(r.stderr.contains("`apiVersion`"), "{}", r.stderr);
}

#[test]
fn extender_tls_material_is_never_printed_or_exported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ext.yaml");
    std::fs::write(
        &path,
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nextenders:\n- urlPrefix: https://extender.example:8443\n  filterVerb: filter\n  tlsConfig:\n    keyData: UFJJVkFURS1LRVktU0VDUkVU\n    certData: Q0VSVA==\n",
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let printed = run(&["scheduler-config", p]);
    assert_eq!(printed.code, 0, "{}", printed.transcript());
    assert!(printed.stdout.contains("https://extender.example:8443"));
    let dump = run(&["snapshot", "--demo", "-o", "yaml", "--scheduler-config", p]);
    assert_eq!(dump.code, 0, "{}", dump.transcript());
    for out in [&printed.stdout, &printed.stderr, &dump.stdout, &dump.stderr] {
        assert!(!out.contains("UFJJVkFURS1LRVktU0VDUkVU"), "{out}");
        assert!(!out.contains("tlsConfig"), "{out}");
    }
}

#[test]
fn snapshot_keeps_the_configuration_and_the_dump_reproduces_it() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = fixture("gpu-binpack.yaml");
    for format in ["yaml", "json"] {
        let dump = run(&[
            "snapshot",
            "--demo",
            "-o",
            format,
            "--scheduler-config",
            &cfg,
        ]);
        assert_eq!(dump.code, 0, "{}", dump.transcript());
        assert!(dump.stdout.contains("KubeSchedulerConfiguration"));
        let path = dir.path().join(format!("dump.{format}"));
        std::fs::write(&path, &dump.stdout).unwrap();
        let from = path.to_str().unwrap();
        // The dump's document is the configuration `scheduler-config` finds with `--from`.
        let read_back = run(&["scheduler-config", "--from", from, "-o", "json"]);
        let direct = run(&["scheduler-config", &cfg, "-o", "json"]);
        assert_eq!(read_back.code, 0, "{}", read_back.transcript());
        assert_eq!(json_of(&read_back.stdout), json_of(&direct.stdout));
        // A second snapshot of the dump writes the same document again.
        let again = run(&["snapshot", "--from", from, "-o", format]);
        assert_eq!(again.code, 0, "{}", again.transcript());
        assert_eq!(
            again.stdout, dump.stdout,
            "{format}: the round trip is stable"
        );
        // The dump simulates as the demo does.
        let sim = run(&["simulate", "--from", from, "-o", "json"]);
        assert_eq!(sim.code, 0, "{}", sim.transcript());
    }
    // Without a configuration the dump holds none (outputs as before).
    let plain = run(&["snapshot", "--demo", "-o", "yaml"]);
    assert!(!plain.stdout.contains("KubeSchedulerConfiguration"));
}

#[test]
fn flag_replaces_the_document_of_the_input_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let dump = run(&[
        "snapshot",
        "--demo",
        "-o",
        "yaml",
        "--scheduler-config",
        &fixture("gpu-binpack.yaml"),
    ]);
    let path = dir.path().join("dump.yaml");
    std::fs::write(&path, &dump.stdout).unwrap();
    let other = dir.path().join("other.yaml");
    std::fs::write(
        &other,
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: only-one\n",
    )
    .unwrap();
    let r = run(&[
        "snapshot",
        "--from",
        path.to_str().unwrap(),
        "-o",
        "yaml",
        "--scheduler-config",
        other.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(r.stdout.contains("only-one") && !r.stdout.contains("gpu-binpack"));
    assert!(
        r.stderr.contains("SchedulerConfigReplaced") || r.stderr.contains("is replaced by"),
        "{}",
        r.stderr
    );
}

fn configmap_server(data: Value) -> FakeApiServer {
    let mut objects = demo_objects();
    objects.push(json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "gpu-scheduler-config", "namespace": "kube-system"},
        "data": data,
    }));
    FakeApiServer::start(objects, FakeConfig::default())
}

#[test]
fn configmap_source_is_read_by_name_from_the_cluster() {
    let text = std::fs::read_to_string(fixture("gpu-binpack.yaml")).unwrap();
    let server = configmap_server(json!({"config.yaml": text}));
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let kc = kubeconfig.to_str().unwrap();
    let r = run(&[
        "scheduler-config",
        "configmap/kube-system/gpu-scheduler-config",
        "-o",
        "json",
        "--kubeconfig",
        kc,
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let c = json_of(&r.stdout);
    assert_eq!(
        plugin_args(profile(&c, "gpu-binpack"), "NodeResourcesFit")["scoringStrategy"]["type"],
        "MostAllocated"
    );
    // One GET by name; never a list of ConfigMaps.
    let requests = server.requests();
    assert!(
        requests
            .iter()
            .any(|q| q.path == "/api/v1/namespaces/kube-system/configmaps/gpu-scheduler-config"),
        "{requests:?}"
    );
    assert!(
        !requests.iter().any(|q| q.path.ends_with("/configmaps")),
        "{requests:?}"
    );

    // The same, on the files a simulation reads: the ConfigMap decides, the dump is offline.
    let r = run(&[
        "simulate",
        "--demo",
        "-o",
        "json",
        "--kubeconfig",
        kc,
        "--scheduler-config",
        "configmap/kube-system/gpu-scheduler-config:config.yaml",
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());

    // Not found, and a key that is not there: input errors naming what exists.
    let r = run(&[
        "scheduler-config",
        "configmap/kube-system/nope",
        "--kubeconfig",
        kc,
    ]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        r.stderr.contains("configmap/kube-system/nope not found"),
        "{}",
        r.stderr
    );
    let r = run(&[
        "scheduler-config",
        "configmap/kube-system/gpu-scheduler-config:other.yaml",
        "--kubeconfig",
        kc,
    ]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(r.stderr.contains("`config.yaml`"), "{}", r.stderr);
}

#[test]
fn configmap_with_several_keys_needs_one_named_and_errors_name_the_key() {
    let server = configmap_server(json!({
        "a.yaml": "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n",
        "b.yaml": "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: x\n  percentageOfNodesToScore: 200\n",
    }));
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let kc = kubeconfig.to_str().unwrap();
    let r = run(&[
        "scheduler-config",
        "configmap/kube-system/gpu-scheduler-config",
        "--kubeconfig",
        kc,
    ]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(r.stderr.contains("`a.yaml`, `b.yaml`"), "{}", r.stderr);
    let r = run(&[
        "scheduler-config",
        "configmap/kube-system/gpu-scheduler-config:b.yaml",
        "--kubeconfig",
        kc,
    ]);
    assert_eq!(r.code, 2, "{}", r.transcript());
    assert!(
        r.stderr
            .contains("configmap/kube-system/gpu-scheduler-config:b.yaml:5:"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("`profiles[0].percentageOfNodesToScore`"),
        "{}",
        r.stderr
    );
}

#[test]
fn no_config_keeps_outputs_byte_identical() {
    // The default configuration given explicitly changes nothing a command prints.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("default.yaml");
    std::fs::write(
        &path,
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n",
    )
    .unwrap();
    let plain = run(&["simulate", "--demo"]);
    let with = run(&[
        "simulate",
        "--demo",
        "--scheduler-config",
        path.to_str().unwrap(),
    ]);
    assert_eq!(plain.code, with.code);
    assert_eq!(plain.stdout, with.stdout);
}

#[test]
fn doctor_checks_gangs_against_the_profiles() {
    let r = run(&[
        "doctor",
        "--from",
        &fixture("doctor-profiles.yaml"),
        "--only",
        "WASD204,WASD205,WASD206,WASD303",
        "-o",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    let report = json_of(&r.stdout);
    let found: Vec<(String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["id"].as_str().unwrap().to_owned(),
                format!(
                    "{}/{}",
                    f["object"]["namespace"].as_str().unwrap_or(""),
                    f["object"]["name"].as_str().unwrap_or("")
                ),
            )
        })
        .collect();
    assert!(
        found.contains(&("WASD204".to_owned(), "ml/lost".to_owned())),
        "{found:?}"
    );
    assert!(
        found.contains(&("WASD205".to_owned(), "ml/split".to_owned())),
        "{found:?}"
    );
    assert!(found.iter().any(|(id, _)| id == "WASD206"), "{found:?}");
    assert!(
        !found.iter().any(|(id, _)| id == "WASD303"),
        "a configuration was given: {found:?}"
    );
    // The same objects without the configuration: only the info that one is missing.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("doctor-profiles.yaml")).unwrap();
    let objects = text.split_once("---\n").unwrap().1;
    let path = dir.path().join("objects.yaml");
    std::fs::write(&path, objects).unwrap();
    let r = run(&[
        "doctor",
        "--from",
        path.to_str().unwrap(),
        "--only",
        "WASD204,WASD205,WASD206,WASD303",
    ]);
    assert_eq!(r.code, 0, "{}", r.transcript());
    assert!(r.stdout.contains("WASD303"), "{}", r.stdout);
    assert!(r.stdout.contains("pass --scheduler-config"), "{}", r.stdout);
    assert!(
        !r.stdout.contains("WASD204") && !r.stdout.contains("WASD205"),
        "{}",
        r.stdout
    );
}

#[test]
fn extenders_and_percentage_of_nodes_to_score_are_named_by_every_report() {
    // Issue 48: extenders are not simulated (a warning naming each, outcomes marked as
    // possibly different) and percentageOfNodesToScore is said to apply in compat mode only.
    let config = fixture("extender.yaml");
    let ext = "extender `http://gpu-topology-extender.kube-system:8888/scheduler` is not simulated";
    let r = run(&["simulate", "--demo", "--scheduler-config", &config]);
    assert!(
        r.stdout.contains(&format!("{ext}: the outcomes")),
        "{}",
        r.transcript()
    );
    let j = run(&[
        "simulate",
        "--demo",
        "--scheduler-config",
        &config,
        "-o",
        "json",
    ]);
    let v = json_of(&j.stdout);
    assert_eq!(
        v["settings"]["extenders"],
        json!(["http://gpu-topology-extender.kube-system:8888/scheduler"])
    );
    let notes = v["settings"]["notes"].to_string();
    assert!(
        notes.contains(
            "percentageOfNodesToScore (default-scheduler 50%) is not applied in exhaustive mode"
        ),
        "{notes}"
    );
    let compat = run(&[
        "simulate",
        "--demo",
        "--scheduler-config",
        &config,
        "--mode",
        "compat",
        "-o",
        "json",
    ]);
    let notes = json_of(&compat.stdout)["settings"]["notes"].to_string();
    assert!(
        notes.contains("percentageOfNodesToScore (default-scheduler 50%) is applied as upstream's numFeasibleNodesToFind"),
        "{notes}"
    );
    let e = run(&[
        "explain",
        "--demo",
        "pg/big-train-workers",
        "--scheduler-config",
        &config,
    ]);
    assert!(
        e.stdout
            .contains(&format!("{ext}: this verdict may differ")),
        "{}",
        e.transcript()
    );
    let ej = run(&[
        "explain",
        "--demo",
        "pg/big-train-workers",
        "--scheduler-config",
        &config,
        "-o",
        "json",
    ]);
    assert_eq!(
        json_of(&ej.stdout)["extenders"][0],
        "http://gpu-topology-extender.kube-system:8888/scheduler"
    );
    let c = run(&[
        "capacity",
        "--demo",
        "pg/big-train-workers",
        "--scheduler-config",
        &config,
        "--max",
        "2",
    ]);
    assert!(
        c.stderr
            .contains(&format!("{ext}: the copies that fit may differ")),
        "{}",
        c.transcript()
    );
}
