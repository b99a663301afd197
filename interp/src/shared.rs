//! Shared memory as one cluster's CTAs see it (one block's, in a kernel
//! without a cluster): the bytes of each shared buffer of the program
//! (`alloc_shared`), one copy per CTA, every access bounds-, alignment-,
//! definedness- and race-checked. A thread reaches its own CTA's copy,
//! and with a plain `.shared::cluster` access (`ld`, `st`, `atom`, `red`)
//! any CTA's of its cluster ([`SharedMemory::access_in`]); everything
//! else (copies, bulk stores, mbarrier objects) is its own CTA's. Threads
//! are named by their cluster index (`rank * block threads + index in the
//! block`; the block's index without a cluster).
//!
//! - **Bounds and alignment.** An access's offset is relative to its
//!   buffer's start and must lie inside the buffer (its elements, not the
//!   padding up to the next buffer); it must be a multiple of the access's
//!   size (the buffers are 16-byte aligned on the GPU, so that is the
//!   address's alignment).
//! - **Definedness.** Shared memory starts undefined on the GPU (whatever
//!   an earlier block left there): every byte remembers whether a thread
//!   of the cluster has written it (a store, or an atomic), and a read (a
//!   load, or an atomic reading the old value) of a byte none has written
//!   is a fault, not a silent zero.
//! - **Races.** Every byte has the race shadow of global memory
//!   ([`crate::memory::Shadow`]): a plain access that meets another
//!   thread's write (or a write that meets another thread's read, or a
//!   plain access that meets an atomic one) is a race unless the earlier
//!   access is ordered before it. The shadow's phases (*epochs*) are cut
//!   by the CTA barriers of the cluster's CTAs, by cluster barriers and by
//!   every statement that arrives on an mbarrier; each thread has a
//!   *floor*, and the accesses of its own CTA's threads in epochs below it
//!   are ordered before its own:
//!   - a CTA barrier starts an epoch and raises the floor of every thread
//!     of its CTA to it (what any thread of the CTA did before the barrier
//!     is ordered before what any thread of the CTA does after it, in
//!     every CTA's buffers);
//!   - the cluster barrier is every CTA's barrier;
//!   - a phase of an mbarrier object toward which every thread of its
//!     CTA arrived exactly once, each with a releasing arrival
//!     (`mbarrier.arrive` not `.relaxed`, or `cp.async.mbarrier.arrive.noinc`),
//!     *releases* the epochs below that of its first arrival: each
//!     arriving statement starts an epoch, so an access of an epoch below
//!     that one came before its thread's arrival (what a thread does after
//!     its arrival is in that epoch or a later one);
//!   - an acquiring parity wait that returns raises its thread's floor to
//!     the release of the object's last completed phase that released
//!     one (the arrivals are read-modify-writes of one object, so the
//!     wait synchronizes with every earlier releasing arrival);
//!   - besides, every phase releases *per arriving thread* of the object's
//!     CTA: each thread that arrived toward it releasing, whoever else
//!     arrived, releases its own accesses in epochs below its first such
//!     arrival's. A thread's *clock* ([`Clock`], a vector clock above its
//!     floor over the cluster's threads, kept as runs of threads with one
//!     epoch) holds what it acquired that way: an acquiring wait joins
//!     the object's accumulated per-thread release into it, and an access
//!     of another thread `u` of the CTA in an epoch below the clock's entry
//!     for `u` is ordered before the thread's (a word of several readers
//!     or atomics keeps the range of their threads: each must be ordered,
//!     [`Shadow::ranged`]). So the consumers of a warp-specialised ring
//!     release their reads of a stage through its `empty` barrier to the
//!     producer, and the arrivals of a phase completed by fewer threads
//!     than those that read order the arrivers' reads only. A `.relaxed`
//!     arrival releases nothing; barriers raise the floors above the
//!     clocks' entries for their CTA's threads (a CTA barrier gives each
//!     of its threads the join of their entries for other CTAs' threads;
//!     a cluster barrier clears the clocks);
//!   - `bar.warp.sync` starts an epoch, and each group of lanes running it
//!     with one membermask orders its lanes' earlier accesses before every
//!     lane's later ones: every lane's clock becomes the join of the
//!     lanes' clocks (and floors) raised to the new epoch for the lanes
//!     ([`SharedMemory::warp_sync`]).
//!
//!   The shadow forgets an access only once it is below the floor of
//!   every thread of its CTA; one below some floors only stays recorded
//!   (folded into the later access's word, [`Shadow::touch`]). When
//!   epochs run out, they are renumbered keeping only the cuts that still
//!   matter (the floors, the pending releases, the current epoch), which
//!   keeps every comparison the shadow makes.
//!
//!   In a cluster of several CTAs, nothing but the cluster barrier orders
//!   a plain access after an access of another CTA's thread (to any CTA's
//!   buffers; a CTA barrier orders its own CTA's threads), so two such
//!   accesses race exactly when they conflict and no cluster barrier
//!   falls between them. An asynchronous copy's write at its issue
//!   ([`Via::AsyncWrite`]) is also ordered after CTA `c`'s accesses by an
//!   mbarrier phase every thread of `c` arrived toward, releasing (at
//!   cluster scope, for an object of another CTA:
//!   `mbarrier.arrive.shared::cluster`), that its thread acquired: a
//!   phase's arrivals count per arriving thread's CTA, a phase releases
//!   for each CTA all of whose threads arrived the epochs below that
//!   CTA's first arrival, and the wait raises the waiter's floor for that
//!   CTA ([`SharedMemory::cross`]) — unless a plain access of another CTA
//!   touched the copy's destination buffer since the last cluster barrier
//!   (the per-CTA shadow below may then have forgotten an access for a
//!   non-conflicting one of another CTA), when only the cluster barrier
//!   orders it. A copy landed in another CTA than its issuer's (a
//!   multicast) is gated by that CTA's phase; another CTA's copy may
//!   write its bytes once a thread of that CTA observed the phase below
//!   the copy thread's floor for that CTA. Per-thread releases cross CTAs
//!   too: a remote arrival releasing at cluster scope releases its
//!   thread's accesses (to any CTA's buffers) to the object's waits that
//!   acquire at cluster scope ([`Acquiring::Cluster`]; a `.cta`-scoped
//!   wait joins its own CTA's entries only), so a copy's write is also
//!   ordered after a CTA's accesses of one way below its clock's entry for
//!   every thread of their range, and, on bytes a landed copy's gate still
//!   holds, after that landing once it passed the gate (the warp-specialised
//!   multicast ring: consumers only arrive on the peer's `empty`). Each
//!   byte's shadow then keeps the
//!   accesses of one CTA's threads ([`Shadow::per_cta`]: an access of
//!   another CTA's thread replaces them), and beside it a
//!   `ClusterTouches` records every access since the cluster's last
//!   barrier by CTA, which finds the races across CTAs, naming a thread
//!   that made the access raced with. (An access the shadow forgot that
//!   way, and that a later access of its own CTA would race with, is one
//!   the replacing access of another CTA, unordered with the later one
//!   too, conflicts with: the race is found there.)
//!
//! The threads of a cluster run on one host thread, so the bytes are
//! plain bytes and an atomic's read-modify-write needs no lock. A host
//! worker allocates its clusters' shared memory once (fallibly: a host
//! that cannot is reported, not an abort) and resets it between clusters,
//! only the bytes the previous cluster touched.
//!
//! - **Asynchronous copies.** The bytes a `cp.async` writes belong to the
//!   copy from its issue until it lands: any access to them meanwhile is a
//!   fault. It lands at its thread's wait (a write of that thread then), or
//!   when a phase of an mbarrier object that tracks it completes
//!   (`cp.async.mbarrier.arrive`); then its bytes are *gated* by that phase:
//!   only a thread that has observed the phase (an acquiring wait that
//!   returned after it) may touch them, and the copy's own thread once a
//!   `cp.async.wait_group`/`wait_all` of its has retired the copy's group
//!   ([`SharedMemory::retire_groups`]), and a thread of the CTA that
//!   acquired an access of the first thread that observed it made after
//!   that observation (its clock or floor for that thread above the
//!   observing wait's epoch: the producer of a ring refilling a stage its
//!   consumers observed and released); a CTA barrier after some thread
//!   observed the phase (or after the issuer's retiring wait, for its
//!   copy's bytes) makes them ordinary bytes again. A copy lands in its
//!   issuer's CTA's buffers, gated by that CTA's mbarrier objects; for
//!   races across CTAs, its landing is a write of its issuer.
//! - **Bulk stores.** The source bytes of a bulk store to global memory
//!   (`cp.async.bulk.global.shared::cta`, `cp.async.bulk.tensor` to
//!   global) are read by the async proxy at some point between the
//!   store's issue and the `cp.async.bulk.wait_group` (`.read` or not) of
//!   its thread that retires its bulk group. They are checked and
//!   recorded as a read of that thread at the issue and belong to the
//!   store until that wait ([`SharedMemory::begin_store_source`]): any
//!   thread may read them, none may write them meanwhile (a store, an
//!   atomic, or a copy into them is a fault), so the bytes read at the
//!   issue are the bytes the proxy reads. The retiring wait records the
//!   read again, as its thread's at the wait
//!   ([`SharedMemory::end_store_source`]): another thread writes the
//!   bytes only after a CTA barrier (or an mbarrier phase) that orders
//!   the write after the wait.
//! - **mbarrier objects.** Each 8-byte word of an mbarrier buffer
//!   (`alloc_shared::<Mbarrier>`) is an object: uninitialized, or its
//!   expected and pending arrivals and completed phases. `init` and `inval`
//!   write the word, arrivals and waits touch it atomically (so using an
//!   object another thread initialized needs a barrier between, as a
//!   store's bytes do).
//!
//! Guarantee: a value read from shared memory was written by a thread of
//! the same cluster into the same CTA's copy, inside the buffer, at an
//! aligned offset, and ordered before the read by a cluster barrier, or
//! (writer and reader threads of one CTA) by a CTA barrier of theirs, by
//! an mbarrier phase the writer arrived on (releasing) after the write and
//! the reader waited for (acquiring), or by a chain of those and
//! `bar.warp.sync`s, unless the same
//! thread wrote it (or both accesses were atomic), or landed with a copy
//! the reading thread has waited for (its own `cp.async` wait, or a phase
//! it observed); no byte is written while a bulk store may still read it
//! as its source; anything else is a [`FaultKind`]. An mbarrier object is
//! used only initialized, initialized only when it is not, and a phase
//! completes exactly when its expected arrivals have arrived.

use std::collections::HashMap;
use std::ops::Range;

use crate::fault::FaultKind;
use crate::memory::{Clock, MAX_EPOCH, Order, RANGED_THREADS, RaceAt, Shadow, Touch};

/// A shared buffer as the plan describes it.
#[derive(Debug, Clone)]
pub(crate) struct SharedLayout {
    pub name: String,
    pub bytes: usize,
    /// A buffer of mbarrier objects, 8 bytes each.
    pub mbarrier: bool,
}

/// One CTA's copy of a shared buffer.
struct Buffer {
    bytes: Vec<u8>,
    /// Written by a thread of the cluster.
    defined: Vec<bool>,
    /// Per byte: 0 (free), the statement number + 1 (below [`GATED`]) of
    /// the asynchronous copy that owns it until it lands, or [`GATED`] +
    /// the index of the [`Gate`] of a landed copy.
    in_flight: Vec<u32>,
    /// Per byte: 0, or the statement number + 1 of a bulk store that reads
    /// it as its source (of the last one to claim it, when several do;
    /// [`CtaShared::sources`] has them all).
    sourced: Vec<u32>,
    shadow: Shadow,
    /// The bytes accessed since the last reset (empty when none).
    touched: Range<usize>,
    /// Per 8 bytes of an mbarrier buffer: its object (`None`: not
    /// initialized); empty for other buffers.
    objects: Vec<Option<Object>>,
    /// Per byte, when the cluster has several CTAs: the accesses since the
    /// cluster's last barrier, for races across its CTAs; empty otherwise.
    cluster_touches: Vec<ClusterTouches>,
    /// [`SharedMemory::cluster_phase`] when a thread of another CTA last
    /// touched this copy with a plain access (0: never). Until the next
    /// cluster barrier, the copy's race shadow may have forgotten accesses
    /// of one CTA for another's that did not conflict with them
    /// ([`Shadow::per_cta`]), which only the cluster barrier then orders:
    /// an asynchronous copy's write into it is ordered after other CTAs'
    /// accesses by the cluster barrier alone ([`Via`]).
    remote: u32,
}

/// The accesses of one shared byte since the cluster's last barrier, for
/// races between threads of different CTAs: per way of touching it (a
/// read, a write, an atomic), up to two CTAs' such accesses (the range of
/// the threads that made them, their cluster indices, the lowest + 1 in
/// [`Self::threads`], 0: none; and the latest epoch among them).
///
/// A plain access is ordered after another CTA's only by a cluster
/// barrier between them (a CTA barrier or an mbarrier phase orders its own
/// CTA's threads), so it races exactly when it conflicts (not both reads,
/// not both atomics) with an access recorded here. An asynchronous copy's
/// write ([`Via::AsyncWrite`]) is also ordered after the accesses of a CTA
/// in epochs below its thread's floor for that CTA
/// ([`SharedMemory::cross`]), or below its clock's entry for each thread
/// of the range (each CTA's accesses that way decide together: the
/// latest epoch, every thread of the range), or, a copy's landing alone
/// ([`Self::landing`]) on a byte its gate still holds, once the access
/// passed the gate. When a third CTA touches the byte one way, that way is
/// *crowded*: the access is not recorded, and the way orders nothing but
/// the cluster barrier any more (of two recorded threads of different
/// CTAs, one is of another CTA than any thread that comes next, so a race
/// is still found, naming a thread that made the access it races with).
#[derive(Debug, Clone, Copy, Default)]
struct ClusterTouches {
    /// [`SharedMemory::cluster_phase`] when the accesses were recorded
    /// (0: never); older accesses are ordered before every access now.
    phase: u32,
    /// Indexed by [`way`]: the lowest thread + 1 of each slot.
    threads: [[u16; 2]; 3],
    /// The highest thread of each slot of [`Self::threads`].
    last: [[u16; 2]; 3],
    /// The latest epoch of the accesses of each slot.
    epochs: [[u32; 2]; 3],
    /// Bit [`way`]: a third CTA touched the byte that way.
    crowded: u8,
    /// Bit `2 * way + slot`: the slot is a copy's landing alone
    /// ([`SharedMemory::land_gated`]; its CTA's earlier accesses were
    /// ordered before the copy's issue), which an access that passed the
    /// byte's gate is ordered after.
    landing: u8,
}

/// The index of a way of touching memory in [`ClusterTouches::threads`].
fn way(touch: Touch) -> usize {
    match touch {
        Touch::Read => 0,
        Touch::Write => 1,
        Touch::Atomic => 2,
    }
}

/// What orders an asynchronous copy's write after other CTAs' accesses
/// ([`Via::AsyncWrite`]): its thread's floors per CTA
/// ([`SharedMemory::cross`]) and its clock ([`SharedMemory::clocks`]),
/// and whether the byte is gated by a landed copy whose gate the write
/// passed ([`SharedMemory::owned`]).
#[derive(Clone, Copy)]
struct Cross<'a> {
    floors: &'a [u64],
    clock: &'a Clock,
    gated: bool,
}

impl ClusterTouches {
    /// A thread of another CTA than `thread`'s (their cluster indices;
    /// `cta_threads` threads per CTA) whose access since the cluster's
    /// last barrier (`phase`) conflicts with `thread` touching the byte as
    /// `touch` and is not ordered before it, if any. `cross`: what orders
    /// other CTAs' accesses before this one (an asynchronous copy's
    /// write); `None`: only the cluster barrier.
    fn race(
        &self,
        phase: u32,
        thread: u64,
        cta_threads: u64,
        touch: Touch,
        cross: Option<Cross>,
    ) -> Option<u64> {
        if self.phase != phase {
            return None;
        }
        let conflicting: &[Touch] = match touch {
            Touch::Read => &[Touch::Write, Touch::Atomic],
            Touch::Write => &[Touch::Read, Touch::Write, Touch::Atomic],
            Touch::Atomic => &[Touch::Read, Touch::Write],
        };
        let cta = thread / cta_threads;
        for touch in conflicting {
            let w = way(*touch);
            let crowded = self.crowded & (1 << w) != 0;
            for slot in 0..2 {
                let entry = self.threads[w][slot];
                if entry == 0 {
                    continue;
                }
                let (lo, hi) = (u64::from(entry - 1), u64::from(self.last[w][slot]));
                let epoch = u64::from(self.epochs[w][slot]);
                let other_cta = lo / cta_threads;
                if other_cta == cta {
                    continue;
                }
                let landing = self.landing & (1 << (2 * w + slot)) != 0;
                let ordered = !crowded
                    && cross.is_some_and(|cross| {
                        cross
                            .floors
                            .get(other_cta as usize)
                            .is_some_and(|floor| epoch < *floor)
                            || cross.clock.min_over(lo, hi) > epoch
                            || (landing && cross.gated)
                    });
                if !ordered {
                    return Some(lo);
                }
            }
        }
        None
    }

    /// Records `thread` touching the byte as `touch` in `phase`, at
    /// `epoch` (the accesses of earlier phases are forgotten first): its
    /// CTA's accesses that way now range over it too, up to the latest
    /// epoch. `landing`: a copy's landing, which replaces its CTA's writes
    /// (ordered before the copy's issue, which was checked against them).
    fn record(
        &mut self,
        phase: u32,
        (thread, cta_threads): (u64, u64),
        touch: Touch,
        epoch: u64,
        landing: bool,
    ) {
        if self.phase != phase {
            *self = ClusterTouches {
                phase,
                ..ClusterTouches::default()
            };
        }
        // Cluster indices fit (`SharedMemory::new` refuses larger
        // clusters); epochs are below `MAX_EPOCH`.
        let me = u16::try_from(thread).unwrap_or(u16::MAX - 1);
        let epoch = u32::try_from(epoch).unwrap_or(u32::MAX);
        let w = way(touch);
        let cta = thread / cta_threads;
        let entries = &self.threads[w];
        let slot = entries
            .iter()
            .position(|e| *e != 0 && u64::from(*e - 1) / cta_threads == cta)
            .or_else(|| entries.iter().position(|e| *e == 0));
        let Some(i) = slot else {
            self.crowded |= 1 << w;
            return;
        };
        let bit = 1 << (2 * w + i);
        if self.threads[w][i] == 0 || landing {
            self.threads[w][i] = me + 1;
            self.last[w][i] = me;
            self.epochs[w][i] = epoch;
        } else {
            self.threads[w][i] = self.threads[w][i].min(me + 1);
            self.last[w][i] = self.last[w][i].max(me);
            self.epochs[w][i] = self.epochs[w][i].max(epoch);
        }
        if landing {
            self.landing |= bit;
        } else {
            self.landing &= !bit;
        }
    }

