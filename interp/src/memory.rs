//! Global memory as the interpreter sees it: each tensor argument's bytes,
//! every access bounds- and alignment-checked, and race detection on the
//! tensors a kernel writes.
//!
//! Bytes are `AtomicU8`s accessed with `Relaxed` ordering: blocks run on
//! several host threads, and this keeps even a racy kernel free of undefined
//! behaviour in the interpreter (the race itself is reported).
//!
//! Race detection: every byte of a written tensor has a shadow word that
//! remembers who touched it during the launch and in which barrier phase
//! of their block: one reading thread, many readers, one writing thread,
//! or atomics only. A plain access that meets another thread's write, a
//! write that meets another thread's read, and a plain access that meets
//! an atomic one (or the reverse) is a race, unless the earlier accesses
//! were all made by threads of the same block before a barrier that block
//! has passed since (the GPU orders those; nothing else orders threads of
//! a launch). The shadow ([`Shadow`]) is also the race detector of each
//! block's shared memory ([`crate::shared`]), where mbarrier phases order
//! accesses too: there each thread has its own *floor* ([`Order`]). (In a
//! cluster, the accesses of each block's threads: [`Shadow::per_cta`].)
//! Threads of one cluster run together, but their global accesses are
//! ordered as those of separate blocks: by their own block's barriers
//! only.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

/// How an access touches memory, for race detection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Touch {
    Read,
    Write,
    Atomic,
}

// Shadow word: (thread + 1) << 23 | epoch << 3 | kind; 0 = untouched.
// `thread` is the global linear thread (0 when no single thread stands for
// the accesses); `epoch` the latest barrier phase of the block they ran in.
const KIND_BITS: u32 = 3;
const EPOCH_BITS: u32 = 20;
const EPOCH_MASK: u64 = (1 << EPOCH_BITS) - 1;
const READ_ONE: u64 = 1;
/// Several threads read, all of one block (the owner's).
const READ_BLOCK: u64 = 2;
const WRITTEN: u64 = 3;
/// Atomics of one thread (the owner).
const ATOMIC_ONE: u64 = 4;
/// Several threads read, of several blocks.
const READ_ANY: u64 = 5;
/// Atomics from threads of several blocks.
const ATOMIC_ANY: u64 = 6;
/// Atomics of several threads, all of one block (the owner's).
const ATOMIC_BLOCK: u64 = 7;

/// In a [`Shadow::ranged`] shadow, a word of several threads' reads or
/// atomics names them as `(lowest + 1) | highest << OWNER_BITS`.
const OWNER_BITS: u32 = 20;
const OWNER_MASK: u64 = (1 << OWNER_BITS) - 1;

/// The thread indices a [`Shadow::ranged`] shadow can name.
pub(crate) const RANGED_THREADS: u64 = OWNER_MASK;

/// The last barrier phase shadows can tell apart (later ones count as it).
pub(crate) const MAX_EPOCH: u64 = EPOCH_MASK;

/// When an access happens, for race detection: its phase (`epoch`), and
/// which earlier phases are ordered before it.
///
/// - `floor`: the accesses of the accessing thread's block recorded in a
///   phase below it are ordered before this access (a CTA barrier since,
///   or an mbarrier phase every thread of the block arrived on, which this
///   thread has waited for);
/// - `clock`: per thread of the block, a phase below which that thread's
///   accesses are ordered before this one too (an mbarrier phase it
///   arrived toward, releasing, that this thread waited for; a
///   `bar.warp.sync` of both): the accessing thread's vector clock above
///   its floor ([`Clock`]; empty in global memory);
/// - `settled`: those below it are ordered before every later access of
///   any thread of the block (the lowest floor of the block's threads), so
///   the shadow may forget them.
///
/// `settled <= floor <= epoch`. In global memory all three are the
/// block's barrier count ([`Order::barriers`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Order<'a> {
    pub epoch: u64,
    pub floor: u64,
    pub settled: u64,
    pub clock: &'a Clock,
}

