//! Execute: one cluster of the grid (one block, in a kernel without a
//! cluster), the threads of its blocks in lockstep.
//!
//! The threads of a block walk the structured body together, each node
//! once for the whole block: a statement runs for every *active* thread
//! before the next statement starts; an `if` splits the active threads
//! into the two branches (the `then` branch runs first); a loop keeps
//! iterating while any of its threads is still inside. This is how warps
//! execute on the GPU, and it is the order barriers and warp collectives
//! will need: every thread of a block reaches a statement before any thread
//! passes it.
//!
//! **Clusters.** A kernel that declares a cluster of more than one CTA
//! (`Launch::cluster`; the CTAs of a cluster are consecutive along each
//! grid axis) runs each cluster as one lockstep unit: the threads of all
//! its CTAs walk the body together, a statement running for the active
//! threads of the CTA of rank 0 (`%cluster_ctarank`), then of rank 1, and
//! so on, before the next starts. Threads are numbered by their *cluster
//! index*, `rank * block threads + index in the block` ([`ClusterState`]).
//! Everything of a CTA stays its own: `%tid`, `%ctaid`, `%cluster_ctaid`,
//! `%clusterid` and the lane, warp and warpgroup ids (a warp never spans
//! two CTAs, so warp collectives, `ldmatrix`, `stmatrix` and `wgmma`
//! group the threads of one CTA, even when its size is not a multiple of
//! 32); its CTA barriers (`bar.sync` and the like involve its threads
//! alone, and every one of them must reach it: `if cluster_ctarank() == 0
//! { bar.sync }` is CTA 0's barrier); its copy of the shared buffers, with
//! its mbarrier objects, asynchronous copies and bulk stores; its work
//! limit; and the thread and CTA a fault names. The cluster barrier
//! (`barrier.cluster.wait`; its arrival, `barrier.cluster.arrive`, is a
//! fence) involves every thread of the cluster: all of them must execute
//! it in one statement, else a fault; it is then every CTA's barrier too.
//! A plain `.shared::cluster` access (`ld`, `st`, `atom`, `red`) may name
//! another CTA's copy of a shared buffer by its rank ([`Address::cta`],
//! evaluated per thread): a rank outside the cluster, or any rank in a
//! kernel without a cluster, is a fault, and so is such an access before
//! the cluster's first cluster barrier (that CTA may not have started) or
//! with no cluster barrier after it (that CTA may exit first, which is
//! reported when the cluster ends). How shared accesses of different CTAs
//! are ordered: [`crate::shared`]. In global memory a barrier, the cluster
//! barrier included, orders the accesses of each CTA's threads among
//! themselves only, as without a cluster: two CTAs' accesses to the same
//! bytes race unless both are atomic (a race the GPU would order through
//! the cluster barrier is still reported; the checker's race rule for
//! global memory never relies on barriers).
//!
//! Every register byte carries a "defined" bit. A pure instruction that
//! reads an undefined byte (say, the result of a predicated instruction
//! whose predicate was false) leaves its destinations undefined, as the
//! GPU computes on whatever bits the register holds; a store, atomic,
//! collective, barrier or condition that reads one is a fault, not a
//! silent zero (the checker proves no legal kernel does).
//! Every memory access is bounds-, alignment- and race-checked
//! ([`crate::memory`] for tensors, [`crate::shared`] for the CTAs'
//! shared buffers, which also check that a read byte was written).
//!
//! Asynchronous copies (`cp.async`) read their source at issue and land
//! at their thread's wait, or when a phase of an mbarrier object that
//! tracks them (`cp.async.mbarrier.arrive`) completes; mbarrier objects
//! live in [`crate::shared`]. A blocking wait (`mbarrier.try_wait.parity`)
//! returns when its phase has completed; in lockstep nothing can complete
//! it later, so a wait that would block is a fault, never a hang. A
//! statement that arrives on an mbarrier starts a new epoch of the
//! shared-memory race shadows, so that a phase every thread arrived on can
//! order the accesses before the arrivals before a waiter's later ones
//! ([`crate::shared`]).
//!
//! Bulk stores (`cp.async.bulk`, `cp.async.bulk.tensor` from shared to
//! global memory) join their thread's next bulk group
//! (`cp.async.bulk.commit_group`; bulk groups are not `cp.async` groups).
//! A store reads its shared source at issue, and the source stays the
//! store's (readable, not writable) until a `cp.async.bulk.wait_group` of
//! its thread retires the group ([`crate::shared`]); since the bytes
//! cannot change before, the store writes global memory at issue, from
//! what it read, as a write of its thread. A wait without `.read`
//! completes the writes: they are recorded again as the thread's at the
//! wait (an access of another thread that nothing orders after the wait
//! races with them), and until then a later bulk store of the thread may
//! not write the same bytes (the async proxy may complete the two in
//! either order). A thread may end with writes not completed (the
//! kernel's end completes them), not with a source still being read.
//!
//! A bulk reduction (`cp.reduce.async.bulk` into global memory) is a bulk
//! store that updates each element of its destination atomically (`red`'s
//! update, under the atomic locks) instead of overwriting it: its accesses
//! are atomics of its thread for race detection, and its pending writes
//! may overlap the same thread's earlier pending reductions (atomic
//! updates complete in any order), not its pending stores.

use std::collections::{BTreeMap, VecDeque};
use std::ops::Range;
use std::time::Instant;

use tile_kernel_lowering::DType;
use tile_kernel_lowering::program::{CmpOp, DimSpec};
use tile_kernel_lowering::ptx::fragments;
use tile_kernel_lowering::sym::ComputedOp;

use crate::fault::{FaultKind, ThreadId};
use crate::memory::{AtomicLocks, RaceAt, TensorMemory, Touch};
use crate::prepare::{
    Action, Address, AtomSource, Block, Destination, Linear, MbarrierAction, Plan, Region, Source,
    Special, Step, Test,
};
use crate::semantics::{AtomicUpdate, Barrier, BarrierReduction, Bits, mask};
use crate::shared::{Acquiring, Arriving, Issue, Phase, SharedFault, SharedLayout, SharedMemory};

/// Everything a launch shares between the host threads running its
/// clusters.
pub(crate) struct GridRun<'a> {
    pub plan: &'a Plan,
    /// The block's shared buffers, the dynamic one sized for this launch.
    pub shared: Vec<SharedLayout>,
    /// The dynamic buffer's bytes (`%dynamic_smem_size`), 0 when none.
    pub dynamic_shared_bytes: usize,
    pub names: &'a [String],
    pub tile_names: &'a [String],
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// CTAs per cluster along each axis (`[1, 1, 1]`: no cluster, each
    /// block its own); the grid is whole clusters.
    pub cluster: [u32; 3],
    /// Per parameter: its memory (tensors) or `None` (scalars).
    pub memories: Vec<Option<TensorMemory<'a>>>,
    /// Per parameter: its bits (scalars) or 0.
    pub scalars: Vec<u64>,
    pub symbols: Vec<i64>,
    pub locks: AtomicLocks,
    /// Host threads running clusters (`%nsmid`).
    pub workers: u32,
    /// A process-wide launch number (`%gridid`).
    pub launch_id: u64,
    /// Instructions and loop iterations a block may run, its threads
    /// together (`None`: no limit).
    pub work_limit: Option<u64>,
    /// Launch start (`%globaltimer` counts nanoseconds from `timer_base`).
    pub started: Instant,
    pub timer_base: u64,
}

/// A fault inside a cluster, before it is named with the kernel's words.
pub(crate) struct Trap {
    pub statement: Option<usize>,
    /// The faulting thread's cluster index ([`ClusterState`]).
    pub thread: u32,
    pub kind: FaultKind,
}

type Run<T = ()> = Result<T, Trap>;

/// The state of one cluster's threads (of one block's, in a kernel
/// without a cluster); reused from cluster to cluster.
///
/// The threads of the cluster's CTAs are numbered by *cluster index*:
/// thread `t` (linear, x fastest) of the CTA of rank `r` in the cluster
/// (`%cluster_ctarank`) is `r * cta_threads + t` ([`Placement`]). Every
/// per-thread vector, the lockstep walk's active sets and [`Trap::thread`]
/// use it.
pub(crate) struct ClusterState {
    /// Where each thread is.
    placement: Placement,
    /// Threads of the cluster, all CTAs together.
    threads: usize,
    frame: usize,
    atom_count: usize,
    registers: Vec<u8>,
    defined: Vec<bool>,
    atoms: Vec<i64>,
    clocks: Vec<u64>,
    /// Per CTA of the current cluster, by rank.
    ctas: Vec<CtaState>,
    /// The statement running (index into the plan's statements).
    statement: usize,
    /// Cluster barriers the current cluster has passed.
    cluster_barriers: u64,
    /// The first access to another CTA's copy of a shared buffer since the
    /// cluster's last barrier: a cluster barrier must follow it before the
    /// CTAs exit.
    unordered_remote: Option<RemoteAccess>,
    worker: u32,
    pub instructions: u64,
    /// The current cluster's shared buffers, each CTA's copy.
    shared: SharedMemory,
    inputs: Vec<Bits>,
    outputs: Vec<Bits>,
    /// Per thread: its asynchronous copies and bulk stores not yet
    /// retired.
    copies: Vec<ThreadCopies>,
}

/// One CTA of the current cluster. Aligned to a cache line pair, so that
/// the counters of two host workers' CTAs (their vectors allocated one
/// after the other) never share one.
#[derive(Debug, Clone, Copy, Default)]
#[repr(align(128))]
struct CtaState {
    /// Its `%ctaid`.
    id: [u32; 3],
    /// The global linear index of its thread 0 (its threads' identities in
    /// the race shadows of global memory).
    first_thread: u64,
    /// The instructions and loop iterations of its threads, against
    /// [`GridRun::work_limit`].
    work: u64,
    /// The barriers it has passed (its CTA barriers and the cluster's):
    /// its global memory accesses' phase.
    epoch: u64,
}

/// An access of thread `thread` (statement `statement`) to the copy of
/// shared buffer `buffer` of the CTA of rank `rank`, another CTA's.
#[derive(Debug, Clone, Copy)]
struct RemoteAccess {
    statement: usize,
    thread: u32,
    buffer: usize,
    rank: usize,
}

/// One thread's `cp.async` operations: those issued since its last
/// commit, then its committed groups, oldest first; and likewise its bulk
/// stores and bulk groups.
#[derive(Default)]
struct ThreadCopies {
    uncommitted: Vec<PendingCopy>,
    groups: VecDeque<Vec<PendingCopy>>,
    /// Its bulk copies in flight: in no `cp.async` group, each landing
    /// with the mbarrier phase it signals.
    bulk: Vec<PendingCopy>,
    /// The groups it has closed (commits, and `wait_all`s, which commit
    /// first): the number of the group its uncommitted copies are in.
    closed: u64,
    /// Its bulk stores since its last `cp.async.bulk.commit_group`: in no
    /// bulk group yet, so no wait retires them.
    stores: Vec<PendingStore>,
    /// Its committed bulk groups, oldest first, until a bulk wait without
    /// `.read` retires them (one with `.read` only ends their sources).
    bulk_groups: VecDeque<Vec<PendingStore>>,
    /// How many of the oldest [`Self::bulk_groups`] a `.read` wait has
    /// retired the sources of (their writes still pending).
    read_groups: usize,
    /// The global bytes its bulk stores wrote that no bulk wait without
    /// `.read` has completed yet: `(param, start, store id)` -> the write.
    /// A store's ranges are disjoint from every other pending range; a
    /// reduction's may overlap other reductions'.
    store_writes: BTreeMap<(usize, usize, u64), PendingWrite>,
    /// At least the length of every range in [`Self::store_writes`] (back
    /// to 0 when it empties): a pending range that meets bytes starts at
    /// most this far before them.
    longest_write: usize,
    /// How many bulk stores it has issued: the next one's id.
    stores_issued: u64,
}

/// Global bytes a bulk store (or reduction) wrote, not yet completed.
struct PendingWrite {
    end: usize,
    /// The statement number of the store.
    store: usize,
    /// Whether it is a reduction's (atomic updates).
    reduce: bool,
}

/// A bulk store to global memory not yet completed by a bulk wait without
/// `.read` of its thread.
struct PendingStore {
    /// Index into the plan's statements.
    statement: usize,
    /// Its shared source `(buffer, start byte, bytes)`, until a bulk wait
    /// of its thread retires its group.
    source: Option<(usize, usize, usize)>,
    /// The tensor parameter it wrote, and the byte ranges it wrote there
    /// (each non-empty).
    param: usize,
    writes: Vec<Range<usize>>,
    /// Its id among its thread's stores (its writes' key in
    /// [`ThreadCopies::store_writes`]).
    id: u64,
    /// Whether it is a bulk reduction (its writes are atomic updates).
    reduce: bool,
}

/// How a bulk store's global writes count for race detection: a bulk
/// reduction's as atomics (other threads' reductions of the same bytes are
/// no race), a plain store's as writes.
fn store_touch(reduce: bool) -> Touch {
    if reduce { Touch::Atomic } else { Touch::Write }
}

/// The alignment of a bulk copy's or bulk store's addresses and size.
const BULK_ALIGNMENT: usize = 16;

/// The alignment of a tensor copy's or tensor store's shared address.
const TENSOR_COPY_ALIGNMENT: usize = 128;

/// A copy in flight: the source bytes (read at issue) and where they land
/// (the copy of `buffer` of the CTA of rank `cta`: its issuer's, or
/// another's for a multicast copy).
struct PendingCopy {
    cta: usize,
    buffer: usize,
    at: usize,
    data: Vec<u8>,
    /// Index into the plan's statements.
    statement: usize,
    /// The number of its `cp.async` group among its thread's
    /// ([`ThreadCopies::closed`] at its issue).
    group: u64,
    /// The mbarrier phases that track it (`cp.async.mbarrier.arrive`
    /// since its issue): it lands when the first of them completes, unless
    /// its thread's wait retires it before.
    attached: Vec<Phase>,
}

/// Where the threads of a cluster are: thread `u` (its cluster index) is
/// thread `u % cta_threads` of the CTA of rank `u / cta_threads`. Warps
/// and warpgroups are a CTA's (`%laneid`, `%warpid` count from the CTA's
/// thread 0; a CTA whose size is not a multiple of 32 ends with a partial
/// warp, which the next CTA's threads do not join).
#[derive(Debug, Clone, Copy)]
struct Placement {
    cta_threads: u32,
    /// The cluster has more than one CTA (else every thread is in CTA 0,
    /// and the divisions are skipped).
    clustered: bool,
}

impl Placement {
    /// The rank in the cluster of thread `u`'s CTA.
    #[inline]
    fn rank(self, u: u32) -> usize {
        if self.clustered {
            (u / self.cta_threads) as usize
        } else {
            0
        }
    }

    /// Thread `u`'s linear index in its CTA.
    #[inline]
    fn local(self, u: u32) -> u32 {
        if self.clustered {
            u % self.cta_threads
        } else {
            u
        }
    }

    /// Thread `u`'s CTA and warp in it.
    #[inline]
    fn warp(self, u: u32) -> (usize, u32) {
        (self.rank(u), self.local(u) / 32)
    }

    /// Thread `u`'s CTA and warpgroup (4 warps) in it.
    #[inline]
    fn warpgroup(self, u: u32) -> (usize, u32) {
        (self.rank(u), self.local(u) / 128)
    }

    /// Thread `u`'s lane in its warp.
    #[inline]
    fn lane(self, u: u32) -> u32 {
        self.local(u) % 32
    }

    /// The cluster index of the thread of CTA `rank` with index `local`.
    #[inline]
    fn thread(self, rank: usize, local: u32) -> u32 {
        rank as u32 * self.cta_threads + local
    }
}

impl ClusterState {
    /// A host worker's cluster state; a fault when the host cannot
    /// allocate the cluster's shared memory.
    pub fn new(launch: &GridRun<'_>) -> Result<ClusterState, FaultKind> {
        let cta_threads = launch.block.iter().map(|d| *d as usize).product::<usize>();
        let ctas = launch.cluster_ctas();
        let threads = cta_threads * ctas;
        let frame = launch.plan.frame.bytes;
        let atom_count = launch.plan.atoms.len();
        let shared = SharedMemory::new(&launch.shared, cta_threads as u64, ctas)?;
        Ok(ClusterState {
            placement: Placement {
                cta_threads: cta_threads as u32,
                clustered: ctas > 1,
            },
            threads,
            frame,
            atom_count,
            registers: vec![0; threads * frame],
            defined: vec![false; threads * frame],
            atoms: vec![0; threads * atom_count],
            clocks: vec![0; threads],
            ctas: vec![CtaState::default(); ctas],
            statement: 0,
            cluster_barriers: 0,
            unordered_remote: None,
            worker: 0,
            instructions: 0,
            shared,
            inputs: Vec::new(),
            outputs: Vec::new(),
            copies: (0..threads).map(|_| ThreadCopies::default()).collect(),
        })
    }
}

/// Where a checked memory access goes.
#[derive(Clone, Copy)]
enum MemoryRef<'m> {
    /// A tensor (its parameter, for the atomic locks).
    Tensor(&'m TensorMemory<'m>, usize),
    /// The copy of a shared buffer of the CTA of rank `cta` in the
    /// current cluster.
    Shared { cta: usize, buffer: usize },
}

/// The `[x, y, z]` coordinates of linear index `linear` in `extent`
/// (x fastest): a thread in its block (`%tid`), a block in the grid
/// (`%ctaid`), a cluster among the grid's clusters (`%clusterid`) or a
/// CTA in its cluster (`%cluster_ctaid`, whose linear index is
/// `%cluster_ctarank`).
pub(crate) fn coordinates(linear: u64, extent: [u32; 3]) -> [u32; 3] {
    let [x, y, _] = extent.map(|e| u64::from(e).max(1));
    [
        (linear % x) as u32,
        ((linear / x) % y) as u32,
        (linear / (x * y)) as u32,
    ]
}

/// The linear index (x fastest) of coordinates `at` in `extent`.
fn linear(at: [u32; 3], extent: [u32; 3]) -> u64 {
    let [x, y, _] = extent.map(u64::from);
    u64::from(at[0]) + x * (u64::from(at[1]) + y * u64::from(at[2]))
}

