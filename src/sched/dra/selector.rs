//! CEL device selectors, evaluated with a real CEL implementation (the `cel` crate) and the
//! Kubernetes CEL library (`kube-cel`: `quantity()`, `semver()`, string/list/set helpers).
//!
//! The device environment follows upstream `k8s.io/dynamic-resource-allocation/cel`:
//! `device.driver`, `device.attributes["domain"].name`, `device.capacity["domain"].name`
//! (quantities), `device.allowMultipleAllocations`. List-typed attributes (only present with
//! DRAListTypeAttributes) are CEL lists, and upstream's DRA `includes` member function is
//! available (`<scalar or list>.includes(<value>)`: list membership, or equality for a scalar).
//! Each expression is compiled once (only `device` may be referenced: anything else is
//! upstream's compile error "undeclared reference"); each (device, expression) result is
//! cached, since device attributes do not change inside a snapshot.

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use kube_cel::KubeCelExt as _;
use kube_cel::cel::common::ast::{EntryExpr, Expr, IdedEntryExpr, IdedExpr};
use kube_cel::cel::extractors::{Arguments, This};
use kube_cel::cel::objects::{Key, Map};
use kube_cel::cel::{Context, ExecutionError, Program, ResolveResult, Value};

use super::inventory::{AttrValue, Device, DeviceId, Inventory};

/// Index of a compiled expression.
pub type ExprId = usize;

/// Compiled expressions and cached results.
pub struct Selectors {
    context: Context<'static>,
    exprs: Vec<(String, Result<Program, String>)>,
    by_text: HashMap<String, ExprId>,
    results: HashMap<(DeviceId, ExprId), Result<bool, String>>,
    devices: HashMap<DeviceId, Value>,
    /// Node → ((selectors, all pools) → matching devices); see `allocate::candidates`.
    /// Node (by name pointer, see [`super::node_key`]) → candidates per (selectors, all pools).
    candidates: super::FxMap<usize, (std::sync::Arc<str>, Vec<CandidateEntry>)>,
}

type CandidateEntry = ((Vec<ExprId>, bool), Rc<[DeviceId]>);

impl std::fmt::Debug for Selectors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Selectors")
            .field("expressions", &self.exprs.len())
            .field("cached", &self.results.len())
            .finish()
    }
}

/// Upstream's `includes` (`k8s.io/dynamic-resource-allocation/cel`, `includesFunc`): whether a
/// list contains the argument, or a scalar equals it.
fn includes(This(this): This<Value>, Arguments(args): Arguments) -> ResolveResult {
    let [arg] = args.as_slice() else {
        return Err(ExecutionError::function_error(
            "includes",
            "expects exactly one argument",
        ));
    };
    Ok(Value::Bool(match &this {
        Value::List(items) => items.iter().any(|v| v == arg),
        scalar => scalar == arg,
    }))
}

impl Default for Selectors {
    fn default() -> Self {
        let mut context = Context::default().with_all();
        context.add_function("includes", includes);
        Self {
            context,
            exprs: Vec::new(),
            by_text: HashMap::new(),
            results: HashMap::new(),
            devices: HashMap::new(),
            candidates: super::FxMap::default(),
        }
    }
}

fn map(entries: HashMap<String, Value>) -> Value {
    let m: HashMap<Key, Value> = entries
        .into_iter()
        .map(|(k, v)| (Key::String(Arc::new(k)), v))
        .collect();
    Value::Map(Map::from(m))
}

/// Collects the variables `e` references that no enclosing comprehension (`all`, `exists`,
/// `map`, `filter`, …) binds: only `device` is declared.
fn free_variables<'a>(e: &'a IdedExpr, bound: &mut Vec<&'a str>, out: &mut Vec<String>) {
    let entries = |entries: &'a [IdedEntryExpr]| {
        entries.iter().flat_map(|entry| match &entry.expr {
            EntryExpr::MapEntry(m) => vec![&m.key, &m.value],
            EntryExpr::StructField(f) => vec![&f.value],
        })
    };
    match &e.expr {
        Expr::Ident(name) => {
            if !bound.contains(&name.as_str()) {
                out.push(name.clone());
            }
        }
        Expr::Call(c) => {
            for x in c.target.iter().map(AsRef::as_ref).chain(&c.args) {
                free_variables(x, bound, out);
            }
        }
        Expr::Comprehension(c) => {
            free_variables(&c.iter_range, bound, out);
            free_variables(&c.accu_init, bound, out);
            let depth = bound.len();
            bound.push(&c.iter_var);
            if let Some(v) = &c.iter_var2 {
                bound.push(v);
            }
            bound.push(&c.accu_var);
            for x in [&c.loop_cond, &c.loop_step, &c.result] {
                free_variables(x, bound, out);
            }
            bound.truncate(depth);
        }
        Expr::List(l) => {
            for x in &l.elements {
                free_variables(x, bound, out);
            }
        }
        Expr::Map(m) => {
            for x in entries(&m.entries) {
                free_variables(x, bound, out);
            }
        }
        Expr::Struct(st) => {
            for x in entries(&st.entries) {
                free_variables(x, bound, out);
            }
        }
        Expr::Select(sel) => free_variables(&sel.operand, bound, out),
        Expr::Literal(_) | Expr::Unspecified => {}
    }
}