/// The clock of a thread that acquired nothing but floors.
static NO_CLOCK: Clock = Clock { runs: Vec::new() };

impl Order<'static> {
    /// Phase `epoch`, with everything of earlier phases ordered before it
    /// for every thread (phases cut by CTA barriers alone).
    pub fn barriers(epoch: u64) -> Order<'static> {
        Order {
            epoch,
            floor: epoch,
            settled: epoch,
            clock: &NO_CLOCK,
        }
    }
}

/// The most runs a [`Clock`] keeps: beyond it, neighbouring runs merge
/// into their lower epoch (which orders less: never a missed race), so a
/// clock takes at most 512 bytes of host memory whatever the block size.
const CLOCK_RUNS: usize = 64;

/// A vector clock over the threads of a block (in shared memory, over a
/// cluster's threads, by their cluster indices): for each thread, the epoch below which its accesses
/// are ordered before the clock's owner's. Piecewise constant, as runs of
/// threads (a phase's arrivers, a warp) share their epochs: `(first
/// thread, epoch)` by first thread, each run lasting until the next one's
/// first thread; threads before the first run have epoch 0 (nothing
/// ordered).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Clock {
    runs: Vec<(u32, u32)>,
}

impl Clock {
    /// Every entry 0.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    pub fn clear(&mut self) {
        self.runs.clear();
    }

    /// The entry of `thread`.
    pub fn get(&self, thread: u64) -> u64 {
        let i = self.runs.partition_point(|r| u64::from(r.0) <= thread);
        i.checked_sub(1).map_or(0, |i| u64::from(self.runs[i].1))
    }

    /// The lowest entry of the threads `lo..=hi`.
    pub fn min_over(&self, lo: u64, hi: u64) -> u64 {
        let i = self.runs.partition_point(|r| u64::from(r.0) <= lo);
        let mut min = i.checked_sub(1).map_or(0, |i| u64::from(self.runs[i].1));
        for run in &self.runs[i..] {
            if u64::from(run.0) > hi || min == 0 {
                break;
            }
            min = min.min(u64::from(run.1));
        }
        min
    }

    /// The clock from its per-thread entries, thread `first + i` having
    /// `epochs[i]`.
    pub fn from_entries(first: u64, epochs: &[u32]) -> Clock {
        let mut clock = Clock::default();
        for (i, epoch) in epochs.iter().enumerate() {
            let thread = u32::try_from(first + i as u64).unwrap_or(u32::MAX);
            clock.push(thread, *epoch);
        }
        clock.push(
            u32::try_from(first + epochs.len() as u64).unwrap_or(u32::MAX),
            0,
        );
        clock.coarsen();
        clock
    }

    /// Appends a run (a new first thread, above the last run's).
    fn push(&mut self, thread: u32, epoch: u32) {
        let last = self.runs.last().map_or(0, |r| r.1);
        if last != epoch {
            self.runs.push((thread, epoch));
        }
    }

    /// Raises every entry to `other`'s where that is higher (the owner
    /// acquired what `other` orders).
    pub fn join(&mut self, other: &Clock) {
        if other.runs.is_empty() {
            return;
        }
        let mut starts: Vec<u32> = self.runs.iter().chain(&other.runs).map(|r| r.0).collect();
        starts.sort_unstable();
        starts.dedup();
        let mut joined = Clock {
            runs: Vec::with_capacity(starts.len()),
        };
        for start in starts {
            let epoch = self.get(u64::from(start)).max(other.get(u64::from(start)));
            joined.push(start, epoch as u32);
        }
        *self = joined;
        self.coarsen();
    }

    /// Raises the entries of the threads `threads` to at least `epoch`.
    pub fn raise(&mut self, threads: std::ops::Range<u64>, epoch: u64) {
        if threads.is_empty() || epoch == 0 {
            return;
        }
        let bound = |t: u64| u32::try_from(t).unwrap_or(u32::MAX);
        let epoch = u32::try_from(epoch.min(MAX_EPOCH)).unwrap_or(u32::MAX);
        self.join(&Clock {
            runs: vec![(bound(threads.start), epoch), (bound(threads.end), 0)],
        });
    }

    /// The clock with the entries of the threads outside `threads` 0.
    pub fn within(&self, threads: std::ops::Range<u64>) -> Clock {
        let bound = |t: u64| u32::try_from(t).unwrap_or(u32::MAX);
        let mut within = Clock::default();
        within.push(bound(threads.start), self.get(threads.start) as u32);
        for run in &self.runs {
            let first = u64::from(run.0);
            if first > threads.start && first < threads.end {
                within.push(run.0, run.1);
            }
        }
        within.push(bound(threads.end), 0);
        within
    }

    /// The clock with the entries of the threads of `threads` 0.
    pub fn without(&self, threads: std::ops::Range<u64>) -> Clock {
        let bound = |t: u64| u32::try_from(t).unwrap_or(u32::MAX);
        let mut without = Clock::default();
        for run in self.runs.iter().filter(|r| u64::from(r.0) < threads.start) {
            without.push(run.0, run.1);
        }
        without.push(bound(threads.start), 0);
        without.push(bound(threads.end), self.get(threads.end) as u32);
        for run in self.runs.iter().filter(|r| u64::from(r.0) > threads.end) {
            without.push(run.0, run.1);
        }
        without
    }

    /// At most [`CLOCK_RUNS`] runs: pairs of runs merge into the lower
    /// epoch of the two until it fits.
    fn coarsen(&mut self) {
        while self.runs.len() > CLOCK_RUNS {
            let mut merged = Clock::default();
            for pair in self.runs.chunks(2) {
                let low = pair.iter().map(|r| r.1).min().unwrap_or(0);
                merged.push(pair[0].0, low);
            }
            self.runs = merged.runs;
        }
    }

    /// Each nonzero entry renumbered by `renumber` (monotonic).
    pub fn renumber(&mut self, renumber: &impl Fn(u64) -> u64) {
        for run in &mut self.runs {
            if run.1 != 0 {
                run.1 =
                    u32::try_from(renumber(u64::from(run.1)).min(MAX_EPOCH)).unwrap_or(u32::MAX);
            }
        }
    }

    /// Its nonzero entries.
    pub fn epochs(&self) -> impl Iterator<Item = u64> + '_ {
        self.runs.iter().map(|r| u64::from(r.1)).filter(|e| *e != 0)
    }
}

