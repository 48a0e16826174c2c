//! The explain view: for the selected object, each unit's [`Diagnosis`] (verdict, findings with
//! their numbers, fit per topology domain, verified fixes) and, from the plan's unit, the
//! per-claim results, the placements and the preemption victims with the blast radius. The
//! diagnoses are computed on the worker; this view only lays them out.

use std::collections::BTreeMap;

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{Component, Cx, scroll_text};
use crate::explain::others::GangDiagnosis;
use crate::explain::{Diagnosis, Severity};
use crate::sanitize::sanitize;
use crate::sched::plan::UnitResult;
use crate::snapshot::ObjRef;
use crate::tui::event::{Explained, Intent};
use crate::tui::theme::Theme;
use crate::tui::widgets::wrap;

/// The explain screen of one object: the worker's diagnoses (one per unit the object stands
/// for) once they arrive, and the scroll position over their lines.
#[derive(Debug)]
pub(crate) struct ExplainView {
    /// The object explained.
    pub target: ObjRef,
    /// `None` while the worker computes.
    pub result: Option<Result<Explained, String>>,
    scroll: usize,
    height: usize,
    lines: usize,
}

impl ExplainView {
    /// A view waiting for the diagnoses of `target`.
    pub(crate) fn new(target: ObjRef) -> Self {
        Self {
            target,
            result: None,
            scroll: 0,
            height: 0,
            lines: 0,
        }
    }
}

fn s(text: &str) -> String {
    sanitize(text).into_owned()
}

fn unit_lines(u: &UnitResult, theme: Theme, out: &mut Vec<Line<'static>>) {
    // Per claim: why no device, over the members that tried (node counts).
    let mut claims: BTreeMap<&str, BTreeMap<&str, u32>> = BTreeMap::new();
    for p in &u.trace.pods {
        for (claim, reasons) in &p.claim_reasons {
            let e = claims.entry(claim.as_str()).or_default();
            for (reason, n) in reasons {
                *e.entry(reason.as_str()).or_default() += n;
            }
        }
    }
    let mut devices: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for p in &u.placements {
        for d in &p.devices {
            let dev = format!("{}/{}/{}", d.driver, d.pool, d.device);
            let e = devices.entry(d.claim.as_str()).or_default();
            if !e.contains(&dev) {
                e.push(dev);
            }
        }
    }
    if !claims.is_empty() || !devices.is_empty() {
        out.push(Line::from(Span::styled("Claims", theme.header())));
        for (claim, devs) in &devices {
            out.push(Line::from(vec![
                Span::raw(format!("  claim `{}`: ", s(claim))),
                Span::styled(s(&devs.join(", ")), theme.ok()),
            ]));
        }
        for (claim, reasons) in &claims {
            for (reason, n) in reasons {
                out.push(Line::from(vec![
                    Span::raw(format!("  claim `{}`: ", s(claim))),
                    Span::styled(s(reason), theme.warn()),
                    Span::styled(format!(" ({n} node(s))"), theme.dim()),
                ]));
            }
        }
        out.push(Line::default());
    }
    if !u.placements.is_empty() {
        out.push(Line::from(Span::styled("Placements", theme.header())));
        for p in &u.placements {
            out.push(Line::raw(format!("  {} → {}", s(&p.pod), s(&p.node))));
        }
        out.push(Line::default());
    }
    if !u.victims.is_empty() {
        out.push(Line::from(Span::styled(
            format!("Victims ({})", u.victims.len()),
            theme.header(),
        )));
        for v in &u.victims {
            let mut line = format!(
                "  {}/{} on {} (priority {})",
                s(&v.namespace),
                s(&v.name),
                s(&v.node),
                v.priority
            );
            if let Some(g) = &v.group {
                line.push_str(&format!(", gang {}", s(g)));
            }
            if let Some(w) = &v.evicted_with {
                line.push_str(&format!(", evicted with {}", s(w)));
            }
            let style = if v.pdb_violation {
                line.push_str(", violates a PodDisruptionBudget");
                theme.error()
            } else {
                Style::new()
            };
            out.push(Line::from(Span::styled(line, style)));
        }
        if let Some(b) = &u.blast_radius {
            out.push(Line::from(vec![
                Span::styled("  blast radius: ", theme.dim()),
                Span::raw(format!(
                    "{} pod(s) in {} group(s), frees {} GPU(s), loses {:.2} GPU-hours, {} PDB violation(s){}",
                    b.victim_pods,
                    b.victim_groups.len(),
                    b.gpus_freed,
                    b.gpu_hours_lost,
                    b.pdb_violations,
                    if b.whole_group_for_part_of_its_nodes {
                        "; a whole `all` group dies for part of its nodes"
                    } else {
                        ""
                    }
                )),
            ]));
            for stranded in b.groups.iter().filter_map(|g| g.stranded()) {
                out.push(Line::from(vec![
                    Span::styled("  left behind: ", theme.dim()),
                    Span::styled(s(&stranded), theme.warn()),
                ]));
            }
        }
        out.push(Line::default());
    }
}

