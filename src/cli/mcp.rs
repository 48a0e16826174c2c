//! `kubectl wasctl mcp`: the read-only commands (simulate, explain, tree, doctor, capacity,
//! diff, lint) as MCP tools over stdio, through the official Rust MCP SDK (`rmcp`).
//!
//! Each tool is its command: its input schema is made from the command's own clap flags
//! (what-ifs, selectors, targets), a call is parsed by the same clap definitions and run by
//! the same command code with `-o json`, and the result is the `-o json` document (the one
//! JSON writer, kept as a value instead of written). Long lists (units, findings, roots,
//! items) are paged with `limit` and `continue`, as a Kubernetes List is. The source is the
//! server's (`--from`, `--demo`, or the kubeconfig context): files and the demo are read once,
//! a live cluster is listed again when its snapshot is older than `--cache-seconds`.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use clap::{ArgAction, Args, CommandFactory, Parser};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};

use super::{Capture, Cli, Context, GlobalArgs, SnapshotSource};
use crate::error::{Error, ExitStatus};
use crate::snapshot::Snapshot;

/// The most items one page may hold.
const MAX_LIMIT: u64 = 10_000;

/// How many paged results the server keeps for their `continue` tokens.
const KEPT_RESULTS: usize = 4;

/// `mcp` flags (the source is the global flags': `--from`, `--demo`, `--context`…).
#[derive(Debug, Args)]
pub struct McpArgs {
    /// How long a live cluster's snapshot answers later calls, in seconds (`0`: every call
    /// lists the cluster again). Files and the demo are read once, when the server starts.
    #[arg(long, value_name = "SECONDS", default_value_t = 10)]
    pub cache_seconds: u64,
    /// Items per page when a call gives no `limit` (units, findings, tree roots, diagnoses).
    #[arg(long, value_name = "N", default_value_t = 200,
          value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub limit: u64,
}

/// A tool: the command it runs and the report kinds it answers with.
struct ToolSpec {
    name: &'static str,
    kinds: &'static [&'static str],
    /// Whether `namespace` and `allNamespaces` apply (every command but lint).
    namespaced: bool,
}

/// The tools, one per read-only command.
const TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "simulate",
        kinds: &["SimulationReport"],
        namespaced: true,
    },
    ToolSpec {
        name: "explain",
        kinds: &["Diagnosis", "DiagnosisList"],
        namespaced: true,
    },
    ToolSpec {
        name: "tree",
        kinds: &["Tree", "QueueTree"],
        namespaced: true,
    },
    ToolSpec {
        name: "doctor",
        kinds: &["DoctorReport"],
        namespaced: true,
    },
    ToolSpec {
        name: "capacity",
        kinds: &["CapacityReport"],
        namespaced: true,
    },
    ToolSpec {
        name: "diff",
        kinds: &["PlanDiff"],
        namespaced: true,
    },
    ToolSpec {
        name: "lint",
        kinds: &["LintReport"],
        namespaced: false,
    },
];

/// Flags no tool takes: the output is always the JSON document; exit codes, watching,
/// listings and file outputs have no meaning for a tool call.
const NOT_SERVED: &[&str] = &[
    "output",
    "watch",
    "exit_code",
    "fail_on",
    "list_checks",
    "list_rules",
    "explain",
    "help",
];

/// The arguments every tool takes beside its command's flags.
const PAGING: [&str; 2] = ["limit", "continue"];

/// The array of a report kind that is paged.
fn paged_key(kind: &str) -> Option<&'static str> {
    match kind {
        "SimulationReport" | "PlanDiff" => Some("units"),
        "Tree" => Some("roots"),
        "DoctorReport" | "LintReport" => Some("findings"),
        "DiagnosisList" => Some("items"),
        _ => None,
    }
}

