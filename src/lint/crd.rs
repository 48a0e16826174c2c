//! Custom resources checked against their CustomResourceDefinitions, as kubeconform does it
//! (issue 52 item 4): CRDs among the linted files, given with `--crd FILE|DIR`, or read from
//! the cluster with `--crd-from-cluster` become, per served version, a JSON Schema the
//! `jsonschema` crate validates (`WAS004`), an unknown-field walk (`WAS003`: the API server
//! prunes fields the structural schema does not have, and strict field validation rejects
//! them), and the CEL `x-kubernetes-validations` rules, evaluated with the `cel` crate and the
//! Kubernetes CEL library (`kube-cel`) that the DRA selectors use (`WAS007` when a rule fails,
//! `WAS008` info when wasctl cannot evaluate one).
//!
//! Structural-schema semantics follow upstream `k8s.io/apiextensions-apiserver`:
//! `pkg/apiserver/schema/structural.go` (the schema's shape), `pkg/apiserver/schema/pruning`
//! (unknown fields, `x-kubernetes-preserve-unknown-fields`, `x-kubernetes-embedded-resource`:
//! `apiVersion`, `kind` and `metadata` are implicit), `pkg/apiserver/validation` (OpenAPI v3.0
//! to JSON Schema: `nullable`, `x-kubernetes-int-or-string`, the boolean `exclusiveMaximum`),
//! and `pkg/apiserver/schema/cel/validation.go` (`self` is the value at the rule's node; a rule
//! with `oldSelf` is a transition rule, only run on updates; `fieldPath` is relative to the
//! node; the default message is "failed rule: RULE"). Null values are pruned before validation
//! unless `nullable` (`pkg/apiserver/schema/defaulting/prunenulls.go`), so a `null` field is
//! an unset field here too. Pure: no IO.

use std::collections::BTreeMap;
use std::sync::Arc;

use kube_cel::KubeCelExt as _;
use kube_cel::cel::objects::{Key, Map as CelMap};
use kube_cel::cel::{Context, Program, Value as CelValue};
use serde_json::{Map, Value, json};

use super::value::{did_you_mean, get_str};
use super::{Emitter, FieldValidation, Object, Options, Rule, Severity};

/// The `apiVersion` of the CRDs lint reads (`apiextensions.k8s.io/v1beta1` was removed in 1.22).
pub(crate) const CRD_API_VERSION: &str = "apiextensions.k8s.io/v1";
/// The kind of a CRD.
pub(crate) const CRD_KIND: &str = "CustomResourceDefinition";

/// At most this many schema errors per object, as for the built-in kinds.
const MAX_SCHEMA_ERRORS: usize = 10;

/// One served version of a CRD, ready to check objects with.
pub(crate) struct Served {
    /// The CRD's name (`podgroups.scheduling.volcano.sh`).
    pub crd: String,
    /// Where the CRD came from (a file, `--crd`, the cluster).
    pub origin: String,
    /// `spec.versions[].schema.openAPIV3Schema`, as written.
    schema: Option<Value>,
    /// The schema turned into JSON Schema and compiled, or why it could not be.
    validator: Result<Arc<jsonschema::Validator>, String>,
    /// `deprecationWarning` (or a default) when the version is deprecated.
    pub deprecated: Option<String>,
}

