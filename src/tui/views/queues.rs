//! The queues view (`:cq`, `:lq`): Kueue's ClusterQueues (with their cohort) or LocalQueues
//! (with their ClusterQueue), and per queue how many of the Kueue Workloads pending admission
//! the plan admits and how many keep waiting — stage one of the dry run, counted from the
//! plan's Kueue units. `Enter` opens the selected queue's quota per flavor and resource below,
//! as `tree clusterqueue/NAME` reports it ([`crate::tree::queue::build`]: the cluster's state,
//! read).

use std::collections::HashMap;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{Component, Cx, List, ListKey};
use crate::sanitize::sanitize;
use crate::sched::plan::AdmissionOutcome;
use crate::snapshot::{ObjKind, ObjRef};
use crate::tui::event::Intent;
use crate::tui::widgets::{
    Cell, Column, detail_split, draw_detail, highlight, matches, pick, table,
};

/// The columns; NAMESPACE only for LocalQueues while every namespace is shown.
pub(crate) const COLUMNS: [Column; 5] = [
    Column::whole("NAME").sorts('N'),
    Column::whole("NAMESPACE").drops(2).sorts('E'),
    Column::whole("QUEUE").drops(1).sorts('Q'),
    Column::whole("ADMITTED").sorts('A'),
    Column::whole("WAITING").sorts('W'),
];

/// One queue: its namespace (empty for a ClusterQueue), name, and the queue above it (a
/// ClusterQueue's cohort, a LocalQueue's ClusterQueue).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Queue {
    namespace: String,
    name: String,
    above: String,
}

/// The queues screen: the kind listed, its queues under the filter, the cursor, and whether
/// the selected queue's quota is shown below.
#[derive(Debug)]
pub(crate) struct QueuesView {
    kind: ObjKind,
    list: List<Queue>,
    details: bool,
    /// Admitted and waiting per queue, as of the last rebuild.
    counts: HashMap<(String, String), (usize, usize)>,
}

impl Default for QueuesView {
    fn default() -> Self {
        Self {
            kind: ObjKind::ClusterQueue,
            list: List::default(),
            details: false,
            counts: HashMap::new(),
        }
    }
}

impl QueuesView {
    /// Lists `kind` (ClusterQueue or LocalQueue).
    pub(crate) fn set_kind(&mut self, kind: ObjKind) {
        self.kind = kind;
    }

    fn cluster_queues(&self) -> bool {
        self.kind != ObjKind::LocalQueue
    }

    /// Per queue (namespace, name), how many of its Kueue Workloads the plan admits and how
    /// many keep waiting: one pass over the plan's Kueue units (a LocalQueue's found through
    /// one index of the workloads' queue names).
    fn count(&self, cx: &Cx<'_>) -> HashMap<(String, String), (usize, usize)> {
        let k = &cx.data.snapshot.kueue;
        let queue_of: HashMap<(&str, &str), &str> = if self.cluster_queues() {
            HashMap::new()
        } else {
            k.workloads
                .iter()
                .map(|w| ((w.namespace(), w.name()), w.spec.queue_name.as_str()))
                .collect()
        };
        let mut out: HashMap<(String, String), (usize, usize)> = HashMap::new();
        for u in &cx.data.plan.units {
            let Some(unit) = u.kueue.as_deref() else {
                continue;
            };
            let key = if self.cluster_queues() {
                (String::new(), unit.admission.cluster_queue.clone())
            } else {
                match queue_of.get(&(u.namespace.as_str(), u.name.as_str())) {
                    Some(q) => (u.namespace.clone(), (*q).to_owned()),
                    None => continue,
                }
            };
            let e = out.entry(key).or_default();
            if unit.admission.outcome == AdmissionOutcome::Admitted {
                e.0 += 1;
            } else {
                e.1 += 1;
            }
        }
        out
    }

    fn cells(&self, cx: &Cx<'_>, q: &Queue, filter: &str) -> Vec<Cell> {
        let (admitted, waiting) = self
            .counts
            .get(&(q.namespace.clone(), q.name.clone()))
            .copied()
            .unwrap_or_default();
        let mut name = vec![];
        name.extend(highlight(
            &sanitize(&q.name),
            filter,
            Style::new(),
            cx.theme,
        ));
        vec![
            Line::from(name),
            Line::raw(sanitize(&q.namespace).into_owned()),
            Line::raw(if q.above.is_empty() {
                "-".to_owned()
            } else {
                sanitize(&q.above).into_owned()
            }),
            Line::from(Span::styled(admitted.to_string(), cx.theme.ok())),
            Line::from(Span::styled(
                waiting.to_string(),
                if waiting > 0 {
                    cx.theme.warn()
                } else {
                    Style::new()
                },
            )),
        ]
    }

    fn rebuild(&mut self, cx: &Cx<'_>) {
        self.counts = self.count(cx);
        let k = &cx.data.snapshot.kueue;
        let mut rows: Vec<Queue> = if self.cluster_queues() {
            k.cluster_queues
                .iter()
                .map(|c| Queue {
                    namespace: String::new(),
                    name: c.name().to_owned(),
                    above: c.spec.cohort_name.clone().unwrap_or_default(),
                })
                .collect()
        } else {
            k.local_queues
                .iter()
                .filter(|q| cx.shows(q.namespace()))
                .map(|q| Queue {
                    namespace: q.namespace().to_owned(),
                    name: q.name().to_owned(),
                    above: q.spec.cluster_queue.clone(),
                })
                .collect()
        };
        rows.retain(|q| matches(&q.name, self.list.needle()));
        self.list.sort_rows(&mut rows, |q, key| {
            let at = COLUMNS.iter().position(|c| c.sort == Some(key))?;
            self.cells(cx, q, "").into_iter().nth(at)
        });
        self.list.rows = rows;
        self.list.cursor.clamp(self.list.rows.len());
    }

