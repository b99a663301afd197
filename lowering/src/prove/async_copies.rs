//! The async-ownership obligation: the shared bytes a `cp.async` writes
//! belong to the copy from its issue until a wait retires its group, and
//! to the issuing thread alone until a CTA barrier after that wait.
//!
//! **Model** (PTX ISA, "Data movement: cp.async"): a thread's copies join a
//! group at its next `cp.async.commit_group`; `cp.async.wait_group n` waits
//! until at most the `n` most recent of the thread's committed groups are
//! pending, so a copy is retired there when at least `n + 1` commits ran
//! since it was issued (`cp.async.wait_all` retires every copy, committed
//! or not). A retired copy's bytes are visible to its own thread; other
//! threads see them after a CTA barrier that follows the wait.
//!
//! **The walk** follows one thread of the CTA through the checked body
//! with the set of copies that may be in flight ([`struct@Copy`]), each with the
//! range of commits since its issue (pending) or retired but not yet
//! published by a barrier. An `if` walks both arms and joins them (a copy
//! pending on either path is pending); a `pred` on a wait makes it retire
//! nothing, on a commit it may or may not count. A runtime loop is walked
//! iteration by iteration: while a copy from before the loop is pending (at
//! most the [`Horizon`]'s exact iterations) with the loop variable known
//! (`k = start + j * step`, so a prologue's stage `1` and the first
//! iteration's `k % 3` are told apart), then until the state at the loop head stops changing; a
//! loop that issues, commits and waits for nothing is walked once. At each
//! back edge the pending copies and the accesses of the body are
//! re-expressed in the next iteration's loop variable (`k % 3` of the
//! previous iteration is `(k - 1) % 3`); what depends on the loop is
//! forgotten after the [`Horizon`]'s back edges for a copy (at once for a
//! retired one, whose own bytes the separation engine tells apart),
//! [`TOUCH_SHIFT_LIMIT`] for an access, and at the loop's exit. The
//! mbarrier ticket that released a copy or an access is re-expressed for
//! as many back edges, then kept as it is (overstated: tickets
//! grow with the loop variable), so that the versions the iterations make
//! become equal and the walk converges.
//!
//! **Rules.** An access to shared bytes that a pending copy may write is an
//! error (TK0410: read before the wait, a refill of a stage in flight), as
//! is an access by another thread to bytes a retired copy wrote, before a
//! CTA barrier (TK0411), a store to global bytes a pending copy may still
//! read (TK0413), a copy still pending where the kernel ends (TK0412), and
//! a copy into bytes other threads accessed since the last CTA barrier
//! (TK0414: a stage refilled before its readers are done).
//! Two footprints are apart when on one axis of the buffer their intervals
//! are provably disjoint: by the facts in scope, by the ranges of every
//! thread's indices, or as two remainders `x % m` and `(x + c) % m` with
//! `c` not a multiple of `m` (ring stages). Whether a retired copy's bytes
//! are the accessing thread's own is the separation engine's question
//! (`super::races`).
//!
//! **Stores to global memory** (`cp.async.bulk` and `cp.async.bulk.tensor`
//! from `.shared::cta` to `.global`, completing in bulk groups) are two
//! copies of the walk ([`Role`]): the shared source, owned against writes
//! (not reads) until a `cp.async.bulk.wait_group` of the thread retires its
//! bulk group (`.read` suffices), published to other threads by a CTA
//! barrier after that wait, like a `cp.async` destination; and the global
//! target, until a wait without `.read` retires it, against the thread's
//! later async stores of the same bytes (TK0424; followed for the
//! [`Horizon`]'s iterations of a loop, then dropped). Stores are usually
//! issued and waited for by one thread (`if t == 0`): a commit or wait that
//! every issuing thread runs moves the copy on that arm's path, which the
//! join after an `if` on the thread's index keeps ([`join_arms`]). The
//! generic writes a store's source needs ordered before it are the bulk
//! copy's: a CTA barrier (TK0414) and a `fence.proxy.async` (TK0423).
//!
//! A copy's shared destination is not in the epochs of the shared race
//! obligation (`super::shared_races`): it is written over an interval,
//! which this walk follows. Guarantee: in a kernel this obligation
//! accepts, no access meets a copy's destination bytes before the copy is
//! retired for that thread (for other threads: and published by a
//! barrier), no copy overwrites bytes another thread may still access, and
//! no copy is pending when the kernel ends; no thread writes a store's
//! source before the store's thread waited for it (others: and a barrier
//! followed), and no store's source may still be read when the kernel ends.

use std::rc::Rc;

use crate::checked::{Apply, Loop, Node, Value};
use crate::diag::{Code, Diagnostic, SpanId};
use crate::layout::Layout;
use crate::memory::MemorySpace;
use crate::program::Cond;
use crate::ptx::form::{Access, Effect};
use crate::sym::{AtomId, AtomKind, Atoms, ComputedOp, Fact, Poly, ProofMemo, Prover, WordMap};

use super::convergence::{LoopUniformity, Uniformities};
use super::races::{Digit, Threads, byte_span};
use crate::scope::Uniformity;

mod key_index;
mod mbarriers;
mod separated;
mod thread_sets;
mod wgmma;

use key_index::{IndexKey, KeyIndex};
use mbarriers::{Attachment, Ring, join_rings};
use separated::{PartsInterner, Separated, SeparationSource};
use thread_sets::{
    Meeters, ThreadSet, acquired_by, acquired_no_more, join_acquired, join_acquired_arms,
};

thread_local! {
    /// Runtime loops whose walk on this thread ran to [`ITERATION_LIMIT`]
    /// instead of converging: see [`loops_walked_to_the_limit`].
    static WALKED_TO_THE_LIMIT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many runtime loops the async walk of this thread has walked to
/// its iteration limit (64) since the thread started. The result is sound
/// either way (past the limit everything of the body is forgotten), but
/// each such loop is walked 64 times, the slowest part of expanding a
/// kernel; a walk whose versions of a copy or an access keep differing
/// between iterations ends there. Tests assert that no shipped kernel's
/// loop does.
pub fn loops_walked_to_the_limit() -> u64 {
    WALKED_TO_THE_LIMIT.with(std::cell::Cell::get)
}

/// Adds `hits` to this thread's [`loops_walked_to_the_limit`]: the walk
/// of a large kernel runs on a thread of its own (`crate::parallel`), and
/// the count belongs to the thread that asked for the proof.
pub(crate) fn count_walked_to_the_limit(hits: u64) {
    WALKED_TO_THE_LIMIT.with(|count| count.set(count.get() + hits));
}

/// Iterations of a runtime loop walked with the loop variable's value
/// known, at most: see [`Horizon`].
const EXACT_ITERATIONS: u32 = 10;
/// Back edges after which a copy's loop-dependent indices are forgotten,
/// at most: see [`Horizon`].
const SHIFT_LIMIT: u32 = 12;
/// Back edges after which an access's loop-dependent indices are forgotten.
const TOUCH_SHIFT_LIMIT: u32 = 2;
/// Iterations after which a loop's walk stops (the state has converged
/// long before in any kernel; past it every copy of the body is forgotten).
const ITERATION_LIMIT: u32 = 64;
/// Commits counted exactly: a wait's `n` is at most 255, so more commits
/// than this retire a copy whatever the wait.
const COMMIT_CAP: u32 = 256;

/// How far the walk follows a runtime loop's iterations with indices, set
/// by the kernel's deepest ring of stages, `depth`: the most objects of
/// one mbarrier buffer, or `n + 1` for the largest `wait_group n` (that
/// many groups may be pending at once). A copy issued into a stage
/// completes, and the accesses of a stage are released to its refill,
/// within `depth` iterations in a ring that works; later its stage index
/// names the current iteration's stage again, where a verdict no longer
/// needs the versions told apart. Forgetting indices (or a ticket's
/// re-expression) only widens a footprint, so a shorter horizon can
/// reject a kernel (a ring deeper than the kernel's own counts show) but
/// never accept a wrong one; what it saves is walks of the loop body (a
/// persistent GEMM's loop, 17 walks at the fixed limits, 11 with a
/// 4-stage ring). A ring that advances less than a stage an iteration
/// (a refill every other iteration) keeps its copies longer than its
/// depth: past the horizon their indices are forgotten and an access to
/// another stage is reported as if it met them.
#[derive(Debug, Clone, Copy)]
struct Horizon {
    /// Iterations walked with the loop variable known while a copy from
    /// before the loop is pending: `depth + 1` (a prologue fills at most
    /// `depth` stages, each read by one of the first iterations), at most
    /// [`EXACT_ITERATIONS`].
    exact: u32,
    /// Back edges a pending copy, an access an mbarrier phase released
    /// and a release ticket are re-expressed across: `depth + 2`, at most
    /// [`SHIFT_LIMIT`].
    shifts: u32,
}

impl Horizon {
    /// The horizon of a kernel body (module doc).
    fn of(body: &[Node], mbarriers: &[Option<i128>]) -> Horizon {
        let objects = mbarriers
            .iter()
            .flatten()
            .map(|&n| u32::try_from(n).unwrap_or(u32::MAX));
        let depth = objects.chain(deepest_wait_group(body)).max().unwrap_or(1);
        Horizon {
            exact: depth.saturating_add(1).min(EXACT_ITERATIONS),
            shifts: depth.saturating_add(2).min(SHIFT_LIMIT),
        }
    }
}

/// The largest `n + 1` of the body's `wait_group n`s (`cp.async`, bulk
/// and `wgmma` groups; a count that is not a literal counts as
/// unbounded), if it has any.
fn deepest_wait_group(body: &[Node]) -> Option<u32> {
    body.iter()
        .filter_map(|node| match node {
            Node::Apply(apply) if apply.form.form.mnemonic.ends_with(".wait_group") => {
                Some(wait_count(apply).saturating_add(1))
            }
            Node::If {
                then, otherwise, ..
            } => deepest_wait_group(then).max(deepest_wait_group(otherwise)),
            Node::Loop(looped) => deepest_wait_group(&looped.body),
            _ => None,
        })
        .max()
}

/// The bytes an access reaches, per axis of its buffer, then the flat byte
/// offset: `[start, start + len)`, with `start` possibly differing between
/// threads (its range bounds them all). `None`: anywhere.
/// Shared: the walk copies its state (every copy's and touch's footprint)
/// at each branch and iteration.
type Footprint = Rc<Vec<Option<(Poly, i128)>>>;

/// Where a copy stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    /// Not yet retired: between `lo` and `hi` commits ran since its issue.
    Pending { lo: u32, hi: u32 },
    /// Retired for its own thread; other threads wait for a barrier.
    Retired,
}

/// A copy that may be in flight, or retired but not yet published.
#[derive(Debug, Clone, PartialEq)]
struct Copy<'c> {
    /// The `apply`'s number, opcode and destination span.
    number: usize,
    opcode: Rc<str>,
    span: SpanId,
    buffer: usize,
    /// The destination's bytes, in the current iteration's atoms.
    footprint: Footprint,
    /// The global tensor it reads and the bytes there.
    source: Option<(usize, Footprint)>,
    /// How the destination separates threads (for [`Status::Retired`]):
    /// the candidates a back edge makes stale dropped.
    separated: Separated<'c>,
    status: Status,
    /// The runtime loops around its issue (their first atoms).
    loops: Rc<[AtomId]>,
    /// Back edges crossed since its issue.
    shifts: u32,
    /// The mbarrier ticket a `cp.async.mbarrier.arrive` attached it to,
    /// or the one a bulk copy signals.
    attachment: Option<Attachment>,
    /// What kind of copy this is, and so what retires it.
    role: Role,
    /// The conditions on the thread where it was issued (`if t == 0`).
    issuers: Rc<Vec<Fact>>,
    /// A commit or wait that all its issuing threads ran moved it since
    /// the innermost `if` on the thread's index began: see [`join_arms`].
    issuer_moved: bool,
    /// Facts of the only paths it exists on (`p <= 0` each; empty: every
    /// path): see [`Walk::tag_guarded_arms`].
    exists_if: Rc<Vec<Fact>>,
    /// The threads whose own mbarrier wait acquired its bytes (`None`:
    /// none): complete for them, whatever its status says for the others
    /// (a consumer warpgroup waited; the producer did not).
    acquired: Option<ThreadSet>,
    /// Ordered before the waits on this mbarrier ticket (ring buffer,
    /// ticket): threads that had acquired it arrived on that ticket, so a
    /// wait for it acquires the copy too (a producer's wait on the empty
    /// barrier its consumers arrive on after reading the stage).
    released: Option<(usize, Rc<Poly>)>,
    /// Back edges its release ticket was carried across: see
    /// [`Walk::carry_ticket`].
    ticket_carried: u32,
}

/// The kinds of asynchronous copy the walk follows, by what retires them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// `cp.async` into shared memory: a `cp.async` wait (or the mbarrier
    /// phase a `cp.async.mbarrier.arrive` attached it to).
    CpAsync,
    /// A bulk or tensor copy into shared memory: only its mbarrier's
    /// phase, never a `cp.async` wait.
    Bulk,
    /// The shared bytes a `wgmma.mma_async` reads through its descriptors:
    /// a `wgmma.wait_group` that retires its wgmma group. Only writes meet
    /// it.
    WgmmaSource,
    /// The shared bytes a bulk or tensor store to global memory reads: a
    /// `cp.async.bulk.wait_group` (`.read` or not) that retires its bulk
    /// group. Only writes meet it: reads of the source are no hazard.
    StoreSource,
    /// The global bytes a bulk or tensor store writes: a
    /// `cp.async.bulk.wait_group` without `.read` that retires its bulk
    /// group. Checked against the thread's later stores of those bytes
    /// (two writes of one thread the async proxy may reorder); retired, it
    /// is gone (no other thread reads a tensor async stores write: the
    /// race obligation).
    StoreTarget,
}

impl Role {
    /// Whether `cp.async.bulk.commit_group` and `cp.async.bulk.wait_group`
    /// count this copy (rather than the `cp.async` ones or an mbarrier).
    fn in_bulk_group(self) -> bool {
        matches!(self, Role::StoreSource | Role::StoreTarget)
    }

    /// Whether only writes meet it (an asynchronous read of the bytes).
    fn reads_only(self) -> bool {
        matches!(self, Role::StoreSource | Role::WgmmaSource)
    }
}

impl Copy<'_> {
    /// The same copy on two paths (everything but its status). Versions
    /// released at different tickets stay apart: each is acquired by the
    /// waits for its own.
    fn same(&self, other: &Copy<'_>) -> bool {
        std::ptr::eq(self, other)
            || (self.released == other.released && self.same_but_released(other))
    }

    /// Whether this version of a copy says no more than `other` does (its
    /// status no further along, released at the same ticket or not at
    /// all, acquired by no thread `other` does not name): a loop head
    /// holding it has converged.
    fn covers(&self, other: &Copy<'_>) -> bool {
        self.same(other)
            && (self.released.is_none() || self.released == other.released)
            && acquired_no_more(&self.acquired, &other.acquired)
            && match (self.status, other.status) {
                // Only `lo` decides (a wait retires what at least `n + 1`
                // commits followed): `hi` may grow with every iteration
                // without changing a verdict.
                (Status::Pending { lo, .. }, Status::Pending { lo: l2, .. }) => lo <= l2,
                (Status::Pending { .. }, Status::Retired) => true,
                (Status::Retired, Status::Retired) => true,
                (Status::Retired, Status::Pending { .. }) => false,
            }
    }

    /// What every version of this copy that [`Copy::same_but_released`]
    /// (and so [`Copy::same`]) matches shares: the joins find the
    /// versions to compare by it.
    fn key(&self) -> (usize, u32) {
        (self.number, self.shifts)
    }

    /// [`Copy::same`] but for its release, which the threads of one arm
    /// of an `if` on the thread's index made for the CTA.
    fn same_but_released(&self, other: &Copy<'_>) -> bool {
        if std::ptr::eq(self, other) {
            // One item of a shared list.
            return true;
        }
        self.number == other.number
            && self.span == other.span
            && self.footprint == other.footprint
            && self.source == other.source
            && self.loops == other.loops
            && self.shifts == other.shifts
            && self.attachment == other.attachment
            && self.role == other.role
    }
}

/// A shared access since the last CTA barrier: a copy issued now must not
/// meet it unless it is the copying thread's own.
#[derive(Debug, Clone, PartialEq)]
struct Touch<'c> {
    span: SpanId,
    buffer: usize,
    /// A write (an async read of the bytes meets only writes).
    write: bool,
    footprint: Footprint,
    separated: Separated<'c>,
    loops: Rc<[AtomId]>,
    shifts: u32,
    /// Ordered before the waits on this mbarrier ticket (ring buffer,
    /// ticket): every thread arrived on it after the access.
    released: Option<(usize, Rc<Poly>)>,
    /// Back edges its release ticket was carried across: see
    /// [`Walk::carry_ticket`].
    ticket_carried: u32,
    /// The `wgmma` (statement number, opcode) whose retired read of
    /// matrices this is: no other proof sees it, so the thread's generic
    /// writes are checked against it here too.
    wgmma_read: Option<(usize, Rc<str>)>,
    /// Facts of the only paths it exists on (`p <= 0` each; empty: every
    /// path): see [`Walk::tag_guarded_arms`].
    exists_if: Rc<Vec<Fact>>,
    /// The threads that made it (`None`: not known, so no subset of the
    /// CTA's arrivals releases it).
    makers: Option<ThreadSet>,
    /// The threads whose wait acquired its release (`None`: none): their
    /// later accesses and copies are ordered after it.
    acquired: Option<ThreadSet>,
    /// The makers' warps ran a `bar.warp.sync` after the access: it is
    /// ordered before every later action of each of those warps' lanes,
    /// so one lane's arrival releases it ([`Touch::made_within`]).
    warp_synced: bool,
}

