//! The catalogue of modelling notes: every place where an answer may differ from what
//! kube-scheduler 1.37 would do, as one table ([`Note`]): a stable id, the sentence, when it
//! is relevant to a run, and its anchor in docs/fidelity.md.
//!
//! A run prints a note only when it could have changed *that* run's answer: the simulator
//! records which ones ([`NoteUse`], in `settings.relevantNotes`), and the renderers print those
//! once each (`--verbose` prints the whole catalogue). docs/fidelity.md, "Notes", lists every
//! note; a test compares that list with this table, so a note cannot be added without docs.
//!
//! A leaf module: it imports nothing from the crate (docs/development.md, "Layers").

use serde::Serialize;

/// One modelling note.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Note {
    /// Equal scores (nodes, or placements of a topology-constrained group) go to the name
    /// that sorts first.
    Ties,
    /// ImageLocality is not scored.
    ImageLocality,
    /// DRA `shareID`s are stand-ins.
    ShareIds,
    /// Preemption evicts and binds in one pass.
    PreemptionTiming,
    /// Where a group's preemptor pods go: the victim-cost rule of upstream's tests.
    GroupPreemption,
    /// `percentageOfNodesToScore` sampled as upstream does (`--mode compat`).
    PercentageCompat,
    /// `percentageOfNodesToScore` set but not applied (exhaustive mode).
    PercentageExhaustive,
    /// capacity: copies are queued after every pending unit of their priority, as written.
    CapacityCopies,
    /// Kueue's topology-aware scheduling (a pod set's topology request) is not simulated.
    KueueTopology,
    /// Kueue's fair-sharing order is not simulated.
    KueueFairSharing,
}

/// What a command that simulates may print under `--verbose`.
pub(crate) const SIMULATION: &[Note] = &[
    Note::Ties,
    Note::ImageLocality,
    Note::ShareIds,
    Note::PreemptionTiming,
    Note::GroupPreemption,
    Note::PercentageCompat,
    Note::PercentageExhaustive,
    Note::KueueTopology,
    Note::KueueFairSharing,
];

impl Note {
    /// Every note, in the order reports print them.
    #[cfg(test)]
    pub(crate) const ALL: [Note; 10] = [
        Note::Ties,
        Note::ImageLocality,
        Note::ShareIds,
        Note::PreemptionTiming,
        Note::GroupPreemption,
        Note::PercentageCompat,
        Note::PercentageExhaustive,
        Note::CapacityCopies,
        Note::KueueTopology,
        Note::KueueFairSharing,
    ];