pub(crate) fn run(ctx: &Context, args: &McpArgs) -> Result<ExitStatus, Error> {
    if ctx.global.from.iter().any(|p| p.as_os_str() == "-") {
        return Err(Error::usage(
            "`mcp` cannot read `--from -`: stdin carries the MCP messages",
            "save the objects to a file and pass `--from FILE`",
        ));
    }
    let snapshots = Arc::new(Snapshots {
        ttl: Duration::from_secs(args.cache_seconds),
        kept: Mutex::new(None),
    });
    // Files and the demo are read before serving: a bad file fails here, with its exit code,
    // not in every call.
    if ctx.is_offline() {
        snapshots.load(ctx)?;
    }
    let server = Server {
        inner: Arc::new(Inner {
            global: ctx.global.clone(),
            snapshots,
            limit: args.limit,
            results: Mutex::new(Results::default()),
        }),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let service = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| Error::Output(std::io::Error::other(e.to_string())))?;
        service
            .waiting()
            .await
            .map_err(|e| Error::Output(std::io::Error::other(e.to_string())))?;
        Ok::<(), Error>(())
    })?;
    Ok(ExitStatus::Success)
}

/// The server's snapshots: the offline source's for good, a live cluster's for `ttl`.
struct Snapshots {
    ttl: Duration,
    kept: Mutex<Option<Kept>>,
}

/// A kept snapshot, with what it was loaded for.
struct Kept {
    /// The namespace a live load listed (`-n`, `-A`); always `None, false` offline.
    scope: (Option<String>, bool),
    at: Instant,
    snapshot: Snapshot,
}

impl SnapshotSource for Snapshots {
    fn load(&self, ctx: &Context) -> Result<Snapshot, Error> {
        let offline = ctx.is_offline();
        let scope = if offline {
            (None, false)
        } else {
            (ctx.global.namespace.clone(), ctx.global.all_namespaces)
        };
        // Held while loading: two calls at once list the cluster once.
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(k) = kept.as_ref()
            && k.scope == scope
            && (offline || k.at.elapsed() < self.ttl)
        {
            return Ok(k.snapshot.clone());
        }
        let snapshot = ctx.load_fresh()?;
        *kept = Some(Kept {
            scope,
            at: Instant::now(),
            snapshot: snapshot.clone(),
        });
        Ok(snapshot)
    }
}

/// The MCP server (cheap to clone: the SDK's handler).
#[derive(Clone)]
struct Server {
    inner: Arc<Inner>,
}

struct Inner {
    global: GlobalArgs,
    snapshots: Arc<Snapshots>,
    /// Items per page without `limit`.
    limit: u64,
    results: Mutex<Results>,
}

/// The last paged results, for their `continue` tokens.
#[derive(Default)]
struct Results {
    next_id: u64,
    kept: VecDeque<KeptResult>,
}

struct KeptResult {
    id: u64,
    tool: &'static str,
    /// The call's arguments without `limit` and `continue`: a token answers the same call.
    args: Map<String, Value>,
    doc: Arc<Value>,
}

impl Results {
    fn keep(&mut self, tool: &'static str, args: Map<String, Value>, doc: Arc<Value>) -> u64 {
        self.next_id += 1;
        if self.kept.len() >= KEPT_RESULTS {
            self.kept.pop_front();
        }
        self.kept.push_back(KeptResult {
            id: self.next_id,
            tool,
            args,
            doc,
        });
        self.next_id
    }