impl Touch<'_> {
    /// The same access on two paths (everything but its release and who
    /// acquired it).
    fn same_access(&self, other: &Touch<'_>) -> bool {
        if std::ptr::eq(self, other) {
            // One item of a shared list.
            return true;
        }
        self.span == other.span
            && self.buffer == other.buffer
            && self.write == other.write
            && self.shifts == other.shifts
            && (Rc::ptr_eq(&self.footprint, &other.footprint) || self.footprint == other.footprint)
            && self.separated == other.separated
            && self.loops == other.loops
            && self.wgmma_read == other.wgmma_read
            && self.exists_if == other.exists_if
            && self.makers == other.makers
    }

    /// What every version of this access that [`Touch::same_access`]
    /// matches shares: the joins find the versions to compare by it.
    fn key(&self) -> (SpanId, u32) {
        (self.span, self.shifts)
    }

    /// Whether the threads that made it are all in `threads` (`false`
    /// where they are not known).
    fn made_within(&self, threads: &ThreadSet) -> bool {
        self.makers
            .as_ref()
            .is_some_and(|m| m.within(threads) || (self.warp_synced && m.warps_meet(threads)))
    }

    /// Whether this version of an access says no more than `other` does
    /// (released no sooner, or not at all; acquired by no thread `other`
    /// does not name): a loop head holding it has converged.
    fn covers(&self, other: &Touch<'_>) -> bool {
        self.same_access(other)
            && released_no_sooner(&self.released, &other.released)
            && acquired_no_more(&self.acquired, &other.acquired)
            && (!self.warp_synced || other.warp_synced)
    }
}

/// A list of a [`State`], shared by the states the walk makes of it (one
/// per arm of an `if`, per iteration of a loop) until one changes it
/// (copy on write, [`Rc::make_mut`]), and so is each item: an arm that
/// leaves a list alone copies none of it, one that changes an item copies
/// the list's pointers and that item, and a join or comparison finds an
/// unchanged list or item by its address ([`same_list`], [`same_item`]).
/// Changed only where something changes.
type Listed<T> = Rc<Vec<Rc<T>>>;

/// Whether two lists are one (the same allocation): then every item is
/// equal, without comparing them.
fn same_list<T>(a: &Listed<T>, b: &Listed<T>) -> bool {
    Rc::ptr_eq(a, b)
}

/// Whether two items are equal: one item (the same allocation), or equal
/// field by field.
fn same_item<T: PartialEq>(a: &Rc<T>, b: &Rc<T>) -> bool {
    Rc::ptr_eq(a, b) || a == b
}

/// Item `at` of `list`, to change: the list, then the item, copied first
/// where shared.
fn item_mut<T: Clone>(list: &mut Listed<T>, at: usize) -> &mut T {
    Rc::make_mut(&mut Rc::make_mut(list)[at])
}

/// `list.retain(keep)`, copying a shared list only where an item goes.
fn retain_listed<T: Clone>(list: &mut Listed<T>, mut keep: impl FnMut(&T) -> bool) {
    if list.iter().all(|item| keep(item)) {
        return;
    }
    Rc::make_mut(list).retain(|item| keep(item));
}

/// `list.extend(more)`, copying a shared list only where there is more.
fn extend_listed<T: Clone>(list: &mut Listed<T>, more: Vec<T>) {
    if !more.is_empty() {
        Rc::make_mut(list).extend(more.into_iter().map(Rc::new));
    }
}

/// `change` of each item of `list` that `picks`, copying the list and
/// those items only where there is one.
fn update_listed<T: Clone>(
    list: &mut Listed<T>,
    picks: impl Fn(&T) -> bool,
    mut change: impl FnMut(&mut T),
) {
    // Each item is asked once: the search for the first picked one ends
    // where the changes start.
    let Some(first) = list.iter().position(|item| picks(item)) else {
        return;
    };
    let items = Rc::make_mut(list);
    change(Rc::make_mut(&mut items[first]));
    for item in &mut items[first + 1..] {
        if picks(item) {
            change(Rc::make_mut(item));
        }
    }
}

/// `version`, or a copy of it `merge` changed (`None` where the merge
/// leaves it as it is: the list's version may be shared, and is kept).
fn merged<T: Clone + PartialEq>(version: &Rc<T>, merge: impl FnOnce(&mut T)) -> Option<Rc<T>> {
    let mut merged = (**version).clone();
    merge(&mut merged);
    (merged != **version).then(|| Rc::new(merged))
}

/// Past this many items to place, the joins index the list they search by
/// key ([`KeyIndex`]); fewer are found by scanning it (what the index
/// would find: the first match in the list's order).
const SCAN_UP_TO: usize = 8;

/// What one thread may have outstanding at a point: its copies, and the
/// shared accesses of the CTA no barrier has ordered yet.
#[derive(Debug, Clone, Default, PartialEq)]
struct State<'c> {
    copies: Listed<Copy<'c>>,
    touches: Listed<Touch<'c>>,
    /// The mbarrier buffers' phases, counted in lock-step (`mbarriers`).
    rings: Vec<Ring>,
    /// Shared buffers accessed through the generic proxy (loads, stores,
    /// atomics, `cp.async`) that no `fence.proxy.async` has ordered for the
    /// async proxy since: a bulk copy into them would not be ordered after
    /// those accesses (a refill landing before an earlier read of the
    /// stage; seen on the H200).
    generic: Vec<GenericAccess>,
    /// The registers of the `wgmma`s in flight, and the fence rule.
    wgmma: wgmma::Registers,
}

/// A shared buffer's generic-proxy accesses, as a later bulk copy into it
/// sees them.
#[derive(Debug, Clone, PartialEq)]
struct GenericAccess {
    buffer: usize,
    /// Whether any of the accesses wrote (an async read of the buffer
    /// meets only writes).
    written: bool,
    /// The conditions on the thread of the `fence.proxy.async` that ran
    /// after the last access (`None`: none ran): a bulk copy issued only
    /// by threads that ran it is ordered after the accesses.
    fenced_by: Option<Vec<Fact>>,
    /// Whether that fence covers the cluster's shared memory (no state
    /// space, or `.shared::cluster`): a multicast copy writes other CTAs'
    /// copies of the buffer, which a `.shared::cta` fence leaves out.
    fenced_cluster: bool,
}

/// The accesses of both paths: unfenced on either, unfenced.
fn join_generic(a: &mut Vec<GenericAccess>, b: Vec<GenericAccess>) {
    for access in b {
        match a.iter_mut().find(|g| g.buffer == access.buffer) {
            Some(found) => {
                if found.fenced_by != access.fenced_by {
                    found.fenced_by = None;
                }
                found.fenced_cluster &= access.fenced_cluster;
                found.written |= access.written;
            }
            None => a.push(access),
        }
    }
}

/// Joins two paths' states: a copy pending on either is pending, with the
/// commit ranges of both; the touches of both.
fn join<'c>(a: State<'c>, b: State<'c>) -> State<'c> {
    join_arms(a, b, false)
}

/// [`join`]; `divergent`: the two states are the arms of an `if` on the
/// thread's index, so where a commit or wait that all of a copy's issuing
/// threads ran moved it in one arm ([`Copy::issuer_moved`]), that arm is
/// its issuers' path and its status there is the copy's (the other arm's
/// threads did not issue it).
fn join_arms<'c>(mut a: State<'c>, b: State<'c>, divergent: bool) -> State<'c> {
    join_copies(&mut a.copies, b.copies, divergent);
    join_touches(&mut a.touches, b.touches);
    join_rings(&mut a.rings, b.rings);
    join_generic(&mut a.generic, b.generic);
    a.wgmma.join(b.wgmma);
    a
}

/// What a join must merge of `more` (one path's copies or touches) into
/// `held` (the other's): the two paths mostly hold the items from before
/// they split, unchanged and in the same order, and an item held as it is
/// on both needs no merge (the join holds it for both paths). `more` past
/// that common prefix; nothing where the two are one list.
fn past_common_prefix<T: PartialEq>(held: &Listed<T>, more: Listed<T>) -> Vec<Rc<T>> {
    if same_list(held, &more) {
        return Vec::new();
    }
    let common = held
        .iter()
        .zip(more.iter())
        .take_while(|(held, item)| same_item(held, item))
        .count();
    match Rc::try_unwrap(more) {
        Ok(mut more) => {
            more.drain(..common);
            more
        }
        Err(shared) => shared[common..].to_vec(),
    }
}

/// The copies of [`join_arms`]: each of `more` merged into the first
/// version of `copies` it is the same copy as (found by the copy's
/// statement number), or added.
fn join_copies<'c>(copies: &mut Listed<Copy<'c>>, more: Listed<Copy<'c>>, divergent: bool) {
    let more = past_common_prefix(copies, more);
    if more.is_empty() {
        return;
    }
    let copies = Rc::make_mut(copies);
    let mut by_key = (more.len() > SCAN_UP_TO).then(|| KeyIndex::of(copies, |c| c.key()));
    for copy in more {
        let same = |c: &Copy<'c>| {
            if divergent {
                c.same_but_released(&copy)
                    && (c.released.is_none()
                        || copy.released.is_none()
                        || c.released == copy.released)
            } else {
                c.same(&copy)
            }
        };
        let key = copy.key();
        let found = match &by_key {
            Some(index) => index.find(&key, |i| same(&copies[i])),
            None => copies.iter().position(|c| c.key() == key && same(c)),
        };
        match found {
            Some(at) => {
                if merge_copy_keeps(&copies[at], &copy, divergent) {
                    continue;
                }
                if let Some(version) = merged(&copies[at], |found| {
                    merge_copy(found, &copy, divergent);
                }) {
                    copies[at] = version;
                }
            }
            None => {
                if let Some(index) = &mut by_key {
                    index.push(key);
                }
                copies.push(copy);
            }
        }
    }
}

/// Whether [`merge_copy`] of `copy` into `found` leaves `found` as it is,
/// told from the fields it changes without copying `found` (most merges
/// at a join are of two equal versions).
fn merge_copy_keeps(found: &Copy<'_>, copy: &Copy<'_>, divergent: bool) -> bool {
    found.status == copy.status
        && found.issuer_moved == copy.issuer_moved
        && found.exists_if == copy.exists_if
        && found.acquired == copy.acquired
        && if divergent {
            // The union of equal sets is the set; a release is taken
            // only where `found` has none.
            found.released.is_some()
                || (copy.released.is_none() && found.ticket_carried == copy.ticket_carried)
        } else {
            // The intersection of equal sets is the set, unless empty.
            found.acquired.as_ref().is_none_or(|a| !a.is_empty())
        }
}

/// Merges `copy` into `found`, its version on the other path
/// ([`join_copies`]).
fn merge_copy<'c>(found: &mut Copy<'c>, copy: &Copy<'c>, divergent: bool) {
    if divergent && found.issuer_moved != copy.issuer_moved {
        if copy.issuer_moved {
            found.status = copy.status;
            found.issuer_moved = true;
        }
    } else {
        found.status = join_status(found.status, copy.status);
        found.issuer_moved |= copy.issuer_moved;
        if found.exists_if != copy.exists_if {
            Rc::make_mut(&mut found.exists_if).retain(|f| copy.exists_if.contains(f));
        }
    }
    if divergent {
        found.acquired = join_acquired_arms(&found.acquired, &copy.acquired);
        if found.released.is_none() {
            found.released = copy.released.clone();
            found.ticket_carried = copy.ticket_carried;
        }
    } else {
        found.acquired = join_acquired(&found.acquired, &copy.acquired);
    }
}

/// Adds `touch` to `touches`, as one entry with a version of the same
/// access whose release it can share ([`later_release`]): released at the
/// later of the two tickets, acquired by the threads both name. Sound for
/// two paths and for the arms of an `if` on the thread's index alike: a
/// touch is checked against an access only through the threads that
/// acquired it, every version must be acquired before it stops meeting a
/// thread's access, and the later ticket is the one the waits must reach
/// (an earlier wait acquires only the earlier version, which the later
/// one still holds back). This keeps the versions that the paths and the
/// iterations of a loop make from piling up. Versions released on
/// different rings, or at tickets no constant apart, stay apart.
fn join_touch<'c>(touches: &mut Listed<Touch<'c>>, touch: Touch<'c>) {
    // A loop over the slice that compares the key's fields first: built
    // without optimizations (the macro's default), a closure call per
    // touch of a list of a hundred was most of an access's cost.
    let list: &[Rc<Touch<'c>>] = touches;
    let mut found = None;
    let mut at = 0;
    while at < list.len() {
        let t = &list[at];
        if t.span.0 == touch.span.0
            && t.shifts == touch.shifts
            && t.same_access(&touch)
            && later_release(&t.released, &touch.released).is_some()
        {
            found = Some(at);
            break;
        }
        at += 1;
    }
    match found {
        Some(at) => {
            if merge_versions_keeps(&touches[at], &touch) {
                return;
            }
            if let Some(version) = merged(&touches[at], |found| merge_versions(found, &touch)) {
                Rc::make_mut(touches)[at] = version;
            }
        }
        None => Rc::make_mut(touches).push(Rc::new(touch)),
    }
}

/// [`join_touch`] of each of `more`, finding the versions to merge by the
/// access's span (a large kernel's walk holds hundreds of touches, and
/// joins them at every `if` and back edge).
fn join_touches<'c>(touches: &mut Listed<Touch<'c>>, more: Listed<Touch<'c>>) {
    let rest = past_common_prefix(touches, more);
    if rest.is_empty() {
        return;
    }
    let touches = Rc::make_mut(touches);
    let mut by_key = (rest.len() > SCAN_UP_TO).then(|| KeyIndex::of(touches, |t| t.key()));
    for touch in rest {
        let key = touch.key();
        let merges = |t: &Touch<'_>| {
            t.same_access(&touch) && later_release(&t.released, &touch.released).is_some()
        };
        let found = match &by_key {
            Some(index) => index.find(&key, |i| merges(&touches[i])),
            None => touches.iter().position(|t| t.key() == key && merges(t)),
        };
        match found {
            Some(at) => {
                if merge_versions_keeps(&touches[at], &touch) {
                    continue;
                }
                if let Some(version) = merged(&touches[at], |found| merge_versions(found, &touch)) {
                    touches[at] = version;
                }
            }
            None => {
                if let Some(index) = &mut by_key {
                    index.push(key);
                }
                touches.push(touch);
            }
        }
    }
}

/// Which release a merge of two versions of one access keeps.
#[derive(Debug, PartialEq)]
enum Later {
    /// Either is not released yet: the merge is not (the makers' next
    /// arrival releases it, later than either).
    Unreleased,
    /// The first's ticket (on the same ring, a constant at or above the
    /// second's).
    First,
    /// The second's ticket.
    Second,
}

/// The release the merge of two versions released at `a` and `b` keeps;
/// `None` where they cannot merge (different rings, or tickets not a
/// constant apart).
fn later_release(a: &Option<(usize, Rc<Poly>)>, b: &Option<(usize, Rc<Poly>)>) -> Option<Later> {
    match (a, b) {
        (None, _) | (_, None) => Some(Later::Unreleased),
        (Some((ring_a, ticket_a)), Some((ring_b, ticket_b))) if ring_a == ring_b => Some(
            if ticket_a == ticket_b || ticket_a.sub(ticket_b).as_const()? >= 0 {
                Later::First
            } else {
                Later::Second
            },
        ),
        _ => None,
    }
}

/// Whether release `a` is no sooner than `b`: not released, or on `b`'s
/// ring at a ticket a constant at or above `b`'s.
fn released_no_sooner(a: &Option<(usize, Rc<Poly>)>, b: &Option<(usize, Rc<Poly>)>) -> bool {
    match (a, b) {
        (None, _) => true,
        (Some((ring_a, ticket_a)), Some((ring_b, ticket_b))) => {
            ring_a == ring_b
                && (ticket_a == ticket_b
                    || ticket_a.sub(ticket_b).as_const().is_some_and(|d| d >= 0))
        }
        (Some(_), None) => false,
    }
}

/// Whether [`merge_versions`] of `other` into `version` leaves `version`
/// as it is (its first case), told without copying `version`.
fn merge_versions_keeps(version: &Touch<'_>, other: &Touch<'_>) -> bool {
    version.released == other.released
        && version.acquired == other.acquired
        && version.acquired.as_ref().is_none_or(|a| !a.is_empty())
        && version.warp_synced == other.warp_synced
        && (version.released.is_some() || version.ticket_carried == 0)
}

/// Merges `other` into `version`, two versions of one access that
/// [`later_release`] can merge.
fn merge_versions<'c>(version: &mut Touch<'c>, other: &Touch<'c>) {
    if version.released == other.released
        && version.acquired == other.acquired
        && version.acquired.as_ref().is_none_or(|a| !a.is_empty())
        && version.warp_synced == other.warp_synced
    {
        // Nothing to merge: the same release (or none: `Unreleased`
        // keeps none), the same acquirers, the same sync.
        if version.released.is_none() {
            version.ticket_carried = 0;
        }
        return;
    }
    match later_release(&version.released, &other.released) {
        Some(Later::Unreleased) => {
            version.released = None;
            version.ticket_carried = 0;
        }
        Some(Later::Second) => {
            version.released = other.released.clone();
            version.ticket_carried = other.ticket_carried;
        }
        Some(Later::First) | None => {}
    }
    version.acquired = join_acquired(&version.acquired, &other.acquired);
    version.warp_synced &= other.warp_synced;
}

/// The copies and touches an arm dropped ([`dropped`]).
type Dropped<'c> = (Vec<Rc<Copy<'c>>>, Vec<Rc<Touch<'c>>>);

/// What one arm of an `if` on the thread's index dropped of the copies
/// into shared memory and the touches from before the `if` (`before`):
/// the items of `before` that `arm` no longer holds. An arm drops such an
/// item only when its threads acquired it and every thread that may meet
/// it had (settled), when every thread did, or where it cannot exist on
/// the arm's path (its facts contradict the arm's), after a mistake
/// already reported, what its wait would have acquired, and an async
/// store's writes its issuer waited for.
fn dropped<'c>(before: &(Listed<Copy<'c>>, Listed<Touch<'c>>), arm: &State<'c>) -> Dropped<'c> {
    let copies = no_longer_held(
        &before.0,
        &arm.copies,
        |c| c.key(),
        |a, c| a.same_but_released(c),
        |c| matches!(c.role, Role::Bulk | Role::CpAsync | Role::StoreTarget),
    );
    let touches = no_longer_held(
        &before.1,
        &arm.touches,
        |t| t.key(),
        |a, t| a.same_access(t),
        |_| true,
    );
    (copies, touches)
}

/// The items of `before` that `counts` and that `arm` has no `same` of
/// ([`held_in`], by `key`): none where the two are one list.
fn no_longer_held<T, K: IndexKey>(
    before: &Listed<T>,
    arm: &Listed<T>,
    key: impl Fn(&T) -> K,
    same: impl Fn(&T, &T) -> bool,
    counts: impl Fn(&T) -> bool,
) -> Vec<Rc<T>> {
    if same_list(before, arm) {
        return Vec::new();
    }
    let held = held_in(before, arm, key, same);
    before
        .iter()
        .zip(held)
        .filter(|(item, held)| counts(item) && !held)
        .map(|(item, _)| Rc::clone(item))
        .collect()
}