/// The lines of one diagnosis (and its unit's plan details).
pub(crate) fn diagnosis_lines(
    d: &Diagnosis,
    unit: Option<&UnitResult>,
    theme: Theme,
) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(vec![
        Span::styled(s(&crate::explain::unit_text(&d.target)), theme.header()),
        Span::raw(": "),
        Span::styled(d.shown_outcome().as_str(), theme.outcome(d.shown_outcome())),
    ])];
    if !d.message.is_empty() {
        out.push(Line::raw(format!("  {}", s(&d.message))));
    }
    // The scheduler profile, when the unit's is not the default one.
    match (&d.scoring, d.profile.as_str()) {
        (Some(line), _) => out.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(s(line), theme.dim()),
        ])),
        (None, "") => {}
        (None, name) => out.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(format!("profile {}", s(name)), theme.dim()),
        ])),
    }
    // Extenders are not simulated: the verdict may differ.
    for e in &d.extenders {
        out.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(
                format!(
                    "warning: extender `{}` is not simulated: this verdict may differ",
                    s(e)
                ),
                theme.warn(),
            ),
        ]));
    }
    out.push(Line::default());
    why_lines(d, theme, &mut out);
    fit_lines(d, theme, &mut out);
    if !d.node_reasons.is_empty() {
        out.push(Line::from(Span::styled(
            "Filters (nodes rejected)",
            theme.header(),
        )));
        for (reason, n) in &d.node_reasons {
            out.push(Line::raw(format!("  {n:>5}  {}", s(reason))));
        }
        out.push(Line::default());
    }
    if let Some(u) = unit {
        unit_lines(u, theme, &mut out);
    }
    if !d.fixes.is_empty() {
        out.push(Line::from(Span::styled(
            "Fixes (each verified by re-running the simulation)",
            theme.header(),
        )));
        for f in &d.fixes {
            out.push(Line::from(vec![
                Span::styled("  - ", theme.ok()),
                Span::raw(s(f)),
            ]));
        }
        out.push(Line::default());
    }
    for a in &d.assumed {
        out.push(Line::from(Span::styled(
            format!("assumed: {}", s(a)),
            theme.dim(),
        )));
    }
    out
}

/// The findings ("Why"), each with its detail and fix.
fn why_lines(d: &Diagnosis, theme: Theme, out: &mut Vec<Line<'static>>) {
    if !d.findings.is_empty() {
        out.push(Line::from(Span::styled("Why", theme.header())));
        for f in &d.findings {
            let (tag, style) = match f.severity {
                Severity::Error => ("error", theme.error()),
                Severity::Warning => ("warning", theme.warn()),
                Severity::Info => ("info", theme.dim()),
            };
            out.push(Line::from(vec![
                Span::raw("  "),
                Span::styled(tag, style),
                Span::styled(format!(" {} ", f.id), theme.dim()),
                Span::raw(s(&f.title)),
            ]));
            if !f.detail.is_empty() {
                out.push(Line::raw(format!("      {}", s(&f.detail))));
            }
            if let Some(fix) = &f.fix {
                out.push(Line::from(vec![
                    Span::styled("      fix: ", theme.dim()),
                    Span::raw(s(fix)),
                ]));
            }
        }
        out.push(Line::default());
    }
}

/// The gang's fit ("Fit: …"), per topology domain.
fn fit_lines(d: &Diagnosis, theme: Theme, out: &mut Vec<Line<'static>>) {
    if d.fit.min_count > 1 || !d.fit.domains.is_empty() {
        out.push(Line::from(Span::styled(
            format!("Fit: {}", d.fit_line()),
            theme.header(),
        )));
        if !d.fit.domains.is_empty() {
            let w = d
                .fit
                .domains
                .iter()
                .map(|dom| dom.key.len() + dom.value.len() + 1)
                .max()
                .unwrap_or(6)
                .max(6);
            out.push(Line::from(Span::styled(
                format!("  {:<w$}  FIT", "DOMAIN"),
                theme.dim(),
            )));
            for dom in &d.fit.domains {
                let style = if dom.placeable >= d.fit.min_count {
                    theme.ok()
                } else {
                    theme.warn()
                };
                out.push(Line::from(vec![
                    Span::raw(format!(
                        "  {:<w$}  ",
                        format!("{}={}", s(&dom.key), s(&dom.value))
                    )),
                    Span::styled(format!("{}/{}", dom.placeable, d.fit.min_count), style),
                ]));
            }
        }
        out.push(Line::default());
    }
}