    fn find(&self, id: u64, tool: &str, args: &Map<String, Value>) -> Result<Arc<Value>, String> {
        let kept = self.kept.iter().find(|k| k.id == id).ok_or_else(|| {
            "the `continue` token has expired (the server keeps the last few paged results): call again without `continue`".to_owned()
        })?;
        if kept.tool != tool || &kept.args != args {
            return Err(format!(
                "the `continue` token belongs to another call: pass the same arguments as the call that returned it ({} {})",
                kept.tool,
                Value::Object(kept.args.clone())
            ));
        }
        Ok(Arc::clone(&kept.doc))
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("wasctl", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some(spec) = TOOLS.iter().find(|t| t.name == request.name) else {
            return Err(McpError::invalid_params(
                format!(
                    "unknown tool `{}`; the tools: {}",
                    request.name,
                    TOOLS.iter().map(|t| t.name).collect::<Vec<_>>().join(", ")
                ),
                None,
            ));
        };
        let args = request.arguments.unwrap_or_default();
        // The command runs on a thread of its own: a simulation takes seconds at scale, and
        // a live load runs its own runtime.
        let inner = Arc::clone(&self.inner);
        let (send, receive) = futures::channel::oneshot::channel();
        let spawned = std::thread::Builder::new()
            .name(format!("mcp-{}", spec.name))
            .spawn(move || {
                let _ = send.send(inner.call(spec, args));
            });
        if let Err(e) = spawned {
            return Err(McpError::internal_error(
                format!("cannot start the call: {e}"),
                None,
            ));
        }
        let answer = receive.await.unwrap_or_else(|_| {
            Err("the call ended without an answer (the command panicked; please report it)".into())
        });
        Ok(match answer {
            Ok(doc) => CallToolResult::structured(doc),
            Err(text) => CallToolResult::error(vec![ContentBlock::text(text)]),
        }
        .into())
    }
}

/// What the server tells an agent when it connects.
const INSTRUCTIONS: &str = "wasctl simulates kube-scheduler 1.37 Workload-Aware Scheduling \
(gangs, PodGroups, preemption, topology, DRA) with Kueue's admission in front, read-only. \
Start with `simulate` (where every pending unit lands, whom it evicts) or `doctor`; `explain` \
a stuck unit (target `pg/NAME` with `namespace`) for the reason and verified fixes; `tree` for \
the object chain; `capacity` for how many more copies fit; what-ifs (`drain`, `cordon`, \
`addNodes` with `like`, `add`) change a copy of the snapshot, never the cluster. Results are \
the `-o json` documents (docs/json.md); long lists come in pages: pass `metadata.continue` \
back as `continue` with the same arguments.";

impl Inner {
    /// Runs one call: its page of the command's JSON document, or the error to show.
    fn call(&self, spec: &'static ToolSpec, mut args: Map<String, Value>) -> Result<Value, String> {
        let limit = match args.remove("limit") {
            None | Some(Value::Null) => self.limit,
            Some(v) => v
                .as_u64()
                .filter(|n| (1..=MAX_LIMIT).contains(n))
                .ok_or_else(|| {
                    format!("`limit` must be a number from 1 to {MAX_LIMIT}, not {v}")
                })?,
        };
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        let token = match args.remove("continue") {
            None | Some(Value::Null) => None,
            Some(Value::String(t)) => Some(parse_token(&t)?),
            Some(v) => return Err(format!("`continue` must be a string, not {v}")),
        };
        if let Some((id, offset)) = token {
            let doc = self
                .results
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .find(id, spec.name, &args)?;
            return Ok(page(&doc, offset, limit, id));
        }
        let doc = Arc::new(self.run_command(spec, &args)?);
        let whole = paged_len(&doc).is_none_or(|n| n <= limit);
        let id = if whole {
            0
        } else {
            self.results
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .keep(spec.name, args, Arc::clone(&doc))
        };
        Ok(page(&doc, 0, limit, id))
    }

