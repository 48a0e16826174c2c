//! The event queue and the background worker.
//!
//! The UI thread never simulates, explains or loads: it sends a [`Job`] to the worker thread and
//! keeps drawing (with a spinner) until the [`Done`] comes back. Every job carries the
//! generation it was asked in, so a result that a newer request made stale is dropped.
//! Components talk to the app through [`Intent`]s pushed on a queue (gitui's `InternalEvent`),
//! never by reaching into each other.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread;
use std::time::Instant;

use k8s_openapi::jiff::Timestamp;

use super::data::{BuildOptions, Data};
pub(crate) use super::watching::Feed;
use crate::explain::kueue::{KueueExplanation, explain_workload};
use crate::explain::others::{GangDiagnosis, explain_other_gang};
use crate::explain::{Diagnosis, explain_target};
use crate::graph::Graph;
use crate::kueue::stages::Staged;
use crate::sched::Options;
use crate::sched::plan::Plan;
use crate::snapshot::Snapshot;
use crate::snapshot::source::live::{self, Update};
use crate::snapshot::source::watch::advance_clock;
use crate::snapshot::{ObjKind, ObjRef};

/// Lists a live cluster again for a kubeconfig context (`None`: the current one), and
/// watches it from there (the [`Feed`]).
pub(crate) type Loader =
    Arc<dyn Fn(Option<&str>) -> Result<(Snapshot, Option<Feed>), String> + Send + Sync>;

/// Work for the background thread.
pub(crate) enum Job {
    /// Simulate the snapshot (as loaded and watched) with the what-ifs and build every view's
    /// data.
    Build {
        /// The request's number: the app drops a result whose number is not its latest.
        generation: u64,
        /// Gate overrides and what-ifs.
        options: BuildOptions,
        /// The plan of `base` without what-ifs, when known.
        base_plan: Option<Arc<Plan>>,
    },
    /// Load a fresh snapshot, then build.
    Reload {
        /// The request's number: the app drops a result whose number is not its latest.
        generation: u64,
        /// The kubeconfig context (`:ctx`), or the current one.
        context: Option<String>,
        /// Gate overrides and what-ifs.
        options: BuildOptions,
    },
    /// Apply a coalesced batch of watch updates to the snapshot and, when a kept record
    /// changed, build every view's data again.
    Apply {
        /// The request's number: the app drops a result whose number is not its latest.
        generation: u64,
        /// The updates, in arrival order.
        updates: Vec<Update>,
        /// When the last of them arrived.
        arrived: Instant,
        /// Gate overrides and what-ifs.
        options: BuildOptions,
    },
    /// Explain the units an object stands for.
    Explain {
        /// The request's number: the app drops a result whose number is not its latest.
        generation: u64,
        /// What to explain, and the data it is explained over.
        request: ExplainRequest,
    },
}

/// A finished job.
pub(crate) enum Done {
    /// New data (or why there is none).
    Data {
        /// The request's number: the app drops a result whose number is not its latest.
        generation: u64,
        /// The data, or a message for the status line.
        result: Result<Box<Data>, String>,
        /// After a reload of a live cluster: its watches.
        feed: Option<Feed>,
    },
    /// A batch of watch updates was applied.
    Applied {
        /// The request's number: the app drops data whose number is not its latest.
        generation: u64,
        /// When the batch's last update arrived.
        arrived: Instant,
        /// What changed, in words (empty: nothing kept changed, and no data was built).
        causes: Vec<String>,
        /// What to tell the user (an object that did not fit its type).
        warnings: Vec<String>,
        /// The new data, when something changed (or why there is none).
        result: Option<Result<Box<Data>, String>>,
    },
    /// Diagnoses for an explain request.
    Explained {
        /// The request's number: the app drops a result whose number is not its latest.
        generation: u64,
        /// The object asked about.
        target: ObjRef,
        /// One diagnosis per unit (or another scheduler's gang's report), or a message.
        result: Result<Explained, String>,
    },
}

