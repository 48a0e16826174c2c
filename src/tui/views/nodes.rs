//! The nodes view: nodes grouped by a topology domain (`t` picks the label key), each with a
//! gauge per resource (requested / allocatable cpu and memory, GPUs as extended resources, DRA
//! devices in use), its state (NotReady, cordoned, tainted) and how many pods the plan adds to
//! it; below, the selected node's pods with their gangs and claims. `d` and `c` toggle the
//! drain and cordon what-ifs on the selected node.

use crate::snapshot::ObjKind;
use std::collections::BTreeSet;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{Component, Cx, List};
use crate::sanitize::sanitize;
use crate::snapshot::ObjRef;
use crate::tui::data::{NodeInfo, WhatIf};
use crate::tui::event::Intent;
use crate::tui::widgets::{Cell, Column, gauge, highlight, matches, table};

const COLUMNS: [Column; 8] = [
    Column::new("NAME", 8, 30),
    Column::new("STATE", 5, 24),
    Column::new("CPU", 14, 24),
    Column::new("MEMORY", 14, 26),
    Column::new("GPU", 14, 22),
    Column::new("DEVICES", 14, 22),
    Column::new("PODS", 4, 6),
    Column::new("PLAN", 4, 10),
];

const GAUGE: usize = 8;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Row {
    Domain(String, usize),
    Node(usize),
}

/// The nodes screen: the nodes grouped by a topology label key, the cursor and filter, and
/// whether the selected node's detail pane (its pods) is open.
#[derive(Debug, Default)]
pub(crate) struct NodesView {
    /// The label key nodes are grouped by (`None`: no grouping).
    key: Option<String>,
    list: List<Row>,
    /// Show the detail pane (Enter toggles).
    details: bool,
}

/// The label keys worth grouping by, most useful first.
pub(crate) fn topology_keys(nodes: &[NodeInfo]) -> Vec<String> {
    let mut found: BTreeSet<&str> = BTreeSet::new();
    for n in nodes {
        for k in n.labels.keys() {
            if k.starts_with("topology.kubernetes.io/")
                || k.contains("rack")
                || k.contains("block")
                || k.contains("topology")
            {
                found.insert(k);
            }
        }
    }
    let mut keys: Vec<String> = Vec::new();
    for k in [
        "topology.kubernetes.io/zone",
        "topology.kubernetes.io/region",
    ] {
        if found.remove(k) {
            keys.push(k.to_owned());
        }
    }
    keys.extend(found.into_iter().map(str::to_owned));
    keys
}

fn state(n: &NodeInfo) -> String {
    let mut parts = Vec::new();
    parts.push(if n.ready { "Ready" } else { "NotReady" });
    if n.unschedulable {
        parts.push("cordoned");
    }
    let mut s = parts.join(",");
    if !n.taints.is_empty() {
        s.push_str(&format!(",tainted({})", n.taints.len()));
    }
    s
}

fn amount(used: i64, total: i64, unit: &str, scale: f64) -> String {
    if total <= 0 && used <= 0 {
        return "-".to_owned();
    }
    let f = |v: i64| {
        let x = v as f64 / scale;
        if x.fract() == 0.0 {
            format!("{x:.0}")
        } else {
            format!("{x:.1}")
        }
    };
    format!(
        "{} {}/{}{unit}",
        gauge(used, total, GAUGE),
        f(used),
        f(total)
    )
}

impl NodesView {
    fn node<'a>(&self, cx: &Cx<'a>) -> Option<&'a NodeInfo> {
        match self.list.rows.get(self.list.cursor.selected)? {
            Row::Node(i) => cx.data.nodes.get(*i),
            Row::Domain(..) => None,
        }
    }

    fn rebuild(&mut self, cx: &Cx<'_>) {
        let nodes = &cx.data.nodes;
        let mut idx: Vec<usize> = (0..nodes.len())
            .filter(|&i| matches(&nodes[i].name, self.list.needle()))
            .collect();
        let domain = |i: usize| -> String {
            self.key
                .as_ref()
                .map(|k| {
                    nodes[i]
                        .labels
                        .get(k)
                        .cloned()
                        .unwrap_or_else(|| "(none)".to_owned())
                })
                .unwrap_or_default()
        };
        idx.sort_by(|&a, &b| (domain(a), &nodes[a].name).cmp(&(domain(b), &nodes[b].name)));
        self.list.rows.clear();
        let mut current: Option<String> = None;
        for (pos, &i) in idx.iter().enumerate() {
            if self.key.is_some() {
                let d = domain(i);
                if current.as_ref() != Some(&d) {
                    let count = idx[pos..].iter().take_while(|&&j| domain(j) == d).count();
                    self.list.rows.push(Row::Domain(d.clone(), count));
                    current = Some(d);
                }
            }
            self.list.rows.push(Row::Node(i));
        }
        self.list.cursor.clamp(self.list.rows.len());
    }
}

impl Component for NodesView {
    fn title(&self, cx: &Cx<'_>) -> String {
        format!(
            "nodes ({}; by {})",
            cx.data.nodes.len(),
            self.key.as_deref().unwrap_or("name")
        )
    }