impl GridRun<'_> {
    /// CTAs per cluster (1 without a cluster).
    pub fn cluster_ctas(&self) -> usize {
        self.cluster.iter().map(|d| (*d).max(1) as usize).product()
    }

    /// Clusters along each axis of the grid (the grid's blocks without a
    /// cluster).
    pub fn clusters(&self) -> [u32; 3] {
        std::array::from_fn(|axis| self.grid[axis] / self.cluster[axis].max(1))
    }

    /// `%ctaid` of the CTA of rank `rank` in cluster `cluster` (its linear
    /// index among the grid's clusters, x fastest: `%clusterid`): the
    /// CTAs of a cluster are consecutive along each axis.
    pub fn cta_in_cluster(&self, cluster: u64, rank: usize) -> [u32; 3] {
        let origin = coordinates(cluster, self.clusters());
        let offset = coordinates(rank as u64, self.cluster);
        std::array::from_fn(|axis| origin[axis] * self.cluster[axis].max(1) + offset[axis])
    }

    /// Thread `u` (its cluster index) of cluster `cluster`, as reports
    /// name it.
    pub fn cluster_thread(&self, cluster: u64, u: u32) -> ThreadId {
        let threads = self
            .block
            .iter()
            .map(|d| u64::from(*d))
            .product::<u64>()
            .max(1);
        let rank = u64::from(u) / threads;
        ThreadId {
            cta: self.cta_in_cluster(cluster, rank as usize),
            thread: coordinates(u64::from(u) % threads, self.block),
        }
    }

    /// Thread `u` (its cluster index) of the current cluster, as reports
    /// name it.
    fn thread_id(&self, state: &ClusterState, u: u32) -> ThreadId {
        let placement = state.placement;
        ThreadId {
            cta: state.ctas[placement.rank(u)].id,
            thread: coordinates(u64::from(placement.local(u)), self.block),
        }
    }

    /// The thread of global linear index `global` (its block's linear
    /// index times the block's threads, plus its index in the block).
    pub fn global_thread(&self, global: u64) -> ThreadId {
        let per_block = self
            .block
            .iter()
            .map(|d| u64::from(*d))
            .product::<u64>()
            .max(1);
        let cta = coordinates(global / per_block, self.grid);
        ThreadId {
            cta,
            thread: coordinates(global % per_block, self.block),
        }
    }

    /// Runs cluster `cluster` (its linear index among the grid's clusters,
    /// x fastest; without a cluster, the block of that linear index) on
    /// `state`: the threads of all its CTAs in lockstep.
    pub fn run_cluster(&self, state: &mut ClusterState, cluster: u64, worker: u32) -> Run {
        let cta_threads = u64::from(state.placement.cta_threads);
        for (rank, cta) in state.ctas.iter_mut().enumerate() {
            let id = self.cta_in_cluster(cluster, rank);
            *cta = CtaState {
                id,
                first_thread: linear(id, self.grid) * cta_threads,
                work: 0,
                epoch: 0,
            };
        }
        state.worker = worker;
        state.cluster_barriers = 0;
        state.unordered_remote = None;
        state.defined.fill(false);
        state.registers.fill(0);
        state.clocks.fill(0);
        state.shared.reset();
        let placement = state.placement;
        for u in 0..state.threads as u32 {
            let t = placement.local(u);
            let tid = coordinates(u64::from(t), self.block);
            let cta = state.ctas[placement.rank(u)].id;
            let start = u as usize * state.atom_count;
            let atoms = &mut state.atoms[start..start + state.atom_count];
            for (value, source) in atoms.iter_mut().zip(&self.plan.atoms) {
                *value = match *source {
                    AtomSource::ThreadId(axis) => i64::from(tid[axis]),
                    AtomSource::CtaId(axis) => i64::from(cta[axis]),
                    AtomSource::GridDim(axis) => i64::from(self.grid[axis]),
                    // The CTAs of a cluster are consecutive along each axis.
                    AtomSource::ClusterCtaId { axis, cluster } => i64::from(cta[axis] % cluster),
                    AtomSource::ClusterId { axis, cluster } => i64::from(cta[axis] / cluster),
                    AtomSource::LaneId => i64::from(t % 32),
                    AtomSource::WarpId => i64::from(t / 32),
                    AtomSource::WarpInGroup => i64::from(t / 32 % 4),
                    AtomSource::WarpgroupId => i64::from(t / 128),
                    AtomSource::LaneField { shift, bits } => {
                        i64::from(((t % 32) >> shift) & ((1 << bits) - 1))
                    }
                    AtomSource::Symbol(index) => self.symbols[index],
                    AtomSource::Param { param, dtype } => extend(self.scalars[param], dtype),
                    AtomSource::Body => 0,
                };
            }
        }
        for copies in &mut state.copies {
            *copies = ThreadCopies::default();
        }
        let active: Vec<u32> = (0..state.threads as u32).collect();
        self.blocks(state, &self.plan.body, &active)?;
        // A thread may not end with a copy in flight: its bytes would land
        // in whatever cluster reuses the shared memory.
        for (t, copies) in state.copies.iter().enumerate() {
            if let Some(copy) = copies
                .uncommitted
                .iter()
                .chain(copies.groups.iter().flatten())
                .chain(&copies.bulk)
                .next()
            {
                return Err(Trap {
                    statement: Some(copy.statement),
                    thread: t as u32,
                    kind: FaultKind::AsyncCopyNeverWaited {
                        copy: self.plan.statements[copy.statement].0,
                    },
                });
            }
            // Nor with a bulk store still reading shared memory (its
            // writes the kernel's end completes).
            if let Some(store) = copies
                .bulk_groups
                .iter()
                .flatten()
                .chain(&copies.stores)
                .find(|store| store.source.is_some())
            {
                return Err(Trap {
                    statement: Some(store.statement),
                    thread: t as u32,
                    kind: FaultKind::AsyncStoreNeverWaited {
                        store: self.plan.statements[store.statement].0,
                    },
                });
            }
        }
        // Nor with another CTA's shared memory accessed after the last
        // cluster barrier: that CTA may have exited before the access.
        if let Some(access) = state.unordered_remote {
            return Err(Trap {
                statement: Some(access.statement),
                thread: access.thread,
                kind: FaultKind::RemoteSharedLifetime {
                    buffer: self.plan.shared[access.buffer].name.clone(),
                    rank: access.rank as u32,
                    before_first_barrier: false,
                },
            });
        }
        Ok(())
    }

    /// `cp.async` of thread `t`: reads the first `read_bytes` of its
    /// source now (the rest of the `bytes` are zeros: `src-size`), and
    /// owns its destination bytes until [`Self::retire`].
    fn issue_copy(
        &self,
        state: &mut ClusterState,
        (dst, src, bytes): (&Address, &Address, usize),
        read_bytes: usize,
        t: u32,
        statement: usize,
    ) -> Result<(), FaultKind> {
        let mut data = vec![0u8; bytes];
        let read_bytes = read_bytes.min(bytes);
        if read_bytes > 0 {
            let (source, from) =
                self.access_aligned(state, src, read_bytes, bytes, t, Touch::Read)?;
            for (i, byte) in data.iter_mut().take(read_bytes).enumerate() {
                *byte = read(state, source, from + i, 1) as u8;
            }
        }
        let Region::Shared(buffer) = dst.region else {
            return Err(FaultKind::Arguments("a copy into a tensor".into()));
        };
        let offset = dst.offset.eval(state.atoms_of(t));
        let number = self.plan.statements[statement].0;
        let at = state
            .shared
            .begin_copy(buffer, offset, (bytes, bytes), u64::from(t), number)
            .map_err(|fault| self.shared_fault(state, fault))?;
        let cta = state.placement.rank(t);
        let copies = &mut state.copies[t as usize];
        copies.uncommitted.push(PendingCopy {
            cta,
            buffer,
            at,
            data,
            statement,
            group: copies.closed,
            attached: Vec::new(),
        });
        Ok(())
    }

    /// `cp.async.bulk` of thread `t`: reads its `bytes` of source now (16-byte
    /// aligned, a multiple of 16), owns its destination bytes, signals the
    /// current phase of the mbarrier object at `barrier` with their count
    /// (`complete_tx`: counted now, the earliest the hardware may), and
    /// lands when that phase completes ([`Self::land_phase`]), gated by
    /// it: only threads that observe the phase see the bytes (the issuer's
    /// `cp.async` waits retire nothing of it).
    fn issue_bulk_copy(
        &self,
        state: &mut ClusterState,
        (dst, src, bytes): (&Address, &Address, usize),
        barrier: &Address,
        t: u32,
        statement: usize,
    ) -> Result<(), FaultKind> {
        if bytes == 0 || !bytes.is_multiple_of(BULK_ALIGNMENT) {
            return Err(FaultKind::Arguments(format!(
                "a bulk copy of {bytes} bytes (not a non-zero multiple of 16)"
            )));
        }
        let mut data = vec![0u8; bytes];
        let (source, from) =
            self.access_aligned(state, src, bytes, BULK_ALIGNMENT, t, Touch::Read)?;
        for (i, byte) in data.iter_mut().enumerate() {
            *byte = read(state, source, from + i, 1) as u8;
        }
        let cta = state.placement.rank(t);
        self.land_with_phase(
            state,
            (cta, dst),
            (data, BULK_ALIGNMENT),
            barrier,
            t,
            statement,
        )
    }

    /// `cp.async.bulk.tensor` of thread `t`: reads the box at `coords` of
    /// tensor `param` now, elements outside the tensor as zeros (the
    /// hardware's zero fill; coordinates may be anywhere), and lands it
    /// at `dst` like a bulk copy. With `multicast` (`.multicast::cluster`,
    /// its `ctaMask`), the box read once lands at the same offset of
    /// `dst`'s buffer in every CTA whose rank's bit is set, each signalling
    /// its own CTA's object at `barrier`'s offset ([`Self::land_with_phase`]
    /// per CTA, in rank order); a mask of 0, or with a bit of no CTA of the
    /// cluster, is a fault.
    fn issue_tensor_copy(
        &self,
        state: &mut ClusterState,
        (dst, param, element): (&Address, usize, usize),
        (dims, box_dims, coords): (&[DimSpec], &[u32], &[Linear]),
        (barrier, multicast): (&Address, Option<&Source>),
        t: u32,
        statement: usize,
    ) -> Result<(), FaultKind> {
        let name = &self.names[param];
        let own = state.placement.rank(t);
        let ctas = state.ctas.len();
        let mask = match multicast {
            None => 1u64 << own,
            Some(source) => {
                let mask = self.source(state, source, t)? & 0xffff;
                if mask == 0 || mask >> ctas != 0 {
                    return Err(FaultKind::Arguments(format!(
                        "a multicast tensor copy with ctaMask {mask:#06x}, {} (the cluster has {ctas} CTA{}, ranks 0 to {})",
                        if mask == 0 {
                            "which names no CTA"
                        } else {
                            "which names a CTA outside the cluster"
                        },
                        if ctas == 1 { "" } else { "s" },
                        ctas - 1
                    )));
                }
                mask
            }
        };
        let Some(memory) = self.memories[param].as_ref() else {
            return Err(FaultKind::Arguments(format!("`{name}` is not a tensor")));
        };
        let atoms = state.atoms_of(t);
        let dims: Vec<i64> = dims
            .iter()
            .map(|d| dim_value(*d, &self.symbols))
            .collect::<Option<_>>()
            .ok_or_else(|| FaultKind::Arguments(format!("a dim of `{name}` has no value")))?;
        let starts: Vec<i64> = coords.iter().map(|c| c.eval(atoms)).collect();
        let count: usize = box_dims.iter().map(|e| *e as usize).product();
        let mut data = vec![0u8; count * element];
        let mut index = vec![0i64; box_dims.len()];
        for chunk in data.chunks_mut(element) {
            // Row-major offset of the element, if inside the tensor.
            let mut offset = Some(0i64);
            for ((i, start), dim) in index.iter().zip(&starts).zip(&dims) {
                let at = start.saturating_add(*i);
                offset = offset
                    .filter(|_| (0..*dim).contains(&at))
                    .map(|o| o * dim + at);
            }
            if let Some(offset) = offset {
                let at = offset as usize * element;
                for (k, byte) in chunk.iter_mut().enumerate() {
                    *byte = memory.read(at + k, 1) as u8;
                }
            }
            for axis in (0..index.len()).rev() {
                index[axis] += 1;
                if index[axis] < i64::from(box_dims[axis]) {
                    break;
                }
                index[axis] = 0;
            }
        }
        for cta in (0..ctas).filter(|c| mask >> c & 1 != 0) {
            self.land_with_phase(
                state,
                (cta, dst),
                (data.clone(), TENSOR_COPY_ALIGNMENT),
                barrier,
                t,
                statement,
            )?;
        }
        Ok(())
    }

    /// An asynchronous-proxy copy's `data` (read at issue) owning its
    /// bytes at `dst` (aligned to `align`) of the CTA of rank `cta` from
    /// now, signalling the current phase of that CTA's mbarrier object at
    /// `barrier` with their count (`complete_tx`: counted now, the earliest
    /// the hardware may), and landing when that phase completes
    /// ([`Self::land_phase`]). Into another CTA than `t`'s (a multicast
    /// copy), that CTA's object is touched atomically by `t` first (its
    /// `init` must be ordered before, by a cluster barrier), and the CTA
    /// must run on ([`Self::remote_lifetime`]).
    fn land_with_phase(
        &self,
        state: &mut ClusterState,
        (cta, dst): (usize, &Address),
        (data, align): (Vec<u8>, usize),
        barrier: &Address,
        t: u32,
        statement: usize,
    ) -> Result<(), FaultKind> {
        let bytes = data.len();
        let (Region::Shared(buffer), Region::Shared(mbar)) = (dst.region, barrier.region) else {
            return Err(FaultKind::Arguments(
                "a bulk copy into a tensor, or signalling one".into(),
            ));
        };
        let offset = dst.offset.eval(state.atoms_of(t));
        let mbar_offset = barrier.offset.eval(state.atoms_of(t));
        let number = self.plan.statements[statement].0;
        let fault = |state: &ClusterState, f| self.shared_fault(state, f);
        let remote = cta != state.placement.rank(t);
        if remote {
            self.remote_lifetime(state, buffer, cta, t)?;
        }
        let phase = state
            .shared
            .mbarrier_phase(cta, mbar, mbar_offset)
            .map_err(|f| fault(state, f))?;
        if remote {
            state
                .shared
                .access_in(cta, mbar, mbar_offset, 8, u64::from(t), Touch::Atomic)
                .map_err(|f| fault(state, f))?;
        }
        let at = state
            .shared
            .begin_copy_in((cta, buffer), offset, (bytes, align), u64::from(t), number)
            .map_err(|f| fault(state, f))?;
        state.copies[t as usize].bulk.push(PendingCopy {
            cta,
            buffer,
            at,
            data,
            statement,
            // In no `cp.async` group: no wait of its thread retires it.
            group: u64::MAX,
            attached: vec![phase],
        });
        let completed = state
            .shared
            .mbarrier_complete_tx(cta, mbar, mbar_offset, bytes as u64)
            .map_err(|f| fault(state, f))?;
        if let Some(phase) = completed {
            self.land_phase(state, phase)?;
        }
        Ok(())
    }

    /// An mbarrier operation of thread `t` on the object at `address`
    /// ([`SharedMemory`] keeps the objects and checks each use).
    fn mbarrier(
        &self,
        state: &mut ClusterState,
        address: &Address,
        op: &MbarrierAction,
        t: u32,
    ) -> Result<(), FaultKind> {
        let Region::Shared(buffer) = address.region else {
            return Err(FaultKind::Arguments(
                "an mbarrier operation on a tensor".into(),
            ));
        };
        let offset = address.offset.eval(state.atoms_of(t));
        let thread = u64::from(t);
        let own = state.placement.rank(t);
        // `mbarrier.arrive.shared::cluster` on `buf.in_cta(rank)`: the
        // object of that CTA.
        let cta = match &address.cta {
            None => own,
            Some(rank) => {
                let rank = rank.eval(state.atoms_of(t));
                self.remote_cta(state, buffer, rank)?
            }
        };
        if cta != own && !matches!(op, MbarrierAction::Arrive { .. }) {
            return Err(FaultKind::Arguments(
                "an mbarrier operation other than an arrival on another CTA's object".into(),
            ));
        }
        let fault = |state: &ClusterState, fault| self.shared_fault(state, fault);
        match op {
            MbarrierAction::Init { count } => {
                let count = self.source(state, count, t)?;
                state
                    .shared
                    .mbarrier_init(buffer, offset, thread, count)
                    .map_err(|f| fault(state, f))
            }
            MbarrierAction::Inval => {
                let phase = state
                    .shared
                    .mbarrier_inval(buffer, offset, thread)
                    .map_err(|f| fault(state, f))?;
                // A tracked copy would arrive on the invalid object.
                let tracked = state
                    .copies
                    .iter()
                    .flat_map(|c| {
                        c.uncommitted
                            .iter()
                            .chain(c.groups.iter().flatten())
                            .chain(&c.bulk)
                    })
                    .find(|copy| copy.attached.contains(&phase));
                match tracked {
                    Some(copy) => {
                        let (buffer, index) = state.shared.mbarrier_of(phase.incarnation);
                        Err(FaultKind::MbarrierInvalidatedWithCopies {
                            buffer,
                            index,
                            copy: self.plan.statements[copy.statement].0,
                        })
                    }
                    None => Ok(()),
                }
            }
            MbarrierAction::Arrive {
                state: destination,
                release,
                expect_tx,
                cluster_scope,
            } => {
                // A `.cta`-scoped release orders nothing for another CTA's
                // threads.
                let arriving = if *release && (cta == own || *cluster_scope) {
                    Arriving::Release
                } else {
                    Arriving::Relaxed
                };
                if cta != own {
                    self.remote_lifetime(state, buffer, cta, t)?;
                }
                let expect = match expect_tx {
                    Some(bytes) => self.source(state, bytes, t)?,
                    None => 0,
                };
                let arrival = state
                    .shared
                    .mbarrier_arrive_in((cta, buffer), offset, thread, arriving, expect)
                    .map_err(|f| fault(state, f))?;
                // The state is opaque to kernels: the phase's number.
                if let Some(destination) = destination {
                    state.write(t, *destination, arrival.phase.phase);
                }
                if arrival.completed {
                    self.land_phase(state, arrival.phase)?;
                }
                Ok(())
            }
            MbarrierAction::CopyArrive { noinc } => {
                // `.noinc`: one of the phase's arrivals. PTX gives the
                // copies' arrive-on no release of the thread's other
                // accesses, so it orders none (nor does the checker count
                // on it).
                let arriving = if *noinc {
                    Arriving::Relaxed
                } else {
                    Arriving::Not
                };
                let arrival = state
                    .shared
                    .mbarrier_arrive(buffer, offset, thread, arriving, 0)
                    .map_err(|f| fault(state, f))?;
                let copies = &mut state.copies[t as usize];
                for copy in copies
                    .uncommitted
                    .iter_mut()
                    .chain(copies.groups.iter_mut().flatten())
                {
                    if !copy.attached.contains(&arrival.phase) {
                        copy.attached.push(arrival.phase);
                    }
                }
                if arrival.completed {
                    self.land_phase(state, arrival.phase)?;
                }
                Ok(())
            }
            MbarrierAction::WaitParity {
                parity,
                acquire,
                cluster_scope,
            } => {
                let parity = self.source(state, parity, t)?;
                let acquiring = match (acquire, cluster_scope) {
                    (false, _) => Acquiring::Relaxed,
                    (true, false) => Acquiring::Cta,
                    (true, true) => Acquiring::Cluster,
                };
                state
                    .shared
                    .mbarrier_wait_parity(buffer, offset, thread, parity, acquiring)
                    .map_err(|f| fault(state, f))
            }
        }
    }

    /// `phase` completed: every copy it tracks lands, its bytes gated by
    /// the phases that track it (and by its group, which its thread's
    /// wait may retire), and leaves its thread's groups (a later wait has
    /// nothing of it to land; the group still counts).
    fn land_phase(&self, state: &mut ClusterState, phase: Phase) -> Result<(), FaultKind> {
        let mut landing = Vec::new();
        for (t, copies) in state.copies.iter_mut().enumerate() {
            for list in [&mut copies.uncommitted, &mut copies.bulk]
                .into_iter()
                .chain(copies.groups.iter_mut())
            {
                if list.iter().any(|copy| copy.attached.contains(&phase)) {
                    let (now, later): (Vec<PendingCopy>, Vec<PendingCopy>) = std::mem::take(list)
                        .into_iter()
                        .partition(|copy| copy.attached.contains(&phase));
                    *list = later;
                    landing.extend(now.into_iter().map(|copy| (t as u64, copy)));
                }
            }
        }
        for (issuer, copy) in landing {
            let issue = Issue {
                copy: self.plan.statements[copy.statement].0,
                issuer,
                group: copy.group,
            };
            state
                .shared
                .land_gated(
                    (copy.cta, copy.buffer),
                    copy.at,
                    &copy.data,
                    issue,
                    &copy.attached,
                )
                .map_err(|fault| self.shared_fault(state, fault))?;
        }
        Ok(())
    }

    /// `cp.async.wait_group pending` (`None`: `wait_all`, which commits
    /// first) of thread `t`: its older groups land (their copies no
    /// mbarrier phase landed before), as writes of `t`, tracked by no
    /// phase any more; the bytes of their copies a phase landed before
    /// are `t`'s to touch from now on.
    fn retire(
        &self,
        state: &mut ClusterState,
        pending: Option<usize>,
        t: u32,
    ) -> Result<(), FaultKind> {
        let copies = &mut state.copies[t as usize];
        let (landing, retired): (Vec<PendingCopy>, u64) = match pending {
            None => {
                let mut all: Vec<PendingCopy> = copies.groups.drain(..).flatten().collect();
                all.append(&mut copies.uncommitted);
                copies.closed += 1;
                (all, copies.closed)
            }
            Some(n) => {
                let older = copies.groups.len().saturating_sub(n);
                let retired = copies.closed.saturating_sub(n as u64);
                (copies.groups.drain(..older).flatten().collect(), retired)
            }
        };
        state.shared.retire_groups(u64::from(t), retired);
        for copy in landing {
            state
                .shared
                .complete_copy(copy.buffer, copy.at, &copy.data, u64::from(t))
                .map_err(|fault| self.shared_fault(state, fault))?;
        }
        Ok(())
    }

    /// `cp.async.bulk.global.shared::cta.bulk_group` of thread `t`: its
    /// `bytes` (a non-zero multiple of 16) at `src` (shared, 16-byte
    /// aligned) are read now and are the store's source until a bulk wait
    /// of `t` retires its group ([`SharedMemory::begin_store_source`]);
    /// they are written at `dst` (a tensor, in bounds, 16-byte aligned)
    /// now ([`Self::write_store`]), or with `reduce` (a bulk reduction)
    /// each element there is updated with them. The store joins `t`'s
    /// uncommitted bulk stores.
    fn issue_bulk_store(
        &self,
        state: &mut ClusterState,
        (dst, src, bytes): (&Address, &Address, usize),
        reduce: Option<&AtomicUpdate>,
        t: u32,
        statement: usize,
    ) -> Result<(), FaultKind> {
        let what = if reduce.is_some() {
            "bulk reduction"
        } else {
            "bulk store"
        };
        if bytes == 0 || !bytes.is_multiple_of(BULK_ALIGNMENT) {
            return Err(FaultKind::Arguments(format!(
                "a {what} of {bytes} bytes (not a non-zero multiple of 16)"
            )));
        }
        // Elements must tile the 16-byte-aligned runs (never a panic on a
        // hand-built update).
        if let Some(update) = reduce
            && !matches!(update.bits, 8 | 16 | 32 | 64)
        {
            return Err(FaultKind::Arguments(format!(
                "a {what} of {}-bit elements",
                update.bits
            )));
        }
        let Region::Shared(buffer) = src.region else {
            return Err(FaultKind::Arguments(format!(
                "a {what} from a tensor, not shared memory"
            )));
        };
        let offset = src.offset.eval(state.atoms_of(t));
        let number = self.plan.statements[statement].0;
        let at = state
            .shared
            .begin_store_source(
                buffer,
                offset,
                (bytes, BULK_ALIGNMENT),
                u64::from(t),
                number,
            )
            .map_err(|fault| self.shared_fault(state, fault))?;
        let touch = store_touch(reduce.is_some());
        let (param, to) = self.tensor_range(state, dst, bytes, BULK_ALIGNMENT, t, touch)?;
        self.write_store(
            state,
            (param, &[(to..to + bytes, 0)]),
            (buffer, at, bytes),
            reduce,
            t,
            statement,
        )
    }

    /// `cp.async.bulk.tensor` to global memory (tile mode) of thread `t`:
    /// the box of `box_dims` elements of `element` bytes at `src` (shared,
    /// 128-byte aligned, row-major) is read now and is the store's source
    /// like a [`Self::issue_bulk_store`]'s; each element is written to
    /// tensor `param` at the box's coordinates `coords` (outermost first)
    /// plus its index in the box, unless that lies outside the tensor (the
    /// hardware clips the box: any coordinates are legal).
    fn issue_tensor_store(
        &self,
        state: &mut ClusterState,
        (src, param, element): (&Address, usize, usize),
        (dims, box_dims, coords): (&[DimSpec], &[u32], &[Linear]),
        t: u32,
        statement: usize,
    ) -> Result<(), FaultKind> {
        let name = &self.names[param];
        let Some(memory) = self.memories[param].as_ref() else {
            return Err(FaultKind::Arguments(format!("`{name}` is not a tensor")));
        };
        if !memory.written {
            return Err(FaultKind::ReadOnlyWrite {
                param: name.clone(),
            });
        }
        let atoms = state.atoms_of(t);
        let dims: Vec<i64> = dims
            .iter()
            .map(|d| dim_value(*d, &self.symbols))
            .collect::<Option<_>>()
            .ok_or_else(|| FaultKind::Arguments(format!("a dim of `{name}` has no value")))?;
        let starts: Vec<i64> = coords.iter().map(|c| c.eval(atoms)).collect();
        let (Some((&inner, outer)), true) = (
            box_dims.split_last(),
            dims.len() == box_dims.len() && starts.len() == box_dims.len(),
        ) else {
            return Err(FaultKind::Arguments(format!(
                "a tensor store whose box does not fit `{name}`"
            )));
        };
        let bytes = box_dims
            .iter()
            .try_fold(element, |bytes, e| bytes.checked_mul(*e as usize))
            .filter(|bytes| *bytes > 0)
            .ok_or_else(|| FaultKind::Arguments(format!("an empty or huge box of `{name}`")))?;
        let Region::Shared(buffer) = src.region else {
            return Err(FaultKind::Arguments(
                "a tensor store from a tensor, not shared memory".into(),
            ));
        };
        let offset = src.offset.eval(atoms);
        let number = self.plan.statements[statement].0;
        let at = state
            .shared
            .begin_store_source(
                buffer,
                offset,
                (bytes, TENSOR_COPY_ALIGNMENT),
                u64::from(t),
                number,
            )
            .map_err(|fault| self.shared_fault(state, fault))?;
        // The box's rows (along the innermost axis), each clipped to the
        // tensor's innermost extent: `(tensor bytes, start in the source)`.
        let inner_dim = dims[outer.len()];
        let inner_start = starts[outer.len()];
        let first = inner_start.max(0);
        let end = inner_start.saturating_add(i64::from(inner)).min(inner_dim);
        let mut runs = Vec::new();
        if first < end {
            let width = (end - first) as usize * element;
            let skipped = (first - inner_start) as usize * element;
            let row_bytes = inner as usize * element;
            let mut index = vec![0i64; outer.len()];
            for row in 0..bytes / row_bytes {
                // Row-major byte offset of the row's first element inside
                // the tensor, if the row lies inside it (saturating: dims
                // too large for the tensor's bytes are out of its bounds).
                let mut offset = Some(0i128);
                for ((i, start), dim) in index.iter().zip(&starts).zip(&dims) {
                    let at = start.saturating_add(*i);
                    offset = offset.filter(|_| (0..*dim).contains(&at)).map(|o| {
                        o.saturating_mul(i128::from(*dim))
                            .saturating_add(i128::from(at))
                    });
                }
                if let Some(offset) = offset {
                    let from = offset
                        .saturating_mul(i128::from(inner_dim))
                        .saturating_add(i128::from(first))
                        .saturating_mul(element as i128);
                    if from.saturating_add(width as i128) > memory.len() as i128 {
                        return Err(FaultKind::OutOfBounds {
                            param: name.clone(),
                            offset: from,
                            bytes: width,
                            len: memory.len(),
                        });
                    }
                    let from = from as usize;
                    runs.push((from..from + width, row * row_bytes + skipped));
                }
                for axis in (0..index.len()).rev() {
                    index[axis] += 1;
                    if index[axis] < i64::from(box_dims[axis]) {
                        break;
                    }
                    index[axis] = 0;
                }
            }
        }
        self.write_store(
            state,
            (param, &runs),
            (buffer, at, bytes),
            None,
            t,
            statement,
        )
    }

    /// The global writes of a bulk store (statement `statement`) of
    /// thread `t` to tensor `param`, from its shared source `(buffer,
    /// start, bytes)` (read now): each of `runs` (tensor bytes, in bounds,
    /// and where in the source they start) must not meet the bytes of an
    /// earlier store of `t` that no bulk wait without `.read` has
    /// completed ([`FaultKind::AsyncStoreOverlap`]: the async proxy may
    /// complete the two in either order), unless both are reductions
    /// (atomic updates, whose order changes nothing `red`'s would not);
    /// then they are recorded as writes (a reduction's: atomics) of `t`
    /// and written (a reduction's: each element of `reduce.bits` updated
    /// under its atomic lock, as [`Action::Atomic`] does, since other
    /// blocks' reductions may update it on other host threads), and held
    /// against `t`'s later stores until such a wait. The store joins
    /// `t`'s uncommitted ones.
    fn write_store(
        &self,
        state: &mut ClusterState,
        (param, runs): (usize, &[(Range<usize>, usize)]),
        (buffer, at, bytes): (usize, usize, usize),
        reduce: Option<&AtomicUpdate>,
        t: u32,
        statement: usize,
    ) -> Result<(), FaultKind> {
        let Some(memory) = self.memories[param].as_ref() else {
            return Err(FaultKind::Arguments(format!(
                "`{}` is not a tensor",
                self.names[param]
            )));
        };
        let number = self.plan.statements[statement].0;
        let reducing = reduce.is_some();
        let copies = &state.copies[t as usize];
        for (range, _) in runs {
            // A pending range that meets this one starts at most
            // `longest_write` bytes before it.
            let from = (param, range.start.saturating_sub(copies.longest_write), 0);
            let met = copies
                .store_writes
                .range(from..(param, range.end, 0))
                .find(|(_, write)| write.end > range.start && !(reducing && write.reduce));
            if let Some((&(_, start, _), write)) = met {
                return Err(FaultKind::AsyncStoreOverlap {
                    param: self.names[param].clone(),
                    offset: start.max(range.start),
                    store: write.store,
                });
            }
        }
        let touch = store_touch(reducing);
        let data = state
            .shared
            .bytes(state.placement.rank(t), buffer, at, bytes);
        let mut writes = Vec::with_capacity(runs.len());
        for (range, from) in runs {
            if range.is_empty() {
                continue;
            }
            self.touch_tensor(state, memory, param, range.clone(), t, touch)?;
            let source = &data[*from..*from + range.len()];
            match reduce {
                None => memory.write_bytes(range.start, source),
                Some(update) => {
                    let element = update.bits / 8;
                    for (i, chunk) in source.chunks_exact(element).enumerate() {
                        let b = chunk
                            .iter()
                            .rev()
                            .fold(0, |value, byte| value << 8 | Bits::from(*byte));
                        self.update_tensor(memory, param, range.start + i * element, update, &[b]);
                    }
                }
            }
            writes.push(range.clone());
        }
        let copies = &mut state.copies[t as usize];
        let id = copies.stores_issued;
        copies.stores_issued += 1;
        for range in &writes {
            copies.longest_write = copies.longest_write.max(range.len());
            copies.store_writes.insert(
                (param, range.start, id),
                PendingWrite {
                    end: range.end,
                    store: number,
                    reduce: reducing,
                },
            );
        }
        copies.stores.push(PendingStore {
            statement,
            source: Some((buffer, at, bytes)),
            param,
            writes,
            id,
            reduce: reducing,
        });
        Ok(())
    }

    /// One atomic update of the element at `byte` of tensor `param` with
    /// `operands`, under that element's lock (other blocks update it on
    /// other host threads); returns the old value. An `atom`'s or `red`'s
    /// element, and each element of a bulk reduction.
    fn update_tensor(
        &self,
        memory: &TensorMemory<'_>,
        param: usize,
        byte: usize,
        update: &AtomicUpdate,
        operands: &[Bits],
    ) -> Bits {
        let element = update.bits / 8;
        self.locks.with(param, byte, || {
            let old = memory.read(byte, element);
            memory.write(
                byte,
                element,
                mask(update.apply(old, operands), update.bits),
            );
            old
        })
    }

    /// `cp.async.bulk.wait_group pending` (`.read`: `read`) of thread `t`:
    /// the stores of its bulk groups older than the `pending` most recent
    /// have read their sources, which are theirs no more (the reads are
    /// `t`'s at this wait: [`SharedMemory::end_store_source`]). Without
    /// `read`, their writes are complete too: recorded again as writes of
    /// `t` now (an access of another thread that nothing orders after this
    /// wait races with them), no longer held against `t`'s later stores,
    /// and the groups are gone. Stores not yet committed stay pending.
    fn retire_stores(
        &self,
        state: &mut ClusterState,
        pending: usize,
        read: bool,
        t: u32,
    ) -> Result<(), FaultKind> {
        let copies = &mut state.copies[t as usize];
        let older = copies.bulk_groups.len().saturating_sub(pending);
        let mut sources = Vec::new();
        // The groups below `read_groups` have no sources left.
        for group in copies
            .bulk_groups
            .range_mut(copies.read_groups.min(older)..older)
        {
            for store in group {
                if let Some(source) = store.source.take() {
                    sources.push((source, store.statement));
                }
            }
        }
        copies.read_groups = copies.read_groups.max(older);
        let completed: Vec<PendingStore> = if read {
            Vec::new()
        } else {
            copies.read_groups -= older;
            copies.bulk_groups.drain(..older).flatten().collect()
        };
        for store in &completed {
            for range in &store.writes {
                copies
                    .store_writes
                    .remove(&(store.param, range.start, store.id));
            }
        }
        if copies.store_writes.is_empty() {
            copies.longest_write = 0;
        }
        for ((buffer, at, bytes), statement) in sources {
            let number = self.plan.statements[statement].0;
            state
                .shared
                .end_store_source(buffer, at, bytes, u64::from(t), number)
                .map_err(|fault| self.shared_fault(state, fault))?;
        }
        for store in completed {
            let Some(memory) = self.memories[store.param].as_ref() else {
                continue;
            };
            // A reduction's completed updates are still atomics: other
            // threads' reductions of the bytes do not race with them.
            let touch = store_touch(store.reduce);
            for range in store.writes {
                self.touch_tensor(state, memory, store.param, range, t, touch)?;
            }
        }
        Ok(())
    }

    /// A shared-memory fault with the other thread named.
    fn shared_fault(&self, state: &ClusterState, fault: SharedFault) -> FaultKind {
        match fault {
            SharedFault::Kind(kind) => kind,
            SharedFault::Race {
                buffer,
                at: RaceAt { byte, other },
            } => FaultKind::SharedRace {
                buffer,
                offset: byte,
                other: u32::try_from(other)
                    .ok()
                    .map(|other| self.thread_id(state, other)),
            },
        }
    }

    fn blocks(&self, state: &mut ClusterState, blocks: &[Block], active: &[u32]) -> Run {
        if active.is_empty() {
            return Ok(());
        }
        for block in blocks {
            match block {
                Block::Steps(steps) => {
                    for step in steps {
                        self.step(state, step, active)?;
                    }
                }
                Block::Define { atom, op, a, b } => {
                    for &t in active {
                        let atoms = state.atoms_of(t);
                        let (a, b) = (a.eval(atoms), b.eval(atoms));
                        let value = computed(*op, a, b).ok_or(Trap {
                            statement: None,
                            thread: t,
                            kind: FaultKind::IndexDivisionByZero,
                        })?;
                        state.atoms_of_mut(t)[*atom as usize] = value;
                    }
                }
                Block::ReadRegister {
                    atom,
                    source,
                    dtype,
                } => {
                    for &t in active {
                        let bits = self.source(state, source, t).map_err(|kind| Trap {
                            statement: None,
                            thread: t,
                            kind,
                        })?;
                        state.atoms_of_mut(t)[*atom as usize] = extend(bits, *dtype);
                    }
                }
                Block::If {
                    test,
                    then,
                    otherwise,
                } => {
                    let mut yes = Vec::with_capacity(active.len());
                    let mut no = Vec::new();
                    for &t in active {
                        if self.test(state, test, t, None)? {
                            yes.push(t);
                        } else {
                            no.push(t);
                        }
                    }
                    self.blocks(state, then, &yes)?;
                    self.blocks(state, otherwise, &no)?;
                }
                Block::Loop {
                    var,
                    start,
                    end,
                    step,
                    body,
                } => {
                    let var = *var as usize;
                    let mut bounds = Vec::with_capacity(active.len());
                    for &t in active {
                        let atoms = state.atoms_of(t);
                        let (s, e, d) = (start.eval(atoms), end.eval(atoms), step.eval(atoms));
                        state.atoms_of_mut(t)[var] = s;
                        bounds.push((t, e, d));
                    }
                    loop {
                        bounds.retain(|&(t, e, _)| state.atoms_of(t)[var] < e);
                        if bounds.is_empty() {
                            break;
                        }
                        let running: Vec<u32> = bounds.iter().map(|b| b.0).collect();
                        self.charge(state, &running, None)?;
                        self.blocks(state, body, &running)?;
                        for &(t, _, d) in &bounds {
                            let value = &mut state.atoms_of_mut(t)[var];
                            *value = value.wrapping_add(d);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn test(
        &self,
        state: &ClusterState,
        test: &Test,
        t: u32,
        statement: Option<usize>,
    ) -> Run<bool> {
        Ok(match test {
            Test::Const(value) => *value,
            Test::Cmp(op, linear) => {
                let value = linear.eval(state.atoms_of(t));
                match op {
                    CmpOp::Lt => value < 0,
                    CmpOp::Le => value <= 0,
                    CmpOp::Eq => value == 0,
                    CmpOp::Ne => value != 0,
                }
            }
            Test::Param(param) => self.scalars[*param] & 1 != 0,
            Test::Register {
                offset,
                tile,
                register,
            } => {
                let at = t as usize * state.frame + offset;
                if !state.defined[at] {
                    return Err(Trap {
                        statement,
                        thread: t,
                        kind: FaultKind::UndefinedRegister {
                            tile: self.tile_names[*tile].clone(),
                            element: *register,
                        },
                    });
                }
                state.registers[at] & 1 != 0
            }
            Test::Not(inner) => !self.test(state, inner, t, statement)?,
            Test::And(a, b) => {
                self.test(state, a, t, statement)? && self.test(state, b, t, statement)?
            }
            Test::Or(a, b) => {
                self.test(state, a, t, statement)? || self.test(state, b, t, statement)?
            }
        })
    }

    /// Counts an instruction or iteration of each of `threads` (in
    /// ascending order) against the limit of its CTA; over it, a fault of
    /// the CTA's thread 0.
    fn charge(&self, state: &mut ClusterState, threads: &[u32], statement: Option<usize>) -> Run {
        let placement = state.placement;
        let mut rest = threads;
        while let Some(&first) = rest.first() {
            let rank = placement.rank(first);
            // The threads of the CTA come together (ascending order).
            let count = if placement.clustered {
                let next = placement.thread(rank + 1, 0);
                rest.partition_point(|u| *u < next)
            } else {
                rest.len()
            };
            rest = &rest[count..];
            let work = &mut state.ctas[rank].work;
            *work += count as u64;
            if let Some(limit) = self.work_limit
                && *work > limit
            {
                return Err(Trap {
                    statement,
                    thread: placement.thread(rank, 0),
                    kind: FaultKind::WorkLimit { limit },
                });
            }
        }
        Ok(())
    }

    /// The active threads whose guard of `step` holds, in order.
    fn executing(&self, state: &ClusterState, step: &Step, active: &[u32]) -> Run<Vec<u32>> {
        let mut executing = Vec::with_capacity(active.len());
        for &t in active {
            if self.test(state, &step.guard, t, Some(step.statement))? {
                executing.push(t);
            }
        }
        Ok(executing)
    }

    /// Thread `t`'s value of `source`, a fault located at `statement`.
    fn read(
        &self,
        state: &ClusterState,
        source: &Source,
        t: u32,
        statement: Option<usize>,
    ) -> Run<Bits> {
        self.source(state, source, t).map_err(|kind| Trap {
            statement,
            thread: t,
            kind,
        })
    }

    /// A collective step: the threads of each warp that execute it (active
    /// here and under the guard) run it together.
    fn collective_step(
        &self,
        state: &mut ClusterState,
        step: &Step,
        active: &[u32],
        collective: &crate::semantics::Collective,
        sources: &[Source],
        destinations: &[Destination],
    ) -> Run {
        let statement = Some(step.statement);
        let (inputs, outputs) = (collective.inputs(), collective.outputs());
        let executing = self.executing(state, step, active)?;
        let mut lane_sources = vec![0; 32 * inputs];
        let mut lane_destinations = vec![0; 32 * outputs];
        let placement = state.placement;
        for warp in executing.chunk_by(|a, b| placement.warp(*a) == placement.warp(*b)) {
            let mut mask = 0u32;
            lane_sources.fill(0);
            for &t in warp {
                let lane = placement.lane(t) as usize;
                mask |= 1 << lane;
                for (i, source) in sources.iter().enumerate() {
                    lane_sources[lane * inputs + i] = self.read(state, source, t, statement)?;
                }
            }
            collective
                .run(mask, &lane_sources, &mut lane_destinations)
                .map_err(|error| Trap {
                    statement,
                    thread: warp[0] - placement.lane(warp[0]) + error.lane,
                    kind: FaultKind::Collective {
                        message: error.message,
                    },
                })?;
            for &t in warp {
                state.instructions += 1;
                state.clocks[t as usize] += 1;
                let lane = placement.lane(t) as usize;
                for (o, destination) in destinations.iter().enumerate() {
                    state.write(t, *destination, lane_destinations[lane * outputs + o]);
                }
            }
            if collective.fences() {
                // Each group of one membermask (its last source lane;
                // checked above: every member executes it, with that mask)
                // orders its lanes' shared-memory accesses.
                let mut masks: Vec<u32> = warp
                    .iter()
                    .map(|&t| lane_sources[placement.lane(t) as usize * inputs + inputs - 1] as u32)
                    .collect();
                masks.sort_unstable();
                masks.dedup();
                for mask in masks {
                    let lanes: Vec<u64> = warp
                        .iter()
                        .filter(|&&t| mask & (1 << placement.lane(t)) != 0)
                        .map(|&t| u64::from(t))
                        .collect();
                    state.shared.warp_sync(&lanes);
                }
            }
        }
        Ok(())
    }

    /// An `ldmatrix` step: the 32 lanes of each warp read their rows (each
    /// a 16-byte shared access of its own, checked and recorded like a
    /// load), then every lane takes its pairs of the matrices.
    fn matrix_load_step(
        &self,
        state: &mut ClusterState,
        step: &Step,
        active: &[u32],
        address: &Address,
        transpose: bool,
        destinations: &[Destination],
    ) -> Run {
        let statement = Some(step.statement);
        let executing = self.executing(state, step, active)?;
        let placement = state.placement;
        for warp in executing.chunk_by(|a, b| placement.warp(*a) == placement.warp(*b)) {
            whole_warp(placement, warp, "ldmatrix", statement)?;
            let mut rows = [[0u16; 8]; 32];
            for &t in warp {
                let (target, at) =
                    self.access(state, address, 16, t, Touch::Read)
                        .map_err(|kind| Trap {
                            statement,
                            thread: t,
                            kind,
                        })?;
                for (j, element) in rows[placement.lane(t) as usize].iter_mut().enumerate() {
                    *element = read(state, target, at + 2 * j, 2) as u16;
                }
            }
            for &t in warp {
                state.instructions += 1;
                state.clocks[t as usize] += 1;
                let lane = placement.lane(t);
                let (g, q) = ((lane / 4) as usize, (lane % 4) as usize);
                for (i, destination) in destinations.iter().enumerate() {
                    let (low, high) = if transpose {
                        (rows[8 * i + 2 * q][g], rows[8 * i + 2 * q + 1][g])
                    } else {
                        (rows[8 * i + g][2 * q], rows[8 * i + g][2 * q + 1])
                    };
                    state.write(t, *destination, u64::from(low) | u64::from(high) << 16);
                }
            }
        }
        Ok(())
    }

    /// A `wgmma.mma_async` step, for each warpgroup whose 128 threads
    /// execute it (a partial one is a fault: `.aligned`): the first thread
    /// of the warpgroup reads the shared matrices (each row's two 16-byte
    /// halves a shared access of its own, checked and recorded like a
    /// load: another thread's write since the last barrier is a race),
    /// every thread gives its part of A (register form) and C, and gets
    /// its part of D ([`fragments::wgmma_accumulator`]).
    fn warpgroup_mma_step(&self, state: &mut ClusterState, step: &Step, active: &[u32]) -> Run {
        let Action::WarpgroupMma {
            mma,
            a,
            a_registers,
            b,
            accumulator,
            scale_d,
            negate_a,
            negate_b,
            destinations,
        } = &step.action
        else {
            return Ok(());
        };
        let statement = Some(step.statement);
        let executing = self.executing(state, step, active)?;
        let (m, n, k) = (64usize, mma.n as usize, mma.k as usize);
        let (a_bits, b_bits) = mma.element_bits();
        let placement = state.placement;
        for group in executing.chunk_by(|x, y| placement.warpgroup(*x) == placement.warpgroup(*y)) {
            if group.len() != 128 {
                return Err(Trap {
                    statement,
                    thread: group[0],
                    kind: FaultKind::Collective {
                        message: format!(
                            "wgmma: {} of the warpgroup's 128 threads execute it: `.aligned` needs all of them (undefined behaviour)",
                            group.len()
                        ),
                    },
                });
            }
            let first = group[0];
            // A and B^T as rows of K element bits.
            let read_matrix =
                |state: &mut ClusterState, rows: &[Address], bits: u32| -> Run<Vec<Vec<u64>>> {
                    let per_row = 256 / bits as usize;
                    let mut matrix = Vec::with_capacity(rows.len() / 2);
                    for halves in rows.chunks(2) {
                        let mut row = Vec::with_capacity(per_row);
                        for half in halves {
                            let (target, at) = self
                                .access(state, half, 16, first, Touch::Read)
                                .map_err(|kind| Trap {
                                    statement,
                                    thread: first,
                                    kind,
                                })?;
                            let bytes = (bits / 8) as usize;
                            for e in 0..16 / bytes {
                                row.push(read(state, target, at + e * bytes, bytes));
                            }
                        }
                        matrix.push(row);
                    }
                    Ok(matrix)
                };
            let a_rows = match a {
                Some(rows) => read_matrix(state, rows, a_bits)?,
                None => {
                    let mut matrix = vec![vec![0u64; k]; m];
                    let per_register = 32 / a_bits;
                    for &t in group {
                        let thread = placement.local(t) % 128;
                        for (r, source) in a_registers.iter().enumerate() {
                            let value = self.read(state, source, t, statement)?;
                            for part in 0..per_register {
                                let element = r as u32 * per_register + part;
                                let Some((row, col)) = fragments::wgmma_a(a_bits, thread, element)
                                else {
                                    continue;
                                };
                                let bits = if a_bits == 32 {
                                    value
                                } else {
                                    value >> (part * a_bits) & ((1 << a_bits) - 1)
                                };
                                matrix[row as usize][col as usize] = bits;
                            }
                        }
                    }
                    matrix
                }
            };
            let b_rows = read_matrix(state, b, b_bits)?;
            // C: each thread's accumulator registers, where `scale-d` holds.
            let accumulate = self.test(state, scale_d, first, statement)?;
            let mut c = vec![0u64; m * n];
            for &t in group {
                if self.test(state, scale_d, t, statement)? != accumulate {
                    return Err(Trap {
                        statement,
                        thread: t,
                        kind: FaultKind::Collective {
                            message: "wgmma: `scale-d` differs within the warpgroup".into(),
                        },
                    });
                }
                if !accumulate {
                    continue;
                }
                let thread = placement.local(t) % 128;
                for (r, source) in accumulator.iter().enumerate() {
                    let value = self.read(state, source, t, statement)?;
                    let parts: &[(u32, u64)] = if mma.packed() {
                        &[
                            (2 * r as u32, value & 0xffff),
                            (2 * r as u32 + 1, value >> 16 & 0xffff),
                        ]
                    } else {
                        &[(r as u32, value)]
                    };
                    for &(element, bits) in parts {
                        let (row, col) = fragments::wgmma_accumulator(thread, element);
                        c[row as usize * n + col as usize] = bits;
                    }
                }
            }
            let mut d = vec![0u64; m * n];
            for row in 0..m {
                for col in 0..n {
                    d[row * n + col] = mma.element(
                        &a_rows[row],
                        &b_rows[col],
                        c[row * n + col],
                        *negate_a,
                        *negate_b,
                    );
                }
            }
            for &t in group {
                state.instructions += 1;
                state.clocks[t as usize] += 1;
                let thread = placement.local(t) % 128;
                for (r, destination) in destinations.iter().enumerate() {
                    let value = if mma.packed() {
                        let (r0, c0) = fragments::wgmma_accumulator(thread, 2 * r as u32);
                        let (r1, c1) = fragments::wgmma_accumulator(thread, 2 * r as u32 + 1);
                        d[r0 as usize * n + c0 as usize] | d[r1 as usize * n + c1 as usize] << 16
                    } else {
                        let (row, col) = fragments::wgmma_accumulator(thread, r as u32);
                        d[row as usize * n + col as usize]
                    };
                    state.write(t, *destination, value);
                }
            }
        }
        Ok(())
    }

    /// A `stmatrix` step: every lane's registers are read, then the lanes
    /// whose rows the shape stores write them (each a 16-byte shared
    /// access of its own, checked and recorded like a store).
    fn matrix_store_step(
        &self,
        state: &mut ClusterState,
        step: &Step,
        active: &[u32],
        address: &Address,
        transpose: bool,
        sources: &[Source],
    ) -> Run {
        let statement = Some(step.statement);
        let executing = self.executing(state, step, active)?;
        let matrices = sources.len();
        let placement = state.placement;
        for warp in executing.chunk_by(|a, b| placement.warp(*a) == placement.warp(*b)) {
            whole_warp(placement, warp, "stmatrix", statement)?;
            let mut registers = vec![[0u32; 4]; 32];
            for &t in warp {
                for (i, source) in sources.iter().enumerate() {
                    registers[placement.lane(t) as usize][i] =
                        self.read(state, source, t, statement)? as u32;
                }
            }
            let half = |lane: usize, i: usize, h: usize| (registers[lane][i] >> (16 * h)) as u16;
            for &t in warp {
                state.instructions += 1;
                state.clocks[t as usize] += 1;
                let lane = placement.lane(t) as usize;
                let (i, r) = (lane / 8, lane % 8);
                if i >= matrices {
                    continue;
                }
                let (target, at) =
                    self.access(state, address, 16, t, Touch::Write)
                        .map_err(|kind| Trap {
                            statement,
                            thread: t,
                            kind,
                        })?;
                let row: Vec<u16> = (0..8)
                    .map(|j| {
                        if transpose {
                            half(4 * j + r / 2, i, r % 2)
                        } else {
                            half(4 * r + j / 2, i, j % 2)
                        }
                    })
                    .collect();
                for (j, value) in row.iter().enumerate() {
                    write(state, target, at + 2 * j, 2, u64::from(*value));
                }
            }
        }
        Ok(())
    }

    /// A barrier step. The cluster barrier of a cluster of several CTAs
    /// ([`Self::cluster_barrier`]) involves every thread of the cluster;
    /// a CTA barrier (or the cluster barrier without a cluster) the
    /// executing threads of each CTA, each CTA's its own barrier
    /// ([`Self::cta_barrier`]).
    fn barrier_step(
        &self,
        state: &mut ClusterState,
        step: &Step,
        active: &[u32],
        barrier: Barrier,
        sources: &[Source],
        destinations: &[Destination],
    ) -> Run {
        let executing = self.executing(state, step, active)?;
        if executing.is_empty() {
            return Ok(());
        }
        if barrier.cluster && state.placement.clustered {
            return self.cluster_barrier(state, step, &executing);
        }
        let placement = state.placement;
        for cta in executing.chunk_by(|a, b| placement.rank(*a) == placement.rank(*b)) {
            self.cta_barrier(state, step, cta, barrier, (sources, destinations))?;
        }
        Ok(())
    }

    /// A CTA barrier that the threads `executing` of one CTA execute: every
    /// thread the barrier expects (all of the CTA, or `b` of them) must
    /// execute it here, in the same statement (the lockstep order makes
    /// "reaches it before any passes it" exactly that); then the CTA's
    /// memory phase advances. Fewer threads would hang the GPU; a barrier
    /// the CTA's threads reach in different branches is undefined: both
    /// are faults. Other CTAs' threads are not involved (in a cluster,
    /// `if cluster_ctarank() == 0 { bar.sync }` is a barrier of CTA 0).
    fn cta_barrier(
        &self,
        state: &mut ClusterState,
        step: &Step,
        executing: &[u32],
        barrier: Barrier,
        (sources, destinations): (&[Source], &[Destination]),
    ) -> Run {
        let statement = Some(step.statement);
        let first = executing[0];
        let placement = state.placement;
        let cta_threads = placement.cta_threads as usize;
        let trap = |thread, message: String| Trap {
            statement,
            thread,
            kind: FaultKind::Barrier { message },
        };
        let mut values: Vec<Vec<Bits>> = Vec::with_capacity(executing.len());
        for &t in executing {
            let mut lanes = Vec::with_capacity(sources.len());
            for source in sources {
                lanes.push(self.read(state, source, t, statement)?);
            }
            values.push(lanes);
        }
        // The cluster barrier (here: of a kernel without a cluster) has no
        // number: barrier 0 stands for it.
        let id = if barrier.numbered { values[0][0] } else { 0 };
        if let Some(i) = values.iter().position(|v| barrier.numbered && v[0] != id) {
            return Err(trap(
                executing[i],
                format!(
                    "threads wait at different barriers ({id} and {}) in one statement",
                    values[i][0]
                ),
            ));
        }
        let expected = if barrier.count {
            let count = values[0][1];
            if let Some(i) = values.iter().position(|v| v[1] != count) {
                return Err(trap(
                    executing[i],
                    format!(
                        "threads give barrier {id} different thread counts ({count} and {})",
                        values[i][1]
                    ),
                ));
            }
            if !count.is_multiple_of(32) || count > cta_threads.next_multiple_of(32) as u64 {
                return Err(trap(
                    first,
                    format!(
                        "barrier {id}'s thread count {count} is not a multiple of 32 up to the block's size"
                    ),
                ));
            }
            count
        } else {
            cta_threads as u64
        };
        // Threads of a warp arrive together (the count is in whole warps).
        let arriving = if barrier.count {
            let mut warps: Vec<u32> = executing.iter().map(|t| placement.local(*t) / 32).collect();
            warps.dedup();
            32 * warps.len() as u64
        } else {
            executing.len() as u64
        };
        if arriving != expected {
            return Err(trap(
                first,
                format!(
                    "barrier {id} expects {expected} threads, but {arriving} reach it here (a barrier in divergent control flow, or a count that does not match)"
                ),
            ));
        }
        if let Some(reduction) = barrier.reduction {
            let c = sources.len() - 1;
            let count = values.iter().filter(|v| v[c] & 1 != 0).count() as u64;
            let result = match reduction {
                BarrierReduction::Popc => count,
                BarrierReduction::And => u64::from(count == executing.len() as u64),
                BarrierReduction::Or => u64::from(count > 0),
            };
            for &t in executing {
                for destination in destinations {
                    state.write(t, *destination, result);
                }
            }
        }
        for &t in executing {
            state.instructions += 1;
            state.clocks[t as usize] += 1;
        }
        let rank = placement.rank(first);
        state.ctas[rank].epoch += 1;
        if barrier.cluster {
            // A cluster of one CTA: its barrier is the cluster's.
            state.shared.cluster_barrier();
        } else {
            state.shared.cta_barrier(rank);
        }
        Ok(())
    }

    /// The cluster barrier's wait (`barrier.cluster.wait`, its arrival
    /// before it a fence) in a cluster of several CTAs: every thread of
    /// the cluster must execute it here, in the same statement, else a
    /// fault (on the GPU the cluster would hang, or the barrier is
    /// undefined); then it is every CTA's barrier, and every memory access
    /// of any thread of the cluster before it is ordered before every
    /// access after it (the arrival releases, the wait acquires).
    fn cluster_barrier(&self, state: &mut ClusterState, step: &Step, executing: &[u32]) -> Run {
        if executing.len() != state.threads {
            // The first thread of the cluster that does not execute it
            // (`executing` ascends).
            let absent = executing
                .iter()
                .zip(0..)
                .find(|(t, u)| **t != *u)
                .map_or(executing.len() as u32, |(_, u)| u);
            let ctas = state.ctas.len();
            return Err(Trap {
                statement: Some(step.statement),
                thread: executing[0],
                kind: FaultKind::Barrier {
                    message: format!(
                        "the cluster barrier (`barrier.cluster.wait`) expects all {} threads of the cluster's {ctas} CTAs, but {} reach it here, {} not among them (a cluster barrier in divergent control flow, or one some CTA of the cluster does not reach)",
                        state.threads,
                        executing.len(),
                        self.thread_id(state, absent),
                    ),
                },
            });
        }
        for &t in executing {
            state.instructions += 1;
            state.clocks[t as usize] += 1;
        }
        for cta in &mut state.ctas {
            cta.epoch += 1;
        }
        state.cluster_barriers += 1;
        state.unordered_remote = None;
        state.shared.cluster_barrier();
        Ok(())
    }

    fn step(&self, state: &mut ClusterState, step: &Step, active: &[u32]) -> Run {
        let statement = Some(step.statement);
        state.statement = step.statement;
        self.charge(state, active, statement)?;
        if let Action::Collective {
            collective,
            sources,
            destinations,
        } = &step.action
        {
            return self.collective_step(state, step, active, collective, sources, destinations);
        }
        if let Action::Barrier {
            barrier,
            sources,
            destinations,
        } = &step.action
        {
            return self.barrier_step(state, step, active, *barrier, sources, destinations);
        }
        if let Action::MatrixLoad {
            address,
            transpose,
            destinations,
        } = &step.action
        {
            return self.matrix_load_step(state, step, active, address, *transpose, destinations);
        }
        if let Action::MatrixStore {
            address,
            transpose,
            sources,
        } = &step.action
        {
            return self.matrix_store_step(state, step, active, address, *transpose, sources);
        }
        if let Action::WarpgroupMma { .. } = &step.action {
            return self.warpgroup_mma_step(state, step, active);
        }
        // What each thread did before its arrival is in an earlier epoch
        // of the shared-memory shadows than what it does after.
        if let Action::Mbarrier {
            op: MbarrierAction::Arrive { .. } | MbarrierAction::CopyArrive { noinc: true },
            ..
        } = &step.action
        {
            state.shared.begin_arrivals();
        }
        for &t in active {
            if !self.test(state, &step.guard, t, statement)? {
                continue;
            }
            state.instructions += 1;
            state.clocks[t as usize] += 1;
            let trap = |kind| Trap {
                statement,
                thread: t,
                kind,
            };
            match &step.action {
                Action::Compute {
                    compute,
                    sources,
                    destinations,
                } => {
                    // A pure instruction on an undefined input computes
                    // an undefined result (PTX registers hold some bits):
                    // only an effect that observes it is a fault.
                    if sources.iter().any(|source| !state.is_defined(source, t)) {
                        for destination in destinations {
                            state.undefine(t, *destination);
                        }
                        continue;
                    }
                    let mut inputs = std::mem::take(&mut state.inputs);
                    let mut outputs = std::mem::take(&mut state.outputs);
                    inputs.clear();
                    for source in sources {
                        inputs.push(self.read(state, source, t, statement)?);
                    }
                    outputs.clear();
                    outputs.resize(destinations.len(), 0);
                    compute.run(&inputs, &mut outputs);
                    for (destination, value) in destinations.iter().zip(&outputs) {
                        state.write(t, *destination, *value);
                    }
                    state.inputs = inputs;
                    state.outputs = outputs;
                }
                Action::Load {
                    address,
                    element_bytes,
                    signed,
                    destinations,
                } => {
                    let size = element_bytes * destinations.len();
                    let (target, at) = self
                        .access(state, address, size, t, Touch::Read)
                        .map_err(trap)?;
                    for (i, destination) in destinations.iter().enumerate() {
                        let mut value = read(state, target, at + i * element_bytes, *element_bytes);
                        if *signed && *element_bytes < 8 {
                            let shift = 64 - 8 * element_bytes;
                            value = (((value << shift) as i64) >> shift) as u64;
                        }
                        state.write(t, *destination, value);
                    }
                }
                Action::Store {
                    address,
                    element_bytes,
                    sources,
                } => {
                    let size = element_bytes * sources.len();
                    let mut values = std::mem::take(&mut state.inputs);
                    values.clear();
                    for source in sources {
                        values.push(self.read(state, source, t, statement)?);
                    }
                    let (target, at) = self
                        .access(state, address, size, t, Touch::Write)
                        .map_err(trap)?;
                    for (i, value) in values.iter().enumerate() {
                        write(
                            state,
                            target,
                            at + i * element_bytes,
                            *element_bytes,
                            *value,
                        );
                    }
                    state.inputs = values;
                }
                Action::Atomic {
                    address,
                    update,
                    operands,
                    destinations,
                } => {
                    let element_bytes = update.bits / 8;
                    let size = element_bytes * operands.len();
                    let mut values: Vec<Vec<Bits>> = Vec::with_capacity(operands.len());
                    for element in operands {
                        let mut lanes = Vec::with_capacity(element.len());
                        for source in element {
                            lanes.push(self.read(state, source, t, statement)?);
                        }
                        values.push(lanes);
                    }
                    let (target, at) = self
                        .access(state, address, size, t, Touch::Atomic)
                        .map_err(trap)?;
                    let mut olds = Vec::with_capacity(values.len());
                    for (e, lanes) in values.iter().enumerate() {
                        let byte = at + e * element_bytes;
                        let old = match target {
                            MemoryRef::Tensor(memory, param) => {
                                self.update_tensor(memory, param, byte, update, lanes)
                            }
                            // The cluster's threads run on this host thread
                            // alone: nothing interleaves.
                            MemoryRef::Shared { cta, buffer } => {
                                let old = state.shared.read(cta, buffer, byte, element_bytes);
                                let new = mask(update.apply(old, lanes), update.bits);
                                state.shared.write(cta, buffer, byte, element_bytes, new);
                                old
                            }
                        };
                        olds.push(old);
                    }
                    for (destination, old) in destinations.iter().zip(olds) {
                        state.write(t, *destination, old);
                    }
                }
                Action::AsyncCopy {
                    dst,
                    src,
                    bytes,
                    src_bytes,
                } => {
                    let read = match src_bytes {
                        Some(source) => self.read(state, source, t, statement)? as usize,
                        None => *bytes,
                    };
                    self.issue_copy(state, (dst, src, *bytes), read, t, step.statement)
                        .map_err(trap)?
                }
                Action::BulkCopy {
                    dst,
                    src,
                    size,
                    barrier,
                } => {
                    let bytes = self.read(state, size, t, statement)? as usize;
                    self.issue_bulk_copy(state, (dst, src, bytes), barrier, t, step.statement)
                        .map_err(trap)?
                }
                Action::TensorCopy {
                    dst,
                    param,
                    element,
                    dims,
                    box_dims,
                    coords,
                    barrier,
                    multicast,
                } => self
                    .issue_tensor_copy(
                        state,
                        (dst, *param, *element),
                        (dims, box_dims, coords),
                        (barrier, multicast.as_ref()),
                        t,
                        step.statement,
                    )
                    .map_err(trap)?,
                Action::AsyncCommit => {
                    let copies = &mut state.copies[t as usize];
                    let group = std::mem::take(&mut copies.uncommitted);
                    copies.groups.push_back(group);
                    copies.closed += 1;
                }
                Action::AsyncWait { pending } => self.retire(state, *pending, t).map_err(trap)?,
                Action::BulkStore {
                    dst,
                    src,
                    size,
                    reduce,
                } => {
                    let bytes = self.read(state, size, t, statement)? as usize;
                    self.issue_bulk_store(
                        state,
                        (dst, src, bytes),
                        reduce.as_deref(),
                        t,
                        step.statement,
                    )
                    .map_err(trap)?
                }
                Action::TensorStore {
                    src,
                    param,
                    element,
                    dims,
                    box_dims,
                    coords,
                } => self
                    .issue_tensor_store(
                        state,
                        (src, *param, *element),
                        (dims, box_dims, coords),
                        t,
                        step.statement,
                    )
                    .map_err(trap)?,
                Action::BulkCommit => {
                    let copies = &mut state.copies[t as usize];
                    let group = std::mem::take(&mut copies.stores);
                    copies.bulk_groups.push_back(group);
                }
                Action::BulkWait { pending, read } => self
                    .retire_stores(state, *pending, *read, t)
                    .map_err(trap)?,
                Action::Mbarrier { address, op } => {
                    self.mbarrier(state, address, op, t).map_err(trap)?
                }
                Action::Nothing
                | Action::Collective { .. }
                | Action::MatrixLoad { .. }
                | Action::WarpgroupMma { .. }
                | Action::MatrixStore { .. }
                | Action::Barrier { .. } => {}
            }
        }
        Ok(())
    }

    /// Checks and records an access of `size` bytes; returns where it
    /// goes and its start byte.
    fn access(
        &self,
        state: &mut ClusterState,
        address: &Address,
        size: usize,
        t: u32,
        touch: Touch,
    ) -> Result<(MemoryRef<'_>, usize), FaultKind> {
        self.access_aligned(state, address, size, size, t, touch)
    }

    /// [`Self::access`] of `size` bytes aligned to `align` (the part of a
    /// copy's source that `src-size` reads: the copy's alignment).
    fn access_aligned(
        &self,
        state: &mut ClusterState,
        address: &Address,
        size: usize,
        align: usize,
        t: u32,
        touch: Touch,
    ) -> Result<(MemoryRef<'_>, usize), FaultKind> {
        if let Region::Shared(buffer) = address.region {
            // Shared memory is the cluster's: threads by their cluster
            // index, the copy of the thread's CTA or the one its address
            // names.
            let atoms = state.atoms_of(t);
            let offset = address.offset.eval(atoms);
            let own = state.placement.rank(t);
            let cta = match &address.cta {
                None => own,
                Some(rank) => self.remote_cta(state, buffer, rank.eval(atoms))?,
            };
            let at = state
                .shared
                .access_in(cta, buffer, offset, size, u64::from(t), touch)
                .map_err(|fault| self.shared_fault(state, fault))?;
            if cta != own {
                self.remote_lifetime(state, buffer, cta, t)?;
            }
            return Ok((MemoryRef::Shared { cta, buffer }, at));
        }
        let (param, at) = self.tensor_range(state, address, size, align, t, touch)?;
        let Some(memory) = self.memories[param].as_ref() else {
            return Err(FaultKind::Arguments(format!(
                "`{}` is not a tensor",
                self.names[param]
            )));
        };
        self.touch_tensor(state, memory, param, at..at + size, t, touch)?;
        Ok((MemoryRef::Tensor(memory, param), at))
    }

    /// The CTA whose copy of shared buffer `buffer` an address with the
    /// cluster rank `rank` (`buf.in_cta(rank)`) names: a fault unless the
    /// kernel declares a cluster and `0 <= rank <` its CTAs.
    fn remote_cta(
        &self,
        state: &ClusterState,
        buffer: usize,
        rank: i64,
    ) -> Result<usize, FaultKind> {
        let ctas = state.ctas.len();
        match usize::try_from(rank) {
            Ok(cta) if cta < ctas && state.placement.clustered => Ok(cta),
            _ => Err(FaultKind::ClusterRank {
                buffer: self.plan.shared[buffer].name.clone(),
                rank,
                cluster: ctas as u32,
            }),
        }
    }

    /// Thread `t` accessed the copy of shared buffer `buffer` of another
    /// CTA (of rank `rank`), which exists only while that CTA runs: a
    /// cluster barrier must come before the access (every CTA of the
    /// cluster has started) and after it (no CTA exits before it), else a
    /// fault (the later one at the cluster's end).
    fn remote_lifetime(
        &self,
        state: &mut ClusterState,
        buffer: usize,
        rank: usize,
        t: u32,
    ) -> Result<(), FaultKind> {
        if state.cluster_barriers == 0 {
            return Err(FaultKind::RemoteSharedLifetime {
                buffer: self.plan.shared[buffer].name.clone(),
                rank: rank as u32,
                before_first_barrier: true,
            });
        }
        state.unordered_remote.get_or_insert(RemoteAccess {
            statement: state.statement,
            thread: t,
            buffer,
            rank,
        });
        Ok(())
    }

    /// The tensor and start byte of `size` bytes at `address` (a tensor)
    /// for thread `t`, checked for a `touch` (not recorded): the tensor is
    /// written by the kernel if `touch` writes, the bytes are in bounds and
    /// aligned to `align`.
    fn tensor_range(
        &self,
        state: &ClusterState,
        address: &Address,
        size: usize,
        align: usize,
        t: u32,
        touch: Touch,
    ) -> Result<(usize, usize), FaultKind> {
        let Region::Tensor(param) = address.region else {
            return Err(FaultKind::Arguments(
                "a shared buffer where a tensor belongs".into(),
            ));
        };
        let offset = address.offset.eval(state.atoms_of(t));
        let name = &self.names[param];
        let Some(memory) = self.memories[param].as_ref() else {
            return Err(FaultKind::Arguments(format!("`{name}` is not a tensor")));
        };
        if touch != Touch::Read && !memory.written {
            return Err(FaultKind::ReadOnlyWrite {
                param: name.clone(),
            });
        }
        let in_bounds = offset >= 0 && (offset as u128) + (size as u128) <= memory.len() as u128;
        if !in_bounds {
            return Err(FaultKind::OutOfBounds {
                param: name.clone(),
                offset: i128::from(offset),
                bytes: size,
                len: memory.len(),
            });
        }
        if align > 0 && !(offset as usize).is_multiple_of(align) {
            return Err(FaultKind::Misaligned {
                param: name.clone(),
                offset: i128::from(offset),
                bytes: align,
            });
        }
        Ok((param, offset as usize))
    }

    /// Records thread `t`'s `touch` of the `bytes` of tensor `param`
    /// (`memory`) in its race shadow, as its global thread index, in its
    /// CTA's current barrier phase: a race is a fault.
    fn touch_tensor(
        &self,
        state: &ClusterState,
        memory: &TensorMemory<'_>,
        param: usize,
        bytes: Range<usize>,
        t: u32,
        touch: Touch,
    ) -> Result<(), FaultKind> {
        let placement = state.placement;
        let rank = placement.rank(t);
        let cta = &state.ctas[rank];
        let thread = cta.first_thread + u64::from(placement.local(t));
        memory
            .touch(bytes.start, bytes.len(), thread, cta.epoch, touch)
            .map_err(|RaceAt { byte, other }| FaultKind::Race {
                param: self.names[param].clone(),
                offset: byte,
                other: (other != u64::MAX).then(|| self.global_thread(other)),
            })
    }

    fn source(&self, state: &ClusterState, source: &Source, t: u32) -> Result<Bits, FaultKind> {
        Ok(match *source {
            Source::Register {
                offset,
                bytes,
                tile,
                element,
            } => {
                let at = t as usize * state.frame + offset;
                if state.defined[at..at + bytes].iter().any(|d| !d) {
                    return Err(FaultKind::UndefinedRegister {
                        tile: self.tile_names[tile].clone(),
                        element,
                    });
                }
                let mut value = 0u64;
                for (i, byte) in state.registers[at..at + bytes].iter().enumerate() {
                    value |= u64::from(*byte) << (8 * i);
                }
                value
            }
            Source::Value(value) => value,
            Source::Param { param, bits } => mask(self.scalars[param], bits),
            Source::Special(special) => self.special(state, special, t),
            Source::Index { ref value, bits } => mask(value.eval(state.atoms_of(t)) as u64, bits),
            Source::CopiedBytes {
                ref in_bounds,
                ref remaining,
                size,
            } => {
                if self
                    .test(state, in_bounds, t, None)
                    .map_err(|trap| trap.kind)?
                {
                    (remaining.eval(state.atoms_of(t)).max(0) as u64).min(size)
                } else {
                    0
                }
            }
        })
    }

    fn special(&self, state: &ClusterState, special: Special, u: u32) -> Bits {
        let t = state.placement.local(u);
        let tid = coordinates(u64::from(t), self.block);
        let lane = t % 32;
        let below = (1u32 << lane) - 1;
        match special {
            Special::Tid(axis) => u64::from(tid[axis]),
            Special::Ntid(axis) => u64::from(self.block[axis]),
            Special::Ctaid(axis) => u64::from(state.ctas[state.placement.rank(u)].id[axis]),
            Special::Nctaid(axis) => u64::from(self.grid[axis]),
            Special::LaneId => u64::from(lane),
            Special::WarpId => u64::from(t / 32),
            // The warp slots of one H100/H200 SM.
            Special::NWarpId => 64,
            Special::SmId => u64::from(state.worker),
            Special::NSmId => u64::from(self.workers),
            Special::LaneMaskEq => u64::from(1u32 << lane),
            Special::LaneMaskLt => u64::from(below),
            Special::LaneMaskLe => u64::from(below | (1 << lane)),
            Special::LaneMaskGe => u64::from(!below),
            Special::LaneMaskGt => u64::from(!(below | (1 << lane))),
            Special::Clock => state.clocks[u as usize] & 0xffff_ffff,
            Special::Clock64 => state.clocks[u as usize],
            Special::GlobalTimer => self.timer_base + self.started.elapsed().as_nanos() as u64,
            Special::GridId => self.launch_id,
            // Static shared memory, then the dynamic from the next 16-byte
            // boundary, in the allocation unit of sm_8x/9x (128 bytes), as
            // measured on the H200.
            Special::TotalSmemSize => (self.plan.static_shared_bytes.next_multiple_of(16)
                + self.dynamic_shared_bytes)
                .next_multiple_of(128) as u64,
            Special::DynamicSmemSize => self.dynamic_shared_bytes as u64,
        }
    }
}

impl ClusterState {
    #[inline]
    fn atoms_of(&self, t: u32) -> &[i64] {
        let start = t as usize * self.atom_count;
        &self.atoms[start..start + self.atom_count]
    }

    #[inline]
    fn atoms_of_mut(&mut self, t: u32) -> &mut [i64] {
        let start = t as usize * self.atom_count;
        &mut self.atoms[start..start + self.atom_count]
    }

    #[inline]
    fn write(&mut self, t: u32, destination: Destination, value: Bits) {
        let at = t as usize * self.frame + destination.offset;
        for i in 0..destination.bytes {
            self.registers[at + i] = (value >> (8 * i)) as u8;
            self.defined[at + i] = true;
        }
    }

    /// The destination holds no value of this thread's any more (a pure
    /// instruction computed it from an undefined input).
    fn undefine(&mut self, t: u32, destination: Destination) {
        let at = t as usize * self.frame + destination.offset;
        self.defined[at..at + destination.bytes].fill(false);
    }

    /// Whether every byte `source` reads holds a value of thread `t`.
    fn is_defined(&self, source: &Source, t: u32) -> bool {
        match *source {
            Source::Register { offset, bytes, .. } => {
                let at = t as usize * self.frame + offset;
                self.defined[at..at + bytes].iter().all(|d| *d)
            }
            Source::Value(_)
            | Source::Param { .. }
            | Source::Special(_)
            | Source::Index { .. }
            | Source::CopiedBytes { .. } => true,
        }
    }
}

/// Fails unless `warp` (the executing threads of one warp) is all 32
/// lanes, as the `.aligned` matrix moves (`name`) need.
fn whole_warp(placement: Placement, warp: &[u32], name: &str, statement: Option<usize>) -> Run {
    if warp.len() == 32 {
        return Ok(());
    }
    let absent: Vec<String> = (0..32)
        .filter(|lane| !warp.iter().any(|t| placement.lane(*t) == *lane))
        .map(|lane| lane.to_string())
        .collect();
    Err(Trap {
        statement,
        thread: warp[0],
        kind: FaultKind::Collective {
            message: format!(
                "{name}: lanes {} of the warp do not execute it: `.aligned` needs all 32 lanes \
                 (undefined behaviour)",
                absent.join(", ")
            ),
        },
    })
}

/// `size` bytes at `at` of a checked access's memory.
#[inline]
fn read(state: &ClusterState, target: MemoryRef<'_>, at: usize, size: usize) -> Bits {
    match target {
        MemoryRef::Tensor(memory, _) => memory.read(at, size),
        MemoryRef::Shared { cta, buffer } => state.shared.read(cta, buffer, at, size),
    }
}

/// Writes the low `size` bytes of `value` at `at` of a checked access's
/// memory.
#[inline]
fn write(state: &mut ClusterState, target: MemoryRef<'_>, at: usize, size: usize, value: Bits) {
    match target {
        MemoryRef::Tensor(memory, _) => memory.write(at, size, value),
        MemoryRef::Shared { cta, buffer } => state.shared.write(cta, buffer, at, size, value),
    }
}

/// A dim's extent for the symbols' kernel values (`None` on overflow or
/// a missing symbol).
fn dim_value(dim: DimSpec, symbols: &[i64]) -> Option<i64> {
    match dim {
        DimSpec::Const(extent) => i64::try_from(extent).ok(),
        DimSpec::Symbolic {
            symbol,
            mul,
            div,
            add,
        } => symbols
            .get(usize::from(symbol))?
            .checked_mul(i64::try_from(mul).ok()?)?
            .checked_div(i64::try_from(div).ok()?)?
            .checked_add(i64::try_from(add).ok()?),
    }
}

/// An integer scalar parameter widened to 64 bits as the emitter's
/// `cvt.s64.<type>` does.
fn extend(bits: u64, dtype: DType) -> i64 {
    match dtype {
        DType::U8 => i64::from(bits as u8),
        DType::U16 => i64::from(bits as u16),
        DType::U32 => i64::from(bits as u32),
        DType::I8 => i64::from(bits as i8),
        DType::I16 => i64::from(bits as i16),
        _ => i64::from(bits as i32),
    }
}

/// A computed atom's value, as the emitter's 64-bit instructions compute it;
/// `None` for a division by zero.
fn computed(op: ComputedOp, a: i64, b: i64) -> Option<i64> {
    Some(match op {
        ComputedOp::Div => a.checked_div(b).or((b == -1).then(|| a.wrapping_neg()))?,
        ComputedOp::Rem => a.checked_rem(b).or((b == -1).then_some(0))?,
        ComputedOp::CeilDiv => {
            let numerator = a.wrapping_add(b).wrapping_sub(1);
            numerator
                .checked_div(b)
                .or((b == -1).then(|| numerator.wrapping_neg()))?
        }
        ComputedOp::Min => a.min(b),
        ComputedOp::Max => a.max(b),
        ComputedOp::And => a & b,
        ComputedOp::Or => a | b,
        ComputedOp::Xor => a ^ b,
        ComputedOp::Shl => {
            let amount = b as u32;
            if amount >= 64 {
                0
            } else {
                ((a as u64) << amount) as i64
            }
        }
        ComputedOp::Shr => {
            let amount = b as u32;
            if amount >= 64 {
                0
            } else {
                ((a as u64) >> amount) as i64
            }
        }
    })
}

#[cfg(test)]
mod tests {
    //! mbarriers and the copies they track, and bulk stores and their
    //! groups, on hand-built plans of one block of 4 threads: tensor `x`
    //! (4 words, read), tensor `y` (4 words, written; 64 bytes for the
    //! bulk stores), shared `s` (4 words; 64 bytes for the bulk stores),
    //! mbarrier buffer `bar` (1 object), one 4-byte register `r` per
    //! thread.

    use std::sync::atomic::{AtomicU8, Ordering};

    use super::*;
    use crate::memory::AtomicLocks;
    use crate::prepare::{Frame, Linear};

    const X: usize = 0;
    const Y: usize = 1;
    const S: usize = 0;
    const BAR: usize = 1;

    /// `region + constant + per_thread * tid.x` bytes.
    fn at(region: Region, constant: i64, per_thread: i64) -> Address {
        Address {
            region,
            offset: Linear {
                constant,
                terms: vec![(per_thread, vec![0])],
            },
            cta: None,
        }
    }

    /// The thread's own word of `s`.
    fn own() -> Address {
        at(Region::Shared(S), 0, 4)
    }

    /// The word of `s` of thread `3 - t`.
    fn mirrored() -> Address {
        at(Region::Shared(S), 12, -4)
    }

    fn object() -> Address {
        at(Region::Shared(BAR), 0, 0)
    }

    fn register() -> Destination {
        Destination {
            offset: 0,
            bytes: 4,
        }
    }

    /// A step every thread runs.
    fn all(action: Action) -> (Test, Action) {
        (Test::Const(true), action)
    }

    /// A step only thread 0 runs.
    fn first(action: Action) -> (Test, Action) {
        let tid = Linear {
            constant: 0,
            terms: vec![(1, vec![0])],
        };
        (Test::Cmp(CmpOp::Eq, tid), action)
    }

    fn mbarrier(op: MbarrierAction) -> Action {
        Action::Mbarrier {
            address: object(),
            op,
        }
    }

    fn init(count: u64) -> Action {
        mbarrier(MbarrierAction::Init {
            count: Source::Value(count),
        })
    }

    fn wait(parity: u64) -> Action {
        mbarrier(MbarrierAction::WaitParity {
            parity: Source::Value(parity),
            acquire: true,
            cluster_scope: false,
        })
    }

    fn arrive() -> Action {
        mbarrier(MbarrierAction::Arrive {
            state: None,
            release: true,
            expect_tx: None,
            cluster_scope: false,
        })
    }

    fn copy_arrive(noinc: bool) -> Action {
        mbarrier(MbarrierAction::CopyArrive { noinc })
    }

    fn bar_sync() -> Action {
        Action::Barrier {
            barrier: Barrier {
                numbered: true,
                cluster: false,
                count: false,
                reduction: None,
            },
            sources: vec![Source::Value(0)],
            destinations: Vec::new(),
        }
    }

    /// `cp.async` of the thread's word of `x` into its word of `s`.
    fn copy() -> Action {
        Action::AsyncCopy {
            dst: own(),
            src: at(Region::Tensor(X), 0, 4),
            bytes: 4,
            src_bytes: None,
        }
    }

    /// `r = s[3 - t]; y[t] = r`.
    fn gather() -> [(Test, Action); 2] {
        [
            all(Action::Load {
                address: mirrored(),
                element_bytes: 4,
                signed: false,
                destinations: vec![register()],
            }),
            all(Action::Store {
                address: at(Region::Tensor(Y), 0, 4),
                element_bytes: 4,
                sources: vec![Source::Register {
                    offset: 0,
                    bytes: 4,
                    tile: 0,
                    element: 0,
                }],
            }),
        ]
    }

    /// Where a fault happened (statement number, counted from 1) and what.
    type Failed = (Option<usize>, u32, FaultKind);

    /// Runs the steps (statement `i + 1` each) on `x = [10, 11, 12, 13]`;
    /// `y` after the block.
    fn run(steps: Vec<(Test, Action)>) -> Result<Vec<u32>, Failed> {
        let y = run_sized(steps, 16, vec![0; 16])?;
        Ok(y.chunks(4)
            .map(|c| u32::from_le_bytes(std::array::from_fn(|i| c[i])))
            .collect())
    }

    /// [`run`] with `s` of `s_bytes` bytes and `y` of the bytes `y` (its
    /// bytes after the block).
    ///
    /// The steps also run in a cluster of two such blocks, each with its
    /// part of a `y` twice as long (every address of `y` moved by the
    /// block's part): each block must do what the one block does (its
    /// copies, mbarriers, stores and faults are its own), and the first
    /// block fault as it does (its threads come first in the lockstep
    /// order).
    fn run_sized(
        steps: Vec<(Test, Action)>,
        s_bytes: usize,
        y: Vec<u8>,
    ) -> Result<Vec<u8>, Failed> {
        let single = run_in_cluster(steps.clone(), s_bytes, y.clone(), 1);
        let y_bytes = y.len() as i64;
        let steps = steps
            .into_iter()
            .map(|(guard, mut action)| {
                move_y(&mut action, y_bytes);
                (guard, action)
            })
            .collect();
        let cluster = run_in_cluster(steps, s_bytes, y.repeat(2), 2);
        let expected = match &single {
            Ok(y) => Ok(y.repeat(2)),
            // Past the end of its part of `y`, a block reaches the next
            // block's part.
            Err((_, _, FaultKind::OutOfBounds { .. })) => return single,
            Err(failed) => Err(failed.clone()),
        };
        assert_eq!(cluster, expected, "in a cluster of two blocks");
        single
    }

    /// The action with its addresses of `y` moved by `y_bytes` times the
    /// block's `%ctaid.x` (atom 1). Tensor stores, whose coordinates
    /// address `y`, are not moved.
    fn move_y(action: &mut Action, y_bytes: i64) {
        let address = match action {
            Action::Load { address, .. }
            | Action::Store { address, .. }
            | Action::Atomic { address, .. } => address,
            Action::BulkStore { dst, .. } => dst,
            _ => return,
        };
        if address.region == Region::Tensor(Y) {
            address.offset.terms.push((y_bytes, vec![1]));
        }
    }

    /// Runs the steps (statement `i + 1` each) on `x = [10, 11, 12, 13]`
    /// in one cluster of `ctas` blocks of 4 threads along x (atoms:
    /// `%tid.x`, `%ctaid.x`, `%cluster_ctarank`); `y` after the run.
    fn run_in_cluster(
        steps: Vec<(Test, Action)>,
        s_bytes: usize,
        y: Vec<u8>,
        ctas: u32,
    ) -> Result<Vec<u8>, Failed> {
        let x: Vec<AtomicU8> = [10u32, 11, 12, 13]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .map(AtomicU8::new)
            .collect();
        let y: Vec<AtomicU8> = y.into_iter().map(AtomicU8::new).collect();
        let layout = |name: &str, mbarrier| SharedLayout {
            name: name.into(),
            bytes: if mbarrier { 8 } else { s_bytes },
            mbarrier,
        };
        let shared = vec![layout("s", false), layout("bar", true)];
        let static_shared_bytes = s_bytes.next_multiple_of(16) + 8;
        run_cluster_plan(steps, (shared, static_shared_bytes), ctas, (&x, &y), 10_000)?;
        Ok(y.iter().map(|b| b.load(Ordering::Relaxed)).collect())
    }

    /// Runs the steps (statement `i + 1` each) in one cluster of `ctas`
    /// blocks of 4 threads along x (atoms: `%tid.x`, `%ctaid.x`,
    /// `%cluster_ctarank`) with the shared buffers `shared` (and their
    /// static bytes), tensors `x` (read) and `y` (written) of 4-byte
    /// elements, within `work_limit` steps.
    fn run_cluster_plan(
        steps: Vec<(Test, Action)>,
        (shared, static_shared_bytes): (Vec<SharedLayout>, usize),
        ctas: u32,
        (x, y): (&[AtomicU8], &[AtomicU8]),
        work_limit: u64,
    ) -> Result<(), Failed> {
        let statements = (0..steps.len())
            .map(|i| (i + 1, format!("op{}", i + 1)))
            .collect();
        let steps = steps
            .into_iter()
            .enumerate()
            .map(|(statement, (guard, action))| Step {
                statement,
                guard,
                action,
            })
            .collect();
        let plan = Plan {
            frame: Frame {
                offsets: vec![0],
                bytes: 4,
            },
            atoms: vec![
                AtomSource::ThreadId(0),
                AtomSource::CtaId(0),
                AtomSource::ClusterCtaId {
                    axis: 0,
                    cluster: ctas,
                },
            ],
            body: vec![Block::Steps(steps)],
            statements,
            shared,
            static_shared_bytes,
        };
        let names = ["x".to_string(), "y".to_string()];
        let tile_names = ["r".to_string()];
        let launch = GridRun {
            plan: &plan,
            shared: plan.shared.clone(),
            dynamic_shared_bytes: 0,
            names: &names,
            tile_names: &tile_names,
            grid: [ctas, 1, 1],
            block: [4, 1, 1],
            cluster: [ctas, 1, 1],
            memories: vec![
                TensorMemory::new(x, false, 4),
                TensorMemory::new(y, true, 4),
            ],
            scalars: vec![0, 0],
            symbols: Vec::new(),
            locks: AtomicLocks::new(),
            workers: 1,
            launch_id: 1,
            work_limit: Some(work_limit),
            started: Instant::now(),
            timer_base: 0,
        };
        let mut state =
            ClusterState::new(&launch).unwrap_or_else(|kind| panic!("cluster state: {kind:?}"));
        launch.run_cluster(&mut state, 0, 0).map_err(|trap| {
            let number = trap.statement.map(|s| plan.statements[s].0);
            (number, trap.thread, trap.kind)
        })
    }

    /// Thread 0 initializes `bar` to expect `count` arrivals; a barrier.
    fn setup(count: u64) -> Vec<(Test, Action)> {
        vec![first(init(count)), all(bar_sync())]
    }

    const MIRRORED: [u32; 4] = [13, 12, 11, 10];

    #[test]
    fn copies_land_when_the_phase_tracking_them_completes() {
        // Each thread's copy arrival is one of the 4 expected (`.noinc`).
        let mut steps = setup(4);
        steps.extend([all(copy()), all(copy_arrive(true)), all(wait(0))]);
        steps.extend(gather());
        assert_eq!(run(steps), Ok(MIRRORED.to_vec()));
        // Without `.noinc` the copies add no arrival: the threads arrive
        // themselves.
        let mut steps = setup(4);
        steps.extend([
            all(copy()),
            all(copy_arrive(false)),
            all(arrive()),
            all(wait(0)),
        ]);
        steps.extend(gather());
        assert_eq!(run(steps), Ok(MIRRORED.to_vec()));
    }

    #[test]
    fn a_wait_for_a_phase_nothing_completes_is_a_fault() {
        let mut steps = setup(4);
        steps.extend([all(copy()), all(copy_arrive(false)), all(wait(0))]);
        steps.extend(gather());
        assert_eq!(
            run(steps),
            Err((
                Some(5),
                0,
                FaultKind::MbarrierWaitNeverCompletes {
                    buffer: "bar".into(),
                    index: 0,
                    parity: 0,
                    phases: 0,
                }
            ))
        );
    }

    #[test]
    fn landed_copies_are_seen_only_by_threads_that_observed_the_phase() {
        // Nobody waits: thread 0 reads thread 3's copy unobserved.
        let mut steps = setup(4);
        steps.extend([all(copy()), all(copy_arrive(true))]);
        steps.extend(gather());
        let unobserved = |offset| FaultKind::AsyncCopyUnobserved {
            buffer: "s".into(),
            offset,
            copy: 3,
            mbarrier: "bar".into(),
            index: 0,
            phase: 0,
        };
        assert_eq!(run(steps.clone()), Err((Some(5), 0, unobserved(12))));
        // A barrier without an observer lifts nothing.
        steps.insert(4, all(bar_sync()));
        assert_eq!(run(steps.clone()), Err((Some(6), 0, unobserved(12))));
        // Thread 0 observes the phase before the barrier: all may read.
        steps.insert(4, first(wait(0)));
        assert_eq!(run(steps), Ok(MIRRORED.to_vec()));
    }

    #[test]
    fn a_copy_its_thread_waits_for_lands_then_and_leaves_the_phase() {
        // Count 5: the copies' arrivals leave one; the threads' waits land
        // their copies as their own writes, then thread 0 completes the
        // phase (tracking no copy any more).
        let mut steps = setup(5);
        steps.extend([
            all(copy()),
            all(copy_arrive(true)),
            all(Action::AsyncWait { pending: None }),
            first(arrive()),
            all(wait(0)),
        ]);
        steps.extend(gather());
        // Observing the phase does not order another thread's own write.
        assert_eq!(
            run(steps.clone()),
            Err((
                Some(8),
                0,
                FaultKind::SharedRace {
                    buffer: "s".into(),
                    offset: 12,
                    other: Some(ThreadId {
                        cta: [0, 0, 0],
                        thread: [3, 0, 0],
                    }),
                }
            ))
        );
        // A barrier does.
        steps.insert(7, all(bar_sync()));
        assert_eq!(run(steps), Ok(MIRRORED.to_vec()));
    }

    #[test]
    fn a_landed_copy_needs_no_wait_of_its_thread() {
        // Committed in a group the thread never waits for: landed with the
        // phase, it is not left in flight at the end.
        let mut steps = setup(4);
        steps.extend([
            all(copy()),
            all(Action::AsyncCommit),
            all(copy_arrive(true)),
            all(wait(0)),
            all(Action::AsyncWait { pending: Some(0) }),
        ]);
        steps.extend(gather());
        assert_eq!(run(steps), Ok(MIRRORED.to_vec()));
        // A copy issued after the arrival is not tracked by it.
        let mut steps = setup(4);
        steps.extend([all(copy_arrive(true)), all(copy()), all(wait(0))]);
        assert_eq!(
            run(steps),
            Err((Some(4), 0, FaultKind::AsyncCopyNeverWaited { copy: 4 }))
        );
    }

    #[test]
    fn invalidating_an_mbarrier_that_tracks_copies_is_a_fault() {
        let mut steps = setup(5);
        steps.extend([all(copy()), all(copy_arrive(true)), all(bar_sync())]);
        steps.push(first(mbarrier(MbarrierAction::Inval)));
        assert_eq!(
            run(steps),
            Err((
                Some(6),
                0,
                FaultKind::MbarrierInvalidatedWithCopies {
                    buffer: "bar".into(),
                    index: 0,
                    copy: 3,
                }
            ))
        );
        // Retired first, the copies leave it.
        let mut steps = setup(5);
        steps.extend([
            all(copy()),
            all(copy_arrive(true)),
            all(Action::AsyncWait { pending: None }),
            all(bar_sync()),
            first(mbarrier(MbarrierAction::Inval)),
        ]);
        assert_eq!(run(steps), Ok(vec![0; 4]));
    }

    #[test]
    fn an_arrival_writes_its_phase_to_its_state() {
        let mut steps = setup(2);
        steps.extend([
            all(mbarrier(MbarrierAction::Arrive {
                state: Some(register()),
                release: true,
                expect_tx: None,
                cluster_scope: false,
            })),
            all(mbarrier(MbarrierAction::Arrive {
                state: Some(register()),
                release: true,
                expect_tx: None,
                cluster_scope: false,
            })),
        ]);
        steps.push(gather()[1].clone());
        // Two arrivals a phase: threads 0 and 1 complete phase 0, threads
        // 2 and 3 phase 1; their second arrivals phases 2 and 3.
        assert_eq!(run(steps), Ok(vec![2, 2, 3, 3]));
    }

    #[test]
    fn using_an_mbarrier_before_it_is_initialized_is_a_fault() {
        let steps = vec![all(arrive()), first(init(4))];
        assert_eq!(
            run(steps),
            Err((
                Some(1),
                0,
                FaultKind::MbarrierUninitialized {
                    buffer: "bar".into(),
                    index: 0,
                }
            ))
        );
        // Initialized without a barrier before the others arrive: a race.
        let steps = vec![first(init(4)), all(arrive())];
        assert_eq!(
            run(steps),
            Err((
                Some(2),
                1,
                FaultKind::SharedRace {
                    buffer: "bar".into(),
                    offset: 0,
                    other: Some(ThreadId {
                        cta: [0, 0, 0],
                        thread: [0, 0, 0],
                    }),
                }
            ))
        );
    }

    /// `s[t] = value`.
    fn store_own(value: u64) -> Action {
        Action::Store {
            address: own(),
            element_bytes: 4,
            sources: vec![Source::Value(value)],
        }
    }

    /// `r = s[t]`.
    fn load_own() -> Action {
        Action::Load {
            address: own(),
            element_bytes: 4,
            signed: false,
            destinations: vec![register()],
        }
    }

    /// A step threads 0 and 1 run.
    fn lower_half(action: Action) -> (Test, Action) {
        let below_two = Linear {
            constant: -2,
            terms: vec![(1, vec![0])],
        };
        (Test::Cmp(CmpOp::Lt, below_two), action)
    }

    /// Each thread writes its word of `s`; a barrier; each reads thread
    /// `3 - t`'s word, arrives on `bar` (`arrival`), waits for the phase
    /// (unless `waits` is false), writes its own word again (bytes another
    /// thread read) and stores what it read in `y`.
    fn read_arrive_refill(count: u64, arrival: (Test, Action), waits: bool) -> Vec<(Test, Action)> {
        let mut steps = setup(count);
        steps.extend([
            all(store_own(7)),
            all(bar_sync()),
            all(Action::Load {
                address: mirrored(),
                element_bytes: 4,
                signed: false,
                destinations: vec![register()],
            }),
            arrival,
        ]);
        if waits {
            steps.push(all(wait(0)));
        }
        steps.push(all(store_own(9)));
        steps.push(gather()[1].clone());
        steps
    }

    /// The race of thread 0's write of `s[0]` with thread 3's read of it.
    fn refill_race(statement: usize) -> Result<Vec<u32>, Failed> {
        Err((
            Some(statement),
            0,
            FaultKind::SharedRace {
                buffer: "s".into(),
                offset: 0,
                other: Some(ThreadId {
                    cta: [0, 0, 0],
                    thread: [3, 0, 0],
                }),
            },
        ))
    }

    #[test]
    fn a_wait_for_a_phase_every_thread_arrived_on_orders_their_reads() {
        assert_eq!(
            run(read_arrive_refill(4, all(arrive()), true)),
            Ok(vec![7; 4])
        );
        // `.noinc` copy arrivals complete the phase but release nothing:
        // PTX orders only the copies before them.
        assert_eq!(
            run(read_arrive_refill(4, all(copy_arrive(true)), true)),
            refill_race(8)
        );
        // Without the wait, the refill races with the reads.
        assert_eq!(
            run(read_arrive_refill(4, all(arrive()), false)),
            refill_race(7)
        );
    }

    #[test]
    fn a_phase_not_every_thread_released_orders_no_reads() {
        // Threads 0 and 1 arrive (the phase expects 2): threads 2 and 3
        // did not, their reads are not released.
        let steps = read_arrive_refill(2, lower_half(arrive()), true);
        assert_eq!(run(steps), refill_race(8));
        // Relaxed arrivals release nothing.
        let relaxed = mbarrier(MbarrierAction::Arrive {
            state: None,
            release: false,
            expect_tx: None,
            cluster_scope: false,
        });
        assert_eq!(
            run(read_arrive_refill(4, all(relaxed), true)),
            refill_race(8)
        );
    }

    #[test]
    fn the_issuers_own_wait_shows_it_a_copy_a_phase_landed() {
        // The copies' arrivals complete the phase: they land, gated.
        let mut steps = setup(4);
        steps.extend([
            all(copy()),
            all(copy_arrive(true)),
            all(Action::AsyncWait { pending: None }),
            all(load_own()),
            gather()[1].clone(),
        ]);
        assert_eq!(run(steps.clone()), Ok(vec![10, 11, 12, 13]));
        // Without the issuer's wait it has not seen the copy.
        let unobserved = |statement| {
            Err((
                Some(statement),
                0,
                FaultKind::AsyncCopyUnobserved {
                    buffer: "s".into(),
                    offset: 0,
                    copy: 3,
                    mbarrier: "bar".into(),
                    index: 0,
                    phase: 0,
                },
            ))
        };
        let mut without = steps.clone();
        without.remove(4);
        assert_eq!(run(without), unobserved(5));
        // A `wait_group` retires the copy's group only when the group is
        // older than the ones it leaves pending.
        let mut grouped = steps.clone();
        grouped[4] = all(Action::AsyncWait { pending: Some(1) });
        grouped.insert(3, all(Action::AsyncCommit));
        assert_eq!(run(grouped.clone()), unobserved(7));
        grouped[5] = all(Action::AsyncWait { pending: Some(0) });
        assert_eq!(run(grouped), Ok(vec![10, 11, 12, 13]));
        // Other threads need the phase, or a barrier after the wait.
        let mut others = steps;
        others.truncate(5);
        others.extend(gather());
        assert_eq!(
            run(others.clone()),
            Err((
                Some(6),
                0,
                FaultKind::AsyncCopyUnobserved {
                    buffer: "s".into(),
                    offset: 12,
                    copy: 3,
                    mbarrier: "bar".into(),
                    index: 0,
                    phase: 0,
                },
            ))
        );
        others.insert(5, all(bar_sync()));
        assert_eq!(run(others), Ok(MIRRORED.to_vec()));
    }

    // -------------------------------------------- clusters of two blocks

    /// The word of `s` at `offset` of the block of rank `rank` (a constant
    /// and a multiple of the thread's own rank, atom 2).
    fn in_cta(offset: i64, (constant, per_rank): (i64, i64)) -> Address {
        Address {
            cta: Some(Linear {
                constant,
                terms: vec![(per_rank, vec![2])],
            }),
            ..at(Region::Shared(S), offset, 0)
        }
    }

    /// A step only thread `t` of the block of rank `rank` runs.
    fn only(rank: i64, t: i64, action: Action) -> (Test, Action) {
        let is = |atom: tile_kernel_lowering::sym::AtomId, value: i64| {
            Box::new(Test::Cmp(
                CmpOp::Eq,
                Linear {
                    constant: -value,
                    terms: vec![(1, vec![atom])],
                },
            ))
        };
        (Test::And(is(2, rank), is(0, t)), action)
    }

    fn load_from(address: Address) -> Action {
        Action::Load {
            address,
            element_bytes: 4,
            signed: false,
            destinations: vec![register()],
        }
    }

    fn store_to(address: Address, value: u64) -> Action {
        Action::Store {
            address,
            element_bytes: 4,
            sources: vec![Source::Value(value)],
        }
    }

    fn cluster_wait() -> Action {
        Action::Barrier {
            barrier: Barrier {
                numbered: false,
                cluster: true,
                count: false,
                reduction: None,
            },
            sources: Vec::new(),
            destinations: Vec::new(),
        }
    }

    /// Runs the steps in a cluster of two blocks (`y` of 32 bytes),
    /// between two cluster barriers (statement 1 and the last: another
    /// block's shared memory exists only between them), so that the
    /// steps are statements `2..`.
    fn run_pair(steps: Vec<(Test, Action)>) -> Result<Vec<u8>, Failed> {
        let mut all_steps = vec![all(cluster_wait())];
        all_steps.extend(steps);
        all_steps.push(all(cluster_wait()));
        run_in_cluster(all_steps, 16, vec![0; 32], 2)
    }

    /// Thread `t` of the block of rank `rank`.
    fn of_cta(rank: u32, t: u32) -> Option<ThreadId> {
        Some(ThreadId {
            cta: [rank, 0, 0],
            thread: [t, 0, 0],
        })
    }

    #[test]
    fn a_remote_read_races_with_a_write_only_its_owners_barrier_ordered() {
        let steps = vec![
            only(1, 1, store_s(0, 7)),
            all(bar_sync()),
            // Ordered after the write for block 1's threads: the shadow
            // of block 1's accesses forgets the write...
            only(1, 2, load_from(at(Region::Shared(S), 0, 0))),
            // ...which block 0's thread still races with.
            only(0, 0, load_from(in_cta(0, (1, 0)))),
        ];
        let race = |statement| {
            Err((
                Some(statement),
                0,
                FaultKind::SharedRace {
                    buffer: "s".into(),
                    offset: 0,
                    other: of_cta(1, 1),
                },
            ))
        };
        assert_eq!(run_pair(steps.clone()), race(5));
        // The cluster barrier orders it.
        let mut ordered = steps;
        ordered.insert(3, all(cluster_wait()));
        assert_eq!(run_pair(ordered), Ok(vec![0; 32]));
    }

    #[test]
    fn remote_accesses_of_one_block_are_ordered_by_its_own_barrier() {
        let steps = vec![
            only(0, 0, store_to(in_cta(0, (1, 0)), 7)),
            all(bar_sync()),
            only(0, 1, load_from(in_cta(0, (1, 0)))),
        ];
        assert_eq!(run_pair(steps.clone()), Ok(vec![0; 32]));
        // Not by the target block's barrier: without block 0's, block 0's
        // threads race.
        let mut unordered = steps.clone();
        unordered[1] = only(1, 0, Action::Nothing);
        let mut racing = steps.clone();
        racing[1] = (
            Test::Cmp(
                CmpOp::Eq,
                Linear {
                    constant: -1,
                    terms: vec![(1, vec![2])],
                },
            ),
            bar_sync(),
        );
        for steps in [unordered, racing] {
            assert_eq!(
                run_pair(steps),
                Err((
                    Some(4),
                    1,
                    FaultKind::SharedRace {
                        buffer: "s".into(),
                        offset: 0,
                        other: of_cta(0, 0),
                    }
                ))
            );
        }
        // Block 1's own thread is not ordered after block 0's write.
        let mut owner = steps;
        owner.push(only(1, 3, load_from(at(Region::Shared(S), 0, 0))));
        assert_eq!(
            run_pair(owner),
            Err((
                Some(5),
                7,
                FaultKind::SharedRace {
                    buffer: "s".into(),
                    offset: 0,
                    other: of_cta(0, 0),
                }
            ))
        );
    }

    #[test]
    fn the_races_of_one_blocks_remote_accesses_name_a_racing_thread() {
        // Every thread writes its word; the cluster barrier; thread 0 of
        // block 0 reads block 1's word 0.
        let mut steps = vec![
            all(store_own(7)),
            all(cluster_wait()),
            only(0, 0, load_from(in_cta(0, (1, 0)))),
        ];
        let write = only(0, 1, store_to(in_cta(0, (1, 0)), 9));
        // Thread 1 of block 0 writes it: a race with thread 0's read.
        let mut same_block = steps.clone();
        same_block.push(write.clone());
        let race = |other| {
            Err((
                Some(5),
                1,
                FaultKind::SharedRace {
                    buffer: "s".into(),
                    offset: 0,
                    other,
                },
            ))
        };
        assert_eq!(run_pair(same_block), race(of_cta(0, 0)));
        // Block 1's thread 0 reads it between: the write races with both
        // reads, and the report names block 1's.
        steps.push(only(1, 0, load_own()));
        steps.push(write);
        let race = |other| {
            Err((
                Some(6),
                1,
                FaultKind::SharedRace {
                    buffer: "s".into(),
                    offset: 0,
                    other,
                },
            ))
        };
        assert_eq!(run_pair(steps), race(of_cta(1, 0)));
    }

    #[test]
    fn a_rank_past_the_cluster_or_negative_is_a_fault() {
        for rank in [2, -1] {
            let steps = vec![
                all(store_own(1)),
                only(0, 0, load_from(in_cta(0, (rank, 0)))),
            ];
            assert_eq!(
                run_pair(steps),
                Err((
                    Some(3),
                    0,
                    FaultKind::ClusterRank {
                        buffer: "s".into(),
                        rank,
                        cluster: 2,
                    }
                ))
            );
        }
        // Without a cluster, any rank.
        let steps = vec![all(store_own(1)), all(load_from(in_cta(0, (0, 0))))];
        assert_eq!(
            run_in_cluster(steps, 16, vec![0; 16], 1),
            Err((
                Some(2),
                0,
                FaultKind::ClusterRank {
                    buffer: "s".into(),
                    rank: 0,
                    cluster: 1,
                }
            ))
        );
    }

    // ---------------------------------------------------- bulk stores

    /// The bytes of `s` and of `y` in the bulk-store tests.
    const STORE_BYTES: usize = 64;

    /// A step only thread 1 runs.
    fn second(action: Action) -> (Test, Action) {
        let tid = Linear {
            constant: -1,
            terms: vec![(1, vec![0])],
        };
        (Test::Cmp(CmpOp::Eq, tid), action)
    }

    /// Each thread writes its 8 bytes of `s` (`8t..8t + 8`), so that word
    /// `k < 8` of `s` holds `k + 1` in each byte; a barrier.
    fn fill() -> Vec<(Test, Action)> {
        let word = |constant| Source::Index {
            value: Linear {
                constant,
                terms: vec![(0x0202_0202, vec![0])],
            },
            bits: 32,
        };
        vec![
            all(Action::Store {
                address: at(Region::Shared(S), 0, 8),
                element_bytes: 4,
                sources: vec![word(0x0101_0101), word(0x0202_0202)],
            }),
            all(bar_sync()),
        ]
    }

    /// The `bytes` bytes [`fill`] writes from byte `from` of `s`.
    fn filled(from: usize, bytes: usize) -> Vec<u8> {
        (from..from + bytes).map(|i| (i / 4 + 1) as u8).collect()
    }

    /// `y` of zeros but `parts` (`(start, bytes)` each).
    fn zeros_but(parts: &[(usize, &[u8])]) -> Vec<u8> {
        let mut y = vec![0; STORE_BYTES];
        for (start, bytes) in parts {
            y[*start..*start + bytes.len()].copy_from_slice(bytes);
        }
        y
    }

    /// `cp.async.bulk` of `bytes` bytes from `s[src..]` to `y[dst..]`.
    fn bulk_store(dst: i64, src: i64, bytes: u64) -> Action {
        Action::BulkStore {
            dst: at(Region::Tensor(Y), dst, 0),
            src: at(Region::Shared(S), src, 0),
            size: Source::Value(bytes),
            reduce: None,
        }
    }

    /// `cp.async.bulk.wait_group{.read} pending`.
    fn bulk_wait(pending: usize, read: bool) -> Action {
        Action::BulkWait { pending, read }
    }

    /// `s[offset..offset + 4] = value`.
    fn store_s(offset: i64, value: u64) -> Action {
        Action::Store {
            address: at(Region::Shared(S), offset, 0),
            element_bytes: 4,
            sources: vec![Source::Value(value)],
        }
    }

    /// Runs the steps with `s` and `y` of [`STORE_BYTES`], `y` zeros.
    fn run_store(steps: Vec<(Test, Action)>) -> Result<Vec<u8>, Failed> {
        run_sized(steps, STORE_BYTES, vec![0; STORE_BYTES])
    }

    /// The fault of a write to byte `offset` of `s` while the bulk store
    /// of statement `store` reads it.
    fn source_written(offset: usize, store: usize) -> FaultKind {
        FaultKind::AsyncStoreSourceWritten {
            buffer: "s".into(),
            offset,
            store,
        }
    }

    fn thread(t: u32) -> Option<ThreadId> {
        Some(ThreadId {
            cta: [0, 0, 0],
            thread: [t, 0, 0],
        })
    }

    #[test]
    fn a_bulk_store_writes_its_source_bytes_to_global_memory() {
        let mut steps = fill();
        steps.extend([
            first(bulk_store(16, 0, 32)),
            first(Action::BulkCommit),
            first(bulk_wait(0, false)),
        ]);
        assert_eq!(
            run_store(steps.clone()),
            Ok(zeros_but(&[(16, &filled(0, 32))]))
        );
        // Its global bytes are in bounds and 16-byte aligned, its shared
        // ones written (and 16-byte aligned), its size a multiple of 16.
        let mut bad = |store, kind| {
            steps[2] = first(store);
            assert_eq!(run_store(steps.clone()), Err((Some(3), 0, kind)));
        };
        bad(
            bulk_store(8, 0, 32),
            FaultKind::Misaligned {
                param: "y".into(),
                offset: 8,
                bytes: 16,
            },
        );
        bad(
            bulk_store(48, 0, 32),
            FaultKind::OutOfBounds {
                param: "y".into(),
                offset: 48,
                bytes: 32,
                len: 64,
            },
        );
        bad(
            bulk_store(0, 32, 32),
            FaultKind::UninitializedShared {
                buffer: "s".into(),
                offset: 32,
            },
        );
        bad(
            bulk_store(0, 8, 16),
            FaultKind::SharedMisaligned {
                buffer: "s".into(),
                offset: 8,
                bytes: 16,
            },
        );
        bad(
            bulk_store(0, 0, 8),
            FaultKind::Arguments("a bulk store of 8 bytes (not a non-zero multiple of 16)".into()),
        );
    }

    #[test]
    fn writing_a_bulk_stores_source_before_its_wait_is_a_fault() {
        let add = Action::Atomic {
            address: at(Region::Shared(S), 0, 0),
            update: std::sync::Arc::new(crate::semantics::AtomicUpdate::new(32, |old, b| {
                old.wrapping_add(b[0])
            })),
            operands: vec![vec![Source::Value(1)]],
            destinations: Vec::new(),
        };
        let copy_into = Action::AsyncCopy {
            dst: at(Region::Shared(S), 0, 0),
            src: at(Region::Tensor(X), 0, 0),
            bytes: 4,
            src_bytes: None,
        };
        for write in [store_s(0, 9), add, copy_into] {
            let mut steps = fill();
            steps.extend([
                first(bulk_store(0, 0, 32)),
                first(Action::BulkCommit),
                // Reading the source is fine.
                all(load_own()),
                first(write.clone()),
            ]);
            assert_eq!(
                run_store(steps.clone()),
                Err((Some(6), 0, source_written(0, 3))),
                "{write:?}"
            );
            // Once `wait_group.read` retired its group, the bytes are the
            // thread's again (the global writes need no wait).
            steps.insert(5, first(bulk_wait(0, true)));
            steps.push(first(Action::AsyncWait { pending: None }));
            assert_eq!(
                run_store(steps),
                Ok(zeros_but(&[(0, &filled(0, 32))])),
                "{write:?}"
            );
        }
    }

    #[test]
    fn another_thread_writes_a_retired_source_only_after_a_barrier() {
        let mut steps = fill();
        steps.extend([
            first(bulk_store(0, 0, 32)),
            first(Action::BulkCommit),
            // Orders the store's issue, not the proxy's read.
            all(bar_sync()),
            second(store_s(0, 9)),
        ]);
        assert_eq!(
            run_store(steps.clone()),
            Err((Some(6), 1, source_written(0, 3)))
        );
        // The issuer's wait: the read is its own there, unordered with
        // thread 1's write.
        steps.insert(5, first(bulk_wait(0, true)));
        assert_eq!(
            run_store(steps.clone()),
            Err((
                Some(7),
                1,
                FaultKind::SharedRace {
                    buffer: "s".into(),
                    offset: 0,
                    other: thread(0),
                }
            ))
        );
        // A barrier after the wait orders it.
        steps.insert(6, all(bar_sync()));
        assert_eq!(run_store(steps), Ok(zeros_but(&[(0, &filled(0, 32))])));
    }

    #[test]
    fn a_thread_may_not_end_with_a_bulk_store_reading_its_source() {
        let mut steps = fill();
        steps.extend([first(bulk_store(0, 0, 32)), first(Action::BulkCommit)]);
        let never = Err((Some(3), 0, FaultKind::AsyncStoreNeverWaited { store: 3 }));
        assert_eq!(run_store(steps.clone()), never);
        // Bulk groups are not `cp.async` groups.
        let mut copy_waits = steps.clone();
        copy_waits.push(first(Action::AsyncWait { pending: None }));
        assert_eq!(run_store(copy_waits), never);
        // A `.read` wait retires the source; the kernel's end completes
        // the writes.
        steps.push(first(bulk_wait(0, true)));
        assert_eq!(run_store(steps), Ok(zeros_but(&[(0, &filled(0, 32))])));
    }

    #[test]
    fn bulk_waits_do_not_retire_cp_async_groups() {
        let steps = vec![
            first(copy()),
            first(Action::AsyncCommit),
            first(Action::BulkCommit),
            first(bulk_wait(0, false)),
        ];
        assert_eq!(
            run_store(steps),
            Err((Some(1), 0, FaultKind::AsyncCopyNeverWaited { copy: 1 }))
        );
    }

    #[test]
    fn a_bulk_wait_leaves_the_most_recent_groups_pending() {
        let mut steps = fill();
        steps.extend([
            first(bulk_store(0, 0, 16)),
            first(Action::BulkCommit),
            first(bulk_store(32, 16, 16)),
            first(Action::BulkCommit),
            first(bulk_wait(1, false)),
            // The first store's source is free, the second's is not.
            first(store_s(0, 9)),
            first(store_s(16, 9)),
        ]);
        assert_eq!(
            run_store(steps.clone()),
            Err((Some(9), 0, source_written(16, 5)))
        );
        // `wait_group 2` retires neither.
        let mut both = steps.clone();
        both[6] = first(bulk_wait(2, false));
        assert_eq!(run_store(both), Err((Some(8), 0, source_written(0, 3))));
        // `wait_group 0` retires both.
        steps.insert(8, first(bulk_wait(0, false)));
        assert_eq!(
            run_store(steps),
            Ok(zeros_but(&[(0, &filled(0, 16)), (32, &filled(16, 16))]))
        );
    }

    #[test]
    fn bulk_stores_not_yet_committed_are_not_retired_by_a_wait() {
        let mut steps = fill();
        steps.extend([
            first(bulk_store(0, 0, 16)),
            first(Action::BulkCommit),
            first(bulk_store(32, 16, 16)),
            first(bulk_wait(0, false)),
        ]);
        assert_eq!(
            run_store(steps.clone()),
            Err((Some(5), 0, FaultKind::AsyncStoreNeverWaited { store: 5 }))
        );
        let mut written = steps.clone();
        written.push(first(store_s(16, 9)));
        assert_eq!(run_store(written), Err((Some(7), 0, source_written(16, 5))));
        // Committed, a wait retires it.
        steps.extend([
            first(Action::BulkCommit),
            first(bulk_wait(0, false)),
            first(store_s(16, 9)),
        ]);
        assert_eq!(
            run_store(steps),
            Ok(zeros_but(&[(0, &filled(0, 16)), (32, &filled(16, 16))]))
        );
    }

    #[test]
    fn a_source_several_stores_read_is_theirs_until_the_last_retires() {
        // Threads 0 and 1 store the same source; thread 1 waits first.
        let mut steps = fill();
        steps.extend([
            first(bulk_store(0, 0, 32)),
            second(bulk_store(32, 0, 32)),
            all(Action::BulkCommit),
            second(bulk_wait(0, false)),
            all(bar_sync()),
            first(store_s(0, 9)),
        ]);
        assert_eq!(
            run_store(steps.clone()),
            Err((Some(8), 0, source_written(0, 3)))
        );
        steps.insert(6, first(bulk_wait(0, false)));
        assert_eq!(
            run_store(steps),
            Ok(zeros_but(&[(0, &filled(0, 32)), (32, &filled(0, 32))]))
        );
    }

    #[test]
    fn a_bulk_store_may_not_overlap_an_earlier_one_before_a_full_wait() {
        let mut steps = fill();
        steps.extend([
            first(bulk_store(0, 0, 32)),
            first(Action::BulkCommit),
            // Sources read, writes still in flight.
            first(bulk_wait(0, true)),
            first(bulk_store(16, 0, 32)),
            first(Action::BulkCommit),
            first(bulk_wait(0, false)),
        ]);
        let overlap = Err((
            Some(6),
            0,
            FaultKind::AsyncStoreOverlap {
                param: "y".into(),
                offset: 16,
                store: 3,
            },
        ));
        assert_eq!(run_store(steps.clone()), overlap);
        // Nor in one group.
        let mut uncommitted = steps.clone();
        uncommitted.remove(3);
        uncommitted.remove(3);
        assert_eq!(
            run_store(uncommitted),
            Err((Some(4), 0, overlap.clone().unwrap_err().2))
        );
        // Bytes next to the earlier ones are fine.
        let mut next_to = steps.clone();
        next_to[5] = first(bulk_store(32, 0, 32));
        assert_eq!(
            run_store(next_to),
            Ok(zeros_but(&[(0, &filled(0, 32)), (32, &filled(0, 32))]))
        );
        // A wait without `.read` completes the earlier writes.
        steps[4] = first(bulk_wait(0, false));
        assert_eq!(
            run_store(steps),
            Ok(zeros_but(&[(0, &filled(0, 16)), (16, &filled(0, 32))]))
        );
    }

    #[test]
    fn a_bulk_stores_writes_complete_at_its_threads_full_wait() {
        // Another thread's store to the same bytes races with the store.
        let mut steps = fill();
        steps.extend([first(bulk_store(0, 0, 32)), second(store_y(0, 9))]);
        let race = |statement, t, other| {
            Err((
                Some(statement),
                t,
                FaultKind::Race {
                    param: "y".into(),
                    offset: 0,
                    other: thread(other),
                },
            ))
        };
        assert_eq!(run_store(steps), race(4, 1, 0));
        // A barrier after a `.read` wait does not order the writes: the
        // full wait after it completes them, unordered with thread 1's
        // read before it.
        let mut steps = fill();
        steps.extend([
            first(bulk_store(0, 0, 32)),
            first(Action::BulkCommit),
            first(bulk_wait(0, true)),
            all(bar_sync()),
            second(Action::Load {
                address: at(Region::Tensor(Y), 0, 0),
                element_bytes: 4,
                signed: false,
                destinations: vec![register()],
            }),
            first(bulk_wait(0, false)),
        ]);
        assert_eq!(run_store(steps.clone()), race(8, 0, 1));
        // The full wait before the barrier orders them.
        steps[4] = first(bulk_wait(0, false));
        assert_eq!(run_store(steps), Ok(zeros_but(&[(0, &filled(0, 32))])));
    }

    // ------------------------------------------------ bulk reductions

    /// The update of `cp.reduce.async.bulk.global.shared::cta.bulk_group`
    /// with `op_type` (say `add.u32`), from the PTX table's variant.
    fn reduction(op_type: &str) -> std::sync::Arc<crate::semantics::AtomicUpdate> {
        let opcode = format!("cp.reduce.async.bulk.global.shared::cta.bulk_group.{op_type}");
        let variant = tile_kernel_lowering::ptx::resolve(&opcode)
            .unwrap_or_else(|e| panic!("{opcode}: {e:?}"))
            .into_iter()
            .find(|m| m.bulk_reduction())
            .unwrap_or_else(|| panic!("{opcode}: not a bulk reduction"));
        let update = crate::semantics::atomic_update(&variant)
            .unwrap_or_else(|| panic!("{opcode}: no update"));
        std::sync::Arc::new(update)
    }

    /// `cp.reduce.async.bulk...{op_type}` of `bytes` bytes from `s[src..]`
    /// into `y[dst..]`.
    fn bulk_reduce(op_type: &str, dst: i64, src: i64, bytes: u64) -> Action {
        Action::BulkStore {
            dst: at(Region::Tensor(Y), dst, 0),
            src: at(Region::Shared(S), src, 0),
            size: Source::Value(bytes),
            reduce: Some(reduction(op_type)),
        }
    }

    /// The little-endian bytes of `words`.
    fn word_bytes(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// `y` of [`STORE_BYTES`] holding `words` from byte `from`, zeros
    /// elsewhere.
    fn y_words(from: usize, words: &[u32]) -> Vec<u8> {
        zeros_but(&[(from, &word_bytes(words))])
    }

    /// Thread 0 writes `words` to `s` from byte 0; a barrier.
    fn s_words(words: &[u32]) -> Vec<(Test, Action)> {
        let mut steps: Vec<_> = words
            .iter()
            .enumerate()
            .map(|(i, w)| first(store_s(4 * i as i64, u64::from(*w))))
            .collect();
        steps.push(all(bar_sync()));
        steps
    }

    /// Runs `steps` after `s` is set to `s` (words) and `y` to `y` (bytes).
    fn run_reduce(s: &[u32], steps: &[(Test, Action)], y: Vec<u8>) -> Result<Vec<u8>, Failed> {
        let mut all_steps = s_words(s);
        all_steps.extend(steps.iter().cloned());
        run_sized(all_steps, STORE_BYTES, y)
    }

    /// Thread 0 issues `action`, commits and waits for its group.
    fn issued_and_waited(action: Action) -> [(Test, Action); 3] {
        [
            first(action),
            first(Action::BulkCommit),
            first(bulk_wait(0, false)),
        ]
    }

    #[test]
    fn a_bulk_add_reduction_adds_the_shared_words_into_global_memory() {
        let s = [1, 2, 0x20, 0xffff_ffff];
        let y = y_words(16, &[100, 200, 0xffff_fff0, 7]);
        let steps = issued_and_waited(bulk_reduce("add.u32", 16, 0, 16));
        // `y[4..8] += s[0..4]`, wrapping; the rest of `y` untouched.
        assert_eq!(
            run_reduce(&s, &steps, y.clone()),
            Ok(y_words(16, &[101, 202, 0x10, 6]))
        );
        // A plain bulk store overwrites instead.
        let steps = issued_and_waited(bulk_store(16, 0, 16));
        assert_eq!(run_reduce(&s, &steps, y), Ok(y_words(16, &s)));
    }

    #[test]
    fn a_bulk_f32_add_reduction_adds_exactly_representable_values() {
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
        let s = bits(&[2.25, 0.5, 0.25, -1.0e6]);
        let y = y_words(0, &bits(&[1.5, -2.0, 0.25, 1.0e6]));
        let steps = issued_and_waited(bulk_reduce("add.f32", 0, 0, 16));
        assert_eq!(
            run_reduce(&s, &steps, y),
            Ok(y_words(0, &bits(&[3.75, -1.5, 0.5, 0.0])))
        );
    }

    #[test]
    fn a_bulk_signed_min_reduction_orders_negative_numbers_below_positive_ones() {
        let words = |v: &[i32]| v.iter().map(|x| *x as u32).collect::<Vec<u32>>();
        let s = words(&[-7, -1, 5, i32::MAX]);
        let y = y_words(32, &words(&[-5, 3, i32::MIN, 0]));
        let steps = issued_and_waited(bulk_reduce("min.s32", 32, 0, 16));
        // Unsigned, `min(3, -1)` would be 3.
        assert_eq!(
            run_reduce(&s, &steps, y),
            Ok(y_words(32, &words(&[-7, -1, i32::MIN, 0])))
        );
    }

    #[test]
    fn reductions_of_the_same_bytes_combine_without_a_fault() {
        let s = [1, 2, 3, 4];
        let times = |k: u32| y_words(0, &s.map(|w| 10 + k * w));
        let y = y_words(0, &[10; 4]);
        // Threads 0 and 1, unordered: atomics do not race.
        let mut steps = vec![
            first(bulk_reduce("add.u32", 0, 0, 16)),
            second(bulk_reduce("add.u32", 0, 0, 16)),
            all(Action::BulkCommit),
            all(bulk_wait(0, false)),
        ];
        assert_eq!(run_reduce(&s, &steps, y.clone()), Ok(times(2)));
        // Thread 0's full wait records its completed updates as atomics
        // again: thread 1's later reduction does not race with them.
        steps.splice(
            2..,
            [
                first(Action::BulkCommit),
                first(bulk_wait(0, false)),
                second(bulk_reduce("add.u32", 0, 0, 16)),
                second(Action::BulkCommit),
                second(bulk_wait(0, false)),
            ],
        );
        assert_eq!(run_reduce(&s, &steps, y.clone()), Ok(times(3)));
        // The same thread twice before any wait, in one group or two.
        let twice = [
            first(bulk_reduce("add.u32", 0, 0, 16)),
            first(bulk_reduce("add.u32", 0, 0, 16)),
            first(Action::BulkCommit),
            first(bulk_reduce("add.u32", 0, 0, 16)),
            first(Action::BulkCommit),
            first(bulk_wait(0, false)),
        ];
        assert_eq!(run_reduce(&s, &twice, y.clone()), Ok(times(3)));
        // Another thread's plain store or load of the bytes still races.
        let load_y = Action::Load {
            address: at(Region::Tensor(Y), 4, 0),
            element_bytes: 4,
            signed: false,
            destinations: vec![register()],
        };
        for other in [store_y(4, 9), load_y] {
            let steps = [first(bulk_reduce("add.u32", 0, 0, 16)), second(other)];
            assert_eq!(
                run_reduce(&s, &steps, y.clone()),
                Err((
                    Some(7),
                    1,
                    FaultKind::Race {
                        param: "y".into(),
                        offset: 4,
                        other: thread(0),
                    }
                ))
            );
        }
    }

    #[test]
    fn a_reduction_and_a_store_of_one_thread_may_not_overlap_before_a_full_wait() {
        let s = [1, 2, 3, 4, 5, 6, 7, 8];
        let overlap = |statement, offset, store| {
            Err((
                Some(statement),
                0,
                FaultKind::AsyncStoreOverlap {
                    param: "y".into(),
                    offset,
                    store,
                },
            ))
        };
        // Statements 1..=8 set `s`, 9 is the barrier.
        let reduce = bulk_reduce("add.u32", 16, 0, 32);
        for (earlier, later) in [
            (reduce.clone(), bulk_store(0, 0, 32)),
            (bulk_store(0, 0, 32), reduce.clone()),
        ] {
            let steps = [
                first(earlier.clone()),
                first(Action::BulkCommit),
                // Sources read, writes still in flight.
                first(bulk_wait(0, true)),
                first(later.clone()),
                first(Action::BulkCommit),
                first(bulk_wait(0, false)),
            ];
            assert_eq!(
                run_reduce(&s, &steps, vec![0; STORE_BYTES]),
                overlap(13, 16, 10)
            );
            // A full wait completes the earlier writes.
            let mut waited = steps.clone();
            waited[2] = first(bulk_wait(0, false));
            assert!(run_reduce(&s, &waited, vec![0; STORE_BYTES]).is_ok());
        }
        // Two reductions may overlap.
        let steps = [
            first(reduce),
            first(Action::BulkCommit),
            first(bulk_wait(0, true)),
            first(bulk_reduce("add.u32", 0, 0, 32)),
            first(Action::BulkCommit),
            first(bulk_wait(0, false)),
        ];
        assert_eq!(
            run_reduce(&s, &steps, vec![0; STORE_BYTES]),
            Ok(y_words(0, &[1, 2, 3, 4, 6, 8, 10, 12, 5, 6, 7, 8]))
        );
        // A store overlapping a pending reduction that starts before it,
        // behind a later one of the same start that does not meet it.
        let steps = [
            first(bulk_reduce("add.u32", 0, 0, 32)),
            first(bulk_reduce("add.u32", 0, 0, 16)),
            first(bulk_store(16, 0, 16)),
        ];
        assert_eq!(
            run_reduce(&s, &steps, vec![0; STORE_BYTES]),
            overlap(12, 16, 10)
        );
    }

    #[test]
    fn writing_a_bulk_reductions_source_before_its_read_wait_is_a_fault() {
        let s = [1, 2, 3, 4];
        let mut steps = vec![
            first(bulk_reduce("add.u32", 0, 0, 16)),
            first(Action::BulkCommit),
            first(store_s(4, 9)),
        ];
        assert_eq!(
            run_reduce(&s, &steps, vec![0; STORE_BYTES]),
            Err((Some(8), 0, source_written(4, 6)))
        );
        // `wait_group.read` retires the source; the writes were done.
        steps.insert(2, first(bulk_wait(0, true)));
        assert_eq!(
            run_reduce(&s, &steps, vec![0; STORE_BYTES]),
            Ok(y_words(0, &s))
        );
    }

    #[test]
    fn a_bulk_reduction_is_a_non_zero_multiple_of_16_aligned_bytes() {
        let s = [1, 2, 3, 4, 5, 6, 7, 8];
        let bad = |action, kind| {
            let steps = issued_and_waited(action);
            assert_eq!(
                run_reduce(&s, &steps, vec![0; STORE_BYTES]),
                Err((Some(10), 0, kind))
            );
        };
        for bytes in [0, 8, 24] {
            bad(
                bulk_reduce("add.u32", 0, 0, bytes),
                FaultKind::Arguments(format!(
                    "a bulk reduction of {bytes} bytes (not a non-zero multiple of 16)"
                )),
            );
        }
        bad(
            bulk_reduce("add.u32", 8, 0, 16),
            FaultKind::Misaligned {
                param: "y".into(),
                offset: 8,
                bytes: 16,
            },
        );
        bad(
            bulk_reduce("add.u32", 0, 4, 16),
            FaultKind::SharedMisaligned {
                buffer: "s".into(),
                offset: 4,
                bytes: 16,
            },
        );
        // Into a tensor the kernel only reads.
        bad(
            Action::BulkStore {
                dst: at(Region::Tensor(X), 0, 0),
                src: at(Region::Shared(S), 0, 0),
                size: Source::Value(16),
                reduce: Some(reduction("add.u32")),
            },
            FaultKind::ReadOnlyWrite { param: "x".into() },
        );
    }

    /// `y[offset..offset + 4] = value`.
    fn store_y(offset: i64, value: u64) -> Action {
        Action::Store {
            address: at(Region::Tensor(Y), offset, 0),
            element_bytes: 4,
            sources: vec![Source::Value(value)],
        }
    }

    /// `cp.async.bulk.tensor.2d` of the box of 2 x 4 words at `s[0..32]`
    /// to `y` as a 4 x 4 tensor of words, at `coords` (row, column).
    fn tensor_store(coords: [i64; 2]) -> Action {
        tensor_store_from(0, coords)
    }

    /// [`tensor_store`] of the box at `s[src..src + 32]`.
    fn tensor_store_from(src: i64, coords: [i64; 2]) -> Action {
        Action::TensorStore {
            src: at(Region::Shared(S), src, 0),
            param: Y,
            element: 4,
            dims: vec![DimSpec::Const(4), DimSpec::Const(4)],
            box_dims: vec![2, 4],
            coords: coords
                .iter()
                .map(|c| Linear {
                    constant: *c,
                    terms: Vec::new(),
                })
                .collect(),
        }
    }

    /// (In one block: the tensor stores address `y` by coordinates, which
    /// [`run_sized`] does not move block by block.)
    #[test]
    fn a_tensor_store_writes_the_part_of_its_box_inside_the_tensor() {
        let mut steps = fill();
        steps.extend([
            // Rows 3..5, columns 2..6: box (0, 0..2) lands.
            first(tensor_store([3, 2])),
            // Rows -1..1, columns -2..2: box (1, 2..4) lands.
            first(tensor_store([-1, -2])),
            // Wholly outside: nothing is written.
            first(tensor_store([4, 0])),
            first(tensor_store([i64::MIN, i64::MAX])),
            first(Action::BulkCommit),
            first(bulk_wait(0, false)),
        ]);
        let mut expected = vec![0xee; STORE_BYTES];
        let mut word = |index: usize, box_word: usize| {
            expected[4 * index..4 * index + 4].copy_from_slice(&filled(4 * box_word, 4));
        };
        word(3 * 4 + 2, 0);
        word(3 * 4 + 3, 1);
        word(0, 6);
        word(1, 7);
        assert_eq!(
            run_in_cluster(steps.clone(), STORE_BYTES, vec![0xee; STORE_BYTES], 1),
            Ok(expected)
        );
        // The elements it writes count against the thread's later stores.
        steps.insert(3, first(tensor_store([3, 3])));
        assert_eq!(
            run_in_cluster(steps.clone(), STORE_BYTES, vec![0xee; STORE_BYTES], 1),
            Err((
                Some(4),
                0,
                FaultKind::AsyncStoreOverlap {
                    param: "y".into(),
                    offset: 4 * (3 * 4 + 3),
                    store: 3,
                }
            ))
        );
        // Its shared source is 128-byte aligned and read-owned.
        let mut steps = fill();
        steps.push(first(tensor_store_from(16, [0, 0])));
        assert_eq!(
            run_in_cluster(steps, STORE_BYTES, vec![0; STORE_BYTES], 1),
            Err((
                Some(3),
                0,
                FaultKind::SharedMisaligned {
                    buffer: "s".into(),
                    offset: 16,
                    bytes: 128,
                }
            ))
        );
        let mut steps = fill();
        steps.extend([
            first(tensor_store([0, 0])),
            first(Action::BulkCommit),
            first(store_s(28, 9)),
        ]);
        assert_eq!(
            run_in_cluster(steps, STORE_BYTES, vec![0; STORE_BYTES], 1),
            Err((Some(5), 0, source_written(28, 3)))
        );
    }

    // ------------------------------------- multicast and remote arrivals

    /// How a [`ring`] goes wrong (or not).
    #[derive(Clone, Copy, Default)]
    struct Ring {
        /// Thread 0 refills a stage without waiting on `empty`.
        skip_empty_wait: bool,
        /// The consumers arrive on their own CTA's `empty` only.
        own_empty_only: bool,
        /// No cluster barrier at the end.
        no_final_barrier: bool,
        /// No cluster barrier between the `init`s and the first copy
        /// (one before them instead).
        no_barrier_after_init: bool,
        /// `expect_tx` of one box's bytes instead of both CTAs' boxes.
        one_box_expected: bool,
        /// The consumers' arrivals on the peer's `empty` are `.cta`-scoped.
        cta_scoped_remote: bool,
    }

    /// Buffers of [`run_ring`]: the stages, `full[s]`, `empty[s]`.
    const STAGE: usize = 0;
    const FULL: usize = 1;
    const EMPTY: usize = 2;
    /// Bytes of one CTA's box (32 `u32`s); a stage holds both CTAs'.
    const BOX: i64 = 128;
    const STAGES: i64 = 2;
    /// Words of `y` each CTA writes per iteration.
    const RING_WORDS: i64 = 8;

    /// A buffer address with `constant` bytes and `per_rank` bytes per
    /// `%cluster_ctarank` (atom 2).
    fn ranked(buffer: usize, constant: i64, per_rank: i64) -> Address {
        Address {
            region: Region::Shared(buffer),
            offset: Linear {
                constant,
                terms: vec![(per_rank, vec![2])],
            },
            cta: None,
        }
    }

    /// `full[stage]`/`empty[stage]`.
    fn slot(buffer: usize, stage: i64) -> Address {
        at(Region::Shared(buffer), 8 * stage, 0)
    }

    fn on(address: Address, op: MbarrierAction) -> Action {
        Action::Mbarrier { address, op }
    }

    fn wait_on(address: Address, parity: u64) -> Action {
        on(
            address,
            MbarrierAction::WaitParity {
                parity: Source::Value(parity),
                acquire: true,
                cluster_scope: true,
            },
        )
    }

    fn arrive_on(address: Address, expect_tx: Option<u64>, cluster_scope: bool) -> Action {
        on(
            address,
            MbarrierAction::Arrive {
                state: None,
                release: true,
                expect_tx: expect_tx.map(Source::Value),
                cluster_scope,
            },
        )
    }

    /// The multicast copy of CTA `rank`'s half of iteration `k`'s tile:
    /// `x[(2 k + rank) * 32..][..32]` to byte `rank * BOX` of `stage`,
    /// signalling `full[stage]`, to the CTAs of `mask`.
    fn multicast(k: i64, stage: i64, mask: u64) -> Action {
        Action::TensorCopy {
            dst: ranked(STAGE, stage * 2 * BOX, BOX),
            param: X,
            element: 4,
            dims: vec![DimSpec::Const(1024)],
            box_dims: vec![32],
            coords: vec![Linear {
                constant: 64 * k,
                terms: vec![(32, vec![2])],
            }],
            barrier: slot(FULL, stage),
            multicast: Some(Source::Value(mask)),
        }
    }

    /// The streaming ring of a cluster GEMM with multicast, `iterations`
    /// iterations over [`STAGES`] stages, in a cluster of 2 CTAs of 4
    /// threads: thread 0 of each CTA initializes `full[s]` (1 arrival) and
    /// `empty[s]` (both CTAs' 8 threads); then per iteration `k` thread 0
    /// waits for `empty[stage]` to be released (from the second round
    /// on), expects both boxes' bytes on its `full[stage]` and multicasts
    /// its half to both CTAs; every thread waits for `full[stage]`, reads
    /// a word of each half (thread `t`: word `t`), stores them to `y`, and
    /// arrives on `empty[stage]` of both CTAs.
    fn ring(iterations: i64, how: Ring) -> Vec<(Test, Action)> {
        let mut steps = Vec::new();
        if how.no_barrier_after_init {
            steps.push(all(cluster_wait()));
        }
        for stage in 0..STAGES {
            steps.push(first(on(
                slot(FULL, stage),
                MbarrierAction::Init {
                    count: Source::Value(1),
                },
            )));
            steps.push(first(on(
                slot(EMPTY, stage),
                MbarrierAction::Init {
                    count: Source::Value(8),
                },
            )));
        }
        if !how.no_barrier_after_init {
            steps.push(all(cluster_wait()));
        }
        for k in 0..iterations {
            let stage = k % STAGES;
            let round = (k / STAGES) as u64;
            if round > 0 && !how.skip_empty_wait {
                steps.push(first(wait_on(slot(EMPTY, stage), (round - 1) % 2)));
            }
            let expected = if how.one_box_expected { BOX } else { 2 * BOX };
            steps.push(first(arrive_on(
                slot(FULL, stage),
                Some(expected as u64),
                false,
            )));
            steps.push(first(multicast(k, stage, 0b11)));
            steps.push(all(wait_on(slot(FULL, stage), round % 2)));
            for half in 0..2 {
                steps.push(all(load_from(at(
                    Region::Shared(STAGE),
                    stage * 2 * BOX + half * BOX,
                    4,
                ))));
                // y[rank * iterations * 8 + k * 8 + half * 4 + t]
                steps.push(all(Action::Store {
                    address: Address {
                        region: Region::Tensor(Y),
                        offset: Linear {
                            constant: 4 * (k * RING_WORDS + half * 4),
                            terms: vec![(4, vec![0]), (4 * iterations * RING_WORDS, vec![2])],
                        },
                        cta: None,
                    },
                    element_bytes: 4,
                    sources: vec![Source::Register {
                        offset: 0,
                        bytes: 4,
                        tile: 0,
                        element: 0,
                    }],
                }));
            }
            // `empty.in_cta(cluster_ctarank())`, `empty.in_cta(1 - cluster_ctarank())`.
            let own = Address {
                cta: Some(Linear {
                    constant: 0,
                    terms: vec![(1, vec![2])],
                }),
                ..slot(EMPTY, stage)
            };
            let peer = Address {
                cta: Some(Linear {
                    constant: 1,
                    terms: vec![(-1, vec![2])],
                }),
                ..slot(EMPTY, stage)
            };
            steps.push(all(arrive_on(own, None, true)));
            if !how.own_empty_only {
                steps.push(all(arrive_on(peer, None, !how.cta_scoped_remote)));
            }
        }
        if !how.no_final_barrier {
            steps.push(all(cluster_wait()));
        }
        steps
    }

    /// Runs steps in one cluster of 2 CTAs of 4 threads with the ring's
    /// buffers, `x[i] = 1000 + i` (1024 words), `y` of `y_words` words;
    /// `y` after the run.
    fn run_ring_steps(steps: Vec<(Test, Action)>, y_words: usize) -> Result<Vec<u32>, Failed> {
        let x: Vec<AtomicU8> = (0..1024u32)
            .flat_map(|i| (1000 + i).to_le_bytes())
            .map(AtomicU8::new)
            .collect();
        let y: Vec<AtomicU8> = (0..4 * y_words).map(|_| AtomicU8::new(0)).collect();
        let layout = |name: &str, bytes: i64, mbarrier| SharedLayout {
            name: name.into(),
            bytes: bytes as usize,
            mbarrier,
        };
        let shared = vec![
            layout("stage", STAGES * 2 * BOX, false),
            layout("full", 8 * STAGES, true),
            layout("empty", 8 * STAGES, true),
        ];
        let static_shared_bytes = (STAGES * 2 * BOX + 16 * STAGES) as usize;
        run_cluster_plan(steps, (shared, static_shared_bytes), 2, (&x, &y), 100_000)?;
        Ok(y.chunks(4)
            .map(|c| u32::from_le_bytes(std::array::from_fn(|i| c[i].load(Ordering::Relaxed))))
            .collect())
    }

    fn run_ring(iterations: i64, how: Ring) -> Result<Vec<u32>, Failed> {
        run_ring_steps(
            ring(iterations, how),
            (2 * iterations * RING_WORDS) as usize,
        )
    }

    /// The statement number (from 1) of the first step of `steps` that
    /// `is` picks, from `from` on.
    fn statement_of(
        steps: &[(Test, Action)],
        from: usize,
        is: impl Fn(&Action) -> bool,
    ) -> Option<usize> {
        (from..steps.len())
            .find(|i| is(&steps[*i].1))
            .map(|i| i + 1)
    }

    #[test]
    fn a_multicast_ring_with_remote_arrivals_runs_without_a_fault() {
        let iterations = 6;
        let y = run_ring(iterations, Ring::default()).unwrap_or_else(|f| panic!("{f:?}"));
        // Thread t of either CTA read word t of CTA 0's box and of CTA
        // 1's, each iteration.
        for rank in 0..2 {
            for k in 0..iterations {
                for half in 0..2 {
                    for t in 0..4 {
                        let at = (rank * iterations * RING_WORDS + k * RING_WORDS + half * 4 + t)
                            as usize;
                        assert_eq!(
                            y[at],
                            (1000 + (2 * k + half) * 32 + t) as u32,
                            "rank {rank} k {k} half {half} thread {t}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn refilling_a_stage_without_waiting_for_the_peers_release_is_a_race() {
        let how = Ring {
            skip_empty_wait: true,
            ..Ring::default()
        };
        let steps = ring(4, how);
        // The first refill: iteration 2's copy (the third copy statement).
        let copies: Vec<usize> = (0..steps.len())
            .filter(|i| matches!(steps[*i].1, Action::TensorCopy { .. }))
            .map(|i| i + 1)
            .collect();
        let (statement, thread, kind) = run_ring_steps(steps, 64).expect_err("a race");
        assert_eq!((statement, thread), (Some(copies[2]), 0));
        assert!(
            matches!(&kind, FaultKind::SharedRace { buffer, .. } if buffer == "stage"),
            "{kind:?}"
        );
    }

    #[test]
    fn consumers_that_release_only_their_own_ctas_stage_hang_the_peers_producer() {
        let how = Ring {
            own_empty_only: true,
            ..Ring::default()
        };
        let steps = ring(4, how);
        // The first wait on `empty`: each CTA's `empty` counts 4 of its 8
        // arrivals.
        let wait = statement_of(&steps, 0, |a| {
            matches!(a, Action::Mbarrier { address, op: MbarrierAction::WaitParity { .. } }
                if address.region == Region::Shared(EMPTY))
        });
        assert_eq!(
            run_ring_steps(steps, 64),
            Err((
                wait,
                0,
                FaultKind::MbarrierWaitNeverCompletes {
                    buffer: "empty".into(),
                    index: 0,
                    parity: 0,
                    phases: 0,
                }
            ))
        );
    }

    #[test]
    fn a_cta_may_not_exit_while_its_peer_arrives_on_its_objects() {
        let how = Ring {
            no_final_barrier: true,
            ..Ring::default()
        };
        let (_, _, kind) = run_ring(4, how).expect_err("no final cluster barrier");
        assert!(
            matches!(
                &kind,
                FaultKind::RemoteSharedLifetime {
                    before_first_barrier: false,
                    ..
                }
            ),
            "{kind:?}"
        );
    }

    #[test]
    fn a_multicast_before_the_peers_init_is_ordered_is_a_fault() {
        let how = Ring {
            no_barrier_after_init: true,
            ..Ring::default()
        };
        let steps = ring(2, how);
        let copy = statement_of(&steps, 0, |a| matches!(a, Action::TensorCopy { .. }));
        // CTA 0's copy touches CTA 1's `full[0]`, which CTA 1's thread 0
        // initialized with no cluster barrier since.
        assert_eq!(
            run_ring_steps(steps, 32),
            Err((
                copy,
                0,
                FaultKind::SharedRace {
                    buffer: "full".into(),
                    offset: 0,
                    other: of_cta(1, 0),
                }
            ))
        );
        // With no cluster barrier at all, the peer may not have started.
        let mut steps = ring(2, Ring::default());
        steps.retain(|(_, action)| !matches!(action, Action::Barrier { .. }));
        let (_, _, kind) = run_ring_steps(steps, 32).expect_err("no cluster barrier");
        assert!(
            matches!(
                &kind,
                FaultKind::RemoteSharedLifetime {
                    before_first_barrier: true,
                    ..
                }
            ),
            "{kind:?}"
        );
    }

    #[test]
    fn expecting_one_boxs_bytes_lets_the_phase_complete_before_the_peers_half_lands() {
        let how = Ring {
            one_box_expected: true,
            ..Ring::default()
        };
        let steps = ring(2, how);
        // CTA 0's own box completes its `full[0]`; CTA 1's box, signalled
        // next, counts toward the next phase, and lands with it: the
        // read of that half meets the copy in flight.
        let copy = statement_of(&steps, 0, |a| matches!(a, Action::TensorCopy { .. })).unwrap_or(0);
        let read =
            statement_of(&steps, copy, |a| matches!(a, Action::Load { .. })).map(|first| first + 2);
        assert_eq!(
            run_ring_steps(steps, 32),
            Err((
                read,
                0,
                FaultKind::AsyncCopyInFlight {
                    buffer: "stage".into(),
                    offset: BOX as usize,
                    copy: copy - 1 + 1,
                }
            ))
        );
    }

    #[test]
    fn a_cta_scoped_remote_release_orders_nothing_for_the_peer() {
        let how = Ring {
            cta_scoped_remote: true,
            ..Ring::default()
        };
        // CTA 0's refill of CTA 1's stage (iteration 2) is not ordered
        // after CTA 1's threads' reads of it, nor after the landing they
        // observed.
        let steps = ring(4, how);
        let copy = (0..steps.len())
            .filter(|i| matches!(steps[*i].1, Action::TensorCopy { .. }))
            .nth(2)
            .map(|i| i + 1);
        let (statement, thread, kind) = run_ring_steps(steps, 64).expect_err("unordered");
        assert_eq!((statement, thread), (copy, 0));
        assert!(
            matches!(&kind, FaultKind::AsyncCopyUnobserved { buffer, offset: 0, .. } if buffer == "stage"),
            "{kind:?}"
        );
    }

    #[test]
    fn a_multicast_lands_in_each_cta_of_its_mask_and_signals_each_ones_barrier() {
        // Only CTA 1's thread 0 copies, to CTA 0 alone (mask 0b01); each
        // CTA's thread 0 expects one box on its own `full[0]`.
        let store = Action::Store {
            address: at(Region::Tensor(Y), 0, 0),
            element_bytes: 4,
            sources: vec![Source::Register {
                offset: 0,
                bytes: 4,
                tile: 0,
                element: 0,
            }],
        };
        let mut steps = vec![first(on(
            slot(FULL, 0),
            MbarrierAction::Init {
                count: Source::Value(1),
            },
        ))];
        steps.extend([
            all(cluster_wait()),
            only(1, 0, multicast(0, 0, 0b01)),
            only(0, 0, arrive_on(slot(FULL, 0), Some(BOX as u64), false)),
            all(wait_on(slot(FULL, 0), 0)),
            only(0, 3, load_from(at(Region::Shared(STAGE), BOX + 4, 0))),
            only(0, 3, store.clone()),
            all(cluster_wait()),
        ]);
        // CTA 1's `full[0]` saw no arrival: its wait never returns.
        assert_eq!(
            run_ring_steps(steps.clone(), 1),
            Err((
                Some(5),
                4,
                FaultKind::MbarrierWaitNeverCompletes {
                    buffer: "full".into(),
                    index: 0,
                    parity: 0,
                    phases: 0,
                }
            ))
        );
        // Only CTA 0 waits: x[32 + 1] landed at CTA 1's half of CTA 0's
        // stage (the issuer's rank places it).
        steps[4] = only(0, 3, wait_on(slot(FULL, 0), 0));
        assert_eq!(run_ring_steps(steps.clone(), 1), Ok(vec![1000 + 33]));
        // To both CTAs (0b11): CTA 1's phase expects no bytes, so its
        // count goes below zero, and the box lands when its thread 0
        // arrives expecting it.
        steps[2] = only(1, 0, multicast(0, 0, 0b11));
        steps[3] = first(arrive_on(slot(FULL, 0), Some(BOX as u64), false));
        steps[4] = all(wait_on(slot(FULL, 0), 0));
        steps[5] = all(load_from(at(Region::Shared(STAGE), BOX, 4)));
        assert_eq!(run_ring_steps(steps.clone(), 1), Ok(vec![1000 + 32 + 3]));
        // A thread of CTA 1 that waited reads its own copy of the box.
        steps[6] = only(1, 2, store);
        assert_eq!(run_ring_steps(steps, 1), Ok(vec![1000 + 34]));
    }

    #[test]
    fn a_multicast_mask_names_ctas_of_the_cluster_only() {
        for (mask, what) in [
            (0b100, "which names a CTA outside the cluster"),
            (0, "which names no CTA"),
        ] {
            let steps = vec![
                first(on(
                    slot(FULL, 0),
                    MbarrierAction::Init {
                        count: Source::Value(1),
                    },
                )),
                all(cluster_wait()),
                first(multicast(0, 0, mask)),
                all(cluster_wait()),
            ];
            assert_eq!(
                run_ring_steps(steps, 1),
                Err((
                    Some(3),
                    0,
                    FaultKind::Arguments(format!(
                        "a multicast tensor copy with ctaMask {mask:#06x}, {what} (the cluster has 2 CTAs, ranks 0 to 1)"
                    ))
                ))
            );
        }
    }

    #[test]
    fn a_remote_arrival_counts_toward_the_peers_phase() {
        // CTA 1's `empty[0]` expects 2 arrivals: thread 1 of CTA 0 arrives
        // remotely, then thread 2 of CTA 1 locally.
        let peer = Address {
            cta: Some(Linear {
                constant: 1,
                terms: vec![],
            }),
            ..slot(EMPTY, 0)
        };
        let steps = vec![
            only(
                1,
                0,
                on(
                    slot(EMPTY, 0),
                    MbarrierAction::Init {
                        count: Source::Value(2),
                    },
                ),
            ),
            all(cluster_wait()),
            only(0, 1, arrive_on(peer.clone(), None, true)),
            only(1, 3, wait_on(slot(EMPTY, 0), 0)),
            all(cluster_wait()),
        ];
        assert_eq!(
            run_ring_steps(steps.clone(), 1),
            Err((
                Some(4),
                7,
                FaultKind::MbarrierWaitNeverCompletes {
                    buffer: "empty".into(),
                    index: 0,
                    parity: 0,
                    phases: 0,
                }
            ))
        );
        let mut completed = steps.clone();
        completed.insert(3, only(1, 2, arrive_on(slot(EMPTY, 0), None, false)));
        assert_eq!(run_ring_steps(completed, 1), Ok(vec![0]));
        // An arrival on an object the peer never initialized, or past the
        // cluster's ranks.
        let mut uninitialized = steps.clone();
        uninitialized[2] = only(
            0,
            1,
            arrive_on(
                Address {
                    cta: Some(Linear {
                        constant: 0,
                        terms: vec![],
                    }),
                    ..slot(EMPTY, 0)
                },
                None,
                true,
            ),
        );
        assert_eq!(
            run_ring_steps(uninitialized, 1),
            Err((
                Some(3),
                1,
                FaultKind::MbarrierUninitialized {
                    buffer: "empty".into(),
                    index: 0,
                }
            ))
        );
        let mut outside = steps;
        outside[2] = only(
            0,
            1,
            arrive_on(
                Address {
                    cta: Some(Linear {
                        constant: 2,
                        terms: vec![],
                    }),
                    ..slot(EMPTY, 0)
                },
                None,
                true,
            ),
        );
        assert_eq!(
            run_ring_steps(outside, 1),
            Err((
                Some(3),
                1,
                FaultKind::ClusterRank {
                    buffer: "empty".into(),
                    rank: 2,
                    cluster: 2,
                }
            ))
        );
    }
}
