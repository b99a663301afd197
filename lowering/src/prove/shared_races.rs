//! The race obligation in shared memory: by barrier epoch.
//!
//! The CTA barriers every thread passes ([`crate::checked::Node::CtaBarrier`])
//! cut the kernel into *epochs*; accesses of one epoch are not ordered
//! between threads. An `if` whose branches end in different epochs, and a
//! runtime loop whose body holds a barrier, merge the epochs its paths can
//! join in (the end of one iteration runs before the next iteration's first
//! barrier together with the iteration's start): [`Epochs`].
//!
//! **Input**: every shared access with the epoch it runs in
//! ([`SharedAccess`], recorded by the race walk in `races`), the names of
//! the buffers. **Output**: within each epoch, a buffer some thread writes
//! is touched by every thread only in its own part, with the separation
//! rule of global tensors over the thread digits of one CTA (TK0406); a
//! buffer only atomics touch there needs none, except between atomics of
//! different sizes (TK0408). A race between statements gets a help that
//! puts a barrier between them; one store whose threads meet each other
//! gets the separating index instead (no barrier can order it).

use std::collections::BTreeSet;
use std::rc::Rc;

use crate::diag::{Code, Diagnostic, SpanId};
use crate::layout::{Layout, NO_TENSOR_AXIS};
use crate::memory::MemorySpace;
use crate::sym::Poly;

use super::races::{self, Digit, LazyParts, LazySeparations, Separation, Threads};

/// One access to a shared buffer, for the per-epoch race analysis.
#[derive(Debug, Clone)]
pub(crate) struct SharedAccess<'t> {
    pub buffer: usize,
    pub span: SpanId,
    pub store: bool,
    pub atomic: Option<races::Atomic>,
    /// The epoch (before merging) the access runs in.
    pub epoch: usize,
    /// See `AccessRecord::separations`.
    pub separations: Rc<LazySeparations<'t>>,
    /// See `AccessRecord::footprints`.
    pub footprints: Vec<Option<(Poly, i128)>>,
    /// See `AccessRecord::data_index`.
    pub data_index: Option<String>,
}

impl<'t> SharedAccess<'t> {
    /// The access as the race rule reads it.
    fn parts(&self) -> LazyParts<'_, 't> {
        LazyParts {
            separations: &self.separations,
        }
    }
}

/// Epochs and their merges (a union-find over epoch labels).
#[derive(Debug, Default)]
pub(crate) struct Epochs {
    /// The epoch the current statement runs in.
    pub current: usize,
    parent: Vec<usize>,
}

impl Epochs {
    fn find(&mut self, epoch: usize) -> usize {
        while self.parent.len() <= epoch {
            self.parent.push(self.parent.len());
        }
        let mut e = epoch;
        while self.parent[e] != e {
            self.parent[e] = self.parent[self.parent[e]];
            e = self.parent[e];
        }
        e
    }

    /// A barrier: later statements run in a fresh epoch.
    pub fn barrier(&mut self) {
        let next = self.parent.len().max(self.current + 1);
        self.find(next);
        self.current = next;
    }

    /// `a` and `b` are one epoch from now on.
    pub fn merge(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.parent[b] = a;
        }
    }
}

/// Which threads reach a shared buffer, and which barriers end its epochs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Domain {
    /// The threads of one CTA (its own copy); every CTA barrier ends an
    /// epoch.
    Cta,
    /// The threads of the whole cluster: a buffer some access reaches in
    /// another CTA (`.in_cta`). Its accesses are placed at their target
    /// CTA's rank ([`cluster_view`]), and only the cluster barrier's wait
    /// ends an epoch (a CTA barrier orders no other CTA's accesses).
    Cluster,
}

impl Domain {
    /// The barrier that orders the domain's threads, for messages.
    fn barrier(self) -> &'static str {
        match self {
            Domain::Cta => "CTA barrier",
            Domain::Cluster => "cluster barrier",
        }
    }
}

/// Where a cluster buffer's bytes lie for the race rule: each CTA's copy
/// `CTA_WINDOW` bytes after the previous rank's (more than a CTA's shared
/// memory), so the accesses of different CTAs' copies are disjoint.
const CTA_WINDOW: i128 = 1 << 20;

/// `view` of the copy of its buffer that CTA `rank` of the cluster holds:
/// a leading buffer axis indexed by the rank, and the byte offset moved by
/// the rank's window.
pub(crate) fn cluster_view(view: &Layout, rank: &Poly) -> Layout {
    let mut placed = view.clone();
    placed.offset = placed.offset.add(&rank.scale(CTA_WINDOW));
    let region = &mut placed.region;
    region.starts.insert(0, rank.clone());
    region.counts.insert(0, Poly::constant(1));
    region.steps.insert(0, 1);
    if let Some(axes) = &mut region.axes {
        for axis in axes.iter_mut().filter(|a| **a != NO_TENSOR_AXIS) {
            *axis += 1;
        }
    }
    placed
}

