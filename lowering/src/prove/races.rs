//! The race obligation: no two threads touch the same bytes of a buffer
//! the kernel writes unless the memory model makes their accesses
//! indivisible (atomics), and `.nc` loads read only tensors the kernel never
//! writes.
//!
//! **Input**: the checked body ([`prove`] walks it): per memory access of an
//! apply whose own obligations hold ([`AccessRecord`] for global tensors;
//! shared accesses by barrier epoch in `shared_races`): its candidate separations per axis
//! ([`Threads::separations`]), the digits it pins to one value, its uniform
//! footprints. Which digits two threads sharing the bytes may differ in is
//! the memory space's rule ([`crate::memory::MemorySpace::shared_by`]:
//! [`Threads::live_digits`]). **Output**: diagnostics (TK0404 races,
//! TK0405 `.nc` of a written tensor, TK0408 atomics of different sizes,
//! TK0409 atomics of a scope narrower than their threads).
//!
//! **Races.** A thread is identified by its *digits*: `thread_id(a)` for each
//! block axis of extent > 1 and `cta_id(a)` for each grid axis that may
//! exceed 1 (and `lane_id()`, `warp_id()`, which name a thread of the block
//! too). Along a grid axis a declared cluster spans, `cta_id(a)` is
//! `cluster_dim(a) * cluster_id(a) + cluster_ctaid(a)` (sema builds it so),
//! and its digits are `cluster_id(a)` and `cluster_ctaid(a)`: a
//! mixed-radix rank over them is one over `cta_id(a)`. Along one *axis* of the accessed memory (each axis of the tensor,
//! and the flat byte offset), an access *separates* the threads that differ
//! in a set of digits when the indices one thread reaches there are
//! `sign * c * v + offset + r` with `0 <= r` and `r + span <= c`, where
//! `offset` is the same for every thread (a constant or a value of symbols
//! and parameters: `N - 1 - i`), `sign` is 1 or -1 and `v` is
//! - an injective *rank* of those digits (`cta_id(0) * 256 + thread_id(0)`:
//!   the digits weighted as a mixed-radix number, each weight above the
//!   largest value of all smaller ones, proven from the launch shape), or
//! - congruent to the rank modulo a *period* `q >= ` the rank's range (then
//!   `offset` is 0): a grid-stride loop variable `for i in
//!   (rank..n).step_by(p)` (`i = rank + p * m`, cuda-oxide's congruence
//!   argument), a cyclic index `j * 256 + thread_id(0)`, or unrolled
//!   offsets `j + 256 * k` of such a loop variable with `p = 1024` (`q =
//!   256` divides both `p` and `256 * k`). Other digits may sit in the
//!   multiple of `c * q` (`32 * cta_id(1) + thread_id(1) + 8 * k` is
//!   `thread_id(1)` modulo 8) or in `r` (the same index is `cta_id(1)` with
//!   `c = 32`, `r = thread_id(1) + 8 * k <= 31`).
//!
//! One access may separate on several axes and by several sets of digits;
//! each way is a candidate. Two threads with different ranks then reach
//! disjoint intervals `[sign * c * v + offset, .. + c)`, also through two
//! accesses whose candidates have the same rank, `c` and `sign` and
//! *compatible* `v`: equal offsets; an exact rank with offset 0 and any
//! period; or two periods whose common divisor is at least the rank's range
//! (`v1 = v2` then forces `rank1 = rank2`). A written tensor is race-free
//! when the digits of the candidates all its accesses (loads and stores)
//! share tell apart any two threads of the launch that access it: every
//! grid digit is separated (or fixed to one value by every access, `pred =
//! cta_id(0) == 0`), and the separated thread digits determine the thread
//! within its block (checked over the block's threads: `lane_id()` names
//! `thread_id(0)` in a `[32, 2]` block).
//!
//! A candidate proven under some facts holds under more, so the rule first
//! reads each access's candidates found under the launch's facts only,
//! which the accesses of an unrolled loop share (each has its own guard,
//! `pred = row < M` with `row` one more per iteration); where those leave
//! threads unseparated, it reads those found under the facts every access
//! of the tensor holds (the conditions around an epilogue's guarded
//! stores, `if warp_id() / 4 < 2`), which they share too; and it searches
//! under each access's own facts only where those leave threads
//! unseparated as well ([`Threads::unseparated_lazily`]). Pinned digits,
//! too, are derived only where the separated digits alone leave threads
//! unseparated.
//!
//! **Atomics.** A tensor only atomic read-modify-writes (`atom`, `red`)
//! touch needs no separation between atomics that the PTX memory model
//! makes indivisible against each other: the same size at the same address
//! (alignment makes equal-size accesses either equal or disjoint) and a
//! scope that contains both threads. So atomics of different sizes must
//! still be separated from each other (TK0408), and a `.cta` atomic must be
//! separated across CTAs from every atomic of the tensor (TK0409); a
//! `.cluster` one across clusters: by every grid digit but the
//! `cluster_ctaid`s (in a kernel without a declared cluster, every grid
//! digit: each cluster is one CTA).
//!
//! **Async stores.** A tensor a bulk or tensor store writes (through the
//! async proxy, unordered with the generic proxy's accesses) is accessed
//! by such stores only (TK0425); they are then held to the race rule like
//! stores, a tensor store's box as the slice it is (its bytes outside the
//! tensor are never written, so the slice over-approximates them).

use std::cell::{OnceCell, RefCell};
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

use crate::checked::{Apply, Node, Value};
use crate::ptx::Slot;
use crate::ptx::form::{Access, Effect, OperandKind};

use crate::diag::{Code, Diagnostic, SpanId};
use crate::layout::Layout;
use crate::memory::{MemorySpace, Sharers};
use crate::program::{Borrow, CmpOp, Cond, Launch, LaunchOp, ParamKind, ProgramParam};
use crate::ptx::Modifiers;
use crate::sym::{
    AtomId, AtomKind, Atoms, CachedProver, ComputedOp, Fact, Poly, Prover, WordMap, gcd,
};

use super::shared_races::{self, Domain, Epochs, SharedAccess};

/// What a thread's identity is made of: the axes along which two threads of
/// one launch can differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Digit {
    Thread(u8),
    Cta(u8),
    /// `cluster_id(a)`: along a grid axis a declared cluster spans, which
    /// cluster the CTA is in (with `ClusterCta(a)`, another name for
    /// `cta_id(a)`).
    Cluster(u8),
    /// `cluster_ctaid(a)`: where in its cluster the CTA is.
    ClusterCta(u8),
    /// `lane_id()`: with `Warp`, another name for the thread in its block.
    Lane,
    /// `warp_id()`.
    Warp,
    /// `warp_id() % 4` (blocks of several warpgroups): with `Warpgroup`,
    /// another name for the warp.
    WarpInGroup,
    /// `warp_id() / 4` (blocks of several warpgroups).
    Warpgroup,
    /// `lane_id() / 2^shift` or `lane_id() % 2^bits` (see
    /// [`AtomKind::LaneField`]): with the other field, another name for
    /// the lane.
    LaneField {
        shift: u8,
        bits: u8,
    },
}

impl Digit {
    /// Whether the digit names the CTA in the grid (one value for every
    /// thread of a CTA), rather than the thread in its CTA.
    pub(crate) fn in_grid(self) -> bool {
        matches!(
            self,
            Digit::Cta(_) | Digit::Cluster(_) | Digit::ClusterCta(_)
        )
    }
}

/// Which threads a runtime loop variable belongs to: it is congruent to an
/// injective thread rank `rank` modulo `period` (see the module doc).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LoopClass {
    pub digits: Vec<Digit>,
    pub rank: Poly,
    pub period: Poly,
}

/// One global memory access, for the whole-kernel race analysis.
#[derive(Debug, Clone)]
pub(crate) struct AccessRecord<'t> {
    pub param: usize,
    pub span: SpanId,
    pub store: bool,
    /// Through a path that needs data read-only for the whole kernel:
    /// `.nc`/`ldu` loads, and tensor copies (`tensor_map`), whose box
    /// the race rule does not follow element by element.
    pub non_coherent: bool,
    pub tensor_map: bool,
    /// A bulk or tensor store (`cp.async.bulk(.tensor)` to global memory):
    /// written through the async proxy.
    pub async_store: bool,
    /// An atomic read-modify-write (`atom`, `red`), with its size and
    /// scope: atomics of one size and scope may meet (the module doc).
    pub atomic: Option<Atomic>,
    /// Per tensor axis, then the flat byte offset: the ways this access
    /// separates threads (computed when the race rule reads them).
    pub separations: Rc<LazySeparations<'t>>,
    /// Per tensor axis, then the flat byte offset: the interval `[start,
    /// start + len)` the access stays in, where `start` is the same for
    /// every thread (`uniform_footprints`).
    pub footprints: Vec<Option<(Poly, i128)>>,
    /// The name of a value read from a register in its index (`id`), if
    /// any: a data-dependent address, which separates no threads.
    pub data_index: Option<String>,
}

/// What the race proofs read about a launch: its atoms, its shape, and
/// which threads each runtime loop variable belongs to.
pub(crate) struct Threads<'a> {
    pub atoms: &'a Atoms,
    pub launch: &'a Launch,
    pub loop_classes: &'a HashMap<AtomId, LoopClass>,
    /// The fact sets the race and async-ownership walks proved under so
    /// far ([`Threads::under`]).
    pub fact_sets: RefCell<WordMap<Vec<Fact>, Rc<FactSet<'a>>>>,
}

impl<'a> Threads<'a> {
    /// The launch view with no fact set proven under yet.
    pub(crate) fn new(
        atoms: &'a Atoms,
        launch: &'a Launch,
        loop_classes: &'a HashMap<AtomId, LoopClass>,
    ) -> Threads<'a> {
        Threads {
            atoms,
            launch,
            loop_classes,
            fact_sets: RefCell::default(),
        }
    }
}

/// One fact set as the proofs about threads read it: its prover and what
/// was derived under it, kept for every access under the same facts (the
/// walks ask per access, mostly under a few fact sets; an unrolled loop
/// repeats its body's questions).
pub(crate) struct FactSet<'a> {
    pub prover: CachedProver<'a>,
    /// [`Threads::pinned_digits`].
    pinned: OnceCell<Vec<(Digit, i128)>>,
    /// [`Threads::separation_candidates`] per index and span.
    candidates: RefCell<WordMap<(Poly, i128), Vec<Separation>>>,
    /// [`Threads::uniform_radix`] per subset of an index's digits (each
    /// with its coefficient): the indices of an unrolled loop, a constant
    /// apart, rank the same subsets.
    radices: RefCell<WordMap<DigitSubset, Option<Rc<Radix>>>>,
    /// [`Threads::members`] of these facts: the enumeration of the block
    /// depends on nothing else (the atoms and the launch are the
    /// `Threads`'), and the walks and the role split ask it again for
    /// each access and `if` under the same conditions.
    members: OnceCell<Option<Vec<usize>>>,
}

/// Some digits of an index, each with its coefficient there.
type DigitSubset = Vec<(AtomId, Poly)>;

/// Candidates per axis, each axis computed when first read.
type LazyAxes = Vec<OnceCell<Vec<Separation>>>;

/// One access as the race rule reads it: its candidate separations per axis
/// and the digits it pins to one value.
pub(crate) type AccessParts<'a> = (&'a [Vec<Separation>], &'a [(Digit, i128)]);

/// One access's candidate separations per axis, as
/// [`Threads::separations`] lists them, each axis computed when the race
/// rule first reads it ([`Threads::unseparated_by`]). The rule reads only
/// the accesses of written tensors and buffers, and stops reading axes
/// once the covered digits tell every two threads apart; the separation
/// search (every subset of an index's digits ranked, offset and period
/// proven) is most of a large kernel's expansion time, and a GEMM's loads
/// of read-only operands and its byte offsets need none of it.
pub(crate) struct LazySeparations<'t> {
    facts: Rc<FactSet<'t>>,
    /// Per axis: the start and span whose candidates it holds (`None`:
    /// none, [`Threads::separation_inputs`]).
    inputs: Vec<Option<(Poly, i128)>>,
    axes: LazyAxes,
    /// The candidates found under the facts of the whole launch, per
    /// axis, for an access under more ([`LazySeparations::axis_everywhere`]);
    /// `None` for one under those only (its own candidates are those).
    everywhere: Option<(Rc<FactSet<'t>>, LazyAxes)>,
}

impl std::fmt::Debug for LazySeparations<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazySeparations")
            .field("inputs", &self.inputs)
            .field("axes", &self.axes)
            .finish()
    }
}

impl LazySeparations<'_> {
    /// The candidates on `axis`, computed now if they were not.
    fn axis(&self, threads: &Threads<'_>, axis: usize) -> &[Separation] {
        self.axes[axis].get_or_init(|| self.candidates_under(threads, axis, &self.facts))
    }

    /// The candidates on `axis` under `facts` (the access's own, the
    /// launch's, or those of every access of its tensor), computed now.
    fn candidates_under(
        &self,
        threads: &Threads<'_>,
        axis: usize,
        facts: &FactSet<'_>,
    ) -> Vec<Separation> {
        match &self.inputs[axis] {
            Some((start, span)) => threads.separation_candidates(start, *span, facts),
            None => Vec::new(),
        }
    }

    /// Every axis's candidates ([`Threads::separations`]).
    pub(crate) fn all(&self, threads: &Threads<'_>) -> Vec<Vec<Separation>> {
        (0..self.axes.len())
            .map(|axis| self.axis(threads, axis).to_vec())
            .collect()
    }

    /// The candidates on `axis` found under the facts every thread of the
    /// launch holds (its shape's), computed now if they were not: each
    /// holds for the threads that run the access (a proof under fewer
    /// facts holds under more), though the access's own facts may give
    /// more or better ones (`if lane_id() < 16`: a rank of the lane below
    /// 16). The accesses of an unrolled loop, each under its own guard
    /// (`pred = row < M` with `row` one more at each iteration), all
    /// search under this one fact set and share its prover's answers.
    fn axis_everywhere(&self, threads: &Threads<'_>, axis: usize) -> &[Separation] {
        match &self.everywhere {
            Some((facts, axes)) => {
                axes[axis].get_or_init(|| self.candidates_under(threads, axis, facts))
            }
            None => self.axis(threads, axis),
        }
    }

    /// The digits the access's facts pin to one value
    /// ([`Threads::pinned_digits`]), found when first asked: the race
    /// rule needs them only where the separated digits alone do not tell
    /// the threads apart (`pred = lane_id() == 0` on a store indexed by
    /// warp).
    pub(crate) fn pinned(&self, threads: &Threads<'_>) -> &[(Digit, i128)] {
        threads.pinned_in(&self.facts)
    }

    /// Whether [`Self::axis_everywhere`] of `axis` is computed already.
    fn ready_everywhere(&self, axis: usize) -> bool {
        match &self.everywhere {
            Some((_, axes)) => axes[axis].get().is_some(),
            None => self.axes[axis].get().is_some(),
        }
    }
}