impl std::fmt::Debug for Served {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Served")
            .field("crd", &self.crd)
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

/// The CRDs of a run: per (group, kind), the CRD's name and its versions (served or not).
#[derive(Debug, Default)]
pub(crate) struct CrdSet {
    kinds: BTreeMap<(String, String), Kind>,
}

#[derive(Debug)]
struct Kind {
    crd: String,
    versions: BTreeMap<String, Option<Served>>,
}

/// What a CRD set says about one object's apiVersion and kind.
#[derive(Debug)]
pub(crate) enum Lookup<'a> {
    /// No CRD defines the kind.
    Unknown,
    /// A CRD defines the kind but does not serve the version: its name and served versions.
    NotServed(&'a str, Vec<&'a str>),
    /// A served version.
    Served(&'a Served),
}

impl CrdSet {
    /// Adds a CRD (`origin` names where it came from). The first CRD of a (group, kind) wins:
    /// the linted files' own, then `--crd`, then the cluster's. Anything that is not a v1 CRD
    /// with a group, a kind and versions is skipped (the CRD's own findings say why).
    pub(crate) fn add(&mut self, crd: &Value, origin: &str) {
        if get_str(crd, "apiVersion") != Some(CRD_API_VERSION)
            || get_str(crd, "kind") != Some(CRD_KIND)
        {
            return;
        }
        let (Some(group), Some(kind)) =
            (get_str(crd, "spec.group"), get_str(crd, "spec.names.kind"))
        else {
            return;
        };
        let key = (group.to_owned(), kind.to_owned());
        if self.kinds.contains_key(&key) {
            return;
        }
        let name = get_str(crd, "metadata.name").unwrap_or_default().to_owned();
        let mut versions = BTreeMap::new();
        for v in crd
            .pointer("/spec/versions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(version) = v.get("name").and_then(Value::as_str) else {
                continue;
            };
            let served = v.get("served").and_then(Value::as_bool) == Some(true);
            let entry = served.then(|| {
                let schema = v.pointer("/schema/openAPIV3Schema").cloned();
                let validator = match &schema {
                    Some(s) => jsonschema::validator_for(&to_json_schema(s))
                        .map(Arc::new)
                        .map_err(|e| e.to_string()),
                    None => Err("the version has no `schema.openAPIV3Schema`".to_owned()),
                };
                let deprecated =
                    (v.get("deprecated").and_then(Value::as_bool) == Some(true)).then(|| {
                        v.get("deprecationWarning")
                            .and_then(Value::as_str)
                            .map_or_else(
                                || format!("{group}/{version} {kind} is deprecated"),
                                str::to_owned,
                            )
                    });
                Served {
                    crd: name.clone(),
                    origin: origin.to_owned(),
                    schema,
                    validator,
                    deprecated,
                }
            });
            versions.insert(version.to_owned(), entry);
        }
        self.kinds.insert(
            key,
            Kind {
                crd: name,
                versions,
            },
        );
    }

    /// How many kinds the set defines.
    pub(crate) fn len(&self) -> usize {
        self.kinds.len()
    }

    /// What the set says about `group`/`version` `kind`.
    pub(crate) fn lookup(&self, group: &str, version: &str, kind: &str) -> Lookup<'_> {
        let Some(k) = self.kinds.get(&(group.to_owned(), kind.to_owned())) else {
            return Lookup::Unknown;
        };
        match k.versions.get(version) {
            Some(Some(served)) => Lookup::Served(served),
            _ => Lookup::NotServed(
                &k.crd,
                k.versions
                    .iter()
                    .filter(|(_, s)| s.is_some())
                    .map(|(v, _)| v.as_str())
                    .collect(),
            ),
        }
    }
}

/// Keys of an OpenAPI v3.0 schema node copied as they are into JSON Schema.
const COPIED: &[&str] = &[
    "minimum",
    "maximum",
    "multipleOf",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxProperties",
    "minProperties",
    "required",
];