    /// The accesses recorded in `phase` with their epochs renumbered.
    fn renumber(&mut self, phase: u32, renumber: &impl Fn(u64) -> u64) {
        if self.phase != phase {
            return;
        }
        for (entries, epochs) in self.threads.iter().zip(&mut self.epochs) {
            for (entry, epoch) in entries.iter().zip(epochs) {
                if *entry != 0 {
                    *epoch = u32::try_from(renumber(u64::from(*epoch))).unwrap_or(u32::MAX);
                }
            }
        }
    }
}

/// How an access is ordered after the accesses of other CTAs' threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Via {
    /// A thread's own access: after them only by a cluster barrier.
    Plain,
    /// An asynchronous copy's write into shared memory (at its issue):
    /// also by an mbarrier phase that every thread of their CTA arrived
    /// on, releasing at cluster scope, and that the copy's thread waited
    /// for before ([`SharedMemory::cross`]).
    AsyncWrite,
}

/// The owner word of a byte gated by a landed copy: this bit, and the
/// gate's index in the low bits.
const GATED: u32 = 1 << 31;

/// The [`Buffer::sourced`] mark of the bulk store of statement number
/// `store` (numbers past `u32::MAX - 1` share the last mark).
fn source_mark(store: usize) -> u32 {
    u32::try_from(store)
        .ok()
        .and_then(|s| s.checked_add(1))
        .unwrap_or(u32::MAX)
}

/// The bytes of one mbarrier object.
pub(crate) const MBARRIER_BYTES: usize = 8;

/// The largest expected arrival count of an mbarrier (PTX: `2^20 - 1`).
const MAX_MBARRIER_COUNT: u64 = (1 << 20) - 1;

/// The largest pending transaction count of an mbarrier, either way
/// (PTX: `[-(2^20 - 1), 2^20 - 1]`).
const MAX_MBARRIER_TX: i64 = (1 << 20) - 1;

/// An initialized mbarrier object.
#[derive(Debug, Clone, Copy)]
struct Object {
    /// Its initialization ([`SharedMemory::incarnations`]).
    incarnation: usize,
    /// Arrivals each phase expects.
    count: u64,
    /// Arrivals the current phase still expects (1..=count).
    pending: u64,
    /// Phases completed: the current phase's number.
    phases: u64,
    /// The current phase's pending transaction bytes: raised by
    /// `expect_tx`, lowered as bulk copies signalling it complete (below
    /// zero while copies land before their expectation).
    tx: i64,
}

/// One `mbarrier.init` in the cluster: which object (of which CTA's
/// buffers), and what its waiters have seen. Phases of different
/// initializations of one object are told apart by it; incarnations are
/// numbered across the cluster's CTAs.
struct Incarnation {
    /// The object: its buffer and index (in its CTA's buffers).
    buffer: usize,
    index: usize,
    /// The most completed phases a thread of the CTA has observed.
    observed: u64,
    /// Per CTA of the cluster (by rank): the floor for that CTA's
    /// accesses an acquiring wait that returns now raises its thread's
    /// to: the epoch of the CTA's first arrival toward the last completed
    /// phase that every thread of that CTA arrived toward, releasing
    /// (0: none). The object's own CTA's is the waiter's own floor; the
    /// others' its [`SharedMemory::cross`] floors.
    release: Vec<u64>,
    /// The arrivals of the current phase so far, per arriving thread's
    /// CTA (empty until one arrives).
    arrivals: Vec<Arrivals>,
    /// Per thread of the cluster (by cluster index): the epoch of its
    /// first releasing arrival toward a completed phase, the latest such
    /// phase's (0: none); another CTA's thread's only from a
    /// cluster-scoped release (`mbarrier.arrive.release.cluster`, remote).
    /// An acquiring wait that returns now joins it into its thread's
    /// [`SharedMemory::clocks`] (a `.cta`-scoped wait, its own CTA's
    /// entries only): each arriving thread's accesses before its arrival
    /// (to any CTA's buffers) are ordered before the waiter's later ones,
    /// whoever else arrived.
    partial: Clock,
    /// The clocks of the threads that arrived releasing toward the
    /// current phase, joined (a release is cumulative: what the arriving
    /// thread had acquired, such as its warp's lanes' accesses after a
    /// `bar.warp.sync`, is ordered before the waiters too); joined into
    /// `partial` when the phase completes.
    carried: Clock,
}

/// The arrivals of one CTA's threads toward an mbarrier phase, for what
/// it releases.
#[derive(Default)]
struct Arrivals {
    /// The epoch of the first.
    first: Option<u64>,
    /// One released nothing (`.relaxed`, or another CTA's `.cta`-scoped
    /// arrival).
    relaxed: bool,
    /// Per thread of the CTA (by its index in the CTA): it arrived (empty
    /// until an arrival).
    threads: Vec<bool>,
    /// Distinct threads that arrived.
    distinct: u64,
    /// A thread arrived twice.
    repeated: bool,
    /// Per thread of the CTA: the epoch of its first releasing arrival
    /// (0: none; empty until one).
    released: Vec<u32>,
}

/// How an mbarrier operation arrives on its object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arriving {
    /// Not at all: the touch of a `cp.async.mbarrier.arrive` without
    /// `.noinc`.
    Not,
    /// `mbarrier.arrive.relaxed`: counts, releases nothing.
    Relaxed,
    /// `mbarrier.arrive` (`.release`) or
    /// `cp.async.mbarrier.arrive.noinc`.
    Release,
}

/// How a parity wait that returns acquires what the phases it observes
/// release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Acquiring {
    /// `.relaxed`: nothing (it observes no phase either).
    Relaxed,
    /// `.acquire.cta` (the default): the releases of its own CTA's
    /// threads.
    Cta,
    /// `.acquire.cluster`: also the cluster-scoped releases of other
    /// CTAs' threads (their remote arrivals on the object).
    Cluster,
}

/// Phase `phase` of incarnation `incarnation` of an mbarrier object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Phase {
    pub incarnation: usize,
    pub phase: u64,
}

/// What an arrival did: the phase it counted in (its object's current
/// phase before it), and whether it completed that phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Arrival {
    pub phase: Phase,
    pub completed: bool,
}

/// The bytes copies of statement `copy` wrote when one of `phases`
/// completed (the phases the copies were tracked by): a thread that has
/// observed one of them may touch them, and so may each copy's issuer
/// once its wait retired the copy's group.
struct Gate {
    copy: usize,
    phases: Vec<Phase>,
    /// Where its bytes are, by issuer and group (adjacent landings of one
    /// group merged).
    landed: Vec<Landed>,
    /// Some bytes may still name it (not lifted by a barrier).
    live: bool,
    /// The epoch of the first acquiring wait of a thread of its CTA that
    /// observed one of its phases (`None`: none yet). An asynchronous
    /// copy of another CTA's thread whose floor for this CTA is above it
    /// is ordered after the landing (the observer's wait came before its
    /// CTA's releasing arrivals).
    observed_at: Option<u64>,
    /// That wait's thread and epoch: a thread of the CTA whose clock
    /// orders that thread's accesses of the epoch (or a later one) before
    /// its own is ordered after the landing too (the observer's wait came
    /// before its release).
    observer: Option<(u64, u64)>,
}

/// A `cp.async` landing with an mbarrier phase: the statement number of
/// the copy, its thread, and the number of its `cp.async` group among that
/// thread's (counting the groups its commits and `wait_all`s close).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Issue {
    pub copy: usize,
    pub issuer: u64,
    pub group: u64,
}

/// The bytes of a [`Gate`] that copies of thread `issuer` in its `cp.async`
/// group number `group` wrote.
struct Landed {
    issuer: u64,
    group: u64,
    buffer: usize,
    range: Range<usize>,
}

/// The shared source of a bulk store (`cp.async.bulk`, `cp.async.bulk.tensor`
/// to global memory) until a bulk wait of its thread retires it.
struct StoreSource {
    buffer: usize,
    range: Range<usize>,
    /// The store's statement number.
    store: usize,
    thread: u64,
}

/// A failed shared access, before the executor names the other thread.
pub(crate) enum SharedFault {
    Kind(FaultKind),
    Race { buffer: String, at: RaceAt },
}

/// The shared memory of one cluster (of one block, in a kernel without a
/// cluster): each CTA's copy of the buffers, and what orders the accesses
/// of the cluster's threads.
///
/// Threads are named by their *cluster index*: thread `t` of the CTA of
/// rank `r` in the cluster is `r * cta_threads + t`. Every operation
/// addresses the buffers of the acting thread's own CTA, but
/// [`Self::access_in`], a plain access through a `.shared::cluster`
/// address (which may name another CTA's copy), and the operations that
/// take a CTA explicitly.
pub(crate) struct SharedMemory {
    names: Vec<String>,
    /// Per CTA of the cluster, by rank: its copy of the buffers.
    ctas: Vec<CtaShared>,
    /// Threads per CTA.
    cta_threads: u64,
    /// The epoch of the accesses, for the shadows: CTA barriers passed (by
    /// any CTA of the cluster), cluster barriers passed and arriving
    /// statements run since the cluster began (renumbered when they run
    /// out). Epochs order only the accesses of one CTA's threads.
    epoch: u64,
    /// Per thread of the cluster: its floor (the accesses of its CTA's
    /// threads in epochs below it are ordered before its own).
    floors: Vec<u64>,
    /// Per CTA: the lowest floor of its threads, and how many have it.
    settled: Vec<u64>,
    at_settled: Vec<usize>,
    /// Per thread and CTA of the cluster (`thread * ctas + cta`), in a
    /// cluster of several CTAs (else empty): the accesses of that CTA's
    /// threads in epochs below it are ordered before the thread's
    /// asynchronous copies' writes ([`Via::AsyncWrite`]): raised by its
    /// cluster-scoped acquiring waits on phases every thread of that CTA
    /// arrived toward (releasing, at cluster scope for another CTA's
    /// object), and by cluster barriers. (The own CTA's entry is unused:
    /// [`Self::floors`].)
    cross: Vec<u64>,
    /// Per thread of the cluster: its vector clock above its floor, over
    /// the cluster's threads ([`Clock`]): raised by the acquiring waits on
    /// phases some of them arrived toward, releasing (another CTA's
    /// threads: at cluster scope, both), and by `bar.warp.sync`
    /// ([`Self::warp_sync`]); a CTA barrier raises the floor above the
    /// entries of its CTA's threads and joins its threads' other entries,
    /// a cluster barrier clears it. Entries for another CTA's threads
    /// order only asynchronous copies' writes ([`ClusterTouches`]) and
    /// gates ([`Self::owned`]).
    clocks: Vec<Clock>,
    /// Per thread: its `cp.async` groups numbered below this have been
    /// retired by its waits.
    retired: Vec<u64>,
    /// The cluster's mbarrier initializations, in order.
    incarnations: Vec<Incarnation>,
    /// Per (incarnation, thread): the completed phases the thread has
    /// observed (absent: none).
    observed: HashMap<(usize, u64), u64>,
    /// Cluster barriers passed since the cluster began, plus one: the
    /// phase of the [`ClusterTouches`] (which wrap around to 1, forgetting
    /// every recorded access, when it runs out).
    cluster_phase: u32,
}

/// One CTA's part of its cluster's shared memory.
struct CtaShared {
    buffers: Vec<Buffer>,
    /// The gates of copies landed in these buffers ([`GATED`] owners
    /// index it).
    gates: Vec<Gate>,
    /// The gate of each (copy, phases).
    gate_of: HashMap<(usize, Vec<Phase>), usize>,
    /// The gates no acquiring wait has observed a phase of yet.
    unobserved: Vec<usize>,
    /// The sources of the bulk stores from these buffers not yet retired,
    /// in issue order (the bytes' [`Buffer::sourced`] marks name one of
    /// them).
    sources: Vec<StoreSource>,
}

/// Bytes of host memory one shared byte takes: the byte, its defined
/// flag, its in-flight owner, its bulk store and its shadow word (and in
/// a cluster of several CTAs its [`ClusterTouches`], 56 bytes).
const HOST_BYTES_PER_BYTE: usize = 1 + 1 + 4 + 4 + 8;

/// A vector of `len` copies of `value`, or `None` when the host cannot
/// allocate it.
fn try_filled<T: Clone>(len: usize, value: T) -> Option<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).ok()?;
    v.resize(len, value);
    Some(v)
}

impl SharedMemory {
    /// Storage for the buffers of `layouts` in each of the `ctas` CTAs of
    /// a cluster (1 without one), of `cta_threads` threads each; a
    /// [`FaultKind::HostMemory`] when the host cannot allocate it.
    pub fn new(
        layouts: &[SharedLayout],
        cta_threads: u64,
        ctas: usize,
    ) -> Result<SharedMemory, FaultKind> {
        let cta_threads = cta_threads.max(1);
        let ctas = ctas.max(1);
        let clustered = ctas > 1;
        let cluster_threads = cta_threads.saturating_mul(ctas as u64);
        if cluster_threads >= RANGED_THREADS {
            return Err(FaultKind::Arguments(format!(
                "a block of {cluster_threads} threads (the interpreter runs blocks of fewer than {RANGED_THREADS})"
            )));
        }
        if clustered && cluster_threads >= u64::from(u16::MAX) {
            return Err(FaultKind::Arguments(format!(
                "a cluster of {cluster_threads} threads (the interpreter runs clusters of fewer than 65535)"
            )));
        }
        let mut instances = Vec::new();
        instances
            .try_reserve_exact(ctas)
            .map_err(|_| FaultKind::HostMemory {
                what: "the shared memory of a cluster's CTAs".into(),
                bytes: ctas.saturating_mul(std::mem::size_of::<CtaShared>()),
            })?;
        for _ in 0..ctas {
            instances.push(CtaShared {
                buffers: Self::buffers(layouts, cta_threads, clustered)?,
                gates: Vec::new(),
                gate_of: HashMap::new(),
                unobserved: Vec::new(),
                sources: Vec::new(),
            });
        }
        let threads = usize::try_from(cluster_threads).unwrap_or(usize::MAX);
        let per_thread = |what: &str, each: usize| -> Result<Vec<u64>, FaultKind> {
            let len = threads.saturating_mul(each);
            try_filled(len, 0).ok_or_else(|| FaultKind::HostMemory {
                what: format!("the {what} of a cluster's threads"),
                bytes: len.saturating_mul(8),
            })
        };
        Ok(SharedMemory {
            names: layouts.iter().map(|l| l.name.clone()).collect(),
            ctas: instances,
            cta_threads,
            epoch: 0,
            floors: per_thread("shared-memory floors", 1)?,
            settled: vec![0; ctas],
            at_settled: vec![cta_threads as usize; ctas],
            cross: per_thread(
                "shared-memory floors for other CTAs",
                if clustered { ctas } else { 0 },
            )?,
            retired: per_thread("retired `cp.async` groups", 1)?,
            clocks: {
                let mut clocks = Vec::new();
                clocks
                    .try_reserve_exact(threads)
                    .map_err(|_| FaultKind::HostMemory {
                        what: "the vector clocks of a cluster's threads".into(),
                        bytes: threads.saturating_mul(std::mem::size_of::<Clock>()),
                    })?;
                clocks.resize(threads, Clock::default());
                clocks
            },
            incarnations: Vec::new(),
            observed: HashMap::new(),
            cluster_phase: 1,
        })
    }

    /// One CTA's copy of the buffers of `layouts` (with the bookkeeping of
    /// races across CTAs when `clustered`).
    fn buffers(
        layouts: &[SharedLayout],
        cta_threads: u64,
        clustered: bool,
    ) -> Result<Vec<Buffer>, FaultKind> {
        let mut buffers = Vec::with_capacity(layouts.len());
        for layout in layouts {
            let per_byte = HOST_BYTES_PER_BYTE
                + if clustered {
                    std::mem::size_of::<ClusterTouches>()
                } else {
                    0
                };
            let refused = || FaultKind::HostMemory {
                what: format!("shared buffer `{}`", layout.name),
                bytes: layout.bytes.saturating_mul(per_byte),
            };
            let len = layout.bytes;
            // In a cluster, the shadow orders one CTA's accesses; the
            // `cluster_touches` find the races across CTAs.
            let shadow = if clustered {
                Shadow::per_cta(len, cta_threads)
            } else {
                Shadow::new(len, cta_threads)
            }
            .map(Shadow::ranged);
            let objects = if layout.mbarrier {
                try_filled(len / MBARRIER_BYTES, None)
            } else {
                Some(Vec::new())
            };
            let cluster_touches = if clustered {
                try_filled(len, ClusterTouches::default())
            } else {
                Some(Vec::new())
            };
            buffers.push(Buffer {
                bytes: try_filled(len, 0).ok_or_else(refused)?,
                defined: try_filled(len, false).ok_or_else(refused)?,
                in_flight: try_filled(len, 0).ok_or_else(refused)?,
                sourced: try_filled(len, 0).ok_or_else(refused)?,
                shadow: shadow.ok_or_else(refused)?,
                touched: 0..0,
                objects: objects.ok_or_else(refused)?,
                cluster_touches: cluster_touches.ok_or_else(refused)?,
                remote: 0,
            });
        }
        Ok(buffers)
    }

    /// A new cluster: every byte undefined and untouched again (no copy's
    /// and no store's), every mbarrier object uninitialized.
    pub fn reset(&mut self) {
        for cta in &mut self.ctas {
            for buffer in &mut cta.buffers {
                let touched = std::mem::replace(&mut buffer.touched, 0..0);
                buffer.defined[touched.clone()].fill(false);
                buffer.in_flight[touched.clone()].fill(0);
                buffer.sourced[touched.clone()].fill(0);
                if !buffer.cluster_touches.is_empty() {
                    buffer.cluster_touches[touched.clone()].fill(ClusterTouches::default());
                }
                buffer.shadow.clear(touched);
                buffer.objects.fill(None);
                buffer.remote = 0;
            }
            cta.gates.clear();
            cta.gate_of.clear();
            cta.unobserved.clear();
            cta.sources.clear();
        }
        self.epoch = 0;
        self.floors.fill(0);
        self.settled.fill(0);
        self.at_settled.fill(self.cta_threads as usize);
        self.cross.fill(0);
        self.retired.fill(0);
        self.clocks.iter_mut().for_each(Clock::clear);
        self.incarnations.clear();
        self.observed.clear();
        self.cluster_phase = 1;
    }