    fn queue(&self) -> Option<&Queue> {
        self.list.rows.get(self.list.cursor.selected)
    }

    /// The selected queue's quota rows, as `tree clusterqueue/NAME` reports them.
    fn detail(&self, cx: &Cx<'_>, q: &Queue) -> Vec<String> {
        let k = &cx.data.snapshot.kueue;
        let lq = (!self.cluster_queues())
            .then(|| {
                k.local_queues
                    .iter()
                    .find(|l| l.namespace() == q.namespace && l.name() == q.name)
            })
            .flatten();
        let cq_name = lq.map_or(q.name.as_str(), |l| l.spec.cluster_queue.as_str());
        let Some(cq) = k.cluster_queues.iter().find(|c| c.name() == cq_name) else {
            return vec![format!(
                "ClusterQueue `{}` is not in the snapshot",
                sanitize(cq_name)
            )];
        };
        match crate::tree::queue::build(&cx.data.snapshot, cq, lq) {
            Err(e) => vec![format!("cannot read the quota: {}", sanitize(&e))],
            Ok(r) => {
                let mut out = vec![format!(
                    "ClusterQueue {}{}: {} admitted, {} waiting ({})",
                    sanitize(&r.cluster_queue),
                    if r.cohorts.is_empty() {
                        String::new()
                    } else {
                        format!(" in cohort {}", sanitize(&r.cohorts.join(" → ")))
                    },
                    r.admitted.len(),
                    r.pending.len(),
                    sanitize(&r.queueing_strategy),
                )];
                out.push(format!(
                    "  {:<12} {:<18} {:>8} {:>8} {:>8} {:>8} {:>8}",
                    "FLAVOR", "RESOURCE", "NOMINAL", "USED", "BORROWED", "LENT", "PENDING"
                ));
                for row in &r.resources {
                    out.push(format!(
                        "  {:<12} {:<18} {:>8} {:>8} {:>8} {:>8} {:>8}",
                        sanitize(&row.flavor),
                        sanitize(&row.resource),
                        sanitize(&row.nominal),
                        sanitize(&row.used),
                        sanitize(&row.borrowed),
                        sanitize(&row.lent),
                        sanitize(row.pending.as_deref().unwrap_or("-")),
                    ));
                }
                out
            }
        }
    }
}

impl Component for QueuesView {
    fn title(&self, _cx: &Cx<'_>) -> String {
        format!(
            "queues: {} ({})",
            if self.cluster_queues() {
                "ClusterQueue"
            } else {
                "LocalQueue"
            },
            self.list.rows.len()
        )
    }

    fn draw(&mut self, buf: &mut Buffer, area: Rect, cx: &Cx<'_>) {
        let theme = cx.theme;
        let (body, detail_height) = detail_split(area, self.details, 4);
        let (window, selected) = self.list.layout(body);
        if self.list.rows.is_empty() {
            let msg = if cx.data.snapshot.kueue.is_empty() {
                "No Kueue objects in this snapshot."
            } else {
                "No queues (or nothing matches: Esc clears the filter)."
            };
            buf.set_string(area.x, area.y, msg, theme.dim());
            return;
        }
        let keep: Vec<usize> = (0..COLUMNS.len())
            .filter(|&i| {
                COLUMNS[i].title != "NAMESPACE"
                    || (!self.cluster_queues() && cx.namespace.is_none())
            })
            .collect();
        let columns: Vec<Column> = keep.iter().map(|&i| COLUMNS[i]).collect();
        let cells: Vec<Vec<Cell>> = self.list.rows[window]
            .iter()
            .map(|q| pick(self.cells(cx, q, self.list.filter()), &keep))
            .collect();
        table(
            buf,
            body,
            theme,
            &columns,
            &cells,
            Some(selected),
            self.list.sort(),
        );
        if detail_height > 0
            && let Some(q) = self.queue()
        {
            let lines: Vec<Line<'_>> = self
                .detail(cx, q)
                .into_iter()
                .enumerate()
                .map(|(i, l)| {
                    let style = if i == 0 { theme.header() } else { Style::new() };
                    Line::from(Span::styled(l, style))
                })
                .collect();
            draw_detail(buf, area, body.bottom(), detail_height, &lines);
        }
    }

    fn on_key(&mut self, key: KeyEvent, cx: &Cx<'_>, _queue: &mut Vec<Intent>) -> bool {
        match self.list.list_key(key, &COLUMNS) {
            ListKey::Moved => return true,
            ListKey::Sorted => {
                self.refresh(cx);
                return true;
            }
            ListKey::Other => {}
        }
        if key.code == KeyCode::Enter {
            self.details = !self.details;
            return true;
        }
        false
    }

    fn refresh(&mut self, cx: &Cx<'_>) {
        let keep = self.queue().cloned();
        self.rebuild(cx);
        if let Some(q) = keep {
            self.list.select_where(|r| *r == q);
        }
    }

    fn filter(&self) -> &str {
        self.list.filter()
    }

    fn set_filter(&mut self, filter: &str, cx: &Cx<'_>) {
        self.list.set_filter(filter);
        self.refresh(cx);
    }

    fn selected(&self, _cx: &Cx<'_>) -> Option<ObjRef> {
        self.queue()
            .map(|q| ObjRef::new(self.kind.clone(), &q.namespace, &q.name))
    }

    fn click(&mut self, y: u16) {
        self.list.click(y);
    }

    fn scroll(&mut self, delta: isize, _cx: &Cx<'_>) {
        self.list.scroll(delta);
    }
}