/// An OpenAPI v3.0 structural schema node as JSON Schema (draft 2020-12). Unknown fields are
/// not part of it (the API server prunes them: [`unknown_fields`] reports them), nor are the
/// CEL rules ([`cel_targets`]), `format` (upstream checks only a few formats, and the
/// `jsonschema` crate would treat the others as annotations anyway) and `default`.
pub(crate) fn to_json_schema(node: &Value) -> Value {
    let Some(m) = node.as_object() else {
        return json!({});
    };
    let mut out = Map::new();
    let nullable = m.get("nullable").and_then(Value::as_bool) == Some(true);
    if m.get("x-kubernetes-int-or-string").and_then(Value::as_bool) == Some(true) {
        let mut any = vec![json!({"type": "integer"}), json!({"type": "string"})];
        if nullable {
            any.push(json!({"type": "null"}));
        }
        out.insert("anyOf".to_owned(), Value::Array(any));
    } else if let Some(t) = m
        .get("type")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
    {
        let t = Value::String(t.to_owned());
        out.insert(
            "type".to_owned(),
            if nullable { json!([t, "null"]) } else { t },
        );
    }
    for key in COPIED {
        if let Some(v) = m.get(*key) {
            out.insert((*key).to_owned(), v.clone());
        }
    }
    if let Some(Value::Array(values)) = m.get("enum") {
        let mut values = values.clone();
        if nullable {
            values.push(Value::Null);
        }
        out.insert("enum".to_owned(), Value::Array(values));
    }
    // OpenAPI v3.0's boolean exclusive bounds are JSON Schema's numeric ones.
    for (flag, bound) in [
        ("exclusiveMaximum", "maximum"),
        ("exclusiveMinimum", "minimum"),
    ] {
        if m.get(flag).and_then(Value::as_bool) == Some(true)
            && let Some(b) = out.remove(bound)
        {
            out.insert(flag.to_owned(), b);
        }
    }
    if let Some(Value::Object(props)) = m.get("properties") {
        let converted: Map<String, Value> = props
            .iter()
            .map(|(k, v)| (k.clone(), to_json_schema(v)))
            .collect();
        out.insert("properties".to_owned(), Value::Object(converted));
    }
    match m.get("additionalProperties") {
        Some(Value::Bool(b)) => {
            out.insert("additionalProperties".to_owned(), Value::Bool(*b));
        }
        Some(v @ Value::Object(_)) => {
            out.insert("additionalProperties".to_owned(), to_json_schema(v));
        }
        _ => {}
    }
    if let Some(items @ Value::Object(_)) = m.get("items") {
        out.insert("items".to_owned(), to_json_schema(items));
    }
    // `anyOf` of an int-or-string node is already taken: a combinator that would clash is
    // nested under `allOf`.
    let mut nested = Vec::new();
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(list)) = m.get(key) {
            let converted: Vec<Value> = list.iter().map(to_json_schema).collect();
            if key == "allOf" {
                nested.extend(converted);
            } else if out.contains_key(key) {
                nested.push(json!({ key: converted }));
            } else {
                out.insert(key.to_owned(), Value::Array(converted));
            }
        }
    }
    if !nested.is_empty() {
        out.insert("allOf".to_owned(), Value::Array(nested));
    }
    if let Some(not) = m.get("not") {
        out.insert("not".to_owned(), to_json_schema(not));
    }
    Value::Object(out)
}

/// Appends `key` to a field path (in brackets when it holds a `.` or brackets).
fn join(path: &str, key: &str) -> String {
    let mut out = path.to_owned();
    if key.contains(['.', '[', ']']) {
        out.push_str(&format!("[{key}]"));
    } else {
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(key);
    }
    out
}

fn flag(m: &Map<String, Value>, key: &str) -> bool {
    m.get(key).and_then(Value::as_bool) == Some(true)
}

