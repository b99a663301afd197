//! The value semantics of every usable PTX form, as pure functions of bits.
//!
//! For one legal variant ([`Modifiers`]) of a form, [`compute`] returns a
//! [`Compute`]: a function from the instruction's *source lanes* to its
//! *destination lanes*, each lane one register's bits zero-extended to a
//! `u64` (a predicate is 0 or 1). Lanes are flattened in PTX operand order:
//!
//! - sources: every `Access::Read` operand that is a register, predicate,
//!   immediate or special register, each of its lanes in order (`{a, b}`
//!   gives two lanes); an immediate arrives as its `i64` value cast to
//!   `u64`, truncated to the operand's carrier width;
//! - destinations: every `Access::Write` register or predicate operand,
//!   each of its lanes in order (`p|q` gives two, `d|p` gives `d` then `p`).
//!
//! Memory forms (`ld`, `st`, `ldu`, `prefetch`, the asynchronous copies
//! and bulk stores with their groups and waits) move bytes and are run by
//! the executor; atomics (`atom`, `red`) get their per-element update from
//! [`atomic_update`], and so do bulk reductions (`cp.reduce.async.bulk`
//! into global memory: [`Semantics::BulkReduce`]); mbarrier operations
//! ([`MbarrierOp`]) change the state of an mbarrier object, which the
//! executor keeps. Everything else is a [`Compute`].
//!
//! Guarantee: a [`Compute`] never panics for any input bits, writes exactly
//! [`Compute::outputs`] lanes, each masked to its carrier width, and is the
//! PTX ISA's result for that variant (bit-exact, including NaN payloads,
//! ftz, saturation and rounding), except for the `.approx` forms, whose
//! documented error bounds are in `docs/interpreter.md`.

use tile_kernel_lowering::ptx::Slot;
use tile_kernel_lowering::ptx::{Access, Effect, Modifiers, OperandKind, Usability};

pub mod softfloat;

mod approx;
mod bits;
mod compare;
mod convert;
mod data;
mod float;
mod half;
mod integer;
pub(crate) mod matrix;
mod warp;

/// One register lane's bits, zero-extended (predicates: 0 or 1).
pub type Bits = u64;

/// The function one instruction variant computes.
type ComputeFn = dyn Fn(&[Bits], &mut [Bits]) + Send + Sync;

/// The per-element function of an atomic: `(old, operands) -> new`.
type UpdateFn = dyn Fn(Bits, &[Bits]) -> Bits + Send + Sync;

/// The semantics of one variant: source lanes in, destination lanes out.
pub struct Compute {
    inputs: usize,
    outputs: usize,
    function: Box<ComputeFn>,
}

impl Compute {
    /// Wraps `function`, which reads exactly `inputs` source lanes and writes
    /// exactly `outputs` destination lanes.
    pub fn new(
        inputs: usize,
        outputs: usize,
        function: impl Fn(&[Bits], &mut [Bits]) + Send + Sync + 'static,
    ) -> Compute {
        Compute {
            inputs,
            outputs,
            function: Box::new(function),
        }
    }

    /// How many source lanes it reads.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// How many destination lanes it writes.
    pub fn outputs(&self) -> usize {
        self.outputs
    }

    /// Runs it: `sources.len() == inputs()`, `destinations.len() == outputs()`.
    pub fn run(&self, sources: &[Bits], destinations: &mut [Bits]) {
        (self.function)(sources, destinations)
    }
}

impl std::fmt::Debug for Compute {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compute")
            .field("inputs", &self.inputs)
            .field("outputs", &self.outputs)
            .finish_non_exhaustive()
    }
}

/// The per-element update of an atomic: `new = update(old, operands)`,
/// where `operands` are the instruction's source register lanes for this
/// element (`b`, or `b, c` for `cas`) and `old` the memory element's bits
/// (`bits` wide: the type's width, e.g. 32 for `.f16x2`, 16 for `.f16`).
pub struct AtomicUpdate {
    /// Width of one memory element, in bits.
    pub bits: usize,
    function: Box<UpdateFn>,
}

impl AtomicUpdate {
    pub fn new(
        bits: usize,
        function: impl Fn(Bits, &[Bits]) -> Bits + Send + Sync + 'static,
    ) -> AtomicUpdate {
        AtomicUpdate {
            bits,
            function: Box::new(function),
        }
    }