/// One tensor argument during a launch.
pub(crate) struct TensorMemory<'a> {
    pub bytes: &'a [AtomicU8],
    pub written: bool,
    /// When the kernel writes the tensor.
    shadow: Option<Shadow>,
}

/// The race shadow of a range of bytes: one word per byte (see the module
/// doc). Used for the written tensors of a launch and, per block, for its
/// shared-memory buffers ([`crate::shared`]).
pub(crate) struct Shadow {
    words: Box<[AtomicU64]>,
    /// Threads per block: which block a thread belongs to.
    block_threads: u64,
    /// An access of a thread of another block than the recorded ones'
    /// replaces the word instead of being checked against it
    /// ([`Shadow::per_cta`]).
    forget_other_blocks: bool,
    /// A word of several threads of one block names the range of them
    /// ([`Shadow::ranged`]).
    ranged: bool,
}

/// A detected race: the byte and the other thread (global linear index;
/// `u64::MAX` when several threads were involved).
pub(crate) struct RaceAt {
    pub byte: usize,
    pub other: u64,
}

impl<'a> TensorMemory<'a> {
    /// The memory of one tensor argument; a written tensor gets its race
    /// shadow (8 bytes per byte), or `None` when the host cannot allocate
    /// it (the caller reports that instead of aborting).
    pub fn new(
        bytes: &'a [AtomicU8],
        written: bool,
        block_threads: u64,
    ) -> Option<TensorMemory<'a>> {
        let shadow = if written {
            Some(Shadow::new(bytes.len(), block_threads)?)
        } else {
            None
        };
        Some(TensorMemory {
            bytes,
            written,
            shadow,
        })
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// `size` bytes at `at`, little-endian (the caller checked bounds).
    #[inline]
    pub fn read(&self, at: usize, size: usize) -> u64 {
        let mut value = 0u64;
        for (i, byte) in self.bytes[at..at + size].iter().enumerate() {
            value |= u64::from(byte.load(Ordering::Relaxed)) << (8 * i);
        }
        value
    }