/// The other arm's versions of what an arm `dropped` count as acquired
/// by that arm's `threads` too: at the join, each arm's threads acquired
/// what they acquired on their arm ([`join_acquired_arms`]); without this
/// the join would keep the other arm's version alone, as if the dropping
/// arm's threads had not acquired it (a producer warp's wait that settled
/// a stage's copy, before its lane 0 refills the stage).
fn acquire_dropped<'c>(
    keeping: &mut State<'c>,
    dropped: &Dropped<'c>,
    threads: &Option<ThreadSet>,
) {
    // An async store's writes the other arm no longer holds: its issuer
    // waited for them (`cp.async.bulk.wait_group` without `.read`), so
    // they are complete for every thread.
    if dropped.0.iter().any(|c| c.role == Role::StoreTarget) {
        retain_listed(&mut keeping.copies, |c| {
            c.role != Role::StoreTarget
                || !dropped
                    .0
                    .iter()
                    .any(|d| d.role == Role::StoreTarget && d.same_but_released(c))
        });
    }
    let Some(threads) = threads else { return };
    if dropped.0.iter().any(|c| c.role != Role::StoreTarget) {
        acquire_held(
            &mut keeping.copies,
            &dropped.0,
            (|c| c.key(), |d, c| d.same_but_released(c)),
            |c| &mut c.acquired,
            threads,
        );
    }
    if !dropped.1.is_empty() {
        acquire_held(
            &mut keeping.touches,
            &dropped.1,
            (|t| t.key(), |d, t| d.same_access(t)),
            |t| &mut t.acquired,
            threads,
        );
    }
}

/// [`acquire_dropped`] of one list: each item of `keeping` that `dropped`
/// has a `same` of (by `key`) acquired by `threads`.
fn acquire_held<T: Clone, K: IndexKey>(
    keeping: &mut Listed<T>,
    dropped: &[Rc<T>],
    (key, same): (impl Fn(&T) -> K, impl Fn(&T, &T) -> bool),
    acquired: impl Fn(&mut T) -> &mut Option<ThreadSet>,
    threads: &ThreadSet,
) {
    let held = held_in(keeping, dropped, key, same);
    if !held.contains(&true) {
        return;
    }
    for (item, held) in Rc::make_mut(keeping).iter_mut().zip(held) {
        if held {
            thread_sets::acquire(acquired(Rc::make_mut(item)), threads);
        }
    }
}

/// The touches both arms of an `if` on the thread's index hold, one
/// version each (those from before the `if`): whether a touch is released
/// is its makers' doing, so the arm all its makers ran says; each arm's
/// threads acquired what they acquired there. Both arms then hold the
/// merged version, which the join keeps once.
fn merge_role_touches<'c>(
    then_touches: &mut Listed<Touch<'c>>,
    else_touches: &mut Listed<Touch<'c>>,
    then_threads: &Option<ThreadSet>,
    else_threads: &Option<ThreadSet>,
) {
    let made_by = |touch: &Touch<'_>, arm: &Option<ThreadSet>| {
        arm.as_ref().is_some_and(|arm| touch.made_within(arm))
    };
    let by_key = KeyIndex::of(else_touches, |t| t.key());
    for at in 0..then_touches.len() {
        let mine = &then_touches[at];
        let Some(found) = by_key.find(&mine.key(), |i| {
            let t = &else_touches[i];
            t.same_access(mine) && !same_item(t, mine)
        }) else {
            continue;
        };
        let theirs = &else_touches[found];
        let released = if made_by(mine, then_threads) {
            (mine.released.clone(), mine.ticket_carried)
        } else if made_by(theirs, else_threads) {
            (theirs.released.clone(), theirs.ticket_carried)
        } else if mine.released == theirs.released {
            (
                mine.released.clone(),
                mine.ticket_carried.max(theirs.ticket_carried),
            )
        } else {
            continue;
        };
        let acquired = join_acquired_arms(&mine.acquired, &theirs.acquired);
        let mine = item_mut(then_touches, at);
        (mine.released, mine.ticket_carried) = released.clone();
        mine.acquired = acquired.clone();
        let theirs = item_mut(else_touches, found);
        (theirs.released, theirs.ticket_carried) = released;
        theirs.acquired = acquired;
    }
}

fn join_status(a: Status, b: Status) -> Status {
    match (a, b) {
        (Status::Retired, Status::Retired) => Status::Retired,
        (Status::Pending { lo, hi }, Status::Retired)
        | (Status::Retired, Status::Pending { lo, hi }) => Status::Pending { lo, hi: hi.max(lo) },
        (Status::Pending { lo: l1, hi: h1 }, Status::Pending { lo: l2, hi: h2 }) => {
            Status::Pending {
                lo: l1.min(l2),
                hi: h1.max(h2),
            }
        }
    }
}

/// Whether `a` holds everything `b` does (the loop head has converged).
fn subsumes(a: &State, b: &State) -> bool {
    a.rings == b.rings
        && a.wgmma.subsumes(&b.wgmma)
        && b.generic.iter().all(|g| {
            a.generic.iter().any(|f| {
                f.buffer == g.buffer
                    && (f.fenced_by.is_none() || f.fenced_by == g.fenced_by)
                    && (!f.fenced_cluster || g.fenced_cluster)
                    && (f.written || !g.written)
            })
        })
        && held_in(&b.touches, &a.touches, |t| t.key(), |u, t| u.covers(t))
            .into_iter()
            .all(|held| held)
        && held_in(&b.copies, &a.copies, |c| c.key(), |c, copy| c.covers(copy))
            .into_iter()
            .all(|held| held)
}

/// What the obligation reads besides the checked body.
pub(crate) struct Context<'a, 't> {
    pub threads: &'a Threads<'t>,
    /// The name of each shared buffer and each parameter, by index.
    pub shared_names: &'a [String],
    pub param_names: &'a [String],
    /// Per shared buffer: its objects if it holds mbarriers.
    pub mbarriers: &'a [Option<i128>],
    /// Over which threads each runtime loop variable is the same.
    pub loop_uniformity: &'a LoopUniformity,
}

/// Adds to `out` the global tensors (parameter numbers) of every async
/// copy in `body`: its source or its destination.
fn copied_globals(body: &[Node], out: &mut Vec<usize>) {
    for node in body {
        match node {
            Node::Apply(apply) if apply.form.effect() == Effect::AsyncCopy => {
                for operand in &apply.operands {
                    if let Value::Memory { buffer, .. } = &operand.value
                        && buffer.space == MemorySpace::Global
                        && !out.contains(&buffer.index)
                    {
                        out.push(buffer.index);
                    }
                }
            }
            Node::If {
                then, otherwise, ..
            } => {
                copied_globals(then, out);
                copied_globals(otherwise, out);
            }
            Node::Loop(looped) => copied_globals(&looped.body, out),
            _ => {}
        }
    }
}

/// The async-ownership obligation over the checked body (module doc).
pub(crate) fn prove(body: &[Node], context: &Context<'_, '_>) -> Vec<Diagnostic> {
    if !has_copies(body)
        && !any_effect(body, &|e| {
            matches!(e, Effect::Mbarrier | Effect::WarpgroupMma)
        })
    {
        return Vec::new();
    }
    let mut wgmma_tiles = Vec::new();
    wgmma::wgmma_tiles(body, &mut wgmma_tiles);
    let mut async_globals = Vec::new();
    copied_globals(body, &mut async_globals);
    let mut walk = Walk {
        context,
        horizon: Horizon::of(body, context.mbarriers),
        atoms: context.threads.atoms.clone(),
        exact: Vec::new(),
        loops: Vec::new(),
        diags: Vec::new(),
        reported: Vec::new(),
        separations: WordMap::default(),
        parts_interner: Rc::default(),
        footprints: WordMap::default(),
        loop_list: Rc::from([]),
        apart_at: WordMap::default(),
        divergent: 0,
        quiet: 0,
        failed_rings: Vec::new(),
        reported_copies: Vec::new(),
        saw_failed: false,
        proofs: ProofMemo::default(),
        wgmma_tiles,
        passed_over: WordMap::default(),
        walked: WordMap::default(),
        async_globals,
        inert_ifs: WordMap::default(),
        thread_sets: WordMap::default(),
        thread_sets_by_facts: WordMap::default(),
        apply_threads: WordMap::default(),
        arm_threads: WordMap::default(),
        issuer_facts: WordMap::default(),
        issuer_threads: WordMap::default(),
        substituted: WordMap::default(),
        rewrites: Vec::new(),
        meeters: Vec::new(),
        every_thread: ThreadSet::all(0),
        cluster: super::cluster_rings::ClusterRings::of(
            body,
            context.threads.atoms,
            context.threads.launch.cluster,
        ),
        multicast_views: WordMap::default(),
        cluster_barrier_seen: false,
        unpublished_reported: false,
    };
    let block = usize::try_from(walk.block_threads()).unwrap_or(0);
    walk.every_thread = ThreadSet::all(block);
    walk.meeters = vec![Meeters::empty(block); context.shared_names.len()];
    walk.find_meeters(body);
    let start = State {
        rings: walk.rings(),
        wgmma: wgmma::Registers::at_entry(),
        ..State::default()
    };
    let end = walk.block(body, start);
    if let Some(diag) = end.wgmma.never_waited() {
        walk.report(diag);
    }
    // One missing wait, one error: at the first copy still pending.
    let mut pending: Vec<&Rc<Copy>> = end
        .copies
        .iter()
        .filter(|c| {
            matches!(c.status, Status::Pending { .. })
                && !matches!(c.role, Role::StoreTarget | Role::WgmmaSource)
                // A wait of some threads returned: its bytes are in.
                && c.acquired.is_none()
                // One missing wait, one error: reported at an access.
                && !walk.reported_copies.contains(&c.number)
        })
        .collect();
    pending.sort_by_key(|c| c.number);
    pending.dedup_by_key(|c| c.number);
    if let Some(first) = pending.first() {
        let mut diag = Diagnostic::new(
            Code::ASYNC_NEVER_WAITED,
            first.span,
            if first.role == Role::StoreSource {
                format!(
                    "this `{}` (statement {}) may still be reading its shared source when the kernel ends",
                    first.opcode, first.number
                )
            } else {
                format!(
                    "this `{}` (statement {}) may still be in flight when the kernel ends",
                    first.opcode, first.number
                )
            },
        )
        .with_help(match first.role {
            Role::Bulk => "wait for the mbarrier phase its bytes complete before the kernel ends: `apply(ptx[\"mbarrier.try_wait.parity.shared::cta.b64\"], ..)`",
            Role::StoreSource | Role::StoreTarget | Role::WgmmaSource => "commit its bulk group and wait until its source was read before the kernel ends: `apply(ptx[\"cp.async.bulk.commit_group\"])`, then `apply(ptx[\"cp.async.bulk.wait_group.read\"], 0)`",
            Role::CpAsync => "retire it before the kernel ends: `apply(ptx[\"cp.async.wait_all\"])`",
        });
        let others: Vec<String> = pending[1..].iter().map(|c| c.number.to_string()).collect();
        if !others.is_empty() {
            diag = diag.with_note(format!(
                "the copies of statements {} may be in flight there too",
                others.join(", ")
            ));
        }
        walk.report(diag);
    }
    walk.diags
}

/// Whether the body issues, commits or waits for an asynchronous copy.
fn issues_or_waits(body: &[Node]) -> bool {
    any_effect(body, &|e| {
        matches!(
            e,
            Effect::AsyncCopy | Effect::AsyncGroup | Effect::Mbarrier | Effect::WarpgroupMma
        )
    })
}

/// Whether the body issues an asynchronous copy anywhere.
fn has_copies(body: &[Node]) -> bool {
    any_effect(body, &|e| e == Effect::AsyncCopy)
}

/// Whether an `apply` anywhere in the body has an effect `wanted` accepts.
fn any_effect(body: &[Node], wanted: &impl Fn(Effect) -> bool) -> bool {
    body.iter().any(|node| match node {
        Node::Apply(apply) => wanted(apply.form.effect()),
        Node::If {
            then, otherwise, ..
        } => any_effect(then, wanted) || any_effect(otherwise, wanted),
        Node::Loop(looped) => any_effect(&looped.body, wanted),
        _ => false,
    })
}

struct Walk<'c, 't> {
    context: &'c Context<'c, 't>,
    /// How far loops are followed with indices ([`Horizon`]).
    horizon: Horizon,
    /// The kernel's atoms, and the remainders of shifted loop variables
    /// the walk adds.
    atoms: Atoms,
    /// Loops walked at a known iteration: the variable and its value.
    exact: Vec<(AtomId, AtomId, Poly)>,
    /// The first atoms of the runtime loops around the current point.
    loops: Vec<AtomId>,
    diags: Vec<Diagnostic>,
    /// How each memory operand (by its view's address in the checked
    /// body, which the walk does not change) separates threads: the loops
    /// walk a body many times.
    separations: WordMap<usize, Rc<SeparationSource<'c>>>,
    /// The distinct separation parts of those sources.
    parts_interner: Rc<PartsInterner>,
    /// [`footprint`] of each memory operand's view, by the view's address
    /// (as [`Walk::separations`]): every walk of a loop body meets the
    /// same views, and one shared footprint per view lets the versions of
    /// an access compare, and shift ([`Rewrites::footprints_at`]), by
    /// pointer rather than by their polynomials.
    footprints: WordMap<usize, Footprint>,
    /// [`Walk::loops`] as the last touch or copy made took it
    /// ([`Walk::loops_here`]): those made under the same loops share one
    /// list, which compares by pointer.
    loop_list: Rc<[AtomId]>,
    /// [`Walk::apart`] of a copy's footprint and an access's under an
    /// `apply`'s facts ([`Walk::shared_access`]), by the addresses of the
    /// `apply` (in the checked body) and of the two footprints (both held,
    /// so that no other takes their address): each walk of a loop body
    /// asks it again of the same, shared, footprints.
    apart_at: WordMap<(usize, usize, usize), (Footprint, Footprint, bool)>,
    /// Each (span, code) reported once, whichever iteration found it.
    reported: Vec<(SpanId, Code)>,
    /// `if`s on the thread's index around the current point: their arms
    /// run for different threads, one after the other.
    divergent: u32,
    /// Passes that only measure (a loop's phases per iteration): nothing
    /// is reported.
    quiet: u32,
    /// Rings with a reported mistake: what follows from it is not reported.
    failed_rings: Vec<usize>,
    /// Copies reported in flight at an access: not reported again.
    reported_copies: Vec<usize>,
    /// A statement before the current point failed its checks (already
    /// reported): a phase short of bytes may be short of its copy.
    saw_failed: bool,
    /// The prover's answers ([`Walk::prove_le0`]).
    proofs: ProofMemo,
    /// The tiles the kernel's `wgmma`s use ([`wgmma::wgmma_tiles`]).
    wgmma_tiles: Vec<usize>,
    /// Per statement of the body (by its address, fixed while the walk
    /// borrows the body): whether the walk passes over it
    /// ([`Walk::passes_over`]).
    passed_over: WordMap<usize, bool>,
    /// [`Walk::walked_nodes`] per block, by its address (with its length).
    walked: WordMap<usize, (usize, Rc<[usize]>)>,
    /// The global tensors (parameter numbers) the kernel's async copies
    /// read or write ([`copied_globals`]).
    async_globals: Vec<usize>,
    /// [`Walk::inert`] of each `if`'s arms, by the `if`'s address in the
    /// checked body (which the walk does not change).
    inert_ifs: WordMap<usize, bool>,
    /// The threads each set of conditions on the thread admits
    /// ([`Walk::threads_of`]).
    thread_sets: WordMap<Vec<Fact>, Option<ThreadSet>>,
    /// [`Walk::threads_of`] by all the facts it was asked with.
    thread_sets_by_facts: WordMap<Vec<Fact>, Option<ThreadSet>>,
    /// [`Walk::threads_of_apply`] by the `apply`'s address in the checked
    /// body (which the walk does not change): asked at every access to
    /// compare with each touch, the facts need no hashing.
    apply_threads: WordMap<usize, Option<ThreadSet>>,
    /// [`Walk::threads_of_arm`] by the condition's address in the checked
    /// body and the arm.
    arm_threads: WordMap<(usize, bool), Option<ThreadSet>>,
    /// [`Walk::issuers`] by the `apply`'s address: one shared list per
    /// statement.
    issuer_facts: WordMap<usize, Rc<Vec<Fact>>>,
    /// [`Walk::threads_of_issuers`] by the list's address, the list held
    /// (so that no other list takes its address).
    issuer_threads: WordMap<usize, (Rc<Vec<Fact>>, Option<ThreadSet>)>,
    /// [`Walk::substitute`]'s replacement of a body atom (the atom, the
    /// loop variable, what replaces it, the loop's first atom, whether
    /// other body atoms are stale): every back edge re-expresses the same
    /// remainders (`k % 4` of each stage access) again.
    substituted: WordMap<(AtomId, AtomId, Poly, AtomId, bool), Option<Poly>>,
    /// [`Walk::substitute`]'s and [`Walk::shift_footprint`]'s answers per
    /// replacement (loop variable, what replaces it, the loop's first
    /// atom, whether other body atoms are stale): every back edge shifts
    /// the same indices, tickets and footprints again (a footprint `k % 4`
    /// is `(k - 1) % 4` at every iteration's back edge).
    rewrites: Vec<Rewrites>,
    /// Per shared buffer, the threads that may meet an access or a copy
    /// of it later ([`Meeters`]).
    meeters: Vec<Meeters>,
    /// Every thread of the block.
    every_thread: ThreadSet,
    /// The kernel's rings that cross CTAs (`super::cluster_rings`).
    cluster: super::cluster_rings::ClusterRings,
    /// Per multicast copy (by its address): its destination as each
    /// CTA of the cluster writes it, by rank ([`Walk::multicast_views`]),
    /// held so that their addresses key [`Walk::separations`].
    multicast_views: WordMap<usize, Option<Rc<[Layout]>>>,
    /// A cluster barrier came before the current point in the walk.
    cluster_barrier_seen: bool,
    /// A ring other CTAs signal before its inits were published to them
    /// was reported: one mistake (the missing barrier), one error.
    unpublished_reported: bool,
}

/// [`Walk::carry_ticket`]'s answers over one back edge, by the ticket's
/// address: the ticket, whether it names the loop variable, and (once
/// asked) its re-expression.
type CarriedTickets = WordMap<usize, (Rc<Poly>, bool, Option<Option<Rc<Poly>>>)>;