    /// The rank in the cluster of the CTA of thread `thread` (a cluster
    /// index).
    #[inline]
    fn cta_of(&self, thread: u64) -> usize {
        if self.ctas.len() == 1 {
            return 0;
        }
        usize::try_from(thread / self.cta_threads)
            .unwrap_or(usize::MAX)
            .min(self.ctas.len() - 1)
    }

    /// The cluster indices of the threads of CTA `cta`.
    fn threads_of(&self, cta: usize) -> Range<usize> {
        let threads = self.cta_threads as usize;
        cta * threads..(cta + 1) * threads
    }

    /// CTA `cta` passed a CTA barrier: a new epoch, its threads' floors
    /// (so their earlier accesses are ordered before their later ones),
    /// and the bytes of copies that landed in its buffers with a phase
    /// some thread has observed (or whose issuer has retired them) are
    /// ordinary bytes: the observer's wait, then the barrier, order the
    /// landing before every later access of the CTA's threads.
    pub fn cta_barrier(&mut self, cta: usize) {
        self.lift_gates(cta);
        self.advance();
        let threads = self.threads_of(cta);
        self.floors[threads.clone()].fill(self.epoch);
        // The floor orders the CTA's own threads; what any thread of the
        // CTA acquired of other CTAs' threads, each has acquired now.
        let own = threads.start as u64..threads.end as u64;
        let mut joined = Clock::default();
        for clock in &self.clocks[threads.clone()] {
            if !clock.is_empty() {
                joined.join(&clock.without(own.clone()));
            }
        }
        self.clocks[threads.clone()]
            .iter_mut()
            .for_each(|clock| clock.clone_from(&joined));
        self.settled[cta] = self.epoch;
        self.at_settled[cta] = threads.len();
    }

    /// The cluster passed a cluster barrier (`barrier.cluster.wait`, its
    /// arrival releasing, the wait acquiring): every CTA's barrier, and
    /// every access of any thread before it is ordered before every access
    /// after it (the [`ClusterTouches`] start a new phase).
    pub fn cluster_barrier(&mut self) {
        for cta in 0..self.ctas.len() {
            self.lift_gates(cta);
        }
        self.advance();
        self.floors.fill(self.epoch);
        self.clocks.iter_mut().for_each(Clock::clear);
        self.settled.fill(self.epoch);
        self.at_settled.fill(self.cta_threads as usize);
        self.cross.fill(self.epoch);
        if self.cluster_phase == u32::MAX {
            for buffer in self.ctas.iter_mut().flat_map(|cta| &mut cta.buffers) {
                if !buffer.cluster_touches.is_empty() {
                    let touched = buffer.touched.clone();
                    buffer.cluster_touches[touched].fill(ClusterTouches::default());
                }
                buffer.remote = 0;
            }
            self.cluster_phase = 1;
        } else {
            self.cluster_phase += 1;
        }
    }

    /// A statement that arrives on an mbarrier starts: a new epoch, so
    /// that what each thread did before its arrival is in an earlier one
    /// than what it does after.
    pub fn begin_arrivals(&mut self) {
        self.advance();
    }

    /// The next epoch. When the shadows' epoch counter would run out, the
    /// epochs are renumbered first ([`Self::renumber`]); if even that
    /// leaves no room, the epoch stays at the last one (accesses of one
    /// epoch are ordered by nothing: a race may then be reported that a
    /// finer count would not, never missed).
    fn advance(&mut self) {
        if self.epoch + 1 >= MAX_EPOCH {
            self.renumber();
        }
        self.epoch = (self.epoch + 1).min(MAX_EPOCH);
    }

    /// Renumbers every epoch the cluster remembers by the cuts that still
    /// matter: the floors, the releases of the live mbarrier objects and
    /// the first arrivals of their current phases (a later release), and
    /// the current epoch. Epoch `e` becomes the number of cuts at or below
    /// it, which keeps every comparison of an epoch with a cut (the only
    /// ones the shadows and floors make) and the order of epochs. An
    /// object no longer initialized releases nothing any more.
    fn renumber(&mut self) {
        let mut live = vec![false; self.incarnations.len()];
        for buffer in self.ctas.iter().flat_map(|cta| &cta.buffers) {
            for object in buffer.objects.iter().flatten() {
                if let Some(l) = live.get_mut(object.incarnation) {
                    *l = true;
                }
            }
        }
        let mut cuts: Vec<u64> = self.floors.clone();
        cuts.extend_from_slice(&self.cross);
        cuts.extend(self.clocks.iter().flat_map(Clock::epochs));
        for gate in self.ctas.iter().flat_map(|cta| &cta.gates) {
            cuts.extend(gate.observed_at);
            cuts.extend(gate.observer.map(|(_, epoch)| epoch));
        }
        cuts.push(self.epoch);
        for (incarnation, live) in self.incarnations.iter_mut().zip(&live) {
            if !live {
                incarnation.release.fill(0);
                incarnation.partial.clear();
                incarnation.carried.clear();
                for arrivals in &mut incarnation.arrivals {
                    arrivals.first = None;
                    arrivals.released.fill(0);
                }
                continue;
            }
            cuts.extend_from_slice(&incarnation.release);
            cuts.extend(incarnation.partial.epochs());
            cuts.extend(incarnation.carried.epochs());
            cuts.extend(incarnation.arrivals.iter().filter_map(|a| a.first));
            cuts.extend(
                incarnation
                    .arrivals
                    .iter()
                    .flat_map(|a| &a.released)
                    .filter(|e| **e != 0)
                    .map(|e| u64::from(*e)),
            );
        }
        cuts.sort_unstable();
        cuts.dedup();
        let renumber = |epoch: u64| cuts.partition_point(|cut| *cut <= epoch) as u64;
        let phase = self.cluster_phase;
        for buffer in self.ctas.iter_mut().flat_map(|cta| &mut cta.buffers) {
            let touched = buffer.touched.clone();
            if !buffer.cluster_touches.is_empty() {
                for word in &mut buffer.cluster_touches[touched.clone()] {
                    word.renumber(phase, &renumber);
                }
            }
            buffer.shadow.renumber(touched, renumber);
        }
        for floor in self.floors.iter_mut().chain(&mut self.cross) {
            *floor = renumber(*floor);
        }
        for clock in &mut self.clocks {
            clock.renumber(&renumber);
        }
        for gate in self.ctas.iter_mut().flat_map(|cta| &mut cta.gates) {
            gate.observed_at = gate.observed_at.map(renumber);
            if let Some((_, epoch)) = &mut gate.observer {
                *epoch = renumber(*epoch);
            }
        }
        for settled in &mut self.settled {
            *settled = renumber(*settled);
        }
        for incarnation in &mut self.incarnations {
            for release in &mut incarnation.release {
                *release = renumber(*release);
            }
            for first in incarnation
                .arrivals
                .iter_mut()
                .filter_map(|a| a.first.as_mut())
            {
                *first = renumber(*first);
            }
            incarnation.partial.renumber(&renumber);
            incarnation.carried.renumber(&renumber);
            for released in incarnation
                .arrivals
                .iter_mut()
                .flat_map(|a| &mut a.released)
                .filter(|e| **e != 0)
            {
                *released = u32::try_from(renumber(u64::from(*released))).unwrap_or(u32::MAX);
            }
        }
        self.epoch = renumber(self.epoch);
    }

    /// Raises the floor of `thread` to `floor` (an acquiring wait).
    fn raise_floor(&mut self, thread: u64, floor: u64) {
        let Some(current) = usize::try_from(thread)
            .ok()
            .and_then(|t| self.floors.get_mut(t))
        else {
            return;
        };
        if floor <= *current {
            return;
        }
        let was = std::mem::replace(current, floor);
        let cta = self.cta_of(thread);
        if was == self.settled[cta] {
            self.at_settled[cta] -= 1;
            if self.at_settled[cta] == 0 {
                let floors = &self.floors[self.threads_of(cta)];
                let settled = floors.iter().copied().min().unwrap_or(self.epoch);
                self.settled[cta] = settled;
                self.at_settled[cta] = floors.iter().filter(|f| **f == settled).count();
            }
        }
    }

    /// Raises the floor of `thread` for the accesses of CTA `from`'s
    /// threads ([`Self::cross`]) to `floor` (an acquiring wait).
    fn raise_cross(&mut self, thread: u64, from: usize, floor: u64) {
        let ctas = self.ctas.len();
        if let Some(current) = usize::try_from(thread)
            .ok()
            .and_then(|t| self.cross.get_mut(t * ctas + from))
        {
            *current = (*current).max(floor);
        }
    }