    /// Writes the low `size` bytes of `value` at `at` (bounds checked by the caller).
    #[inline]
    pub fn write(&self, at: usize, size: usize, value: u64) {
        for (i, byte) in self.bytes[at..at + size].iter().enumerate() {
            byte.store((value >> (8 * i)) as u8, Ordering::Relaxed);
        }
    }

    /// Writes `data` at `at` (bounds checked by the caller).
    pub fn write_bytes(&self, at: usize, data: &[u8]) {
        for (byte, value) in self.bytes[at..at + data.len()].iter().zip(data) {
            byte.store(*value, Ordering::Relaxed);
        }
    }

    /// Records an access for race detection ([`Shadow::touch`]); a tensor
    /// the kernel only reads has no shadow and never races.
    pub fn touch(
        &self,
        at: usize,
        size: usize,
        thread: u64,
        epoch: u64,
        touch: Touch,
    ) -> Result<(), RaceAt> {
        match &self.shadow {
            Some(shadow) => shadow.touch(at, size, thread, Order::barriers(epoch), touch),
            None => Ok(()),
        }
    }
}

impl Shadow {
    /// The shadow of `len` bytes, all untouched, for blocks of
    /// `block_threads` threads; `None` when the host cannot allocate it.
    pub fn new(len: usize, block_threads: u64) -> Option<Shadow> {
        let mut words: Vec<AtomicU64> = Vec::new();
        words.try_reserve_exact(len).ok()?;
        words.extend((0..len).map(|_| AtomicU64::new(0)));
        Some(Shadow {
            words: words.into_boxed_slice(),
            block_threads: block_threads.max(1),
            forget_other_blocks: false,
            ranged: false,
        })
    }

    /// The shadow with the threads of a word of several readers (or
    /// atomics) of one block kept as a range (their lowest and highest
    /// index, below [`RANGED_THREADS`]), so that a thread whose
    /// [`Order::clock`] orders each of them is ordered after all: for
    /// shared memory, whose threads are a cluster's.
    pub fn ranged(mut self) -> Shadow {
        self.ranged = true;
        self
    }

    /// A shadow that checks the accesses of each block (CTA) of
    /// `block_threads` threads against those of the same CTA only: an
    /// access of a thread of another CTA than the recorded accesses'
    /// forgets them and records itself alone. For a CTA's shared buffer in
    /// a cluster of several CTAs, whose races across CTAs the caller finds
    /// otherwise, exactly (`crate::shared`'s `ClusterTouches`). Nothing is
    /// missed: if a later access of the forgotten accesses' CTA races with
    /// one of them (nothing orders the two; no cluster barrier came
    /// between), the forgetting access, of another CTA and between them,
    /// did not race with it (else that was reported), and a case analysis
    /// of the ways of touching (read, write, atomic) shows that the later
    /// access conflicts with the forgetting one, which nothing orders
    /// before it either: that race across CTAs is reported.
    pub fn per_cta(len: usize, block_threads: u64) -> Option<Shadow> {
        let mut shadow = Shadow::new(len, block_threads)?;
        shadow.forget_other_blocks = true;
        Some(shadow)
    }