/// Something a component asks the app to do.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Intent {
    /// Explain an object (opens the explain view).
    Explain(ObjRef),
    /// Show an object's YAML.
    Yaml(ObjRef),
    /// Show the tree with the cursor on an object.
    JumpTree(ObjRef),
    /// Add the what-if, or remove it when it is already on, and re-plan.
    ToggleWhatIf(super::data::WhatIf),
    /// A message for the status line.
    Status(String),
}

/// What explain says of an object.
#[derive(Debug)]
pub(crate) enum Explained {
    /// One diagnosis per unit the object stands for.
    Units(Vec<Diagnosis>),
    /// A Volcano PodGroup or YuniKorn task group: `explain vcpg/NAME`'s report (wasctl does
    /// not simulate that scheduler).
    Gang(Box<GangDiagnosis>),
}

/// An explain request: the object, and the data it is explained over.
pub(crate) struct ExplainRequest {
    /// The snapshot the plan ran on (what-ifs applied).
    pub snapshot: Arc<Snapshot>,
    /// Its reference graph, as the data holds it.
    pub graph: Arc<Graph>,
    /// On a cluster that runs Kueue, stage one of the dry run (see [`Data::staged`]).
    pub staged: Option<Arc<Staged>>,
    /// The joined plan.
    pub plan: Arc<Plan>,
    /// The plan's options.
    pub options: Options,
    /// The object.
    pub target: ObjRef,
}

/// The units `target` stands for and their diagnoses, as `explain TYPE/NAME` gives them
/// ([`explain_target`]), on the graph the data already holds and one simulation prepared for
/// the whole request. On a cluster that runs Kueue, as `explain` does (src/cli/explain.rs): a
/// Kueue Workload not admitted yet is explained by [`explain_workload`] (which stage blocks
/// it, with the ClusterQueue's numbers); an admitted one by the diagnosis of the unit that
/// holds its pods, after the finding that says so; every unit on the cluster Kueue leaves.
pub(crate) fn diagnose(r: &ExplainRequest) -> Result<Explained, String> {
    if matches!(
        r.target.kind,
        ObjKind::VolcanoPodGroup | ObjKind::YunikornTaskGroup
    ) {
        // As `explain vcpg/NAME` and `explain tg/APP:GROUP` report it.
        return explain_other_gang(&r.snapshot, &r.target).map(|g| Explained::Gang(Box::new(g)));
    }
    diagnose_units(r).map(Explained::Units)
}

/// [`diagnose`] of an object kube-scheduler places.
fn diagnose_units(r: &ExplainRequest) -> Result<Vec<Diagnosis>, String> {
    let mut target = r.target.clone();
    let mut kueue_finding = None;
    if target.kind == ObjKind::KueueWorkload {
        let Some(staged) = r.staged.as_deref() else {
            return Err(format!("Kueue Workload `{}` not found", target.name));
        };
        match explain_workload(
            &r.snapshot,
            staged,
            &r.plan,
            &r.options.gate_overrides,
            &target,
        )? {
            KueueExplanation::Admission(d) => return Ok(vec![*d]),
            KueueExplanation::Placement { finding, unit } => {
                kueue_finding = Some(finding);
                target = unit;
            }
        }
    }
    let own_graph;
    // Stage one's cluster when it changed one (its own graph), else the input's.
    let (s, graph) = match r.staged.as_deref().and_then(|st| st.snapshot.as_ref()) {
        Some(started) => {
            own_graph = Graph::build(started);
            (started, &own_graph)
        }
        None => (&*r.snapshot, &*r.graph),
    };
    let mut prepared = crate::sched::prepare(s, &r.options);
    let mut diagnoses = explain_target(s, graph, &mut prepared, &r.options, &target)?;
    if let Some(finding) = kueue_finding {
        for d in &mut diagnoses {
            d.findings.insert(0, finding.clone());
        }
    }
    Ok(diagnoses)
}

/// The worker's own state: the snapshot every build starts from, kept current by the watch
/// batches and replaced by a reload, and the clock it advances.
struct Worker {
    loader: Option<Loader>,
    base: Arc<Snapshot>,
    /// The server's time at the list, and the local instant of it.
    listed: (Timestamp, Instant),
}

impl Worker {
    fn new(loader: Option<Loader>, base: Arc<Snapshot>) -> Self {
        let listed = (base.now(), Instant::now());
        Self {
            loader,
            base,
            listed,
        }
    }

