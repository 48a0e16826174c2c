//! `kubectl wasctl mcp` driven as an MCP client drives it: JSON-RPC messages, one per line,
//! on the real binary's stdin; answers read from its stdout.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

use crate::fake_apiserver::{FakeApiServer, FakeConfig};
use crate::support::{demo_objects, wasctl};

/// How long one answer may take (a debug build simulating the demo takes well under this).
const ANSWER_TIMEOUT: Duration = Duration::from_secs(120);

/// A running `kubectl wasctl mcp` and the client side of its stdio.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
}

impl Client {
    /// Starts `kubectl wasctl mcp ARGS` and completes MCP's handshake (initialize, then
    /// `notifications/initialized`); returns the client and the `initialize` result.
    fn start(args: &[&str]) -> (Self, Value) {
        let mut child = wasctl()
            .arg("mcp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let stdout = child.stdout.take().expect("stdout");
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut client = Self {
            child,
            stdin,
            lines,
            next_id: 0,
        };
        let init = client.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": { "name": "wasctl-test", "version": "1" }
            }),
        );
        client.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        (client, init)
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").expect("write a message");
        stdin.flush().expect("flush");
    }

    /// Sends a request and returns its response (the whole JSON-RPC message), skipping
    /// notifications.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let line = self
                .lines
                .recv_timeout(ANSWER_TIMEOUT)
                .unwrap_or_else(|e| panic!("no answer to {method}: {e}"));
            let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
                panic!("stdout holds a line that is not JSON-RPC ({e}): {line}")
            });
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// Calls a tool; returns the `tools/call` result.
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let answer = self.request(
            "tools/call",
            json!({ "name": tool, "arguments": arguments }),
        );
        assert!(answer.get("error").is_none(), "{answer}");
        answer["result"].clone()
    }

    /// Closes stdin, as a client that goes away does: the server ends with exit code 0.
    fn finish(mut self) -> String {
        drop(self.stdin.take());
        let out = self.child.wait_with_output().expect("the server ends");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
        stderr
    }
}

/// The JSON document of a successful call, checked to be the same as its text content.
fn document(result: &Value) -> Value {
    assert_eq!(result["isError"], json!(false), "{result}");
    let text = result["content"][0]["text"].as_str().expect("text content");
    let doc = result["structuredContent"].clone();
    assert_eq!(serde_json::from_str::<Value>(text).expect("JSON text"), doc);
    assert_eq!(doc["apiVersion"], "wasctl.dev/v1alpha1");
    doc
}

#[test]
fn an_agent_lists_the_tools_and_explains_a_demo_gang() {
    let (mut client, init) = Client::start(&["--demo"]);
    let info = &init["result"];
    assert_eq!(info["serverInfo"]["name"], "wasctl", "{init}");
    assert!(info["capabilities"]["tools"].is_object(), "{init}");
    let tools = client.request("tools/list", json!({}));
    let tools = tools["result"]["tools"].as_array().expect("tools").clone();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "simulate", "explain", "tree", "doctor", "capacity", "diff", "lint"
        ]
    );
    for tool in &tools {
        assert_eq!(tool["annotations"]["readOnlyHint"], true, "{tool}");
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert_eq!(tool["outputSchema"]["type"], "object", "{tool}");
    }
    let explain = &tools[1];
    assert_eq!(explain["inputSchema"]["required"], json!(["target"]));
    assert_eq!(
        explain["inputSchema"]["properties"]["addNodes"]["type"],
        "integer"
    );
    // The same document as `explain -o json` on the command line.
    let result = client.call(
        "explain",
        json!({ "target": "pg/big-train-workers", "namespace": "ml" }),
    );
    let doc = document(&result);
    assert_eq!(doc["kind"], "Diagnosis");
    assert_eq!(doc["verdict"], "Unschedulable");
    let cli = crate::support::run(&[
        "explain",
        "--demo",
        "pg/big-train-workers",
        "-n",
        "ml",
        "-o",
        "json",
    ]);
    assert_eq!(cli.code, 0, "{}", cli.transcript());
    let cli: Value = serde_json::from_str(&cli.stdout).expect("json");
    assert_eq!(doc, cli);
    // A what-if: two more nodes like gpu-b1 place the gang.
    let result = client.call(
        "explain",
        json!({ "target": "pg/big-train-workers", "namespace": "ml",
                "addNodes": 2, "like": "gpu-b1" }),
    );
    let doc = document(&result);
    assert_ne!(doc["verdict"], "Unschedulable", "{doc}");
    client.finish();
}