/// One access's candidate separations per axis and pinned digits, as
/// [`Threads::unseparated_by`] reads them: computed ([`AccessParts`]) or
/// computed on demand ([`LazyParts`]).
pub(crate) trait Candidates {
    /// How many axes (each tensor axis, then the flat byte offset).
    fn axis_count(&self) -> usize;
    /// Whether `axis` is computed already.
    fn ready(&self, axis: usize) -> bool;
    /// The candidates on `axis`.
    fn axis(&self, threads: &Threads<'_>, axis: usize) -> &[Separation];
    /// The digits the access pins to one value (computed now, for an
    /// access whose pins were not asked before).
    fn pinned(&self, threads: &Threads<'_>) -> &[(Digit, i128)];
}

impl Candidates for AccessParts<'_> {
    fn axis_count(&self) -> usize {
        self.0.len()
    }

    fn ready(&self, _: usize) -> bool {
        true
    }

    fn axis(&self, _: &Threads<'_>, axis: usize) -> &[Separation] {
        &self.0[axis]
    }

    fn pinned(&self, _: &Threads<'_>) -> &[(Digit, i128)] {
        self.1
    }
}

/// An access's [`LazySeparations`], and the digits its facts pin
/// ([`LazySeparations::pinned`]).
pub(crate) struct LazyParts<'r, 't> {
    pub separations: &'r LazySeparations<'t>,
}

impl Candidates for LazyParts<'_, '_> {
    fn axis_count(&self) -> usize {
        self.separations.axes.len()
    }

    fn ready(&self, axis: usize) -> bool {
        self.separations.axes[axis].get().is_some()
    }

    fn axis(&self, threads: &Threads<'_>, axis: usize) -> &[Separation] {
        self.separations.axis(threads, axis)
    }

    fn pinned(&self, threads: &Threads<'_>) -> &[(Digit, i128)] {
        self.separations.pinned(threads)
    }
}

/// An access's [`LazyParts`] with the candidates found under the launch's
/// facts ([`LazySeparations::axis_everywhere`]) and the digits its own facts
/// pin: both hold for the threads that run it.
struct Everywhere<'p, 'r, 't>(&'p LazyParts<'r, 't>);

impl Candidates for Everywhere<'_, '_, '_> {
    fn axis_count(&self) -> usize {
        self.0.axis_count()
    }

    fn ready(&self, axis: usize) -> bool {
        self.0.separations.ready_everywhere(axis)
    }

    fn axis(&self, threads: &Threads<'_>, axis: usize) -> &[Separation] {
        self.0.separations.axis_everywhere(threads, axis)
    }

    fn pinned(&self, threads: &Threads<'_>) -> &[(Digit, i128)] {
        self.0.pinned(threads)
    }
}

/// An access's [`LazyParts`] with its candidates found under the facts
/// every access of its tensor or buffer holds
/// ([`Threads::unseparated_lazily`]): they hold for the threads that run it
/// (a proof under fewer facts holds under more), and the accesses of an
/// unrolled loop, each under its own guard, search under the one fact set
/// and share its prover's answers.
struct Common<'p, 'r, 't, 'f> {
    parts: &'p LazyParts<'r, 't>,
    facts: &'p FactSet<'f>,
    axes: LazyAxes,
}

impl Candidates for Common<'_, '_, '_, '_> {
    fn axis_count(&self) -> usize {
        self.parts.axis_count()
    }

    fn ready(&self, axis: usize) -> bool {
        self.axes[axis].get().is_some()
    }

    fn axis(&self, threads: &Threads<'_>, axis: usize) -> &[Separation] {
        self.axes[axis].get_or_init(|| {
            self.parts
                .separations
                .candidates_under(threads, axis, self.facts)
        })
    }

    fn pinned(&self, threads: &Threads<'_>) -> &[(Digit, i128)] {
        self.parts.pinned(threads)
    }
}

/// The most digits whose subsets are tried as separated sets (a launch has
/// at most 10 digits; typical accesses name 2 or 3).
const MAX_SUBSET_DIGITS: usize = 6;

/// The most periods tried per candidate rank.
const MAX_PERIODS: usize = 64;

/// How one access separates threads along one axis: each thread's indices
/// lie in `[sign * c * v + offset, sign * c * v + offset + c)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Separation {
    pub digits: BTreeSet<Digit>,
    /// The injective rank of `digits` (uniform weights).
    pub rank: Poly,
    /// `0 <= rank < range`.
    pub range: Poly,
    pub c: i128,
    /// 1, or -1 for indices that fall as the rank grows (`N - 1 - i`).
    pub sign: i128,
    /// The same for every thread; 0 when `period` is set.
    pub offset: Poly,
    /// `None`: `v` is the rank; `Some(q)`: `v` is congruent to the rank
    /// modulo `q`, with `q >= range`.
    pub period: Option<Poly>,
}

impl Separation {
    /// The same rank, scaled and signed the same way.
    fn same_rank(&self, other: &Separation) -> bool {
        self.digits == other.digits
            && self.rank == other.rank
            && self.c == other.c
            && self.sign == other.sign
    }

    /// Whether this access's blocks are `v = sign * rank + m * M` (some
    /// integer `M`) with its ranks below `m`: two such accesses of one rank
    /// meet only at equal ranks (`rank1 = rank2 (mod m)`, both below `m`).
    /// The facts of each access bound its own range, so the bound is read
    /// per access: a period found under narrow facts (one thread pinned:
    /// range 1, any period) says nothing about another access's threads.
    fn within_modulus(&self, m: &Poly) -> bool {
        // A period is at least its own access's range (`period_of`).
        let below = at_most(&self.range, m) || self.period.as_ref() == Some(m);
        let congruent = match (&self.period, m.as_const()) {
            // `offset = c * m * M`.
            (None, Some(k)) => {
                k > 0
                    && self
                        .c
                        .checked_mul(k)
                        .is_some_and(|ck| self.offset.divisible_by(ck))
            }
            (None, None) => self.offset == Poly::default(),
            // `v = rank (mod q)` with `m` dividing `q` (the content of a
            // polynomial divides each of its values).
            (Some(q), Some(k)) => k > 0 && q.divisible_by(k),
            (Some(q), None) => q == m,
        };
        below && congruent
    }
}

/// Whether `range <= bound` for every value of their atoms, read off their
/// difference (a non-negative constant; equal polynomials differ by 0).
fn at_most(range: &Poly, bound: &Poly) -> bool {
    bound.sub(range).as_const().is_some_and(|d| d >= 0)
}

/// An atomic read-modify-write as the race rule reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Atomic {
    /// The bytes one atomic operation updates (a vector atomic is one
    /// operation per element).
    pub bytes: usize,
    /// The type token (`u32`), for messages.
    pub ty: &'static str,
    /// The scope token (`cta`, `cluster`, `gpu`, `sys`); `None` is `.gpu`.
    pub scope: Option<&'static str>,
}

impl Atomic {
    /// Whether the atomic is indivisible only against threads of its own
    /// CTA or cluster (a kernel without a declared cluster runs clusters
    /// of one CTA).
    fn narrow(&self) -> bool {
        matches!(self.scope, Some("cta" | "cluster"))
    }
}

/// The atomic a form performs, if it is one (`atom`, `red`: its table
/// effect; a bulk reduction into global memory, each element of which is
/// a relaxed `.gpu` atomic update).
pub(crate) fn atomic_of(form: &Modifiers) -> Option<Atomic> {
    if !matches!(form.effect(), crate::ptx::form::Effect::Atomic { .. }) && !form.bulk_reduction() {
        return None;
    }
    let ty = form.get(Slot::Type).unwrap_or("");
    let bytes = form.ty(Slot::Type).map_or(0, |t| t.carrier_bits() / 8);
    Some(Atomic {
        bytes,
        ty,
        scope: form.get(Slot::Scope),
    })
}

pub(crate) fn digit_name(digit: Digit) -> String {
    match digit {
        Digit::Thread(a) => format!("thread_id({a})"),
        Digit::Cta(a) => format!("cta_id({a})"),
        Digit::Cluster(a) => format!("cluster_id({a})"),
        Digit::ClusterCta(a) => format!("cluster_ctaid({a})"),
        Digit::Lane => "lane_id()".to_string(),
        Digit::Warp => "warp_id()".to_string(),
        Digit::WarpInGroup => "warp_id() % 4".to_string(),
        Digit::Warpgroup => "warp_id() / 4".to_string(),
        Digit::LaneField { shift: 0, bits } => format!("lane_id() % {}", 1 << bits),
        Digit::LaneField { shift, .. } => format!("lane_id() / {}", 1 << shift),
    }
}

/// [`Threads::radix`]'s comparisons of two digits' weights (`a <= b`),
/// by the digits, the sign and the scale `c` the weights were divided by:
/// for the subsets of one polynomial's digits, whose coefficients are
/// fixed, these name the compared polynomials exactly.
#[derive(Default)]
struct WeightOrder(Vec<((AtomId, AtomId, i128, i128), bool)>);

/// A set of digits weighted into an injective rank: `poly`'s digit terms
/// are `sign * c * rank`.
struct Radix {
    digits: BTreeSet<Digit>,
    rank: Poly,
    range: Poly,
    c: i128,
    sign: i128,
}

impl<'a> Threads<'a> {
    /// The digits in which two threads that see the same bytes of `space`
    /// can differ: the thread and CTA indices for memory the grid shares,
    /// the thread indices for memory of one CTA.
    pub(crate) fn live_digits(&self, space: MemorySpace) -> BTreeSet<Digit> {
        let mut digits = BTreeSet::new();
        for axis in 0..3u8 {
            if self.launch.block[usize::from(axis)] > 1 {
                digits.insert(Digit::Thread(axis));
            }
            let grid = self.launch.grid[usize::from(axis)].as_const();
            let cluster = u64::from(self.launch.cluster[usize::from(axis)]);
            if space.shared_by() != Sharers::Grid || grid == Some(1) {
                continue;
            }
            if cluster > 1 {
                digits.insert(Digit::ClusterCta(axis));
                if grid != Some(cluster) {
                    digits.insert(Digit::Cluster(axis));
                }
            } else {
                digits.insert(Digit::Cta(axis));
            }
        }
        digits
    }

