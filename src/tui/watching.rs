//! A live cluster, watched: the updates the watches report ([`Feed`]), gathered on the UI
//! thread without waiting (never a network call there), coalesced for [`COALESCE`] after the
//! first of a batch and then handed to the worker, which applies them to the snapshot and
//! builds the views' data again; and the status line's words for it: "watching · 2.4
//! events/s · last change 3s ago", "reconnecting (attempt 2) · pods", "lost: REASON".

use std::collections::{BTreeMap, VecDeque};
use std::sync::mpsc::{Receiver, TryRecvError};
use std::time::{Duration, Instant};

use crate::snapshot::source::live::{AccessError, Update, Watched};
pub(crate) use crate::snapshot::source::watch::COALESCE;

/// The window the event rate is counted over.
const RATE_WINDOW: Duration = Duration::from_secs(5);

/// At most this many updates are taken per [`Watch::take`] (one frame), so a burst never
/// holds the UI thread.
const TAKE_PER_FRAME: usize = 20_000;

/// A live snapshot's watches: what they report, and what keeps them running (dropping the
/// feed stops them).
pub struct Feed {
    updates: Receiver<Update>,
    _keep: Box<dyn Send>,
}

impl Feed {
    /// A feed over `updates`, kept running by `keep` (a test passes a scripted channel).
    pub(crate) fn new(updates: Receiver<Update>, keep: Box<dyn Send>) -> Self {
        Self {
            updates,
            _keep: keep,
        }
    }
}

impl From<Watched> for Feed {
    fn from(w: Watched) -> Self {
        let (updates, keep) = w.into_parts();
        Self::new(updates, keep)
    }
}

/// The watch state the app keeps between frames.
#[derive(Default)]
pub(crate) struct Watch {
    feed: Option<Feed>,
    /// Updates taken and not yet handed to the worker.
    pending: Vec<Update>,
    /// When the first of `pending` arrived.
    first_at: Option<Instant>,
    /// When the watch (re)started: the rate's window does not reach before it.
    since: Option<Instant>,
    /// Arrival times of the object events within [`RATE_WINDOW`].
    arrivals: VecDeque<Instant>,
    /// When an applied batch last changed a kept record.
    last_change: Option<Instant>,
    /// Resources whose watch is being opened again, with the attempt.
    reconnecting: BTreeMap<String, u32>,
    /// Why the API server counts as lost.
    lost: Option<String>,
}

/// What [`Watch::take`] found besides object events, for the status line.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Taken {
    /// Whether anything arrived (the screen is drawn again).
    pub any: bool,
    /// Warnings to show (a resource no longer watched).
    pub warnings: Vec<String>,
}

impl Watch {
    /// Watches `feed` from `now` (a new list: what was pending from an older one is dropped).
    pub(crate) fn start(&mut self, feed: Feed, now: Instant) {
        *self = Self {
            feed: Some(feed),
            since: Some(now),
            ..Self::default()
        };
    }

    /// Whether updates wait to be handed on (the loop then ticks faster).
    pub(crate) fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Takes what the watches reported since the last call, without waiting: object events
    /// and re-lists are kept for the worker; reconnects, resumes, warnings and a lost server
    /// change the status.
    pub(crate) fn take(&mut self, now: Instant) -> Taken {
        let mut taken = Taken::default();
        let Some(feed) = &self.feed else {
            return taken;
        };
        let mut disconnected = false;
        for _ in 0..TAKE_PER_FRAME {
            match feed.updates.try_recv() {
                Ok(u) => {
                    taken.any = true;
                    match u {
                        Update::Event { .. } | Update::Relisted { .. } => {
                            if matches!(u, Update::Event { .. }) {
                                self.arrivals.push_back(now);
                            }
                            self.first_at.get_or_insert(now);
                            self.pending.push(u);
                        }
                        Update::Warning(w) => taken.warnings.push(w.message),
                        Update::Reconnecting { resource, attempt } => {
                            self.reconnecting.insert(resource, attempt);
                        }
                        Update::Resumed { resource } => {
                            self.reconnecting.remove(&resource);
                        }
                        Update::Lost(AccessError::Lost { reason, .. }) => {
                            self.lost = Some(reason);
                        }
                        Update::Lost(e) => self.lost = Some(e.to_string()),
                    }
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    disconnected = true;
                    break;
                }
            }
        }
        if disconnected && self.lost.is_none() {
            // Every watch task ended without a word (its runtime is gone).
            self.lost = Some("the watches stopped".to_owned());
            taken.any = true;
        }
        while self
            .arrivals
            .front()
            .is_some_and(|t| now.saturating_duration_since(*t) > RATE_WINDOW)
        {
            self.arrivals.pop_front();
        }
        taken
    }

    /// The coalesced batch, once [`COALESCE`] has passed since its first update: the worker
    /// applies it (`None`: nothing yet).
    pub(crate) fn batch(&mut self, now: Instant) -> Option<Vec<Update>> {
        let first = self.first_at?;
        if now.saturating_duration_since(first) < COALESCE {
            return None;
        }
        self.first_at = None;
        Some(std::mem::take(&mut self.pending))
    }