    /// The new memory bits for one element.
    pub fn apply(&self, old: Bits, operands: &[Bits]) -> Bits {
        (self.function)(old, operands)
    }
}

impl std::fmt::Debug for AtomicUpdate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtomicUpdate")
            .field("bits", &self.bits)
            .finish_non_exhaustive()
    }
}

/// Why a warp collective has no defined result (what the GPU would
/// silently get wrong): the executor reports it as a fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectiveError {
    /// The lane whose view is undefined.
    pub lane: u32,
    pub message: String,
}

/// The function of a warp collective over the lanes that execute it.
type CollectiveFn = dyn Fn(u32, &[Bits], &mut [Bits]) -> Result<(), CollectiveError> + Send + Sync;

/// The semantics of a warp-level collective (`shfl.sync`, `vote.sync`,
/// `match.sync`, `redux.sync`, `activemask`, `elect.sync`): every lane's
/// destinations from every executing lane's sources.
///
/// `run(executing, sources, destinations)`: `executing` has bit `l` set
/// for each lane `l` of the warp that executes the instruction together
/// (the warp's active threads whose guard holds); `sources` holds
/// `32 * inputs()` lanes, lane `l`'s source lanes at `l * inputs()..`
/// (in [`Compute`]'s order, `membermask` included; lanes not executing
/// hold 0); the function writes `destinations[l * outputs()..]` for every
/// executing lane `l` and nothing else. It fails where PTX leaves the
/// result undefined: a lane's `membermask` that does not include the lane
/// itself, names lanes that do not execute, or names a lane whose own mask
/// differs (lanes with different but self-consistent masks, as in 16-lane
/// tiles, form separate groups).
pub struct Collective {
    inputs: usize,
    outputs: usize,
    function: Box<CollectiveFn>,
    /// It orders memory among the lanes of each membermask group
    /// (`bar.warp.sync`): [`Self::fencing`].
    fences: bool,
}

impl Collective {
    pub fn new(
        inputs: usize,
        outputs: usize,
        function: impl Fn(u32, &[Bits], &mut [Bits]) -> Result<(), CollectiveError>
        + Send
        + Sync
        + 'static,
    ) -> Collective {
        Collective {
            inputs,
            outputs,
            function: Box::new(function),
            fences: false,
        }
    }

    /// The collective also orders the shared-memory accesses of each
    /// group of lanes that run it with one membermask: each member's
    /// earlier accesses before every member's later ones (`bar.warp.sync`;
    /// the other `.sync` collectives order nothing).
    pub fn fencing(mut self) -> Collective {
        self.fences = true;
        self
    }

    /// Whether it orders memory ([`Self::fencing`]).
    pub fn fences(&self) -> bool {
        self.fences
    }

    /// Source lanes per thread.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// Destination lanes per thread.
    pub fn outputs(&self) -> usize {
        self.outputs
    }

    /// Runs it for one warp (see the type's documentation).
    pub fn run(
        &self,
        executing: u32,
        sources: &[Bits],
        destinations: &mut [Bits],
    ) -> Result<(), CollectiveError> {
        (self.function)(executing, sources, destinations)
    }
}

impl std::fmt::Debug for Collective {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Collective")
            .field("inputs", &self.inputs)
            .field("outputs", &self.outputs)
            .finish_non_exhaustive()
    }
}

/// What a CTA barrier computes besides waiting (`bar.red`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarrierReduction {
    /// `bar.red.popc.u32`: how many threads' predicate `c` is true.
    Popc,
    /// `bar.red.and.pred`: whether every thread's `c` is true.
    And,
    /// `bar.red.or.pred`: whether any thread's `c` is true.
    Or,
}

/// A CTA barrier (`bar.sync`, `barrier.sync`, `bar.red`, with or without
/// a thread count): every expected thread of the block reaches it before
/// any passes it, and memory accesses before it are ordered before the
/// accesses after it for the threads of the block. Or the cluster barrier
/// (`barrier.cluster.wait`, `cluster`): the same for every thread of the
/// cluster (in a kernel without a cluster, the block's).
///
/// Sources, in [`Compute`]'s order: the barrier number `a`, the count `b`
/// (`count`), the predicate `c` (`reduction`); the destination `d` is the
/// reduction's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Barrier {
    /// The form names its barrier `a` (the cluster barrier takes no
    /// operand).
    pub numbered: bool,
    /// `barrier.cluster.wait`: the cluster barrier, whose arrival half
    /// (`barrier.cluster.arrive`) is a fence ([`Semantics::Fence`]).
    pub cluster: bool,
    /// The form takes a thread count `b` (else: all threads of the block).
    pub count: bool,
    pub reduction: Option<BarrierReduction>,
}

