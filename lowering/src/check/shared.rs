//! Shared memory and CTA barriers (SPEC §7, `docs/scopes.md`).
//!
//! - `alloc_shared::<T>([..])` declares one buffer per CTA: with constant
//!   extents a static buffer (at most [`crate::memory::MAX_STATIC_SHARED_BYTES`] of them in all),
//!   or, at most once per kernel, with extents that name a size symbol
//!   (TK0613 otherwise), the dynamic buffer the launcher sizes (TK0614 for a
//!   second one). Its views are memory operands of the `.shared` forms
//!   (`ld.shared`, `st.shared`, `atom.shared`, ..), with bounds proven or
//!   guarded against the (symbolic) extents and alignment proven as for
//!   global tensors (buffers are 16-byte aligned).
//! - A CTA barrier (`bar.sync 0`, `barrier.sync 0`, `bar.red`) is an
//!   `apply` with `scope = "cta"`; it must be reached by every thread of the
//!   CTA together (the convergence rule of `scopes`).
//! - **Races.** The barriers cut the kernel into *epochs*; accesses of
//!   one epoch are not ordered between threads. Within an epoch, a shared
//!   buffer that some thread writes must be touched by every thread only
//!   in its own part, with the separation rule of global tensors
//!   (`safety`), over the thread digits of one CTA; a buffer only
//!   atomics touch there needs none, except between atomics of different
//!   sizes (TK0408). A race between statements gets a help that puts a
//!   barrier between them; one store whose threads meet each other gets
//!   the separating index instead (no barrier can order it). An `if` whose branches
//!   end in different epochs, and a loop whose body holds a barrier, merge
//!   the epochs its paths can join in (the end of one iteration runs
//!   before the next iteration's first barrier together with the
//!   iteration's start).
//!
//! Guarantee: a shared access in the program is in its buffer (proven or
//! guarded) and aligned; two accesses of different threads to the same
//! bytes of a shared buffer, one of them a write, are separated by a
//! barrier every thread of the CTA executes.

use std::collections::BTreeSet;

use crate::ast;
use crate::diag::{Code, Diagnostic, SpanId};
use crate::memory::MemorySpace;
use crate::program::{SharedBuffer, static_shared_bytes};
use crate::sym::Fact;

use super::{Binding, Checker, Digit, races};

/// A shared buffer while checking.
pub(super) struct SharedState {
    pub buffer: SharedBuffer,
}

/// One access to a shared buffer, for the per-epoch race analysis.
#[derive(Debug, Clone)]
pub(super) struct SharedAccess {
    pub buffer: usize,
    pub span: SpanId,
    pub store: bool,
    pub atomic: Option<races::Atomic>,
    /// The epoch (before merging) the access runs in.
    pub epoch: usize,
    pub separations: Vec<Vec<races::Separation>>,
    pub pinned: Vec<(Digit, i128)>,
    /// See `AccessRecord::footprints`.
    pub footprints: Vec<Option<(crate::sym::Poly, i128)>>,
}

/// Epochs and their merges (a union-find over epoch labels).
#[derive(Debug, Default)]
pub(super) struct Epochs {
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

impl Checker<'_> {
    /// `let s = alloc_shared::<T>([..]);`: a static buffer (constant
    /// extents), or the kernel's one dynamic buffer (an extent names a size
    /// symbol; the launcher provides its bytes).
    pub(super) fn alloc_shared(&mut self, alloc: &ast::AllocLocal) {
        let Some(shape) = self.shared_dims(&alloc.shape) else {
            return;
        };
        let buffer = SharedBuffer {
            name: alloc.name.clone(),
            dtype: alloc.dtype,
            shape,
        };
        if buffer.is_dynamic() {
            if let Some(first) = self.shared.iter().find(|s| s.buffer.is_dynamic()) {
                let first = first.buffer.name.clone();
                self.diags.push(
                    Diagnostic::new(
                        Code::SECOND_DYNAMIC_SHARED,
                        alloc.span,
                        format!(
                            "shared buffer `{}` is sized at launch, and so is `{first}`: a kernel has one dynamic shared buffer",
                            alloc.name
                        ),
                    )
                    .with_help(format!("give one of `{first}` and `{}` constant extents, or keep both in one buffer sized at launch (`alloc_shared::<f32>([2, N])` holds two rows of N)", alloc.name)),
                );
                return;
            }
        } else {
            let total = static_shared_bytes(self.shared.iter().map(|s| &s.buffer).chain([&buffer]));
            let budget = MemorySpace::Shared.static_budget().unwrap_or(usize::MAX);
            if total > budget {
                self.diags.push(
                    Diagnostic::new(
                        Code::SHARED_TOO_LARGE,
                        alloc.span,
                        format!(
                            "shared buffer `{}` {} brings the CTA's static shared memory to {total} bytes, more than the {budget} a kernel may declare",
                            alloc.name,
                            self.shared_shape_text(&buffer)
                        ),
                    )
                    .with_help("use smaller buffers, reuse one buffer across phases of the kernel, or size one buffer at launch with a size symbol (`alloc_shared::<f32>([N])`: dynamic shared memory, up to the device's limit)"),
                );
                return;
            }
        }
        self.bind(&alloc.name, Binding::Shared(self.shared.len()));
        self.shared.push(SharedState { buffer });
    }

    /// `[256, N]`: a buffer's shape as the kernel spells it.
    pub(super) fn shared_shape_text(&self, buffer: &SharedBuffer) -> String {
        buffer.shape_text(|s| {
            self.symbols
                .get(usize::from(s))
                .map_or_else(|| "?".into(), |st| st.symbol.name.clone())
        })
    }

    /// Records a barrier: accesses after it run in a new epoch.
    pub(super) fn barrier(&mut self) {
        self.epochs.barrier();
    }