    /// When an access of `thread` now happens ([`Order`]): what orders
    /// the accesses of its CTA's threads before it. (A function of the
    /// fields it reads, so that the buffers may be borrowed meanwhile.)
    fn order<'a>(
        (floors, settled, clocks): (&[u64], &[u64], &'a [Clock]),
        epoch: u64,
        cta: usize,
        thread: u64,
    ) -> Order<'a> {
        let settled = settled[cta];
        let t = usize::try_from(thread).ok();
        let floor = t.and_then(|t| floors.get(t)).copied().unwrap_or(settled);
        let clock = t
            .and_then(|t| clocks.get(t))
            .unwrap_or(Order::barriers(0).clock);
        Order {
            epoch,
            floor,
            settled,
            clock,
        }
    }

    /// The epoch below which `thread` has acquired the accesses of
    /// `other`: its floor (for a thread of another CTA, its floor for that
    /// CTA), or its clock's entry.
    fn acquired(&self, thread: u64, other: u64) -> u64 {
        let Some(t) = usize::try_from(thread)
            .ok()
            .filter(|t| *t < self.floors.len())
        else {
            return 0;
        };
        let from = self.cta_of(other);
        let floor = if self.cta_of(thread) == from {
            self.floors[t]
        } else {
            let ctas = self.ctas.len();
            self.cross.get(t * ctas + from).copied().unwrap_or(0)
        };
        floor.max(self.clocks[t].get(other))
    }

    /// A `bar.warp.sync` of the lanes `lanes` (cluster indices of one
    /// warp, one membermask group): a new epoch, and each lane's accesses
    /// before it are ordered before every lane's after it; each lane also
    /// acquires what any of them had acquired (the barrier orders their
    /// earlier waits too).
    pub fn warp_sync(&mut self, lanes: &[u64]) {
        if lanes.is_empty() {
            return;
        }
        self.advance();
        let epoch = self.epoch;
        let threads = self.floors.len();
        let known = |t: &u64| usize::try_from(*t).ok().filter(|t| *t < threads);
        let mut joined = Clock::default();
        let mut floor = 0;
        for t in lanes.iter().filter_map(known) {
            joined.join(&self.clocks[t]);
            floor = floor.max(self.floors[t]);
        }
        let mut members = lanes.to_vec();
        members.sort_unstable();
        for run in members.chunk_by(|a, b| a + 1 == *b) {
            joined.raise(run[0]..run[run.len() - 1] + 1, epoch);
        }
        for &t in lanes {
            self.raise_floor(t, floor);
            if let Some(t) = known(&t) {
                self.clocks[t] = joined.clone();
            }
        }
    }

    /// `thread`'s waits (`cp.async.wait_group`/`wait_all`) have retired
    /// its `cp.async` groups numbered below `below`: the bytes its copies
    /// of those groups landed with an mbarrier phase are its to touch.
    pub fn retire_groups(&mut self, thread: u64, below: u64) {
        if let Some(retired) = usize::try_from(thread)
            .ok()
            .and_then(|t| self.retired.get_mut(t))
        {
            *retired = (*retired).max(below);
        }
    }

    /// Whether `thread` issued the copy of `landed` and has retired its
    /// group.
    fn retired(&self, landed: &Landed, thread: u64) -> bool {
        landed.issuer == thread
            && usize::try_from(thread)
                .ok()
                .and_then(|t| self.retired.get(t))
                .is_some_and(|below| landed.group < *below)
    }

    /// Lifts every live gate of CTA `cta` one of whose phases a thread
    /// has observed: its bytes are ordinary from the CTA's barrier on; of
    /// the other live gates, the bytes whose issuer has retired them. When
    /// no gate of the CTA is left live, its gates are forgotten (their
    /// indices are free again).
    fn lift_gates(&mut self, cta: usize) {
        let mut live = false;
        let mut gates = std::mem::take(&mut self.ctas[cta].gates);
        for (g, gate) in gates.iter_mut().enumerate() {
            if !gate.live {
                continue;
            }
            let observed = gate.phases.iter().any(|p| {
                self.incarnations
                    .get(p.incarnation)
                    .is_some_and(|i| i.observed > p.phase)
            });
            let owner = GATED | g as u32;
            let mut kept = Vec::new();
            for landed in gate.landed.drain(..) {
                if !observed && !self.retired(&landed, landed.issuer) {
                    kept.push(landed);
                    continue;
                }
                let in_flight = &mut self.ctas[cta].buffers[landed.buffer].in_flight;
                for byte in &mut in_flight[landed.range] {
                    if *byte == owner {
                        *byte = 0;
                    }
                }
            }
            gate.landed = kept;
            gate.live = !gate.landed.is_empty();
            live |= gate.live;
        }
        let shared = &mut self.ctas[cta];
        shared.gates = gates;
        if !live {
            shared.gates.clear();
            shared.gate_of.clear();
            shared.unobserved.clear();
        }
    }

    /// The start byte of `size` bytes at byte `offset` of buffer `buffer`
    /// (of any CTA: the copies have the same size): inside the buffer and
    /// aligned to `size`.
    fn place(&self, buffer: usize, offset: i64, size: usize) -> Result<usize, SharedFault> {
        self.place_aligned(buffer, offset, size, size)
    }

    /// [`Self::place`] with the alignment `align` (a bulk copy's 16 bytes).
    fn place_aligned(
        &self,
        buffer: usize,
        offset: i64,
        size: usize,
        align: usize,
    ) -> Result<usize, SharedFault> {
        let len = self.ctas[0].buffers[buffer].bytes.len();
        let in_bounds = offset >= 0 && (offset as u128) + (size as u128) <= len as u128;
        if !in_bounds {
            return Err(SharedFault::Kind(FaultKind::SharedOutOfBounds {
                buffer: self.names[buffer].clone(),
                offset: i128::from(offset),
                bytes: size,
                len,
            }));
        }
        let at = offset as usize;
        if align > 0 && !at.is_multiple_of(align) {
            return Err(SharedFault::Kind(FaultKind::SharedMisaligned {
                buffer: self.names[buffer].clone(),
                offset: i128::from(offset),
                bytes: align,
            }));
        }
        Ok(at)
    }

    /// Whether `thread` has observed one of `gate`'s phases.
    fn sees(&self, gate: &Gate, thread: u64) -> bool {
        gate.phases.iter().any(|p| {
            self.observed
                .get(&(p.incarnation, thread))
                .is_some_and(|seen| *seen > p.phase)
        })
    }

    /// Checks that no copy owns the `size` bytes at `at` of CTA `cta`'s
    /// `buffer` against `thread`: none in flight, and every gated byte's
    /// phase observed by `thread`, or (`thread` of another CTA, with its
    /// floors `cross` for an asynchronous copy's write) observed by a
    /// thread of `cta` below `thread`'s floor for `cta`.
    fn owned(
        &self,
        (cta, buffer): (usize, usize),
        at: usize,
        size: usize,
        (thread, cross): (u64, Option<&[u64]>),
    ) -> Result<(), SharedFault> {
        let floor = match cross {
            Some(floors) if self.cta_of(thread) != cta => floors.get(cta).copied(),
            _ => None,
        };
        let owners = &self.ctas[cta].buffers[buffer].in_flight[at..at + size];
        let Some(first) = owners.iter().position(|o| *o != 0) else {
            return Ok(());
        };
        for (i, owner) in owners.iter().enumerate().skip(first) {
            match *owner {
                0 => {}
                copy if copy < GATED => {
                    return Err(SharedFault::Kind(FaultKind::AsyncCopyInFlight {
                        buffer: self.names[buffer].clone(),
                        offset: at + i,
                        copy: copy as usize - 1,
                    }));
                }
                gated => {
                    let Some(gate) = self.ctas[cta].gates.get((gated & !GATED) as usize) else {
                        continue;
                    };
                    if self.sees(gate, thread)
                        || gate
                            .observed_at
                            .zip(floor)
                            .is_some_and(|(observed, floor)| observed < floor)
                        || gate.observer.is_some_and(|(observer, epoch)| {
                            self.cta_of(observer) == cta && self.acquired(thread, observer) > epoch
                        })
                    {
                        continue;
                    }
                    let byte = at + i;
                    let issued = gate.landed.iter().any(|landed| {
                        landed.buffer == buffer
                            && landed.range.contains(&byte)
                            && self.retired(landed, thread)
                    });
                    if issued {
                        continue;
                    }
                    let phase = gate.phases.first().copied().unwrap_or(Phase {
                        incarnation: 0,
                        phase: 0,
                    });
                    let (mbarrier, index) = self.mbarrier_of(phase.incarnation);
                    return Err(SharedFault::Kind(FaultKind::AsyncCopyUnobserved {
                        buffer: self.names[buffer].clone(),
                        offset: at + i,
                        copy: gate.copy,
                        mbarrier,
                        index,
                        phase: phase.phase,
                    }));
                }
            }
        }
        Ok(())
    }

    /// Checks that no bulk store reads the `size` bytes at `at` of CTA
    /// `cta`'s `buffer` as its source (they may not be written).
    fn unsourced(
        &self,
        (cta, buffer): (usize, usize),
        at: usize,
        size: usize,
    ) -> Result<(), SharedFault> {
        let shared = &self.ctas[cta];
        if shared.sources.is_empty() {
            return Ok(());
        }
        let marks = &shared.buffers[buffer].sourced[at..at + size];
        match marks.iter().position(|m| *m != 0) {
            None => Ok(()),
            Some(i) => Err(SharedFault::Kind(FaultKind::AsyncStoreSourceWritten {
                buffer: self.names[buffer].clone(),
                offset: at + i,
                store: marks[i] as usize - 1,
            })),
        }
    }

    /// The buffer name and object index of mbarrier incarnation
    /// `incarnation`, for reports.
    pub fn mbarrier_of(&self, incarnation: usize) -> (String, usize) {
        match self.incarnations.get(incarnation) {
            Some(i) => (self.names[i.buffer].clone(), i.index),
            None => (String::new(), 0),
        }
    }

    /// Checks that `thread` (its cluster index) may access `size` bytes at
    /// byte `offset` of its own CTA's buffer `buffer` as `touch`, records
    /// the access, and returns its start byte.
    pub fn access(
        &mut self,
        buffer: usize,
        offset: i64,
        size: usize,
        thread: u64,
        touch: Touch,
    ) -> Result<usize, SharedFault> {
        let cta = self.cta_of(thread);
        self.access_aligned(
            (cta, buffer),
            offset,
            (size, size),
            thread,
            (touch, Via::Plain),
        )
    }

    /// [`Self::access`] of the copy of `buffer` of the CTA of rank `cta`
    /// in the cluster (in range: the caller checked it), which need not be
    /// `thread`'s own: a plain access through a `.shared::cluster`
    /// address.
    pub fn access_in(
        &mut self,
        cta: usize,
        buffer: usize,
        offset: i64,
        size: usize,
        thread: u64,
        touch: Touch,
    ) -> Result<usize, SharedFault> {
        self.access_aligned(
            (cta, buffer),
            offset,
            (size, size),
            thread,
            (touch, Via::Plain),
        )
    }

    /// [`Self::access_in`] of `size` bytes aligned to `align`, ordered
    /// after other CTAs' accesses as `via` says.
    fn access_aligned(
        &mut self,
        (cta, buffer): (usize, usize),
        offset: i64,
        (size, align): (usize, usize),
        thread: u64,
        (touch, via): (Touch, Via),
    ) -> Result<usize, SharedFault> {
        let at = self.place_aligned(buffer, offset, size, align)?;
        let (phase, cta_threads) = (self.cluster_phase, self.cta_threads);
        let epoch = self.epoch;
        let ctas = self.ctas.len();
        let remote = self.ctas[cta].buffers[buffer].remote == phase;
        // The floors of an asynchronous copy's write for the other CTAs'
        // accesses, unless a plain access of another CTA since the last
        // cluster barrier may have displaced some from the shadow.
        let cross = match via {
            Via::AsyncWrite if !remote && ctas > 1 => usize::try_from(thread)
                .ok()
                .and_then(|t| self.cross.get(t * ctas..(t + 1) * ctas)),
            _ => None,
        };
        self.owned((cta, buffer), at, size, (thread, cross))?;
        let clock = cross.and_then(|_| {
            usize::try_from(thread)
                .ok()
                .and_then(|t| self.clocks.get(t))
        });
        if touch != Touch::Read {
            self.unsourced((cta, buffer), at, size)?;
        }
        let own = self.cta_of(thread);
        let order = Self::order(
            (&self.floors, &self.settled, &self.clocks),
            epoch,
            own,
            thread,
        );
        let name = || self.names[buffer].clone();
        let memory = &mut self.ctas[cta].buffers[buffer];
        if via == Via::Plain && cta != own {
            memory.remote = phase;
        }
        memory.touched = if memory.touched.is_empty() {
            at..at + size
        } else {
            memory.touched.start.min(at)..memory.touched.end.max(at + size)
        };
        memory
            .shadow
            .touch(at, size, thread, order, touch)
            .map_err(|at| SharedFault::Race { buffer: name(), at })?;
        if !memory.cluster_touches.is_empty() {
            for (i, word) in memory.cluster_touches[at..at + size].iter_mut().enumerate() {
                // Having passed `owned`, the access is ordered after the
                // landing of a copy whose gate still holds the byte.
                let cross = cross.zip(clock).map(|(floors, clock)| Cross {
                    floors,
                    clock,
                    gated: memory.in_flight[at + i] & GATED != 0,
                });
                if let Some(other) = word.race(phase, thread, cta_threads, touch, cross) {
                    return Err(SharedFault::Race {
                        buffer: name(),
                        at: RaceAt {
                            byte: at + i,
                            other,
                        },
                    });
                }
                word.record(phase, (thread, cta_threads), touch, epoch, false);
            }
        }
        if touch != Touch::Write
            && let Some(i) = memory.defined[at..at + size].iter().position(|d| !d)
        {
            return Err(SharedFault::Kind(FaultKind::UninitializedShared {
                buffer: name(),
                offset: at + i,
            }));
        }
        Ok(at)
    }

    /// An asynchronous copy (of statement number `statement`) into `size`
    /// bytes at `offset` of `thread`'s CTA's `buffer`: checked and recorded
    /// as a write of `thread` now, its bytes owned by the copy (any access
    /// faults) until [`Self::complete_copy`].
    pub fn begin_copy(
        &mut self,
        buffer: usize,
        offset: i64,
        (size, align): (usize, usize),
        thread: u64,
        statement: usize,
    ) -> Result<usize, SharedFault> {
        let cta = self.cta_of(thread);
        self.begin_copy_in((cta, buffer), offset, (size, align), thread, statement)
    }

    /// [`Self::begin_copy`] into the copy of `buffer` of CTA `cta` (in
    /// range: the caller checked it), which need not be `thread`'s own: a
    /// multicast copy. Its write is ordered after another CTA's accesses
    /// also by the mbarrier phases `thread` acquired ([`Via::AsyncWrite`]).
    pub fn begin_copy_in(
        &mut self,
        (cta, buffer): (usize, usize),
        offset: i64,
        (size, align): (usize, usize),
        thread: u64,
        statement: usize,
    ) -> Result<usize, SharedFault> {
        let at = self.access_aligned(
            (cta, buffer),
            offset,
            (size, align),
            thread,
            (Touch::Write, Via::AsyncWrite),
        )?;
        let owner = u32::try_from(statement + 1)
            .ok()
            .filter(|owner| *owner < GATED)
            .unwrap_or(GATED - 1);
        // The owner's number names the copy in a fault (`copy`, below).
        self.ctas[cta].buffers[buffer].in_flight[at..at + size].fill(owner);
        Ok(at)
    }

    /// A bulk store (of statement number `store`) by `thread` from `size`
    /// bytes at `offset` of its CTA's `buffer`, aligned to `align`: checked and
    /// recorded as a read of `thread` now (bounds, alignment, definedness,
    /// races, no copy owning them); from now on the bytes are the store's
    /// source until [`Self::end_store_source`]: any thread may read them,
    /// none may write them (a store, an atomic, a copy into them:
    /// [`FaultKind::AsyncStoreSourceWritten`]). Returns their start byte.
    pub fn begin_store_source(
        &mut self,
        buffer: usize,
        offset: i64,
        (size, align): (usize, usize),
        thread: u64,
        store: usize,
    ) -> Result<usize, SharedFault> {
        let cta = self.cta_of(thread);
        let at = self.access_aligned(
            (cta, buffer),
            offset,
            (size, align),
            thread,
            (Touch::Read, Via::Plain),
        )?;
        let shared = &mut self.ctas[cta];
        shared.sources.push(StoreSource {
            buffer,
            range: at..at + size,
            store,
            thread,
        });
        shared.buffers[buffer].sourced[at..at + size].fill(source_mark(store));
        Ok(at)
    }

    /// The bulk store `store` of `thread` from the `size` bytes at `at` of
    /// `buffer` ([`Self::begin_store_source`]) has read them: a bulk wait
    /// of `thread` retired its group. They are no longer its source (they
    /// may be another store's), and its read is recorded again as one of
    /// `thread` now: another thread's write races with it unless a CTA
    /// barrier (or an mbarrier phase) orders the write after this wait.
    pub fn end_store_source(
        &mut self,
        buffer: usize,
        at: usize,
        size: usize,
        thread: u64,
        store: usize,
    ) -> Result<(), SharedFault> {
        let range = at..at + size;
        let cta = self.cta_of(thread);
        let shared = &mut self.ctas[cta];
        if let Some(i) = shared.sources.iter().position(|s| {
            s.buffer == buffer && s.range == range && s.store == store && s.thread == thread
        }) {
            shared.sources.remove(i);
        }
        let memory = &mut shared.buffers[buffer];
        memory.sourced[range.clone()].fill(0);
        // The other stores' sources among these bytes stay marked.
        for other in shared.sources.iter().filter(|s| s.buffer == buffer) {
            let overlap = other.range.start.max(range.start)..other.range.end.min(range.end);
            if !overlap.is_empty() {
                memory.sourced[overlap].fill(source_mark(other.store));
            }
        }
        self.access(buffer, at as i64, size, thread, Touch::Read)?;
        Ok(())
    }

    /// The `size` bytes at `at` of CTA `cta`'s buffer `buffer` (checked
    /// by [`Self::access_in`]).
    pub fn bytes(&self, cta: usize, buffer: usize, at: usize, size: usize) -> &[u8] {
        &self.ctas[cta].buffers[buffer].bytes[at..at + size]
    }

    /// The copy into `data.len()` bytes at `at` of `thread`'s CTA's
    /// `buffer` lands (its thread's wait): a write of `thread` in the
    /// current phase, so other threads see it only after a barrier.
    pub fn complete_copy(
        &mut self,
        buffer: usize,
        at: usize,
        data: &[u8],
        thread: u64,
    ) -> Result<(), SharedFault> {
        let size = data.len();
        let cta = self.cta_of(thread);
        self.ctas[cta].buffers[buffer].in_flight[at..at + size].fill(0);
        self.access(buffer, at as i64, size, thread, Touch::Write)?;
        let memory = &mut self.ctas[cta].buffers[buffer];
        memory.bytes[at..at + size].copy_from_slice(data);
        memory.defined[at..at + size].fill(true);
        Ok(())
    }

    /// The copy `issue` into `data.len()` bytes at `at` of CTA `cta`'s
    /// `buffer` (its issuer's, or another's for a multicast copy) lands
    /// because phase `phases[0]` (or another of the phases that track it,
    /// all of objects of `cta`) completed: its bytes are written and gated,
    /// touched only by threads that observe one of `phases` and by the
    /// issuer once it retired the copy's group (until a barrier of the CTA
    /// after one of those). The race shadow forgets the issue's write: the
    /// gate orders every access of the CTA's threads after it, and nothing
    /// touched the bytes in between. For races across the cluster's CTAs
    /// the landing is a write of the issuer in its own CTA; in another
    /// CTA, a write of that CTA's thread with the issuer's index in its
    /// CTA, which replaces every access recorded before (the issue's write
    /// was checked against them, and the landing is ordered after the
    /// issue): either way, only a cluster barrier orders it before another
    /// CTA's plain access.
    pub fn land_gated(
        &mut self,
        (cta, buffer): (usize, usize),
        at: usize,
        data: &[u8],
        issue: Issue,
        phases: &[Phase],
    ) -> Result<(), SharedFault> {
        let size = data.len();
        let copy = issue.copy;
        let key = (copy, phases.to_vec());
        let (phase, cta_threads, epoch) = (self.cluster_phase, self.cta_threads, self.epoch);
        let remote = cta != self.cta_of(issue.issuer);
        let writer = if remote {
            cta as u64 * cta_threads + issue.issuer % cta_threads
        } else {
            issue.issuer
        };
        let shared = &mut self.ctas[cta];
        let g = match shared.gate_of.get(&key) {
            Some(g) => *g,
            None => {
                let g = shared.gates.len();
                if u32::try_from(g).map_or(true, |g| g >= GATED) {
                    return Err(SharedFault::Kind(FaultKind::HostMemory {
                        what: "the gates of copies landed with mbarrier phases".into(),
                        bytes: g.saturating_mul(std::mem::size_of::<Gate>()),
                    }));
                }
                shared.gates.push(Gate {
                    copy,
                    phases: phases.to_vec(),
                    landed: Vec::new(),
                    live: true,
                    observed_at: None,
                    observer: None,
                });
                shared.gate_of.insert(key, g);
                shared.unobserved.push(g);
                g
            }
        };
        let gate = &mut shared.gates[g];
        gate.live = true;
        match gate.landed.last_mut() {
            Some(last)
                if last.buffer == buffer
                    && last.range.end == at
                    && last.issuer == issue.issuer
                    && last.group == issue.group =>
            {
                last.range.end = at + size;
            }
            _ => gate.landed.push(Landed {
                issuer: issue.issuer,
                group: issue.group,
                buffer,
                range: at..at + size,
            }),
        }
        let memory = &mut shared.buffers[buffer];
        memory.bytes[at..at + size].copy_from_slice(data);
        memory.defined[at..at + size].fill(true);
        memory.in_flight[at..at + size].fill(GATED | g as u32);
        memory.shadow.clear(at..at + size);
        if !memory.cluster_touches.is_empty() {
            for word in &mut memory.cluster_touches[at..at + size] {
                if remote {
                    *word = ClusterTouches::default();
                }
                word.record(phase, (writer, cta_threads), Touch::Write, epoch, true);
            }
        }
        Ok(())
    }

    /// The index of the mbarrier object at byte `offset` of buffer
    /// `buffer`, checked: inside the buffer, 8-byte aligned, and the
    /// buffer holds mbarrier objects.
    fn object_at(&self, buffer: usize, offset: i64) -> Result<usize, SharedFault> {
        let at = self.place(buffer, offset, MBARRIER_BYTES)?;
        let index = at / MBARRIER_BYTES;
        if index >= self.ctas[0].buffers[buffer].objects.len() {
            return Err(SharedFault::Kind(FaultKind::Arguments(format!(
                "an mbarrier operation on shared buffer `{}`, which holds no mbarrier objects",
                self.names[buffer]
            ))));
        }
        Ok(index)
    }

    /// The initialized object `index` of CTA `cta`'s `buffer`.
    fn object(&self, (cta, buffer): (usize, usize), index: usize) -> Result<Object, SharedFault> {
        self.ctas[cta].buffers[buffer].objects[index].ok_or_else(|| {
            SharedFault::Kind(FaultKind::MbarrierUninitialized {
                buffer: self.names[buffer].clone(),
                index,
            })
        })
    }

    /// `mbarrier.init` by `thread` of the object at byte `offset` of
    /// `buffer`: it must be uninitialized and `count` in `1..=2^20 - 1`;
    /// a write of its 8 bytes; phase 0, expecting `count` arrivals.
    pub fn mbarrier_init(
        &mut self,
        buffer: usize,
        offset: i64,
        thread: u64,
        count: u64,
    ) -> Result<(), SharedFault> {
        let index = self.object_at(buffer, offset)?;
        let cta = self.cta_of(thread);
        let fault = |kind| Err(SharedFault::Kind(kind));
        if self.ctas[cta].buffers[buffer].objects[index].is_some() {
            return fault(FaultKind::MbarrierReinitialized {
                buffer: self.names[buffer].clone(),
                index,
            });
        }
        if !(1..=MAX_MBARRIER_COUNT).contains(&count) {
            return fault(FaultKind::MbarrierCount {
                buffer: self.names[buffer].clone(),
                index,
                count,
            });
        }
        let at = self.access(buffer, offset, MBARRIER_BYTES, thread, Touch::Write)?;
        let incarnation = self.incarnations.len();
        self.incarnations.push(Incarnation {
            buffer,
            index,
            observed: 0,
            release: vec![0; self.ctas.len()],
            arrivals: Vec::new(),
            partial: Clock::default(),
            carried: Clock::default(),
        });
        self.ctas[cta].buffers[buffer].objects[index] = Some(Object {
            incarnation,
            count,
            pending: count,
            phases: 0,
            tx: 0,
        });
        self.write(cta, buffer, at, MBARRIER_BYTES, count);
        Ok(())
    }

    /// `mbarrier.inval` by `thread` of the object at byte `offset` of
    /// `buffer`: it must be initialized; a write of its 8 bytes; then it
    /// is uninitialized. Returns the phase it was in (copies still
    /// tracked by it are the caller's to check).
    pub fn mbarrier_inval(
        &mut self,
        buffer: usize,
        offset: i64,
        thread: u64,
    ) -> Result<Phase, SharedFault> {
        let index = self.object_at(buffer, offset)?;
        let cta = self.cta_of(thread);
        let object = self.object((cta, buffer), index)?;
        self.access(buffer, offset, MBARRIER_BYTES, thread, Touch::Write)?;
        self.ctas[cta].buffers[buffer].objects[index] = None;
        Ok(Phase {
            incarnation: object.incarnation,
            phase: object.phases,
        })
    }

    /// An arrival (unless [`Arriving::Not`]: only the atomic touch of a
    /// `cp.async.mbarrier.arrive` without `.noinc`) by `thread` on the
    /// object at byte `offset` of `buffer`, raising the phase's pending
    /// transaction bytes by `expect_tx` first (`arrive.expect_tx`): it must
    /// be initialized and still expect an arrival; an atomic access of its
    /// 8 bytes; the last expected arrival completes the phase once its
    /// transaction bytes are in ([`Self::complete_phase`]).
    pub fn mbarrier_arrive(
        &mut self,
        buffer: usize,
        offset: i64,
        thread: u64,
        arriving: Arriving,
        expect_tx: u64,
    ) -> Result<Arrival, SharedFault> {
        let cta = self.cta_of(thread);
        self.mbarrier_arrive_in((cta, buffer), offset, thread, arriving, expect_tx)
    }

    /// [`Self::mbarrier_arrive`] on the object of CTA `cta`'s `buffer` (in
    /// range: the caller checked it), which need not be `thread`'s own
    /// (`mbarrier.arrive.shared::cluster`, a remote arrival: a plain
    /// atomic access of another CTA's copy, ordered after its `init` only
    /// by a cluster barrier). Its arrivals count per arriving thread's
    /// CTA: a phase every thread of a CTA arrived toward, each releasing,
    /// releases that CTA's accesses before its first arrival to the
    /// object's waiters ([`Self::complete_phase`]); the caller passes a
    /// `.cta`-scoped release on another CTA's object as
    /// [`Arriving::Relaxed`].
    pub fn mbarrier_arrive_in(
        &mut self,
        (cta, buffer): (usize, usize),
        offset: i64,
        thread: u64,
        arriving: Arriving,
        expect_tx: u64,
    ) -> Result<Arrival, SharedFault> {
        let index = self.object_at(buffer, offset)?;
        let mut object = self.object((cta, buffer), index)?;
        self.access_in(cta, buffer, offset, MBARRIER_BYTES, thread, Touch::Atomic)?;
        let phase = Phase {
            incarnation: object.incarnation,
            phase: object.phases,
        };
        let mut completed = false;
        if arriving != Arriving::Not {
            if object.pending == 0 {
                // Its arrivals are in, its bytes are not: PTX leaves a
                // further arrival undefined.
                return Err(SharedFault::Kind(FaultKind::MbarrierExtraArrival {
                    buffer: self.names[buffer].clone(),
                    index,
                }));
            }
            object.tx = self.raised_tx(buffer, index, object.tx, i128::from(expect_tx))?;
            object.pending -= 1;
            let threads = self.cta_threads as usize;
            let from = self.cta_of(thread);
            let ctas = self.ctas.len();
            let local = thread - self.threads_of(from).start as u64;
            let epoch = self.epoch;
            // What the arriving thread acquired so far is released with it.
            let carried = (arriving == Arriving::Release)
                .then(|| {
                    usize::try_from(thread)
                        .ok()
                        .and_then(|t| self.clocks.get(t))
                })
                .flatten()
                .filter(|clock| !clock.is_empty())
                .cloned();
            if let Some(incarnation) = self.incarnations.get_mut(object.incarnation) {
                if let Some(carried) = &carried {
                    incarnation.carried.join(carried);
                }
                if incarnation.arrivals.len() != ctas {
                    incarnation.arrivals.resize_with(ctas, Arrivals::default);
                }
                let arrivals = &mut incarnation.arrivals[from];
                arrivals.first.get_or_insert(epoch);
                arrivals.relaxed |= arriving == Arriving::Relaxed;
                if arrivals.threads.len() != threads {
                    arrivals.threads = vec![false; threads];
                }
                if arriving == Arriving::Release {
                    if arrivals.released.len() != threads {
                        arrivals.released = vec![0; threads];
                    }
                    if let Some(released) = usize::try_from(local)
                        .ok()
                        .and_then(|t| arrivals.released.get_mut(t))
                        .filter(|r| **r == 0)
                    {
                        *released = u32::try_from(epoch).unwrap_or(u32::MAX);
                    }
                }
                match usize::try_from(local)
                    .ok()
                    .and_then(|t| arrivals.threads.get_mut(t))
                {
                    Some(arrived) if !*arrived => {
                        *arrived = true;
                        arrivals.distinct += 1;
                    }
                    _ => arrivals.repeated = true,
                }
            }
            if object.pending == 0 && object.tx == 0 {
                self.complete_phase(&mut object);
                completed = true;
            }
        }
        self.ctas[cta].buffers[buffer].objects[index] = Some(object);
        Ok(Arrival { phase, completed })
    }

    /// The pending transaction count `tx` raised by `by`, inside the range
    /// an mbarrier counts.
    fn raised_tx(
        &self,
        buffer: usize,
        index: usize,
        tx: i64,
        by: i128,
    ) -> Result<i64, SharedFault> {
        let raised = i128::from(tx) + by;
        if raised.abs() > i128::from(MAX_MBARRIER_TX) {
            return Err(SharedFault::Kind(FaultKind::MbarrierTxCount {
                buffer: self.names[buffer].clone(),
                index,
                tx: raised,
            }));
        }
        Ok(raised as i64)
    }

    /// The phase of `object` completes: for each CTA every thread of which
    /// arrived toward it once, each releasing, it releases that CTA's
    /// epochs below the CTA's first arrival's (see the module doc; the
    /// arriving statement began an epoch, [`Self::begin_arrivals`]); the
    /// next phase expects `count` arrivals and no bytes.
    fn complete_phase(&mut self, object: &mut Object) {
        let threads = self.cta_threads;
        if let Some(incarnation) = self.incarnations.get_mut(object.incarnation) {
            let carried = std::mem::take(&mut incarnation.carried);
            incarnation.partial.join(&carried);
            for (from, arrivals) in incarnation.arrivals.iter_mut().enumerate() {
                if arrivals.released.iter().any(|r| *r != 0) {
                    let first = from as u64 * threads;
                    incarnation
                        .partial
                        .join(&Clock::from_entries(first, &arrivals.released));
                    arrivals.released.fill(0);
                }
            }
            for (from, arrivals) in incarnation.arrivals.iter_mut().enumerate() {
                let everyone =
                    !arrivals.relaxed && !arrivals.repeated && arrivals.distinct == threads;
                if let (true, Some(first), Some(release)) =
                    (everyone, arrivals.first, incarnation.release.get_mut(from))
                {
                    *release = (*release).max(first);
                }
                let mut seen = std::mem::take(&mut arrivals.threads);
                seen.fill(false);
                *arrivals = Arrivals {
                    threads: seen,
                    released: std::mem::take(&mut arrivals.released),
                    ..Arrivals::default()
                };
            }
        }
        object.phases += 1;
        object.pending = object.count;
        object.tx = 0;
    }

    /// The current phase of the initialized object at byte `offset` of
    /// CTA `cta`'s `buffer` (what a bulk copy issued now by a thread of the
    /// CTA signals).
    pub fn mbarrier_phase(
        &self,
        cta: usize,
        buffer: usize,
        offset: i64,
    ) -> Result<Phase, SharedFault> {
        let index = self.object_at(buffer, offset)?;
        let object = self.object((cta, buffer), index)?;
        Ok(Phase {
            incarnation: object.incarnation,
            phase: object.phases,
        })
    }

    /// A bulk copy's `complete_tx` of `bytes` on the object at byte
    /// `offset` of `buffer` (the async proxy's, no thread's access): the
    /// phase completes if its arrivals and bytes are then all in; returns
    /// the phase it completed.
    pub fn mbarrier_complete_tx(
        &mut self,
        cta: usize,
        buffer: usize,
        offset: i64,
        bytes: u64,
    ) -> Result<Option<Phase>, SharedFault> {
        let index = self.object_at(buffer, offset)?;
        let mut object = self.object((cta, buffer), index)?;
        let phase = Phase {
            incarnation: object.incarnation,
            phase: object.phases,
        };
        object.tx = self.raised_tx(buffer, index, object.tx, -i128::from(bytes))?;
        let completed = object.pending == 0 && object.tx == 0;
        if completed {
            self.complete_phase(&mut object);
        }
        self.ctas[cta].buffers[buffer].objects[index] = Some(object);
        Ok(completed.then_some(phase))
    }

    /// A blocking `mbarrier.try_wait.parity` by `thread` on the object at
    /// byte `offset` of `buffer`: it must be initialized and `parity` 0
    /// or 1; an atomic access of its 8 bytes. It returns when the phase of
    /// that parity has completed, which here is now or never (the current
    /// phase's parity is the completed phases' count's): never is a fault.
    /// Returning, an `acquire` wait observes every completed phase, and
    /// raises its thread's floor to the object's release (the last
    /// completed phase's that released one).
    pub fn mbarrier_wait_parity(
        &mut self,
        buffer: usize,
        offset: i64,
        thread: u64,
        parity: u64,
        acquiring: Acquiring,
    ) -> Result<(), SharedFault> {
        let index = self.object_at(buffer, offset)?;
        let object = self.object((self.cta_of(thread), buffer), index)?;
        let fault = |kind| Err(SharedFault::Kind(kind));
        if parity > 1 {
            return fault(FaultKind::MbarrierParity {
                buffer: self.names[buffer].clone(),
                index,
                parity,
            });
        }
        self.access(buffer, offset, MBARRIER_BYTES, thread, Touch::Atomic)?;
        if object.phases % 2 == parity {
            return fault(FaultKind::MbarrierWaitNeverCompletes {
                buffer: self.names[buffer].clone(),
                index,
                parity,
                phases: object.phases,
            });
        }
        if acquiring != Acquiring::Relaxed && object.phases > 0 {
            let (cta, epoch) = (self.cta_of(thread), self.epoch);
            let shared = &mut self.ctas[cta];
            let gates = &mut shared.gates;
            shared.unobserved.retain(|g| {
                let Some(gate) = gates.get_mut(*g) else {
                    return false;
                };
                let observed = gate
                    .phases
                    .iter()
                    .any(|p| p.incarnation == object.incarnation && p.phase < object.phases);
                if observed {
                    gate.observed_at = Some(epoch);
                    gate.observer = Some((thread, epoch));
                }
                !observed
            });
            let seen = self
                .observed
                .entry((object.incarnation, thread))
                .or_insert(0);
            *seen = (*seen).max(object.phases);
            let cta = self.cta_of(thread);
            let own = self.threads_of(cta);
            let clustered = self.ctas.len() > 1;
            if let Some(incarnation) = self.incarnations.get_mut(object.incarnation) {
                incarnation.observed = incarnation.observed.max(object.phases);
                let releases = incarnation.release.clone();
                if let Some(clock) = usize::try_from(thread)
                    .ok()
                    .and_then(|t| self.clocks.get_mut(t))
                {
                    // A `.cta`-scoped wait acquires its own CTA's releases
                    // only.
                    if acquiring == Acquiring::Cluster || !clustered {
                        clock.join(&incarnation.partial);
                    } else {
                        clock.join(&incarnation.partial.within(own.start as u64..own.end as u64));
                    }
                }
                for (from, release) in releases.into_iter().enumerate() {
                    if from == cta {
                        self.raise_floor(thread, release);
                    } else if acquiring == Acquiring::Cluster {
                        self.raise_cross(thread, from, release);
                    }
                }
            }
        }
        Ok(())
    }

    /// `size` bytes at `at` of CTA `cta`'s buffer `buffer`, little-endian
    /// (checked by [`Self::access_in`]).
    #[inline]
    pub fn read(&self, cta: usize, buffer: usize, at: usize, size: usize) -> u64 {
        let mut value = 0u64;
        for (i, byte) in self.ctas[cta].buffers[buffer].bytes[at..at + size]
            .iter()
            .enumerate()
        {
            value |= u64::from(*byte) << (8 * i);
        }
        value
    }

    /// Writes the low `size` bytes of `value` at `at` of CTA `cta`'s
    /// buffer `buffer` (checked by [`Self::access_in`]); they are defined
    /// from now on.
    #[inline]
    pub fn write(&mut self, cta: usize, buffer: usize, at: usize, size: usize, value: u64) {
        let memory = &mut self.ctas[cta].buffers[buffer];
        for (i, byte) in memory.bytes[at..at + size].iter_mut().enumerate() {
            *byte = (value >> (8 * i)) as u8;
        }
        memory.defined[at..at + size].fill(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One buffer `s` of 16 bytes, blocks of 4 threads.
    fn memory() -> SharedMemory {
        SharedMemory::new(
            &[SharedLayout {
                name: "s".into(),
                bytes: 16,
                mbarrier: false,
            }],
            4,
            1,
        )
        .unwrap_or_else(|_| panic!("16 bytes"))
    }

    fn fault(result: Result<usize, SharedFault>) -> String {
        match result {
            Ok(at) => format!("ok {at}"),
            Err(SharedFault::Kind(kind)) => format!("{kind:?}"),
            Err(SharedFault::Race { buffer, at }) => {
                format!("race {buffer} byte {} other {}", at.byte, at.other)
            }
        }
    }

    #[test]
    fn a_read_needs_a_write_of_this_block() {
        let mut m = memory();
        assert_eq!(
            fault(m.access(0, 4, 4, 0, Touch::Read)),
            "UninitializedShared { buffer: \"s\", offset: 4 }"
        );
        m.reset();
        assert_eq!(fault(m.access(0, 4, 2, 0, Touch::Write)), "ok 4");
        m.write(0, 0, 4, 2, 0xbeef);
        // Bytes 6 and 7 are still undefined.
        assert_eq!(
            fault(m.access(0, 4, 4, 0, Touch::Read)),
            "UninitializedShared { buffer: \"s\", offset: 6 }"
        );
        assert_eq!(fault(m.access(0, 4, 2, 0, Touch::Read)), "ok 4");
        assert_eq!(m.read(0, 0, 4, 2), 0xbeef);
        // The next block starts undefined again.
        m.reset();
        assert_eq!(
            fault(m.access(0, 4, 2, 4, Touch::Atomic)),
            "UninitializedShared { buffer: \"s\", offset: 4 }"
        );
    }

    #[test]
    fn bounds_and_alignment_are_relative_to_the_buffer() {
        let mut m = memory();
        assert_eq!(
            fault(m.access(0, 16, 4, 0, Touch::Write)),
            "SharedOutOfBounds { buffer: \"s\", offset: 16, bytes: 4, len: 16 }"
        );
        assert_eq!(
            fault(m.access(0, -4, 4, 0, Touch::Write)),
            "SharedOutOfBounds { buffer: \"s\", offset: -4, bytes: 4, len: 16 }"
        );
        assert_eq!(
            fault(m.access(0, 2, 4, 0, Touch::Write)),
            "SharedMisaligned { buffer: \"s\", offset: 2, bytes: 4 }"
        );
        assert_eq!(fault(m.access(0, 0, 16, 0, Touch::Write)), "ok 0");
    }

    #[test]
    fn a_barrier_orders_the_threads_of_the_block() {
        let mut m = memory();
        assert_eq!(fault(m.access(0, 0, 4, 1, Touch::Write)), "ok 0");
        m.write(0, 0, 0, 4, 7);
        assert_eq!(
            fault(m.access(0, 0, 4, 2, Touch::Read)),
            "race s byte 0 other 1"
        );
        m.cta_barrier(0);
        assert_eq!(fault(m.access(0, 0, 4, 2, Touch::Read)), "ok 0");
        assert_eq!(fault(m.access(0, 0, 4, 3, Touch::Read)), "ok 0");
        assert_eq!(
            fault(m.access(0, 0, 4, 1, Touch::Write)),
            format!("race s byte 0 other {}", u64::MAX)
        );
    }

    #[test]
    fn the_shadows_forget_rather_than_run_out_of_phases() {
        let mut m = memory();
        m.access(0, 0, 4, 1, Touch::Write)
            .unwrap_or_else(|_| panic!("a write"));
        m.write(0, 0, 0, 4, 7);
        for _ in 0..MAX_EPOCH + 5 {
            m.cta_barrier(0);
        }
        assert!(m.epoch < 10, "{}", m.epoch);
        // Ordered by the barriers; still defined.
        assert_eq!(fault(m.access(0, 0, 4, 2, Touch::Read)), "ok 0");
        assert_eq!(
            fault(m.access(0, 0, 4, 3, Touch::Write)),
            "race s byte 0 other 2"
        );
    }

    // ------------------------------------------------------- clusters

    /// One buffer `s` of 16 bytes in each CTA of a cluster of two CTAs of
    /// 4 threads: threads 0..4 are CTA 0's, 4..8 CTA 1's.
    fn pair() -> SharedMemory {
        SharedMemory::new(
            &[SharedLayout {
                name: "s".into(),
                bytes: 16,
                mbarrier: false,
            }],
            4,
            2,
        )
        .unwrap_or_else(|_| panic!("2 x 16 bytes"))
    }

    #[test]
    fn each_cta_has_its_copy_which_its_barrier_orders_for_its_threads() {
        let mut m = pair();
        assert_eq!(fault(m.access(0, 0, 4, 1, Touch::Write)), "ok 0");
        m.write(0, 0, 0, 4, 7);
        // CTA 1's barrier orders nothing of CTA 0's.
        m.cta_barrier(1);
        assert_eq!(
            fault(m.access(0, 0, 4, 2, Touch::Read)),
            "race s byte 0 other 1"
        );
        m.cta_barrier(0);
        assert_eq!(fault(m.access(0, 0, 4, 2, Touch::Read)), "ok 0");
        // Thread 5 (CTA 1) reads CTA 0's copy: CTA 0's barrier does not
        // order it after thread 1's write.
        assert_eq!(
            fault(m.access_in(0, 0, 0, 4, 5, Touch::Read)),
            "race s byte 0 other 1"
        );
        m.cluster_barrier();
        assert_eq!(fault(m.access_in(0, 0, 0, 4, 5, Touch::Read)), "ok 0");
        assert_eq!(m.read(0, 0, 0, 4), 7);
        // CTA 1's own copy was never written.
        assert_eq!(
            fault(m.access(0, 0, 4, 5, Touch::Read)),
            "UninitializedShared { buffer: \"s\", offset: 0 }"
        );
        // Atomics of both CTAs do not race; a plain access of either
        // races with the other's.
        m.cluster_barrier();
        assert_eq!(fault(m.access_in(0, 0, 0, 4, 6, Touch::Atomic)), "ok 0");
        assert_eq!(fault(m.access(0, 0, 4, 3, Touch::Atomic)), "ok 0");
        assert_eq!(
            fault(m.access(0, 0, 4, 0, Touch::Read)),
            "race s byte 0 other 3"
        );
        assert_eq!(
            fault(m.access_in(0, 0, 0, 4, 5, Touch::Read)),
            "race s byte 0 other 3"
        );
        // A new cluster starts with every copy undefined.
        m.reset();
        assert_eq!(
            fault(m.access_in(0, 0, 0, 4, 5, Touch::Read)),
            "UninitializedShared { buffer: \"s\", offset: 0 }"
        );
    }

    #[test]
    fn running_out_of_epochs_in_a_cluster_keeps_each_ctas_order() {
        let mut m = pair();
        ok(m.access(0, 0, 4, 1, Touch::Write));
        m.write(0, 0, 0, 4, 7);
        for _ in 0..MAX_EPOCH + 5 {
            m.cta_barrier(1);
        }
        assert!(m.epoch < 10, "{}", m.epoch);
        assert_eq!(
            fault(m.access(0, 0, 4, 2, Touch::Read)),
            "race s byte 0 other 1"
        );
        m.cta_barrier(0);
        assert_eq!(fault(m.access(0, 0, 4, 2, Touch::Read)), "ok 0");
    }

    // ------------------------------------------------------ mbarriers

    /// Buffer 0 `s` (16 data bytes), buffer 1 `bar` (2 mbarrier objects),
    /// blocks of 4 threads.
    fn with_barriers() -> SharedMemory {
        SharedMemory::new(
            &[
                SharedLayout {
                    name: "s".into(),
                    bytes: 16,
                    mbarrier: false,
                },
                SharedLayout {
                    name: "bar".into(),
                    bytes: 16,
                    mbarrier: true,
                },
            ],
            4,
            1,
        )
        .unwrap_or_else(|_| panic!("32 bytes"))
    }

    const BAR: usize = 1;

    /// The outcome of an mbarrier operation, as text.
    fn outcome<T: std::fmt::Debug>(result: Result<T, SharedFault>) -> String {
        match result {
            Ok(value) => format!("ok {value:?}"),
            Err(fault) => self::fault(Err(fault)),
        }
    }

    fn ok<T>(result: Result<T, SharedFault>) -> T {
        result.unwrap_or_else(|fault| panic!("{}", self::fault(Err(fault))))
    }

    /// `bar[object]` initialized by thread 0 to expect `count` arrivals,
    /// then a barrier (every thread may use it).
    fn initialized(object: i64, count: u64) -> SharedMemory {
        let mut m = with_barriers();
        ok(m.mbarrier_init(BAR, 8 * object, 0, count));
        m.cta_barrier(0);
        m
    }

    /// One arrival of `thread` on `bar[0]`: whether it completed the phase.
    fn arrive(m: &mut SharedMemory, thread: u64) -> bool {
        ok(m.mbarrier_arrive(BAR, 0, thread, Arriving::Release, 0)).completed
    }

    #[test]
    fn a_phase_completes_once_its_arrivals_and_its_transaction_bytes_are_in() {
        let mut m = initialized(0, 1);
        let phase = |phase| Phase {
            incarnation: 0,
            phase,
        };
        // Expect 32 bytes and arrive: the arrivals are in, the bytes not.
        let arrival = ok(m.mbarrier_arrive(BAR, 0, 0, Arriving::Release, 32));
        assert!(!arrival.completed);
        assert_eq!(
            outcome(m.mbarrier_wait_parity(BAR, 0, 1, 0, Acquiring::Cluster)),
            "MbarrierWaitNeverCompletes { buffer: \"bar\", index: 0, parity: 0, phases: 0 }"
        );
        assert_eq!(ok(m.mbarrier_complete_tx(0, BAR, 0, 16)), None);
        assert_eq!(ok(m.mbarrier_complete_tx(0, BAR, 0, 16)), Some(phase(0)));
        assert_eq!(
            outcome(m.mbarrier_wait_parity(BAR, 0, 1, 0, Acquiring::Cluster)),
            "ok ()"
        );
        // Bytes that land before their expectation: the count goes below
        // zero, the arrival's expectation brings it back.
        assert_eq!(ok(m.mbarrier_complete_tx(0, BAR, 0, 48)), None);
        assert!(ok(m.mbarrier_arrive(BAR, 0, 0, Arriving::Release, 48)).completed);
        // A further arrival while the bytes are missing counts toward no
        // phase.
        assert!(!ok(m.mbarrier_arrive(BAR, 0, 0, Arriving::Release, 16)).completed);
        assert_eq!(
            outcome(m.mbarrier_arrive(BAR, 0, 1, Arriving::Release, 0)),
            "MbarrierExtraArrival { buffer: \"bar\", index: 0 }"
        );
        // The count stays within 2^20 - 1 either way.
        assert_eq!(
            outcome(m.mbarrier_complete_tx(0, BAR, 0, 1 << 20)),
            "ok None"
        );
        assert_eq!(
            outcome(m.mbarrier_complete_tx(0, BAR, 0, 16)),
            "MbarrierTxCount { buffer: \"bar\", index: 0, tx: -1048576 }"
        );
    }

    #[test]
    fn an_mbarrier_is_initialized_once_with_a_count_in_range() {
        let mut m = with_barriers();
        assert_eq!(outcome(m.mbarrier_init(BAR, 0, 0, 2)), "ok ()");
        assert_eq!(
            outcome(m.mbarrier_init(BAR, 0, 0, 2)),
            "MbarrierReinitialized { buffer: \"bar\", index: 0 }"
        );
        // Invalidated, it may be initialized again.
        assert_eq!(
            outcome(m.mbarrier_inval(BAR, 0, 0)),
            "ok Phase { incarnation: 0, phase: 0 }"
        );
        assert_eq!(outcome(m.mbarrier_init(BAR, 0, 0, 1)), "ok ()");
        for count in [0, 1 << 20] {
            assert_eq!(
                outcome(m.mbarrier_init(BAR, 8, 0, count)),
                format!("MbarrierCount {{ buffer: \"bar\", index: 1, count: {count} }}")
            );
        }
        assert_eq!(outcome(m.mbarrier_init(BAR, 8, 0, (1 << 20) - 1)), "ok ()");
        // Objects are 8 bytes, inside their buffer.
        assert_eq!(
            outcome(m.mbarrier_init(BAR, 4, 0, 1)),
            "SharedMisaligned { buffer: \"bar\", offset: 4, bytes: 8 }"
        );
        assert_eq!(
            outcome(m.mbarrier_init(BAR, 16, 0, 1)),
            "SharedOutOfBounds { buffer: \"bar\", offset: 16, bytes: 8, len: 16 }"
        );
        // A new block starts with every object uninitialized.
        m.reset();
        assert_eq!(outcome(m.mbarrier_init(BAR, 0, 0, 2)), "ok ()");
    }

    #[test]
    fn only_an_initialized_mbarrier_is_used() {
        let mut m = with_barriers();
        let uninitialized = "MbarrierUninitialized { buffer: \"bar\", index: 1 }";
        assert_eq!(
            outcome(m.mbarrier_arrive(BAR, 8, 0, Arriving::Release, 0)),
            uninitialized
        );
        assert_eq!(
            outcome(m.mbarrier_arrive(BAR, 8, 0, Arriving::Not, 0)),
            uninitialized
        );
        assert_eq!(
            outcome(m.mbarrier_wait_parity(BAR, 8, 0, 1, Acquiring::Cluster)),
            uninitialized
        );
        assert_eq!(outcome(m.mbarrier_inval(BAR, 8, 0)), uninitialized);
        ok(m.mbarrier_init(BAR, 8, 0, 1));
        assert!(ok(m.mbarrier_arrive(BAR, 8, 0, Arriving::Release, 0)).completed);
        ok(m.mbarrier_inval(BAR, 8, 0));
        assert_eq!(
            outcome(m.mbarrier_arrive(BAR, 8, 0, Arriving::Release, 0)),
            uninitialized
        );
        // Only mbarrier buffers hold objects.
        assert_eq!(
            outcome(m.mbarrier_init(0, 0, 0, 1)),
            "Arguments(\"an mbarrier operation on shared buffer `s`, which holds no mbarrier objects\")"
        );
    }

    #[test]
    fn using_an_mbarrier_another_thread_initialized_needs_a_barrier() {
        let mut m = with_barriers();
        ok(m.mbarrier_init(BAR, 0, 0, 2));
        assert_eq!(
            outcome(m.mbarrier_arrive(BAR, 0, 1, Arriving::Release, 0)),
            "race bar byte 0 other 0"
        );
        let mut m = initialized(0, 2);
        // Arrivals and waits are atomic: no race among them.
        assert!(!arrive(&mut m, 1));
        assert!(arrive(&mut m, 2));
        ok(m.mbarrier_wait_parity(BAR, 0, 3, 0, Acquiring::Cluster));
        // An invalidation is a write: it races with them.
        assert_eq!(
            outcome(m.mbarrier_inval(BAR, 0, 0)),
            format!("race bar byte 0 other {}", u64::MAX)
        );
    }

    #[test]
    fn a_phase_completes_after_its_count_of_arrivals() {
        let mut m = initialized(0, 3);
        for phase in 0..3 {
            let arrivals: Vec<Arrival> = (0..3)
                .map(|t| ok(m.mbarrier_arrive(BAR, 0, t, Arriving::Release, 0)))
                .collect();
            let expected: Vec<Arrival> = [false, false, true]
                .into_iter()
                .map(|completed| Arrival {
                    phase: Phase {
                        incarnation: 0,
                        phase,
                    },
                    completed,
                })
                .collect();
            assert_eq!(arrivals, expected);
        }
        // The touch of a `cp.async.mbarrier.arrive` without `.noinc` is
        // no arrival.
        for t in 0..4 {
            assert_eq!(
                ok(m.mbarrier_arrive(BAR, 0, t, Arriving::Not, 0)),
                Arrival {
                    phase: Phase {
                        incarnation: 0,
                        phase: 3
                    },
                    completed: false
                }
            );
        }
    }

    #[test]
    fn a_parity_wait_returns_once_the_phase_of_its_parity_completed() {
        let mut m = initialized(0, 2);
        let never = |parity, phases| {
            format!(
                "MbarrierWaitNeverCompletes {{ buffer: \"bar\", index: 0, parity: {parity}, phases: {phases} }}"
            )
        };
        // A fresh object is in phase 0: parity 1 names the phase "before"
        // it, complete; parity 0 the current one.
        assert_eq!(
            outcome(m.mbarrier_wait_parity(BAR, 0, 0, 1, Acquiring::Cluster)),
            "ok ()"
        );
        assert_eq!(
            outcome(m.mbarrier_wait_parity(BAR, 0, 0, 0, Acquiring::Cluster)),
            never(0, 0)
        );
        arrive(&mut m, 0);
        assert_eq!(
            outcome(m.mbarrier_wait_parity(BAR, 0, 1, 0, Acquiring::Cluster)),
            never(0, 0)
        );
        assert!(arrive(&mut m, 1));
        assert_eq!(
            outcome(m.mbarrier_wait_parity(BAR, 0, 1, 0, Acquiring::Cluster)),
            "ok ()"
        );
        assert_eq!(
            outcome(m.mbarrier_wait_parity(BAR, 0, 1, 1, Acquiring::Cluster)),
            never(1, 1)
        );
        assert_eq!(
            outcome(m.mbarrier_wait_parity(BAR, 0, 1, 2, Acquiring::Cluster)),
            "MbarrierParity { buffer: \"bar\", index: 0, parity: 2 }"
        );
        arrive(&mut m, 2);
        assert!(arrive(&mut m, 3));
        assert_eq!(
            outcome(m.mbarrier_wait_parity(BAR, 0, 2, 1, Acquiring::Cluster)),
            "ok ()"
        );
        assert_eq!(
            outcome(m.mbarrier_wait_parity(BAR, 0, 2, 0, Acquiring::Cluster)),
            never(0, 2)
        );
    }

    /// `bar[0]` expecting one arrival; thread 1's copy of 4 bytes into
    /// `s[4..8]` (statement 7) landed with its phase 0, which thread 1's
    /// arrival completed.
    fn landed() -> SharedMemory {
        let mut m = initialized(0, 1);
        ok(m.begin_copy(0, 4, (4, 4), 1, 7));
        // In flight: nobody touches it, its issuer neither.
        for t in [1, 2] {
            assert_eq!(
                fault(m.access(0, 4, 4, t, Touch::Read)),
                "AsyncCopyInFlight { buffer: \"s\", offset: 4, copy: 7 }"
            );
        }
        let arrival = ok(m.mbarrier_arrive(BAR, 0, 1, Arriving::Release, 0));
        assert!(arrival.completed);
        ok(m.land_gated(
            (0, 0),
            4,
            &[1, 2, 3, 4],
            Issue {
                copy: 7,
                issuer: 1,
                group: 0,
            },
            &[arrival.phase],
        ));
        m
    }

    fn unobserved(thread_offset: usize) -> String {
        format!(
            "AsyncCopyUnobserved {{ buffer: \"s\", offset: {thread_offset}, copy: 7, mbarrier: \"bar\", index: 0, phase: 0 }}"
        )
    }

    #[test]
    fn a_copy_landed_with_a_phase_is_seen_by_the_threads_that_observed_it() {
        let mut m = landed();
        // Its issuer and the other threads: none has observed the phase.
        for t in 0..4 {
            assert_eq!(fault(m.access(0, 4, 4, t, Touch::Read)), unobserved(4));
            assert_eq!(fault(m.access(0, 6, 2, t, Touch::Write)), unobserved(6));
            assert_eq!(fault(m.begin_copy(0, 4, (4, 4), t, 9)), unobserved(4));
        }
        // Bytes beside the copy are ordinary.
        assert_eq!(fault(m.access(0, 8, 4, 0, Touch::Write)), "ok 8");
        ok(m.mbarrier_wait_parity(BAR, 0, 2, 0, Acquiring::Cluster));
        assert_eq!(fault(m.access(0, 4, 4, 2, Touch::Read)), "ok 4");
        assert_eq!(m.read(0, 0, 4, 4), 0x0403_0201);
        assert_eq!(fault(m.access(0, 4, 4, 3, Touch::Read)), unobserved(4));
        // A relaxed wait returns but orders no memory.
        ok(m.mbarrier_wait_parity(BAR, 0, 3, 0, Acquiring::Relaxed));
        assert_eq!(fault(m.access(0, 4, 4, 3, Touch::Read)), unobserved(4));
        ok(m.mbarrier_wait_parity(BAR, 0, 3, 0, Acquiring::Cluster));
        assert_eq!(fault(m.access(0, 4, 4, 3, Touch::Read)), "ok 4");
        // Observers race with each other as usual: two readers, then a
        // writer among the observers.
        assert_eq!(
            fault(m.access(0, 4, 4, 2, Touch::Write)),
            format!("race s byte 4 other {}", u64::MAX)
        );
    }

    #[test]
    fn an_observer_may_copy_into_landed_bytes_again() {
        let mut m = landed();
        ok(m.mbarrier_wait_parity(BAR, 0, 2, 0, Acquiring::Cluster));
        assert_eq!(fault(m.begin_copy(0, 4, (4, 4), 2, 9)), "ok 4");
        assert_eq!(
            fault(m.access(0, 4, 4, 2, Touch::Read)),
            "AsyncCopyInFlight { buffer: \"s\", offset: 4, copy: 9 }"
        );
        ok(m.complete_copy(0, 4, &[5, 6, 7, 8], 2));
        assert_eq!(fault(m.access(0, 4, 4, 2, Touch::Read)), "ok 4");
        assert_eq!(m.read(0, 0, 4, 4), 0x0807_0605);
    }

    #[test]
    fn a_barrier_lifts_the_gates_of_observed_phases_only() {
        let mut m = landed();
        // Nobody observed phase 0: the barrier leaves the bytes gated.
        m.cta_barrier(0);
        assert_eq!(fault(m.access(0, 4, 4, 3, Touch::Read)), unobserved(4));
        ok(m.mbarrier_wait_parity(BAR, 0, 0, 0, Acquiring::Cluster));
        assert_eq!(fault(m.access(0, 4, 4, 0, Touch::Read)), "ok 4");
        // Thread 0 observed it: after the barrier the bytes are ordinary
        // for every thread, ordered after the landing and thread 0's read.
        m.cta_barrier(0);
        assert_eq!(fault(m.access(0, 4, 4, 3, Touch::Write)), "ok 4");
        m.cta_barrier(0);
        for t in 0..4 {
            assert_eq!(fault(m.access(0, 4, 4, t, Touch::Read)), "ok 4");
        }
        assert!(m.ctas[0].gates.is_empty());
    }

    #[test]
    fn phases_of_a_reinitialized_mbarrier_are_new_phases() {
        let mut m = landed();
        m.cta_barrier(0);
        ok(m.mbarrier_inval(BAR, 0, 0));
        m.cta_barrier(0);
        ok(m.mbarrier_init(BAR, 0, 0, 1));
        m.cta_barrier(0);
        assert!(arrive(&mut m, 2));
        // Thread 2 observed phase 0 of the new initialization, not of the
        // one the copy landed with.
        ok(m.mbarrier_wait_parity(BAR, 0, 2, 0, Acquiring::Cluster));
        assert_eq!(fault(m.access(0, 4, 4, 2, Touch::Read)), unobserved(4));
        m.cta_barrier(0);
        assert_eq!(fault(m.access(0, 4, 4, 2, Touch::Read)), unobserved(4));
        // A new block starts without gates.
        m.reset();
        assert_eq!(fault(m.access(0, 4, 4, 2, Touch::Write)), "ok 4");
    }

    // ------------------------------------- mbarrier phases order accesses

    /// `bar[0]` expecting `count` arrivals; thread 1 wrote `s[0..4]`
    /// before a barrier, then thread 2 read it.
    fn read_by_2(count: u64) -> SharedMemory {
        let mut m = initialized(0, count);
        ok(m.access(0, 0, 4, 1, Touch::Write));
        m.write(0, 0, 0, 4, 7);
        m.cta_barrier(0);
        ok(m.access(0, 0, 4, 2, Touch::Read));
        m
    }

    /// One arriving statement: `threads` arrive on `bar[0]` as `arriving`.
    fn arrive_all(m: &mut SharedMemory, threads: &[u64], arriving: Arriving) {
        m.begin_arrivals();
        for &t in threads {
            ok(m.mbarrier_arrive(BAR, 0, t, arriving, 0));
        }
    }

    #[test]
    fn a_phase_every_thread_arrived_on_orders_the_reads_before_it() {
        let mut m = read_by_2(4);
        arrive_all(&mut m, &[0, 1, 2, 3], Arriving::Release);
        ok(m.mbarrier_wait_parity(BAR, 0, 3, 0, Acquiring::Cluster));
        assert_eq!(fault(m.access(0, 0, 4, 3, Touch::Write)), "ok 0");
        // Thread 0 has not waited: its write races with thread 3's.
        assert_eq!(
            fault(m.access(0, 0, 4, 0, Touch::Write)),
            "race s byte 0 other 3"
        );
        // Waiting, it is ordered after the read, not after thread 3's
        // write (made after thread 3's arrival).
        ok(m.mbarrier_wait_parity(BAR, 0, 0, 0, Acquiring::Cluster));
        assert_eq!(
            fault(m.access(0, 0, 4, 0, Touch::Write)),
            "race s byte 0 other 3"
        );
    }

    #[test]
    fn without_the_wait_the_phase_orders_nothing() {
        let mut m = read_by_2(4);
        arrive_all(&mut m, &[0, 1, 2, 3], Arriving::Release);
        assert_eq!(
            fault(m.access(0, 0, 4, 3, Touch::Write)),
            "race s byte 0 other 2"
        );
        // A relaxed wait orders nothing either.
        ok(m.mbarrier_wait_parity(BAR, 0, 3, 0, Acquiring::Relaxed));
        assert_eq!(
            fault(m.access(0, 0, 4, 3, Touch::Write)),
            "race s byte 0 other 2"
        );
    }

    #[test]
    fn a_phase_orders_the_accesses_of_the_threads_that_arrived_on_it() {
        // Two of the four threads, not the reader: its read stays unordered.
        let mut m = read_by_2(2);
        arrive_all(&mut m, &[0, 1], Arriving::Release);
        ok(m.mbarrier_wait_parity(BAR, 0, 3, 0, Acquiring::Cluster));
        assert_eq!(
            fault(m.access(0, 0, 4, 3, Touch::Write)),
            "race s byte 0 other 2"
        );
        // Two of the four threads, the reader among them: its read is
        // ordered before the waiter.
        let mut m = read_by_2(2);
        arrive_all(&mut m, &[2, 0], Arriving::Release);
        ok(m.mbarrier_wait_parity(BAR, 0, 3, 0, Acquiring::Cluster));
        assert_eq!(fault(m.access(0, 0, 4, 3, Touch::Write)), "ok 0");
        // Not before a thread that has not waited.
        assert_eq!(
            fault(m.access(0, 0, 4, 1, Touch::Read)),
            "race s byte 0 other 3"
        );
        // Four arrivals, thread 2 twice and thread 3 never: the reader's.
        let mut m = read_by_2(4);
        arrive_all(&mut m, &[0, 1, 2, 2], Arriving::Release);
        ok(m.mbarrier_wait_parity(BAR, 0, 3, 0, Acquiring::Cluster));
        assert_eq!(fault(m.access(0, 0, 4, 3, Touch::Write)), "ok 0");
        // Every thread, the reader relaxed: its read stays unordered.
        let mut m = read_by_2(4);
        arrive_all(&mut m, &[0, 1, 3], Arriving::Release);
        arrive_all(&mut m, &[2], Arriving::Relaxed);
        ok(m.mbarrier_wait_parity(BAR, 0, 3, 0, Acquiring::Cluster));
        assert_eq!(
            fault(m.access(0, 0, 4, 3, Touch::Write)),
            "race s byte 0 other 2"
        );
    }

    #[test]
    fn an_arrival_releases_what_its_thread_acquired_at_a_warp_sync() {
        // Thread 2 reads, threads 0..3 synchronize (not the waiter, 3),
        // thread 0 alone arrives (count 1): the release is cumulative, the
        // read is ordered before the waiter.
        let mut m = read_by_2(1);
        m.warp_sync(&[0, 1, 2]);
        arrive_all(&mut m, &[0], Arriving::Release);
        ok(m.mbarrier_wait_parity(BAR, 0, 3, 0, Acquiring::Cluster));
        assert_eq!(fault(m.access(0, 0, 4, 3, Touch::Write)), "ok 0");
        // Without the warp sync thread 0's arrival orders only its own
        // accesses.
        let mut m = read_by_2(1);
        arrive_all(&mut m, &[0], Arriving::Release);
        ok(m.mbarrier_wait_parity(BAR, 0, 3, 0, Acquiring::Cluster));
        assert_eq!(
            fault(m.access(0, 0, 4, 3, Touch::Write)),
            "race s byte 0 other 2"
        );
        // A sync that leaves the reader out orders nothing of it.
        let mut m = read_by_2(1);
        m.warp_sync(&[0, 1]);
        arrive_all(&mut m, &[0], Arriving::Release);
        ok(m.mbarrier_wait_parity(BAR, 0, 3, 0, Acquiring::Cluster));
        assert_eq!(
            fault(m.access(0, 0, 4, 3, Touch::Write)),
            "race s byte 0 other 2"
        );
        // A relaxed arrival carries nothing.
        let mut m = read_by_2(1);
        m.warp_sync(&[0, 1, 2]);
        arrive_all(&mut m, &[0], Arriving::Relaxed);
        ok(m.mbarrier_wait_parity(BAR, 0, 3, 0, Acquiring::Cluster));
        assert_eq!(
            fault(m.access(0, 0, 4, 3, Touch::Write)),
            "race s byte 0 other 2"
        );
    }

    #[test]
    fn a_phase_releases_only_what_came_before_its_first_arrival() {
        // Threads 0, 1 and 2 arrive; thread 2 reads again; then 2 and 3
        // arrive. The second read is after thread 2's first arrival: a
        // wait does not order it.
        let mut m = read_by_2(5);
        arrive_all(&mut m, &[0, 1, 2], Arriving::Release);
        ok(m.access(0, 0, 4, 2, Touch::Read));
        arrive_all(&mut m, &[2, 3], Arriving::Release);
        ok(m.mbarrier_wait_parity(BAR, 0, 3, 0, Acquiring::Cluster));
        assert_eq!(
            fault(m.access(0, 0, 4, 3, Touch::Write)),
            "race s byte 0 other 2"
        );
        // A later phase of the object, every thread arriving after the
        // read, orders it (the wait acquires the last release).
        arrive_all(&mut m, &[0, 1, 2, 3, 0], Arriving::Release);
        ok(m.mbarrier_wait_parity(BAR, 0, 3, 1, Acquiring::Cluster));
        assert_eq!(fault(m.access(0, 0, 4, 3, Touch::Write)), "ok 0");
    }

    #[test]
    fn running_out_of_epochs_keeps_what_floors_order() {
        let mut m = read_by_2(4);
        arrive_all(&mut m, &[0, 1, 2, 3], Arriving::Release);
        for _ in 0..MAX_EPOCH + 5 {
            m.begin_arrivals();
        }
        assert!(m.epoch < 32, "{}", m.epoch);
        // Thread 2's read is remembered: thread 0 races with it.
        assert_eq!(
            fault(m.access(0, 0, 4, 0, Touch::Write)),
            "race s byte 0 other 2"
        );
        // The phase's release survived: thread 3's wait orders the read.
        ok(m.mbarrier_wait_parity(BAR, 0, 3, 0, Acquiring::Cluster));
        assert_eq!(fault(m.access(0, 0, 4, 3, Touch::Write)), "ok 0");
        // Renumbered again with thread 3's floor above the others'.
        for _ in 0..MAX_EPOCH + 5 {
            m.begin_arrivals();
        }
        assert!(m.epoch < 32, "{}", m.epoch);
        assert_eq!(fault(m.access(0, 0, 4, 3, Touch::Read)), "ok 0");
        assert_eq!(
            fault(m.access(0, 0, 4, 1, Touch::Read)),
            "race s byte 0 other 3"
        );
        m.cta_barrier(0);
        assert_eq!(fault(m.access(0, 0, 4, 1, Touch::Write)), "ok 0");
    }

    // ------------------------------- the issuer's wait retires its copy

    #[test]
    fn the_issuer_touches_its_landed_copy_once_its_wait_retired_the_group() {
        let mut m = landed();
        // Thread 1's copy was of its group 0. A wait that retires no
        // group, or another thread's, shows it nothing.
        m.retire_groups(1, 0);
        m.retire_groups(2, 1);
        for t in 1..3 {
            assert_eq!(fault(m.access(0, 4, 4, t, Touch::Read)), unobserved(4));
        }
        m.retire_groups(1, 1);
        assert_eq!(fault(m.access(0, 4, 4, 1, Touch::Read)), "ok 4");
        assert_eq!(m.read(0, 0, 4, 4), 0x0403_0201);
        assert_eq!(fault(m.access(0, 4, 4, 1, Touch::Write)), "ok 4");
        // The other threads still need the phase...
        assert_eq!(fault(m.access(0, 4, 4, 2, Touch::Read)), unobserved(4));
        ok(m.mbarrier_wait_parity(BAR, 0, 2, 0, Acquiring::Cluster));
        // ...and race with the issuer's accesses as usual.
        assert_eq!(
            fault(m.access(0, 4, 4, 2, Touch::Read)),
            "race s byte 4 other 1"
        );
    }

    #[test]
    fn a_barrier_after_the_issuers_wait_lifts_its_copys_gate() {
        let mut m = landed();
        // Before the issuer's wait, a barrier lifts nothing.
        m.cta_barrier(0);
        assert_eq!(fault(m.access(0, 4, 4, 3, Touch::Read)), unobserved(4));
        m.retire_groups(1, 1);
        m.cta_barrier(0);
        for t in 0..4 {
            assert_eq!(fault(m.access(0, 4, 4, t, Touch::Read)), "ok 4");
        }
        assert!(m.ctas[0].gates.is_empty());
    }

    // ---------------------------------------------------- bulk stores

    #[test]
    fn a_bulk_stores_source_is_read_not_written_until_it_ends() {
        let mut m = memory();
        ok(m.access(0, 0, 16, 0, Touch::Write));
        m.write(0, 0, 0, 8, 0x0807_0605_0403_0201);
        m.write(0, 0, 8, 8, 0x100f_0e0d_0c0b_0a09);
        m.cta_barrier(0);
        // Stores 7 (thread 0, bytes 0..16) and 9 (thread 1, bytes 0..8).
        assert_eq!(outcome(m.begin_store_source(0, 0, (16, 16), 0, 7)), "ok 0");
        assert_eq!(outcome(m.begin_store_source(0, 0, (8, 8), 1, 9)), "ok 0");
        assert_eq!(m.bytes(0, 0, 4, 4), &[5, 6, 7, 8]);
        let written = |offset, store| {
            format!("AsyncStoreSourceWritten {{ buffer: \"s\", offset: {offset}, store: {store} }}")
        };
        // Any thread reads it; none writes it, nor the issuer.
        assert_eq!(fault(m.access(0, 0, 4, 2, Touch::Read)), "ok 0");
        assert_eq!(fault(m.access(0, 0, 4, 2, Touch::Write)), written(0, 9));
        assert_eq!(fault(m.access(0, 12, 4, 0, Touch::Atomic)), written(12, 7));
        assert_eq!(fault(m.begin_copy(0, 8, (8, 8), 3, 11)), written(8, 7));
        // Thread 1's store ends: the bytes stay store 7's.
        ok(m.end_store_source(0, 0, 8, 1, 9));
        assert_eq!(fault(m.access(0, 0, 4, 1, Touch::Write)), written(0, 7));
        ok(m.end_store_source(0, 0, 16, 0, 7));
        // Its read is thread 0's at the end: unordered with thread 3's write.
        assert_eq!(
            fault(m.access(0, 12, 4, 3, Touch::Write)),
            "race s byte 12 other 0"
        );
        m.cta_barrier(0);
        assert_eq!(fault(m.access(0, 12, 4, 3, Touch::Write)), "ok 12");
    }

    // ------------------------------- releases across a cluster's CTAs

    /// Buffer 0 `s` (16 bytes), buffer 1 `bar` (2 objects) in each CTA of
    /// a cluster of two CTAs of 4 threads; CTA 0's `bar[0]` expects all 8
    /// threads' arrivals; a cluster barrier; then thread 5 (CTA 1) read
    /// CTA 1's `s[0..4]`, which thread 4 wrote before the barrier.
    fn pair_read() -> SharedMemory {
        let mut m = SharedMemory::new(
            &[
                SharedLayout {
                    name: "s".into(),
                    bytes: 16,
                    mbarrier: false,
                },
                SharedLayout {
                    name: "bar".into(),
                    bytes: 16,
                    mbarrier: true,
                },
            ],
            4,
            2,
        )
        .unwrap_or_else(|_| panic!("2 x 32 bytes"));
        ok(m.mbarrier_init(BAR, 0, 0, 8));
        ok(m.access(0, 0, 4, 4, Touch::Write));
        m.write(1, 0, 0, 4, 7);
        m.cluster_barrier();
        ok(m.access(0, 0, 4, 5, Touch::Read));
        m
    }

    /// One arriving statement: `threads` arrive on CTA 0's `bar[0]`.
    fn arrive_at_0(m: &mut SharedMemory, threads: &[u64], arriving: Arriving) -> bool {
        m.begin_arrivals();
        let mut completed = false;
        for &t in threads {
            completed = ok(m.mbarrier_arrive_in((0, BAR), 0, t, arriving, 0)).completed;
        }
        completed
    }

    #[test]
    fn a_phase_every_thread_of_another_cta_arrived_on_orders_its_reads_before_a_copy() {
        let mut m = pair_read();
        assert!(!arrive_at_0(&mut m, &[0, 1, 2, 3], Arriving::Release));
        assert!(arrive_at_0(&mut m, &[4, 5, 6, 7], Arriving::Release));
        // Thread 0 has not waited: its copy into CTA 1's `s` races with
        // thread 5's read.
        assert_eq!(
            fault(m.begin_copy_in((1, 0), 0, (4, 4), 0, 9)),
            "race s byte 0 other 5"
        );
        ok(m.mbarrier_wait_parity(BAR, 0, 0, 0, Acquiring::Cluster));
        assert_eq!(fault(m.begin_copy_in((1, 0), 0, (4, 4), 0, 9)), "ok 0");
        // A plain store of thread 1 into CTA 1's copy is ordered only by
        // a cluster barrier (thread 1 waited too).
        ok(m.mbarrier_wait_parity(BAR, 0, 1, 0, Acquiring::Cluster));
        assert_eq!(fault(m.access_in(1, 0, 8, 4, 1, Touch::Write)), "ok 8");
        assert_eq!(
            fault(m.access_in(1, 0, 0, 4, 1, Touch::Write)),
            "AsyncCopyInFlight { buffer: \"s\", offset: 0, copy: 9 }"
        );
    }

    #[test]
    fn a_phase_some_thread_of_another_cta_missed_or_relaxed_orders_nothing() {
        // The reader, thread 5, never arrives (thread 0 twice).
        let mut m = pair_read();
        arrive_at_0(&mut m, &[0, 1, 2, 3, 0], Arriving::Release);
        assert!(arrive_at_0(&mut m, &[4, 6, 7], Arriving::Release));
        ok(m.mbarrier_wait_parity(BAR, 0, 0, 0, Acquiring::Cluster));
        assert_eq!(
            fault(m.begin_copy_in((1, 0), 0, (4, 4), 0, 9)),
            "race s byte 0 other 5"
        );
        // Thread 7, which did not read, never arrives: the reader's own
        // arrival orders its read.
        let mut m = pair_read();
        arrive_at_0(&mut m, &[0, 1, 2, 3, 0], Arriving::Release);
        assert!(arrive_at_0(&mut m, &[4, 5, 6], Arriving::Release));
        ok(m.mbarrier_wait_parity(BAR, 0, 0, 0, Acquiring::Cluster));
        assert_eq!(fault(m.begin_copy_in((1, 0), 0, (4, 4), 0, 9)), "ok 0");
        // The reader's arrival released nothing (`.relaxed`, or a
        // `.cta`-scoped release on CTA 0's object).
        let mut m = pair_read();
        arrive_at_0(&mut m, &[0, 1, 2, 3, 4, 6, 7], Arriving::Release);
        assert!(arrive_at_0(&mut m, &[5], Arriving::Relaxed));
        ok(m.mbarrier_wait_parity(BAR, 0, 0, 0, Acquiring::Cluster));
        assert_eq!(
            fault(m.begin_copy_in((1, 0), 0, (4, 4), 0, 9)),
            "race s byte 0 other 5"
        );
        // A read after the reader's own arrival is not released.
        let mut m = pair_read();
        arrive_at_0(&mut m, &[0, 1, 2, 3, 4, 6], Arriving::Release);
        ok(m.access(0, 0, 4, 6, Touch::Read));
        assert!(arrive_at_0(&mut m, &[5, 7], Arriving::Release));
        ok(m.mbarrier_wait_parity(BAR, 0, 0, 0, Acquiring::Cluster));
        assert_eq!(
            fault(m.begin_copy_in((1, 0), 0, (4, 4), 0, 9)),
            "race s byte 0 other 5"
        );
        // A `.cta`-scoped wait acquires no other CTA's release.
        let mut m = pair_read();
        arrive_at_0(&mut m, &[0, 1, 2, 3], Arriving::Release);
        assert!(arrive_at_0(&mut m, &[4, 5, 6, 7], Arriving::Release));
        ok(m.mbarrier_wait_parity(BAR, 0, 0, 0, Acquiring::Cta));
        assert_eq!(
            fault(m.begin_copy_in((1, 0), 0, (4, 4), 0, 9)),
            "race s byte 0 other 5"
        );
    }

    #[test]
    fn a_plain_access_of_another_cta_leaves_copies_ordered_by_cluster_barriers_alone() {
        // Thread 2 (CTA 0) also read CTA 1's `s[0..4]` remotely: CTA 1's
        // shadow may have forgotten thread 5's read for it.
        let mut m = pair_read();
        ok(m.access_in(1, 0, 0, 4, 2, Touch::Read));
        arrive_at_0(&mut m, &[0, 1, 2, 3], Arriving::Release);
        assert!(arrive_at_0(&mut m, &[4, 5, 6, 7], Arriving::Release));
        ok(m.mbarrier_wait_parity(BAR, 0, 0, 0, Acquiring::Cluster));
        assert_eq!(
            fault(m.begin_copy_in((1, 0), 0, (4, 4), 0, 9)),
            "race s byte 0 other 5"
        );
        m.cluster_barrier();
        assert_eq!(fault(m.begin_copy_in((1, 0), 0, (4, 4), 0, 9)), "ok 0");
    }

    #[test]
    fn a_remote_arrival_needs_the_init_ordered_by_a_cluster_barrier() {
        let mut m = pair_read();
        // CTA 1's thread 4 initializes its `bar[1]`; thread 0 arrives on
        // it with no cluster barrier between.
        ok(m.mbarrier_init(BAR, 8, 4, 1));
        assert_eq!(
            outcome(m.mbarrier_arrive_in((1, BAR), 8, 0, Arriving::Release, 0)),
            "race bar byte 8 other 4"
        );
        m.cluster_barrier();
        assert_eq!(
            outcome(m.mbarrier_arrive_in((1, BAR), 8, 0, Arriving::Release, 0)),
            "ok Arrival { phase: Phase { incarnation: 1, phase: 0 }, completed: true }"
        );
        // CTA 0's `bar[1]` was never initialized.
        assert_eq!(
            outcome(m.mbarrier_arrive_in((0, BAR), 8, 4, Arriving::Release, 0)),
            "MbarrierUninitialized { buffer: \"bar\", index: 1 }"
        );
    }

    #[test]
    fn a_copy_landed_in_another_cta_is_gated_by_that_ctas_phase() {
        let mut m = pair_read();
        ok(m.mbarrier_init(BAR, 8, 4, 1));
        m.cluster_barrier();
        // Thread 0's copy into CTA 1's `s[8..12]`, landing with CTA 1's
        // `bar[1]`, which thread 4's arrival completes.
        ok(m.begin_copy_in((1, 0), 8, (4, 4), 0, 9));
        let arrival = ok(m.mbarrier_arrive_in((1, BAR), 8, 4, Arriving::Release, 0));
        ok(m.land_gated(
            (1, 0),
            8,
            &[1, 2, 3, 4],
            Issue {
                copy: 9,
                issuer: 0,
                group: u64::MAX,
            },
            &[arrival.phase],
        ));
        let unobserved = "AsyncCopyUnobserved { buffer: \"s\", offset: 8, copy: 9, mbarrier: \"bar\", index: 1, phase: 0 }";
        assert_eq!(fault(m.access(0, 8, 4, 5, Touch::Read)), unobserved);
        ok(m.mbarrier_wait_parity(BAR, 8, 5, 0, Acquiring::Cluster));
        assert_eq!(fault(m.access(0, 8, 4, 5, Touch::Read)), "ok 8");
        assert_eq!(m.read(1, 0, 8, 4), 0x0403_0201);
        // CTA 0's own copy was not written; its threads do not see CTA
        // 1's (a remote read needs a cluster barrier after an observer's
        // CTA barrier).
        assert_eq!(fault(m.access_in(1, 0, 8, 4, 1, Touch::Read)), unobserved);
        m.cta_barrier(1);
        assert_eq!(
            fault(m.access_in(1, 0, 8, 4, 1, Touch::Read)),
            "race s byte 8 other 4"
        );
        m.cluster_barrier();
        assert_eq!(fault(m.access_in(1, 0, 8, 4, 1, Touch::Read)), "ok 8");
    }

    // ----------------------------- warp-specialised rings (per-thread release)

    /// A two-stage ring in a block of 12 threads: consumers 0..8 read each
    /// stage after waiting on its `full` barrier (`bar[stage]`, count 1)
    /// and arrive on its `empty` barrier (`bar[2 + stage]`); the producer
    /// lanes 8..12 (a "warp") wait on `empty`, and lane 8 refills the
    /// stage with a copy counted on `full` (`complete_tx`, as a tensor
    /// copy). What each variant changes is a mistake the ring must catch.
    struct Ring {
        /// The expected arrivals of each `empty` phase.
        empty_count: u64,
        /// The consumers that arrive on `empty`.
        arrivers: Range<u64>,
        /// How they arrive.
        arriving: Arriving,
        /// The producer lanes that wait on `empty` before a refill.
        producer_waits: Vec<u64>,
        /// The producer lanes then run `bar.warp.sync` (empty: none).
        warp_sync: Vec<u64>,
        /// The consumers wait on `full` before reading.
        consumers_wait: bool,
    }

    impl Ring {
        /// The correct ring with one producer thread.
        fn producer_thread() -> Ring {
            Ring {
                empty_count: 8,
                arrivers: 0..8,
                arriving: Arriving::Release,
                producer_waits: vec![8],
                warp_sync: Vec::new(),
                consumers_wait: true,
            }
        }

        /// Runs `iterations` stages through the ring: `Ok`, or the first
        /// fault as text.
        fn run(&self, iterations: u64) -> Result<(), String> {
            let layouts = [
                SharedLayout {
                    name: "s".into(),
                    bytes: 32,
                    mbarrier: false,
                },
                SharedLayout {
                    name: "bar".into(),
                    bytes: 32,
                    mbarrier: true,
                },
            ];
            let mut m = SharedMemory::new(&layouts, 12, 1).map_err(|k| format!("{k:?}"))?;
            let text = |fault: SharedFault| self::fault(Err(fault));
            let full = |stage: u64| 8 * stage as i64;
            let empty = |stage: u64| 8 * (2 + stage) as i64;
            for stage in 0..2 {
                m.mbarrier_init(BAR, full(stage), 0, 1).map_err(text)?;
                m.mbarrier_init(BAR, empty(stage), 0, self.empty_count)
                    .map_err(text)?;
            }
            m.cta_barrier(0);
            let fill = |m: &mut SharedMemory, k: u64| -> Result<(), SharedFault> {
                let stage = k % 2;
                m.begin_arrivals();
                m.mbarrier_arrive(BAR, full(stage), 8, Arriving::Release, 16)?;
                let at = m.begin_copy(0, 16 * stage as i64, (16, 16), 8, 7)?;
                let phase = m.mbarrier_complete_tx(0, BAR, full(stage), 16)?;
                let phase = phase.expect("the copy completes the phase");
                let data = [k as u8; 16];
                let issue = Issue {
                    copy: 7,
                    issuer: 8,
                    group: 0,
                };
                m.land_gated((0, 0), at, &data, issue, &[phase])
            };
            for k in 0..iterations.min(2) {
                fill(&mut m, k).map_err(text)?;
            }
            for k in 0..iterations {
                let (stage, round) = (k % 2, k / 2);
                if self.consumers_wait {
                    for t in 0..8 {
                        m.mbarrier_wait_parity(BAR, full(stage), t, round % 2, Acquiring::Cluster)
                            .map_err(text)?;
                    }
                }
                // Each byte is read by two consumers.
                for t in 0..8 {
                    let at = m
                        .access(0, (16 * stage + 4 * (t % 4)) as i64, 4, t, Touch::Read)
                        .map_err(text)?;
                    assert_eq!(m.read(0, 0, at, 4), u64::from_le_bytes([k as u8; 8]) >> 32);
                }
                m.begin_arrivals();
                for t in self.arrivers.clone() {
                    m.mbarrier_arrive(BAR, empty(stage), t, self.arriving, 0)
                        .map_err(text)?;
                }
                if k + 2 < iterations {
                    for &t in &self.producer_waits {
                        m.mbarrier_wait_parity(BAR, empty(stage), t, round % 2, Acquiring::Cluster)
                            .map_err(text)?;
                    }
                    m.warp_sync(&self.warp_sync);
                    fill(&mut m, k + 2).map_err(text)?;
                }
            }
            Ok(())
        }
    }

    #[test]
    fn a_ring_with_a_producer_thread_runs_clean() {
        assert_eq!(Ring::producer_thread().run(8), Ok(()));
    }

    #[test]
    fn a_ring_with_a_producer_warp_runs_clean() {
        // The whole warp waits, then synchronizes; lane 8 refills.
        let ring = Ring {
            producer_waits: (8..12).collect(),
            warp_sync: (8..12).collect(),
            ..Ring::producer_thread()
        };
        assert_eq!(ring.run(8), Ok(()));
        // One lane waits, the warp synchronizes, another lane refills:
        // the barrier orders the wait before the refill.
        let ring = Ring {
            producer_waits: vec![9],
            warp_sync: (8..12).collect(),
            ..Ring::producer_thread()
        };
        assert_eq!(ring.run(8), Ok(()));
    }

    /// Whether `result` is a fault (a race or a read of a copy's bytes
    /// without observing its phase).
    fn faults(result: Result<(), String>) -> bool {
        match result {
            Ok(()) => false,
            Err(fault) => {
                assert!(
                    fault.starts_with("race s") || fault.starts_with("AsyncCopyUnobserved"),
                    "{fault}"
                );
                true
            }
        }
    }

    #[test]
    fn a_producer_that_refills_without_waiting_on_empty_faults() {
        let ring = Ring {
            producer_waits: Vec::new(),
            ..Ring::producer_thread()
        };
        assert!(faults(ring.run(3)));
        // Another lane waited, but no `bar.warp.sync` orders its wait
        // before the refill.
        let ring = Ring {
            producer_waits: vec![9],
            ..Ring::producer_thread()
        };
        assert!(faults(ring.run(3)));
        // Lanes 10 and 11 synchronize; the refilling lane 8 is not among them.
        let ring = Ring {
            producer_waits: vec![10],
            warp_sync: vec![10, 11],
            ..Ring::producer_thread()
        };
        assert!(faults(ring.run(3)));
    }

    #[test]
    fn consumers_that_read_before_waiting_on_full_fault() {
        let ring = Ring {
            consumers_wait: false,
            ..Ring::producer_thread()
        };
        assert!(faults(ring.run(1)));
    }

    #[test]
    fn a_phase_completed_by_fewer_threads_than_read_orders_only_its_arrivers() {
        // Eight consumers read, four arrive (and complete the phase): the
        // others' reads race with the refill.
        let ring = Ring {
            empty_count: 4,
            arrivers: 0..4,
            ..Ring::producer_thread()
        };
        assert_eq!(
            ring.run(3),
            Err("race s byte 0 other 18446744073709551615".into())
        );
        let ring = Ring {
            empty_count: 4,
            arrivers: 4..8,
            ..Ring::producer_thread()
        };
        assert!(faults(ring.run(3)));
    }

    #[test]
    fn relaxed_arrivals_on_empty_order_nothing() {
        let ring = Ring {
            arriving: Arriving::Relaxed,
            ..Ring::producer_thread()
        };
        assert!(faults(ring.run(3)));
    }

    // ------------------ a warp-specialised multicast ring across 2 CTAs

    /// A two-stage ring in a cluster of two CTAs of 12 threads: in each
    /// CTA, consumers 0..8 wait on the stage's `full` (`bar[stage]`, count
    /// 1), read both halves of the stage, and arrive on the stage's
    /// `empty` (`bar[2 + stage]`) of their own CTA and of the peer
    /// (remotely); producer lanes 8..12 wait on their own `empty`, and
    /// lane 8 refills: its CTA's half of the stage (8 bytes) multicast to
    /// both CTAs, each copy counted on the destination's `full`, which the
    /// producer of that CTA expects 16 bytes on. What each variant changes
    /// is a mistake the ring must catch.
    struct ClusterRing {
        /// The expected arrivals of each `empty` phase.
        empty_count: u64,
        /// The consumers also arrive on the peer's `empty`.
        remote_arrivals: bool,
        /// How the consumers arrive on the peer's `empty` (the executor
        /// passes a `.cta`-scoped release there as relaxed).
        remote_arriving: Arriving,
        /// The producer lanes (in their CTA) that wait on `empty` before a
        /// refill, and how.
        producer_waits: Vec<u64>,
        producer_acquiring: Acquiring,
        /// The producer lanes (in their CTA) then run `bar.warp.sync`.
        warp_sync: Vec<u64>,
    }

    impl ClusterRing {
        fn correct() -> ClusterRing {
            ClusterRing {
                empty_count: 16,
                remote_arrivals: true,
                remote_arriving: Arriving::Release,
                producer_waits: vec![8],
                producer_acquiring: Acquiring::Cluster,
                warp_sync: Vec::new(),
            }
        }

        /// Runs `iterations` stages through the ring: `Ok`, or the first
        /// fault as text.
        fn run(&self, iterations: u64) -> Result<(), String> {
            const THREADS: u64 = 12;
            let layouts = [
                SharedLayout {
                    name: "s".into(),
                    bytes: 32,
                    mbarrier: false,
                },
                SharedLayout {
                    name: "bar".into(),
                    bytes: 32,
                    mbarrier: true,
                },
            ];
            let mut m = SharedMemory::new(&layouts, THREADS, 2).map_err(|k| format!("{k:?}"))?;
            let text = |fault: SharedFault| self::fault(Err(fault));
            let full = |stage: u64| 8 * stage as i64;
            let empty = |stage: u64| 8 * (2 + stage) as i64;
            let thread = |cta: u64, t: u64| cta * THREADS + t;
            for cta in 0..2 {
                for stage in 0..2 {
                    m.mbarrier_init(BAR, full(stage), thread(cta, 0), 1)
                        .map_err(text)?;
                    m.mbarrier_init(BAR, empty(stage), thread(cta, 0), self.empty_count)
                        .map_err(text)?;
                }
            }
            m.cluster_barrier();
            // Both producers fill stage `k % 2` with step `k`.
            let fill = |m: &mut SharedMemory, k: u64| -> Result<(), SharedFault> {
                let stage = k % 2;
                m.begin_arrivals();
                for cta in 0..2 {
                    m.mbarrier_arrive(BAR, full(stage), thread(cta, 8), Arriving::Release, 16)?;
                }
                let mut copies = Vec::new();
                for from in 0..2u64 {
                    for to in 0..2usize {
                        let offset = 16 * stage as i64 + 8 * from as i64;
                        let at = m.begin_copy_in((to, 0), offset, (8, 8), thread(from, 8), 7)?;
                        copies.push((from, to, at));
                    }
                }
                for to in 0..2usize {
                    let phase = m.mbarrier_phase(to, BAR, full(stage))?;
                    m.mbarrier_complete_tx(to, BAR, full(stage), 8)?;
                    let completed = m.mbarrier_complete_tx(to, BAR, full(stage), 8)?;
                    assert_eq!(completed, Some(phase));
                    for &(from, _, at) in copies.iter().filter(|c| c.1 == to) {
                        let issue = Issue {
                            copy: 7,
                            issuer: thread(from, 8),
                            group: u64::MAX,
                        };
                        let data = [(2 * k + from) as u8; 8];
                        m.land_gated((to, 0), at, &data, issue, &[phase])?;
                    }
                }
                Ok(())
            };
            for k in 0..iterations.min(2) {
                fill(&mut m, k).map_err(text)?;
            }
            for k in 0..iterations {
                let (stage, round) = (k % 2, k / 2);
                for cta in 0..2 {
                    for t in (0..8).map(|t| thread(cta, t)) {
                        m.mbarrier_wait_parity(BAR, full(stage), t, round % 2, Acquiring::Cta)
                            .map_err(text)?;
                    }
                    // Each byte is read by two consumers.
                    for t in (0..8).map(|t| thread(cta, t)) {
                        let offset = 16 * stage + 4 * (t % 4);
                        let at = m
                            .access(0, offset as i64, 4, t, Touch::Read)
                            .map_err(text)?;
                        let half = (t % 4) / 2;
                        let value = (2 * k + half) as u8;
                        assert_eq!(
                            m.read(cta as usize, 0, at, 4),
                            u64::from(u32::from_le_bytes([value; 4]))
                        );
                    }
                }
                m.begin_arrivals();
                for cta in 0..2u64 {
                    for t in (0..8).map(|t| thread(cta, t)) {
                        m.mbarrier_arrive(BAR, empty(stage), t, Arriving::Release, 0)
                            .map_err(text)?;
                        if self.remote_arrivals {
                            let peer = (1 - cta) as usize;
                            m.mbarrier_arrive_in(
                                (peer, BAR),
                                empty(stage),
                                t,
                                self.remote_arriving,
                                0,
                            )
                            .map_err(text)?;
                        }
                    }
                }
                if k + 2 < iterations {
                    for cta in 0..2 {
                        for &t in &self.producer_waits {
                            let t = thread(cta, t);
                            m.mbarrier_wait_parity(
                                BAR,
                                empty(stage),
                                t,
                                round % 2,
                                self.producer_acquiring,
                            )
                            .map_err(text)?;
                        }
                        let lanes: Vec<u64> =
                            self.warp_sync.iter().map(|t| thread(cta, *t)).collect();
                        m.warp_sync(&lanes);
                    }
                    fill(&mut m, k + 2).map_err(text)?;
                }
            }
            Ok(())
        }
    }

    #[test]
    fn a_multicast_ring_across_two_ctas_runs_clean() {
        assert_eq!(ClusterRing::correct().run(8), Ok(()));
        // The producer warp: lane 9 waits, the warp synchronizes, lane 8
        // refills.
        let ring = ClusterRing {
            producer_waits: vec![9],
            warp_sync: (8..12).collect(),
            ..ClusterRing::correct()
        };
        assert_eq!(ring.run(8), Ok(()));
    }

    #[test]
    fn a_multicast_refill_without_waiting_on_empty_faults() {
        let ring = ClusterRing {
            producer_waits: Vec::new(),
            ..ClusterRing::correct()
        };
        assert!(faults(ring.run(3)));
        // Lane 9 waits, no `bar.warp.sync` orders its wait before lane
        // 8's refill.
        let ring = ClusterRing {
            producer_waits: vec![9],
            ..ClusterRing::correct()
        };
        assert!(faults(ring.run(3)));
    }

    #[test]
    fn consumers_that_arrive_only_on_their_own_empty_hang_or_race() {
        // `empty` still expects both CTAs' consumers: the producers wait
        // for a phase that never completes.
        let ring = ClusterRing {
            remote_arrivals: false,
            ..ClusterRing::correct()
        };
        assert_eq!(
            ring.run(3),
            Err(
                "MbarrierWaitNeverCompletes { buffer: \"bar\", index: 2, parity: 0, phases: 0 }"
                    .into()
            )
        );
        // It expects the own CTA's consumers only: the refill of the
        // peer's half races with (or writes unobserved) its reads.
        let ring = ClusterRing {
            empty_count: 8,
            remote_arrivals: false,
            ..ClusterRing::correct()
        };
        assert!(faults(ring.run(3)));
    }

    #[test]
    fn cta_scoped_remote_arrivals_or_waits_order_nothing_across_ctas() {
        // A `.cta`-scoped release on the peer's object (the executor
        // passes it as relaxed).
        let ring = ClusterRing {
            remote_arriving: Arriving::Relaxed,
            ..ClusterRing::correct()
        };
        assert!(faults(ring.run(3)));
        // A `.cta`-scoped wait of the producer.
        let ring = ClusterRing {
            producer_acquiring: Acquiring::Cta,
            ..ClusterRing::correct()
        };
        assert!(faults(ring.run(3)));
    }

    #[test]
    fn clocks_stay_small_and_exact_for_runs_of_threads() {
        let mut clock = Clock::default();
        clock.raise(0..256, 5);
        clock.raise(256..257, 9);
        assert_eq!(clock.min_over(0, 255), 5);
        assert_eq!(clock.min_over(0, 256), 5);
        assert_eq!(clock.min_over(256, 256), 9);
        assert_eq!(clock.min_over(200, 300), 0);
        assert_eq!(clock.get(257), 0);
        // Alternating entries past the limit coarsen to lower ones, never
        // higher.
        let epochs: Vec<u32> = (0..1024).map(|t| 1 + t % 2).collect();
        let coarse = Clock::from_entries(0, &epochs);
        for t in 0..1024u64 {
            assert!(coarse.get(t) <= u64::from(epochs[t as usize]));
        }
        assert!(coarse.get(0) >= 1);
    }
}