/// How the executor runs a variant.
#[derive(Debug)]
pub enum Semantics {
    /// Register lanes in, register lanes out.
    Compute(Compute),
    /// `ld`/`ldu`: memory to the destination lanes.
    Load,
    /// `st`: the source lanes to memory.
    Store,
    /// `prefetch`/`prefetchu`: no effect on values.
    Prefetch,
    /// `atom` (`returns_old`) or `red`: one update per element.
    Atomic {
        update: AtomicUpdate,
        returns_old: bool,
    },
    /// A warp collective: all executing lanes of a warp at once.
    Collective(Collective),
    /// `ldmatrix.sync.aligned.m8n8.<num>{.trans}.shared.b16 d, [p]`
    /// (ISA 9.7.14.5.15): a warp collective that reads memory. Every lane
    /// reads the 16-byte row at its address (one row of an 8 x 8 matrix of
    /// b16; rows `8 i .. 8 i + 8` of matrix `i` come from lanes `8 i ..
    /// 8 i + 8`); lane `l`'s register `i` (`i < matrices`) holds matrix
    /// `i`'s elements `[l / 4][2 (l % 4) ..+2]`, or with `.trans` the
    /// elements `[2 (l % 4)][l / 4]` (low half) and `[2 (l % 4) + 1][l / 4]`.
    /// `.aligned`: all 32 lanes execute it. Lanes whose rows the shape does
    /// not use (above 8 for `.x1`, 16 for `.x2`) still read theirs, as the
    /// checker proves them (sm_75 and below read them all).
    MatrixLoad { matrices: usize, transpose: bool },
    /// `stmatrix.sync.aligned.m8n8.<num>{.trans}.shared.b16 [p], r`
    /// (sm_90): the inverse of [`Semantics::MatrixLoad`]. Row `r` of matrix
    /// `i` goes to the address of lane `8 i + r`: its halves `j` come from
    /// lane `4 r + j / 2`'s register `i` (half `j % 2`), or with `.trans`
    /// from lane `4 j + r / 2` (half `r % 2`). Only the lanes whose rows
    /// the shape stores write (8 for `.x1`, 16 for `.x2`).
    MatrixStore { matrices: usize, transpose: bool },
    /// A CTA barrier, or the cluster barrier.
    Barrier(Barrier),
    /// `cp.async`: global to shared, landing at the thread's wait.
    AsyncCopy,
    /// `cp.async.bulk` global to shared: a run of `size` bytes, landing
    /// when the phase of the mbarrier it signals (`complete_tx`) completes.
    BulkCopy,
    /// `cp.async.bulk.tensor` global to shared: a box of a tensor through
    /// its tensor map, elements outside the tensor zero-filled, landing
    /// like a bulk copy.
    TensorCopy,
    /// `cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size`:
    /// a run of `size` bytes from shared to global memory, completing in
    /// a bulk group of its thread ([`Semantics::BulkCommit`],
    /// [`Semantics::BulkWait`]). Its source is the store's to read (no
    /// one may write it) until a bulk wait of its thread retires its
    /// group.
    BulkStore,
    /// `cp.reduce.async.bulk.global.shared::cta.bulk_group.op.type [dst],
    /// [src], size`: a [`Semantics::BulkStore`] whose every element (of
    /// the update's `bits`) updates global memory atomically instead of
    /// overwriting it, `dst[i] = update(dst[i], src[i])`, with the update
    /// `red.global.op.type` would do (relaxed, `.gpu` scope: PTX gives the
    /// reduction `red`'s per-element semantics).
    BulkReduce(AtomicUpdate),
    /// `cp.async.bulk.tensor.Nd.global.shared::cta{.tile}.bulk_group
    /// [tensorMap, coords], [srcMem]{, policy}`: a box of shared memory
    /// (row-major) to the tensor at the coordinates through its tensor
    /// map, elements outside the tensor not written; completes like a
    /// [`Semantics::BulkStore`].
    TensorStore,
    /// A fence: the lockstep executor's accesses are already ordered; the
    /// proxy rules it makes hold are the checker's. (`wgmma.fence`,
    /// `wgmma.commit_group` and `wgmma.wait_group` too: a `wgmma` runs at
    /// its issue, [`Semantics::WarpgroupMma`]; and `setmaxnreg`: the
    /// interpreter's registers are not a pool, and the checker proved the
    /// CTA's pool holds what the warpgroups ask for.)
    Fence,
    /// `wgmma.mma_async`: the 128 threads of a warpgroup together compute D
    /// from A (registers or a shared matrix), B (a shared matrix) and D.
    /// Run at issue: the checker proves that nothing reads D or writes the
    /// matrices before the `wgmma.wait_group` that retires it, so a legal
    /// kernel cannot tell.
    WarpgroupMma(matrix::Wgmma),
    /// `cp.async.commit_group`.
    AsyncCommit,
    /// `cp.async.wait_group n` (`all: false`, `n` its operand) or
    /// `cp.async.wait_all`.
    AsyncWait { all: bool },
    /// `cp.async.bulk.commit_group`: the thread's bulk stores since its
    /// last one form a bulk group (bulk groups are not `cp.async` groups).
    BulkCommit,
    /// `cp.async.bulk.wait_group{.read} n`: waits until at most the `n`
    /// most recent of the thread's bulk groups are pending; `read`: only
    /// until their sources have been read (their writes to global memory
    /// may still be in flight).
    BulkWait { read: bool },
    /// An operation on an mbarrier object in shared memory.
    Mbarrier(MbarrierOp),
}