    /// `cluster_ctaid(a)` for each axis a declared cluster spans: what
    /// tells the CTAs of one cluster apart.
    pub(crate) fn cluster_cta_digits(&self) -> impl Iterator<Item = Digit> + '_ {
        (0..3u8)
            .filter(|a| self.launch.cluster[usize::from(*a)] > 1)
            .map(Digit::ClusterCta)
    }

    fn digit_of(&self, atom: AtomId) -> Option<Digit> {
        match self.atoms.get(atom).kind {
            AtomKind::ThreadId(a) => Some(Digit::Thread(a)),
            AtomKind::CtaId(a) => Some(Digit::Cta(a)),
            AtomKind::ClusterId(a) => Some(Digit::Cluster(a)),
            AtomKind::ClusterCtaId(a) => Some(Digit::ClusterCta(a)),
            AtomKind::LaneId => Some(Digit::Lane),
            AtomKind::WarpId => Some(Digit::Warp),
            AtomKind::WarpInGroup => Some(Digit::WarpInGroup),
            AtomKind::WarpgroupId => Some(Digit::Warpgroup),
            AtomKind::LaneField { shift, bits } => Some(Digit::LaneField { shift, bits }),
            _ => None,
        }
    }

    /// The prover of `facts` and what was derived under them: one per
    /// distinct fact set.
    pub(crate) fn under(&self, facts: &[Fact]) -> Rc<FactSet<'a>> {
        if let Some(found) = self.fact_sets.borrow().get(facts) {
            return Rc::clone(found);
        }
        let found = Rc::new(FactSet {
            prover: CachedProver::new(self.atoms, facts),
            pinned: OnceCell::new(),
            members: OnceCell::new(),
            candidates: RefCell::default(),
            radices: RefCell::default(),
        });
        self.fact_sets
            .borrow_mut()
            .insert(facts.to_vec(), Rc::clone(&found));
        found
    }

    /// The digits that `facts` fix to one value (`lane_id() == 0`,
    /// `thread_id(0) == 288`), with that value: only threads with that
    /// digit run the access. The value is the digit's least, or a bound
    /// one of the facts puts on the digit alone; both bounds are proven.
    pub(crate) fn pinned_digits(&self, facts: &FactSet<'_>) -> Vec<(Digit, i128)> {
        self.pinned_in(facts).to_vec()
    }

    /// [`Self::pinned_digits`], borrowed from the fact set that remembers
    /// them.
    fn pinned_in<'f>(&self, facts: &'f FactSet<'_>) -> &'f [(Digit, i128)] {
        facts.pinned.get_or_init(|| {
            // The bounds the facts put on one atom alone, read once:
            // `d + k <= 0` bounds `d` by `-k`, `k - d <= 0` by `k`.
            let bounds: Vec<(AtomId, i128)> = facts
                .prover
                .facts()
                .iter()
                .filter_map(|fact| {
                    let mut terms = fact.terms().filter(|(m, _)| !m.is_empty());
                    let (monomial, coefficient) = terms.next()?;
                    match (monomial, terms.next()) {
                        (&[atom], None) if coefficient.abs() == 1 => {
                            Some((atom, -fact.constant_term() * coefficient))
                        }
                        _ => None,
                    }
                })
                .collect();
            self.atoms
                .iter()
                .filter_map(|(id, atom)| {
                    let digit = self.digit_of(id)?;
                    let value = Poly::atom(id);
                    let pins = |v: i128| {
                        facts.prover.prove_le0(&value.add_const(-v))
                            && facts.prover.prove_le0(&Poly::constant(v).sub(&value))
                    };
                    if facts.prover.prove_le0(&value.add_const(-atom.lo)) {
                        return Some((digit, atom.lo));
                    }
                    bounds
                        .iter()
                        .filter(|(bounded, v)| *bounded == id && *v > atom.lo)
                        .find(|(_, v)| pins(*v))
                        .map(|(_, v)| (digit, *v))
                })
                .collect()
        })
    }

    /// The digits of `live` in which two accessing threads may differ
    /// although none of `covered` tells them apart. Grid digits must be
    /// covered or `pinned`. Thread digits are checked over the block's
    /// threads (those the thread-level `pinned` digits admit): a live
    /// thread digit is missing when two such threads agree on every covered
    /// digit but differ in it. When none is missing, two distinct threads
    /// of one CTA differ in some covered digit (their `thread_id`s are
    /// functions of the covered digits).
    fn covers(
        &self,
        covered: &BTreeSet<Digit>,
        pinned: &[(Digit, i128)],
        live: &BTreeSet<Digit>,
    ) -> Vec<Digit> {
        let fixed = |d: &Digit| pinned.iter().any(|(p, _)| p == d);
        let mut missing: Vec<Digit> = live
            .iter()
            .copied()
            .filter(|d| d.in_grid() && !covered.contains(d) && !fixed(d))
            .collect();
        let threads: Vec<Digit> = live
            .iter()
            .copied()
            .filter(|d| matches!(d, Digit::Thread(_)) && !covered.contains(d))
            .collect();
        if threads.is_empty() {
            missing.sort_unstable();
            return missing;
        }
        let [bx, by, bz] = self
            .launch
            .block
            .map(|b| usize::try_from(b).unwrap_or(1).max(1));
        let count = bx.saturating_mul(by).saturating_mul(bz);
        // A block this large is reported elsewhere (TK0602).
        if count > 1 << 16 {
            missing.extend(threads);
            missing.sort_unstable();
            return missing;
        }
        let value = |digit: Digit, l: usize| digit_value(digit, l, bx, by);
        let members: Vec<usize> = (0..count)
            .filter(|l| {
                pinned
                    .iter()
                    .all(|(d, v)| d.in_grid() || i128::try_from(value(*d, *l)).ok() == Some(*v))
            })
            .collect();
        let keyed: Vec<Digit> = covered.iter().copied().filter(|d| !d.in_grid()).collect();
        for digit in threads {
            let determined = determined_densely(&members, &keyed, digit, [bx, by, count])
                .unwrap_or_else(|| {
                    let mut seen: HashMap<Vec<usize>, usize> = HashMap::new();
                    members.iter().all(|l| {
                        let key: Vec<usize> = keyed.iter().map(|d| value(*d, *l)).collect();
                        *seen.entry(key).or_insert(value(digit, *l)) == value(digit, *l)
                    })
                });
            if !determined {
                missing.push(digit);
            }
        }
        missing.sort_unstable();
        missing
    }

    /// The threads of a block (linear indices) that satisfy every fact of
    /// `facts`, the conditions that differ between the threads of a CTA
    /// (the caller leaves out those that hold or fail for the whole CTA):
    /// `None` when one of them depends on anything but the thread
    /// (`thread_id(0) < n`, a loop variable whose bounds differ between
    /// threads), which the block alone cannot decide.
    pub(crate) fn members(&self, facts: &[Fact]) -> Option<Vec<usize>> {
        self.under(facts)
            .members
            .get_or_init(|| self.enumerate_members(facts))
            .clone()
    }

    /// [`Threads::members`], by evaluating the facts at every thread. Each
    /// fact is prepared once ([`ThreadPoly`]), not looked through again at
    /// every thread.
    fn enumerate_members(&self, facts: &[Fact]) -> Option<Vec<usize>> {
        let [bx, by, _] = self
            .launch
            .block
            .map(|b| usize::try_from(b).unwrap_or(1).max(1));
        let count = self.enumerable_block()?;
        let prepared: Vec<ThreadPoly<'_>> = facts.iter().map(|f| self.thread_poly(f)).collect();
        let mut values = Vec::new();
        let mut members = Vec::new();
        for l in 0..count {
            let mut runs = true;
            for fact in &prepared {
                if fact.value(l, bx, by, &mut values)? > 0 {
                    runs = false;
                    break;
                }
            }
            if runs {
                members.push(l);
            }
        }
        Some(members)
    }

    /// The threads of a block small enough to enumerate (at most 2^16; a
    /// larger one is reported elsewhere, TK0602), each extent at least 1:
    /// the linear indices [`Threads::members`] and
    /// [`Threads::where_holds`] range over.
    pub(crate) fn enumerable_block(&self) -> Option<usize> {
        let [bx, by, bz] = self
            .launch
            .block
            .map(|b| usize::try_from(b).unwrap_or(1).max(1));
        let count = bx.checked_mul(by)?.checked_mul(bz)?;
        (count <= 1 << 16).then_some(count)
    }

    /// The threads of the block (by linear index) where `cond` holds, when
    /// it depends on nothing but the thread (`None` otherwise): exact, where
    /// a condition's facts are not (`!=` states none where it holds, so it
    /// is the complement of `==`; `||` combines the sets).
    pub(crate) fn where_holds(&self, cond: &Cond) -> Option<Vec<bool>> {
        let block = self.enumerable_block()?;
        let set = |facts: &[Fact]| -> Option<Vec<bool>> {
            let mut set = vec![false; block];
            for t in self.members(facts)? {
                set[t] = true;
            }
            Some(set)
        };
        let combine = |a: Vec<bool>, b: Vec<bool>, both: bool| -> Vec<bool> {
            a.iter()
                .zip(b)
                .map(|(x, y)| if both { *x && y } else { *x || y })
                .collect()
        };
        match cond {
            Cond::Const(value) => Some(vec![*value; block]),
            Cond::Cmp(CmpOp::Ne, _) => {
                let equal = set(&cond.facts(false))?;
                Some(equal.iter().map(|e| !e).collect())
            }
            Cond::Cmp(..) => set(&cond.facts(true)),
            Cond::Not(inner) => Some(self.where_holds(inner)?.iter().map(|h| !h).collect()),
            Cond::And(a, b) => Some(combine(self.where_holds(a)?, self.where_holds(b)?, true)),
            Cond::Or(a, b) => Some(combine(self.where_holds(a)?, self.where_holds(b)?, false)),
            Cond::Param(_) | Cond::Register { .. } => None,
        }
    }

    /// `poly` made ready to evaluate at any thread ([`ThreadPoly::value`]):
    /// how each of its atoms gets its value from the thread's index.
    fn thread_poly<'p>(&self, poly: &'p Poly) -> ThreadPoly<'p>
    where
        'a: 'p,
    {
        let atoms = poly.atoms();
        let mut sources = Vec::with_capacity(atoms.len());
        for &atom in &atoms {
            let source = match (&self.atoms.get(atom).kind, self.digit_of(atom)) {
                (_, Some(digit)) if digit.in_grid() => None,
                (_, Some(digit)) => Some(AtomSource::Digit(digit)),
                // An operand with no value at any thread leaves the other
                // unprepared (as evaluating it did).
                (AtomKind::Computed(op, args), None) => match args.as_slice() {
                    [a, b] => {
                        let a = self.thread_poly(a);
                        let b = a.sources.is_some().then(|| self.thread_poly(b));
                        b.filter(|b| b.sources.is_some())
                            .map(|b| AtomSource::Computed(*op, Box::new(a), Box::new(b)))
                    }
                    _ => None,
                },
                _ => None,
            };
            match source {
                Some(source) => sources.push(source),
                None => {
                    return ThreadPoly {
                        poly,
                        atoms,
                        sources: None,
                    };
                }
            }
        }
        ThreadPoly {
            poly,
            atoms,
            sources: Some(sources),
        }
    }

    /// `poly = c * rank + r` with `rank` an injective mixed-radix number of
    /// thread digits: returns `(digits, rank, c, r, range)` where `range`
    /// bounds the rank (`0 <= rank < range`).
    fn rank_decomposition(
        &self,
        poly: &Poly,
        facts: &[Fact],
    ) -> Option<(BTreeSet<Digit>, Poly, i128, Poly, Poly)> {
        let prover = Prover {
            atoms: self.atoms,
            facts,
        };
        let subset: Vec<(AtomId, Poly)> = poly
            .atoms()
            .into_iter()
            .filter(|a| self.digit_of(*a).is_some())
            .map(|a| (a, poly.split_on(a).0))
            .collect();
        let radix = self.radix(&subset, &prover)?;
        if radix.sign != 1 {
            return None;
        }
        let rest = poly.sub(&radix.rank.scale(radix.c));
        Some((radix.digits, radix.rank, radix.c, rest, radix.range))
    }

    /// The digits of `subset` (each with its coefficient) as one signed,
    /// scaled mixed-radix rank: coefficients `sign * c * weight` with
    /// uniform weights, the smallest 1 and each at least one more than the
    /// largest value of all smaller digits together (so distinct digit
    /// values give distinct ranks).
    fn radix(&self, subset: &[(AtomId, Poly)], prover: &impl crate::sym::Prove) -> Option<Radix> {
        if subset.is_empty() || !subset.iter().all(|(_, coef)| self.is_uniform(coef)) {
            return None;
        }
        self.uniform_radix(subset, prover, &mut WeightOrder::default())
    }

    /// [`Self::radix`] of a subset whose coefficients are known uniform,
    /// with the comparisons of its weights remembered in `order` (for the
    /// subsets of one polynomial's digits: [`WeightOrder`]).
    fn uniform_radix(
        &self,
        subset: &[(AtomId, Poly)],
        prover: &impl crate::sym::Prove,
        order: &mut WeightOrder,
    ) -> Option<Radix> {
        if subset.is_empty() {
            return None;
        }
        let constants: Vec<i128> = subset.iter().filter_map(|(_, k)| k.as_const()).collect();
        let sign = if constants.iter().all(|k| *k > 0) {
            1
        } else if constants.iter().all(|k| *k < 0) {
            -1
        } else {
            return None;
        };
        let c = constants.iter().map(|k| k.abs()).filter(|k| *k > 0).min()?;
        let mut remaining: Vec<(AtomId, Poly)> = Vec::with_capacity(subset.len());
        for (atom, coef) in subset {
            let coef = coef.scale(sign);
            if !coef.divisible_by(c) {
                return None;
            }
            remaining.push((*atom, coef.div_exact(c)));
        }
        // Mixed radix: smallest weight first; each weight exceeds the
        // largest value of all smaller digits.
        let mut span = Poly::default(); // the largest value so far
        let mut rank = Poly::default();
        while !remaining.is_empty() {
            let pick = (0..remaining.len()).find(|&i| {
                remaining.iter().all(|(other_atom, other)| {
                    let key = (remaining[i].0, *other_atom, sign, c);
                    // A few digits, a few scales: a short list.
                    if let Some((_, known)) = order.0.iter().find(|(k, _)| *k == key) {
                        return *known;
                    }
                    let answer = prover.le(&remaining[i].1, other);
                    order.0.push((key, answer));
                    answer
                })
            })?;
            let (atom, weight) = remaining.remove(pick);
            if !prover.le(&span.add_const(1), &weight) {
                return None;
            }
            let top = self.digit_top_under(atom, prover)?;
            span = span.add(&weight.mul(&top));
            rank = rank.add(&weight.mul(&Poly::atom(atom)));
        }
        let digits = subset
            .iter()
            .filter_map(|(a, _)| self.digit_of(*a))
            .collect();
        Some(Radix {
            digits,
            rank,
            range: span.add_const(1),
            c,
            sign,
        })
    }

    /// Whether `poly` has one value for every thread of a launch (symbols,
    /// parameters, grid sizes and values computed only from those). Rank
    /// weights and grid-stride steps must be: a weight that differed between
    /// threads would break the mixed-radix argument.
    fn is_uniform(&self, poly: &Poly) -> bool {
        poly.atoms()
            .into_iter()
            .all(|atom| self.is_uniform_atom(atom))
    }

    /// [`Self::is_uniform`] of one atom.
    fn is_uniform_atom(&self, atom: AtomId) -> bool {
        match &self.atoms.get(atom).kind {
            AtomKind::Symbol(_) | AtomKind::Param(_) | AtomKind::GridDim(_) => true,
            AtomKind::Computed(_, args) => args.iter().all(|a| self.is_uniform(a)),
            AtomKind::ThreadId(_)
            | AtomKind::CtaId(_)
            | AtomKind::ClusterId(_)
            | AtomKind::ClusterCtaId(_)
            | AtomKind::LaneId
            | AtomKind::WarpId
            | AtomKind::WarpInGroup
            | AtomKind::WarpgroupId
            | AtomKind::LaneField { .. }
            | AtomKind::LoopVar
            | AtomKind::Register { .. } => false,
        }
    }

    /// [`Self::digit_top`], lowered by the facts of the threads that run
    /// the access (`if warp_id() / 4 < 2` in a block of three
    /// warpgroups: the warpgroup digit is at most 1 there). Sound for the
    /// rank of one access: only those threads reach its bytes.
    fn digit_top_under(&self, atom: AtomId, prover: &impl crate::sym::Prove) -> Option<Poly> {
        let top = self.digit_top(atom)?;
        let (
            Some(hi),
            Some(
                Digit::Thread(_)
                | Digit::Lane
                | Digit::Warp
                | Digit::WarpInGroup
                | Digit::Warpgroup
                | Digit::LaneField { .. },
            ),
        ) = (top.as_const(), self.digit_of(atom))
        else {
            return Some(top);
        };
        let lo = self.atoms.get(atom).lo;
        let at_most = |v: i128| prover.prove_le0(&Poly::atom(atom).add_const(-v));
        if hi <= lo || !at_most(hi - 1) {
            return Some(top);
        }
        // The least `v` the facts bound the digit by: `at_most` holds from
        // it up.
        let (mut below, mut bound) = (lo - 1, hi - 1);
        while bound - below > 1 {
            let mid = below + (bound - below) / 2;
            if at_most(mid) {
                bound = mid;
            } else {
                below = mid;
            }
        }
        Some(Poly::constant(bound))
    }

    /// The largest value of a digit atom, as a polynomial.
    fn digit_top(&self, atom: AtomId) -> Option<Poly> {
        match self.atoms.get(atom).kind {
            AtomKind::ThreadId(_)
            | AtomKind::LaneId
            | AtomKind::WarpId
            | AtomKind::WarpInGroup
            | AtomKind::WarpgroupId
            | AtomKind::LaneField { .. }
            | AtomKind::ClusterCtaId(_) => Some(Poly::constant(self.atoms.get(atom).hi)),
            // At most the grid's clusters less one (the atom's range: exact
            // for a constant grid, a bound of the hardware's otherwise).
            AtomKind::ClusterId(_) => Some(Poly::constant(self.atoms.get(atom).hi)),
            AtomKind::CtaId(axis) => match self.launch.grid[usize::from(axis)].as_const() {
                Some(g) => Some(Poly::constant(i128::from(g) - 1)),
                None => Some(match self.atoms.find(&AtomKind::GridDim(axis)) {
                    Some(grid) => Poly::atom(grid).add_const(-1),
                    None => Poly::constant(self.atoms.get(atom).hi),
                }),
            },
            _ => None,
        }
    }

    /// The class of a runtime loop variable starting at `start` with `step`.
    pub(crate) fn loop_class(
        &self,
        start: &Poly,
        step: &Poly,
        facts: &[Fact],
    ) -> Option<LoopClass> {
        let (digits, rank, c, rest, range) = self.rank_decomposition(start, facts)?;
        if c != 1 || rest != Poly::default() || !self.is_uniform(step) {
            return None;
        }
        let prover = Prover {
            atoms: self.atoms,
            facts,
        };
        prover.le(&range, step).then(|| LoopClass {
            digits: digits.into_iter().collect(),
            rank,
            period: step.clone(),
        })
    }

    /// Per axis of `view`'s memory (each tensor axis of its region, then
    /// the flat byte offset): the ways the access separates threads, each
    /// axis searched when first read ([`LazySeparations`]). `facts` are the
    /// access's ([`Threads::under`]): one search asks many related
    /// questions under them, and so do the other accesses under the same
    /// facts.
    /// `everywhere`: the facts every thread of the launch holds, for
    /// [`LazySeparations::axis_everywhere`] (`None`: not asked).
    pub(crate) fn separations(
        view: &Layout,
        facts: Rc<FactSet<'a>>,
        everywhere: Option<Rc<FactSet<'a>>>,
    ) -> LazySeparations<'a> {
        let inputs = Self::separation_inputs(view);
        let cells = || inputs.iter().map(|_| OnceCell::new()).collect();
        let everywhere = everywhere
            .filter(|kernel| !Rc::ptr_eq(kernel, &facts))
            .map(|kernel| (kernel, cells()));
        LazySeparations {
            facts,
            axes: cells(),
            everywhere,
            inputs,
        }
    }

    /// Per axis of [`Self::separations`]: the start and span of the
    /// indices whose candidates it lists (`None`: none). The flat byte
    /// axis: the bytes `[offset, offset + span)` that contain every byte
    /// the view reaches (constant non-negative strides), exact where a
    /// reshape or dtype view left the per-axis region a superset
    /// (`buf.reshape([32, 4])` bound to the lanes of a warp).
    fn separation_inputs(view: &Layout) -> Vec<Option<(Poly, i128)>> {
        let region = &view.region;
        let mut axes: Vec<Option<(Poly, i128)>> = (0..region.starts.len())
            .map(|axis| {
                let count = region.counts[axis].as_const()?;
                let span = (count - 1).max(0) * region.steps[axis] + 1;
                Some((region.starts[axis].clone(), span))
            })
            .collect();
        axes.push(byte_span(view).map(|span| (view.offset.clone(), span)));
        axes
    }

    /// Per axis as in [`Self::separations`]: the interval `[start, start +
    /// len)` that contains every index (byte) `view` reaches there, when
    /// `start` has one value for every thread (a counter at a fixed
    /// column). Two accesses whose intervals on one axis are provably
    /// disjoint never meet, whichever threads make them.
    pub(crate) fn uniform_footprints(&self, view: &Layout) -> Vec<Option<(Poly, i128)>> {
        let region = &view.region;
        let uniform = |start: &Poly, len: Option<i128>| {
            let len = len?;
            self.is_uniform(start).then(|| (start.clone(), len))
        };
        let mut out: Vec<Option<(Poly, i128)>> = (0..region.starts.len())
            .map(|axis| {
                let len = region.counts[axis]
                    .as_const()
                    .filter(|count| *count >= 1)
                    .map(|count| (count - 1) * region.steps[axis] + 1);
                uniform(&region.starts[axis], len)
            })
            .collect();
        out.push(uniform(&view.offset, byte_span(view)));
        out
    }

    /// Whether two accesses stay in provably disjoint uniform intervals on
    /// some axis.
    fn apart(&self, a: &RaceAccess<'_>, b: &RaceAccess<'_>) -> bool {
        let prover = Prover {
            atoms: self.atoms,
            facts: &[],
        };
        a.footprints
            .iter()
            .zip(b.footprints)
            .any(|(fa, fb)| match (fa, fb) {
                (Some((sa, la)), Some((sb, lb))) => {
                    prover.le(&sa.add_const(*la), sb) || prover.le(&sb.add_const(*lb), sa)
                }
                _ => false,
            })
    }

    /// Every way the indices `start .. start + span` of one axis separate
    /// threads. A grid-stride loop variable `i = rank + p * m` is expanded
    /// into its rank and a multiple of `p` first. Remembered per fact set.
    fn separation_candidates(
        &self,
        start: &Poly,
        span: i128,
        facts: &FactSet<'_>,
    ) -> Vec<Separation> {
        let key = (start.clone(), span);
        if let Some(found) = facts.candidates.borrow().get(&key) {
            return found.clone();
        }
        // Under only the facts its proofs can use: the same candidates
        // ([`CachedProver::relevant_facts`]), found once for the fact sets
        // that differ only in other facts (an unrolled loop's iterations,
        // each with its own guard on another axis).
        let found = match facts.prover.relevant_facts(&self.query_atoms(start)) {
            Some(relevant) => self.separation_candidates(start, span, &self.under(&relevant)),
            None => self.new_separation_candidates(start, span, facts),
        };
        facts.candidates.borrow_mut().insert(key, found.clone());
        found
    }

    /// The atoms of every prover query of [`Self::new_separation_candidates`]
    /// for `start`, and those of the definitions of their computed atoms
    /// (sorted): `start`'s, its loop variables' ranks and periods, the
    /// grid sizes its CTA digits' tops name, and the arguments of computed
    /// atoms among them.
    fn query_atoms(&self, start: &Poly) -> Vec<AtomId> {
        let mut atoms = start.atoms();
        let mut i = 0;
        while i < atoms.len() {
            let atom = atoms[i];
            let mut more = Vec::new();
            if let Some(class) = self.loop_classes.get(&atom) {
                more.extend(class.rank.atoms());
                more.extend(class.period.atoms());
            }
            match &self.atoms.get(atom).kind {
                AtomKind::Computed(_, args) => {
                    for arg in args {
                        more.extend(arg.atoms());
                    }
                }
                AtomKind::CtaId(axis) => more.extend(self.atoms.find(&AtomKind::GridDim(*axis))),
                _ => {}
            }
            for atom in more {
                if !atoms.contains(&atom) {
                    atoms.push(atom);
                }
            }
            i += 1;
        }
        atoms.sort_unstable();
        atoms
    }

    /// [`Self::separation_candidates`], computed.
    fn new_separation_candidates(
        &self,
        start: &Poly,
        span: i128,
        facts: &FactSet<'_>,
    ) -> Vec<Separation> {
        let mut out = Vec::new();
        for atom in start.atoms() {
            let Some(class) = self.loop_classes.get(&atom) else {
                continue;
            };
            let (coef, rest) = start.split_on(atom);
            let Some(k) = coef.as_const().filter(|k| *k != 0) else {
                continue;
            };
            // `k * i + rest = (rest + k * rank) + k * p * m`.
            let expanded = rest.add(&class.rank.scale(k));
            let multiple = class.period.scale(k);
            self.push_candidates(&expanded, Some(&multiple), span, facts, &mut out);
        }
        self.push_candidates(start, None, span, facts, &mut out);
        let mut unique: Vec<Separation> = Vec::with_capacity(out.len());
        for s in out {
            if !unique.contains(&s) {
                unique.push(s);
            }
        }
        unique
    }

    /// The candidates of `index = poly + multiple * m` (any integer `m`):
    /// for each set of its digits that forms a rank, the exact form (no
    /// `multiple`) and the smallest period that works.
    fn push_candidates(
        &self,
        poly: &Poly,
        multiple: Option<&Poly>,
        span: i128,
        facts: &FactSet<'_>,
        out: &mut Vec<Separation>,
    ) {
        let prover = &facts.prover;
        let digits: Vec<(AtomId, Poly)> = poly
            .atoms()
            .into_iter()
            .filter(|a| self.digit_of(*a).is_some())
            .map(|a| (a, poly.split_on(a).0))
            .filter(|(_, coef)| self.is_uniform(coef))
            .collect();
        if digits.is_empty() {
            return;
        }
        let subsets: Vec<Vec<(AtomId, Poly)>> = if digits.len() > MAX_SUBSET_DIGITS {
            vec![digits]
        } else {
            (1..1u32 << digits.len())
                .map(|mask| {
                    digits
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| mask & (1 << i) != 0)
                        .map(|(_, d)| d.clone())
                        .collect()
                })
                .collect()
        };
        // The digits' coefficients were found uniform above, and their
        // weights are compared once per sign and scale; each subset is
        // ranked once per fact set.
        let mut order = WeightOrder::default();
        for subset in subsets {
            let known = facts.radices.borrow().get(&subset).cloned();
            let radix = match known {
                Some(radix) => radix,
                None => {
                    let radix = self.uniform_radix(&subset, prover, &mut order).map(Rc::new);
                    facts.radices.borrow_mut().insert(subset, radix.clone());
                    radix
                }
            };
            let Some(radix) = radix else {
                continue;
            };
            let rest = poly.sub(&radix.rank.scale(radix.sign * radix.c));
            let separation = |offset: Poly, period: Option<Poly>| Separation {
                digits: radix.digits.clone(),
                rank: radix.rank.clone(),
                range: radix.range.clone(),
                c: radix.c,
                sign: radix.sign,
                offset,
                period,
            };
            // A period `q` of atoms the rank is proven below: `q` is its
            // range too (`atom_period`, `below_multiple`).
            let below_atom = |q: Poly| Separation {
                range: q.clone(),
                ..separation(Poly::default(), Some(q))
            };
            if multiple.is_none()
                && let Some(offset) = self.exact_offset(&rest, radix.c, span, prover)
            {
                let zero = offset == Poly::default();
                out.push(separation(offset, None));
                // Offset 0 is compatible with whatever a period would be:
                // with an atom's period too, where the rank is below it
                // (the ranges of the other accesses' candidates are that
                // atom, `atom_period`).
                if zero {
                    for x in self.grid_extent_atoms(&radix.rank) {
                        if self.below_multiple(&radix.rank, x, 1, prover) {
                            out.push(below_atom(Poly::atom(x)));
                        }
                    }
                    continue;
                }
            }
            if let Some(q) = self.atom_period(&rest, multiple, &radix, span, prover) {
                out.push(below_atom(q));
            } else if let Some(q) = self.period_of(&rest, multiple, &radix, span, prover) {
                out.push(separation(Poly::default(), Some(q)));
            }
        }
    }

    /// `rest = offset + r` with `offset` uniform (its non-uniform terms and
    /// part of its constant are `r`) and `0 <= r`, `r + span <= c`: the
    /// offset, a multiple of `c` plus the uniform terms.
    fn exact_offset(
        &self,
        rest: &Poly,
        c: i128,
        span: i128,
        prover: &CachedProver<'_>,
    ) -> Option<Poly> {
        // A term is uniform when each atom of its monomial is.
        let uniform_term = |monomial: &[AtomId]| monomial.iter().all(|a| self.is_uniform_atom(*a));
        let terms = rest.without_constant();
        let uniform = terms.filter_terms(|monomial, _| uniform_term(monomial));
        let varying = terms.filter_terms(|monomial, _| !uniform_term(monomial));
        let r0 = residue(rest.constant_term(), c, self.atoms.range(&varying).0);
        let r = varying.add_const(r0);
        fits(prover, &r, c, span).then(|| uniform.add_const(rest.constant_term() - r0))
    }

    /// A period that is a multiple `k X` of a uniform atom `X` of `rest`, above
    /// every rank under the access's facts (`rank < k X`, which
    /// [`Self::push_candidates`] records as the candidate's range), whose
    /// terms are `c * k X * M` (their coefficient over `X` a multiple of
    /// `c k`) while the other terms, constant included, fit `r`: a
    /// persistent kernel's tiles `128 * (cta_id(1) + G * t) + r`, with `G`
    /// the grid's height and `t` any tile count, are `v = cta_id(1) + G *
    /// t`, the rank modulo `G` (and `64 * (2 cta_id(1) + w + 2 G t) + r`
    /// the rank `2 cta_id(1) + w` modulo `2 G`). `M` is a polynomial in
    /// the atoms with integer coefficients: an integer whatever their
    /// values.
    fn atom_period(
        &self,
        rest: &Poly,
        multiple: Option<&Poly>,
        radix: &Radix,
        span: i128,
        prover: &CachedProver<'_>,
    ) -> Option<Poly> {
        if multiple.is_some() {
            return None;
        }
        // `X` must be one value for every thread of the launch (a symbol,
        // parameter, grid size or a value of those): a loop variable's
        // atom is no common modulus of two threads in different iterations.
        for x in rest.without_constant().atoms() {
            if !self.is_uniform_atom(x) {
                continue;
            }
            let (coef, others) = rest.split_on(x);
            if !coef.divisible_by(radix.c) || !fits(prover, &others, radix.c, span) {
                continue;
            }
            let mut ks = divisors(coef.content() / radix.c);
            ks.sort_unstable();
            for k in ks.into_iter().take(MAX_PERIODS) {
                let Some(ck) = radix.c.checked_mul(k) else {
                    continue;
                };
                if coef.divisible_by(ck) && self.below_multiple(&radix.rank, x, k, prover) {
                    return Some(Poly::atom(x).scale(k));
                }
            }
        }
        None
    }

    /// For a rank of CTA digits only, the atoms `ceil_div(a, d)` of the
    /// kernel whose divisor `d` is that of a grid extent computed at launch
    /// (`grid = [ceil_div(N, 64), ceil_div(M, 256), 1]`): the moduli a
    /// persistent kernel's other accesses may take as their period
    /// (`cta_id(1) + ceil_div(M, 256) * t`), for which an access of the
    /// plain rank needs a candidate of that period too.
    fn grid_extent_atoms(&self, rank: &Poly) -> Vec<AtomId> {
        let only_ctas = rank
            .atoms()
            .iter()
            .all(|a| matches!(self.atoms.get(*a).kind, AtomKind::CtaId(_)));
        if !only_ctas {
            return Vec::new();
        }
        let divisors: Vec<i128> = self
            .launch
            .grid
            .iter()
            .filter_map(|formula| match formula.0.as_slice() {
                [.., LaunchOp::Const(d), LaunchOp::CeilDiv] => Some(i128::from(*d)),
                _ => None,
            })
            .collect();
        if divisors.is_empty() {
            return Vec::new();
        }
        self.atoms
            .iter()
            .filter(|(_, atom)| match &atom.kind {
                AtomKind::Computed(ComputedOp::CeilDiv, args) => {
                    args.get(1)
                        .and_then(Poly::as_const)
                        .is_some_and(|d| divisors.contains(&d))
                        && args.iter().all(|a| self.is_uniform(a))
                }
                _ => false,
            })
            .map(|(id, _)| id)
            .collect()
    }

    /// Whether `rank < k x` for every thread. For `x = ceil_div(a, d)`
    /// with `d` a constant, each digit `δ` of the rank with `d δ < a`
    /// (how the launch shape states a grid extent `ceil_div(M, 512)`:
    /// `512 * cta_id(1) < M`) is below `x`, so `δ <= x - 1` in integers
    /// (the prover, reasoning over the rationals, would not derive that
    /// from `ceil_div`'s definition): such a digit of a constant positive
    /// weight is replaced by `x - 1`, which only raises the rank.
    fn below_multiple(&self, rank: &Poly, x: AtomId, k: i128, prover: &CachedProver<'_>) -> bool {
        let bound = Poly::atom(x).scale(k);
        if prover.le(&rank.add_const(1), &bound) {
            return true;
        }
        let AtomKind::Computed(ComputedOp::CeilDiv, args) = &self.atoms.get(x).kind else {
            return false;
        };
        let [a, d] = args.as_slice() else {
            return false;
        };
        let Some(d) = d.as_const().filter(|d| *d > 0) else {
            return false;
        };
        let below_x = Poly::atom(x).add_const(-1);
        let mut raised = rank.clone();
        for digit in rank.atoms() {
            let (weight, _) = rank.split_on(digit);
            let atom = Poly::atom(digit);
            if weight.as_const().is_some_and(|w| w > 0) && prover.le(&atom.scale(d).add_const(1), a)
            {
                raised = raised.substitute(digit, &below_x);
            }
        }
        raised != *rank && prover.le(&raised.add_const(1), &bound)
    }

    /// The smallest period `q >= range` with `rest + multiple * m = c * q *
    /// M + r` (`M` any integer, `0 <= r`, `r + span <= c`): the terms whose
    /// coefficients `c * q` divides go to `M`, the others and the
    /// constant's residue to `r`. A non-constant `multiple` that is `c *
    /// Q` gives the period `Q` itself when all of `rest` fits `r`.
    fn period_of(
        &self,
        rest: &Poly,
        multiple: Option<&Poly>,
        radix: &Radix,
        span: i128,
        prover: &CachedProver<'_>,
    ) -> Option<Poly> {
        let c = radix.c;
        if let Some(multiple) = multiple.filter(|m| !m.is_const())
            && multiple.divisible_by(c)
        {
            let q = multiple.div_exact(c);
            if prover.le(&radix.range, &q) && fits(prover, rest, c, span) {
                return Some(q);
            }
        }
        // Candidate periods: divisors of the coefficients (over `c`) that
        // could go to `M`, and the range itself.
        let mut sources: Vec<i128> = rest
            .without_constant()
            .terms()
            .map(|(_, coef)| coef.abs())
            .chain(multiple.map(Poly::content))
            .filter(|k| *k > 0 && k % c == 0)
            .map(|k| k / c)
            .collect();
        sources.extend(radix.range.as_const());
        let mut periods: Vec<i128> = Vec::new();
        for source in sources {
            for d in divisors(source) {
                if !periods.contains(&d) {
                    periods.push(d);
                }
            }
        }
        periods.sort_unstable();
        // The periods `q >= range`: a suffix of the sorted list (the proof of
        // `range - q <= 0` only gets easier as `q` grows), found by
        // bisection rather than a proof per period; none when the largest
        // fails (a range of a grid size), which the prover then remembers.
        let below = |q: &i128| !prover.le(&radix.range, &Poly::constant(*q));
        let first = if periods.last().is_none_or(below) {
            periods.len()
        } else {
            periods.partition_point(below)
        };
        for &q in periods[first..].iter().take(MAX_PERIODS) {
            let Some(whole) = c.checked_mul(q) else {
                continue;
            };
            if multiple.is_some_and(|m| !m.divisible_by(whole)) {
                continue;
            }
            let low = rest.filter_terms(|monomial, coef| !monomial.is_empty() && coef % whole != 0);
            let r0 = residue(rest.constant_term(), whole, self.atoms.range(&low).0);
            if fits(prover, &low.add_const(r0), c, span) {
                return Some(Poly::constant(q));
            }
        }
        None
    }

    /// The digits of `live` in which two threads may differ and still
    /// reach the same element through the accesses `records` (each its
    /// candidate separations per axis and pinned digits): empty when the
    /// digits of the candidates every access shares on some axis, and
    /// those every access pins to one value, tell the threads apart.
    pub(crate) fn unseparated(
        &self,
        records: &[AccessParts<'_>],
        live: &BTreeSet<Digit>,
    ) -> Vec<Digit> {
        self.unseparated_by(records, live)
    }

    /// [`Self::unseparated`] of accesses whose axes are computed on
    /// demand, first from their candidates found under the launch's facts
    /// ([`LazySeparations::axis_everywhere`]): where those tell the
    /// threads apart, so do the accesses (each candidate holds for the
    /// threads that run its access), and the searches under each
    /// access's own facts are never made. Otherwise the answer is
    /// [`Self::unseparated_by`]'s under the accesses' own facts: the
    /// same as without the first pass.
    pub(crate) fn unseparated_lazily(
        &self,
        records: &[LazyParts<'_, '_>],
        live: &BTreeSet<Digit>,
    ) -> Vec<Digit> {
        if records.iter().any(|r| r.separations.everywhere.is_some()) {
            let everywhere: Vec<Everywhere> = records.iter().map(Everywhere).collect();
            if self.unseparated_by(&everywhere, live).is_empty() {
                return Vec::new();
            }
        }
        if let Some(shared) = self.shared_facts(records) {
            let common: Vec<Common> = records
                .iter()
                .map(|parts| Common {
                    parts,
                    facts: &shared,
                    axes: parts
                        .separations
                        .inputs
                        .iter()
                        .map(|_| OnceCell::new())
                        .collect(),
                })
                .collect();
            if self.unseparated_by(&common, live).is_empty() {
                return Vec::new();
            }
        }
        self.unseparated_by(records, live)
    }

    /// The facts every one of `records` holds, in the first's order, where
    /// some record holds more (`None` otherwise: the pass under them would
    /// be one under some record's own facts, or under the launch's). The
    /// accesses of a tile's epilogue, each under its own bounds guard,
    /// share the conditions around them (`if warp_id() / 4 < 2`, a loop's
    /// range), which the launch's facts lack.
    fn shared_facts(&self, records: &[LazyParts<'_, '_>]) -> Option<Rc<FactSet<'a>>> {
        let [first, rest @ ..] = records else {
            return None;
        };
        if rest.is_empty() {
            return None;
        }
        let first_facts = first.separations.facts.prover.facts();
        let shared: Vec<Fact> = first_facts
            .iter()
            .filter(|fact| {
                rest.iter()
                    .all(|r| r.separations.facts.prover.facts().contains(fact))
            })
            .cloned()
            .collect();
        let some_hold_more = records
            .iter()
            .any(|r| r.separations.facts.prover.facts().len() > shared.len());
        some_hold_more.then(|| self.under(&shared))
    }

    /// [`Self::unseparated`] of accesses whose axes may be computed on
    /// demand ([`LazySeparations`]): before an axis some access has not
    /// computed, it stops when the digits covered so far already tell the
    /// threads apart. The same answer as reading every axis: more covered
    /// digits never make [`Self::covers`] miss more (a grid digit covered
    /// stays covered; a thread digit determined by some covered digits is
    /// determined by more).
    pub(crate) fn unseparated_by<C: Candidates>(
        &self,
        records: &[C],
        live: &BTreeSet<Digit>,
    ) -> Vec<Digit> {
        let Some(first) = records.first() else {
            return Vec::new();
        };
        let axes = records.iter().map(|r| r.axis_count()).min().unwrap_or(0);
        // A digit every access fixes to the same value keeps threads
        // that differ in it apart (only one value of it accesses). Found
        // only where the covered digits alone leave threads unseparated:
        // pins only remove threads from [`Self::covers`]' check, so
        // whatever the covered digits separate without them they separate
        // with them.
        let pinned = OnceCell::new();
        let pinned = || -> &[(Digit, i128)] {
            pinned.get_or_init(|| {
                first
                    .pinned(self)
                    .iter()
                    .copied()
                    .filter(|p| records.iter().all(|r| r.pinned(self).contains(p)))
                    .collect::<Vec<_>>()
            })
        };
        let mut covered = BTreeSet::new();
        for axis in 0..axes {
            // Before the first covered digit, only pins could separate
            // (rarely all of them): the axes are read instead, which
            // covers at least as much.
            if !covered.is_empty()
                && records.iter().any(|r| !r.ready(axis))
                && (self.separated(&covered, &[], live) || self.separated(&covered, pinned(), live))
            {
                return Vec::new();
            }
            for candidate in first.axis(self, axis) {
                if covered.is_superset(&candidate.digits) {
                    continue;
                }
                if agree(self, records, axis, candidate) {
                    covered.extend(candidate.digits.iter().copied());
                }
            }
        }
        let missing = self.covers(&covered, &[], live);
        if missing.is_empty() {
            return missing;
        }
        self.covers(&covered, pinned(), live)
    }

    /// Whether [`Self::covers`] misses no digit: at once where a live grid
    /// digit is neither covered nor pinned (its first rule).
    fn separated(
        &self,
        covered: &BTreeSet<Digit>,
        pinned: &[(Digit, i128)],
        live: &BTreeSet<Digit>,
    ) -> bool {
        let grid_missing = live
            .iter()
            .any(|d| d.in_grid() && !covered.contains(d) && !pinned.iter().any(|(p, _)| p == d));
        !grid_missing && self.covers(covered, pinned, live).is_empty()
    }

    /// The race errors of the global tensors: every written tensor's
    /// accesses (`accesses`) are separated per thread, and `.nc` loads read
    /// only tensors the kernel does not write.
    pub(crate) fn global_races(
        &self,
        params: &[ProgramParam],
        accesses: &[AccessRecord<'_>],
    ) -> Vec<Diagnostic> {
        let mut diags = Vec::new();
        let live = self.live_digits(MemorySpace::Global);
        for (param, declared) in params.iter().enumerate() {
            let ParamKind::Tensor {
                borrow: Borrow::Exclusive,
                ..
            } = declared.kind
            else {
                continue;
            };
            let records: Vec<_> = accesses
                .iter()
                .filter(|r| r.param == param)
                .cloned()
                .collect();
            let name = declared.name.clone();
            if let Some(async_write) = records.iter().find(|r| r.async_store)
                && let Some(other) = records.iter().find(|r| !r.async_store)
            {
                let (what, kind) = if async_write.atomic.is_some() {
                    ("an async bulk reduction", "bulk reductions")
                } else {
                    ("an async store", "async stores")
                };
                diags.push(
                    Diagnostic::new(
                        Code::ASYNC_STORE_MIXED,
                        other.span,
                        format!("`{name}` is {} here, but the kernel also writes it with {what}, whose writes are not ordered with this access", if other.store { "written" } else { "read" }),
                    )
                    .with_note(format!("a bulk or tensor {} writes through the async proxy, which the generic proxy's loads and stores are not ordered with", if async_write.atomic.is_some() { "reduction" } else { "store" }))
                    .with_help(format!("write `{name}` through {kind} only, or through plain stores only")),
                );
                continue;
            }
            if let Some(load) = records.iter().find(|r| r.tensor_map && !r.store) {
                diags.push(
                    Diagnostic::new(
                        Code::NC_OF_WRITTEN,
                        load.span,
                        format!("a tensor copy reads `{name}` through the async proxy, which needs data that stays read-only for the whole kernel, but this kernel also stores to `{name}`"),
                    )
                    .with_help("read a tensor the kernel writes with `ld.global` or `cp.async`"),
                );
                // The box is not followed element by element: its
                // overlaps with the stores are this one mistake.
                continue;
            } else if let Some(load) = records.iter().find(|r| r.non_coherent) {
                diags.push(
                    Diagnostic::new(
                        Code::NC_OF_WRITTEN,
                        load.span,
                        format!("read-only loads (`.nc`, `ldu`) need data that stays read-only for the whole kernel, but this kernel also stores to `{name}`"),
                    )
                    .with_help("use a plain `ld.global` for this load"),
                );
            }
            if live.is_empty() || records.is_empty() {
                continue;
            }
            // A tensor only atomics touch: held to the rules of atomicity.
            // Mixed with plain loads or stores, every access is held to
            // the rule below (an atomic counts like a store), which keeps
            // any two threads' accesses apart whatever their kinds.
            if records.iter().all(|r| r.atomic.is_some()) {
                let separations: Vec<Vec<Vec<Separation>>> =
                    records.iter().map(|r| r.separations.all(self)).collect();
                let atomics: Vec<RaceAccess> = records
                    .iter()
                    .zip(&separations)
                    .filter_map(|(r, separations)| {
                        Some(RaceAccess {
                            span: r.span,
                            atomic: r.atomic?,
                            separations,
                            pinned: r.separations.pinned(self),
                            footprints: &r.footprints,
                        })
                    })
                    .collect();
                diags.extend(self.atomic_races(&name, "", &atomics, &live, true));
                continue;
            }
            let parts: Vec<_> = records
                .iter()
                .map(|r| LazyParts {
                    separations: &r.separations,
                })
                .collect();
            let missing = self.unseparated_lazily(&parts, &live);
            if missing.is_empty() {
                continue;
            }
            let culprit = records.iter().find(|r| r.store).unwrap_or(&records[0]);
            let names: Vec<String> = missing.iter().copied().map(digit_name).collect();
            let diag = Diagnostic::new(
                Code::RACE,
                culprit.span,
                format!(
                    "this access to `{name}` may race: threads that differ only in {} can reach the same element of `{name}`, which the kernel writes",
                    names.join(" and ")
                ),
            );
            diags.push(match &culprit.data_index {
                Some(value) => data_index_race(diag, value, MemorySpace::Global),
                None => diag
                    .with_note("every access to a written tensor must stay inside its own thread's part: index it by a per-thread range such as `x.slice(s![base..base + 8])` with `base = (cta_id(0) * 256 + thread_id(0)) * 8`, by a grid-stride loop `for i in (cta_id(0) * block_dim(0) + thread_id(0)..n).step_by(grid_dim(0) * block_dim(0))`, or cyclically, `j * 256 + thread_id(0)` in a block of 256 (a period of at least the threads the rank numbers)")
                    .with_help(self.separating_help(&name, &missing)),
            });
        }
        diags
    }

    /// How to separate the threads `missing` names, for a help line: the
    /// rank of each launch axis they differ on
    /// (`cta_id(0) * 256 + thread_id(0)`) and the index patterns that keep
    /// ranks apart. Never a barrier: `bar.sync` orders only the threads of
    /// one CTA, and the rule for global tensors keeps accesses apart
    /// rather than ordered.
    fn separating_help(&self, name: &str, missing: &[Digit]) -> String {
        let mut ranks = Vec::new();
        for axis in 0..3u8 {
            let block = self.launch.block[usize::from(axis)];
            // A missing grid digit needs the rank over the grid; a missing
            // thread digit alone, the rank within the CTA's part.
            if missing.contains(&Digit::Cta(axis))
                || missing.contains(&Digit::Cluster(axis))
                || missing.contains(&Digit::ClusterCta(axis))
            {
                ranks.push(match block {
                    1 => format!("`cta_id({axis})`"),
                    b => format!("`cta_id({axis}) * {b} + thread_id({axis})`"),
                });
            } else if missing.contains(&Digit::Thread(axis)) {
                ranks.push(format!("`thread_id({axis})`"));
            }
        }
        let (rank, each) = match ranks.as_slice() {
            [] => ("its rank".to_string(), ""),
            [one] => (format!("its rank {one}"), ""),
            many => (
                format!("its ranks {}", many.join(" and ")),
                " (each on a tensor axis of its own)",
            ),
        };
        format!(
            "give each thread its own part of `{name}`, indexed by {rank}{each}: `c * rank + r` with `0 <= r < c` (`c` elements per thread), or `rank + p * k` with `p` at least the number of ranks (cyclic, grid-stride)"
        )
    }

    /// The rules of atomicity for a tensor or buffer (`what` is "shared
    /// buffer " or "") only atomics touch: atomics of different sizes are
    /// separated from each other, and (`global`) `.cta`/`.cluster` atomics
    /// across CTAs from every atomic of it.
    pub(crate) fn atomic_races(
        &self,
        name: &str,
        what: &str,
        records: &[RaceAccess<'_>],
        live: &BTreeSet<Digit>,
        global: bool,
    ) -> Vec<Diagnostic> {
        let mut diags = Vec::new();
        // Equal records decide alike: check each kind once.
        let mut unique: Vec<&RaceAccess<'_>> = Vec::new();
        for r in records {
            if !unique.iter().any(|u| u.same_kind(r)) {
                unique.push(r);
            }
        }
        let pair = |a: &RaceAccess<'_>, b: &RaceAccess<'_>, live: &BTreeSet<Digit>| {
            self.unseparated(
                &[(a.separations, a.pinned), (b.separations, b.pinned)],
                live,
            )
        };
        // Different sizes: atomicity holds only between accesses of one
        // size at one address, so another thread's atomic of another size
        // on overlapping bytes is a race.
        'sizes: for (i, a) in unique.iter().enumerate() {
            for b in &unique[..i] {
                if a.atomic.bytes == b.atomic.bytes || self.apart(a, b) {
                    continue;
                }
                let missing = pair(a, b, live);
                if missing.is_empty() {
                    continue;
                }
                let names: Vec<String> = missing.iter().copied().map(digit_name).collect();
                diags.push(
                    Diagnostic::new(
                        Code::ATOMIC_SIZES,
                        a.span,
                        format!(
                            "this {}-byte atomic (`.{}`) on {what}`{name}` may race with a {}-byte atomic (`.{}`) of another thread: threads that differ only in {} can reach overlapping bytes of `{name}`",
                            a.atomic.bytes,
                            a.atomic.ty,
                            b.atomic.bytes,
                            b.atomic.ty,
                            names.join(" and ")
                        ),
                    )
                    .with_note("the PTX memory model makes atomics indivisible only against atomics of the same size at the same address; a `.u32` and a `.u64` atomic on overlapping bytes are a data race")
                    .with_help(format!("use one atomic size for every atomic on `{name}` (`.u64` on `.view::<u64>()` of its bytes, say), or keep the bytes the two sizes update apart between threads (index them by the thread's rank)")),
                );
                break 'sizes;
            }
        }
        if !global {
            return diags;
        }
        // Narrow scopes: atomicity holds only between threads inside the
        // scope of both atomics: one CTA, or one cluster for `.cluster`
        // (whose CTAs differ only in their `cluster_ctaid`).
        let ctas: BTreeSet<Digit> = live.iter().copied().filter(|d| d.in_grid()).collect();
        let clusters: BTreeSet<Digit> = ctas
            .iter()
            .copied()
            .filter(|d| !matches!(d, Digit::ClusterCta(_)))
            .collect();
        'scopes: for a in unique.iter().filter(|r| r.atomic.narrow()) {
            let scope = a.atomic.scope.unwrap_or("cta");
            let cluster = scope == "cluster" && self.launch.clustered();
            let apart_in = if cluster { &clusters } else { &ctas };
            if apart_in.is_empty() {
                continue;
            }
            for b in &unique {
                if self.apart(a, b) {
                    continue;
                }
                let missing = pair(a, b, apart_in);
                if missing.is_empty() {
                    continue;
                }
                let names: Vec<String> = missing
                    .iter()
                    .map(|d| format!("`{}`", digit_name(*d)))
                    .collect();
                diags.push(
                    Diagnostic::new(
                        Code::ATOMIC_SCOPE,
                        a.span,
                        format!(
                            "this `.{scope}` atomic on `{name}` is atomic only among the threads of one {unit}, but threads of different {unit}s (differing in {}) can reach the same element of `{name}`",
                            names.join(" and "),
                            unit = if cluster { "cluster" } else { "CTA" },
                        ),
                    )
                    .with_note(if cluster || scope == "cta" {
                        "a scope narrower than the threads that reach an element makes their atomics a data race"
                    } else {
                        "a scope narrower than the threads that reach an element makes their atomics a data race; this kernel declares no cluster (`cluster = [..]` in the attribute), so each cluster is one CTA and `.cluster` is as narrow as `.cta`"
                    })
                    .with_help(format!(
                        "drop `.{scope}` (the default scope, `.gpu`, covers every CTA of the launch), or give each {} its own elements, indexed by {}",
                        if cluster { "cluster" } else { "CTA" },
                        names.join(" and ")
                    )),
                );
                break 'scopes;
            }
        }
        diags
    }
}