    /// Forgets every access to the bytes of `range` (they are untouched
    /// again).
    pub fn clear(&mut self, range: std::ops::Range<usize>) {
        for word in &mut self.words[range] {
            *word.get_mut() = 0;
        }
    }

    /// Records that `thread` touches `size` bytes at `at`, at `order`
    /// ([`Order`]). A conflict with another thread's earlier access is a
    /// race, unless that access was by a thread of the same block in a
    /// phase below this thread's floor (a barrier or an mbarrier phase
    /// orders them).
    ///
    /// An access ordered before this one is forgotten when it is ordered
    /// before every later access of the block too (below `settled`);
    /// otherwise a thread whose floor is lower may still race with it, and
    /// the word keeps both: the two readers' or atomics' kind, or else
    /// (a write, or a read after a write or atomics, or an atomic after
    /// plain accesses) a write of this thread, which every other thread's
    /// unordered access races with.
    pub fn touch(
        &self,
        at: usize,
        size: usize,
        thread: u64,
        order: Order,
        touch: Touch,
    ) -> Result<(), RaceAt> {
        let epoch = order.epoch.min(MAX_EPOCH);
        let floor = order.floor.min(epoch);
        let settled = order.settled.min(floor);
        let block = thread / self.block_threads;
        let me = thread + 1;
        let ranged = self.ranged;
        // A word of several threads of one block, of `lo..=hi`.
        let several = |lo: u64, hi: u64, epoch: u64, kind: u64| {
            if ranged {
                word((lo + 1) | (hi << OWNER_BITS), epoch, kind)
            } else {
                word(lo + 1, epoch, kind)
            }
        };
        for (i, cell) in self.words[at..at + size].iter().enumerate() {
            let mut current = cell.load(Ordering::Relaxed);
            loop {
                let field = current >> (EPOCH_BITS + KIND_BITS);
                let seen = (current >> KIND_BITS) & EPOCH_MASK;
                let mut kind = current & ((1 << KIND_BITS) - 1);
                let multi = matches!(kind, READ_BLOCK | ATOMIC_BLOCK);
                // The (first) thread of the word, and the range of its
                // threads (unknown: `None`).
                let (owner, hi) = if ranged {
                    let owner = field & OWNER_MASK;
                    let hi = if multi {
                        field >> OWNER_BITS
                    } else {
                        owner.wrapping_sub(1)
                    };
                    (owner, Some(hi))
                } else {
                    (field, (!multi).then(|| field.wrapping_sub(1)))
                };
                let lo = owner.wrapping_sub(1);
                let same_block = owner != 0 && lo / self.block_threads == block;
                if !same_block && self.forget_other_blocks {
                    kind = 0;
                }
                // Accesses of this block below this thread's floor, or
                // below its clock's entry for each of their threads.
                let ordered = same_block
                    && matches!(
                        kind,
                        READ_ONE | READ_BLOCK | WRITTEN | ATOMIC_ONE | ATOMIC_BLOCK
                    )
                    && (seen < floor
                        || hi.is_some_and(|hi| {
                            !order.clock.is_empty() && order.clock.min_over(lo, hi) > seen
                        }));
                if ordered && seen < settled {
                    kind = 0;
                }
                let latest = seen.max(epoch);
                let race = |other: u64| RaceAt {
                    byte: at + i,
                    other,
                };
                // The word's threads and this one.
                let (lo_me, hi_me) = (lo.min(thread), hi.unwrap_or(lo).max(thread));
                let next = match (touch, kind) {
                    (Touch::Read, 0) => word(me, epoch, READ_ONE),
                    (Touch::Write, 0) => word(me, epoch, WRITTEN),
                    (Touch::Atomic, 0) => word(me, epoch, ATOMIC_ONE),
                    // Ordered before this access, not before every
                    // thread's: keep both (see above).
                    _ if ordered => match (touch, kind) {
                        (Touch::Read, READ_ONE) if owner == me => word(me, latest, READ_ONE),
                        (Touch::Read, READ_ONE | READ_BLOCK) => {
                            several(lo_me, hi_me, latest, READ_BLOCK)
                        }
                        (Touch::Atomic, ATOMIC_ONE) if owner == me => word(me, latest, ATOMIC_ONE),
                        (Touch::Atomic, ATOMIC_ONE | ATOMIC_BLOCK) => {
                            several(lo_me, hi_me, latest, ATOMIC_BLOCK)
                        }
                        _ => word(me, latest, WRITTEN),
                    },
                    // A thread's own accesses never race with each other;
                    // once it mixes plain and atomic accesses, the byte is
                    // its own (any other thread's access then races).
                    (Touch::Read, READ_ONE | WRITTEN) if owner == me => word(me, latest, kind),
                    (_, READ_ONE | WRITTEN | ATOMIC_ONE) if owner == me => {
                        if touch == Touch::Atomic && kind == ATOMIC_ONE {
                            word(me, latest, ATOMIC_ONE)
                        } else {
                            word(me, latest, WRITTEN)
                        }
                    }
                    (Touch::Read, READ_ONE | READ_BLOCK) if same_block => {
                        several(lo_me, hi_me, latest, READ_BLOCK)
                    }
                    (Touch::Read, READ_ONE | READ_BLOCK | READ_ANY) => word(0, 0, READ_ANY),
                    (Touch::Atomic, ATOMIC_ONE | ATOMIC_BLOCK) if same_block => {
                        several(lo_me, hi_me, latest, ATOMIC_BLOCK)
                    }
                    (Touch::Atomic, ATOMIC_ONE | ATOMIC_BLOCK | ATOMIC_ANY) => {
                        word(0, 0, ATOMIC_ANY)
                    }
                    // Several threads: name none of them precisely.
                    (_, READ_BLOCK | READ_ANY | ATOMIC_BLOCK | ATOMIC_ANY) => {
                        return Err(race(u64::MAX));
                    }
                    _ => return Err(race(lo)),
                };
                if next == current {
                    break;
                }
                match cell.compare_exchange_weak(
                    current,
                    next,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => break,
                    Err(actual) => current = actual,
                }
            }
        }
        Ok(())
    }