    /// One shared access for the race analysis.
    pub(super) fn record_shared(
        &mut self,
        buffer: usize,
        span: SpanId,
        store: bool,
        atomic: Option<races::Atomic>,
        view: &crate::layout::Layout,
        facts: &[Fact],
    ) {
        let threads = self.threads();
        let separations = threads.separations(view, facts);
        let pinned = threads.pinned_digits(facts);
        let footprints = threads.uniform_footprints(view);
        self.shared_accesses.push(SharedAccess {
            buffer,
            span,
            store,
            atomic,
            epoch: self.epochs.current,
            separations,
            pinned,
            footprints,
        });
    }

    /// Within each epoch, a written shared buffer is accessed per thread.
    pub(super) fn check_shared_races(&mut self) {
        // The digits two threads of one CTA can differ in.
        let live = self.threads().live_digits(MemorySpace::Shared);
        if live.is_empty() {
            return;
        }
        let mut groups: Vec<((usize, usize), Vec<SharedAccess>)> = Vec::new();
        let accesses = std::mem::take(&mut self.shared_accesses);
        for access in &accesses {
            let key = (access.buffer, self.epochs.find(access.epoch));
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, list)) => list.push(access.clone()),
                None => groups.push((key, vec![access.clone()])),
            }
        }
        let mut reported = BTreeSet::new();
        for ((buffer, _), records) in groups {
            if !records.iter().any(|r| r.store) || reported.contains(&buffer) {
                continue;
            }
            let name = self.shared[buffer].buffer.name.clone();
            // Only atomics (of one CTA, whatever their scope): held to the
            // rules of atomicity.
            let atomics: Option<Vec<races::RaceAccess>> = records
                .iter()
                .map(|r| {
                    Some(races::RaceAccess {
                        span: r.span,
                        atomic: r.atomic?,
                        separations: &r.separations,
                        pinned: &r.pinned,
                        footprints: &r.footprints,
                    })
                })
                .collect();
            if let Some(atomics) = atomics {
                let diags =
                    self.threads()
                        .atomic_races(&name, "shared buffer ", &atomics, &live, false);
                if !diags.is_empty() {
                    reported.insert(buffer);
                }
                for diag in diags {
                    self.diags.push(diag);
                }
                continue;
            }
            let parts: Vec<_> = records
                .iter()
                .map(|r| (r.separations.as_slice(), r.pinned.as_slice()))
                .collect();
            let missing = self.threads().unseparated(&parts, &live);
            if missing.is_empty() {
                continue;
            }
            reported.insert(buffer);
            // A store that meets other threads' accesses of its own
            // instruction: no barrier can come between them.
            let alone = |r: &SharedAccess| {
                self.threads()
                    .unseparated(&[(r.separations.as_slice(), r.pinned.as_slice())], &live)
            };
            let self_racing = records.iter().find(|r| r.store && !alone(r).is_empty());
            // The first access that meets an earlier store of other
            // threads is the one to look at (a read of another thread's
            // element), else the first store.
            let meets = |s: &SharedAccess, r: &SharedAccess| {
                !self
                    .threads()
                    .unseparated(
                        &[
                            (s.separations.as_slice(), s.pinned.as_slice()),
                            (r.separations.as_slice(), r.pinned.as_slice()),
                        ],
                        &live,
                    )
                    .is_empty()
            };
            let culprit = self_racing
                .or_else(|| {
                    records.iter().enumerate().find_map(|(i, r)| {
                        records[..i]
                            .iter()
                            .any(|s| s.store && meets(s, r))
                            .then_some(r)
                    })
                })
                .or_else(|| records.iter().find(|r| r.store))
                .unwrap_or(&records[0]);
            let missing = match self_racing {
                Some(r) => alone(r),
                None => missing,
            };
            let names: Vec<String> = missing.iter().copied().map(races::digit_name).collect();
            let diag = Diagnostic::new(
                Code::SHARED_RACE,
                culprit.span,
                format!(
                    "this access to shared buffer `{name}` may race: threads that differ only in {} can reach the same element of `{name}` with no CTA barrier in between, and one of them writes it",
                    names.join(" and ")
                ),
            )
            .with_note("accesses between two barriers are unordered between threads: each thread must stay inside its own part of a buffer that some thread writes there");
            let diag = if self_racing.is_some() {
                // One instruction of several threads: a barrier cannot come
                // between its accesses.
                diag.with_note("a barrier orders one statement's accesses against another's, but here the threads of this one statement meet each other")
                    .with_help(self.shared_separating_help(&name, &missing))
            } else {
                diag.with_help("put `apply(ptx[\"bar.sync\"], 0, scope = \"cta\");` between the writes and the reads of other threads' elements")
            };
            self.diags.push(diag);
        }
        self.shared_accesses = accesses;
    }

    /// How to keep the threads `missing` names apart in shared buffer
    /// `name`, for a help line.
    fn shared_separating_help(&self, name: &str, missing: &[Digit]) -> String {
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

    /// `if` bookkeeping: the epoch the branch starts in.
    pub(super) fn epoch_at(&self) -> usize {
        self.epochs.current
    }

    /// After an `if` whose `then` ended in epoch `then_end` and whose
    /// `else` ended in the current one: one epoch from here on.
    pub(super) fn join_epochs(&mut self, then_end: usize) {
        let current = self.epochs.current;
        self.epochs.merge(then_end, current);
    }

    /// After a runtime loop that started in epoch `start`: the last
    /// segment of an iteration runs before the next one's first barrier,
    /// and the code after the loop follows the last iteration.
    pub(super) fn close_loop_epochs(&mut self, start: usize) {
        let current = self.epochs.current;
        self.epochs.merge(start, current);
    }
}