/// The fields of `value` the structural schema `node` does not have, which the API server
/// prunes (and strict field validation rejects), as field paths. `root` is the object's own
/// level, where `apiVersion`, `kind` and `metadata` are implicit (`metadata` is checked
/// against `ObjectMeta` by the caller).
pub(crate) fn unknown_fields(
    node: &Value,
    value: &Value,
    path: &str,
    root: bool,
    out: &mut Vec<String>,
) {
    let Some(m) = node.as_object() else {
        return;
    };
    match value {
        Value::Object(fields) => {
            let props = m.get("properties").and_then(Value::as_object);
            let additional = m.get("additionalProperties");
            let preserve = flag(m, "x-kubernetes-preserve-unknown-fields");
            let embedded = flag(m, "x-kubernetes-embedded-resource");
            for (k, v) in fields {
                let at = join(path, k);
                if (root || embedded) && matches!(k.as_str(), "apiVersion" | "kind" | "metadata") {
                    continue;
                }
                if let Some(p) = props.and_then(|p| p.get(k)) {
                    unknown_fields(p, v, &at, false, out);
                } else if let Some(a @ Value::Object(_)) = additional {
                    unknown_fields(a, v, &at, false, out);
                } else if !(preserve || additional == Some(&Value::Bool(true))) {
                    out.push(at);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = m.get("items") {
                for (i, v) in items.iter().enumerate() {
                    unknown_fields(item, v, &format!("{path}[{i}]"), false, out);
                }
            }
        }
        _ => {}
    }
}

/// One CEL rule at one node of an object: the node's path, the rule, and `self`.
#[derive(Debug)]
pub(crate) struct Target<'a> {
    /// Field path of the node (`spec`, `spec.podSets[0]`; empty at the root).
    pub path: String,
    /// Index of the rule in the node's `x-kubernetes-validations`.
    pub index: usize,
    /// The rule (`rule`, `message`, `messageExpression`, `fieldPath`, `reason`).
    pub rule: &'a Value,
    /// The value at the node.
    pub this: &'a Value,
}

/// Every `x-kubernetes-validations` rule of `node` and below that applies to `value` (a rule
/// of a field that is absent or null does not run).
pub(crate) fn cel_targets<'a>(
    node: &'a Value,
    value: &'a Value,
    path: &str,
    out: &mut Vec<Target<'a>>,
) {
    let Some(m) = node.as_object() else {
        return;
    };
    if value.is_null() {
        return;
    }
    if let Some(Value::Array(rules)) = m.get("x-kubernetes-validations") {
        for (index, rule) in rules.iter().enumerate() {
            out.push(Target {
                path: path.to_owned(),
                index,
                rule,
                this: value,
            });
        }
    }
    match value {
        Value::Object(fields) => {
            let props = m.get("properties").and_then(Value::as_object);
            let additional = m.get("additionalProperties").filter(|a| a.is_object());
            for (k, v) in fields {
                if let Some(p) = props.and_then(|p| p.get(k)).or(additional) {
                    cel_targets(p, v, &join(path, k), out);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = m.get("items") {
                for (i, v) in items.iter().enumerate() {
                    cel_targets(item, v, &format!("{path}[{i}]"), out);
                }
            }
        }
        _ => {}
    }
}

/// What became of one CEL rule.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The rule holds.
    Holds,
    /// The rule is false: the message to report (`message`, `messageExpression`, or
    /// upstream's default).
    Fails(String),
    /// wasctl cannot evaluate it: why.
    NotEvaluated(String),
}

thread_local! {
    /// One CEL environment per thread (building it registers every function).
    static CEL: Context<'static> = Context::default().with_all();
}

/// Evaluates one rule with `self` bound to `this`.
pub(crate) fn evaluate(rule: &Value, this: &Value) -> Verdict {
    let Some(text) = rule.get("rule").and_then(Value::as_str) else {
        return Verdict::NotEvaluated("the entry has no `rule`".to_owned());
    };
    let program = match Program::compile(text) {
        Ok(p) => p,
        Err(e) => {
            let e = e.to_string();
            let first = e.lines().next().unwrap_or(&e).to_owned();
            return Verdict::NotEvaluated(format!("it does not compile here: {first}"));
        }
    };
    if program.references().has_variable("oldSelf") {
        return Verdict::NotEvaluated(
            "it is a transition rule (`oldSelf`): it compares an update with the stored object, which lint does not have"
                .to_owned(),
        );
    }
    let value = cel_value(this);
    CEL.with(|env| {
        let mut ctx = env.new_inner_scope();
        ctx.add_variable_from_value("self", value);
        match program.execute(&ctx) {
            Ok(CelValue::Bool(true)) => Verdict::Holds,
            Ok(CelValue::Bool(false)) => Verdict::Fails(message_of(rule, text, &ctx)),
            Ok(other) => {
                Verdict::NotEvaluated(format!("it returns {}, not a bool", cel_type(&other)))
            }
            Err(e) => Verdict::NotEvaluated(format!("evaluating it failed here: {e}")),
        }
    })
}

/// A JSON value as CEL sees it in a custom resource: integers are `int` (`uint` only past
/// `i64`), other numbers `double`, objects maps with string keys.
fn cel_value(v: &Value) -> CelValue {
    match v {
        Value::Null => CelValue::Null,
        Value::Bool(b) => CelValue::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => CelValue::Int(i),
            (None, Some(u), _) => CelValue::UInt(u),
            (None, None, f) => CelValue::Float(f.unwrap_or(f64::NAN)),
        },
        Value::String(s) => CelValue::String(Arc::new(s.clone())),
        Value::Array(items) => CelValue::List(Arc::new(items.iter().map(cel_value).collect())),
        Value::Object(m) => {
            let entries: std::collections::HashMap<Key, CelValue> = m
                .iter()
                .map(|(k, v)| (Key::String(Arc::new(k.clone())), cel_value(v)))
                .collect();
            CelValue::Map(CelMap::from(entries))
        }
    }
}