/// The lines of another scheduler's gang's report: the text `explain vcpg/NAME` prints
/// ([`crate::render::gang::write_text`]), the first line (the gang, and that wasctl does not
/// simulate its scheduler) as a header.
pub(crate) fn gang_lines(g: &GangDiagnosis, theme: Theme) -> Vec<Line<'static>> {
    let mut text = Vec::new();
    if let Err(e) = crate::render::gang::write_text(
        &mut text,
        g,
        crate::render::color::ColorChoice::Never.styler(),
    ) {
        return vec![Line::from(Span::styled(
            format!("cannot show the report: {e}"),
            theme.error(),
        ))];
    }
    // The writer escaped what came from the cluster.
    String::from_utf8_lossy(&text)
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 || (l.ends_with(':') && !l.starts_with(' ')) {
                Line::from(Span::styled(l.to_owned(), theme.header()))
            } else {
                Line::raw(l.to_owned())
            }
        })
        .collect()
}

fn unit_of<'a>(cx: &Cx<'a>, d: &Diagnosis) -> Option<&'a UnitResult> {
    cx.data.plan.unit(&d.target)
}

impl Component for ExplainView {
    fn title(&self, _cx: &Cx<'_>) -> String {
        format!("explain {}", self.target)
    }

    fn draw(&mut self, buf: &mut Buffer, area: Rect, cx: &Cx<'_>) {
        let theme = cx.theme;
        let lines: Vec<Line<'static>> = match &self.result {
            None => vec![Line::from(Span::styled(
                format!("explaining {} …", self.target),
                theme.dim(),
            ))],
            Some(Err(e)) => vec![Line::from(Span::styled(s(e), theme.error()))],
            Some(Ok(Explained::Units(ds))) => ds
                .iter()
                .flat_map(|d| diagnosis_lines(d, unit_of(cx, d), theme))
                .collect(),
            Some(Ok(Explained::Gang(g))) => gang_lines(g, theme),
        };
        // Wrapped at word boundaries to the width: no message is cut (issue 51: `…2 Insu`).
        let width = usize::from(area.width);
        let lines: Vec<Line<'static>> = lines.iter().flat_map(|l| wrap(l, width)).collect();
        self.lines = lines.len();
        self.height = usize::from(area.height);
        self.scroll = self.scroll.min(self.lines.saturating_sub(1));
        for (row, line) in lines.iter().skip(self.scroll).take(self.height).enumerate() {
            let y = area.y + u16::try_from(row).unwrap_or(u16::MAX);
            buf.set_line(area.x, y, line, area.width);
        }
    }

    fn on_key(&mut self, key: KeyEvent, _cx: &Cx<'_>, _queue: &mut Vec<Intent>) -> bool {
        scroll_text(key, &mut self.scroll, self.lines, self.height)
    }

    fn refresh(&mut self, _cx: &Cx<'_>) {}

    fn selected(&self, _cx: &Cx<'_>) -> Option<ObjRef> {
        Some(self.target.clone())
    }

    fn scroll(&mut self, delta: isize, _cx: &Cx<'_>) {
        self.scroll = self
            .scroll
            .saturating_add_signed(delta)
            .min(self.lines.saturating_sub(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::{Fit, Verdict};

    fn diagnosis(profile: &str, scoring: Option<&str>) -> Diagnosis {
        Diagnosis {
            target: crate::snapshot::ObjRef::new(crate::snapshot::ObjKind::Pod, "ml", "train"),
            verdict: Verdict::Schedulable,
            outcome: Some(crate::sched::plan::Outcome::Scheduled),
            message: String::new(),
            findings: Vec::new(),
            node_reasons: std::collections::BTreeMap::new(),
            fit: Fit {
                min_count: 1,
                placeable: 1,
                domains: Vec::new(),
                held: false,
            },
            fixes: Vec::new(),
            assumed: Vec::new(),
            relevant_notes: Vec::new(),
            admitted: Vec::new(),
            feature_gates: std::collections::BTreeMap::new(),
            pod_by_pod: None,
            profile: profile.to_owned(),
            scoring: scoring.map(str::to_owned),
            extenders: Vec::new(),
        }
    }

    fn text(d: &Diagnosis) -> String {
        diagnosis_lines(d, None, Theme::new(false))
            .iter()
            .map(|l| {
                l.spans
                    .iter()
                    .map(|s| s.content.as_ref())
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn the_unit_detail_names_a_profile_that_is_not_the_default() {
        let d = diagnosis(
            "gpu-binpack",
            Some("profile gpu-binpack: MostAllocated on nvidia.com/gpu"),
        );
        assert!(
            text(&d).contains("profile gpu-binpack: MostAllocated on nvidia.com/gpu"),
            "{}",
            text(&d)
        );
        assert!(!text(&diagnosis("", None)).contains("profile"));
    }

    #[test]
    fn the_unit_detail_warns_of_each_extender() {
        let mut d = diagnosis("", None);
        assert!(!text(&d).contains("extender"));
        d.extenders = vec!["http://gpu-extender:8888".to_owned()];
        assert!(
            text(&d).contains(
                "warning: extender `http://gpu-extender:8888` is not simulated: this verdict may differ"
            ),
            "{}",
            text(&d)
        );
    }
}