/// One access of a tensor or buffer only atomics touch.
pub(crate) struct RaceAccess<'a> {
    pub span: SpanId,
    pub atomic: Atomic,
    pub separations: &'a [Vec<Separation>],
    pub pinned: &'a [(Digit, i128)],
    pub footprints: &'a [Option<(Poly, i128)>],
}

impl RaceAccess<'_> {
    /// Same atomic, same separations: the rules decide both alike.
    fn same_kind(&self, other: &RaceAccess<'_>) -> bool {
        self.atomic == other.atomic
            && self.separations == other.separations
            && self.pinned == other.pinned
            && self.footprints == other.footprints
    }
}

/// Whether every access has a candidate on `axis` with `candidate`'s rank
/// that keeps threads of different ranks apart from the others': all in
/// their exact form shifted by one offset, or all within one modulus
/// ([`Separation::within_modulus`]) taken from their periods, their
/// constant ranges and the common divisors of two periods.
fn agree<C: Candidates>(
    threads: &Threads<'_>,
    records: &[C],
    axis: usize,
    candidate: &Separation,
) -> bool {
    let mut options: Vec<Vec<&Separation>> = Vec::with_capacity(records.len());
    for record in records {
        let same: Vec<&Separation> = record
            .axis(threads, axis)
            .iter()
            .filter(|s| s.same_rank(candidate))
            .collect();
        if same.is_empty() {
            return false;
        }
        options.push(same);
    }
    let one_offset = options[0]
        .iter()
        .filter(|s| s.period.is_none())
        .any(|first| {
            options[1..].iter().all(|same| {
                same.iter()
                    .any(|s| s.period.is_none() && s.offset == first.offset)
            })
        });
    if one_offset {
        return true;
    }
    let mut moduli: Vec<Poly> = Vec::new();
    let mut contents: Vec<i128> = Vec::new();
    for s in options.iter().flatten() {
        if let Some(q) = &s.period {
            contents.push(q.content());
        }
        let range = s.range.as_const().map(Poly::constant);
        for m in s.period.iter().cloned().chain(range) {
            if !moduli.contains(&m) {
                moduli.push(m);
            }
        }
    }
    // Unrolled accesses repeat a few periods: pair each distinct one once.
    contents.sort_unstable();
    contents.dedup();
    for (i, a) in contents.iter().enumerate() {
        for b in &contents[..i] {
            let m = Poly::constant(gcd(*a, *b));
            if !moduli.contains(&m) {
                moduli.push(m);
            }
        }
    }
    moduli.iter().any(|m| {
        options
            .iter()
            .all(|same| same.iter().any(|s| s.within_modulus(m)))
    })
}