fn cel_type(v: &CelValue) -> &'static str {
    match v {
        CelValue::List(_) => "a list",
        CelValue::Map(_) => "a map",
        CelValue::Int(_) | CelValue::UInt(_) => "an integer",
        CelValue::Float(_) => "a double",
        CelValue::String(_) => "a string",
        CelValue::Null => "null",
        _ => "a value",
    }
}

/// The failing rule's message: `messageExpression` when it evaluates to a string, else
/// `message`, else upstream's "failed rule: RULE".
fn message_of(rule: &Value, text: &str, ctx: &Context<'_>) -> String {
    if let Some(expr) = rule.get("messageExpression").and_then(Value::as_str)
        && let Ok(p) = Program::compile(expr)
        && let Ok(CelValue::String(s)) = p.execute(ctx)
        && !s.trim().is_empty()
    {
        return s.to_string();
    }
    match rule.get("message").and_then(Value::as_str) {
        Some(m) if !m.trim().is_empty() => m.to_owned(),
        _ => format!("failed rule: {text}"),
    }
}

/// A rule's `fieldPath` (`.spec.replicas`, `.labels['app']`, relative to the rule's node) as
/// a field path under `base`.
pub(crate) fn field_path(base: &str, field_path: &str) -> String {
    let mut out = base.to_owned();
    let mut rest = field_path.trim();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            out = join(&out, &r[..end]);
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']').unwrap_or(r.len());
            let inner = r[..end].trim_matches(['\'', '"']);
            if inner.bytes().all(|b| b.is_ascii_digit()) && !inner.is_empty() {
                out.push_str(&format!("[{inner}]"));
            } else {
                out = join(&out, inner);
            }
            rest = r.get(end + 1..).unwrap_or("");
        } else {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            out = join(&out, &rest[..end]);
            rest = &rest[end..];
        }
    }
    out
}

/// Checks a custom resource against its CRD's served version.
pub(crate) fn check(obj: &Object, options: &Options, served: &Served, em: &mut Emitter<'_>) {
    let what = format!("the `{}` CRD ({})", served.crd, served.origin);
    if let Some(warning) = &served.deprecated {
        em.emit_at_value(
            Rule::DeprecatedApiVersion,
            obj,
            "apiVersion",
            format!("`{}` is deprecated by {what}: {warning}", obj.api_version),
            "move to the version the CRD serves as current",
        );
    }
    let validator =
        match &served.validator {
            Ok(v) => v,
            Err(e) => {
                em.emit(
                Rule::CrdCheckSkipped,
                obj,
                "",
                format!("the schema of `{}` in {what} cannot be used: {e}", obj.api_version),
                "fix the CRD's `openAPIV3Schema`; until then the object's fields are not checked",
            );
                return;
            }
        };
    let explain = |path: &str| {
        format!(
            "`kubectl explain {}{}{path}` shows the expected type",
            obj.kind.to_ascii_lowercase(),
            if path.is_empty() { "" } else { "." }
        )
    };
    let errors: Vec<(String, String)> = validator
        .iter_errors(&obj.value)
        .filter(|e| !e.instance().is_null())
        .take(MAX_SCHEMA_ERRORS)
        .map(|e| {
            (
                super::schema::pointer_to_path(e.instance_path().as_str()),
                e.to_string(),
            )
        })
        .collect();
    for (path, message) in &errors {
        let field = if path.is_empty() {
            "the object".to_owned()
        } else {
            format!("field `{path}`")
        };
        em.emit(
            Rule::InvalidObject,
            obj,
            path,
            format!("{field} does not match the schema of {what}: {message}"),
            explain(path),
        );
    }
    let Some(schema) = &served.schema else {
        return;
    };
    check_unknown_fields(obj, options, schema, &what, em);
    check_rules(obj, schema, &what, em);
}