impl Selectors {
    /// Compiles `expression` (once); returns its id.
    pub fn compile(&mut self, expression: &str) -> ExprId {
        if let Some(id) = self.by_text.get(expression) {
            return *id;
        }
        let program = Program::compile(expression)
            .map_err(|e| e.to_string())
            .and_then(|p| {
                let mut free = Vec::new();
                free_variables(p.expression(), &mut Vec::new(), &mut free);
                match free.into_iter().find(|v| v != "device") {
                    Some(other) => Err(format!("undeclared reference to '{other}'")),
                    None => Ok(p),
                }
            });
        let id = self.exprs.len();
        self.exprs.push((expression.to_owned(), program));
        self.by_text.insert(expression.to_owned(), id);
        id
    }

    /// The expression's text.
    pub fn text(&self, id: ExprId) -> &str {
        self.exprs.get(id).map_or("", |(t, _)| t.as_str())
    }

    /// A compile error of `id`, if any.
    pub fn compile_error(&self, id: ExprId) -> Option<&str> {
        self.exprs
            .get(id)
            .and_then(|(_, p)| p.as_ref().err())
            .map(String::as_str)
    }

    fn eval_opaque(&self, function: &str, arg: &str) -> Option<Value> {
        let program = Program::compile(&format!("{function}(s)")).ok()?;
        let mut ctx = self.context.new_inner_scope();
        ctx.add_variable_from_value("s", Value::String(Arc::new(arg.to_owned())));
        program.execute(&ctx).ok()
    }

    fn attr_value(&self, v: &AttrValue) -> Value {
        match v {
            AttrValue::Int(i) => Value::Int(*i),
            AttrValue::Bool(b) => Value::Bool(*b),
            AttrValue::String(s) => Value::String(Arc::new(s.clone())),
            AttrValue::Version(s) => self
                .eval_opaque("semver", s)
                .unwrap_or_else(|| Value::String(Arc::new(s.clone()))),
            AttrValue::List(items) => {
                Value::List(Arc::new(items.iter().map(|i| self.attr_value(i)).collect()))
            }
        }
    }

    fn device_value(&mut self, inv: &Inventory, id: DeviceId) -> Value {
        if let Some(v) = self.devices.get(&id) {
            return v.clone();
        }
        let d: &Device = &inv.devices[id];
        let mut attrs: HashMap<String, HashMap<String, Value>> = HashMap::new();
        for (k, v) in &d.attributes {
            let (domain, name) = k.rsplit_once('/').unwrap_or(("", k));
            let value = self.attr_value(v);
            attrs
                .entry(domain.to_owned())
                .or_default()
                .insert(name.to_owned(), value);
        }
        let mut caps: HashMap<String, HashMap<String, Value>> = HashMap::new();
        for (k, q) in &d.capacity {
            let (domain, name) = k.rsplit_once('/').unwrap_or(("", k));
            let value = self
                .eval_opaque("quantity", q)
                .unwrap_or_else(|| Value::String(Arc::new(q.clone())));
            caps.entry(domain.to_owned())
                .or_default()
                .insert(name.to_owned(), value);
        }
        let mut device = HashMap::new();
        device.insert(
            "driver".to_owned(),
            Value::String(Arc::new(d.driver.clone())),
        );
        device.insert(
            "attributes".to_owned(),
            map(attrs.into_iter().map(|(k, v)| (k, map(v))).collect()),
        );
        device.insert(
            "capacity".to_owned(),
            map(caps.into_iter().map(|(k, v)| (k, map(v))).collect()),
        );
        device.insert(
            "allowMultipleAllocations".to_owned(),
            Value::Bool(d.allow_multiple),
        );
        let v = map(device);
        self.devices.insert(id, v.clone());
        v
    }