/// The length of the bytes from `view`'s offset that contain every byte it
/// reaches (constant non-negative strides; `None` otherwise or when empty).
pub(crate) fn byte_span(view: &Layout) -> Option<i128> {
    let mut last = 0i128;
    for (len, stride) in view.shape.iter().zip(&view.strides) {
        match (len.as_const()?, stride.as_const()?) {
            (len, stride) if len >= 1 && stride >= 0 => last += (len - 1) * stride,
            _ => return None,
        }
    }
    Some(last + view.dtype.size_bytes() as i128)
}

/// The value `r0` congruent to `constant` modulo `modulus` with `low + r0`
/// in `[0, modulus)`: where a remainder whose smallest value is `low` fits
/// best.
fn residue(constant: i128, modulus: i128, low: i128) -> i128 {
    let low = low.clamp(-(1 << 62), 1 << 62);
    (constant.saturating_add(low)).rem_euclid(modulus) - low
}

/// `0 <= r` and `r + span <= c`.
fn fits(prover: &impl crate::sym::Prove, r: &Poly, c: i128, span: i128) -> bool {
    prover.prove_le0(&r.scale(-1)) && prover.prove_le0(&r.add_const(span - c))
}

/// The positive divisors of `n` (just `n` above 2^32, which no period
/// reaches in practice), in no particular order: from `n`'s prime factors,
/// found by trial division in 64-bit arithmetic.
fn divisors(n: i128) -> Vec<i128> {
    if n > 1 << 32 {
        return vec![n];
    }
    let Ok(mut rest) = u64::try_from(n) else {
        return Vec::new();
    };
    let mut out: Vec<u64> = if rest == 0 { Vec::new() } else { vec![1] };
    let mut p: u64 = 2;
    // Whether `rest` is known prime: checked whenever it changes, so a
    // large prime factor (a grid size's 2^31 - 1) ends the search at once
    // instead of after trial division up to its square root.
    let mut prime = is_prime(rest);
    while rest > 1 {
        if prime || p * p > rest {
            // What remains is prime.
            p = rest;
        }
        let mut power = 0;
        while rest % p == 0 {
            rest /= p;
            power += 1;
        }
        if power > 0 {
            prime = is_prime(rest);
            let smaller = out.len();
            let mut scale = 1;
            for _ in 0..power {
                scale *= p;
                for i in 0..smaller {
                    out.push(out[i] * scale);
                }
            }
        }
        p += if p == 2 { 1 } else { 2 };
    }
    out.into_iter().map(i128::from).collect()
}