    /// The stable id (`settings.relevantNotes[].id`, and the docs' anchor).
    pub(crate) fn id(self) -> &'static str {
        match self {
            Note::Ties => "ties",
            Note::ImageLocality => "image-locality",
            Note::ShareIds => "share-ids",
            Note::PreemptionTiming => "preemption-timing",
            Note::GroupPreemption => "group-preemption",
            Note::PercentageCompat => "percentage-compat",
            Note::PercentageExhaustive => "percentage-exhaustive",
            Note::CapacityCopies => "capacity-copies",
            Note::KueueTopology => "kueue-topology",
            Note::KueueFairSharing => "kueue-fair-sharing",
        }
    }

    /// The sentence. `{profiles}`, `{workloads}` and `{queues}` stand for the detail a run
    /// fills in ([`NoteUse::detail`]).
    pub(crate) fn text(self) -> &'static str {
        match self {
            Note::Ties => {
                "ties between equally scored nodes and placements are broken by name (upstream picks at random): an equally good node or domain may be chosen instead"
            }
            Note::ImageLocality => {
                "ImageLocality is not scored: where a pod's image is already on some of its feasible nodes, kube-scheduler leans toward those"
            }
            Note::ShareIds => {
                "DRA: shareIDs of shared devices (allowMultipleAllocations) are deterministic stand-ins for upstream's random UIDs"
            }
            Note::PreemptionTiming => {
                "preemption acts at once: victims are evicted and the preemptor bound in the same pass (upstream nominates, waits for the evictions, then binds; meanwhile other pods may take the room)"
            }
            Note::GroupPreemption => {
                "group preemption places each preemptor pod on the node whose victims cost least (lowest highest priority, then smallest priority sum, then fewest pods; PodDisruptionBudgets not compared), default scores breaking ties (groups with a topology constraint keep default scores), as upstream's victim-aware scoring tests expect; where those tests do not decide, kube-scheduler may pick other nodes and other victims"
            }
            Note::PercentageCompat => {
                "percentageOfNodesToScore ({profiles}) is applied as upstream's numFeasibleNodesToFind: the search stops after that many feasible nodes, starting where the previous pod's search stopped (deterministic: the simulation starts at node 0 in name order, upstream where its last cycle stopped); it can change a result when a better-scoring node lies beyond the cut"
            }
            Note::PercentageExhaustive => {
                "percentageOfNodesToScore ({profiles}) is not applied in exhaustive mode, which scores every feasible node: pass --mode compat to sample as kube-scheduler does; the sample can change a result when a better-scoring node lies beyond the cut"
            }
            Note::CapacityCopies => {
                "copies are counted as if created now: queued after every pending unit of the same priority, one after another, with their labels and claims as written"
            }
            Note::KueueTopology => {
                "Kueue's topology assignment is not simulated for {workloads}: their pod sets request a topology (Kueue's topology-aware scheduling assigns them to domains before their pods are created); here kube-scheduler places the pods without that assignment"
            }
            Note::KueueFairSharing => {
                "Kueue runs with fair sharing, whose order is not simulated for ClusterQueues {queues}: Kueue orders and preempts their workloads by the cohort's shares, here by priority and creation time"
            }
        }
    }

    /// When a run prints it (docs/fidelity.md says the same).
    pub(crate) fn when(self) -> &'static str {
        match self {
            Note::Ties => "a tie between equally scored nodes or placements decided a placement",
            Note::ImageLocality => {
                "scores chose a placed pod's node among several feasible ones, and nodes list their images"
            }
            Note::ShareIds => "a shared device (allowMultipleAllocations) was allocated",
            Note::PreemptionTiming => "something was preempted",
            Note::GroupPreemption => "a PodGroup or CompositePodGroup preempted",
            Note::PercentageCompat => {
                "a profile sets percentageOfNodesToScore and the mode is compat"
            }
            Note::PercentageExhaustive => {
                "a profile sets percentageOfNodesToScore and the mode is exhaustive"
            }
            Note::CapacityCopies => {
                "capacity counted copies while other units were pending, or copies of pods with claims"
            }
            Note::KueueTopology => {
                "a Kueue Workload whose pod sets request a topology (Kueue TAS) is in the plan"
            }
            Note::KueueFairSharing => {
                "Kueue's configuration enables fair sharing and ClusterQueues in a cohort had workloads to admit"
            }
        }
    }

    /// Where docs/fidelity.md explains it (the docs test checks that the anchor exists).
    #[cfg(test)]
    pub(crate) fn anchor(self) -> String {
        format!("docs/fidelity.md#note-{}", self.id())
    }

    /// This note used by a run, without detail.
    pub(crate) fn used(self) -> NoteUse {
        NoteUse {
            note: self,
            detail: None,
        }
    }
}

/// A note relevant to a run, with what the run fills in (the profiles that set
/// `percentageOfNodesToScore`). Serialized as `{ "id": "ties", "note": "sentence" }`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct NoteUse {
    /// Which note.
    pub note: Note,
    /// What replaces `{profiles}` in its text.
    pub detail: Option<String>,
}

impl NoteUse {
    /// The sentence, detail filled in (a note used without one says "set by a profile").
    pub(crate) fn sentence(&self) -> String {
        let detail = self.detail.as_deref();
        self.note
            .text()
            .replace("{profiles}", detail.unwrap_or("set by a profile"))
            .replace("{workloads}", detail.unwrap_or("some workloads"))
            .replace("{queues}", detail.unwrap_or("in cohorts"))
    }
}

impl Serialize for NoteUse {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("NoteUse", 2)?;
        s.serialize_field("id", self.note.id())?;
        s.serialize_field("note", &self.sentence())?;
        s.end()
    }
}