    /// Memoised candidate devices of `node` for `exprs`.
    pub fn cached_candidates(
        &self,
        node: &std::sync::Arc<str>,
        exprs: &[ExprId],
        all_pools: bool,
    ) -> Option<Rc<[DeviceId]>> {
        self.candidates
            .get(&super::node_key(node))
            .and_then(|(_, entries)| {
                entries
                    .iter()
                    .find(|((e, a), _)| e == exprs && *a == all_pools)
                    .map(|(_, d)| Rc::clone(d))
            })
    }

    /// Remembers the candidate devices of `node` for `exprs`.
    pub fn store_candidates(
        &mut self,
        node: &std::sync::Arc<str>,
        exprs: &[ExprId],
        all_pools: bool,
        devices: Rc<[DeviceId]>,
    ) {
        self.candidates
            .entry(super::node_key(node))
            .or_insert_with(|| (std::sync::Arc::clone(node), Vec::new()))
            .1
            .push(((exprs.to_vec(), all_pools), devices));
    }

    /// Whether device `device` matches expression `expr`: `Err` carries a compile or runtime
    /// error (upstream aborts the allocation with it).
    pub fn matches(
        &mut self,
        inv: &Inventory,
        device: DeviceId,
        expr: ExprId,
    ) -> Result<bool, String> {
        if let Some(r) = self.results.get(&(device, expr)) {
            return r.clone();
        }
        let value = self.device_value(inv, device);
        let result = match &self.exprs[expr].1 {
            Err(e) => Err(format!("CEL compile error: {e}")),
            Ok(program) => {
                let mut ctx = self.context.new_inner_scope();
                ctx.add_variable_from_value("device", value);
                match program.execute(&ctx) {
                    Ok(Value::Bool(b)) => Ok(b),
                    Ok(other) => Err(format!("CEL result is not a bool: {other:?}")),
                    Err(e) => Err(format!("CEL runtime error: {e}")),
                }
            }
        };
        self.results.insert((device, expr), result.clone());
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::dra::inventory::Scope;
    use std::collections::BTreeMap;

    fn inventory() -> Inventory {
        let mut attributes = BTreeMap::new();
        attributes.insert(
            "gpu.example.com/model".to_owned(),
            AttrValue::String("H100".into()),
        );
        attributes.insert(
            "gpu.example.com/driverVersion".to_owned(),
            AttrValue::Version("1.2.3".into()),
        );
        let mut capacity = BTreeMap::new();
        capacity.insert("gpu.example.com/memory".to_owned(), "80Gi".to_owned());
        Inventory {
            devices: vec![Device {
                pool: 0,
                name: "gpu-0".into(),
                driver: "gpu.example.com".into(),
                attributes,
                capacity,
                capacities: BTreeMap::new(),
                scope: Scope::AllNodes,
                taints: vec![],
                consumes: vec![],
                allow_multiple: false,
                binding: false,
            }],
            ..Inventory::default()
        }
    }

    #[test]
    fn device_environment_and_kubernetes_functions() {
        let inv = inventory();
        let mut s = Selectors::default();
        for (expr, want) in [
            ("device.driver == \"gpu.example.com\"", true),
            (
                "device.attributes[\"gpu.example.com\"].model == \"H100\"",
                true,
            ),
            (
                "device.attributes[\"gpu.example.com\"].model == \"A100\"",
                false,
            ),
            (
                "device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"40Gi\")) > 0",
                true,
            ),
            (
                "device.attributes[\"gpu.example.com\"].driverVersion.isGreaterThan(semver(\"1.0.0\"))",
                true,
            ),
            ("device.allowMultipleAllocations", false),
            (
                "device.attributes[\"gpu.example.com\"].model.includes(\"H100\")",
                true,
            ),
            (
                "device.attributes[\"gpu.example.com\"].all(k, k != \"\")",
                true,
            ),
        ] {
            let id = s.compile(expr);
            assert_eq!(s.matches(&inv, 0, id), Ok(want), "{expr}");
        }
    }

    #[test]
    fn undeclared_references_and_runtime_errors_are_reported() {
        let inv = inventory();
        let mut s = Selectors::default();
        let id = s.compile("foo.bar == 1");
        assert!(
            s.compile_error(id)
                .is_some_and(|e| e.contains("undeclared reference"))
        );
        assert!(s.matches(&inv, 0, id).is_err());
        // Comprehension variables are bound; anything else stays undeclared.
        let id = s.compile("device.attributes[\"gpu.example.com\"].exists(k, k == other)");
        assert_eq!(s.compile_error(id), Some("undeclared reference to 'other'"));
        let id = s.compile("device.attributes[\"other.example.com\"].x == 1");
        assert!(
            s.matches(&inv, 0, id)
                .unwrap_err()
                .starts_with("CEL runtime error")
        );
    }
}