/// What an mbarrier form does to its object (the 8 bytes at its `addr`).
/// Operands, in PTX order (the executor takes them from the variant):
///
/// - `Init`: `[addr], count`;
/// - `Inval`: `[addr]`;
/// - `Arrive`: `state, [addr]` (and `txCount` for `expect_tx`), `state` a
///   `.b64` register or the sink `_`;
/// - `CopyArrive`: `[addr]`;
/// - `WaitParity`: `done, [addr], parity` (and `suspendTimeHint`, which
///   changes no result), `done` the compiler's retry predicate: the wait
///   blocks until the phase has completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MbarrierOp {
    /// `mbarrier.init`: phase 0, `count` arrivals expected per phase.
    Init,
    /// `mbarrier.inval`: the object is no mbarrier any more.
    Inval,
    /// `mbarrier.arrive` (one arrival); `release` (the default, or
    /// `.release`): the thread's earlier accesses are ordered before what
    /// a wait that observes the phase does; `.relaxed` orders none.
    /// `expect_tx`: the phase's pending transaction bytes rise by its
    /// `txCount` first.
    Arrive { release: bool, expect_tx: bool },
    /// `cp.async.mbarrier.arrive`: the thread's `cp.async` copies so far
    /// complete with the object's current phase; `noinc`: it is also one
    /// of the phase's arrivals (else it adds none: PTX raises the pending
    /// count and arrives when the copies complete).
    CopyArrive { noinc: bool },
    /// `mbarrier.try_wait.parity`, retried until done: returns once the
    /// phase of the parity has completed. `acquire` (the default, or
    /// `.acquire`): the waiting thread then sees what the completed
    /// phases made visible (the copies that landed with them); `.relaxed`
    /// orders no memory.
    WaitParity { acquire: bool },
}

/// Why a variant has no semantics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoSemantics {
    pub opcode: String,
}

impl std::fmt::Display for NoSemantics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the interpreter has no semantics for `{}`", self.opcode)
    }
}

impl std::error::Error for NoSemantics {}