/// `uses` in catalogue order, each note once (the first use of a note wins; a note that names
/// what it applies to, `kueue-topology`, names every one: the details are joined).
pub(crate) fn once_each(uses: impl IntoIterator<Item = NoteUse>) -> Vec<NoteUse> {
    let mut out: Vec<NoteUse> = Vec::new();
    for u in uses {
        match out.iter_mut().find(|o| o.note == u.note) {
            None => out.push(u),
            Some(o) if u.note == Note::KueueTopology => {
                if let (Some(have), Some(more)) = (&mut o.detail, u.detail)
                    && !have.split(", ").any(|d| d == more)
                {
                    have.push_str(", ");
                    have.push_str(&more);
                }
            }
            Some(_) => {}
        }
    }
    out.sort_by_key(|u| u.note);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fidelity() -> String {
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/fidelity.md"))
            .expect("docs/fidelity.md")
    }

    /// The ids in the first column of the table under "## Notes".
    fn documented_ids() -> Vec<String> {
        let text = fidelity();
        let section = text
            .split("\n## Notes")
            .nth(1)
            .expect("docs/fidelity.md has a `## Notes` section");
        let section = section.split("\n## ").next().unwrap_or(section);
        section
            .lines()
            .filter_map(|l| {
                let cells: Vec<&str> = l.split('|').map(str::trim).collect();
                // `<a id="note-ties"></a>`ties``
                let id = cells.get(1)?.rsplit("</a>").next()?.trim_matches('`');
                (id.starts_with(|c: char| c.is_ascii_lowercase())
                    && id.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
                .then(|| id.to_owned())
            })
            .filter(|id| id != "id")
            .collect()
    }

    #[test]
    fn every_note_is_in_the_docs_list_and_the_list_has_no_other() {
        let ids: Vec<String> = Note::ALL.iter().map(|n| n.id().to_owned()).collect();
        assert_eq!(documented_ids(), ids, "docs/fidelity.md `## Notes` table");
        let text = fidelity();
        for n in Note::ALL {
            let anchor = n.anchor();
            let name = anchor.split('#').nth(1).expect("anchor");
            assert!(
                text.contains(&format!("<a id=\"{name}\"></a>")),
                "docs/fidelity.md lacks the anchor `{name}` of note `{}`",
                n.id()
            );
            assert!(
                text.contains(n.when()),
                "docs/fidelity.md does not say when `{}` is printed: `{}`",
                n.id(),
                n.when()
            );
        }
    }

    #[test]
    fn ids_are_unique_and_notes_speak_about_the_answer_not_about_how_wasctl_was_written() {
        let mut ids: Vec<&str> = Note::ALL.iter().map(|n| n.id()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), Note::ALL.len());
        for n in Note::ALL {
            let t = n.text().to_ascii_lowercase();
            for phrase in [
                "could not read",
                "whose code",
                "source code",
                "not modelled yet",
            ] {
                assert!(!t.contains(phrase), "`{}` says `{phrase}`", n.id());
            }
        }
        assert!(SIMULATION.iter().all(|n| Note::ALL.contains(n)));
    }

    #[test]
    fn uses_are_kept_once_each_in_catalogue_order_with_their_detail() {
        let uses = once_each([
            Note::PreemptionTiming.used(),
            Note::Ties.used(),
            Note::PreemptionTiming.used(),
            NoteUse {
                note: Note::PercentageCompat,
                detail: Some("default-scheduler 50%".to_owned()),
            },
        ]);
        let ids: Vec<&str> = uses.iter().map(|u| u.note.id()).collect();
        assert_eq!(ids, ["ties", "preemption-timing", "percentage-compat"]);
        assert!(uses[2].sentence().starts_with(
            "percentageOfNodesToScore (default-scheduler 50%) is applied as upstream's"
        ));
        let json = serde_json::to_value(&uses[0]).expect("serializes");
        assert_eq!(json["id"], "ties");
        assert_eq!(json["note"], Note::Ties.text());
    }
}
