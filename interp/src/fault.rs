//! What the interpreter reports instead of silently computing garbage.

use std::fmt;

/// A thread of the grid: its block and its index in the block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ThreadId {
    pub cta: [u32; 3],
    pub thread: [u32; 3],
}

impl fmt::Display for ThreadId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [cx, cy, cz] = self.cta;
        let [tx, ty, tz] = self.thread;
        write!(f, "thread ({tx}, {ty}, {tz}) of block ({cx}, {cy}, {cz})")
    }
}

/// Where a fault happened: the statement (its position among the kernel's
/// `apply`s, counted from 1 in source order, and its opcode) and the thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub kernel: String,
    /// `(statement number, opcode)`; `None` for faults before any statement.
    pub statement: Option<(usize, String)>,
    pub thread: Option<ThreadId>,
    pub kind: FaultKind,
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultKind {
    /// The arguments do not fit the program (count, kinds, sizes).
    Arguments(String),
    /// An access outside its tensor.
    OutOfBounds {
        param: String,
        /// Byte offset of the access from the tensor's start.
        offset: i128,
        bytes: usize,
        /// The tensor's size in bytes.
        len: usize,
    },
    /// An access not aligned to its size.
    Misaligned {
        param: String,
        offset: i128,
        bytes: usize,
    },
    /// A read of a register no instruction has written (for this thread),
    /// e.g. the result of a predicated instruction whose predicate was false.
    UndefinedRegister { tile: String, element: usize },
    /// Two threads touched the same bytes, at least one writing, and not
    /// both atomically.
    Race {
        param: String,
        offset: usize,
        /// The other thread; `None` when several threads read the byte.
        other: Option<ThreadId>,
    },
    /// A write to a tensor the kernel declared read-only.
    ReadOnlyWrite { param: String },
    /// A computed index divides by zero (`/`, `%` or `ceil_div` in the
    /// kernel's index arithmetic).
    IndexDivisionByZero,
    /// A warp collective whose result PTX leaves undefined: a member mask
    /// naming lanes that do not execute it (a divergent collective), not
    /// naming the lane itself, or naming a lane that holds another mask.
    Collective { message: String },
    /// A barrier the block's threads do not all reach together (divergent
    /// control flow, a count that does not match), or reach with different
    /// barrier numbers or counts; or a cluster barrier
    /// (`barrier.cluster.wait`) the threads of the cluster's blocks do not
    /// all reach together.
    Barrier { message: String },
    /// The block (its threads together, in a cluster too) ran past
    /// `RunOptions::work_limit` instructions and loop iterations.
    WorkLimit { limit: u64 },
    /// An access outside its shared buffer (`alloc_shared`).
    SharedOutOfBounds {
        buffer: String,
        /// Byte offset of the access from the buffer's start.
        offset: i128,
        bytes: usize,
        /// The buffer's size in bytes.
        len: usize,
    },
    /// A shared access not aligned to its size (offsets from the buffer's
    /// start, which is 16-byte aligned).
    SharedMisaligned {
        buffer: String,
        offset: i128,
        bytes: usize,
    },
    /// Two threads of a block touched the same bytes of a shared buffer
    /// between two barriers, at least one writing, and not both atomically
    /// (or two threads of different blocks of a cluster, one or both
    /// through a `.shared::cluster` address of another block's buffer,
    /// between two cluster barriers).
    SharedRace {
        buffer: String,
        offset: usize,
        /// The other thread; `None` when several threads touched the byte.
        other: Option<ThreadId>,
    },
    /// A read (a load, or an atomic's read of the old value) of a shared
    /// byte no thread has written (in the copy of the block it belongs
    /// to): shared memory starts undefined.
    UninitializedShared { buffer: String, offset: usize },
    /// An access to shared bytes an asynchronous copy (`cp.async`,
    /// statement `copy`) owns: issued by some thread and not yet retired
    /// by that thread's wait.
    AsyncCopyInFlight {
        buffer: String,
        offset: usize,
        copy: usize,
    },
    /// A thread ended with asynchronous copies (of statement `copy`) it
    /// never waited for.
    AsyncCopyNeverWaited { copy: usize },
    /// An access to shared bytes the asynchronous copy of statement `copy`
    /// wrote when phase `phase` of mbarrier object `index` of shared buffer
    /// `mbarrier` completed (`cp.async.mbarrier.arrive`), by a thread that
    /// has not observed that phase (an acquiring `mbarrier.try_wait` that
    /// returned after it), with no CTA barrier since one that had.
    AsyncCopyUnobserved {
        buffer: String,
        offset: usize,
        copy: usize,
        mbarrier: String,
        index: usize,
        phase: u64,
    },
    /// A write, atomic or copy into shared bytes that the bulk store of
    /// statement `store` (`cp.async.bulk` / `cp.async.bulk.tensor` to
    /// global memory) reads as its source: the async proxy may read them
    /// until a `cp.async.bulk.wait_group` (`.read` or not) of the store's
    /// thread has retired its bulk group.
    AsyncStoreSourceWritten {
        buffer: String,
        offset: usize,
        store: usize,
    },
    /// A bulk store writes byte `offset` of tensor `param`, which an
    /// earlier bulk store of the same thread (statement `store`) also
    /// writes, before a `cp.async.bulk.wait_group` without `.read` of the
    /// thread retired the earlier one: the async proxy may complete the
    /// two in either order.
    AsyncStoreOverlap {
        param: String,
        offset: usize,
        store: usize,
    },
    /// A thread ended with the bulk store of statement `store` still
    /// reading its shared source: no `cp.async.bulk.wait_group` of its
    /// retired the store's bulk group (or the store was never committed
    /// to one).
    AsyncStoreNeverWaited { store: usize },
    /// An mbarrier operation other than `mbarrier.init` on an object that
    /// is not initialized: never initialized in this block, or invalidated
    /// (`mbarrier.inval`) since.
    MbarrierUninitialized { buffer: String, index: usize },
    /// `mbarrier.init` on an object that is already initialized (PTX
    /// requires `mbarrier.inval` first).
    MbarrierReinitialized { buffer: String, index: usize },
    /// `mbarrier.init` with an expected arrival count outside PTX's
    /// `1..=2^20 - 1`.
    MbarrierCount {
        buffer: String,
        index: usize,
        count: u64,
    },
    /// A parity wait whose `phaseParity` is neither 0 nor 1.
    MbarrierParity {
        buffer: String,
        index: usize,
        parity: u64,
    },
    /// A blocking parity wait on the object's current phase, which nothing
    /// completes: every arrival the block makes before the wait in the
    /// interpreter's lockstep order has been counted. `phases`: the
    /// object's completed phases (the current phase is number `phases`,
    /// of parity `phases % 2`, equal to `parity`).
    MbarrierWaitNeverCompletes {
        buffer: String,
        index: usize,
        parity: u64,
        phases: u64,
    },
    /// `mbarrier.inval` on an object whose current phase still tracks
    /// the `cp.async` of statement `copy` (`cp.async.mbarrier.arrive`):
    /// its completion would arrive on an invalid object.
    MbarrierInvalidatedWithCopies {
        buffer: String,
        index: usize,
        copy: usize,
    },
    /// An arrival on an object whose current phase has all its arrivals
    /// and waits for transaction bytes (PTX leaves it undefined).
    MbarrierExtraArrival { buffer: String, index: usize },
    /// An `expect_tx` or a bulk copy's completion that takes the object's
    /// pending transaction count `tx` outside PTX's `±(2^20 - 1)`.
    MbarrierTxCount {
        buffer: String,
        index: usize,
        tx: i128,
    },
    /// The host cannot allocate what the run needs (a block's shared
    /// memory with its bookkeeping).
    HostMemory { what: String, bytes: usize },
    /// An access to the copy of shared buffer `buffer` of the CTA of rank
    /// `rank` in the thread's cluster (a `.shared::cluster` address,
    /// `buf.in_cta(rank)`), where no CTA has that rank: it is outside `0`
    /// to `cluster - 1`, or the kernel declares no cluster (`cluster` is
    /// 1).
    ClusterRank {
        buffer: String,
        rank: i64,
        cluster: u32,
    },
    /// An access to the copy of shared buffer `buffer` of another CTA of
    /// the cluster (of rank `rank`) that no cluster barrier
    /// (`barrier.cluster.wait`) orders after that CTA's start
    /// (`before_first_barrier`: the cluster has passed none) or before its
    /// exit (none follows the access): that CTA may not have started yet,
    /// or may have exited, and its shared memory need not exist then.
    RemoteSharedLifetime {
        buffer: String,
        rank: u32,
        before_first_barrier: bool,
    },
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "kernel `{}`", self.kernel)?;
        if let Some((number, opcode)) = &self.statement {
            write!(f, ", statement {number} (`{opcode}`)")?;
        }
        if let Some(thread) = &self.thread {
            write!(f, ", {thread}")?;
        }
        f.write_str(": ")?;
        match &self.kind {
            FaultKind::Arguments(why) => write!(f, "bad arguments: {why}"),
            FaultKind::OutOfBounds {
                param,
                offset,
                bytes,
                len,
            } => write!(
                f,
                "{bytes}-byte access at byte {offset} of `{param}` is out of bounds ({len} bytes)"
            ),
            FaultKind::Misaligned {
                param,
                offset,
                bytes,
            } => write!(
                f,
                "{bytes}-byte access at byte {offset} of `{param}` is not {bytes}-byte aligned"
            ),
            FaultKind::UndefinedRegister { tile, element } => write!(
                f,
                "reads register {element} of `{tile}`, which holds no defined value here"
            ),
            FaultKind::Race {
                param,
                offset,
                other,
            } => match other {
                Some(other) => write!(f, "data race on byte {offset} of `{param}` with {other}"),
                None => write!(
                    f,
                    "data race on byte {offset} of `{param}`, which several other threads read"
                ),
            },
            FaultKind::ReadOnlyWrite { param } => {
                write!(f, "writes `{param}`, which the kernel only reads")
            }
            FaultKind::IndexDivisionByZero => f.write_str("index arithmetic divides by zero"),
            FaultKind::Collective { message } | FaultKind::Barrier { message } => {
                f.write_str(message)
            }
            FaultKind::WorkLimit { limit } => write!(
                f,
                "the block ran more than {limit} instructions and loop iterations (the run's work limit)"
            ),
            FaultKind::SharedOutOfBounds {
                buffer,
                offset,
                bytes,
                len,
            } => write!(
                f,
                "{bytes}-byte access at byte {offset} of shared buffer `{buffer}` is out of bounds ({len} bytes)"
            ),
            FaultKind::SharedMisaligned {
                buffer,
                offset,
                bytes,
            } => write!(
                f,
                "{bytes}-byte access at byte {offset} of shared buffer `{buffer}` is not {bytes}-byte aligned"
            ),
            FaultKind::SharedRace {
                buffer,
                offset,
                other,
            } => match other {
                Some(other) => write!(
                    f,
                    "data race on byte {offset} of shared buffer `{buffer}` with {other}, no barrier between them"
                ),
                None => write!(
                    f,
                    "data race on byte {offset} of shared buffer `{buffer}`, which several other threads touched since the last barrier"
                ),
            },
            FaultKind::UninitializedShared { buffer, offset } => write!(
                f,
                "reads byte {offset} of shared buffer `{buffer}`, which no thread of the block has written (shared memory starts undefined)"
            ),
            FaultKind::AsyncCopyInFlight {
                buffer,
                offset,
                copy,
            } => write!(
                f,
                "touches byte {offset} of shared buffer `{buffer}` while the `cp.async` of statement {copy} still owns it (before the wait that retires its group)"
            ),
            FaultKind::AsyncCopyNeverWaited { copy } => write!(
                f,
                "ends with the `cp.async` of statement {copy} still in flight (never waited for)"
            ),
            FaultKind::AsyncCopyUnobserved {
                buffer,
                offset,
                copy,
                mbarrier,
                index,
                phase,
            } => write!(
                f,
                "touches byte {offset} of shared buffer `{buffer}`, which the `cp.async` of statement {copy} wrote when phase {phase} of mbarrier {index} of `{mbarrier}` completed, but this thread has not observed that phase (no acquiring `mbarrier.try_wait` returned after it) and no barrier since made the copy visible"
            ),
            FaultKind::AsyncStoreSourceWritten {
                buffer,
                offset,
                store,
            } => write!(
                f,
                "writes byte {offset} of shared buffer `{buffer}`, which the bulk store of statement {store} reads as its source until a `cp.async.bulk.wait_group` of its thread retires its bulk group"
            ),
            FaultKind::AsyncStoreOverlap {
                param,
                offset,
                store,
            } => write!(
                f,
                "bulk-stores byte {offset} of `{param}`, which the bulk store of statement {store} of this thread also writes, with no `cp.async.bulk.wait_group` (without `.read`) retiring that store between them: the two writes may complete in either order"
            ),
            FaultKind::AsyncStoreNeverWaited { store } => write!(
                f,
                "ends with the bulk store of statement {store} still reading its shared source (no `cp.async.bulk.wait_group` of the thread retired its bulk group)"
            ),
            FaultKind::MbarrierUninitialized { buffer, index } => write!(
                f,
                "uses mbarrier {index} of shared buffer `{buffer}`, which is not initialized (no `mbarrier.init` in this block, or `mbarrier.inval` since)"
            ),
            FaultKind::MbarrierReinitialized { buffer, index } => write!(
                f,
                "initializes mbarrier {index} of shared buffer `{buffer}`, which is already initialized (`mbarrier.inval` it first)"
            ),
            FaultKind::MbarrierCount {
                buffer,
                index,
                count,
            } => write!(
                f,
                "initializes mbarrier {index} of shared buffer `{buffer}` to expect {count} arrivals, outside 1 to 1048575"
            ),
            FaultKind::MbarrierParity {
                buffer,
                index,
                parity,
            } => write!(
                f,
                "waits on mbarrier {index} of shared buffer `{buffer}` for phase parity {parity}, which is neither 0 nor 1"
            ),
            FaultKind::MbarrierWaitNeverCompletes {
                buffer,
                index,
                parity,
                phases,
            } => write!(
                f,
                "waits on mbarrier {index} of shared buffer `{buffer}` for the phase of parity {parity}, which never completes: {phases} phases have completed, the current one (of parity {parity}) lacks arrivals, and no thread of the block makes them before this wait in the interpreter's lockstep order (on the GPU the wait would hang)"
            ),
            FaultKind::MbarrierInvalidatedWithCopies {
                buffer,
                index,
                copy,
            } => write!(
                f,
                "invalidates mbarrier {index} of shared buffer `{buffer}` while its current phase still tracks the `cp.async` of statement {copy} (`cp.async.mbarrier.arrive`): the copy's completion would arrive on an invalid object"
            ),
            FaultKind::MbarrierExtraArrival { buffer, index } => write!(
                f,
                "arrives on mbarrier {index} of shared buffer `{buffer}`, whose current phase has all its arrivals and waits for transaction bytes (the arrival would count toward no phase)"
            ),
            FaultKind::MbarrierTxCount { buffer, index, tx } => write!(
                f,
                "takes the pending transaction count of mbarrier {index} of shared buffer `{buffer}` to {tx}, outside -1048575 to 1048575"
            ),
            FaultKind::HostMemory { what, bytes } => write!(
                f,
                "the host cannot allocate the {bytes} bytes that {what} takes in the interpreter"
            ),
            FaultKind::ClusterRank {
                buffer,
                rank,
                cluster: 1,
            } => write!(
                f,
                "addresses shared buffer `{buffer}` of the CTA of rank {rank} in its cluster, but the kernel declares no cluster (each CTA is a cluster of 1: `cluster = [..]` in the attribute declares one)"
            ),
            FaultKind::ClusterRank {
                buffer,
                rank,
                cluster,
            } => write!(
                f,
                "addresses shared buffer `{buffer}` of the CTA of rank {rank} in its cluster, but the cluster has {cluster} CTAs (ranks 0 to {})",
                cluster.saturating_sub(1)
            ),
            FaultKind::RemoteSharedLifetime {
                buffer,
                rank,
                before_first_barrier: true,
            } => write!(
                f,
                "accesses shared buffer `{buffer}` of the CTA of rank {rank} in its cluster before the cluster's first cluster barrier (`barrier.cluster.wait`): that CTA may not have started, and its shared memory may not exist yet"
            ),
            FaultKind::RemoteSharedLifetime {
                buffer,
                rank,
                before_first_barrier: false,
            } => write!(
                f,
                "accesses shared buffer `{buffer}` of the CTA of rank {rank} in its cluster with no cluster barrier (`barrier.cluster.wait`) after it: that CTA may exit, and its shared memory cease to exist, before the access"
            ),
        }
    }
}

impl std::error::Error for Fault {}

/// Why a program cannot be prepared (only for hand-built or corrupt IR: the
/// checker's programs always prepare).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrepareError {
    pub kernel: String,
    pub message: String,
}

impl fmt::Display for PrepareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "kernel `{}` cannot be interpreted: {}",
            self.kernel, self.message
        )
    }
}

impl std::error::Error for PrepareError {}