/// The remembered rewrites of one replacement ([`Walk::rewrites`]).
struct Rewrites {
    var: AtomId,
    by: Poly,
    first: AtomId,
    stale_others: bool,
    /// [`Walk::substitute`] of a polynomial.
    polys: WordMap<Poly, Option<Poly>>,
    /// [`Walk::shift_footprint`] of a footprint (by its axes): one shared
    /// result, so that the versions of an access shifted alike keep
    /// sharing it.
    footprints: WordMap<Footprint, Footprint>,
    /// [`Rewrites::footprints`] by the footprint's address (the footprint
    /// held, so that no other takes its address): the versions of an
    /// access share theirs.
    footprints_at: WordMap<usize, (Footprint, Footprint)>,
    /// [`Walk::shift_facts`] of a list of path facts.
    facts: WordMap<Rc<Vec<Fact>>, Rc<Vec<Fact>>>,
}

impl<'c> Walk<'c, '_> {
    /// The index in [`Walk::rewrites`] of one replacement's answers.
    fn rewrites_of(&mut self, var: AtomId, by: &Poly, first: AtomId, stale_others: bool) -> usize {
        if let Some(i) = self.rewrites.iter().position(|r| {
            r.var == var && r.first == first && r.stale_others == stale_others && r.by == *by
        }) {
            return i;
        }
        self.rewrites.push(Rewrites {
            var,
            by: by.clone(),
            first,
            stale_others,
            polys: WordMap::default(),
            footprints: WordMap::default(),
            footprints_at: WordMap::default(),
            facts: WordMap::default(),
        });
        self.rewrites.len() - 1
    }

    fn report(&mut self, diag: Diagnostic) {
        if self.quiet > 0 {
            return;
        }
        if !self.reported.contains(&(diag.span, diag.code)) {
            self.reported.push((diag.span, diag.code));
            self.diags.push(diag);
        }
    }

    fn block(&mut self, body: &[Node], mut state: State<'c>) -> State<'c> {
        let walked = self.walked_nodes(body);
        for &at in walked.iter() {
            let node = &body[at];
            state = match node {
                Node::Apply(apply) if apply.own_proofs_hold => self.apply(apply, state),
                Node::Apply(_) | Node::Havoc(_) => {
                    self.saw_failed = true;
                    state
                }
                Node::CtaBarrier { cluster } => {
                    retain_listed(&mut state.copies, |c| c.status != Status::Retired);
                    if !state.touches.is_empty() {
                        state.touches = Listed::default();
                    }
                    if *cluster {
                        self.cluster_barrier_seen = true;
                        // Every CTA passed its fenced inits: other CTAs
                        // may signal those objects from here on.
                        for ring in &mut state.rings {
                            ring.cluster_published |= ring.init_fenced_for_cluster;
                        }
                    }
                    state
                }
                // A constant condition: only its arm runs (lowering
                // emits no other).
                Node::If {
                    cond: Some(Cond::Const(holds)),
                    then,
                    otherwise,
                } => self.block(if *holds { then } else { otherwise }, state),
                // Arms that change nothing the walk follows: the state
                // after the `if` is the one before it, whichever threads
                // run which arm (walking them would join two copies of it).
                Node::If {
                    cond: Some(_),
                    then,
                    otherwise,
                } if self.inert_if(node, then, otherwise) => state,
                Node::If {
                    cond: Some(cond),
                    then,
                    otherwise,
                } if self.on_thread(cond) => {
                    // Different threads run the arms, one after the other:
                    // the phases the first completes are complete for the
                    // second; copies and accesses of either may be this
                    // thread's.
                    self.divergent += 1;
                    // Which copies the issuers' group operations moved is
                    // asked per `if`: the outer `if`'s answer comes back
                    // after the join.
                    let moved: Vec<Rc<Copy>> = state
                        .copies
                        .iter()
                        .filter(|c| c.issuer_moved)
                        .cloned()
                        .collect();
                    let mut state = state;
                    // (Nothing to update where none moved, most `if`s.)
                    if !moved.is_empty() {
                        update_listed(
                            &mut state.copies,
                            |c| c.issuer_moved,
                            |c| c.issuer_moved = false,
                        );
                    }
                    let before = (state.copies.clone(), state.touches.clone());
                    let mut then_state = self.block(then, state.clone());
                    let mut else_state = self.block(
                        otherwise,
                        State {
                            rings: then_state.rings.clone(),
                            ..state
                        },
                    );
                    self.divergent -= 1;
                    let then_threads = self.threads_of_arm(cond, true);
                    let else_threads = self.threads_of_arm(cond, false);
                    let then_dropped = dropped(&before, &then_state);
                    let else_dropped = dropped(&before, &else_state);
                    acquire_dropped(&mut else_state, &then_dropped, &then_threads);
                    acquire_dropped(&mut then_state, &else_dropped, &else_threads);
                    then_state.wgmma.keep_issued_by(&then_threads);
                    else_state.wgmma.keep_issued_by(&else_threads);
                    self.keep_matrix_reads_issued_by(&mut then_state, &then_threads);
                    self.keep_matrix_reads_issued_by(&mut else_state, &else_threads);
                    merge_role_touches(
                        &mut then_state.touches,
                        &mut else_state.touches,
                        &then_threads,
                        &else_threads,
                    );
                    let rings = else_state.rings.clone();
                    let mut joined = join_arms(then_state, else_state, true);
                    if !moved.is_empty() {
                        update_listed(
                            &mut joined.copies,
                            |c| !c.issuer_moved && moved.iter().any(|m| m.same(c)),
                            |c| c.issuer_moved = true,
                        );
                    }
                    State { rings, ..joined }
                }
                Node::If {
                    cond: Some(cond),
                    then,
                    otherwise,
                } => {
                    let mut then_state = self.block(then, state.clone());
                    let mut else_state = self.block(otherwise, state);
                    // A refill under a tail guard: its tickets counted on
                    // both paths, those it may skip virtual.
                    if self.virtual_join(&mut then_state.rings, &mut else_state.rings, cond) {
                        tag_guarded_arms(&mut then_state, &mut else_state, cond);
                    }
                    join(then_state, else_state)
                }
                Node::If {
                    cond: None,
                    then,
                    otherwise,
                } => {
                    let state = self.block(then, state);
                    self.block(otherwise, state)
                }
                Node::Loop(looped) => self.looped(looped, state),
                Node::Define(_) | Node::CondRead(_) => state,
            };
        }
        state
    }

    /// A runtime loop (module doc): iteration by iteration until the head
    /// converges; the state after it joins every iteration's exit (and the
    /// entry: the loop may not run).
    fn looped(&mut self, looped: &Loop, entry: State<'c>) -> State<'c> {
        let Some(header) = &looped.header else {
            // Bounds that failed to check: one pass, its error is the one
            // to fix.
            return self.block(&looped.body, entry);
        };
        if !issues_or_waits(&looped.body) {
            // No copy changes in the body: one pass with the loop variable
            // unknown checks every iteration, and what it leaves behind
            // only matters once the loop is forgotten.
            self.loops.push(looped.first_atom);
            let end = self.block(&looped.body, entry.clone());
            self.loops.pop();
            return forget_state(join(entry, end), looped.first_atom);
        }
        // Each ring's tickets at the head of iteration `k`: `F0 + d * (k -
        // start)`, with `d` measured on a silent pass.
        // Bounds that differ between threads: threads run different
        // iterations, which the lock-step count cannot follow.
        let divergent = [&header.start, &header.end, &header.step]
            .iter()
            .any(|p| self.differs_in_cta(p));
        if divergent {
            self.divergent += 1;
        }
        let (entry, exit_rings) = self.ring_heads(looped, header, entry);
        let state = self.looped_iterations(looped, header, entry);
        if divergent {
            self.divergent -= 1;
        }
        State {
            rings: exit_rings,
            ..state
        }
    }

    /// The iterations of a runtime loop that issues, commits or waits for
    /// copies or mbarrier phases, to a fixpoint (module doc); the state
    /// after it, its rings as the last iteration left them.
    fn looped_iterations(
        &mut self,
        looped: &Loop,
        header: &crate::checked::LoopHeader,
        entry: State<'c>,
    ) -> State<'c> {
        self.loops.push(looped.first_atom);
        let first = looped.first_atom;
        // Not entered: where the range is empty.
        let mut exits = entry.clone();
        let empty = header.end.sub(&header.start);
        prune_copies_and_touches(self, &mut exits, &[empty]);
        let mut head = entry;
        let mut exact = true;
        for j in 0..ITERATION_LIMIT {
            // Known iterations only tell a copy still pending from before
            // the loop (a prologue's stage 1) apart from the body's indices
            // (`j % 3` at `j = 0`): once none is left, the fixpoint.
            exact = exact
                && j < self.horizon.exact
                && head.copies.iter().any(|c| {
                    !c.loops.contains(&first) && matches!(c.status, Status::Pending { .. })
                });
            if exact {
                let value = header.start.add(&header.step.scale(i128::from(j)));
                self.exact.push((header.var, looped.first_atom, value));
            }
            // Walked at a known value, the next head is the back edge's
            // alone: the body may take this one.
            let end = if exact {
                self.block(&looped.body, std::mem::take(&mut head))
            } else {
                self.block(&looped.body, head.clone())
            };
            if exact {
                self.exact.pop();
            }
            let mut leaving = end.clone();
            let known = exact.then(|| header.start.add(&header.step.scale(i128::from(j))));
            self.prune_at_exit(&mut leaving, header, known);
            exits = join(exits, leaving);
            let next = self.back_edge(
                end,
                looped,
                header.var,
                &header.step,
                j + 1 >= ITERATION_LIMIT,
            );
            if !exact && subsumes(&head, &next) {
                break;
            }
            if j + 1 == ITERATION_LIMIT {
                WALKED_TO_THE_LIMIT.with(|hits| hits.set(hits.get() + 1));
            }
            head = if exact { next } else { join(head, next) };
        }
        self.loops.pop();
        // After the loop its variable means nothing: forget what depends on
        // it.
        forget_state(exits, first)
    }

    /// The state at a runtime loop's head with each ring's tickets counted
    /// per iteration, and the rings after the loop (`None` tickets where the
    /// iterations do not complete a constant number, or the loop's trip
    /// count is not known).
    fn ring_heads(
        &mut self,
        looped: &Loop,
        header: &crate::checked::LoopHeader,
        mut entry: State<'c>,
    ) -> (State<'c>, Vec<Ring>) {
        if !any_effect(&looped.body, &|e| e == Effect::Mbarrier) || entry.rings.is_empty() {
            let rings = entry.rings.clone();
            return (entry, rings);
        }
        self.quiet += 1;
        self.loops.push(looped.first_atom);
        let end = self.block(&looped.body, entry.clone());
        self.loops.pop();
        self.quiet -= 1;
        let var = Poly::atom(header.var);
        let unit_step = header.step.as_const() == Some(1);
        let prover = Prover {
            atoms: &self.atoms,
            facts: &[],
        };
        let trips = prover
            .le(&header.start, &header.end)
            .then(|| header.end.sub(&header.start));
        let mut exits = entry.rings.clone();
        for (ring, exit) in entry.rings.iter_mut().zip(exits.iter_mut()) {
            let after = end.rings.iter().find(|r| r.buffer == ring.buffer);
            let per_iteration = match (&ring.completed, after) {
                (Some(before), Some(after)) if after.same_progress(ring) => after
                    .completed
                    .as_ref()
                    .and_then(|c| c.sub(before).as_const()),
                _ => None,
            };
            match (per_iteration, &ring.completed) {
                (Some(0), _) => {}
                (Some(d), Some(before)) if unit_step => {
                    let before = before.clone();
                    ring.completed = Some(before.add(&var.sub(&header.start).scale(d)));
                    exit.completed = trips.as_ref().map(|n| before.add(&n.scale(d)));
                }
                _ => {
                    ring.completed = None;
                    exit.completed = None;
                }
            }
            if let Some(after) = after {
                exit.counts = after.counts.clone();
                if after.counts != ring.counts {
                    ring.counts = vec![None; ring.counts.len()];
                    exit.counts = vec![None; ring.counts.len()];
                }
            }
        }
        (entry, exits)
    }

    /// The copies and touches at the end of an iteration, as the next one
    /// sees them.
    fn back_edge(
        &mut self,
        end: State<'c>,
        looped: &Loop,
        var: AtomId,
        step: &Poly,
        last: bool,
    ) -> State<'c> {
        let previous = Poly::atom(var).sub(step);
        let first = looped.first_atom;
        let mut out = State {
            generic: end.generic,
            wgmma: end.wgmma,
            ..State::default()
        };
        for mut ring in end.rings {
            ring.completed = ring
                .completed
                .and_then(|c| self.substitute(&c, var, &previous, first, false));
            if let Some(from) = ring.virtual_from.take() {
                // A bound the next iteration cannot name: not countable.
                ring.virtual_from = self.substitute(&from, var, &previous, first, false);
                if ring.virtual_from.is_none() {
                    ring.completed = None;
                }
            }
            out.rings.push(ring);
        }
        let mut carried = WordMap::default();
        let mut shifted = Vec::with_capacity(end.touches.len());
        for touch in Rc::unwrap_or_clone(end.touches) {
            let mut touch = Rc::unwrap_or_clone(touch);
            let released = touch.released.take();
            let released = self.carry_ticket(
                released,
                &mut touch.ticket_carried,
                (var, step, first),
                &mut carried,
            );
            if touch.loops.contains(&first) {
                touch.shifts += 1;
                // A barrier clears touches: only those of the previous
                // iteration's last epoch meet a copy in a ring; older
                // ones (a loop without a barrier) are forgotten. One an
                // mbarrier phase released waits for its acquiring wait,
                // a ring's depth of iterations later: followed as long as
                // a copy.
                let limit = if released.is_some() {
                    self.horizon.shifts
                } else {
                    TOUCH_SHIFT_LIMIT
                };
                if touch.shifts > limit || last {
                    // Its path facts that stay true in later iterations
                    // outlive its indices.
                    let lasting: Vec<Fact> = touch
                        .exists_if
                        .iter()
                        .filter(|f| !last && monotone_in(f, var, first))
                        .cloned()
                        .collect();
                    touch = forget_touch(touch, first);
                    touch.exists_if = Rc::new(lasting);
                    if !last {
                        touch.released = released;
                    }
                } else {
                    touch.footprint = self.shift_footprint(&touch.footprint, var, &previous, first);
                    if !touch.exists_if.is_empty() {
                        touch.exists_if = self.shift_facts(&touch.exists_if, var, &previous, first);
                    }
                    touch.released = released;
                    touch.separated.drop_stale(first);
                }
            } else {
                // A touch from before the loop released inside it (at the
                // exit its ticket cannot be named: never acquired).
                touch.released = released.filter(|(_, t)| !last || !self.mentions(t, var));
            }
            shifted.push(Rc::new(touch));
        }
        join_touches(&mut out.touches, Rc::new(shifted));
        let mut copies = Vec::with_capacity(end.copies.len());
        for copy in Rc::unwrap_or_clone(end.copies) {
            let mut copy = Rc::unwrap_or_clone(copy);
            // At the exit a ticket that names the loop's variable cannot
            // be named: never acquired.
            let released = copy.released.take();
            copy.released = self
                .carry_ticket(
                    released,
                    &mut copy.ticket_carried,
                    (var, step, first),
                    &mut carried,
                )
                .filter(|(_, t)| !last || !self.mentions(t, var));
            if copy.loops.contains(&first) {
                copy.shifts += 1;
                // A retired copy is only checked against other threads'
                // accesses, where its thread's own bytes are told apart by
                // the separation engine, not by its indices: forgetting
                // them lets the copies of every iteration merge.
                if copy.role == Role::StoreTarget && (copy.shifts > self.horizon.shifts || last) {
                    // Followed for the horizon's iterations, then dropped
                    // (module doc: a thread's stores of the same bytes
                    // further apart are not reported).
                    continue;
                }
                if copy.shifts > self.horizon.shifts || last || copy.status == Status::Retired {
                    copy = forget_copy(copy, first);
                } else {
                    copy.footprint = self.shift_footprint(&copy.footprint, var, &previous, first);
                    if !copy.exists_if.is_empty() {
                        copy.exists_if = self.shift_facts(&copy.exists_if, var, &previous, first);
                    }
                    if let Some((param, footprint)) = copy.source.take() {
                        let footprint = self.shift_footprint(&footprint, var, &previous, first);
                        copy.source = Some((param, footprint));
                    }
                    if let Some(attachment) = &mut copy.attachment {
                        attachment.ticket = attachment
                            .ticket
                            .take()
                            .and_then(|t| self.substitute(&t, var, &previous, first, true));
                    }
                    copy.separated.drop_stale(first);
                }
            }
            copies.push(Rc::new(copy));
        }
        // Each merged into the first version it is the same copy as
        // (what joining them in one at a time gives).
        join_copies(&mut out.copies, Rc::new(copies), false);
        out
    }

    /// A release ticket (ring buffer, ticket) at the end of an iteration,
    /// in the next iteration's terms: loop variable `var` replaced by `var
    /// - step`. After the [`Horizon`]'s back edges (`carried` counts them) it
    /// is kept as it is: the tickets of a ring only grow with the loop's
    /// variable, so the kept ticket only overstates the phase that released
    /// it (a later wait acquires it no sooner than it may), and the
    /// versions the iterations make stop differing, so the loop's walk
    /// converges. `None` where the ticket cannot be re-expressed.
    fn carry_ticket(
        &mut self,
        released: Option<(usize, Rc<Poly>)>,
        carried: &mut u32,
        (var, step, first): (AtomId, &Poly, AtomId),
        tickets: &mut CarriedTickets,
    ) -> Option<(usize, Rc<Poly>)> {
        let (ring, ticket) = released?;
        // The versions share their tickets: each is asked once per back
        // edge (the ticket held, so that no other takes its address).
        let key = Rc::as_ptr(&ticket) as usize;
        let known = match tickets.get(&key) {
            Some((held, mentions, shifted)) if Rc::ptr_eq(held, &ticket) => {
                Some((*mentions, shifted.clone()))
            }
            _ => None,
        };
        let (mentions, shifted) = match known {
            Some(known) => known,
            None => {
                let mentions = self.mentions(&ticket, var);
                tickets.insert(key, (Rc::clone(&ticket), mentions, None));
                (mentions, None)
            }
        };
        if !mentions || *carried > self.horizon.shifts {
            return Some((ring, ticket));
        }
        let shifted = match shifted {
            Some(shifted) => shifted,
            None => {
                let previous = Poly::atom(var).sub(step);
                let shifted = self
                    .substitute(&ticket, var, &previous, first, true)
                    .map(Rc::new);
                tickets.insert(key, (Rc::clone(&ticket), mentions, Some(shifted.clone())));
                shifted
            }
        };
        let ticket = shifted?;
        *carried += 1;
        Some((ring, ticket))
    }

    /// Path facts as the next iteration sees them: a fact that only grows
    /// truer as loop variable `var` grows ([`monotone_in`]: the guard of a
    /// tail stays false) is kept as it is; another has `var` replaced by
    /// `by`, or is dropped where it cannot be re-expressed (a weaker path
    /// condition).
    fn shift_facts(
        &mut self,
        facts: &Rc<Vec<Fact>>,
        var: AtomId,
        by: &Poly,
        first: AtomId,
    ) -> Rc<Vec<Fact>> {
        let memo = self.rewrites_of(var, by, first, true);
        if let Some(found) = self.rewrites[memo].facts.get(facts) {
            return Rc::clone(found);
        }
        let shifted: Vec<Fact> = facts
            .iter()
            .filter_map(|f| {
                if monotone_in(f, var, first) {
                    Some(f.clone())
                } else {
                    self.substitute(f, var, by, first, true)
                }
            })
            .collect();
        let shifted = if shifted == **facts {
            Rc::clone(facts)
        } else {
            Rc::new(shifted)
        };
        self.rewrites[memo]
            .facts
            .insert(Rc::clone(facts), Rc::clone(&shifted));
        shifted
    }

    /// Whether `facts` prove one of `exists_if` false: what carries those
    /// path facts does not exist where `facts` hold.
    fn contradicts(&self, facts: &[Fact], exists_if: &[Fact]) -> bool {
        exists_if
            .iter()
            .any(|f| self.prove_le0(facts, &Poly::constant(1).sub(f)))
    }

    /// The state after an iteration as the loop's exit sees it: the loop
    /// leaves after this iteration only where `end <= k + step`, so what
    /// exists only on paths that contradict it is dropped.
    /// `known`: the loop variable's value in an iteration walked at a
    /// known value.
    fn prune_at_exit(
        &mut self,
        state: &mut State<'c>,
        header: &crate::checked::LoopHeader,
        known: Option<Poly>,
    ) {
        let var = Poly::atom(header.var);
        let mut facts = vec![header.end.sub(&var).sub(&header.step)];
        if let Some(value) = known {
            facts.push(var.sub(&value));
            facts.push(value.sub(&var));
        }
        prune_copies_and_touches(self, state, &facts);
    }

    /// `footprint` with loop variable `var` replaced by `by` (`None` where
    /// an axis cannot be re-expressed).
    fn shift_footprint(
        &mut self,
        footprint: &Footprint,
        var: AtomId,
        by: &Poly,
        first: AtomId,
    ) -> Footprint {
        let memo = self.rewrites_of(var, by, first, true);
        let at = Rc::as_ptr(footprint) as usize;
        if let Some((held, found)) = self.rewrites[memo].footprints_at.get(&at)
            && Rc::ptr_eq(held, footprint)
        {
            return Rc::clone(found);
        }
        let shifted = match self.rewrites[memo].footprints.get(footprint) {
            Some(found) => Rc::clone(found),
            None => {
                let shifted: Footprint = footprint
                    .iter()
                    .map(|axis| self.shift_axis(axis, var, by, first))
                    .collect::<Vec<_>>()
                    .into();
                self.rewrites[memo]
                    .footprints
                    .insert(Rc::clone(footprint), Rc::clone(&shifted));
                shifted
            }
        };
        self.rewrites[memo]
            .footprints_at
            .insert(at, (Rc::clone(footprint), Rc::clone(&shifted)));
        shifted
    }

    fn shift_axis(
        &mut self,
        axis: &Option<(Poly, i128)>,
        var: AtomId,
        by: &Poly,
        first: AtomId,
    ) -> Option<(Poly, i128)> {
        let (start, len) = axis.as_ref()?;
        let start = self.substitute(start, var, by, first, true)?;
        Some((start, *len))
    }

    /// `p` with loop variable `var` replaced by `by`, through the
    /// remainders of it the body computes (`k % 3` becomes `(k - 1) % 3`,
    /// or `1` for a known `k`). `stale_others`: other atoms of the loop
    /// body (an inner loop's variable, a value read from a register) are
    /// another iteration's values, so `p` cannot be re-expressed (`None`);
    /// otherwise they are kept.
    fn substitute(
        &mut self,
        p: &Poly,
        var: AtomId,
        by: &Poly,
        first: AtomId,
        stale_others: bool,
    ) -> Option<Poly> {
        let memo = self.rewrites_of(var, by, first, stale_others);
        if let Some(found) = self.rewrites[memo].polys.get(p) {
            return found.clone();
        }
        let out = self.substitute_atoms(p, var, by, first, stale_others);
        self.rewrites[memo].polys.insert(p.clone(), out.clone());
        out
    }

    /// [`Walk::substitute`], not remembered.
    fn substitute_atoms(
        &mut self,
        p: &Poly,
        var: AtomId,
        by: &Poly,
        first: AtomId,
        stale_others: bool,
    ) -> Option<Poly> {
        let mut out = p.clone();
        for atom in p.atoms() {
            if atom == var || atom < first {
                continue;
            }
            let key = (atom, var, by.clone(), first, stale_others);
            let replacement = if let Some(known) = self.substituted.get(&key) {
                known.clone()?
            } else {
                let replacement = match self.atoms.get(atom).kind.clone() {
                    AtomKind::Computed(op, args) if args.iter().any(|a| self.mentions(a, var)) => {
                        args.iter()
                            .map(|a| self.substitute(a, var, by, first, stale_others))
                            .collect::<Option<Vec<Poly>>>()
                            .and_then(|args| self.computed(op, args))
                    }
                    _ if stale_others => None,
                    _ => continue,
                };
                self.substituted.insert(key, replacement.clone());
                replacement?
            };
            out = out.substitute(atom, &replacement);
        }
        Some(out.substitute(var, by))
    }

    /// Whether `p` depends on atom `var`, directly or through computed atoms.
    fn mentions(&self, p: &Poly, var: AtomId) -> bool {
        p.atoms().into_iter().any(|atom| {
            atom == var
                || match &self.atoms.get(atom).kind {
                    AtomKind::Computed(_, args) => args.iter().any(|a| self.mentions(a, var)),
                    _ => false,
                }
        })
    }

    /// `op(args)`: a constant when the arguments are, a remainder by a
    /// constant as an atom of the walk's table, else unknown.
    fn computed(&mut self, op: ComputedOp, args: Vec<Poly>) -> Option<Poly> {
        let constants: Option<Vec<i128>> = args.iter().map(Poly::as_const).collect();
        if let Some(values) = constants {
            return evaluate(op, &values).map(Poly::constant);
        }
        let modulus = match (op, args.get(1).and_then(Poly::as_const)) {
            (ComputedOp::Rem, Some(m)) if m >= 1 => m,
            _ => return None,
        };
        let kind = AtomKind::Computed(op, args);
        let existing = self
            .atoms
            .iter()
            .find(|(_, a)| a.kind == kind)
            .map(|(id, _)| id);
        let id = match existing {
            Some(id) => id,
            None => self.atoms.push(crate::sym::Atom {
                name: "a remainder of an earlier iteration".into(),
                kind,
                lo: 0,
                hi: modulus - 1,
            }),
        };
        Some(Poly::atom(id))
    }

    /// [`Walk::inert`] of both arms of the `if` `node`, asked once per
    /// `if` (a loop's body is walked many times).
    fn inert_if(&mut self, node: &Node, then: &[Node], otherwise: &[Node]) -> bool {
        let key = node as *const Node as usize;
        if let Some(&inert) = self.inert_ifs.get(&key) {
            return inert;
        }
        let inert = self.inert(then) && self.inert(otherwise);
        self.inert_ifs.insert(key, inert);
        inert
    }

    /// Whether walking `body` reports nothing and leaves every state as
    /// it was: each statement one that [`Walk::apply`] passes over (no
    /// async copy, group, mbarrier, fence or `bar.warp.sync`; no shared
    /// memory; no register of a `wgmma`; global memory only read, or
    /// written where no async copy reads or writes that tensor), or an
    /// `if` of such statements. A statement that failed its own checks,
    /// a barrier or a loop is not.
    fn inert(&self, body: &[Node]) -> bool {
        body.iter().all(|node| match node {
            Node::Define(_) | Node::CondRead(_) => true,
            Node::Apply(apply) => apply.own_proofs_hold && self.inert_apply(apply),
            Node::If {
                then, otherwise, ..
            } => self.inert(then) && self.inert(otherwise),
            Node::Havoc(_) | Node::CtaBarrier { .. } | Node::Loop(_) => false,
        })
    }

    /// The positions of the nodes of `body` that [`Walk::block`] walks:
    /// all but the statements it passes over ([`Walk::passes_over`]),
    /// found once per block (a loop's body is walked many times, and most
    /// of its statements are register arithmetic).
    fn walked_nodes(&mut self, body: &[Node]) -> Rc<[usize]> {
        let key = body.as_ptr() as usize;
        if let Some((len, walked)) = self.walked.get(&key)
            && *len == body.len()
        {
            return Rc::clone(walked);
        }
        let mut walked = Vec::with_capacity(body.len());
        for (at, node) in body.iter().enumerate() {
            let passed = matches!(node, Node::Apply(apply) if apply.own_proofs_hold && self.passes_over(apply));
            if !passed {
                walked.push(at);
            }
        }
        let walked: Rc<[usize]> = walked.into();
        self.walked.insert(key, (body.len(), Rc::clone(&walked)));
        walked
    }

    /// [`Walk::inert_apply`], asked once per statement: a loop's body is
    /// walked many times, and most of a large kernel's statements (its
    /// register arithmetic) leave the walk's state as it is.
    fn passes_over(&mut self, apply: &Apply) -> bool {
        let key = std::ptr::from_ref(apply) as usize;
        if let Some(&known) = self.passed_over.get(&key) {
            return known;
        }
        let known = self.inert_apply(apply);
        self.passed_over.insert(key, known);
        known
    }

    /// One `apply` of [`Walk::inert`]: the walk leaves its state as it is
    /// and reports nothing.
    fn inert_apply(&self, apply: &Apply) -> bool {
        let passed_over = match apply.form.effect() {
            Effect::WarpgroupMma
            | Effect::AsyncCopy
            | Effect::AsyncGroup
            | Effect::Mbarrier
            | Effect::Fence => false,
            Effect::Collective => apply.form.form.mnemonic != "bar.warp.sync",
            _ => true,
        };
        passed_over
            && !wgmma::lanes(apply).any(|lane| self.wgmma_tiles.contains(&lane.tile))
            && apply.operands.iter().all(|operand| match &operand.value {
                Value::Memory { buffer, .. } => {
                    buffer.space == MemorySpace::Global
                        && (operand.slot.access != Access::Write
                            || !self.async_globals.contains(&buffer.index))
                }
                _ => true,
            })
    }

    fn apply(&mut self, apply: &Apply, mut state: State<'c>) -> State<'c> {
        let effect = apply.form.effect();
        if !self.wgmma_tiles.is_empty() || effect == Effect::WarpgroupMma {
            let mut found = Vec::new();
            let issuers = if effect == Effect::WarpgroupMma {
                self.threads_of_apply(apply)
            } else {
                None
            };
            let mut step = wgmma::Step {
                tiles: &self.wgmma_tiles,
                report: &mut |diag| found.push(diag),
                issuers,
            };
            step.apply(apply, &mut state.wgmma);
            for diag in found {
                self.report(diag);
            }
        }
        let mut matrix_reported = false;
        let multicast = super::cluster_rings::is_multicast(apply);
        for operand in &apply.operands {
            let Value::Memory {
                buffer, view, name, ..
            } = &operand.value
            else {
                continue;
            };
            let write = operand.slot.access == Access::Write;
            let footprint = self.footprint_of(view);
            match buffer.space {
                // A `wgmma`'s matrix: read through the async proxy from
                // its issue to its wait (a copy of the walk, issued below).
                MemorySpace::Shared if operand.slot.descriptor => {
                    let access = SharedOperand {
                        span: operand.span,
                        name,
                        buffer: buffer.index,
                        view,
                        footprint: &footprint,
                        write: false,
                    };
                    self.shared_access(apply, &access, &state.copies);
                    // One missing barrier or fence, one error: at the
                    // first matrix it leaves unordered.
                    let errors = self.diags.len();
                    if !matrix_reported && self.copy_after_touches(apply, &access, &state.touches) {
                        self.async_after_generic(apply, &access, &state.generic);
                    }
                    matrix_reported |= self.diags.len() > errors;
                }
                MemorySpace::Shared if multicast && write => {
                    self.multicast_destination(
                        apply,
                        (operand.span, name, buffer.index),
                        view,
                        &state,
                    );
                }
                MemorySpace::Shared => {
                    let access = SharedOperand {
                        span: operand.span,
                        name,
                        buffer: buffer.index,
                        view,
                        footprint: &footprint,
                        write,
                    };
                    self.shared_access(apply, &access, &state.copies);
                    if operand.slot.whole {
                        // Unordered accesses are the mistake to fix first:
                        // a fence would not order them.
                        if self.copy_after_touches(apply, &access, &state.touches) {
                            self.async_after_generic(apply, &access, &state.generic);
                        }
                    } else if self
                        .context
                        .mbarriers
                        .get(buffer.index)
                        .copied()
                        .flatten()
                        .is_none()
                    {
                        // Earlier accesses, fenced or not, count as
                        // unfenced with this one.
                        let written = write
                            || state
                                .generic
                                .iter()
                                .any(|g| g.buffer == buffer.index && g.written);
                        state.generic.retain(|g| g.buffer != buffer.index);
                        state.generic.push(GenericAccess {
                            buffer: buffer.index,
                            written,
                            fenced_by: None,
                            fenced_cluster: false,
                        });
                    }
                    if write && effect != Effect::AsyncCopy {
                        self.write_after_matrix_reads(apply, &access, &state.touches);
                    }
                    if effect == Effect::AsyncCopy && write {
                        if !operand.slot.whole {
                            self.copy_after_touches(apply, &access, &state.touches);
                        }
                    } else {
                        let touch = self.touch(apply, &access);
                        join_touch(&mut state.touches, touch);
                    }
                }
                MemorySpace::Global if write => self.global_store(
                    apply,
                    operand.span,
                    name,
                    buffer.index,
                    &footprint,
                    &state.copies,
                ),
                MemorySpace::Global => {}
            }
        }
        match effect {
            Effect::WarpgroupMma => {
                let copies = self.issue_matrix_reads(apply);
                extend_listed(&mut state.copies, copies);
            }
            Effect::AsyncCopy => {
                let copies = self.issue(apply);
                let bulk = copies.iter().any(|c| c.role == Role::Bulk);
                extend_listed(&mut state.copies, copies);
                if bulk {
                    self.bulk_copy(apply, &mut state);
                }
            }
            Effect::AsyncGroup => {
                self.group(apply, &mut state.copies);
                retire_matrix_reads(self, &mut state);
            }
            Effect::Mbarrier => self.mbarrier(apply, &mut state),
            Effect::Fence => self.fence(apply, &mut state),
            Effect::Collective if apply.form.form.mnemonic == "bar.warp.sync" => {
                self.warp_sync(apply, &mut state);
            }
            _ => {}
        }
        state
    }

    /// `bar.warp.sync` over whole warps (its convergence proven): it
    /// orders each participating lane's earlier accesses before every
    /// lane's later ones ("bar.warp.sync also guarantees memory ordering
    /// among threads participating in barrier", PTX ISA), so a touch its
    /// warps made is released by the later arrival of any of their lanes.
    fn warp_sync(&mut self, apply: &Apply, state: &mut State<'c>) {
        if apply.user_guard != Cond::Const(true) {
            return;
        }
        let Some(threads) = self.threads_of_apply(apply) else {
            return;
        };
        let block = self.every_thread.clone();
        if threads.warps(&block) != threads {
            return;
        }
        update_listed(
            &mut state.touches,
            |t| !t.warp_synced && t.made_within(&threads),
            |t| t.warp_synced = true,
        );
    }

    /// A fence: `fence.proxy.async` run by every thread orders the generic
    /// writes before it with later async-proxy accesses; it and
    /// `fence.mbarrier_init` make the mbarrier inits its threads ran
    /// visible to the async proxy (`mbarriers`).
    fn fence(&mut self, apply: &Apply, state: &mut State<'c>) {
        let proxy_async = apply.form.form.mnemonic == "fence.proxy"
            && apply.form.get(crate::ptx::Slot::Proxy) == Some("async")
            && apply.form.get(crate::ptx::Slot::Space) != Some("global");
        let init = apply.form.form.mnemonic == "fence.mbarrier_init";
        if !(proxy_async || init) {
            return;
        }
        if proxy_async && apply.guard == Cond::Const(true) {
            let cluster_wide = apply.form.get(crate::ptx::Slot::Space) != Some("shared::cta");
            if cluster_wide && self.running(apply) == Some(self.block_threads()) {
                state.generic.clear();
            } else {
                let threads = self.issuers(apply);
                for access in &mut state.generic {
                    access.fenced_by = Some(threads.to_vec());
                    access.fenced_cluster = cluster_wide;
                }
            }
        }
        self.fence_inits(apply, &mut state.rings);
    }

    /// A bulk copy's destination against the generic-proxy accesses no
    /// `fence.proxy.async` of the copying threads (or of every thread) has
    /// ordered before it.
    fn async_after_generic(
        &mut self,
        apply: &Apply,
        access: &SharedOperand<'_>,
        generic: &[GenericAccess],
    ) {
        let Some(found) = generic
            .iter()
            .find(|g| g.buffer == access.buffer && (g.written || access.write))
        else {
            return;
        };
        let copying = self.issuers(apply);
        let multicast = super::cluster_rings::is_multicast(apply);
        let fenced = found
            .fenced_by
            .as_ref()
            .is_some_and(|fence| fence.iter().all(|f| copying.contains(f)))
            && (found.fenced_cluster || !multicast);
        if fenced {
            return;
        }
        let (message, help) = if multicast {
            (
                format!(
                    "this `{}` writes every CTA's copy of `{}` through the async proxy, but threads accessed that buffer through the generic proxy with no `fence.proxy.async.shared::cluster` of the copying threads since: the copy may land before their accesses are done",
                    apply.opcode, access.name
                ),
                "run `apply(ptx[\"fence.proxy.async.shared::cluster\"])` in the copying thread after it waited for the accesses (a `.shared::cta` fence covers only its own CTA's memory)",
            )
        } else if access.write {
            (
                format!(
                    "this `{}` writes `{}` through the async proxy, but threads accessed that buffer through the generic proxy with no `fence.proxy.async` of the copying threads since: the copy may land before their accesses are done",
                    apply.opcode, access.name
                ),
                "run `apply(ptx[\"fence.proxy.async.shared::cta\"])` after the accesses: in the copying thread after it waited for them (or in every thread before it arrives)",
            )
        } else {
            (
                format!(
                    "this `{}` reads `{}` through the async proxy, but threads wrote that buffer through the generic proxy with no `fence.proxy.async` of the copying threads since: the copy may read bytes from before those writes",
                    apply.opcode, access.name
                ),
                "run `apply(ptx[\"fence.proxy.async.shared::cta\"])` after the writes: in every thread before the CTA barrier that ends them (or in the copying thread after it)",
            )
        };
        self.report(
            Diagnostic::new(Code::PROXY_FENCE, access.span, message)
                .with_note("an mbarrier or CTA barrier orders generic accesses with generic ones only; the async proxy needs a proxy fence on top")
                .with_help(help),
        );
    }

    /// Over which threads values are the same (the convergence rule's
    /// reading, over the walk's atoms, which include the remainders it
    /// added).
    fn uniformities(&self) -> Uniformities<'_> {
        Uniformities {
            atoms: &self.atoms,
            block: self.context.threads.launch.block,
            loops: self.context.loop_uniformity,
        }
    }

    /// Whether a condition may differ between the threads of the CTA.
    fn on_thread(&self, cond: &Cond) -> bool {
        self.uniformities().of_cond(cond) < Uniformity::Cta
    }

    /// Whether a value may differ between the threads of the CTA.
    fn differs_in_cta(&self, p: &Poly) -> bool {
        self.uniformities().of_poly(p) < Uniformity::Cta
    }

    /// The threads of the CTA.
    fn block_threads(&self) -> i128 {
        self.context
            .threads
            .launch
            .block
            .iter()
            .map(|b| i128::from(*b))
            .product()
    }

    /// How `apply`'s memory operand `view` separates threads, searched
    /// when first read (one source per operand: the loops walk a body many
    /// times).
    /// [`footprint`] of `view`, an operand's view in the checked body (or
    /// a multicast copy's per-rank view, [`Walk::multicast_views`]),
    /// remembered by its address.
    fn footprint_of(&mut self, view: &Layout) -> Footprint {
        let key = view as *const Layout as usize;
        Rc::clone(
            self.footprints
                .entry(key)
                .or_insert_with(|| footprint(view)),
        )
    }

    /// The runtime loops around the current point ([`Walk::loops`]), one
    /// list shared with every touch and copy made under the same loops.
    fn loops_here(&mut self) -> Rc<[AtomId]> {
        if *self.loop_list != *self.loops {
            self.loop_list = self.loops.as_slice().into();
        }
        Rc::clone(&self.loop_list)
    }

    fn separated(&mut self, apply: &Apply, view: &Layout) -> Separated<'c> {
        let key = view as *const Layout as usize;
        if let Some(found) = self.separations.get(&key) {
            return Separated::new(Rc::clone(found));
        }
        let threads: &'c Threads<'_> = self.context.threads;
        let facts = threads.under(&apply.facts);
        let separations = Threads::separations(view, Rc::clone(&facts), None);
        let found = SeparationSource::new(&self.parts_interner, move || {
            (separations.all(threads), threads.pinned_digits(&facts))
        });
        self.separations.insert(key, Rc::clone(&found));
        Separated::new(found)
    }

    /// The touch a shared access leaves until the next barrier.
    fn touch(&mut self, apply: &Apply, access: &SharedOperand<'_>) -> Touch<'c> {
        let separated = self.separated(apply, access.view);
        Touch {
            span: access.span,
            buffer: access.buffer,
            write: access.write,
            footprint: access.footprint.clone(),
            separated,
            loops: self.loops_here(),
            shifts: 0,
            released: None,
            ticket_carried: 0,
            wgmma_read: None,
            exists_if: Rc::default(),
            makers: self.threads_of_apply(apply),
            acquired: None,
            warp_synced: false,
        }
    }

    /// On the arm of an `if` on the thread's index that `arm`'s threads
    /// run: the `wgmma` matrix reads none of them issued are not theirs to
    /// retire (their issuers' arm holds them), so the join keeps that
    /// arm's status.
    fn keep_matrix_reads_issued_by(&mut self, state: &mut State<'c>, arm: &Option<ThreadSet>) {
        let Some(arm) = arm else { return };
        retain_listed(&mut state.copies, |copy| {
            copy.role != Role::WgmmaSource
                || !self
                    .threads_of_issuers(&copy.issuers)
                    .is_some_and(|issuers| issuers.disjoint(arm))
        });
    }

    /// Fills [`Walk::meeters`] from every statement of `body`.
    fn find_meeters(&mut self, body: &[Node]) {
        for node in body {
            match node {
                Node::Apply(apply) => {
                    let effect = apply.form.effect();
                    let mnemonic = apply.form.form.mnemonic;
                    let arrives = effect == Effect::Mbarrier && mnemonic.contains("arrive");
                    let mut threads = None;
                    for operand in &apply.operands {
                        let Value::Memory { buffer, .. } = &operand.value else {
                            continue;
                        };
                        if buffer.space != MemorySpace::Shared || buffer.index >= self.meeters.len()
                        {
                            continue;
                        }
                        let threads = threads
                            .get_or_insert_with(|| self.threads_of_apply(apply))
                            .clone();
                        let write = operand.slot.access == Access::Write;
                        let meeters = &mut self.meeters[buffer.index];
                        thread_sets::include(&mut meeters.accessors, &threads);
                        if matches!(effect, Effect::AsyncCopy | Effect::WarpgroupMma) {
                            thread_sets::include(&mut meeters.async_accessors, &threads);
                        }
                        if effect == Effect::AsyncCopy && write {
                            thread_sets::include(&mut meeters.async_writers, &threads);
                        } else if write
                            && !matches!(effect, Effect::Mbarrier | Effect::WarpgroupMma)
                        {
                            thread_sets::include(&mut meeters.generic_writers, &threads);
                        }
                        if arrives {
                            thread_sets::include(&mut meeters.arrivers, &threads);
                        }
                    }
                }
                Node::If {
                    then, otherwise, ..
                } => {
                    self.find_meeters(then);
                    self.find_meeters(otherwise);
                }
                Node::Loop(looped) => self.find_meeters(&looped.body),
                _ => {}
            }
        }
    }

    /// Whether every thread that could meet `touch` later acquired it.
    fn touch_settled(&self, touch: &Touch<'_>) -> bool {
        let Some(meeters) = self.meeters.get(touch.buffer) else {
            return false;
        };
        // `thread_sets::covers_all` of the sets below, without a list.
        let Some(acquired) = &touch.acquired else {
            return false;
        };
        let covered = |m: &Option<ThreadSet>| m.as_ref().is_some_and(|m| m.within(acquired));
        // A read meets async writes; a write meets async reads too (a
        // bulk store's source, a wgmma's matrices).
        covered(if touch.write {
            &meeters.async_accessors
        } else {
            &meeters.async_writers
        }) && (touch.wgmma_read.is_none() || covered(&meeters.generic_writers))
            && (self
                .context
                .mbarriers
                .get(touch.buffer)
                .copied()
                .flatten()
                .is_none()
                || covered(&meeters.arrivers))
    }

    /// Whether every thread that accesses a copy's buffer acquired it.
    fn copy_settled(&self, copy: &Copy<'_>) -> bool {
        self.meeters
            .get(copy.buffer)
            .is_some_and(|m| thread_sets::covers_all(&copy.acquired, &[&m.accessors]))
    }

    /// [`Walk::threads_of`] the facts of one arm of `cond` (an `if` of
    /// the checked body, by its address), remembered per arm.
    fn threads_of_arm(&mut self, cond: &Cond, holds: bool) -> Option<ThreadSet> {
        let key = (cond as *const Cond as usize, holds);
        if let Some(found) = self.arm_threads.get(&key) {
            return found.clone();
        }
        let found = self.threads_of(&cond.facts(holds));
        self.arm_threads.insert(key, found.clone());
        found
    }

    /// [`Walk::threads_of`] `apply`'s facts, remembered per statement.
    fn threads_of_apply(&mut self, apply: &Apply) -> Option<ThreadSet> {
        let key = apply as *const Apply as usize;
        if let Some(found) = self.apply_threads.get(&key) {
            return found.clone();
        }
        let found = self.threads_of(&apply.facts);
        self.apply_threads.insert(key, found.clone());
        found
    }

    /// The conditions on the thread of `apply` ([`Walk::on_thread_facts`]),
    /// one list per statement: its copies' [`Copy::issuers`], and what the
    /// fences and group operations ask of the threads that run them.
    fn issuers(&mut self, apply: &Apply) -> Rc<Vec<Fact>> {
        let key = apply as *const Apply as usize;
        if let Some(found) = self.issuer_facts.get(&key) {
            return Rc::clone(found);
        }
        let found = Rc::new(self.on_thread_facts(apply));
        self.issuer_facts.insert(key, Rc::clone(&found));
        found
    }

    /// [`Walk::threads_of`] a copy's issuers, remembered per list.
    fn threads_of_issuers(&mut self, issuers: &Rc<Vec<Fact>>) -> Option<ThreadSet> {
        let key = Rc::as_ptr(issuers) as usize;
        if let Some((held, found)) = self.issuer_threads.get(&key)
            && Rc::ptr_eq(held, issuers)
        {
            return found.clone();
        }
        let found = self.threads_of(issuers);
        self.issuer_threads
            .insert(key, (Rc::clone(issuers), found.clone()));
        found
    }

    /// The threads of the block that the conditions on the thread among
    /// `facts` admit (`None`: not enumerable; see [`thread_sets`]).
    fn threads_of(&mut self, facts: &[Fact]) -> Option<ThreadSet> {
        // Asked per access, mostly under a few fact sets: remembered by
        // all the facts, then by those on the thread (the enumeration).
        if let Some(found) = self.thread_sets_by_facts.get(facts) {
            return found.clone();
        }
        let on_thread: Vec<Fact> = facts
            .iter()
            .filter(|f| self.differs_in_cta(f))
            .cloned()
            .collect();
        let found = match self.thread_sets.get(&on_thread) {
            Some(found) => found.clone(),
            None => {
                let block = usize::try_from(self.block_threads()).ok();
                let found = block.and_then(|block| {
                    let members = self.context.threads.members(&on_thread)?;
                    Some(ThreadSet::of(&members, block))
                });
                self.thread_sets.insert(on_thread, found.clone());
                found
            }
        };
        self.thread_sets_by_facts
            .insert(facts.to_vec(), found.clone());
        found
    }

    /// A copy into shared bytes against the accesses no barrier has
    /// ordered before it: only the copying thread's own may meet it.
    /// Whether none does (nothing reported).
    fn copy_after_touches(
        &mut self,
        apply: &Apply,
        access: &SharedOperand<'_>,
        touches: &[Rc<Touch<'c>>],
    ) -> bool {
        let here_facts = self.facts_here(apply);
        for touch in touches
            .iter()
            .filter(|t| t.buffer == access.buffer && (t.write || access.write))
        {
            if !self.meets_touch(apply, access, touch, &here_facts) {
                continue;
            }
            self.report(
                Diagnostic::new(
                    Code::ASYNC_COPY_RACE,
                    access.span,
                    if access.write {
                        format!(
                            "this `{}` may overwrite bytes of `{}` that other threads access with no CTA barrier in between",
                            apply.opcode, access.name
                        )
                    } else {
                        format!(
                            "this `{}` may read bytes of `{}` that other threads write with no CTA barrier in between",
                            apply.opcode, access.name
                        )
                    },
                )
                .with_help(if self.context.mbarriers.iter().any(Option::is_some) {
                    "put `apply(ptx[\"bar.sync\"], 0, scope = \"cta\")` between the other threads' last access and this copy, or wait for an mbarrier phase every thread arrives on after that access"
                } else {
                    "put `apply(ptx[\"bar.sync\"], 0, scope = \"cta\")` between the other threads' last access and this copy"
                }),
            );
            return false;
        }
        true
    }

    /// Whether `access` (of `apply`, whose facts with the known loop
    /// values are `here_facts`) may meet another thread's `touch` of the
    /// same buffer: on a path where both exist, at bytes not provably
    /// apart, and not the accessing thread's own.
    fn meets_touch(
        &mut self,
        apply: &Apply,
        access: &SharedOperand<'_>,
        touch: &Touch<'c>,
        here_facts: &[Fact],
    ) -> bool {
        if self.contradicts(here_facts, &touch.exists_if) {
            return false;
        }
        if touch.acquired.is_some() && acquired_by(&touch.acquired, &self.threads_of_apply(apply)) {
            return false;
        }
        let here = self.at_iteration(access.footprint, &touch.loops);
        !(self.apart(&touch.footprint, &here, &apply.facts)
            || self.own_bytes(&touch.separated, apply, access.view))
    }

    /// A generic write of shared bytes against the retired `wgmma` reads
    /// no barrier or mbarrier phase has ordered before it (the shared race
    /// obligation does not see `wgmma` reads): only the writing thread's
    /// own bytes may meet one.
    fn write_after_matrix_reads(
        &mut self,
        apply: &Apply,
        access: &SharedOperand<'_>,
        touches: &[Rc<Touch<'c>>],
    ) {
        let here_facts = self.facts_here(apply);
        for touch in touches.iter().filter(|t| t.buffer == access.buffer) {
            let Some((number, opcode)) = &touch.wgmma_read else {
                continue;
            };
            if !self.meets_touch(apply, access, touch, &here_facts) {
                continue;
            }
            let shared = &self.context.shared_names[access.buffer];
            self.report(
                Diagnostic::new(
                    Code::ASYNC_UNPUBLISHED,
                    access.span,
                    format!(
                        "`{}` is written here by threads other than the ones whose `{opcode}` (statement {number}) read these bytes of `{shared}`, with no CTA barrier since its wait",
                        access.name
                    ),
                )
                .with_help(
                    "a wait orders a wgmma's reads before its own thread only: put `apply(ptx[\"bar.sync\"], 0, scope = \"cta\")` after the wait, or wait for an mbarrier phase the readers arrive on after their wait",
                ),
            );
            return;
        }
    }

    /// The copies an async `apply` issues: one into shared memory, or for
    /// a store to global memory its shared source and its global target.
    fn issue(&mut self, apply: &Apply) -> Vec<Copy<'c>> {
        let mut dst = None;
        let mut shared_source = None;
        let mut source = None;
        for operand in &apply.operands {
            if let Value::Memory { buffer, view, .. } = &operand.value {
                if operand.slot.access == Access::Write {
                    dst = Some((operand.span, buffer.index, buffer.space, view));
                } else if buffer.space == MemorySpace::Global {
                    source = Some((buffer.index, self.footprint_of(view)));
                } else if operand.slot.whole {
                    shared_source = Some((operand.span, buffer.index, view));
                }
            }
        }
        let Some((span, buffer, space, view)) = dst else {
            return Vec::new();
        };
        let whole = apply.operands.iter().any(|o| o.slot.whole);
        let copy = |walk: &mut Self, span, buffer, view: &Layout, role| {
            let separated = walk.separated(apply, view);
            Copy {
                number: apply.number,
                opcode: Rc::from(apply.opcode.as_str()),
                span,
                buffer,
                footprint: walk.footprint_of(view),
                source: None,
                separated,
                status: Status::Pending { lo: 0, hi: 0 },
                loops: walk.loops_here(),
                shifts: 0,
                attachment: None,
                role,
                issuers: walk.issuers(apply),
                issuer_moved: false,
                exists_if: Rc::default(),
                acquired: None,
                released: None,
                ticket_carried: 0,
            }
        };
        if space == MemorySpace::Global {
            let Some((source_span, source_buffer, source_view)) = shared_source else {
                return Vec::new();
            };
            return vec![
                copy(
                    self,
                    source_span,
                    source_buffer,
                    source_view,
                    Role::StoreSource,
                ),
                copy(self, span, buffer, view, Role::StoreTarget),
            ];
        }
        if super::cluster_rings::is_multicast(apply) {
            // One copy per CTA's box, each landing in this CTA's copy of
            // the destination where that CTA's slice of it lies.
            let Some(views) = self.multicast_views(apply, view) else {
                return Vec::new();
            };
            return views
                .iter()
                .map(|view| {
                    let mut box_of_rank = copy(self, span, buffer, view, Role::Bulk);
                    box_of_rank.source = source.clone();
                    box_of_rank
                })
                .collect();
        }
        let role = if whole { Role::Bulk } else { Role::CpAsync };
        let mut into_shared = copy(self, span, buffer, view, role);
        into_shared.source = source;
        vec![into_shared]
    }

    /// The destination of multicast copy `apply` (`view` as written) as
    /// each CTA of the cluster writes it, by rank: `view` with the CTA's
    /// cluster index put in (`None`: it depends on the index in a way the
    /// walk cannot re-express; reported).
    fn multicast_views(&mut self, apply: &Apply, view: &Layout) -> Option<Rc<[Layout]>> {
        // By the apply's address in the checked body (which the walk does
        // not change): a kernel function's statement numbers repeat at
        // each of its calls.
        let key = apply as *const Apply as usize;
        if let Some(found) = self.multicast_views.get(&key) {
            return found.clone();
        }
        let shape = self.cluster.shape;
        let axes: Vec<(usize, AtomId)> = (0..3u8)
            .filter_map(|axis| {
                self.atoms
                    .find(&AtomKind::ClusterCtaId(axis))
                    .map(|atom| (usize::from(axis), atom))
            })
            .collect();
        let size = super::cluster_rings::cluster_size(shape);
        let mut views = Vec::new();
        for rank in 0..size {
            let coordinates = super::cluster_rings::cluster_coordinates(shape, rank);
            let mut at_rank = Some(view.clone());
            for (axis, atom) in &axes {
                let by = Poly::constant(coordinates[*axis]);
                at_rank = at_rank.and_then(|v| self.substitute_layout(&v, *atom, &by));
            }
            views.push(at_rank);
        }
        let views: Option<Rc<[Layout]>> =
            views.into_iter().collect::<Option<Vec<_>>>().map(Rc::from);
        if views.is_none() {
            let span = apply
                .operands
                .iter()
                .find(|o| o.slot.access == Access::Write)
                .map_or_else(SpanId::default, |o| o.span);
            self.report(
                Diagnostic::new(
                    Code::MULTICAST_COPY,
                    span,
                    "the checker cannot tell where each CTA's box of this multicast lands: its slice must be computed from `cluster_ctarank()` with `+`, `*` and constants",
                )
                .with_help("slice the destination at `cluster_ctarank() * extent`"),
            );
        }
        self.multicast_views.insert(key, views.clone());
        views
    }

    /// `view` with atom `atom` replaced by `by` (`None`: a value computed
    /// from it that the walk cannot re-express).
    fn substitute_layout(&mut self, view: &Layout, atom: AtomId, by: &Poly) -> Option<Layout> {
        let mut out = view.clone();
        let put = |walk: &mut Self, p: &mut Poly| -> Option<()> {
            *p = walk.substitute(p, atom, by, 0, false)?;
            Some(())
        };
        for p in out.shape.iter_mut().chain(out.strides.iter_mut()) {
            put(self, p)?;
        }
        put(self, &mut out.offset)?;
        for p in out
            .region
            .starts
            .iter_mut()
            .chain(out.region.counts.iter_mut())
        {
            put(self, p)?;
        }
        Some(out)
    }

    /// The checks of a multicast copy's destination: each CTA's box lands
    /// in this CTA's copy of the buffer, apart from the others' (TK0433),
    /// and meets no pending copy, unordered access or unfenced generic
    /// write, as any copy's destination.
    fn multicast_destination(
        &mut self,
        apply: &Apply,
        (span, name, buffer): (SpanId, &str, usize),
        view: &Layout,
        state: &State<'c>,
    ) {
        let Some(views) = self.multicast_views(apply, view) else {
            return;
        };
        let footprints: Vec<Footprint> = views.iter().map(footprint).collect();
        for (i, a) in footprints.iter().enumerate() {
            for (j, b) in footprints.iter().enumerate().skip(i + 1) {
                if !self.apart(a, b, &apply.facts) {
                    self.report(
                        Diagnostic::new(
                            Code::MULTICAST_COPY,
                            span,
                            format!("the CTAs of the cluster multicast their boxes into overlapping bytes of `{name}`: the boxes of ranks {i} and {j} meet in every CTA's copy"),
                        )
                        .with_help("give each CTA its own part of the destination: a slice that starts at `cluster_ctarank()` times its extent"),
                    );
                    return;
                }
            }
        }
        for (view, footprint) in views.iter().zip(&footprints) {
            let access = SharedOperand {
                span,
                name,
                buffer,
                view,
                footprint,
                write: true,
            };
            self.shared_access(apply, &access, &state.copies);
            if self.copy_after_touches(apply, &access, &state.touches) {
                self.async_after_generic(apply, &access, &state.generic);
            }
        }
    }

    /// The shared matrices a `wgmma.mma_async` reads, each owned against
    /// writes until a `wgmma.wait_group` retires its group.
    fn issue_matrix_reads(&mut self, apply: &Apply) -> Vec<Copy<'c>> {
        let mut copies = Vec::new();
        for operand in &apply.operands {
            let Value::Memory { buffer, view, .. } = &operand.value else {
                continue;
            };
            if !operand.slot.descriptor {
                continue;
            }
            let separated = self.separated(apply, view);
            copies.push(Copy {
                number: apply.number,
                opcode: Rc::from(apply.opcode.as_str()),
                span: operand.span,
                buffer: buffer.index,
                footprint: self.footprint_of(view),
                source: None,
                separated,
                status: Status::Pending { lo: 0, hi: 0 },
                loops: self.loops_here(),
                shifts: 0,
                attachment: None,
                role: Role::WgmmaSource,
                issuers: self.issuers(apply),
                issuer_moved: false,
                exists_if: Rc::default(),
                acquired: None,
                released: None,
                ticket_carried: 0,
            });
        }
        copies
    }

    /// `commit_group`, `wait_group n`, `wait_all`, of `cp.async` or of
    /// bulk groups (`cp.async.bulk.*`, whose `wait_group.read` retires a
    /// store's source but not its target). A retired store target is
    /// gone: nothing else of the thread waits for it.
    fn group(&mut self, apply: &Apply, copies: &mut Listed<Copy<'c>>) {
        let unconditional = apply.user_guard == Cond::Const(true);
        let mnemonic = apply.form.form.mnemonic;
        let bulk_group = mnemonic.starts_with("cp.async.bulk.");
        let wgmma_group = mnemonic.starts_with("wgmma.");
        let read_only = apply.form.get(crate::ptx::Slot::Read).is_some();
        let waiters = self.issuers(apply);
        for at in 0..copies.len() {
            let copy = &copies[at];
            if copy.role.in_bulk_group() != bulk_group
                || (copy.role == Role::WgmmaSource) != wgmma_group
                || copy.role == Role::Bulk
                || (read_only && copy.role == Role::StoreTarget)
            {
                continue;
            }
            let Status::Pending { lo, hi } = copy.status else {
                continue;
            };
            // A bulk group's wait completes the waiting thread's own
            // stores only: another thread's store stays pending (the
            // `if`'s join then keeps it from the issuer's arm).
            let by_issuer = waiters.iter().all(|f| copy.issuers.contains(f));
            if copy.role == Role::StoreTarget && !by_issuer {
                continue;
            }
            let status = match mnemonic {
                "cp.async.commit_group" | "cp.async.bulk.commit_group" => Status::Pending {
                    lo: if unconditional {
                        (lo + 1).min(COMMIT_CAP)
                    } else {
                        lo
                    },
                    hi: (hi + 1).min(COMMIT_CAP),
                },
                "cp.async.wait_all" if unconditional => Status::Retired,
                "wgmma.commit_group" => Status::Pending {
                    lo: if unconditional {
                        (lo + 1).min(COMMIT_CAP)
                    } else {
                        lo
                    },
                    hi: (hi + 1).min(COMMIT_CAP),
                },
                "cp.async.wait_group" | "cp.async.bulk.wait_group" | "wgmma.wait_group"
                    if unconditional =>
                {
                    let n = wait_count(apply);
                    if lo > n { Status::Retired } else { copy.status }
                }
                _ => copy.status,
            };
            let issuer_moved = copy.issuer_moved || by_issuer;
            if status != copy.status || issuer_moved != copy.issuer_moved {
                let copy = item_mut(copies, at);
                copy.status = status;
                copy.issuer_moved = issuer_moved;
            }
        }
        retain_listed(copies, |c| {
            !(c.role == Role::StoreTarget && c.status == Status::Retired)
        });
    }

    /// An access to a shared buffer against the copies in flight or
    /// unpublished.
    fn shared_access(
        &mut self,
        apply: &Apply,
        access: &SharedOperand<'_>,
        copies: &[Rc<Copy<'c>>],
    ) {
        let (span, name, buffer, write) = (access.span, access.name, access.buffer, access.write);
        // A store's source meets writes only; its target is global.
        let meets = |c: &&Rc<Copy>| {
            c.buffer == buffer
                && match c.role {
                    Role::CpAsync | Role::Bulk => true,
                    Role::StoreSource | Role::WgmmaSource => write,
                    Role::StoreTarget => false,
                }
        };
        let accessing = self.threads_of_apply(apply);
        for copy in copies.iter().filter(meets) {
            if acquired_by(&copy.acquired, &accessing) {
                continue;
            }
            let here = self.at_iteration(access.footprint, &copy.loops);
            if self.apart_at(apply, &copy.footprint, &here) {
                continue;
            }
            let verb = if apply.form.effect() == Effect::AsyncCopy {
                "copied into"
            } else if write {
                "written"
            } else {
                "read"
            };
            match copy.status {
                // One missing wait, one error: at the first access it lets
                // meet the copy.
                Status::Pending { .. } if self.reported_copies.contains(&copy.number) => {}
                Status::Pending { lo, .. } => {
                    if self.quiet == 0 {
                        self.reported_copies.push(copy.number);
                    }
                    let help = if copy.role == Role::WgmmaSource {
                        if lo == 0 {
                            "commit its wgmma group (`wgmma.commit_group.sync.aligned`) and wait for it (`wgmma.wait_group.sync.aligned`) before this statement".to_string()
                        } else {
                            format!(
                                "wait for its wgmma group before this statement: `apply(ptx[\"wgmma.wait_group.sync.aligned\"], {}, scope = \"warpgroup\")` retires it",
                                lo - 1
                            )
                        }
                    } else if copy.role == Role::StoreSource {
                        if lo == 0 {
                            "commit its bulk group (`cp.async.bulk.commit_group`) and wait until its source was read (`cp.async.bulk.wait_group.read`) before this statement".to_string()
                        } else {
                            format!(
                                "wait until its bulk group's source was read before this statement: `apply(ptx[\"cp.async.bulk.wait_group.read\"], {})` retires it",
                                lo - 1
                            )
                        }
                    } else if let Some(acquired) = &copy.acquired
                        && !acquired.is_empty()
                    {
                        format!(
                            "other threads waited for the copy{}, not these: before this statement, wait for its phase here too, or for an mbarrier phase those threads arrive on after their wait (a ring's empty barrier)",
                            copy.attachment.as_ref().map_or(String::new(), |a| format!(
                                " (on `{}`)",
                                self.context.shared_names[a.ring]
                            ))
                        )
                    } else if copy.role == Role::Bulk {
                        format!(
                            "wait for the mbarrier phase the copy's bytes complete{}: `apply(ptx[\"mbarrier.try_wait.parity.shared::cta.b64\"], ..)` before this statement",
                            copy.attachment.as_ref().map_or(String::new(), |a| format!(
                                " (on `{}`)",
                                self.context.shared_names[a.ring]
                            ))
                        )
                    } else if let Some(attachment) = &copy.attachment {
                        format!(
                            "wait for the phase of `{}` its `cp.async.mbarrier.arrive` completes: `apply(ptx[\"mbarrier.try_wait.parity.shared::cta.b64\"], ..)` before this statement",
                            self.context.shared_names[attachment.ring]
                        )
                    } else if lo == 0 {
                        "commit its group (`cp.async.commit_group`) and wait for it (`cp.async.wait_group` or `cp.async.wait_all`) before this statement".to_string()
                    } else {
                        format!(
                            "wait for its group before this statement: `apply(ptx[\"cp.async.wait_group\"], {})` retires it",
                            lo - 1
                        )
                    };
                    self.report(
                        Diagnostic::new(
                            Code::ASYNC_IN_FLIGHT,
                            span,
                            format!(
                                "`{name}` is {verb} here while the `{}` of statement {} may still be {} these bytes",
                                copy.opcode,
                                copy.number,
                                if copy.role.reads_only() {
                                    "reading"
                                } else {
                                    "writing"
                                }
                            ),
                        )
                        .with_help(help),
                    );
                }
                Status::Retired => {
                    if self.own_bytes(&copy.separated, apply, access.view) {
                        continue;
                    }
                    let shared = &self.context.shared_names[buffer];
                    self.report(
                        Diagnostic::new(
                            Code::ASYNC_UNPUBLISHED,
                            span,
                            format!(
                                "`{name}` is {verb} here by threads other than the one whose `{}` (statement {}) {} these bytes of `{shared}`, with no CTA barrier since its wait",
                                copy.opcode,
                                copy.number,
                                if copy.role.reads_only() {
                                    "read"
                                } else {
                                    "wrote"
                                }
                            ),
                        )
                        .with_help(
                            "a wait makes a copy visible to its own thread only: put `apply(ptx[\"bar.sync\"], 0, scope = \"cta\")` after the wait",
                        ),
                    );
                }
            }
        }
    }

    /// A store to global tensor `param` against the pending copies reading it.
    fn global_store(
        &mut self,
        apply: &Apply,
        span: SpanId,
        name: &str,
        param: usize,
        access: &Footprint,
        copies: &[Rc<Copy<'c>>],
    ) {
        for copy in copies {
            if copy.role == Role::StoreTarget {
                // (A plain store to a tensor async stores write is the
                // race obligation's error, TK0425.)
                if apply.form.effect() == Effect::AsyncCopy {
                    self.store_after_store(apply, span, name, param, access, copy);
                }
                continue;
            }
            let Some((source, footprint)) = &copy.source else {
                continue;
            };
            if *source != param || !matches!(copy.status, Status::Pending { .. }) {
                continue;
            }
            let access = self.at_iteration(access, &copy.loops);
            if self.apart(footprint, &access, &apply.facts) {
                continue;
            }
            let tensor = &self.context.param_names[param];
            self.report(
                Diagnostic::new(
                    Code::ASYNC_SOURCE_WRITTEN,
                    span,
                    format!(
                        "`{name}` is written here while the `{}` of statement {} may still be reading these bytes of `{tensor}`",
                        copy.opcode, copy.number
                    ),
                )
                .with_help("wait for the copy (`cp.async.wait_group`) before writing its source"),
            );
        }
    }

    /// A store to global tensor `param` against an earlier async store of
    /// the thread whose writes no `cp.async.bulk.wait_group` (without
    /// `.read`) has seen complete.
    fn store_after_store(
        &mut self,
        apply: &Apply,
        span: SpanId,
        name: &str,
        param: usize,
        access: &Footprint,
        earlier: &Copy<'c>,
    ) {
        // Two bulk reductions update each element atomically, in either
        // order (`cp.reduce.async.bulk`: the mnemonic is the opcode's
        // start): no write is lost.
        if earlier.buffer != param
            || (apply.form.bulk_reduction() && earlier.opcode.starts_with("cp.reduce."))
        {
            return;
        }
        let access = self.at_iteration(access, &earlier.loops);
        if self.apart(&earlier.footprint, &access, &apply.facts) {
            return;
        }
        let tensor = &self.context.param_names[param];
        self.report(
            Diagnostic::new(
                Code::ASYNC_STORE_ORDER,
                span,
                format!(
                    "`{name}` is {} here while the `{}` of statement {} may still be writing these bytes of `{tensor}`: the async proxy does not keep a thread's stores in order",
                    if apply.form.bulk_reduction() { "updated" } else { "stored" },
                    earlier.opcode, earlier.number
                ),
            )
            .with_help("wait for the earlier store's bulk group before this statement: `apply(ptx[\"cp.async.bulk.wait_group\"], 0)` (without `.read`)"),
        );
    }

    /// An access's footprint as compared with an earlier one made in the
    /// runtime loops `loops`: in a loop walked at a known iteration that
    /// the earlier one predates, with the loop variable's value put in.
    fn at_iteration(&mut self, access: &Footprint, loops: &[AtomId]) -> Footprint {
        let exact: Vec<(AtomId, AtomId, Poly)> = self
            .exact
            .iter()
            .filter(|(_, first, _)| !loops.contains(first))
            .cloned()
            .collect();
        if exact.is_empty() {
            return access.clone();
        }
        access
            .iter()
            .map(|axis| {
                let (mut start, len) = axis.clone()?;
                for (var, first, value) in &exact {
                    start = self
                        .substitute(&start, *var, value, *first, false)
                        .unwrap_or(start);
                }
                Some((start, len))
            })
            .collect::<Vec<_>>()
            .into()
    }

    /// [`Walk::apart`] of `copy`'s footprint and `here`, an access's,
    /// under `apply`'s facts, remembered ([`Walk::apart_at`]). The answer
    /// depends on nothing else: the footprints' atoms keep their ranges
    /// and definitions while the walk adds atoms.
    fn apart_at(&mut self, apply: &Apply, copy: &Footprint, here: &Footprint) -> bool {
        let key = (
            apply as *const Apply as usize,
            Rc::as_ptr(copy) as usize,
            Rc::as_ptr(here) as usize,
        );
        if let Some((held_copy, held_here, apart)) = self.apart_at.get(&key)
            && Rc::ptr_eq(held_copy, copy)
            && Rc::ptr_eq(held_here, here)
        {
            return *apart;
        }
        let apart = self.apart(copy, here, &apply.facts);
        self.apart_at
            .insert(key, (Rc::clone(copy), Rc::clone(here), apart));
        apart
    }

    /// Whether two footprints of one buffer are provably disjoint on some
    /// axis.
    fn apart(&mut self, a: &Footprint, b: &Footprint, facts: &[Fact]) -> bool {
        // The cheap tests first: the prover searches the facts.
        let cheap = a.iter().zip(b.iter()).any(|(fa, fb)| match (fa, fb) {
            (Some((sa, la)), Some((sb, lb))) => {
                ranges_apart(&self.atoms, (sa, *la), (sb, *lb))
                    || remainders_apart(&self.atoms, (sa, *la), (sb, *lb))
            }
            _ => false,
        });
        if cheap {
            return true;
        }
        a.iter().zip(b.iter()).any(|(fa, fb)| match (fa, fb) {
            (Some((sa, la)), Some((sb, lb))) => {
                self.le(facts, &sa.add_const(*la), sb) || self.le(facts, &sb.add_const(*lb), sa)
            }
            _ => false,
        })
    }

    /// [`Prover::prove_le0`] of `p` from `facts` over the walk's atoms,
    /// remembered: the loops walk a body many times, and an unrolled loop
    /// asks its iterations' questions under the same facts.
    fn prove_le0(&self, facts: &[Fact], p: &Poly) -> bool {
        self.proofs.prove_le0(&self.atoms, facts, p)
    }

    /// `a <= b` ([`Walk::prove_le0`]).
    fn le(&self, facts: &[Fact], a: &Poly, b: &Poly) -> bool {
        self.proofs.le(&self.atoms, facts, a, b)
    }

    /// Whether every byte of an `earlier` access that `apply`'s operand
    /// `view` meets is the accessing thread's own: the two accesses
    /// separate threads alike.
    fn own_bytes(&mut self, earlier: &Separated<'c>, apply: &Apply, view: &Layout) -> bool {
        let here = self.separated(apply, view);
        let threads = &self.context.threads;
        let live = threads.live_digits(MemorySpace::Shared);
        threads
            .unseparated(
                &[
                    (&earlier.candidates(), earlier.pinned()),
                    (&here.candidates(), here.pinned()),
                ],
                &live,
            )
            .is_empty()
    }
}

/// After a virtual join of a uniform `if` (a refill under a tail guard,
/// `crate::prove::async_copies` module doc): the copies and touches one
/// arm has and the other does not exist only where that arm's condition
/// holds. A later copy into the stage, proven to run only where the guard
/// held (its ticket is real), does not meet the touches the skipped path
/// left; a loop's exit does not see the copies of an iteration it could
/// not have left after.
fn tag_guarded_arms<'c>(then_state: &mut State<'c>, else_state: &mut State<'c>, cond: &Cond) {
    let (then_facts, else_facts) = (cond.facts(true), cond.facts(false));
    // Which items each arm has a `same` of in the other, both asked before
    // either arm is tagged.
    let copy_key = |c: &Copy<'_>| c.key();
    let then_copies = held_in(&then_state.copies, &else_state.copies, copy_key, Copy::same);
    let else_copies = held_in(&else_state.copies, &then_state.copies, copy_key, Copy::same);
    let touch_key = |t: &Touch<'_>| t.key();
    let then_touches = held_in(
        &then_state.touches,
        &else_state.touches,
        touch_key,
        Touch::same_access,
    );
    let else_touches = held_in(
        &else_state.touches,
        &then_state.touches,
        touch_key,
        Touch::same_access,
    );
    tag_own(
        &mut then_state.copies,
        &then_copies,
        |c| Rc::make_mut(&mut c.exists_if),
        &then_facts,
    );
    tag_own(
        &mut else_state.copies,
        &else_copies,
        |c| Rc::make_mut(&mut c.exists_if),
        &else_facts,
    );
    tag_own(
        &mut then_state.touches,
        &then_touches,
        |t| Rc::make_mut(&mut t.exists_if),
        &then_facts,
    );
    tag_own(
        &mut else_state.touches,
        &else_touches,
        |t| Rc::make_mut(&mut t.exists_if),
        &else_facts,
    );
}

/// Per item of `arm`, whether `other` holds a `same` of it (`same(other's,
/// arm's)`), the candidates found by `key` (which `same` items share).
fn held_in<T, K: IndexKey>(
    arm: &[Rc<T>],
    other: &[Rc<T>],
    key: impl Fn(&T) -> K,
    same: impl Fn(&T, &T) -> bool,
) -> Vec<bool> {
    // Every `same` holds of an item and itself: one item (an address) is
    // held without comparing it.
    let same = |o: &Rc<T>, item: &Rc<T>| Rc::ptr_eq(o, item) || same(o, item);
    // The two lists mostly hold the same items first, in the same order:
    // those are held without a search.
    let common = arm
        .iter()
        .zip(other)
        .take_while(|(item, o)| same(o, item))
        .count();
    let mut held = vec![true; common];
    if common == arm.len() {
        return held;
    }
    let rest = &arm[common..];
    if rest.len() <= SCAN_UP_TO {
        held.extend(rest.iter().map(|item| {
            let wanted = key(item);
            other.iter().any(|o| key(o) == wanted && same(o, item))
        }));
        return held;
    }
    let by_key = KeyIndex::of(other, |o| key(o));
    held.extend(
        rest.iter()
            .map(|item| by_key.find(&key(item), |i| same(&other[i], item)).is_some()),
    );
    held
}

/// Adds `facts` to the path facts of each of `arm`'s items that the other
/// arm has no `same` of (`held`: [`held_in`]).
fn tag_own<T: Clone>(
    arm: &mut Listed<T>,
    held: &[bool],
    exists_if: impl Fn(&mut T) -> &mut Vec<Fact>,
    facts: &[Fact],
) {
    if facts.is_empty() || !held.contains(&false) {
        return;
    }
    for (item, held) in Rc::make_mut(arm).iter_mut().zip(held) {
        if !held {
            let tags = exists_if(Rc::make_mut(item));
            for fact in facts {
                if !tags.contains(fact) {
                    tags.push(fact.clone());
                }
            }
        }
    }
}

/// Whether `fact <= 0` stays true as loop variable `var` grows (loops
/// step up): its coefficient on `var` is a constant at most 0 and it names
/// no other atom of the loop's body (`first` on).
fn monotone_in(fact: &Fact, var: AtomId, first: AtomId) -> bool {
    let (coefficient, rest) = fact.split_on(var);
    coefficient.as_const().is_some_and(|c| c <= 0)
        && rest.atoms().iter().all(|a| *a < first && *a != var)
}

/// Drops from `state` the copies and touches that cannot exist where
/// `facts` hold.
fn prune_copies_and_touches(walk: &Walk<'_, '_>, state: &mut State<'_>, facts: &[Fact]) {
    // Each path fact asked once: the items mostly share a few.
    let mut refuted: WordMap<Fact, bool> = WordMap::default();
    let mut contradicts = |exists_if: &[Fact]| {
        exists_if.iter().any(|f| {
            if let Some(known) = refuted.get(f) {
                return *known;
            }
            let known = walk.prove_le0(facts, &Poly::constant(1).sub(f));
            refuted.insert(f.clone(), known);
            known
        })
    };
    retain_listed(&mut state.copies, |c| !contradicts(&c.exists_if));
    retain_listed(&mut state.touches, |t| !contradicts(&t.exists_if));
}

/// What is left of `state` after loop `first`: what depends on the loop
/// forgotten, the copies and touches of its iterations merged.
fn forget_state<'c>(state: State<'c>, first: AtomId) -> State<'c> {
    let copies = forget_listed(
        state.copies,
        |c| c.loops.contains(&first),
        |c| forget_copy(c, first),
    );
    let touches = forget_listed(
        state.touches,
        |t| t.loops.contains(&first),
        |t| forget_touch(t, first),
    );
    join(
        State::default(),
        State {
            copies,
            touches,
            rings: state.rings,
            generic: state.generic,
            wgmma: state.wgmma,
        },
    )
}

