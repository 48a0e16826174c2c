//! The app: the views, the history stack, the prompt and filter line, the status line, the
//! what-ifs, and the bookkeeping of background jobs. It turns input events into view changes
//! and jobs, and worker results into new data; it never computes a report itself.
//!
//! Generic over nothing: it draws into a [`Frame`] and takes crossterm events, so tests drive
//! it on ratatui's `TestBackend` with scripted keys ([`App::settle`] waits for the worker).

use crate::snapshot::ObjKind;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::time::{Duration, Instant};

use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget, Wrap};

use super::data::{BuildOptions, Data, WhatIf};
use super::event::{Done, ExplainRequest, Intent, Job, Loader, spawn_worker};
use super::keymap::{self, Binding, GLOBAL, SCREENS, Screen};
use super::theme::Theme;
use super::views::doctor::DoctorView;
use super::views::explain::ExplainView;
use super::views::nodes::NodesView;
use super::views::pending::PendingView;
use super::views::queues::QueuesView;
use super::views::tree::TreeView;
use super::views::yaml::YamlView;
use super::views::{Component, Cx};
use super::watching::{Feed, Watch};
use super::widgets::wrap;
use crate::sanitize::sanitize;
use crate::snapshot::ObjRef;
use crate::snapshot::Snapshot;

/// The smallest terminal the layout is drawn in; below it a message replaces the layout.
pub(crate) const MIN_WIDTH: u16 = 60;
/// See [`MIN_WIDTH`].
pub(crate) const MIN_HEIGHT: u16 = 12;

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// How the TUI was started.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Colours on (off with `NO_COLOR` or `--color never`).
    pub color: bool,
    /// Where the snapshot came from, for the header (`demo`, `files`, `context NAME`).
    pub source: String,
    /// The namespace to show first (`None`: all).
    pub namespace: Option<String>,
    /// `--feature-gates` overrides.
    pub gate_overrides: BTreeMap<String, bool>,
    /// A note for the status line at start (`--refresh`, now a no-op).
    pub notice: Option<String>,
    /// `--select`: open with the cursor on this object.
    pub select: Option<ObjRef>,
    /// Whether the source can be reloaded (live mode): `:ctx` and Ctrl-R need it.
    pub live: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Input {
    Normal,
    /// The `:` prompt.
    Command(String),
    /// The `/` filter: the text, and the filter before it (Esc restores it).
    Filter(String, String),
}

/// Everything the TUI keeps between frames: the data and the snapshot it came from, the
/// screen stack and each screen's state, the input line and status, the what-ifs, and the
/// channels to the worker thread.
pub struct App {
    config: Config,
    theme: Theme,
    data: Option<Arc<Data>>,
    base: Arc<Snapshot>,
    stack: Vec<Screen>,
    tree: TreeView,
    pending: PendingView,
    nodes: NodesView,
    doctor: DoctorView,
    queues: QueuesView,
    explain: Option<ExplainView>,
    yaml: Option<YamlView>,
    /// The help is open: its scroll position.
    help: Option<usize>,
    input: Input,
    status: Option<(String, bool)>,
    busy: Option<String>,
    spinner: usize,
    /// What-ifs asked for, and those the current data was built with.
    what_ifs: Vec<WhatIf>,
    applied: Vec<WhatIf>,
    namespace: Option<String>,
    context: Option<String>,
    generation: u64,
    explain_generation: u64,
    jobs: Sender<Job>,
    done: Receiver<Done>,
    outstanding: usize,
    quit: bool,
    /// The live cluster's watches (off for files and the demo).
    watch: Watch,
    /// A reload (Ctrl-R, `:ctx`) is under way (its generation): the old watches' updates
    /// wait, and are dropped when it succeeds.
    reloading: Option<u64>,
    /// A batch of watch updates is with the worker: the next waits (and grows).
    applying: bool,
    /// The watch status's words as last drawn by a tick.
    watch_words: Option<String>,
}

impl App {
    /// Starts the app on a loaded snapshot: the worker simulates it and builds the views' data
    /// while the UI shows a spinner. `loader` lists and watches the cluster again (live mode:
    /// Ctrl-R, `:ctx`).
    pub fn new(config: Config, snapshot: Snapshot, loader: Option<Loader>) -> Self {
        Self::watching(config, snapshot, loader, None)
    }