/// The semantics of one legal variant.
pub fn semantics(variant: &Modifiers) -> Result<Semantics, NoSemantics> {
    let missing = || NoSemantics {
        opcode: variant.opcode_text(),
    };
    // Memory is modelled in the spaces kernels address: a form kernels may
    // not use (multicast objects, bulk prefetches, tensor maps) has none.
    let modelled = !matches!(variant.usability(), Usability::NotYet(_));
    match variant.effect() {
        Effect::Load { .. } if modelled => return Ok(Semantics::Load),
        Effect::Store if modelled => return Ok(Semantics::Store),
        Effect::Prefetch if modelled => return Ok(Semantics::Prefetch),
        // A bulk reduction into global memory is a bulk store that updates
        // each element; tensor reductions (and reductions into another
        // CTA's shared memory) are not modelled.
        Effect::AsyncCopy if variant.form.mnemonic.starts_with("cp.reduce") => {
            if !modelled
                || !variant.bulk_reduction()
                || variant.form.mnemonic != "cp.reduce.async.bulk"
            {
                return Err(missing());
            }
            let update = atomic_update(variant).ok_or_else(missing)?;
            return Ok(Semantics::BulkReduce(update));
        }
        // A bulk copy into global memory is a store of the async proxy,
        // completing in a bulk group; one into shared memory a load,
        // completing on an mbarrier.
        Effect::AsyncCopy if modelled && variant.form.mnemonic == "cp.async.bulk" => {
            return Ok(if to_global(variant) {
                Semantics::BulkStore
            } else {
                Semantics::BulkCopy
            });
        }
        Effect::AsyncCopy if modelled && variant.form.mnemonic == "cp.async.bulk.tensor" => {
            // Tile mode only (`im2col` boxes are not modelled).
            if !matches!(variant.get(Slot::LoadMode), None | Some("tile")) {
                return Err(missing());
            }
            return Ok(if to_global(variant) {
                Semantics::TensorStore
            } else {
                Semantics::TensorCopy
            });
        }
        Effect::AsyncCopy if modelled => return Ok(Semantics::AsyncCopy),
        Effect::Fence if modelled => return Ok(Semantics::Fence),
        // The arrival half of the cluster barrier: the lockstep executor
        // runs the threads of a cluster's CTAs together, so the wait (a
        // barrier of the cluster's threads, below) is where the phase
        // completes.
        Effect::Barrier { waits: false }
            if modelled
                && variant.form.mnemonic == "barrier"
                && variant.get(Slot::Scope) == Some("cluster") =>
        {
            return Ok(Semantics::Fence);
        }
        Effect::RegisterCount if modelled => return Ok(Semantics::Fence),
        Effect::AsyncGroup if modelled => {
            return match variant.form.mnemonic {
                "cp.async.commit_group" => Ok(Semantics::AsyncCommit),
                "cp.async.wait_group" => Ok(Semantics::AsyncWait { all: false }),
                "cp.async.wait_all" => Ok(Semantics::AsyncWait { all: true }),
                "cp.async.bulk.commit_group" => Ok(Semantics::BulkCommit),
                "cp.async.bulk.wait_group" => Ok(Semantics::BulkWait {
                    read: variant.has(Slot::Read),
                }),
                "wgmma.commit_group" | "wgmma.wait_group" => Ok(Semantics::Fence),
                _ => Err(missing()),
            };
        }
        Effect::Atomic { returns_old } if modelled => {
            let update = atomic_update(variant).ok_or_else(missing)?;
            return Ok(Semantics::Atomic {
                update,
                returns_old,
            });
        }
        Effect::WarpgroupMma if modelled => {
            return matrix::Wgmma::of(variant)
                .map(Semantics::WarpgroupMma)
                .ok_or_else(missing);
        }
        Effect::Mbarrier if modelled => {
            return mbarrier(variant)
                .map(Semantics::Mbarrier)
                .ok_or_else(missing);
        }
        _ => {}
    }
    if let Some(barrier) = barrier(variant) {
        return Ok(Semantics::Barrier(barrier));
    }
    if matches!(variant.form.mnemonic, "ldmatrix" | "stmatrix") {
        let matrices = match variant.get(Slot::Num) {
            Some("x1") => 1,
            Some("x2") => 2,
            Some("x4") => 4,
            _ => return Err(missing()),
        };
        let transpose = variant.get(Slot::Trans).is_some();
        return Ok(if variant.form.mnemonic == "ldmatrix" {
            Semantics::MatrixLoad {
                matrices,
                transpose,
            }
        } else {
            Semantics::MatrixStore {
                matrices,
                transpose,
            }
        });
    }
    if let Some(collective) = matrix::collective(variant) {
        return Ok(Semantics::Collective(collective));
    }
    if let Some(collective) = warp::collective(variant) {
        return Ok(Semantics::Collective(collective));
    }
    compute(variant).map(Semantics::Compute).ok_or_else(missing)
}

/// Whether an asynchronous copy writes global memory (its destination
/// slot is `.global`): a bulk store of the async proxy.
fn to_global(variant: &Modifiers) -> bool {
    variant.get(Slot::Dst) == Some("global")
}