    /// A batch the worker applied changed kept records (at `at`).
    pub(crate) fn changed(&mut self, at: Instant) {
        self.last_change = Some(self.last_change.map_or(at, |t| t.max(at)));
    }

    /// The status line's words at `now`: "watching · N events/s · last change 3s ago", or
    /// "reconnecting (attempt k) · RESOURCES", or "lost: REASON" (`None`: not watching).
    pub(crate) fn status(&self, now: Instant) -> Option<(String, bool)> {
        self.feed.as_ref()?;
        if let Some(why) = &self.lost {
            return Some((format!("lost: {why} (Ctrl-R lists again)"), true));
        }
        if let Some(attempt) = self.reconnecting.values().max() {
            // One resource named; the others counted (a lost server has them all).
            let mut names = self.reconnecting.keys();
            let first = names.next().map_or("", String::as_str);
            let more = match names.count() {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            return Some((
                format!("reconnecting (attempt {attempt}) · {first}{more}"),
                true,
            ));
        }
        let window = self
            .since
            .map_or(RATE_WINDOW, |s| now.saturating_duration_since(s))
            .clamp(Duration::from_secs(1), RATE_WINDOW);
        let recent = self
            .arrivals
            .iter()
            .filter(|t| now.saturating_duration_since(**t) <= RATE_WINDOW)
            .count();
        #[allow(
            clippy::cast_precision_loss,
            reason = "a count of events within seconds"
        )]
        let rate = recent as f64 / window.as_secs_f64();
        let rate = if rate >= 10.0 || rate == 0.0 {
            format!("{rate:.0}")
        } else {
            format!("{rate:.1}")
        };
        let mut words = format!("watching · {rate} events/s");
        if let Some(at) = self.last_change {
            words.push_str(&format!(
                " · last change {} ago",
                ago(now.saturating_duration_since(at))
            ));
        }
        Some((words, false))
    }
}

/// A duration as the status line says it: `3s`, `4m`, `2h`.
fn ago(d: Duration) -> String {
    let s = d.as_secs();
    if s < 60 {
        format!("{s}s")
    } else if s < 3600 {
        format!("{}m", s / 60)
    } else {
        format!("{}h", s / 3600)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;

    fn event(name: &str) -> Update {
        Update::Event {
            api_version: "v1".to_owned(),
            kind: "Pod".to_owned(),
            object: format!(r#"{{"metadata":{{"name":"{name}","namespace":"ml"}}}}"#),
            deleted: true,
        }
    }

    #[test]
    fn events_are_coalesced_and_counted_and_the_states_worded() {
        let (tx, rx) = channel();
        let mut w = Watch::default();
        let t0 = Instant::now();
        assert_eq!(w.status(t0), None, "not watching");
        w.start(Feed::new(rx, Box::new(())), t0);
        assert_eq!(
            w.status(t0),
            Some(("watching · 0 events/s".to_owned(), false))
        );
        for n in ["a", "b", "c"] {
            tx.send(event(n)).unwrap();
        }
        let t1 = t0 + Duration::from_secs(2);
        assert!(w.take(t1).any);
        assert!(w.batch(t1).is_none(), "within the coalescing time");
        tx.send(event("d")).unwrap();
        w.take(t1 + Duration::from_millis(100));
        let batch = w.batch(t1 + COALESCE).expect("the batch after 200 ms");
        assert_eq!(batch.len(), 4);
        assert!(!w.has_pending() && w.batch(t1 + COALESCE * 2).is_none());
        w.changed(t1);
        // Four events in the two seconds since the start.
        assert_eq!(
            w.status(t0 + Duration::from_secs(5)).map(|s| s.0),
            Some("watching · 0.8 events/s · last change 3s ago".to_owned())
        );
        tx.send(Update::Reconnecting {
            resource: "pods".to_owned(),
            attempt: 2,
        })
        .unwrap();
        w.take(t1);
        assert_eq!(
            w.status(t1),
            Some(("reconnecting (attempt 2) · pods".to_owned(), true))
        );
        tx.send(Update::Reconnecting {
            resource: "nodes".to_owned(),
            attempt: 1,
        })
        .unwrap();
        w.take(t1);
        assert_eq!(
            w.status(t1),
            Some((
                "reconnecting (attempt 2) · nodes and 1 more".to_owned(),
                true
            ))
        );
        for resource in ["pods", "nodes"] {
            tx.send(Update::Resumed {
                resource: resource.to_owned(),
            })
            .unwrap();
        }
        w.take(t1);
        assert!(w.status(t1).is_some_and(|s| s.0.starts_with("watching")));
        drop(tx);
        w.take(t1);
        assert_eq!(
            w.status(t1),
            Some((
                "lost: the watches stopped (Ctrl-R lists again)".to_owned(),
                true
            ))
        );
    }

    #[test]
    fn durations_read_as_seconds_minutes_hours() {
        assert_eq!(ago(Duration::from_secs(3)), "3s");
        assert_eq!(ago(Duration::from_secs(125)), "2m");
        assert_eq!(ago(Duration::from_secs(7300)), "2h");
    }
}