    /// Renumbers the phases of the accesses recorded in `range` by
    /// `renumber` (monotonic: the order of phases is kept). Words of
    /// several blocks (no owner) keep phase 0.
    pub fn renumber(&mut self, range: std::ops::Range<usize>, renumber: impl Fn(u64) -> u64) {
        for cell in &mut self.words[range] {
            let current = *cell.get_mut();
            let owner = current >> (EPOCH_BITS + KIND_BITS);
            if owner == 0 {
                continue;
            }
            let seen = (current >> KIND_BITS) & EPOCH_MASK;
            let kind = current & ((1 << KIND_BITS) - 1);
            *cell.get_mut() = word(owner, renumber(seen).min(MAX_EPOCH), kind);
        }
    }
}

/// A shadow word.
fn word(owner: u64, epoch: u64, kind: u64) -> u64 {
    (owner << (EPOCH_BITS + KIND_BITS)) | (epoch << KIND_BITS) | kind
}

/// Locks that make an atomic's read-modify-write indivisible across the
/// host threads running blocks (striped by address).
pub(crate) struct AtomicLocks {
    stripes: Vec<Mutex<()>>,
}

impl AtomicLocks {
    pub fn new() -> AtomicLocks {
        AtomicLocks {
            stripes: (0..64).map(|_| Mutex::new(())).collect(),
        }
    }