    /// [`App::new`] on a live cluster's snapshot and its watches (`feed`).
    pub(crate) fn watching(
        config: Config,
        snapshot: Snapshot,
        loader: Option<Loader>,
        feed: Option<Feed>,
    ) -> Self {
        let base = Arc::new(snapshot);
        let (jobs, done) = spawn_worker(loader, Arc::clone(&base));
        let mut watch = Watch::default();
        if let Some(feed) = feed {
            watch.start(feed, Instant::now());
        }
        let mut app = Self {
            theme: Theme::new(config.color),
            namespace: config.namespace.clone(),
            data: None,
            base: Arc::clone(&base),
            stack: vec![Screen::Tree],
            tree: TreeView::default(),
            pending: PendingView::default(),
            nodes: NodesView::default(),
            doctor: DoctorView::default(),
            queues: QueuesView::default(),
            explain: None,
            yaml: None,
            help: None,
            input: Input::Normal,
            status: None,
            busy: None,
            spinner: 0,
            what_ifs: Vec::new(),
            applied: Vec::new(),
            context: None,
            generation: 0,
            explain_generation: 0,
            jobs,
            done,
            outstanding: 0,
            quit: false,
            watch,
            reloading: None,
            applying: false,
            watch_words: None,
            config,
        };
        if let Some(notice) = app.config.notice.clone() {
            app.info(notice);
        }
        if let Some(obj) = app.config.select.clone() {
            app.tree.jump_to(obj);
        }
        app.build("simulating");
        app
    }

    /// The data the views show (tests).
    #[cfg(test)]
    pub(crate) fn data_for_tests(&self) -> Option<&Data> {
        self.data.as_deref()
    }