/// Whether `n` is prime: Miller-Rabin with the bases 2, 7 and 61, exact
/// below 4,759,123,141 (so for every `u32`; `n` up to 2^32 here).
fn is_prime(n: u64) -> bool {
    if n < 2 {
        return false;
    }
    for p in [2, 3, 5, 7, 11, 13, 61] {
        if n.is_multiple_of(p) {
            return n == p;
        }
    }
    let mul = |a: u64, b: u64| (u128::from(a) * u128::from(b) % u128::from(n)) as u64;
    let pow = |mut base: u64, mut exp: u64| {
        let mut acc = 1u64;
        while exp > 0 {
            if exp & 1 == 1 {
                acc = mul(acc, base);
            }
            base = mul(base, base);
            exp >>= 1;
        }
        acc
    };
    let (mut d, mut s) = (n - 1, 0);
    while d % 2 == 0 {
        d /= 2;
        s += 1;
    }
    [2, 7, 61].iter().all(|&a| {
        let mut x = pow(a, d);
        if x == 1 || x == n - 1 {
            return true;
        }
        for _ in 1..s {
            x = mul(x, x);
            if x == n - 1 {
                return true;
            }
        }
        false
    })
}

/// The race error of an access to `space` whose index was read from a
/// register (`value`): no index pattern separates it, an atomic may share.
pub(crate) fn data_index_race(diag: Diagnostic, value: &str, space: MemorySpace) -> Diagnostic {
    let space = space.ptx_token();
    diag.with_note(format!(
        "its index uses `{value}`, a value read from a register: any thread may hold any value in its range, so the index keeps no two threads apart"
    ))
    .with_help(format!(
        "make the write an atomic (`red.{space}.add.u32`, `atom.{space}.exch.b32`): atomics of one size may share an element"
    ))
}

/// The name of the first value read from a register in `view`'s index.
fn data_index(atoms: &Atoms, view: &Layout) -> Option<String> {
    view.offset
        .atoms()
        .into_iter()
        .chain(view.strides.iter().flat_map(Poly::atoms))
        .find(|atom| matches!(atoms.get(*atom).kind, AtomKind::Register { .. }))
        .map(|atom| atoms.get(atom).name.clone())
}

/// What the race obligation reads besides the checked body.
pub(crate) struct Context<'a, 't> {
    pub threads: &'a Threads<'t>,
    pub params: &'a [ProgramParam],
    /// The name of each shared buffer, by index.
    pub shared_names: &'a [String],
    /// In a kernel with a cluster, the executing CTA's rank in it
    /// (`cluster_ctarank()`): where its own shared accesses land among
    /// the cluster's copies of a buffer.
    pub cluster_rank: Option<&'a Poly>,
    /// The facts every thread of the launch holds, and so every access is
    /// under: the launch shape's (`256 * cta_id(1) < M` for a grid of
    /// `ceil_div(M, 256)`).
    pub kernel_facts: &'a [Fact],
}