    fn run(&mut self, job: Job) -> Done {
        match job {
            Job::Build {
                generation,
                options,
                base_plan,
            } => Done::Data {
                generation,
                result: Data::build(Arc::clone(&self.base), &options, base_plan).map(Box::new),
                feed: None,
            },
            Job::Reload {
                generation,
                context,
                options,
            } => self.reload(generation, context.as_deref(), &options),
            Job::Apply {
                generation,
                updates,
                arrived,
                options,
            } => self.apply(generation, updates, arrived, &options),
            Job::Explain {
                generation,
                request,
            } => Done::Explained {
                generation,
                result: diagnose(&request),
                target: request.target,
            },
        }
    }

    /// Lists the cluster again (and watches it); the snapshot is replaced only on success.
    fn reload(&mut self, generation: u64, context: Option<&str>, options: &BuildOptions) -> Done {
        let Some(load) = &self.loader else {
            return Done::Data {
                generation,
                result: Err("this source cannot be reloaded (files or the demo)".to_owned()),
                feed: None,
            };
        };
        match load(context) {
            Ok((snapshot, feed)) => {
                *self = Self::new(self.loader.take(), Arc::new(snapshot));
                Done::Data {
                    generation,
                    result: Data::build(Arc::clone(&self.base), options, None).map(Box::new),
                    feed,
                }
            }
            Err(e) => Done::Data {
                generation,
                result: Err(e),
                feed: None,
            },
        }
    }

    /// Applies a batch of watch updates in place, and builds again when a kept record
    /// changed (the indexes refreshed once for the batch, the clock moved on).
    fn apply(
        &mut self,
        generation: u64,
        updates: Vec<Update>,
        arrived: Instant,
        options: &BuildOptions,
    ) -> Done {
        let snapshot = Arc::make_mut(&mut self.base);
        let (causes, warnings) = match live::apply_updates(snapshot, updates) {
            Ok(applied) => (applied.causes, applied.warnings),
            Err(lost) => (Vec::new(), vec![lost.to_string()]),
        };
        let result = if causes.is_empty() {
            None
        } else {
            snapshot.after_objects_changed();
            advance_clock(snapshot, self.listed.0, self.listed.1);
            Some(Data::build(Arc::clone(&self.base), options, None).map(Box::new))
        };
        Done::Applied {
            generation,
            arrived,
            causes,
            warnings,
            result,
        }
    }
}

/// The background thread: runs jobs in order and sends their results back. It stops when the
/// app drops its [`Sender`].
pub(crate) fn spawn_worker(
    loader: Option<Loader>,
    base: Arc<Snapshot>,
) -> (Sender<Job>, Receiver<Done>) {
    let (job_tx, job_rx) = channel::<Job>();
    let (done_tx, done_rx) = channel::<Done>();
    thread::Builder::new()
        .name(super::terminal::WORKER_THREAD.to_owned())
        .spawn(move || {
            let mut worker = Worker::new(loader, base);
            while let Ok(job) = job_rx.recv() {
                // A panic in an analysis becomes a message, never a dead UI.
                let generation = match &job {
                    Job::Build { generation, .. }
                    | Job::Reload { generation, .. }
                    | Job::Apply { generation, .. }
                    | Job::Explain { generation, .. } => *generation,
                };
                let target = match &job {
                    Job::Explain { request, .. } => Some(request.target.clone()),
                    _ => None,
                };
                let done =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| worker.run(job)))
                        .unwrap_or_else(|_| {
                            let msg = format!(
                                "internal error in the background work: {}",
                                super::terminal::take_worker_panic()
                                    .unwrap_or_else(|| "unknown panic".to_owned())
                            );
                            match target {
                                Some(target) => Done::Explained {
                                    generation,
                                    target,
                                    result: Err(msg),
                                },
                                None => Done::Data {
                                    generation,
                                    result: Err(msg),
                                    feed: None,
                                },
                            }
                        });
                if done_tx.send(done).is_err() {
                    break;
                }
            }
        })
        // Without a thread the closure (and its sender) is dropped: the app sees the
        // disconnect and says so in the status line.
        .ok();
    (job_tx, done_rx)
}
