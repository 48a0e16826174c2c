//! The YAML view: one object of the snapshot as YAML, every line sanitised, scrollable.

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{Component, Cx, scroll_text};
use crate::sanitize::sanitize;
use crate::snapshot::ObjRef;
use crate::tui::data::object_yaml;
use crate::tui::event::Intent;
use crate::tui::widgets::wrap;

/// The YAML screen of one object: its YAML in the current data (or why there is none) and
/// the scroll position.
#[derive(Debug)]
pub(crate) struct YamlView {
    /// The object shown.
    pub target: ObjRef,
    lines: Result<Vec<String>, String>,
    scroll: usize,
    height: usize,
    /// Screen rows the wrapped lines took when last drawn (what scrolling moves over).
    rows: usize,
}

impl YamlView {
    /// The YAML of `target` in the current data.
    pub(crate) fn new(target: ObjRef, cx: &Cx<'_>) -> Self {
        let mut v = Self {
            target,
            lines: Ok(Vec::new()),
            scroll: 0,
            height: 0,
            rows: 0,
        };
        v.refresh(cx);
        v
    }
}

/// Whether the text before a `:` is a mapping key (`  name`, `- name`), not a value's colon.
fn is_key(k: &str) -> bool {
    let k = k.trim_start().trim_start_matches("- ");
    !k.is_empty() && !k.contains(' ')
}

impl Component for YamlView {
    fn title(&self, _cx: &Cx<'_>) -> String {
        format!("yaml {}", self.target)
    }

    fn draw(&mut self, buf: &mut Buffer, area: Rect, cx: &Cx<'_>) {
        self.height = usize::from(area.height);
        match &self.lines {
            Err(e) => {
                buf.set_string(area.x, area.y, sanitize(e), cx.theme.error());
            }
            Ok(lines) => {
                // Long values wrap at word boundaries to the width, never cut (issue 51).
                let width = usize::from(area.width);
                let shown: Vec<Line<'static>> = lines
                    .iter()
                    .flat_map(|text| {
                        let line = match text.split_once(':') {
                            Some((k, rest)) if is_key(k) => Line::from(vec![
                                Span::styled(format!("{k}:"), cx.theme.key()),
                                Span::raw(rest.to_owned()),
                            ]),
                            _ => Line::raw(text.clone()),
                        };
                        wrap(&line, width)
                    })
                    .collect();
                self.rows = shown.len();
                self.scroll = self.scroll.min(shown.len().saturating_sub(1));
                for (row, line) in shown.iter().skip(self.scroll).take(self.height).enumerate() {
                    let y = area.y + u16::try_from(row).unwrap_or(u16::MAX);
                    buf.set_line(area.x, y, line, area.width);
                }
            }
        }
    }

    fn on_key(&mut self, key: KeyEvent, _cx: &Cx<'_>, _queue: &mut Vec<Intent>) -> bool {
        let len = self.rows.max(self.lines.as_ref().map_or(0, Vec::len));
        scroll_text(key, &mut self.scroll, len, self.height)
    }

    fn refresh(&mut self, cx: &Cx<'_>) {
        self.lines = match object_yaml(&cx.data.snapshot, &self.target) {
            None => Err(format!("{} is not in the snapshot", self.target)),
            Some(Err(e)) => Err(format!("cannot show {} as YAML: {e}", self.target)),
            Some(Ok(text)) => Ok(text.lines().map(|l| sanitize(l).into_owned()).collect()),
        };
    }

    fn selected(&self, _cx: &Cx<'_>) -> Option<ObjRef> {
        Some(self.target.clone())
    }

    fn scroll(&mut self, delta: isize, _cx: &Cx<'_>) {
        let len = self.rows.max(self.lines.as_ref().map_or(0, Vec::len));
        self.scroll = self
            .scroll
            .saturating_add_signed(delta)
            .min(len.saturating_sub(1));
    }
}