/// `list` with `forget` of each item `in_loop`; the others stay as they
/// are (and shared).
fn forget_listed<T: Clone>(
    list: Listed<T>,
    in_loop: impl Fn(&T) -> bool,
    forget: impl Fn(T) -> T,
) -> Listed<T> {
    Rc::new(
        Rc::unwrap_or_clone(list)
            .into_iter()
            .map(|item| {
                if in_loop(&item) {
                    Rc::new(forget(Rc::unwrap_or_clone(item)))
                } else {
                    item
                }
            })
            .collect(),
    )
}

/// A copy of loop `first`'s body, seen after the loop or past the shift
/// limit: its loop-dependent indices become "anywhere", and it counts as
/// issued once, outside the loop (so its copies merge).
fn forget_copy<'c>(mut copy: Copy<'c>, first: AtomId) -> Copy<'c> {
    if !copy.loops.contains(&first) {
        return copy;
    }
    forget_axes(&mut copy.footprint, first);
    if let Some((_, footprint)) = &mut copy.source {
        forget_axes(footprint, first);
    }
    copy.separated.drop_stale(first);
    if let Some(attachment) = &mut copy.attachment
        && attachment
            .ticket
            .as_ref()
            .is_some_and(|t| names_loop(t, first))
    {
        attachment.ticket = None;
    }
    copy.loops = copy.loops.iter().copied().filter(|l| *l < first).collect();
    copy.shifts = 0;
    copy.exists_if = Rc::default();
    copy
}