/// The race obligation over the checked body: global tensors
/// ([`Threads::global_races`]) and shared buffers by barrier epoch
/// (`shared_races`). An apply whose own obligations failed is skipped (its
/// error is the one to fix).
pub(crate) fn prove(body: &[Node], context: &Context<'_, '_>) -> Vec<Diagnostic> {
    let mut remote = BTreeSet::new();
    remote_buffers(body, &mut remote);
    let mut walk = RaceWalk {
        threads: context.threads,
        kernel_facts: context.threads.under(context.kernel_facts),
        global: Vec::new(),
        shared: Vec::new(),
        epochs: Epochs::default(),
        remote,
        cluster_rank: context.cluster_rank,
        cluster_shared: Vec::new(),
        cluster_epochs: Epochs::default(),
        diags: Vec::new(),
        shared_names: context.shared_names,
    };
    walk.block(body);
    let mut diags = std::mem::take(&mut walk.diags);
    diags.extend(context.threads.global_races(context.params, &walk.global));
    diags.extend(shared_races::prove(
        context.threads,
        &walk.shared,
        &mut walk.epochs,
        context.shared_names,
        Domain::Cta,
    ));
    // A remote access with no cluster barrier before or after it is the
    // mistake to fix first: the races across CTAs it makes are its
    // consequences (one mistake, one error).
    let multicast = context.cluster_rank.is_some() && super::cluster_rings::has_multicast(body);
    let lifetime = if walk.remote.is_empty() && !multicast {
        Vec::new()
    } else {
        super::remote_lifetime::prove(body)
    };
    if lifetime.is_empty() {
        diags.extend(shared_races::prove(
            context.threads,
            &walk.cluster_shared,
            &mut walk.cluster_epochs,
            context.shared_names,
            Domain::Cluster,
        ));
    }
    diags.extend(lifetime);
    diags
}

/// The shared buffers some access of `nodes` reaches in another CTA
/// (`.in_cta`).
fn remote_buffers(nodes: &[Node], out: &mut BTreeSet<usize>) {
    for node in nodes {
        match node {
            Node::Apply(apply) => {
                for operand in &apply.operands {
                    if let Value::Memory {
                        buffer,
                        cta: Some(_),
                        ..
                    } = &operand.value
                    {
                        out.insert(buffer.index);
                    }
                }
            }
            Node::If {
                then, otherwise, ..
            } => {
                remote_buffers(then, out);
                remote_buffers(otherwise, out);
            }
            Node::Loop(looped) => remote_buffers(&looped.body, out),
            Node::Define(_) | Node::Havoc(_) | Node::CondRead(_) | Node::CtaBarrier { .. } => {}
        }
    }
}

/// Collects every memory access with the ways it separates threads, and the
/// barrier epoch of each shared one.
struct RaceWalk<'c, 't> {
    threads: &'c Threads<'t>,
    /// The fact set of [`Context::kernel_facts`].
    kernel_facts: Rc<FactSet<'t>>,
    global: Vec<AccessRecord<'t>>,
    shared: Vec<SharedAccess<'t>>,
    epochs: Epochs,
    /// The shared buffers other CTAs reach ([`remote_buffers`]): their
    /// accesses are held to the cluster's rule (`cluster_shared`, by
    /// cluster barrier epoch), not the CTA's.
    remote: BTreeSet<usize>,
    cluster_rank: Option<&'c Poly>,
    cluster_shared: Vec<SharedAccess<'t>>,
    cluster_epochs: Epochs,
    diags: Vec<Diagnostic>,
    shared_names: &'c [String],
}

impl RaceWalk<'_, '_> {
    fn block(&mut self, body: &[Node]) {
        for node in body {
            match node {
                Node::Apply(apply) if apply.own_proofs_hold => self.apply(apply),
                Node::CtaBarrier { cluster } => {
                    self.epochs.barrier();
                    if *cluster {
                        self.cluster_epochs.barrier();
                    }
                }
                Node::If {
                    cond: Some(_),
                    then,
                    otherwise,
                } => {
                    let start = self.epochs.current;
                    let cluster_start = self.cluster_epochs.current;
                    self.block(then);
                    let then_end = self.epochs.current;
                    let cluster_then_end = self.cluster_epochs.current;
                    self.epochs.current = start;
                    self.cluster_epochs.current = cluster_start;
                    self.block(otherwise);
                    // One epoch from the join on.
                    let current = self.epochs.current;
                    self.epochs.merge(then_end, current);
                    let current = self.cluster_epochs.current;
                    self.cluster_epochs.merge(cluster_then_end, current);
                }
                // A condition that failed to check: both arms in sequence.
                Node::If {
                    cond: None,
                    then,
                    otherwise,
                } => {
                    self.block(then);
                    self.block(otherwise);
                }
                Node::Loop(looped) => {
                    let start = self.epochs.current;
                    let cluster_start = self.cluster_epochs.current;
                    self.block(&looped.body);
                    // The last segment of an iteration runs before the next
                    // one's first barrier, and the code after the loop
                    // follows the last iteration.
                    if looped.header.is_some() {
                        let current = self.epochs.current;
                        self.epochs.merge(start, current);
                        let current = self.cluster_epochs.current;
                        self.cluster_epochs.merge(cluster_start, current);
                    }
                }
                Node::Apply(_) | Node::Define(_) | Node::Havoc(_) | Node::CondRead(_) => {}
            }
        }
    }

    fn apply(&mut self, apply: &Apply) {
        for operand in &apply.operands {
            let Value::Memory {
                buffer, view, cta, ..
            } = &operand.value
            else {
                continue;
            };
            let store = operand.slot.access == Access::Write;
            let reached_remotely =
                buffer.space == MemorySpace::Shared && self.remote.contains(&buffer.index);
            // An asynchronous copy's shared destination or source is the
            // async ownership obligation's (`async_copies`): its bytes are
            // written or read between issue and wait, not in one epoch.
            // So are a `wgmma`'s matrices, read from its issue to its wait.
            // That walk follows one CTA's threads: a buffer other CTAs
            // reach may not be one.
            if buffer.space == MemorySpace::Shared
                && (apply.form.effect() == Effect::AsyncCopy
                    || operand.slot.descriptor
                    || operand.slot.mbarrier)
            {
                // mbarrier objects other CTAs arrive on are the cluster
                // ring proof's (`super::cluster_rings`).
                if reached_remotely && !operand.slot.mbarrier {
                    let name = &self.shared_names[buffer.index];
                    self.diags.push(
                        Diagnostic::new(
                            Code::REMOTE_SHARED_FORM,
                            operand.span,
                            format!("`{}` cannot reach shared buffer `{name}`, which other CTAs of the cluster reach (`.in_cta`)", apply.opcode),
                        )
                        .with_note("asynchronous copies, mbarriers and wgmma matrices are proven for the threads of one CTA: a buffer they use is the CTA's own")
                        .with_help(format!("copy into a buffer no other CTA reaches, and share another one through `.in_cta`, not `{name}`")),
                    );
                }
                continue;
            }
            let atomic = atomic_of(&apply.form);
            let facts = self.threads.under(&apply.facts);
            // A cluster buffer's access lands at its target CTA's copy.
            let placed = match (reached_remotely, cta.as_ref().or(self.cluster_rank)) {
                (true, Some(rank)) => Some(shared_races::cluster_view(view, rank)),
                _ => None,
            };
            let view = placed.as_ref().unwrap_or(view);
            let separations = Rc::new(Threads::separations(
                view,
                facts,
                Some(Rc::clone(&self.kernel_facts)),
            ));
            let footprints = self.threads.uniform_footprints(view);
            let data_index = data_index(self.threads.atoms, view);
            match buffer.space {
                MemorySpace::Shared if reached_remotely => self.cluster_shared.push(SharedAccess {
                    buffer: buffer.index,
                    span: operand.span,
                    store,
                    atomic,
                    epoch: self.cluster_epochs.current,
                    separations,
                    footprints,
                    data_index,
                }),
                MemorySpace::Shared => self.shared.push(SharedAccess {
                    buffer: buffer.index,
                    span: operand.span,
                    store,
                    atomic,
                    epoch: self.epochs.current,
                    separations,
                    footprints,
                    data_index,
                }),
                MemorySpace::Global => self.global.push(AccessRecord {
                    param: buffer.index,
                    span: operand.span,
                    store,
                    // `ldu` also needs data that stays read-only.
                    non_coherent: apply.form.effect() == Effect::Load { non_coherent: true }
                        || (operand.slot.kind == OperandKind::TensorCoords && !store),
                    tensor_map: operand.slot.kind == OperandKind::TensorCoords,
                    async_store: store && apply.form.effect() == Effect::AsyncCopy,
                    atomic,
                    separations,
                    footprints,
                    data_index,
                }),
            }
        }
    }
}

/// A polynomial of thread digits, ready to evaluate at each thread of a
/// block ([`Threads::thread_poly`]).
struct ThreadPoly<'p> {
    poly: &'p Poly,
    /// `poly`'s atoms, sorted.
    atoms: Vec<AtomId>,
    /// Where each atom's value comes from; `None` where some atom's does
    /// not come from the thread alone (a grid digit, a parameter, a
    /// register), so the polynomial has no value at any thread.
    sources: Option<Vec<AtomSource<'p>>>,
}

/// Where a [`ThreadPoly`]'s atom gets its value at a thread.
enum AtomSource<'p> {
    /// A digit of the thread's index within the block.
    Digit(Digit),
    /// An operation on two polynomials of thread digits (`t / 32`).
    Computed(ComputedOp, Box<ThreadPoly<'p>>, Box<ThreadPoly<'p>>),
}

impl ThreadPoly<'_> {
    /// The polynomial at thread `l` of a `[bx, by, _]` block (`None` where
    /// it depends on more than the thread, or an operation has no value
    /// there). `values` is room reused between calls.
    fn value(&self, l: usize, bx: usize, by: usize, values: &mut Vec<i128>) -> Option<i128> {
        let sources = self.sources.as_ref()?;
        let from = values.len();
        let mut all = true;
        for source in sources {
            let value = match source {
                AtomSource::Digit(digit) => i128::try_from(digit_value(*digit, l, bx, by)).ok(),
                // The second operand is not evaluated where the first
                // has no value.
                AtomSource::Computed(op, a, b) => a
                    .value(l, bx, by, values)
                    .and_then(|a| op.fold(a, b.value(l, bx, by, values)?)),
            };
            match value {
                Some(value) => values.push(value),
                None => {
                    all = false;
                    break;
                }
            }
        }
        let result = if all {
            self.value_of(&values[from..])
        } else {
            None
        };
        values.truncate(from);
        result
    }

    /// The polynomial with each atom at its value (`values`, in the order
    /// of `atoms`).
    fn value_of(&self, values: &[i128]) -> Option<i128> {
        // `atoms` is sorted: each atom's value by a binary search.
        let value_of = |atom: AtomId| {
            values[self
                .atoms
                .binary_search(&atom)
                .expect("every atom of `poly` has a value")]
        };
        if let Some(exact) = self.poly.value_at(value_of) {
            return Some(exact);
        }
        // Where arithmetic may saturate, the substitutions themselves (what
        // `value_at` equals wherever it answers).
        let mut known = self.poly.clone();
        for (&atom, &value) in self.atoms.iter().zip(values) {
            known = known.substitute(atom, &Poly::constant(value));
        }
        known.as_const()
    }
}

/// The largest table [`determined_densely`] keeps: one `u32` per
/// combined value of the keyed digits (the product of their bounds).
const DENSE_KEYS: usize = 1 << 16;

/// Whether, over the threads `members` (linear indices) of a block `[bx,
/// by, _]` of `count` threads, the value of `digit` is a function of the
/// values of the `keyed` digits ([`Threads::covers`]): the keyed values
/// read as one number in mixed radix (each digit's [`digit_bound`]), the
/// first value of `digit` seen per number kept in a table. `None` where
/// those numbers would not fit [`DENSE_KEYS`] (the caller then keys a map
/// by the values themselves). Written for a build without optimizations
/// (the macro's default), where hashing a vector of values per thread
/// into a `std` map cost thousands of instructions a thread.
fn determined_densely(
    members: &[usize],
    keyed: &[Digit],
    digit: Digit,
    [bx, by, count]: [usize; 3],
) -> Option<bool> {
    let mut radices = Vec::with_capacity(keyed.len());
    let mut numbers = 1usize;
    for &d in keyed {
        let bound = digit_bound(d, bx, by, count);
        radices.push(bound);
        numbers = numbers.checked_mul(bound).filter(|&n| n <= DENSE_KEYS)?;
    }
    let mut first = vec![u32::MAX; numbers];
    for &l in members {
        let mut number = 0;
        for (&d, &radix) in keyed.iter().zip(&radices) {
            let value = digit_value(d, l, bx, by);
            if value >= radix {
                return None;
            }
            number = number * radix + value;
        }
        let value = u32::try_from(digit_value(digit, l, bx, by)).ok()?;
        let seen = &mut first[number];
        if *seen == u32::MAX {
            *seen = value;
        } else if *seen != value {
            return Some(false);
        }
    }
    Some(true)
}

/// A bound on a thread digit's values in a block `[bx, by, _]` of `count`
/// threads: every [`digit_value`] at a thread below `count` is below it.
fn digit_bound(digit: Digit, bx: usize, by: usize, count: usize) -> usize {
    match digit {
        Digit::Thread(0) => bx,
        Digit::Thread(1) => by,
        Digit::Thread(_) => count.div_ceil(bx * by),
        Digit::Lane => 32,
        Digit::Warp => count.div_ceil(32),
        Digit::WarpInGroup => 4,
        Digit::Warpgroup => count.div_ceil(128),
        Digit::LaneField { bits, .. } => 1usize.checked_shl(u32::from(bits)).unwrap_or(usize::MAX),
        Digit::Cta(_) | Digit::Cluster(_) | Digit::ClusterCta(_) => 1,
    }
}