/// Within each epoch, a written shared buffer is accessed per thread.
/// `names[b]` is buffer `b`'s name.
pub(crate) fn prove(
    threads: &Threads<'_>,
    accesses: &[SharedAccess<'_>],
    epochs: &mut Epochs,
    names: &[String],
    domain: Domain,
) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    // The digits two threads that reach the buffer can differ in.
    let mut live = threads.live_digits(MemorySpace::Shared);
    if domain == Domain::Cluster {
        live.extend(threads.cluster_cta_digits());
    }
    if live.is_empty() {
        return diags;
    }
    let mut groups: Vec<((usize, usize), Vec<&SharedAccess<'_>>)> = Vec::new();
    for access in accesses {
        let key = (access.buffer, epochs.find(access.epoch));
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, list)) => list.push(access),
            None => groups.push((key, vec![access])),
        }
    }
    let mut reported = BTreeSet::new();
    for ((buffer, _), records) in groups {
        if !records.iter().any(|r| r.store) || reported.contains(&buffer) {
            continue;
        }
        let name = &names[buffer];
        // Only atomics (of one CTA, whatever their scope): held to the
        // rules of atomicity.
        if records.iter().all(|r| r.atomic.is_some()) {
            let separations: Vec<Vec<Vec<Separation>>> =
                records.iter().map(|r| r.separations.all(threads)).collect();
            let atomics: Vec<races::RaceAccess> = records
                .iter()
                .zip(&separations)
                .filter_map(|(r, separations)| {
                    Some(races::RaceAccess {
                        span: r.span,
                        atomic: r.atomic?,
                        separations,
                        pinned: r.separations.pinned(threads),
                        footprints: &r.footprints,
                    })
                })
                .collect();
            // Across CTAs, a `.cta` atomic is indivisible only against
            // its own CTA's atomics.
            let across_ctas = domain == Domain::Cluster;
            let found = threads.atomic_races(name, "shared buffer ", &atomics, &live, across_ctas);
            if !found.is_empty() {
                reported.insert(buffer);
            }
            diags.extend(found);
            continue;
        }
        let all: Vec<_> = records.iter().map(|r| r.parts()).collect();
        let missing = threads.unseparated_lazily(&all, &live);
        if missing.is_empty() {
            continue;
        }
        reported.insert(buffer);
        // A store that meets other threads' accesses of its own
        // instruction: no barrier can come between them.
        let alone = |r: &SharedAccess<'_>| threads.unseparated_by(&[r.parts()], &live);
        let self_racing = records
            .iter()
            .copied()
            .find(|r| r.store && !alone(r).is_empty());
        // The first access that meets an earlier store of other threads is
        // the one to look at (a read of another thread's element), else the
        // first store.
        let meets = |s: &SharedAccess<'_>, r: &SharedAccess<'_>| {
            !threads
                .unseparated_by(&[s.parts(), r.parts()], &live)
                .is_empty()
        };
        let culprit = self_racing
            .or_else(|| {
                records.iter().enumerate().find_map(|(i, r)| {
                    records[..i]
                        .iter()
                        .any(|s| s.store && meets(s, r))
                        .then_some(*r)
                })
            })
            .or_else(|| records.iter().copied().find(|r| r.store))
            .unwrap_or(records[0]);
        let missing = match self_racing {
            Some(r) => alone(r),
            None => missing,
        };
        let digit_names: Vec<String> = missing.iter().copied().map(races::digit_name).collect();
        let diag = Diagnostic::new(
            Code::SHARED_RACE,
            culprit.span,
            format!(
                "this access to shared buffer `{name}` may race: threads that differ only in {} can reach the same element of `{name}` with no {} in between, and one of them writes it",
                digit_names.join(" and "),
                domain.barrier()
            ),
        )
        .with_note("accesses between two barriers are unordered between threads: each thread must stay inside its own part of a buffer that some thread writes there");
        let diag = if let Some(value) = &culprit.data_index {
            races::data_index_race(diag, value, MemorySpace::Shared)
        } else if self_racing.is_some() {
            // One instruction of several threads: a barrier cannot come
            // between its accesses.
            diag.with_note("a barrier orders one statement's accesses against another's, but here the threads of this one statement meet each other")
                .with_help(separating_help(name, &missing))
        } else if domain == Domain::Cluster {
            diag.with_note(format!("other CTAs of the cluster reach `{name}` (`.in_cta`): only a cluster barrier orders their accesses"))
                .with_help("put a cluster barrier (`barrier.cluster.arrive` then `barrier.cluster.wait`, `scope = \"cluster\"`) between the writes and the other threads' accesses")
        } else {
            diag.with_help("put `apply(ptx[\"bar.sync\"], 0, scope = \"cta\");` between the writes and the reads of other threads' elements")
        };
        diags.push(diag);
    }
    diags
}

/// How to keep the threads `missing` names apart in shared buffer `name`,
/// for a help line.
fn separating_help(name: &str, missing: &[Digit]) -> String {
    let ranks: Vec<String> = missing
        .iter()
        .filter_map(|d| match d {
            Digit::Thread(a) => Some(format!("`thread_id({a})`")),
            _ => None,
        })
        .collect();
    let pins: Vec<String> = missing
        .iter()
        .filter_map(|d| match d {
            Digit::Thread(a) => Some(format!("thread_id({a}) == 0")),
            _ => None,
        })
        .collect();
    if ranks.is_empty() {
        return format!("give each thread its own elements of `{name}`, indexed by its rank");
    }
    format!(
        "give each thread its own elements of `{name}`, indexed by {}, or let one thread write them (`pred = {}`)",
        ranks.join(" and "),
        pins.join(" && ")
    )
}