    fn draw(&mut self, buf: &mut Buffer, area: Rect, cx: &Cx<'_>) {
        let theme = cx.theme;
        let detail_height = if self.details {
            (area.height / 3).max(3)
        } else {
            0
        };
        let body = Rect {
            height: area.height.saturating_sub(detail_height),
            ..area
        };
        let (window, selected) = self.list.layout(body);
        if self.list.rows.is_empty() {
            buf.set_string(area.x, area.y, "No nodes.", theme.dim());
            return;
        }
        let nodes = &cx.data.nodes;
        let cells: Vec<Vec<Cell>> = self.list.rows[window]
            .iter()
            .map(|row| match row {
                Row::Domain(d, n) => {
                    let key = self.key.as_deref().unwrap_or("");
                    let short = key.rsplit('/').next().unwrap_or(key);
                    vec![
                        Line::from(Span::styled(
                            format!("{}={}", sanitize(short), sanitize(d)),
                            theme.header(),
                        )),
                        Line::from(Span::styled(format!("{n} node(s)"), theme.dim())),
                    ]
                }
                Row::Node(i) => {
                    let n = &nodes[*i];
                    let st = state(n);
                    let st_style = if !n.ready {
                        theme.error()
                    } else if n.unschedulable || !n.taints.is_empty() {
                        theme.warn()
                    } else {
                        theme.ok()
                    };
                    let mut name = vec![Span::raw("  ")];
                    name.extend(highlight(
                        &sanitize(&n.name),
                        self.list.filter(),
                        Style::new(),
                        theme,
                    ));
                    vec![
                        Line::from(name),
                        Line::from(Span::styled(st, st_style)),
                        Line::raw(amount(n.cpu.0, n.cpu.1, "", 1000.0)),
                        Line::raw(amount(n.memory.0, n.memory.1, "Gi", 1_073_741_824.0)),
                        Line::raw(amount(n.gpu.0, n.gpu.1, "", 1.0)),
                        Line::raw(amount(
                            i64::try_from(n.devices.0).unwrap_or(i64::MAX),
                            i64::try_from(n.devices.1).unwrap_or(i64::MAX),
                            "",
                            1.0,
                        )),
                        Line::raw(n.pods.len().to_string()),
                        Line::raw(if n.planned > 0 {
                            format!("+{}", n.planned)
                        } else {
                            String::new()
                        }),
                    ]
                }
            })
            .collect();
        table(buf, body, theme, &COLUMNS, &cells, Some(selected));
        if detail_height > 0
            && let Some(n) = self.node(cx)
        {
            let mut y = body.bottom();
            let mut lines = vec![Line::from(Span::styled(
                format!(
                    "{}: {} pod(s){}",
                    sanitize(&n.name),
                    n.pods.len(),
                    if n.taints.is_empty() {
                        String::new()
                    } else {
                        format!("; taints {}", sanitize(&n.taints.join(", ")))
                    }
                ),
                theme.header(),
            ))];
            for p in &n.pods {
                let mut text = format!("  {}/{}", sanitize(&p.namespace), sanitize(&p.name));
                if let Some(g) = &p.group {
                    text.push_str(&format!("  gang {}", sanitize(g)));
                }
                if !p.claims.is_empty() {
                    text.push_str(&format!("  claims {}", sanitize(&p.claims.join(", "))));
                }
                lines.push(Line::raw(text));
            }
            for line in lines.iter().take(usize::from(detail_height)) {
                buf.set_line(area.x, y, line, area.width);
                y += 1;
            }
        }
    }

    fn on_key(&mut self, key: KeyEvent, cx: &Cx<'_>, queue: &mut Vec<Intent>) -> bool {
        if self.list.navigate(key) {
            return true;
        }
        match key.code {
            KeyCode::Char('t') => {
                let keys = topology_keys(&cx.data.nodes);
                self.key = match &self.key {
                    None => keys.first().cloned(),
                    Some(k) => keys
                        .iter()
                        .position(|x| x == k)
                        .and_then(|p| keys.get(p + 1))
                        .cloned(),
                };
                let keep = self.node(cx).map(|n| n.name.clone());
                self.rebuild(cx);
                if let Some(name) = keep {
                    self.select(cx, &name);
                }
                queue.push(Intent::Status(format!(
                    "nodes grouped by {}",
                    self.key.as_deref().unwrap_or("name (no grouping)")
                )));
            }
            KeyCode::Char('d') | KeyCode::Char('c') => match self.node(cx) {
                Some(n) => queue.push(Intent::ToggleWhatIf(if key.code == KeyCode::Char('d') {
                    WhatIf::Drain(n.name.clone())
                } else {
                    WhatIf::Cordon(n.name.clone())
                })),
                None => queue.push(Intent::Status("select a node first".to_owned())),
            },
            KeyCode::Enter => self.details = !self.details,
            _ => return false,
        }
        true
    }

    fn refresh(&mut self, cx: &Cx<'_>) {
        let keep = self.node(cx).map(|n| n.name.clone());
        self.rebuild(cx);
        if let Some(name) = keep {
            self.select(cx, &name);
        } else if matches!(self.list.rows.first(), Some(Row::Domain(..)))
            && self.list.cursor.selected == 0
        {
            self.list.cursor.selected = 1.min(self.list.rows.len().saturating_sub(1));
        }
    }

    fn filter(&self) -> &str {
        self.list.filter()
    }

    fn set_filter(&mut self, filter: &str, cx: &Cx<'_>) {
        self.list.set_filter(filter);
        self.refresh(cx);
    }

    fn selected(&self, cx: &Cx<'_>) -> Option<ObjRef> {
        self.node(cx)
            .map(|n| ObjRef::new(ObjKind::Node, "", &n.name))
    }

    fn click(&mut self, y: u16) {
        self.list.click(y);
    }

    fn scroll(&mut self, delta: isize, _cx: &Cx<'_>) {
        self.list.scroll(delta);
    }
}

impl NodesView {
    fn select(&mut self, cx: &Cx<'_>, name: &str) {
        if let Some(p) = self.list.rows.iter().position(|r| match r {
            Row::Node(i) => cx.data.nodes[*i].name == name,
            Row::Domain(..) => false,
        }) {
            self.list.cursor.selected = p;
        }
    }
}