    /// Takes the watches' updates until every batch was applied and its data built (tests:
    /// the UI loop polls).
    #[cfg(test)]
    pub(crate) fn settle_watch(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            self.poll();
            self.settle();
            if !self.watch.has_pending() && !self.applying {
                return;
            }
            assert!(Instant::now() < deadline, "the watch batches never settled");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether the user asked to quit.
    pub(crate) fn should_quit(&self) -> bool {
        self.quit
    }

    /// Whether a background job is running or watch updates wait to be handed on (the loop
    /// then ticks faster, for the spinner and the coalescing time).
    pub(crate) fn is_busy(&self) -> bool {
        self.outstanding > 0 || self.watch.has_pending()
    }

    fn options(&self) -> BuildOptions {
        BuildOptions {
            gate_overrides: self.config.gate_overrides.clone(),
            what_ifs: self.what_ifs.clone(),
        }
    }

    fn send(&mut self, job: Job, busy: &str) {
        if self.jobs.send(job).is_err() {
            self.error("the background worker stopped; restart the TUI".to_owned());
            return;
        }
        self.outstanding += 1;
        self.busy = Some(busy.to_owned());
    }

    fn build(&mut self, busy: &str) {
        self.generation += 1;
        let base_plan = self.data.as_ref().map(|d| Arc::clone(&d.base_plan));
        let job = Job::Build {
            generation: self.generation,
            options: self.options(),
            base_plan,
        };
        self.send(job, busy);
    }

    fn reload(&mut self) {
        if !self.config.live {
            self.error("this source cannot be reloaded (files or the demo)".to_owned());
            return;
        }
        self.generation += 1;
        self.reloading = Some(self.generation);
        let job = Job::Reload {
            generation: self.generation,
            context: self.context.clone(),
            options: self.options(),
        };
        self.send(job, "reloading");
    }

    fn request_explain(&mut self) {
        let (Some(data), Some(view)) = (self.data.as_ref(), self.explain.as_mut()) else {
            return;
        };
        self.explain_generation += 1;
        view.result = None;
        let job = Job::Explain {
            generation: self.explain_generation,
            request: ExplainRequest {
                snapshot: Arc::clone(&data.snapshot),
                graph: Arc::clone(&data.graph),
                staged: data.staged.clone(),
                plan: Arc::clone(&data.plan),
                options: data.options.clone(),
                target: view.target.clone(),
            },
        };
        self.send(job, "explaining");
    }

    fn error(&mut self, msg: String) {
        self.status = Some((msg, true));
    }

    fn info(&mut self, msg: String) {
        self.status = Some((msg, false));
    }

    fn receive(&mut self, done: Done) {
        self.outstanding = self.outstanding.saturating_sub(1);
        if self.outstanding == 0 {
            self.busy = None;
        }
        match done {
            Done::Data {
                generation,
                result,
                feed,
            } => {
                if let Some(feed) = feed {
                    // The worker builds from the new snapshot on: its watches replace the old
                    // ones (dropped: they stop), with what they had pending.
                    self.watch.start(feed, Instant::now());
                }
                // Jobs run in order: any later result means the reload is done.
                if self.reloading.is_some_and(|g| generation >= g) {
                    self.reloading = None;
                }
                if generation != self.generation {
                    return;
                }
                self.accept(result);
            }
            Done::Applied {
                generation,
                arrived,
                causes,
                warnings,
                result,
            } => {
                self.applying = false;
                if !causes.is_empty() {
                    self.watch.changed(arrived);
                }
                if let Some(w) = warnings.last() {
                    self.error(w.clone());
                }
                if let Some(result) = result
                    && generation == self.generation
                {
                    self.accept(result);
                }
            }
            Done::Explained {
                generation,
                target,
                result,
            } => {
                if let Some(view) = self.explain.as_mut()
                    && generation == self.explain_generation
                    && view.target == target
                {
                    view.result = Some(result);
                }
            }
        }
    }

    /// New data from the worker (or why there is none): every view rebuilds its rows, the
    /// cursor on the same object.
    fn accept(&mut self, result: Result<Box<Data>, String>) {
        match result {
            Ok(data) => {
                let data: Arc<Data> = Arc::from(data);
                self.base = Arc::clone(&data.base);
                self.applied = self.what_ifs.clone();
                self.remember_selection();
                self.data = Some(data);
                self.refresh_all();
                if self.explain.is_some() {
                    self.request_explain();
                }
            }
            Err(e) => {
                // Keep showing the last good data; the what-ifs go back to what it shows.
                self.what_ifs = self.applied.clone();
                self.error(e);
            }
        }
    }

    /// Takes the watches' updates without waiting, and hands a coalesced batch to the
    /// worker (one at a time: while one is applied, the next grows). Returns whether any
    /// arrived.
    fn poll_watch(&mut self, now: Instant) -> bool {
        if self.reloading.is_some() {
            // The old watches' updates wait: dropped if the reload succeeds, taken if not.
            return false;
        }
        let taken = self.watch.take(now);
        if let Some(w) = taken.warnings.last() {
            self.info(w.clone());
        }
        if !self.applying
            && let Some(updates) = self.watch.batch(now)
        {
            self.applying = true;
            self.generation += 1;
            let job = Job::Apply {
                generation: self.generation,
                updates,
                arrived: now,
                options: self.options(),
            };
            self.send(job, "updating");
        }
        taken.any
    }

    /// Takes the finished background jobs and the watches' updates without waiting. Returns
    /// whether any arrived.
    pub(crate) fn poll(&mut self) -> bool {
        let mut any = self.poll_watch(Instant::now());
        loop {
            match self.done.try_recv() {
                Ok(done) => {
                    any = true;
                    self.receive(done);
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    if self.outstanding > 0 {
                        self.outstanding = 0;
                        self.busy = None;
                        self.error("the background worker stopped; restart the TUI".to_owned());
                    }
                    break;
                }
            }
        }
        any
    }

    /// Waits until every background job has finished (tests and benches; the UI loop polls).
    pub fn settle(&mut self) {
        while self.outstanding > 0 {
            match self.done.recv_timeout(Duration::from_secs(600)) {
                Ok(done) => self.receive(done),
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {
                    self.outstanding = 0;
                    self.busy = None;
                    self.error("the background worker stopped; restart the TUI".to_owned());
                }
            }
        }
    }

    /// Advances the spinner; returns whether the watch status's words changed with the clock
    /// ("last change 3s ago", the event rate), so the screen is drawn again.
    pub(crate) fn tick(&mut self, now: Instant) -> bool {
        self.spinner = (self.spinner + 1) % SPINNER.len();
        let words = self.watch.status(now).map(|(w, _)| w);
        let changed = words != self.watch_words;
        self.watch_words = words;
        changed
    }

    fn screen(&self) -> Screen {
        self.stack.last().copied().unwrap_or(Screen::Tree)
    }

    fn push(&mut self, s: Screen) {
        if self.screen() == s {
            return;
        }
        self.stack.push(s);
        if self.stack.len() > 64 {
            self.stack.remove(0);
        }
    }

    /// The view of screen `s`, if it exists: the one place a screen meets its component.
    fn view_mut(&mut self, s: Screen) -> Option<&mut dyn Component> {
        match s {
            Screen::Tree => Some(&mut self.tree),
            Screen::Pending => Some(&mut self.pending),
            Screen::Nodes => Some(&mut self.nodes),
            Screen::Doctor => Some(&mut self.doctor),
            Screen::Queues => Some(&mut self.queues),
            Screen::Explain => self.explain.as_mut().map(|v| v as &mut dyn Component),
            Screen::Yaml => self.yaml.as_mut().map(|v| v as &mut dyn Component),
        }
    }

    /// Runs `f` on the current view with a context; `None` while there is no data.
    fn with_view<R>(&mut self, f: impl FnOnce(&mut dyn Component, &Cx<'_>) -> R) -> Option<R> {
        let data = Arc::clone(self.data.as_ref()?);
        let ns = self.namespace.clone();
        let theme = self.theme;
        let view = self.view_mut(self.screen())?;
        let cx = Cx {
            data: &data,
            theme,
            namespace: ns.as_deref(),
        };
        Some(f(view, &cx))
    }

    /// The data is about to change: every view notes its selected row by identity (what the
    /// row stands for, read from the data it was built from), for its next refresh.
    fn remember_selection(&mut self) {
        self.each_view(|view, cx| view.remember(cx));
    }

    /// The data or the namespace changed: every view that exists rebuilds its rows.
    fn refresh_all(&mut self) {
        self.each_view(|view, cx| view.refresh(cx));
    }

    /// Runs `f` on every view that exists, with the current data (none: nothing to do).
    fn each_view(&mut self, mut f: impl FnMut(&mut dyn Component, &Cx<'_>)) {
        let Some(data) = self.data.clone() else {
            return;
        };
        let ns = self.namespace.clone();
        let theme = self.theme;
        for spec in SCREENS {
            if let Some(view) = self.view_mut(spec.screen) {
                let cx = Cx {
                    data: &data,
                    theme,
                    namespace: ns.as_deref(),
                };
                f(view, &cx);
            }
        }
    }

    /// Handles one terminal event.
    pub fn handle(&mut self, event: &Event) {
        match event {
            Event::Key(key) if key.kind != KeyEventKind::Release => self.on_key(*key),
            Event::Mouse(m) => self.on_mouse(*m),
            _ => {}
        }
    }

    fn on_mouse(&mut self, m: MouseEvent) {
        match m.kind {
            MouseEventKind::ScrollDown => {
                self.with_view(|v, cx| v.scroll(3, cx));
            }
            MouseEventKind::ScrollUp => {
                self.with_view(|v, cx| v.scroll(-3, cx));
            }
            MouseEventKind::Down(MouseButton::Left) => {
                self.with_view(|v, _| v.click(m.row));
            }
            _ => {}
        }
    }

    fn on_key(&mut self, key: KeyEvent) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && key.code == KeyCode::Char('c') {
            self.quit = true;
            return;
        }
        match self.input.clone() {
            Input::Command(text) => return self.on_prompt_key(key, text),
            Input::Filter(text, before) => return self.on_filter_key(key, text, before),
            Input::Normal => {}
        }
        if let Some(at) = self.help {
            match key.code {
                KeyCode::Esc | KeyCode::Char('?') | KeyCode::Enter => self.help = None,
                KeyCode::Char('q') => self.quit = true,
                KeyCode::Char('j') | KeyCode::Down => self.help = Some(at + 1),
                KeyCode::Char('k') | KeyCode::Up => self.help = Some(at.saturating_sub(1)),
                KeyCode::Char('g') | KeyCode::Home => self.help = Some(0),
                _ => {}
            }
            return;
        }
        self.status = None;
        match key.code {
            KeyCode::Char('q') => self.quit = true,
            KeyCode::Char(':') => self.input = Input::Command(String::new()),
            KeyCode::Char('/') if self.data.is_some() => {
                let before = self
                    .with_view(|v, _| v.filter().to_owned())
                    .unwrap_or_default();
                self.input = Input::Filter(before.clone(), before);
            }
            KeyCode::Char('?') => self.help = Some(0),
            KeyCode::Char('r') if ctrl => self.reload(),
            KeyCode::Esc => {
                let filtered = self
                    .with_view(|v, cx| {
                        let had = !v.filter().is_empty();
                        if had {
                            v.set_filter("", cx);
                        }
                        had
                    })
                    .unwrap_or(false);
                if filtered {
                } else if self.screen() == Screen::Tree && self.tree.kind().is_some() {
                    // `:pods` and the like: Esc goes back to the whole tree.
                    self.tree.set_kind(None);
                    self.refresh_all();
                } else if self.stack.len() > 1 {
                    self.stack.pop();
                }
            }
            KeyCode::Tab | KeyCode::BackTab => {
                let main: Vec<Screen> = Screen::main().collect();
                let pos = main.iter().position(|s| *s == self.screen());
                let next = match (pos, key.code) {
                    (Some(p), KeyCode::Tab) => main.get((p + 1) % main.len()),
                    (Some(p), _) => main.get((p + main.len() - 1) % main.len()),
                    (None, _) => main.first(),
                };
                if let Some(next) = next {
                    self.push(*next);
                }
            }
            KeyCode::Char('u') => match self.what_ifs.pop() {
                Some(w) => {
                    self.info(format!("undid {}", w.describe()));
                    self.build("re-planning");
                }
                None => self.info("no what-if to undo".to_owned()),
            },
            KeyCode::Char('y') => {
                if let Some(obj) = self.with_view(|v, cx| v.selected(cx)).flatten() {
                    self.apply(vec![Intent::Yaml(obj)]);
                }
            }
            KeyCode::Char('e') => {
                if let Some(obj) = self.with_view(|v, cx| v.selected(cx)).flatten() {
                    if obj.kind == ObjKind::Node
                        || obj.kind == ObjKind::ResourceClaim
                        || (obj.kind.is_kueue() && obj.kind != ObjKind::KueueWorkload)
                    {
                        self.error(format!(
                            "`explain` takes a pod, group or Workload, not a {}",
                            obj.kind
                        ));
                    } else {
                        self.apply(vec![Intent::Explain(obj)]);
                    }
                }
            }
            _ => {
                let mut queue = Vec::new();
                let used = self.with_view(|v, cx| v.on_key(key, cx, &mut queue));
                if used == Some(false) {
                    self.info(format!(
                        "unknown key `{}` in the {} view: `?` lists its keys",
                        key_name(key),
                        self.screen().name()
                    ));
                }
                self.apply(queue);
            }
        }
    }

    fn apply(&mut self, queue: Vec<Intent>) {
        for intent in queue {
            match intent {
                Intent::Status(s) => self.info(s),
                Intent::Explain(obj) => {
                    self.explain = Some(ExplainView::new(obj));
                    if self.screen() != Screen::Explain {
                        self.push(Screen::Explain);
                    }
                    self.request_explain();
                }
                Intent::Yaml(obj) => {
                    let Some(data) = self.data.clone() else {
                        continue;
                    };
                    let ns = self.namespace.clone();
                    let cx = Cx {
                        data: &data,
                        theme: self.theme,
                        namespace: ns.as_deref(),
                    };
                    self.yaml = Some(YamlView::new(obj, &cx));
                    self.push(Screen::Yaml);
                }
                Intent::JumpTree(obj) => {
                    let in_tree = self.data.as_ref().is_some_and(|d| {
                        d.tree.iter().any(|r| {
                            r.node.kind == obj.kind
                                && r.node.namespace == obj.namespace
                                && r.node.name == obj.name
                        })
                    });
                    let has_yaml = self
                        .data
                        .as_ref()
                        .is_some_and(|d| super::data::object_yaml(&d.snapshot, &obj).is_some());
                    if in_tree {
                        if self
                            .namespace
                            .as_ref()
                            .is_some_and(|ns| *ns != obj.namespace)
                        {
                            self.namespace = None;
                        }
                        if self.tree.kind().is_some_and(|k| *k != obj.kind) {
                            self.tree.set_kind(None);
                        }
                        self.tree.jump_to(obj);
                        self.refresh_all();
                        self.push(Screen::Tree);
                    } else if obj.kind == ObjKind::Node && has_yaml {
                        self.nodes.select_name(&obj.name);
                        self.refresh_all();
                        self.push(Screen::Nodes);
                    } else if has_yaml {
                        // Not in the tree (a claim no pod uses, a queue): its YAML.
                        self.apply(vec![Intent::Yaml(obj)]);
                    } else {
                        self.error(format!("{obj} is not in the tree or the snapshot"));
                    }
                }
                Intent::ToggleWhatIf(w) => {
                    if let Some(p) = self.what_ifs.iter().position(|x| *x == w) {
                        self.what_ifs.remove(p);
                        self.info(format!("removed what-if: {}", w.describe()));
                    } else {
                        self.info(format!("what-if: {}", w.describe()));
                        self.what_ifs.push(w);
                    }
                    self.build("re-planning");
                }
            }
        }
    }

    fn on_prompt_key(&mut self, key: KeyEvent, mut text: String) {
        match key.code {
            KeyCode::Esc => self.input = Input::Normal,
            KeyCode::Enter => {
                self.input = Input::Normal;
                self.run_command(text.trim());
            }
            KeyCode::Backspace => {
                if text.pop().is_none() {
                    self.input = Input::Normal;
                } else {
                    self.input = Input::Command(text);
                }
            }
            KeyCode::Tab => {
                let namespaces = self
                    .data
                    .as_ref()
                    .map(|d| d.namespaces.clone())
                    .unwrap_or_default();
                let found = keymap::complete(&text, &namespaces);
                match found.as_slice() {
                    [] => self.error(format!("no command starts with `{}`", sanitize(&text))),
                    [one] => {
                        text.clone_from(one);
                        if matches!(one.as_str(), "ns" | "ctx" | "add") {
                            text.push(' ');
                        }
                        self.status = None;
                    }
                    many => {
                        text = common_prefix(many);
                        self.info(many.join("  "));
                    }
                }
                self.input = Input::Command(text);
            }
            KeyCode::Char(c) => {
                text.push(c);
                self.input = Input::Command(text);
            }
            _ => {}
        }
    }

    fn run_command(&mut self, line: &str) {
        let (cmd, arg) = line
            .split_once(' ')
            .map_or((line, ""), |(c, a)| (c, a.trim()));
        if let Some(s) = Screen::by_command(cmd) {
            if s == Screen::Tree && self.tree.kind().is_some() {
                self.tree.set_kind(None);
                self.refresh_all();
            }
            self.push(s);
            return;
        }
        if let Some(k) = keymap::kind_by_command(cmd) {
            match k.screen {
                Screen::Tree => {
                    self.tree.set_kind(Some(k.kind.clone()));
                    self.refresh_all();
                }
                Screen::Queues => {
                    self.queues.set_kind(k.kind.clone());
                    self.refresh_all();
                }
                _ => {}
            }
            self.push(k.screen);
            return;
        }
        match cmd {
            "" => {}
            "ns" | "namespace" => {
                self.namespace = match arg {
                    "" | "all" | "-A" => None,
                    ns => Some(ns.to_owned()),
                };
                self.info(format!(
                    "namespace: {}",
                    self.namespace.as_deref().unwrap_or("all")
                ));
                self.refresh_all();
            }
            "ctx" | "context" => {
                if !self.config.live {
                    self.error(
                        "`:ctx` works in live mode only (not with `--from` or `--demo`)".to_owned(),
                    );
                } else if arg.is_empty() {
                    self.error("write `:ctx NAME`".to_owned());
                } else {
                    self.context = Some(arg.to_owned());
                    self.config.source = format!("context {arg}");
                    self.reload();
                }
            }
            "add" => {
                if arg.is_empty() {
                    self.error("write `:add FILE`".to_owned());
                } else {
                    self.apply(vec![Intent::ToggleWhatIf(WhatIf::Add(arg.into()))]);
                }
            }
            "help" | "h" => self.help = Some(0),
            "q" | "quit" | "q!" => self.quit = true,
            other => {
                let close = keymap::complete(&other[..other.len().min(1)], &[]);
                self.error(format!(
                    "unknown command `{}`; try {}",
                    sanitize(other),
                    if close.is_empty() {
                        keymap::commands().join(", ")
                    } else {
                        close.join(", ")
                    }
                ));
            }
        }
    }

    fn on_filter_key(&mut self, key: KeyEvent, mut text: String, before: String) {
        match key.code {
            KeyCode::Esc => {
                self.with_view(|v, cx| v.set_filter(&before, cx));
                self.input = Input::Normal;
                return;
            }
            KeyCode::Enter => {
                self.input = Input::Normal;
                return;
            }
            KeyCode::Backspace => {
                text.pop();
            }
            KeyCode::Char(c) => text.push(c),
            _ => return,
        }
        self.with_view(|v, cx| v.set_filter(&text, cx));
        self.input = Input::Filter(text, before);
    }

    /// Draws the whole screen.
    pub(crate) fn draw(&mut self, frame: &mut Frame<'_>) {
        let area = frame.area();
        self.draw_into(frame.buffer_mut(), area);
    }

    /// Draws into a buffer (what [`App::draw`] does with the frame's buffer).
    pub fn draw_into(&mut self, buf: &mut Buffer, area: Rect) {
        let theme = self.theme;
        if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
            let msg = format!(
                "The terminal is {}×{}; wasctl tui needs at least {MIN_WIDTH}×{MIN_HEIGHT}. Make it larger, or press q to quit.",
                area.width, area.height
            );
            Paragraph::new(msg)
                .wrap(Wrap { trim: true })
                .style(theme.warn())
                .render(area, buf);
            return;
        }
        let header = Rect { height: 1, ..area };
        let tabs = Rect {
            y: area.y + 1,
            height: 1,
            ..area
        };
        let body = Rect {
            y: area.y + 2,
            height: area.height - 3,
            ..area
        };
        let status = Rect {
            y: area.bottom() - 1,
            height: 1,
            ..area
        };
        self.draw_header(buf, header);
        self.draw_tabs(buf, tabs);
        match self.data.clone() {
            None => {
                let spin = SPINNER[self.spinner];
                buf.set_string(
                    body.x,
                    body.y,
                    format!(
                        "{spin} {} {} objects…",
                        self.busy.as_deref().unwrap_or("loading"),
                        self.base.object_count()
                    ),
                    theme.dim(),
                );
            }
            Some(data) => {
                let ns = self.namespace.clone();
                let cx = Cx {
                    data: &data,
                    theme,
                    namespace: ns.as_deref(),
                };
                if let Some(v) = self.view_mut(self.screen()) {
                    v.draw(buf, body, &cx);
                }
            }
        }
        self.draw_status(buf, status);
        if let Some(at) = self.help {
            self.draw_help(buf, body, at);
        }
    }

    fn title(&mut self) -> String {
        self.with_view(|v, cx| v.title(cx)).unwrap_or_default()
    }

    fn draw_header(&mut self, buf: &mut Buffer, area: Rect) {
        let theme = self.theme;
        let title = self.title();
        let mut spans = vec![
            Span::styled(" wasctl ", theme.header()),
            Span::styled("│ ", theme.dim()),
            Span::raw(sanitize(&self.config.source).into_owned()),
            Span::styled(" │ ", theme.dim()),
            Span::raw(format!(
                "ns: {}",
                sanitize(self.namespace.as_deref().unwrap_or("all"))
            )),
            Span::styled(" │ ", theme.dim()),
        ];
        let mut tail = Vec::new();
        if !self.applied.is_empty() {
            tail.push(Span::styled(" │ ", theme.dim()));
            tail.push(Span::styled(
                format!(
                    "what-ifs: {} (u undoes)",
                    sanitize(
                        &self
                            .applied
                            .iter()
                            .map(WhatIf::describe)
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                ),
                theme.warn(),
            ));
        }
        // A view's title names its object (`yaml PodGroup/ns/name`): escaped like the rest.
        // On a narrow line the title gives way (cut with `…`, never inside a number) so the
        // what-ifs stay readable.
        let fixed: usize = spans.iter().chain(&tail).map(Span::width).sum();
        let room = usize::from(area.width).saturating_sub(fixed).max(8);
        let title = super::widgets::ellipsize(&sanitize(&title), room);
        spans.push(Span::styled(title, theme.header()));
        spans.extend(tail);
        buf.set_line(area.x, area.y, &Line::from(spans), area.width);
    }

    fn draw_tabs(&mut self, buf: &mut Buffer, area: Rect) {
        let theme = self.theme;
        let current = self.screen();
        let mut spans = vec![Span::raw(" ")];
        for spec in SCREENS {
            let s = spec.screen;
            if !spec.main && current != s {
                continue;
            }
            let style = if s == current {
                theme
                    .selected()
                    .add_modifier(ratatui::style::Modifier::BOLD)
            } else {
                theme.dim()
            };
            spans.push(Span::styled(format!(" {} ", s.name()), style));
            spans.push(Span::raw(" "));
        }
        let filter = self
            .with_view(|v, _| v.filter().to_owned())
            .unwrap_or_default();
        if !filter.is_empty() && !matches!(self.input, Input::Filter(..)) {
            spans.push(Span::styled(
                format!(" /{} ", sanitize(&filter)),
                theme.matched(),
            ));
        }
        buf.set_line(area.x, area.y, &Line::from(spans), area.width);
    }

    fn draw_status(&mut self, buf: &mut Buffer, area: Rect) {
        let theme = self.theme;
        let left: Line<'_> = match &self.input {
            Input::Command(text) => Line::from(vec![
                Span::styled(":", theme.key()),
                Span::raw(sanitize(text).into_owned()),
                Span::styled("█", theme.dim()),
            ]),
            Input::Filter(text, _) => Line::from(vec![
                Span::styled("/", theme.key()),
                Span::raw(sanitize(text).into_owned()),
                Span::styled("█", theme.dim()),
            ]),
            Input::Normal => match &self.status {
                Some((msg, true)) => Line::from(Span::styled(
                    format!("error: {}", sanitize(msg)),
                    theme.error(),
                )),
                Some((msg, false)) => Line::raw(sanitize(msg).into_owned()),
                None => Line::from(vec![
                    Span::styled("?", theme.key()),
                    Span::raw(" help  "),
                    Span::styled(":", theme.key()),
                    Span::raw(" command  "),
                    Span::styled("/", theme.key()),
                    Span::raw(" filter  "),
                    Span::styled("Tab", theme.key()),
                    Span::raw(" view  "),
                    Span::styled("Esc", theme.key()),
                    Span::raw(" back  "),
                    Span::styled("q", theme.key()),
                    Span::raw(" quit"),
                ]),
            },
        };
        let (right, right_style) = match (&self.busy, self.watch.status(Instant::now())) {
            (Some(b), _) => (format!("{} {b}… ", SPINNER[self.spinner]), theme.warn()),
            (None, Some((words, bad))) => (
                format!("{} ", sanitize(&words)),
                if bad { theme.error() } else { theme.dim() },
            ),
            (None, None) => (String::new(), theme.warn()),
        };
        let right_width = u16::try_from(right.chars().count()).unwrap_or(0);
        buf.set_line(
            area.x,
            area.y,
            &left,
            area.width.saturating_sub(right_width + 1),
        );
        if right_width > 0 {
            buf.set_string(
                area.right().saturating_sub(right_width),
                area.y,
                right,
                right_style,
            );
        }
    }

    fn draw_help(&mut self, buf: &mut Buffer, body: Rect, scroll: usize) {
        let theme = self.theme;
        let spec = self.screen().spec();
        let own: &'static [Binding] = spec.keys;
        let width = body.width.saturating_sub(4).min(110);
        // Inside the border.
        let inner = usize::from(width.saturating_sub(2));
        let key_width = GLOBAL
            .iter()
            .chain(own)
            .map(|(k, _)| k.chars().count())
            .max()
            .unwrap_or(8);
        let mut lines = wrap(
            &Line::from(vec![
                Span::styled(format!("{} view", spec.name), theme.header()),
                Span::styled(format!(": {}", spec.about), theme.dim()),
            ]),
            inner,
        );
        // A key's words wrap under its description, never cut (issue 51: "add FI").
        let desc_width = inner.saturating_sub(key_width + 4).max(10);
        let row = |(k, d): &Binding| -> Vec<Line<'static>> {
            words_to_width(d, desc_width)
                .into_iter()
                .enumerate()
                .map(|(i, text)| {
                    let key = if i == 0 { *k } else { "" };
                    Line::from(vec![
                        Span::styled(format!("  {key:<key_width$}  "), theme.key()),
                        Span::raw(text),
                    ])
                })
                .collect()
        };
        lines.extend(own.iter().flat_map(row));
        lines.push(Line::default());
        lines.push(Line::from(Span::styled("every view", theme.header())));
        lines.extend(GLOBAL.iter().flat_map(row));
        let rows = usize::from(body.height.saturating_sub(2));
        let scroll = scroll.min(lines.len().saturating_sub(rows));
        self.help = Some(scroll);
        let title = if lines.len() > rows {
            " keys (Esc closes, j k scroll) "
        } else {
            " keys (Esc closes) "
        };
        let shown: Vec<Line<'static>> = lines.into_iter().skip(scroll).take(rows).collect();
        let height = (u16::try_from(shown.len()).unwrap_or(u16::MAX) + 2).min(body.height);
        let area = Rect {
            x: body.x + (body.width - width) / 2,
            y: body.y,
            width,
            height,
        };
        Clear.render(area, buf);
        Paragraph::new(shown)
            .block(
                Block::default()
                    .borders(Borders::ALL)
                    .title(title)
                    .border_style(theme.header()),
            )
            .style(Style::new())
            .render(area, buf);
    }
}

