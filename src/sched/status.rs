//! What a plugin says about a node: the upstream status [`Code`], the [`Reason`] histogram key
//! and the [`Rejection`] of one filter (upstream `fwk.Status`), and the score range
//! ([`MAX_NODE_SCORE`]), all from `pkg/scheduler/framework/interface.go`.
//!
//! A leaf of the simulator: the filters, the node state, DRA, preemption and the trace all
//! speak these types, so they live below every one of them.

use std::borrow::Cow;

use super::resources::ResourceTable;

/// Upstream `framework.MaxNodeScore`: the highest score a plugin gives a node.
pub(crate) const MAX_NODE_SCORE: i64 = 100;

/// Why a node was rejected, as a histogram key. Rendered with [`Reason::text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    /// A fixed upstream message.
    Static(&'static str),
    /// `Insufficient <resource>`.
    Insufficient(u16),
}

impl Reason {
    /// The upstream text.
    pub(crate) fn text(self, table: &ResourceTable) -> Cow<'static, str> {
        match self {
            Self::Static(s) => Cow::Borrowed(s),
            Self::Insufficient(id) => Cow::Owned(format!("Insufficient {}", table.name(id))),
        }
    }
}

/// Upstream status codes that matter to the simulator (and to preemption later).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// Might fit after preemption.
    Unschedulable,
    /// Preemption cannot help on this node.
    UnschedulableAndUnresolvable,
    /// The plugin failed (upstream `fwk.Error`): the pod's scheduling attempt aborts with the
    /// error on the first node that returns it, and it is no fit error (no preemption).
    Error,
}

/// A node's rejection by one plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// The plugin's upstream name.
    pub plugin: &'static str,
    /// The code.
    pub code: Code,
    /// One or more reasons (NodeResourcesFit reports every short resource).
    pub reasons: Vec<Reason>,
    /// For DynamicResources: (claim, why), aggregated into the trace's per-claim reasons.
    pub detail: Option<(String, String)>,
}

impl Rejection {
    /// A rejection with one static reason. Cold and never inlined, so the filters that call
    /// it stay small enough to inline into the per-node loop (most nodes pass).
    #[cold]
    #[inline(never)]
    pub(crate) fn new(plugin: &'static str, code: Code, reason: &'static str) -> Self {
        Self {
            plugin,
            code,
            reasons: vec![Reason::Static(reason)],
            detail: None,
        }
    }
}