    /// Runs `f` holding the lock of `(param, byte)`'s stripe.
    pub fn with<T>(&self, param: usize, byte: usize, f: impl FnOnce() -> T) -> T {
        let stripe = (param.wrapping_mul(0x9e37_79b9) ^ (byte / 16)) % self.stripes.len();
        // A poisoned stripe only means another block's update panicked,
        // which a `Compute` never does; the bytes stay valid either way.
        let _guard = self.stripes[stripe]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 4-byte written tensor of blocks of 4 threads: thread `t` is in
    /// block `t / 4`.
    fn memory(bytes: &[AtomicU8]) -> TensorMemory<'_> {
        TensorMemory::new(bytes, true, 4).expect("a small shadow")
    }

    fn bytes() -> Vec<AtomicU8> {
        (0..4).map(|_| AtomicU8::new(0)).collect()
    }

    /// The other thread of a race at byte 0, or `None` when none.
    fn race(result: Result<(), RaceAt>) -> Option<u64> {
        result.err().map(|r| {
            assert_eq!(r.byte, 0);
            r.other
        })
    }

    #[test]
    fn one_thread_never_races_with_itself() {
        let b = bytes();
        let m = memory(&b);
        for touch in [
            Touch::Write,
            Touch::Read,
            Touch::Atomic,
            Touch::Read,
            Touch::Write,
        ] {
            assert_eq!(race(m.touch(0, 4, 1, 0, touch)), None, "{touch:?}");
        }
        // Having mixed plain and atomic accesses, the byte is thread 1's.
        assert_eq!(race(m.touch(0, 1, 2, 0, Touch::Atomic)), Some(1));
    }

    #[test]
    fn a_barrier_orders_only_the_threads_of_its_block() {
        let b = bytes();
        let m = memory(&b);
        m.touch(0, 4, 1, 0, Touch::Write).map_err(|_| ()).unwrap();
        // Same block, same phase: a race with the writer.
        assert_eq!(race(m.touch(0, 4, 2, 0, Touch::Read)), Some(1));
        // Same block, after a barrier: ordered.
        assert_eq!(race(m.touch(0, 4, 2, 1, Touch::Read)), None);
        assert_eq!(race(m.touch(0, 4, 3, 1, Touch::Read)), None);
        // Two readers of block 0 in phase 1; a writer of block 0 in phase
        // 2 is ordered after both, one of block 1 is not.
        assert_eq!(race(m.touch(0, 4, 5, 9, Touch::Write)), Some(u64::MAX));
        assert_eq!(race(m.touch(0, 4, 0, 2, Touch::Write)), None);
        assert_eq!(race(m.touch(0, 4, 4, 7, Touch::Read)), Some(0));
    }

    #[test]
    fn atomics_combine_across_blocks_but_not_with_plain_accesses() {
        let b = bytes();
        let m = memory(&b);
        for thread in [0, 1, 5, 9] {
            assert_eq!(race(m.touch(0, 4, thread, 0, Touch::Atomic)), None);
        }
        assert_eq!(race(m.touch(0, 4, 2, 3, Touch::Read)), Some(u64::MAX));
    }