/// Fields the schema does not have (`WAS003`, as strict as `--field-validation`).
fn check_unknown_fields(
    obj: &Object,
    options: &Options,
    schema: &Value,
    what: &str,
    em: &mut Emitter<'_>,
) {
    if options.field_validation != FieldValidation::Ignore {
        let severity =
            (options.field_validation == FieldValidation::Warn).then_some(Severity::Warning);
        let mut unknown = Vec::new();
        unknown_fields(schema, &obj.value, "", true, &mut unknown);
        unknown_metadata(&obj.value, &mut unknown);
        for path in unknown {
            let (parent, field) = path.rsplit_once('.').unwrap_or(("", path.as_str()));
            let near = known_fields(schema, parent).and_then(|known| {
                did_you_mean(field, known.iter().map(String::as_str)).map(str::to_owned)
            });
            let message = format!(
                "`{path}` is not a field of `{}` `{}` in {what}: the API server drops it (strict field validation rejects it)",
                obj.api_version, obj.kind
            );
            let (message, fix) = match near {
                Some(near) => (
                    format!("{message}; did you mean `{near}`?"),
                    format!("rename the field to `{near}`"),
                ),
                None => (
                    message,
                    "remove the field or fix its spelling (`kubectl explain` lists the fields)"
                        .to_owned(),
                ),
            };
            em.emit_with(Rule::UnknownField, severity, obj, &path, message, fix);
        }
    }
}

/// The schema's CEL rules (`x-kubernetes-validations`): a failing one is `WAS007`, one wasctl
/// cannot evaluate `WAS008`.
fn check_rules(obj: &Object, schema: &Value, what: &str, em: &mut Emitter<'_>) {
    let mut targets = Vec::new();
    cel_targets(schema, &obj.value, "", &mut targets);
    for t in targets {
        let text = t.rule.get("rule").and_then(Value::as_str).unwrap_or("");
        let rule_path = format!(
            "{}x-kubernetes-validations[{}]",
            if t.path.is_empty() {
                String::new()
            } else {
                format!("{}.", t.path)
            },
            t.index
        );
        match evaluate(t.rule, t.this) {
            Verdict::Holds => {}
            Verdict::Fails(message) => {
                let at = match t.rule.get("fieldPath").and_then(Value::as_str) {
                    Some(fp) => field_path(&t.path, fp),
                    None => t.path.clone(),
                };
                let field = if at.is_empty() {
                    "the object".to_owned()
                } else {
                    format!("`{at}`")
                };
                em.emit(
                    Rule::CrdRuleFailed,
                    obj,
                    &at,
                    format!("{field}: {message} (rule `{text}` of {what})"),
                    "change the object so that the rule holds; the API server rejects it as it is",
                );
            }
            Verdict::NotEvaluated(why) => em.emit(
                Rule::CrdCheckSkipped,
                obj,
                &t.path,
                format!("rule `{text}` ({rule_path} of {what}) was not evaluated: {why}"),
                "nothing to fix here if the rule is right; the API server evaluates it on apply",
            ),
        }
    }
}