/// Whether `p` names an atom of loop `first`'s body.
fn names_loop(p: &Poly, first: AtomId) -> bool {
    p.atoms().iter().any(|a| *a >= first)
}

/// The `wgmma` matrix reads a wait retired become the thread's reads of
/// those bytes: done, and ordered for other threads like any read (by a
/// CTA barrier, or by an mbarrier phase the reader arrives on after the
/// wait and the other thread waits for).
fn retire_matrix_reads<'c>(walk: &mut Walk<'c, '_>, state: &mut State<'c>) {
    let retired_read = |c: &Copy<'_>| c.role == Role::WgmmaSource && c.status == Status::Retired;
    if !state.copies.iter().any(|c| retired_read(c)) {
        return;
    }
    let (retired, kept): (Vec<Rc<Copy>>, Vec<Rc<Copy>>) =
        Rc::unwrap_or_clone(std::mem::take(&mut state.copies))
            .into_iter()
            .partition(|c| retired_read(c));
    state.copies = Rc::new(kept);
    for copy in retired {
        let copy = Rc::unwrap_or_clone(copy);
        let makers = walk.threads_of_issuers(&copy.issuers);
        let touch = Touch {
            span: copy.span,
            buffer: copy.buffer,
            write: false,
            footprint: copy.footprint,
            separated: copy.separated,
            loops: copy.loops,
            shifts: copy.shifts,
            released: None,
            ticket_carried: 0,
            wgmma_read: Some((copy.number, copy.opcode)),
            exists_if: copy.exists_if,
            makers,
            acquired: None,
            warp_synced: false,
        };
        join_touch(&mut state.touches, touch);
    }
}