    /// Parses the call as the command line it stands for and runs the command, keeping its
    /// `-o json` document.
    fn run_command(&self, spec: &ToolSpec, args: &Map<String, Value>) -> Result<Value, String> {
        let (argv, scope) = command_line(spec, args)?;
        let cli = Cli::try_parse_from(&argv).map_err(|e| e.render().to_string())?;
        let Some(command) = cli.command else {
            return Err(format!("`{}` parsed to no command", spec.name));
        };
        let mut global = self.global.clone();
        if let Some(ns) = scope.namespace {
            global.namespace = Some(ns);
            global.all_namespaces = false;
        }
        if scope.all_namespaces {
            global.all_namespaces = true;
        }
        // Nothing of the call is shown on a terminal: no progress line, no notes.
        global.quiet = true;
        let snapshots: Arc<dyn SnapshotSource> = self.snapshots.clone();
        let ctx = Context::captured(global, Capture::default(), snapshots);
        super::dispatch(&ctx, command).map_err(|e| crate::error::write_error_chain(&e))?;
        ctx.captured_output()
    }
}

/// `namespace` and `allNamespaces` of a call.
#[derive(Debug, Default)]
struct Scope {
    namespace: Option<String>,
    all_namespaces: bool,
}

/// The command line a call stands for: `kubectl-wasctl COMMAND --flag=value… -o json --
/// POSITIONAL…`, built only from the command's own served flags.
fn command_line(
    spec: &ToolSpec,
    args: &Map<String, Value>,
) -> Result<(Vec<String>, Scope), String> {
    let command = subcommand(spec.name)?;
    let served: Vec<&clap::Arg> = served_args(&command).collect();
    let mut argv = vec!["kubectl-wasctl".to_owned(), spec.name.to_owned()];
    let mut positionals = Vec::new();
    let mut scope = Scope::default();
    for (key, value) in args {
        match (key.as_str(), value) {
            (_, Value::Null) => continue,
            ("namespace", Value::String(ns)) if spec.namespaced => {
                scope.namespace = Some(ns.clone());
                continue;
            }
            ("allNamespaces", Value::Bool(all)) if spec.namespaced => {
                scope.all_namespaces = *all;
                continue;
            }
            ("namespace" | "allNamespaces", _) if spec.namespaced => {
                return Err(format!("`{key}` has the wrong type: {value}"));
            }
            _ => {}
        }
        let Some(arg) = served.iter().find(|a| property_name(a) == *key) else {
            let mut names: Vec<String> = served.iter().map(|a| property_name(a)).collect();
            if spec.namespaced {
                names.extend(["namespace".to_owned(), "allNamespaces".to_owned()]);
            }
            names.extend(PAGING.map(str::to_owned));
            return Err(format!(
                "unknown argument `{key}`; `{}` takes: {}",
                spec.name,
                names.join(", ")
            ));
        };
        let values = argument_values(key, value)?;
        if arg.is_positional() {
            positionals.extend(
                values
                    .iter()
                    .flat_map(|v| v.split_whitespace().map(str::to_owned)),
            );
        } else if let Some(long) = arg.get_long() {
            if matches!(arg.get_action(), ArgAction::SetTrue) {
                match value {
                    Value::Bool(true) => argv.push(format!("--{long}")),
                    Value::Bool(false) => {}
                    _ => return Err(format!("`{key}` is true or false, not {value}")),
                }
            } else {
                argv.extend(values.iter().map(|v| format!("--{long}={v}")));
            }
        }
    }
    argv.extend(["-o".to_owned(), "json".to_owned(), "--".to_owned()]);
    argv.extend(positionals);
    Ok((argv, scope))
}

/// A call argument's values as command-line words; `-` (stdin) is refused: stdin carries the
/// MCP messages.
fn argument_values(key: &str, value: &Value) -> Result<Vec<String>, String> {
    let word = |v: &Value| match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        other => Err(format!("`{key}` takes strings or numbers, not {other}")),
    };
    let words = match value {
        Value::Array(items) => items.iter().map(word).collect::<Result<Vec<_>, _>>()?,
        other => vec![word(other)?],
    };
    if words.iter().any(|w| w == "-") {
        return Err(format!(
            "`{key}`: `-` (stdin) cannot be read, stdin carries the MCP messages; pass a file path"
        ));
    }
    Ok(words)
}

/// The clap definition of one command.
fn subcommand(name: &str) -> Result<clap::Command, String> {
    Cli::command()
        .find_subcommand(name)
        .cloned()
        .ok_or_else(|| format!("no command `{name}`"))
}

/// The command's flags a tool takes: not hidden, not global, not in [`NOT_SERVED`].
fn served_args(command: &clap::Command) -> impl Iterator<Item = &clap::Arg> {
    command.get_arguments().filter(|a| {
        !a.is_hide_set() && !a.is_global_set() && !NOT_SERVED.contains(&a.get_id().as_str())
    })
}