/// `metadata` fields that `ObjectMeta` does not have (a custom resource's metadata is the
/// standard one whatever its schema says).
fn unknown_metadata(value: &Value, out: &mut Vec<String>) {
    let Some(meta) = value.get("metadata").and_then(Value::as_object) else {
        return;
    };
    let shapes = super::schema::shapes();
    let Some(def) = shapes.defs.values().find(|d| d.short == "meta.ObjectMeta") else {
        return;
    };
    for k in meta.keys() {
        if !def.props.contains_key(k) {
            out.push(join("metadata", k));
        }
    }
}

/// The property names of the schema node at `path` (for "did you mean").
fn known_fields(schema: &Value, path: &str) -> Option<Vec<String>> {
    let mut node = schema;
    for seg in super::span::parse_path(path) {
        node = match seg {
            super::span::Segment::Key(k) => node
                .pointer("/properties")
                .and_then(|p| p.get(&k))
                .or_else(|| node.get("additionalProperties").filter(|a| a.is_object()))?,
            super::span::Segment::Index(_) => node.get("items")?,
        };
    }
    node.get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
}

/// The API server's checks of a CRD itself that decide whether lint can use it
/// (`ValidateCustomResourceDefinition` in
/// `k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go`): the name
/// is `<plural>.<group>`, a scope, at least one version, exactly one storage version, and a
/// schema per version that wasctl can compile.
pub(crate) fn check_definition(obj: &Object, em: &mut Emitter<'_>) {
    let v = &obj.value;
    let group = get_str(v, "spec.group").unwrap_or("");
    let plural = get_str(v, "spec.names.plural").unwrap_or("");
    for (path, present) in [
        ("spec.group", !group.is_empty()),
        ("spec.names.plural", !plural.is_empty()),
        (
            "spec.names.kind",
            get_str(v, "spec.names.kind").is_some_and(|k| !k.is_empty()),
        ),
    ] {
        if !present {
            em.emit(
                Rule::InvalidObject,
                obj,
                path,
                format!("`{path}` is missing: the API server refuses the CRD"),
                format!("set `{path}`"),
            );
        }
    }
    if !group.is_empty() && !plural.is_empty() && obj.name() != format!("{plural}.{group}") {
        em.emit_at_value(
            Rule::InvalidObject,
            obj,
            "metadata.name",
            format!(
                "`metadata.name` must be `{plural}.{group}` (spec.names.plural.spec.group), not `{}`",
                obj.name()
            ),
            format!("name the CRD `{plural}.{group}`"),
        );
    }
    match get_str(v, "spec.scope") {
        Some("Namespaced" | "Cluster") => {}
        other => em.emit(
            Rule::InvalidObject,
            obj,
            "spec.scope",
            format!(
                "`spec.scope` is {}: it must be `Namespaced` or `Cluster`",
                other.map_or_else(|| "missing".to_owned(), |s| format!("`{s}`"))
            ),
            "set `scope: Namespaced` or `scope: Cluster`",
        ),
    }
    let versions = v
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    if versions.is_empty() {
        em.emit(
            Rule::InvalidObject,
            obj,
            "spec.versions",
            "`spec.versions` is missing or empty: a CRD serves at least one version",
            "add a version with `name`, `served`, `storage` and `schema.openAPIV3Schema`",
        );
        return;
    }
    let storage = versions
        .iter()
        .filter(|x| x.get("storage").and_then(Value::as_bool) == Some(true))
        .count();
    if storage != 1 {
        em.emit(
            Rule::InvalidObject,
            obj,
            "spec.versions",
            format!("{storage} versions have `storage: true`: exactly one must"),
            "mark exactly one version `storage: true`",
        );
    }
    for (i, x) in versions.iter().enumerate() {
        let at = format!("spec.versions[{i}]");
        match x.pointer("/schema/openAPIV3Schema") {
            None => em.emit(
                Rule::InvalidObject,
                obj,
                &at,
                format!(
                    "`{at}` has no `schema.openAPIV3Schema`: a v1 CRD needs a schema per version"
                ),
                "add `schema: {openAPIV3Schema: {type: object, …}}`",
            ),
            Some(s) => {
                if let Err(e) = jsonschema::validator_for(&to_json_schema(s)) {
                    em.emit(
                        Rule::InvalidObject,
                        obj,
                        &format!("{at}.schema.openAPIV3Schema"),
                        format!("the schema of `{at}` cannot be compiled: {e}"),
                        "fix the schema (a `pattern` that is not a regular expression, a misplaced keyword)",
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openapi_becomes_json_schema() {
        let s = to_json_schema(&json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer", "maximum": 5, "exclusiveMaximum": true},
                "b": {"x-kubernetes-int-or-string": true},
                "c": {"type": "string", "nullable": true, "enum": ["x"]},
            },
        }));
        let v = jsonschema::validator_for(&s).unwrap();
        assert!(v.is_valid(&json!({"a": 4, "b": "10%", "c": null})));
        assert!(v.is_valid(&json!({"b": 3})));
        assert!(!v.is_valid(&json!({"a": 5})));
        assert!(!v.is_valid(&json!({"b": true})));
        assert!(!v.is_valid(&json!({"c": "y"})));
    }

    #[test]
    fn pruned_fields_are_unknown_unless_preserved() {
        let schema = json!({
            "type": "object",
            "properties": {
                "spec": {"type": "object", "properties": {
                    "minMember": {"type": "integer"},
                    "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                    "map": {"type": "object", "additionalProperties": {"type": "object", "properties": {"x": {"type": "string"}}}},
                    "template": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true},
                }},
            },
        });
        let value = json!({
            "apiVersion": "a/v1", "kind": "K", "metadata": {"name": "n"},
            "spec": {"minMembr": 1, "free": {"any": 1}, "map": {"k": {"x": "", "y": 1}},
                     "template": {"apiVersion": "v1", "kind": "Pod", "spec": {}}},
            "extra": 1,
        });
        let mut out = Vec::new();
        unknown_fields(&schema, &value, "", true, &mut out);
        assert_eq!(out, ["extra", "spec.map.k.y", "spec.minMembr"]);
    }

    #[test]
    fn cel_rules_hold_fail_or_are_not_evaluated() {
        let this = json!({"minMember": 3, "replicas": 2});
        assert_eq!(
            evaluate(&json!({"rule": "self.minMember >= 1"}), &this),
            Verdict::Holds
        );
        assert_eq!(
            evaluate(
                &json!({"rule": "self.minMember <= self.replicas", "message": "too many"}),
                &this
            ),
            Verdict::Fails("too many".to_owned())
        );
        assert_eq!(
            evaluate(
                &json!({"rule": "self.minMember <= self.replicas",
                        "messageExpression": "'minMember ' + string(self.minMember) + ' > replicas'"}),
                &this
            ),
            Verdict::Fails("minMember 3 > replicas".to_owned())
        );
        assert_eq!(
            evaluate(&json!({"rule": "self.replicas == 3"}), &this),
            Verdict::Fails("failed rule: self.replicas == 3".to_owned())
        );
        assert!(matches!(
            evaluate(&json!({"rule": "self.minMember == oldSelf.minMember"}), &this),
            Verdict::NotEvaluated(why) if why.contains("oldSelf")
        ));
        assert!(matches!(
            evaluate(&json!({"rule": "self.minMember >"}), &this),
            Verdict::NotEvaluated(why) if why.contains("compile")
        ));
        assert!(matches!(
            evaluate(&json!({"rule": "noSuchFunction(self)"}), &this),
            Verdict::NotEvaluated(_)
        ));
    }

    #[test]
    fn field_paths_are_relative_to_the_rule() {
        assert_eq!(field_path("spec", ".minMember"), "spec.minMember");
        assert_eq!(field_path("", ".spec.podSets[0]"), "spec.podSets[0]");
        assert_eq!(
            field_path("metadata", ".labels['example.com/x']"),
            "metadata.labels[example.com/x]"
        );
    }
}