/// A touch of loop `first`'s body seen after the loop or past the shift
/// limit: its loop-dependent indices become "anywhere".
fn forget_touch<'c>(mut touch: Touch<'c>, first: AtomId) -> Touch<'c> {
    if !touch.loops.contains(&first) {
        return touch;
    }
    forget_axes(&mut touch.footprint, first);
    touch.separated.drop_stale(first);
    if touch
        .released
        .as_ref()
        .is_some_and(|(_, t)| names_loop(t, first))
    {
        touch.released = None;
    }
    touch.loops = touch.loops.iter().copied().filter(|l| *l < first).collect();
    touch.shifts = 0;
    touch.exists_if = Rc::default();
    touch
}

/// The axes of `footprint` whose start names an atom of loop `first`'s
/// body become "anywhere".
fn forget_axes(footprint: &mut Footprint, first: AtomId) {
    let stale = |axis: &Option<(Poly, i128)>| {
        axis.as_ref()
            .is_some_and(|(start, _)| start.atoms().iter().any(|a| *a >= first))
    };
    // Copied (from a state it shares) only where an axis is forgotten.
    if !footprint.iter().any(stale) {
        return;
    }
    for axis in Rc::make_mut(footprint).iter_mut() {
        if stale(axis) {
            *axis = None;
        }
    }
}