/// The register semantics of a non-memory variant, if it has one.
pub fn compute(variant: &Modifiers) -> Option<Compute> {
    let found = convert::compute(variant)
        .or_else(|| float::compute(variant))
        .or_else(|| half::compute(variant))
        .or_else(|| integer::compute(variant))
        .or_else(|| bits::compute(variant))
        .or_else(|| data::compute(variant))
        .or_else(|| compare::compute(variant))?;
    debug_assert_eq!(
        found.inputs,
        source_lanes(variant),
        "{}",
        variant.opcode_text()
    );
    debug_assert_eq!(
        found.outputs,
        destination_lanes(variant),
        "{}",
        variant.opcode_text()
    );
    Some(found)
}

/// The barrier a `bar`/`barrier` variant is (`None` for `arrive`, which
/// splits a barrier into phases the lockstep executor does not model, and
/// for other forms).
pub fn barrier(variant: &Modifiers) -> Option<Barrier> {
    if variant.effect() != (Effect::Barrier { waits: true }) {
        return None;
    }
    let reduction = match variant.get(Slot::Op)? {
        // `barrier.cluster.wait`: the barrier of the cluster's threads
        // (the executor runs a cluster's CTAs together in lockstep).
        "sync" | "wait" => None,
        "red" => Some(match variant.get(Slot::Redop)? {
            "popc" => BarrierReduction::Popc,
            "and" => BarrierReduction::And,
            "or" => BarrierReduction::Or,
            _ => return None,
        }),
        _ => return None,
    };
    Some(Barrier {
        numbered: variant.form.operands.iter().any(|o| o.name == "a"),
        cluster: variant.get(Slot::Scope) == Some("cluster"),
        count: variant.form.operands.iter().any(|o| o.name == "b"),
        reduction,
    })
}

/// The mbarrier operation of an `Effect::Mbarrier` variant, for the forms
/// the executor models: `init`, `inval`, a single `arrive` and its
/// `expect_tx` form (not its `count` or `drop` forms), `cp.async.mbarrier.arrive` and the
/// parity `try_wait`.
pub fn mbarrier(variant: &Modifiers) -> Option<MbarrierOp> {
    if variant.effect() != Effect::Mbarrier {
        return None;
    }
    let operands: Vec<&str> = variant.form.operands.iter().map(|o| o.name).collect();
    Some(match (variant.form.mnemonic, operands.as_slice()) {
        ("mbarrier.init", ["addr", "count"]) => MbarrierOp::Init,
        ("mbarrier.inval", ["addr"]) => MbarrierOp::Inval,
        ("mbarrier.arrive", ["state", "addr"]) => MbarrierOp::Arrive {
            release: variant.get(Slot::Sem) != Some("relaxed"),
            expect_tx: false,
        },
        ("mbarrier.arrive.expect_tx", ["state", "addr", "txCount"]) => MbarrierOp::Arrive {
            release: variant.get(Slot::Sem) != Some("relaxed"),
            expect_tx: true,
        },
        ("cp.async.mbarrier.arrive", ["addr"]) => MbarrierOp::CopyArrive {
            noinc: variant.has(Slot::Noinc),
        },
        ("mbarrier.try_wait", ["done", "addr", "parity", ..]) if variant.has(Slot::Parity) => {
            MbarrierOp::WaitParity {
                acquire: variant.get(Slot::Sem) != Some("relaxed"),
            }
        }
        _ => return None,
    })
}

/// The per-element update of an `atom`/`red` variant, or of a bulk
/// reduction into global memory ([`Modifiers::bulk_reduction`]), whose
/// every source element is the `b` of one update: the same function as
/// the `red.global` variant of its operation and type.
pub fn atomic_update(variant: &Modifiers) -> Option<AtomicUpdate> {
    integer::atomic_update(variant).or_else(|| float::atomic_update(variant))
}

/// How many source lanes a variant's [`Compute`] reads.
pub fn source_lanes(variant: &Modifiers) -> usize {
    variant
        .operands()
        .iter()
        .filter(|o| o.access == Access::Read && o.kind != OperandKind::Address)
        .map(|o| usize::from(o.lanes))
        .sum()
}

/// How many destination lanes a variant's [`Compute`] writes.
pub fn destination_lanes(variant: &Modifiers) -> usize {
    variant
        .operands()
        .iter()
        .filter(|o| o.access == Access::Write && o.kind != OperandKind::Address)
        .map(|o| usize::from(o.lanes))
        .sum()
}

