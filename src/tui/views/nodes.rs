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

use super::{Component, Cx, List, ListKey};
use crate::sanitize::sanitize;
use crate::snapshot::ObjRef;
use crate::tui::data::{NodeInfo, Usage, WhatIf};
use crate::tui::event::Intent;
use crate::tui::widgets::{
    Cell, Column, detail_split, draw_detail, gauge, highlight, matches, table,
};

/// The columns.
pub(crate) const COLUMNS: [Column; 8] = [
    Column::whole("NAME").sorts('N'),
    Column::text("STATE", 5, 24).drops(4).sorts('S'),
    Column::whole("CPU").drops(2).sorts('C'),
    Column::whole("MEMORY").drops(7).sorts('M'),
    Column::whole("GPU").drops(3).sorts('U'),
    Column::whole("DEVICES").drops(5).sorts('D'),
    Column::whole("PODS").drops(6).sorts('P'),
    Column::whole("PLAN").drops(1).sorts('L'),
];

const GAUGE: usize = 6;

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
    /// A node to put the cursor on at the next refresh.
    want: Option<String>,
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

/// A resource's gauge (as the plan leaves it) and `now+planned-freed/total`: the same shape
/// for every resource, devices included, so no column mixes the plan into "now" while another
/// leaves it out (issue 51: DEVICES said 3/8 with 2 planned while CPU said 16/64 without its
/// planned 8).
pub(crate) fn amount(u: Usage, unit: &str, scale: f64) -> String {
    if u.total <= 0 && u.now <= 0 && u.planned <= 0 {
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
    let mut text = format!("{} {}", gauge(u.after(), u.total, GAUGE), f(u.now));
    if u.planned > 0 {
        text.push_str(&format!("+{}", f(u.planned)));
    }
    if u.freed > 0 {
        text.push_str(&format!("-{}", f(u.freed)));
    }
    text.push_str(&format!("/{}{unit}", f(u.total)));
    text
}

/// A node's cells, in [`COLUMNS`] order, its name's match of `filter` highlighted.
fn node_cells(cx: &Cx<'_>, n: &NodeInfo, filter: &str) -> Vec<Cell> {
    let theme = cx.theme;
    let st = state(n);
    let st_style = if !n.ready {
        theme.error()
    } else if n.unschedulable || !n.taints.is_empty() {
        theme.warn()
    } else {
        theme.ok()
    };
    let mut name = vec![Span::raw("  ")];
    name.extend(highlight(&sanitize(&n.name), filter, Style::new(), theme));
    vec![
        Line::from(name),
        Line::from(Span::styled(st, st_style)),
        Line::raw(amount(n.cpu, "", 1000.0)),
        Line::raw(amount(n.memory, "Gi", 1_073_741_824.0)),
        Line::raw(amount(n.gpu, "", 1.0)),
        Line::raw(amount(n.devices, "", 1.0)),
        Line::raw(n.pods.len().to_string()),
        Line::raw(if n.planned > 0 {
            format!("+{}", n.planned)
        } else {
            String::new()
        }),
    ]
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
        // The sort, within each domain (a stable sort keeps the domains' order).
        if self.list.sort().is_some() {
            self.list.sort_rows(&mut idx, |&i, key| {
                let at = COLUMNS.iter().position(|c| c.sort == Some(key))?;
                node_cells(cx, &nodes[i], "").into_iter().nth(at)
            });
            idx.sort_by_key(|&i| domain(i));
        }
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
        let (body, detail_height) = detail_split(area, self.details, 3);
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
                Row::Node(i) => node_cells(cx, &nodes[*i], self.list.filter()),
            })
            .collect();
        table(
            buf,
            body,
            theme,
            &COLUMNS,
            &cells,
            Some(selected),
            self.list.sort(),
        );
        if detail_height > 0
            && let Some(n) = self.node(cx)
        {
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
            draw_detail(buf, area, body.bottom(), detail_height, &lines);
        }
    }

    fn on_key(&mut self, key: KeyEvent, cx: &Cx<'_>, queue: &mut Vec<Intent>) -> bool {
        match self.list.list_key(key, &COLUMNS) {
            ListKey::Moved => return true,
            ListKey::Sorted => {
                self.refresh(cx);
                return true;
            }
            ListKey::Other => {}
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

    fn remember(&mut self, cx: &Cx<'_>) {
        if self.want.is_none() {
            self.want = self.node(cx).map(|n| n.name.clone());
        }
    }

    fn refresh(&mut self, cx: &Cx<'_>) {
        let keep = self
            .want
            .take()
            .or_else(|| self.node(cx).map(|n| n.name.clone()));
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
    /// Puts the cursor on node `name` at the next refresh (clearing a filter that hides it).
    pub(crate) fn select_name(&mut self, name: &str) {
        if !matches(name, self.list.needle()) {
            self.list.set_filter("");
        }
        self.want = Some(name.to_owned());
    }

    fn select(&mut self, cx: &Cx<'_>, name: &str) {
        self.list.select_where(|r| match r {
            Row::Node(i) => cx.data.nodes[*i].name == name,
            Row::Domain(..) => false,
        });
    }
}