/// A shared memory operand of an `apply`, as the walk checks it.
struct SharedOperand<'a> {
    span: SpanId,
    name: &'a str,
    buffer: usize,
    view: &'a Layout,
    footprint: &'a Footprint,
    write: bool,
}

/// The `n` of `cp.async.wait_group n`.
fn wait_count(apply: &Apply) -> u32 {
    apply
        .operands
        .iter()
        .find_map(|o| match o.value {
            Value::Literal(crate::ast::LiteralValue::Int(n)) => u32::try_from(n).ok(),
            _ => None,
        })
        .unwrap_or(u32::MAX)
}

/// The footprint of a view: per axis of its buffer the indices it reaches,
/// then its bytes.
fn footprint(view: &Layout) -> Footprint {
    let region = &view.region;
    let mut out: Vec<Option<(Poly, i128)>> = (0..region.starts.len())
        .map(|axis| {
            let count = region.counts[axis].as_const().filter(|c| *c >= 1)?;
            Some((
                region.starts[axis].clone(),
                (count - 1) * region.steps[axis] + 1,
            ))
        })
        .collect();
    out.push(byte_span(view).map(|span| (view.offset.clone(), span)));
    Rc::new(out)
}

/// Whether the ranges of every thread's starts keep the intervals apart.
fn ranges_apart(atoms: &Atoms, (sa, la): (&Poly, i128), (sb, lb): (&Poly, i128)) -> bool {
    let (alo, ahi) = atoms.range(sa);
    let (blo, bhi) = atoms.range(sb);
    ahi.saturating_add(la) <= blo || bhi.saturating_add(lb) <= alo
}

/// Two intervals whose starts differ by `g * (x % m - (x - c) % m)` plus a
/// constant: the remainders' difference is `c mod m` or `c mod m - m`, so
/// the intervals are apart when both values keep them so.
fn remainders_apart(atoms: &Atoms, (sa, la): (&Poly, i128), (sb, lb): (&Poly, i128)) -> bool {
    let difference = sa.sub(sb);
    let offset = difference.constant_term();
    let mut remainders = Vec::new();
    for (monomial, coef) in difference.terms() {
        match monomial {
            [] => {}
            [atom] => match &atoms.get(*atom).kind {
                AtomKind::Computed(ComputedOp::Rem, args) => match args[1].as_const() {
                    Some(m) if m >= 1 => remainders.push((coef, &args[0], m)),
                    _ => return false,
                },
                _ => return false,
            },
            _ => return false,
        }
    }
    let [(c1, x1, m1), (c2, x2, m2)] = remainders.as_slice() else {
        return false;
    };
    if m1 != m2 || c1 + c2 != 0 {
        return false;
    }
    // `g * (plus % m - minus % m)` with `plus - minus == c`.
    let (plus, minus) = if *c1 > 0 { (x1, x2) } else { (x2, x1) };
    let Some(c) = plus.sub(minus).as_const() else {
        return false;
    };
    let g = c1.abs();
    let residue = c.rem_euclid(*m1);
    let values: &[i128] = if residue == 0 {
        &[0]
    } else {
        &[residue, residue - m1]
    };
    values.iter().all(|v| {
        let d = offset + g * v;
        d >= lb || d <= -la
    })
}

/// `op` over constant arguments (`None`: undefined there).
fn evaluate(op: ComputedOp, values: &[i128]) -> Option<i128> {
    let (a, b) = (*values.first()?, *values.get(1)?);
    Some(match op {
        ComputedOp::Div if a >= 0 && b >= 1 => a / b,
        ComputedOp::Rem if a >= 0 && b >= 1 => a % b,
        ComputedOp::CeilDiv if a >= 0 && b >= 1 => (a + b - 1) / b,
        ComputedOp::Min => a.min(b),
        ComputedOp::Max => a.max(b),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sym::Atom;

    fn table() -> (Atoms, AtomId, AtomId, AtomId) {
        let mut atoms = Atoms::default();
        let k = atoms.push(Atom {
            kind: AtomKind::LoopVar,
            name: "k".into(),
            lo: 0,
            hi: 1000,
        });
        let r0 = atoms.push(Atom {
            kind: AtomKind::Computed(ComputedOp::Rem, vec![Poly::atom(k), Poly::constant(3)]),
            name: "k % 3".into(),
            lo: 0,
            hi: 2,
        });
        let r2 = atoms.push(Atom {
            kind: AtomKind::Computed(
                ComputedOp::Rem,
                vec![Poly::atom(k).add_const(2), Poly::constant(3)],
            ),
            name: "(k + 2) % 3".into(),
            lo: 0,
            hi: 2,
        });
        (atoms, k, r0, r2)
    }

    /// Ring stages `k % 3` and `(k + 2) % 3` never meet; a stage and
    /// itself do; two rows of a stage are apart only when their lengths
    /// keep them so.
    #[test]
    fn remainders_of_shifted_dividends_are_apart() {
        let (atoms, _, r0, r2) = table();
        let (a, b) = (Poly::atom(r0), Poly::atom(r2));
        assert!(remainders_apart(&atoms, (&a, 1), (&b, 1)));
        assert!(!remainders_apart(&atoms, (&a, 1), (&a, 1)));
        // Stage-major rows of 64 bytes: `64 * (k % 3)` and `64 * ((k + 2) % 3)`.
        assert!(remainders_apart(
            &atoms,
            (&a.scale(64), 64),
            (&b.scale(64), 64)
        ));
        // 129 bytes from `64 * (k % 3)` reach the next stage when it is 128 back.
        assert!(!remainders_apart(
            &atoms,
            (&a.scale(64), 129),
            (&b.scale(64), 64)
        ));
        // Wider than one stage: `[k % 3, +2)` meets `(k + 2) % 3 = k % 3 - 1`.
        assert!(!remainders_apart(&atoms, (&b, 2), (&a, 1)));
    }

    /// Every thread's start range decides disjoint halves of a buffer.
    #[test]
    fn disjoint_ranges_are_apart() {
        let (atoms, k, _, _) = table();
        let low = Poly::atom(k);
        let high = Poly::atom(k).add_const(1001);
        assert!(ranges_apart(&atoms, (&low, 1), (&high, 1)));
        assert!(!ranges_apart(&atoms, (&low, 2), (&low.add_const(1), 1)));
    }

    /// Joining keeps a copy pending if either path does, with both ranges.
    #[test]
    fn join_keeps_the_pending_path() {
        assert_eq!(
            join_status(
                Status::Pending { lo: 2, hi: 2 },
                Status::Pending { lo: 1, hi: 3 }
            ),
            Status::Pending { lo: 1, hi: 3 }
        );
        assert_eq!(
            join_status(Status::Retired, Status::Pending { lo: 1, hi: 1 }),
            Status::Pending { lo: 1, hi: 1 }
        );
        assert_eq!(
            join_status(Status::Retired, Status::Retired),
            Status::Retired
        );
    }

    /// Two versions of an access merge to the later release: not
    /// released on either path is not released; tickets a constant apart
    /// keep the higher; other rings or unrelated tickets stay apart. A
    /// loop head's version covers one released no later.
    #[test]
    fn versions_merge_to_the_later_release() {
        let (_, k, r0, _) = table();
        let at = |ticket: Poly| Some((3, Rc::new(ticket)));
        let k1 = Poly::atom(k).add_const(-1);
        let k2 = Poly::atom(k).add_const(-2);
        assert_eq!(
            later_release(&None, &at(k1.clone())),
            Some(Later::Unreleased)
        );
        assert_eq!(
            later_release(&at(k1.clone()), &None),
            Some(Later::Unreleased)
        );
        assert_eq!(
            later_release(&at(k1.clone()), &at(k2.clone())),
            Some(Later::First)
        );
        assert_eq!(
            later_release(&at(k2.clone()), &at(k1.clone())),
            Some(Later::Second)
        );
        assert_eq!(
            later_release(&at(k1.clone()), &at(k1.clone())),
            Some(Later::First)
        );
        assert_eq!(
            later_release(&at(k1.clone()), &Some((4, Rc::new(k2.clone())))),
            None
        );
        assert_eq!(later_release(&at(k1.clone()), &at(Poly::atom(r0))), None);
        assert!(released_no_sooner(&None, &at(k2.clone())));
        assert!(released_no_sooner(&at(k1.clone()), &at(k2.clone())));
        assert!(!released_no_sooner(&at(k2.clone()), &at(k1.clone())));
        assert!(!released_no_sooner(&at(k1.clone()), &None));
        assert!(!released_no_sooner(&at(k1), &Some((4, Rc::new(k2)))));
    }

    #[test]
    fn constant_operations_evaluate() {
        assert_eq!(evaluate(ComputedOp::Rem, &[7, 3]), Some(1));
        assert_eq!(evaluate(ComputedOp::Div, &[7, 3]), Some(2));
        assert_eq!(evaluate(ComputedOp::Rem, &[-1, 3]), None);
    }
}