#[test]
fn simulate_pages_through_the_units_with_continue() {
    let (mut client, _) = Client::start(&["--demo"]);
    let whole = document(&client.call("simulate", json!({})));
    let units = whole["units"].as_array().expect("units").clone();
    assert!(units.len() >= 4, "{whole}");
    assert!(whole.get("metadata").is_none(), "one page: {whole}");
    let mut paged = Vec::new();
    let mut token: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut args = json!({ "limit": 2 });
        if let Some(t) = &token {
            args["continue"] = json!(t);
        }
        let doc = document(&client.call("simulate", args));
        assert_eq!(
            doc["summary"], whole["summary"],
            "every page keeps the rest"
        );
        let page = doc["units"].as_array().expect("units");
        assert!(page.len() <= 2);
        paged.extend(page.iter().cloned());
        pages += 1;
        match doc["metadata"]["continue"].as_str() {
            Some(t) => {
                assert_eq!(
                    doc["metadata"]["remainingItemCount"],
                    json!(units.len() - paged.len())
                );
                token = Some(t.to_owned());
            }
            None => break,
        }
    }
    assert_eq!(paged, units);
    assert_eq!(pages, units.len().div_ceil(2));
    // A token answers its own call only.
    let first = document(&client.call("simulate", json!({ "limit": 2 })));
    let token = first["metadata"]["continue"].as_str().expect("a token");
    let other = client.call(
        "simulate",
        json!({ "limit": 2, "continue": token, "noPreemption": true }),
    );
    assert_eq!(other["isError"], true, "{other}");
    let text = other["content"][0]["text"].as_str().expect("text");
    assert!(text.contains("another call"), "{text}");
    client.finish();
}

#[test]
fn errors_are_tool_results_and_the_server_keeps_serving() {
    let (mut client, _) = Client::start(&["--demo"]);
    // An unknown target: the command's own error and hint, as a tool error.
    let result = client.call(
        "explain",
        json!({ "target": "pg/no-such-gang", "namespace": "ml" }),
    );
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().expect("text");
    assert!(text.contains("no-such-gang"), "{text}");
    // A flag no tool takes, a write (`-o json=FILE` has no argument), stdin.
    for (tool, args, says) in [
        (
            "simulate",
            json!({ "output": "yaml" }),
            "unknown argument `output`",
        ),
        ("lint", json!({ "paths": ["-"] }), "stdin"),
        (
            "simulate",
            json!({ "addNodes": "many", "like": "gpu-b1" }),
            "add-nodes",
        ),
        ("simulate", json!({ "limit": 0 }), "`limit`"),
        (
            "simulate",
            json!({ "continue": "not-a-token" }),
            "`continue`",
        ),
    ] {
        let result = client.call(tool, args);
        assert_eq!(result["isError"], true, "{result}");
        let text = result["content"][0]["text"].as_str().expect("text");
        assert!(text.contains(says), "{says}: {text}");
    }
    // An unknown tool is a protocol error.
    let answer = client.request("tools/call", json!({ "name": "apply", "arguments": {} }));
    assert!(
        answer["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("unknown tool `apply`")),
        "{answer}"
    );
    // Still serving.
    let doc = document(&client.call("doctor", json!({})));
    assert_eq!(doc["kind"], "DoctorReport");
    client.finish();
}

#[test]
fn every_tool_answers_on_the_demo() {
    let (mut client, _) = Client::start(&["--demo"]);
    let lint = crate::support::root().join("testdata/manifests/lint/good");
    for (tool, args, kind) in [
        (
            "tree",
            json!({ "target": "job/train-a", "namespace": "ml" }),
            "Tree",
        ),
        (
            "capacity",
            json!({ "target": "pg/infer-a", "namespace": "research" }),
            "CapacityReport",
        ),
        ("diff", json!({ "drain": ["gpu-a1"] }), "PlanDiff"),
        ("lint", json!({ "paths": [lint] }), "LintReport"),
        (
            "simulate",
            json!({ "only": "pg/urgent", "namespace": "ml" }),
            "SimulationReport",
        ),
    ] {
        let doc = document(&client.call(tool, args));
        assert_eq!(doc["kind"], kind, "{doc}");
    }
    client.finish();
}

#[test]
fn a_live_cluster_is_listed_once_per_cache_window_and_only_read() {
    let server = FakeApiServer::start(demo_objects(), FakeConfig::default());
    let dir = tempfile::tempdir().expect("a directory");
    let kubeconfig = server.write_kubeconfig(dir.path());
    let kubeconfig = kubeconfig.to_str().expect("utf-8 path");
    let (mut client, _) =
        Client::start(&["--kubeconfig", kubeconfig, "-A", "--cache-seconds", "600"]);
    let first = document(&client.call("simulate", json!({})));
    let listed = server.requests().len();
    assert!(listed > 0);
    let second = document(&client.call("doctor", json!({})));
    assert_eq!(second["kind"], "DoctorReport");
    assert_eq!(
        server.requests().len(),
        listed,
        "the second call listed the cluster again"
    );
    assert!(!first["units"].as_array().expect("units").is_empty());
    client.finish();
    let (mut client, _) =
        Client::start(&["--kubeconfig", kubeconfig, "-A", "--cache-seconds", "0"]);
    let before = server.requests().len();
    client.call("simulate", json!({}));
    let once = server.requests().len();
    client.call("simulate", json!({}));
    assert!(server.requests().len() > once && once > before);
    client.finish();
    assert!(server.requests().iter().all(|r| r.method == "GET"));
}

#[test]
fn mcp_refuses_stdin_as_its_source() {
    let run = crate::support::run(&["mcp", "--from", "-"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr.contains("stdin carries the MCP messages"),
        "{}",
        run.stderr
    );
}