/// A flag's name in a tool's input: the long flag in camelCase (`--add-nodes` → `addNodes`),
/// a positional's field name (`target`, `paths`).
fn property_name(arg: &clap::Arg) -> String {
    let raw = arg.get_long().unwrap_or(arg.get_id().as_str());
    let mut out = String::with_capacity(raw.len());
    let mut upper = false;
    for c in raw.chars() {
        if c == '-' || c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// A flag's JSON Schema: boolean for a switch, an integer or an enum where clap parses one,
/// an array for a repeatable flag; a positional target is one string (`pg/NAME`).
fn property_schema(arg: &clap::Arg) -> Map<String, Value> {
    let mut schema = Map::new();
    if matches!(arg.get_action(), ArgAction::SetTrue) {
        schema.insert("type".into(), "boolean".into());
    } else {
        let possible: Vec<Value> = arg
            .get_possible_values()
            .iter()
            .filter(|v| !v.is_hide_set())
            .map(|v| v.get_name().into())
            .collect();
        let parser = arg.get_value_parser().type_id();
        let integer = [
            std::any::TypeId::of::<u32>(),
            std::any::TypeId::of::<u64>(),
            std::any::TypeId::of::<usize>(),
        ]
        .iter()
        .any(|t| parser == *t);
        let scalar = if !possible.is_empty() {
            json!({ "type": "string", "enum": possible })
        } else if integer {
            json!({ "type": "integer", "minimum": 0 })
        } else {
            json!({ "type": "string" })
        };
        let many = matches!(arg.get_action(), ArgAction::Append) && arg.get_id() != "target";
        let value = if many {
            json!({ "type": "array", "items": scalar })
        } else {
            scalar
        };
        if let Value::Object(m) = value {
            schema = m;
        }
    }
    if let Some(help) = arg.get_help() {
        schema.insert("description".into(), help.to_string().into());
    }
    schema
}

/// A tool's input schema: its command's served flags, the scope, and paging.
fn input_schema(spec: &ToolSpec, command: &clap::Command) -> Map<String, Value> {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for arg in served_args(command) {
        let name = property_name(arg);
        if arg.is_required_set() {
            required.push(Value::from(name.clone()));
        }
        properties.insert(name, Value::Object(property_schema(arg)));
    }
    if spec.namespaced {
        properties.insert(
            "namespace".into(),
            json!({ "type": "string", "description": "The namespace to show (as `-n`; default: the server's `-n`, else every namespace for files and the demo, the context's namespace live)." }),
        );
        properties.insert(
            "allNamespaces".into(),
            json!({ "type": "boolean", "description": "Show every namespace (as `-A`)." }),
        );
    }
    properties.insert(
        "limit".into(),
        json!({ "type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "description": "Items per page (units, findings, tree roots, diagnoses); default: the server's `--limit` (200)." }),
    );
    properties.insert(
        "continue".into(),
        json!({ "type": "string", "description": "The `metadata.continue` token of the previous page; pass the same other arguments." }),
    );
    let mut schema = Map::new();
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    schema.insert("additionalProperties".into(), false.into());
    schema
}

/// A tool's output schema: the `-o json` envelope of its kinds, with the page's metadata.
fn output_schema(spec: &ToolSpec) -> Map<String, Value> {
    let schema = json!({
        "type": "object",
        "description": "The command's `-o json` document (docs/json.md); a paged list carries `metadata.continue` and `metadata.remainingItemCount` while items remain.",
        "properties": {
            "apiVersion": { "const": crate::snapshot::facts::WASCTL_API_VERSION },
            "kind": { "enum": spec.kinds },
            "metadata": {
                "type": "object",
                "properties": {
                    "continue": { "type": "string" },
                    "remainingItemCount": { "type": "integer", "minimum": 0 }
                }
            }
        },
        "required": ["apiVersion", "kind"]
    });
    match schema {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// The tools, as `tools/list` answers.
fn tools() -> Vec<Tool> {
    TOOLS
        .iter()
        .filter_map(|spec| {
            let command = subcommand(spec.name).ok()?;
            let about = command
                .get_about()
                .map(ToString::to_string)
                .unwrap_or_default();
            let about = about.trim_end_matches('.');
            let paged = spec
                .kinds
                .iter()
                .filter_map(|k| paged_key(k))
                .collect::<Vec<_>>();
            let description = format!(
                "{about}. Read-only; the result is `kubectl wasctl {} -o json` (kind {}){}.",
                spec.name,
                spec.kinds.join(" or "),
                if paged.is_empty() {
                    String::new()
                } else {
                    format!(
                        ", `{}` paged with `limit` and `continue`",
                        paged.join("`/`")
                    )
                }
            );
            let mut tool = Tool::new(spec.name, description, input_schema(spec, &command));
            tool.output_schema = Some(Arc::new(output_schema(spec)));
            Some(
                tool.with_annotations(
                    ToolAnnotations::new()
                        .read_only(true)
                        .destructive(false)
                        .idempotent(true),
                ),
            )
        })
        .collect()
}

/// The length of a document's paged array, when its kind pages one.
fn paged_len(doc: &Value) -> Option<usize> {
    let key = paged_key(doc.get("kind")?.as_str()?)?;
    doc.get(key)?.as_array().map(Vec::len)
}

/// `ID.OFFSET`, as [`page`] writes it.
fn parse_token(token: &str) -> Result<(u64, usize), String> {
    token
        .split_once('.')
        .and_then(|(id, offset)| Some((id.parse().ok()?, offset.parse().ok()?)))
        .filter(|(id, _)| *id > 0)
        .ok_or_else(|| {
            format!("`continue` is not a token this server gave (`{token}`): pass `metadata.continue` of the previous page")
        })
}

/// The page of `doc` from `offset`: its paged array cut to `limit` items, with
/// `metadata.continue` (`ID.OFFSET`) and `metadata.remainingItemCount` while items remain.
fn page(doc: &Value, offset: usize, limit: usize, id: u64) -> Value {
    let Some(key) = doc.get("kind").and_then(Value::as_str).and_then(paged_key) else {
        return doc.clone();
    };
    let Value::Object(fields) = doc else {
        return doc.clone();
    };
    let mut out = Map::new();
    let mut remaining = 0;
    for (name, value) in fields {
        match value {
            Value::Array(items) if name == key => {
                let start = offset.min(items.len());
                let end = start.saturating_add(limit).min(items.len());
                remaining = items.len() - end;
                out.insert(name.clone(), Value::Array(items[start..end].to_vec()));
            }
            other => {
                out.insert(name.clone(), other.clone());
            }
        }
    }
    if remaining > 0 {
        let next = offset.saturating_add(limit);
        out.insert(
            "metadata".into(),
            json!({ "continue": format!("{id}.{next}"), "remainingItemCount": remaining }),
        );
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str) -> &'static ToolSpec {
        TOOLS.iter().find(|t| t.name == name).expect("a tool")
    }

    #[test]
    fn every_tool_is_a_command_and_its_schema_names_its_flags() {
        let tools = tools();
        assert_eq!(tools.len(), TOOLS.len());
        let simulate = tools
            .iter()
            .find(|t| t.name == "simulate")
            .expect("simulate");
        let props = simulate.input_schema["properties"]
            .as_object()
            .expect("properties");
        for name in [
            "addNodes",
            "like",
            "drain",
            "cordon",
            "add",
            "only",
            "selector",
            "noPreemption",
            "namespace",
            "limit",
            "continue",
        ] {
            assert!(props.contains_key(name), "{name} missing: {props:?}");
        }
        for name in ["output", "watch"] {
            assert!(!props.contains_key(name), "{name} served");
        }
        assert_eq!(props["addNodes"]["type"], "integer");
        assert_eq!(props["drain"]["type"], "array");
        assert_eq!(props["mode"]["enum"], json!(["exhaustive", "compat"]));
        let explain = tools.iter().find(|t| t.name == "explain").expect("explain");
        assert_eq!(explain.input_schema["required"], json!(["target"]));
        assert_eq!(
            explain.input_schema["properties"]["target"]["type"],
            "string"
        );
        let lint = tools.iter().find(|t| t.name == "lint").expect("lint");
        assert!(
            !lint.input_schema["properties"]
                .as_object()
                .expect("props")
                .contains_key("namespace")
        );
    }

    #[test]
    fn a_call_is_the_command_line_it_stands_for() {
        let args = json!({ "target": "pg/big-train-workers", "namespace": "ml", "addNodes": 2, "like": "gpu-b1", "drain": ["gpu-a1"], "noPreemption": true });
        let Value::Object(args) = args else {
            unreachable!()
        };
        let (argv, scope) = command_line(spec("explain"), &args).expect("a command line");
        assert_eq!(
            argv,
            [
                "kubectl-wasctl",
                "explain",
                "--add-nodes=2",
                "--drain=gpu-a1",
                "--like=gpu-b1",
                "--no-preemption",
                "-o",
                "json",
                "--",
                "pg/big-train-workers"
            ]
        );
        assert_eq!(scope.namespace.as_deref(), Some("ml"));
        assert!(Cli::try_parse_from(&argv).is_ok());
    }

    #[test]
    fn unknown_arguments_and_stdin_are_refused() {
        let Value::Object(args) = json!({ "output": "yaml" }) else {
            unreachable!()
        };
        let e = command_line(spec("simulate"), &args).expect_err("refused");
        assert!(
            e.contains("unknown argument `output`") && e.contains("addNodes"),
            "{e}"
        );
        let Value::Object(args) = json!({ "paths": ["-"] }) else {
            unreachable!()
        };
        let e = command_line(spec("lint"), &args).expect_err("refused");
        assert!(e.contains("stdin"), "{e}");
        let Value::Object(args) = json!({ "namespace": "ml" }) else {
            unreachable!()
        };
        let e = command_line(spec("lint"), &args).expect_err("refused");
        assert!(e.contains("unknown argument `namespace`"), "{e}");
    }

    #[test]
    fn pages_cut_the_kinds_list_and_say_what_remains() {
        let doc = json!({ "apiVersion": "wasctl.dev/v1alpha1", "kind": "DoctorReport",
                          "summary": { "errors": 5 }, "findings": [1, 2, 3, 4, 5] });
        let first = page(&doc, 0, 2, 7);
        assert_eq!(first["findings"], json!([1, 2]));
        assert_eq!(first["summary"], doc["summary"]);
        assert_eq!(
            first["metadata"],
            json!({ "continue": "7.2", "remainingItemCount": 3 })
        );
        assert_eq!(parse_token("7.2"), Ok((7, 2)));
        let last = page(&doc, 4, 2, 7);
        assert_eq!(last["findings"], json!([5]));
        assert!(last.get("metadata").is_none());
        assert!(parse_token("x").is_err() && parse_token("0.2").is_err());
        let whole = json!({ "kind": "CapacityReport", "copies": 3 });
        assert_eq!(page(&whole, 0, 1, 1), whole);
    }

    #[test]
    fn a_token_answers_only_its_own_call() {
        let mut results = Results::default();
        let Value::Object(args) = json!({ "selector": "a=b" }) else {
            unreachable!()
        };
        let id = results.keep("simulate", args.clone(), Arc::new(json!({})));
        assert!(results.find(id, "simulate", &args).is_ok());
        assert!(results.find(id, "doctor", &args).is_err());
        assert!(results.find(id, "simulate", &Map::new()).is_err());
        for _ in 0..KEPT_RESULTS {
            results.keep("simulate", Map::new(), Arc::new(json!({})));
        }
        let e = results.find(id, "simulate", &args).expect_err("expired");
        assert!(e.contains("expired"), "{e}");
    }
}