/// `value` truncated to its low `bits` bits.
pub fn mask(value: Bits, bits: usize) -> Bits {
    if bits >= 64 {
        value
    } else {
        value & ((1u64 << bits) - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tile_kernel_lowering::ptx::resolve;

    /// The variant of `mnemonic` an opcode names (panics if none is legal).
    fn variant(opcode: &str, mnemonic: &str) -> Modifiers {
        resolve(opcode)
            .unwrap_or_else(|e| panic!("{opcode}: {e:?}"))
            .into_iter()
            .find(|m| m.form.mnemonic == mnemonic)
            .unwrap_or_else(|| panic!("{opcode}: not a {mnemonic} form"))
    }

    /// A bulk reduction's per-element update is its `red.global` twin's:
    /// on every pair of `inputs` (old, source element), the same bits.
    /// Subnormal f32 inputs tell the global twin (flushing) from the
    /// shared one, and NaN f64 ones tell which NaN the sum keeps.
    #[test]
    fn a_bulk_reduction_updates_each_element_as_red_global_does() {
        let f32s = [
            0x3f80_0000,
            0xc040_0000,
            0x0000_0001,
            0x8040_0000,
            0x7fc0_1234,
        ];
        let f64s = [
            1.5f64.to_bits(),
            (-0.25f64).to_bits(),
            0x7ff0_0000_0000_0001,
            0x7ff8_0000_0000_0002,
            1,
        ];
        let halves = [0x3c00, 0xbc00, 0x0001, 0x7e01, 0x8000, 0x3f80, 0xffc1];
        let ints = [0, 1, 7, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, u64::MAX];
        let cases: [(&str, &[u64]); 14] = [
            ("add.u32", &ints),
            ("add.s32", &ints),
            ("add.u64", &ints),
            ("and.b32", &ints),
            ("xor.b64", &ints),
            ("inc.u32", &ints),
            ("dec.u32", &ints),
            ("min.s32", &ints),
            ("max.s64", &ints),
            ("min.u64", &ints),
            ("add.f32", &f32s),
            ("add.f64", &f64s),
            ("add.noftz.f16", &halves),
            ("add.noftz.bf16", &halves),
        ];
        for (op, inputs) in cases {
            let bulk = variant(
                &format!("cp.reduce.async.bulk.global.shared::cta.bulk_group.{op}"),
                "cp.reduce.async.bulk",
            );
            let red = variant(&format!("red.global.{op}"), "red");
            assert!(bulk.bulk_reduction(), "{op}");
            let (Some(bulk), Some(red)) = (atomic_update(&bulk), atomic_update(&red)) else {
                panic!("{op}: no update");
            };
            assert_eq!(bulk.bits, red.bits, "{op}");
            for &old in inputs {
                for &b in inputs {
                    let (old, b) = (mask(old, bulk.bits), mask(b, bulk.bits));
                    assert_eq!(
                        bulk.apply(old, &[b]),
                        red.apply(old, &[b]),
                        "{op}: {old:#x}, {b:#x}"
                    );
                }
            }
        }
        // Exact values: the global f32 add flushes a subnormal input.
        let add = atomic_update(&variant(
            "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32",
            "cp.reduce.async.bulk",
        ))
        .expect("an update");
        assert_eq!(add.apply(0x3f80_0000, &[0x4000_0000]), 0x4040_0000);
        assert_eq!(add.apply(0, &[1]), 0);
    }

    /// Every bulk reduction into global memory a kernel may use is one,
    /// with an update of its type's width.
    #[test]
    fn every_usable_bulk_reduction_has_an_update() {
        use tile_kernel_lowering::ptx::resolve::legal_variants;
        use tile_kernel_lowering::ptx::table::FORMS;
        let mut seen = 0;
        for form in FORMS
            .iter()
            .filter(|f| f.mnemonic == "cp.reduce.async.bulk" && f.usable == Usability::Yes)
        {
            for variant in legal_variants(form)
                .into_iter()
                .filter(|v| v.bulk_reduction())
            {
                let opcode = variant.opcode_text();
                match semantics(&variant) {
                    Ok(Semantics::BulkReduce(update)) => {
                        let ty = variant.ty(Slot::Type).expect("a type");
                        assert_eq!(update.bits, ty.carrier_bits(), "{opcode}");
                    }
                    other => panic!("{opcode}: {other:?}"),
                }
                seen += 1;
            }
        }
        assert!(seen >= 25, "only {seen} bulk reductions");
    }
}