/// `text`'s words in lines of at most `width` columns (a longer word on a line of its own,
/// broken).
fn words_to_width(text: &str, width: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in text.split(' ') {
        let len = cur.chars().count();
        if len > 0 && len + 1 + word.chars().count() > width {
            out.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
        while cur.chars().count() > width {
            let head: String = cur.chars().take(width).collect();
            let tail: String = cur.chars().skip(width).collect();
            out.push(head);
            cur = tail;
        }
    }
    out.push(cur);
    out
}

/// A key as the help writes it (`z`, `F5`, `Ctrl-X`).
fn key_name(key: KeyEvent) -> String {
    let base = match key.code {
        KeyCode::Char(c) => c.to_string(),
        KeyCode::F(n) => format!("F{n}"),
        KeyCode::Backspace => "Backspace".to_owned(),
        KeyCode::Insert => "Insert".to_owned(),
        KeyCode::Delete => "Delete".to_owned(),
        other => format!("{other:?}"),
    };
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        format!("Ctrl-{base}")
    } else if key.modifiers.contains(KeyModifiers::ALT) {
        format!("Alt-{base}")
    } else {
        base
    }
}

fn common_prefix(items: &[String]) -> String {
    let Some(first) = items.first() else {
        return String::new();
    };
    let mut len = first.len();
    for s in &items[1..] {
        len = first
            .bytes()
            .zip(s.bytes())
            .take(len)
            .take_while(|(a, b)| a == b)
            .count();
    }
    first[..len].to_owned()
}