    /// Phase `epoch`, `floor` for the accessing thread, `settled` for all.
    fn at(epoch: u64, floor: u64, settled: u64) -> Order<'static> {
        Order {
            epoch,
            floor,
            settled,
            clock: &NO_CLOCK,
        }
    }

    #[test]
    fn each_thread_orders_the_phases_below_its_own_floor() {
        let shadow = Shadow::new(4, 4).expect("a small shadow");
        let touch = |thread, order, touch| race(shadow.touch(0, 4, thread, order, touch));
        assert_eq!(touch(1, at(0, 0, 0), Touch::Write), None);
        // Thread 2's floor is above the write's phase; thread 3's is not.
        assert_eq!(touch(3, at(1, 0, 0), Touch::Read), Some(1));
        assert_eq!(touch(2, at(1, 1, 0), Touch::Read), None);
        // The write is not forgotten: thread 3 may still race with it
        // (the word now names thread 2, whose read kept it).
        assert_eq!(touch(3, at(1, 0, 0), Touch::Read), Some(2));
        assert_eq!(touch(2, at(1, 1, 0), Touch::Read), None);
        // Once every thread's floor is above both, they are forgotten.
        assert_eq!(touch(3, at(2, 2, 2), Touch::Write), None);
    }

    #[test]
    fn readers_ordered_before_one_writer_still_race_with_another() {
        let shadow = Shadow::new(4, 4).expect("a small shadow");
        let touch = |thread, order, touch| race(shadow.touch(0, 4, thread, order, touch));
        assert_eq!(touch(1, at(0, 0, 0), Touch::Read), None);
        assert_eq!(touch(2, at(0, 0, 0), Touch::Read), None);
        // Thread 3 waited for both reads; its write is its own now...
        assert_eq!(touch(3, at(1, 1, 0), Touch::Write), None);
        assert_eq!(touch(3, at(1, 1, 0), Touch::Read), None);
        // ...and races with every thread that has not waited.
        assert_eq!(touch(1, at(1, 0, 0), Touch::Read), Some(3));
        assert_eq!(touch(0, at(1, 0, 0), Touch::Atomic), Some(3));
        // Readers ordered before one reader, then another reader of a low
        // floor: readers of the block, no race; a writer of a low floor
        // races with them.
        let shadow = Shadow::new(4, 4).expect("a small shadow");
        let touch = |thread, order, touch| race(shadow.touch(0, 4, thread, order, touch));
        assert_eq!(touch(1, at(0, 0, 0), Touch::Read), None);
        assert_eq!(touch(2, at(1, 1, 0), Touch::Read), None);
        assert_eq!(touch(3, at(1, 0, 0), Touch::Read), None);
        assert_eq!(touch(0, at(1, 0, 0), Touch::Write), Some(u64::MAX));
        // Atomics ordered before a thread's atomic stay atomics.
        let shadow = Shadow::new(4, 4).expect("a small shadow");
        let touch = |thread, order, touch| race(shadow.touch(0, 4, thread, order, touch));
        assert_eq!(touch(1, at(0, 0, 0), Touch::Atomic), None);
        assert_eq!(touch(2, at(1, 1, 0), Touch::Atomic), None);
        assert_eq!(touch(3, at(1, 0, 0), Touch::Atomic), None);
        assert_eq!(touch(0, at(1, 0, 0), Touch::Read), Some(u64::MAX));
    }

    #[test]
    fn renumbering_keeps_the_comparisons_with_the_cuts() {
        let mut shadow = Shadow::new(4, 4).expect("a small shadow");
        assert_eq!(race(shadow.touch(0, 1, 1, at(5, 0, 0), Touch::Write)), None);
        assert_eq!(race(shadow.touch(1, 1, 1, at(9, 0, 0), Touch::Write)), None);
        // Cuts 0, 6 and 10: phase 5 becomes 1, phase 9 becomes 2.
        let cuts = [0, 6, 10];
        shadow.renumber(0..4, |e| cuts.partition_point(|c| *c <= e) as u64);
        // Floor 6 (now 2) orders the first write, not the second.
        assert_eq!(race(shadow.touch(0, 1, 2, at(3, 2, 0), Touch::Read)), None);
        assert_eq!(
            shadow
                .touch(1, 1, 2, at(3, 2, 0), Touch::Read)
                .err()
                .map(|r| (r.byte, r.other)),
            Some((1, 1))
        );
    }

    #[test]
    fn readers_of_several_blocks_are_never_ordered_by_one_barrier() {
        let b = bytes();
        let m = memory(&b);
        assert_eq!(race(m.touch(0, 4, 0, 0, Touch::Read)), None);
        assert_eq!(race(m.touch(0, 4, 4, 0, Touch::Read)), None);
        assert_eq!(race(m.touch(0, 4, 1, 5, Touch::Write)), Some(u64::MAX));
    }
}