/// The value of a thread digit at thread `l` (linear index) of a block
/// `[bx, by, _]`.
fn digit_value(digit: Digit, l: usize, bx: usize, by: usize) -> usize {
    match digit {
        Digit::Thread(0) => l % bx,
        Digit::Thread(1) => (l / bx) % by,
        Digit::Thread(_) => l / (bx * by),
        Digit::Lane => l % 32,
        Digit::Warp => l / 32,
        Digit::WarpInGroup => (l / 32) % 4,
        Digit::Warpgroup => l / 128,
        Digit::LaneField { shift, bits } => ((l % 32) >> shift) & ((1 << bits) - 1),
        Digit::Cta(_) | Digit::Cluster(_) | Digit::ClusterCta(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An access whose axes report ready only once read: the race rule's
    /// early stop ([`Threads::unseparated_by`]) sees them as
    /// [`LazySeparations`] it has not computed yet.
    struct Unread {
        axes: Vec<Vec<Separation>>,
        pinned: Vec<(Digit, i128)>,
        read: RefCell<Vec<bool>>,
    }

    impl Candidates for Unread {
        fn axis_count(&self) -> usize {
            self.axes.len()
        }

        fn ready(&self, axis: usize) -> bool {
            self.read.borrow()[axis]
        }

        fn axis(&self, _: &Threads<'_>, axis: usize) -> &[Separation] {
            self.read.borrow_mut()[axis] = true;
            &self.axes[axis]
        }

        fn pinned(&self, _: &Threads<'_>) -> &[(Digit, i128)] {
            &self.pinned
        }
    }

    /// The launches the property tests below draw from: a `[32, 4, 2]`
    /// block in a `[8, 1, 2]` grid and a `[64, 2, 1]` block in a `[3, 5,
    /// 1]` grid.
    fn sample_launches() -> [Launch; 2] {
        let launch = |grid: [u64; 3], block| Launch {
            grid: grid.map(crate::program::LaunchFormula::constant),
            block,
            max_registers: None,
            cluster: [1, 1, 1],
        };
        [launch([8, 1, 2], [32, 4, 2]), launch([3, 5, 1], [64, 2, 1])]
    }

    /// Digits of every kind, for those tests' random candidates and pins.
    const SAMPLE_DIGITS: [Digit; 10] = [
        Digit::Thread(0),
        Digit::Thread(1),
        Digit::Thread(2),
        Digit::Cta(0),
        Digit::Cta(1),
        Digit::Cta(2),
        Digit::Lane,
        Digit::Warp,
        Digit::LaneField { shift: 2, bits: 3 },
        Digit::LaneField { shift: 0, bits: 2 },
    ];

    /// Reading axes on demand and stopping once the covered digits tell
    /// the threads apart answers as reading every axis does: 5000 random
    /// sets of accesses (1 to 4 accesses, 1 to 4 axes, random candidates
    /// over a block's and a grid's digits, random pinned digits), for
    /// the digits of global and of shared memory.
    #[test]
    fn lazy_axes_answer_as_every_axis() {
        let atoms = Atoms::default();
        let loop_classes = HashMap::new();
        let launches = sample_launches();
        let digits = SAMPLE_DIGITS;
        let mut rng = tile_kernel_testkit::Rng::new(0x6a09_e667_f3bc_c908);
        let (mut stopped, mut races) = (0, 0);
        for case in 0..5000 {
            let launch = &launches[case % 2];
            let threads = Threads {
                atoms: &atoms,
                launch,
                loop_classes: &loop_classes,
                fact_sets: RefCell::default(),
            };
            let live = threads.live_digits(if case % 4 < 2 {
                MemorySpace::Global
            } else {
                MemorySpace::Shared
            });
            let axes = 1 + rng.below(4);
            let candidate = |rng: &mut tile_kernel_testkit::Rng| {
                let mut set = BTreeSet::new();
                for _ in 0..1 + rng.below(3) {
                    set.insert(rng.pick(&digits));
                }
                let rank = Poly::constant(set.len() as i128);
                Separation {
                    digits: set,
                    rank,
                    range: Poly::constant(rng.pick(&[4, 32, 64])),
                    c: rng.pick(&[1, 2]),
                    sign: 1,
                    offset: Poly::constant(rng.pick(&[0, 0, 1])),
                    period: rng
                        .chance(30)
                        .then(|| Poly::constant(rng.pick(&[32, 64, 128]))),
                }
            };
            let records: Vec<Unread> = (0..1 + rng.below(4))
                .map(|_| {
                    let axes: Vec<Vec<Separation>> = (0..axes)
                        .map(|_| (0..rng.below(4)).map(|_| candidate(&mut rng)).collect())
                        .collect();
                    let pinned = (0..rng.below(3))
                        .map(|_| (rng.pick(&digits), rng.pick(&[0, 1]) as i128))
                        .collect();
                    Unread {
                        read: RefCell::new(vec![false; axes.len()]),
                        axes,
                        pinned,
                    }
                })
                .collect();
            let every: Vec<AccessParts<'_>> = records
                .iter()
                .map(|r| (r.axes.as_slice(), r.pinned.as_slice()))
                .collect();
            let expected = threads.unseparated(&every, &live);
            let got = threads.unseparated_by(&records, &live);
            assert_eq!(got, expected, "case {case}");
            if records
                .iter()
                .any(|r| r.read.borrow().iter().any(|read| !read))
            {
                stopped += 1;
            }
            if !expected.is_empty() {
                races += 1;
            }
        }
        // Both outcomes, and stops before the last axis, are common.
        assert!(
            stopped > 500 && races > 500,
            "{stopped} stopped, {races} races"
        );
    }

    /// [`determined_densely`] answers what keying a map by the digits'
    /// values does, and bounds every digit it reads ([`digit_bound`]):
    /// 5000 random keyed digits (every kind, warpgroups too), digits asked
    /// and sets of threads, over blocks of odd and even shapes.
    #[test]
    fn dense_determination_agrees_with_a_map() {
        let blocks = [[32, 4, 2], [64, 2, 1], [384, 1, 1], [96, 3, 5], [7, 5, 3]];
        let digits = [
            Digit::Thread(0),
            Digit::Thread(1),
            Digit::Thread(2),
            Digit::Lane,
            Digit::Warp,
            Digit::WarpInGroup,
            Digit::Warpgroup,
            Digit::LaneField { shift: 2, bits: 3 },
            Digit::LaneField { shift: 0, bits: 2 },
            Digit::Cta(1),
        ];
        let mut rng = tile_kernel_testkit::Rng::new(0x3c6e_f372_fe94_f82b);
        let (mut determined, mut not) = (0, 0);
        for case in 0..5000 {
            let [bx, by, bz] = blocks[case % blocks.len()];
            let count = bx * by * bz;
            for l in 0..count {
                for &d in &digits {
                    assert!(digit_value(d, l, bx, by) < digit_bound(d, bx, by, count));
                }
            }
            // Distinct, in order, as `covers` keys them.
            let keyed: BTreeSet<Digit> = (0..rng.below(4)).map(|_| rng.pick(&digits)).collect();
            let keyed: Vec<Digit> = keyed.into_iter().collect();
            let digit = rng.pick(&digits);
            let step = 1 + rng.below(5);
            let members: Vec<usize> = (rng.below(3)..count).step_by(step).collect();
            let mut seen: HashMap<Vec<usize>, usize> = HashMap::new();
            let expected = members.iter().all(|&l| {
                let key: Vec<usize> = keyed.iter().map(|&d| digit_value(d, l, bx, by)).collect();
                let value = digit_value(digit, l, bx, by);
                *seen.entry(key).or_insert(value) == value
            });
            let numbers: usize = keyed
                .iter()
                .map(|&d| digit_bound(d, bx, by, count))
                .product();
            let got = determined_densely(&members, &keyed, digit, [bx, by, count]);
            if numbers > DENSE_KEYS {
                // Left to the caller's map.
                assert_eq!(got, None, "case {case}");
                continue;
            }
            assert_eq!(got, Some(expected), "case {case}: {keyed:?} {digit:?}");
            if expected {
                determined += 1;
            } else {
                not += 1;
            }
        }
        assert!(
            determined > 1000 && not > 1000,
            "{determined} determined, {not} not"
        );
    }

    /// Pins only help: where the covered digits tell every two threads
    /// apart without pins, they do with any (what lets
    /// [`Threads::unseparated_by`] leave the pins unasked). 5000 random
    /// sets of covered, pinned and live digits over two launches.
    #[test]
    fn pins_never_unseparate_covered_digits() {
        let atoms = Atoms::default();
        let loop_classes = HashMap::new();
        let launches = sample_launches();
        let digits = SAMPLE_DIGITS;
        let mut rng = tile_kernel_testkit::Rng::new(0xbb67_ae85_84ca_a73b);
        let mut separated = 0;
        for case in 0..5000 {
            let threads = Threads {
                atoms: &atoms,
                launch: &launches[case % 2],
                loop_classes: &loop_classes,
                fact_sets: RefCell::default(),
            };
            let live = threads.live_digits(if case % 4 < 2 {
                MemorySpace::Global
            } else {
                MemorySpace::Shared
            });
            let covered: BTreeSet<Digit> = (0..rng.below(5)).map(|_| rng.pick(&digits)).collect();
            let pinned: Vec<(Digit, i128)> = (0..1 + rng.below(3))
                .map(|_| (rng.pick(&digits), rng.pick(&[0, 1, 3]) as i128))
                .collect();
            if threads.covers(&covered, &[], &live).is_empty() {
                separated += 1;
                assert!(
                    threads.covers(&covered, &pinned, &live).is_empty(),
                    "case {case}: {covered:?} pinned {pinned:?}"
                );
            }
        }
        assert!(separated > 200, "{separated} separated without pins");
    }

    /// Whenever [`agree`] accepts a set of accesses of one rank, no two
    /// threads of different ranks reach a common block through them: 20000
    /// random sets of 1 to 3 accesses, each either at a fixed block offset
    /// `k` (`v = rank + k`; its candidates the exact form and/or periods
    /// that divide `k`) or in a loop (`v = rank + q * M`, `M` over -3..=3;
    /// its candidate that period), every period at least its own access's
    /// range as `period_of` gives them. A period found under facts that
    /// narrow one access's range says nothing about another's ranks.
    #[test]
    fn agreed_accesses_never_meet() {
        let atoms = Atoms::default();
        let loop_classes = HashMap::new();
        let launch = Launch {
            grid: [1, 1, 1].map(crate::program::LaunchFormula::constant),
            block: [32, 1, 1],
            max_registers: None,
            cluster: [1, 1, 1],
        };
        let threads = Threads {
            atoms: &atoms,
            launch: &launch,
            loop_classes: &loop_classes,
            fact_sets: RefCell::default(),
        };
        let mut rng = tile_kernel_testkit::Rng::new(0xbb67_ae85_84ca_a73b);
        let (mut agreed, mut refused) = (0, 0);
        for case in 0..20_000 {
            let c = rng.pick(&[1, 2, 4]);
            let form = |range: i128, offset: i128, period: Option<i128>| Separation {
                digits: BTreeSet::from([Digit::Thread(0)]),
                rank: Poly::constant(1),
                range: Poly::constant(range),
                c,
                sign: 1,
                offset: Poly::constant(c * offset),
                period: period.map(Poly::constant),
            };
            // Per access: its candidates, its range and its blocks per rank.
            let mut accesses: Vec<(Vec<Separation>, i128, Vec<i128>)> = Vec::new();
            for _ in 0..1 + rng.below(3) {
                let range = rng.pick(&[1, 2, 3, 4, 8]);
                let multiple = rng.pick(&[1, 2, 4]);
                if rng.chance(30) {
                    let q = range * multiple;
                    let moves = (-3..=3).map(|m| q * m).collect();
                    accesses.push((vec![form(range, 0, Some(q))], range, moves));
                    continue;
                }
                let k = rng.pick(&[0, 1, 2, 3, 4, 8, 16]);
                let mut candidates = Vec::new();
                if rng.chance(70) {
                    candidates.push(form(range, k, None));
                }
                let q = range * multiple;
                if k % q == 0 && (candidates.is_empty() || rng.chance(50)) {
                    candidates.push(form(range, 0, Some(q)));
                }
                if candidates.is_empty() {
                    candidates.push(form(range, k, None));
                }
                accesses.push((candidates, range, vec![k]));
            }
            let records: Vec<AccessParts<'_>> = accesses
                .iter()
                .map(|(axis, _, _)| (std::slice::from_ref(axis), &[][..]))
                .collect();
            if !agree(&threads, &records, 0, &accesses[0].0[0]) {
                refused += 1;
                continue;
            }
            agreed += 1;
            for (i, (_, range_a, moves_a)) in accesses.iter().enumerate() {
                for (_, range_b, moves_b) in &accesses[i..] {
                    for r1 in 0..*range_a {
                        for r2 in (0..*range_b).filter(|r2| *r2 != r1) {
                            let meets = moves_a
                                .iter()
                                .any(|x| moves_b.iter().any(|y| r1 + x == r2 + y));
                            assert!(
                                !meets,
                                "case {case}: ranks {r1} and {r2} meet: {:?}",
                                accesses
                            );
                        }
                    }
                }
            }
        }
        assert!(
            agreed > 2000 && refused > 2000,
            "{agreed} agreed, {refused} refused"
        );
    }

    /// The primality test agrees with trial division.
    #[test]
    fn is_prime_is_trial_division() {
        let naive = |n: u64| {
            n >= 2
                && (2..)
                    .take_while(|d| d * d <= n)
                    .all(|d| !n.is_multiple_of(d))
        };
        let mut rng = tile_kernel_testkit::Rng::new(0x3c6e_f372_fe94_f82b);
        let small = 0..20_000u64;
        let large = (0..2_000).map(|_| rng.next_u64() % (1 << 32));
        let edges = [
            2_147_483_647,
            4_294_967_291,
            4_294_967_295,
            65_521 * 65_519,
            25_326_001,
        ];
        for n in small.chain(large).chain(edges) {
            assert_eq!(is_prime(n), naive(n), "{n}");
        }
    }

    /// The divisors from prime factors are those of trial division by
    /// every candidate (as a set: the periods are sorted after).
    #[test]
    fn divisors_are_every_divisor() {
        let naive = |n: i128| -> Vec<i128> { (1..=n).filter(|d| n % d == 0).collect() };
        let sorted = |n: i128| {
            let mut out = divisors(n);
            out.sort_unstable();
            out
        };
        for n in -3..=3000 {
            assert_eq!(sorted(n), naive(n), "{n}");
        }
        for n in [
            2_147_483_647,
            2 * 2_147_483_647,
            4_294_967_291,
            65_521 * 2,
            65_521 * 65_519,
            1 << 32,
            3 * 5 * 7 * 11 * 13 * 17 * 19 * 23,
        ] {
            let got = sorted(n);
            assert!(got.iter().all(|d| n % d == 0), "{n}");
            let by_pairs = (1..)
                .take_while(|d| d * d <= n)
                .filter(|d| n % d == 0)
                .map(|d| if d * d == n { 1 } else { 2 })
                .sum::<usize>();
            assert_eq!(got.len(), by_pairs, "{n}");
        }
        assert_eq!(divisors((1 << 32) + 1), vec![(1 << 32) + 1]);
    }
}
