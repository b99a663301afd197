//! Prepare: the program's IR turned into what the executor runs quickly.
//!
//! Every statement's variant id names its table variant, whose
//! [`Semantics`] it runs (opcode text is never parsed again); every register lane becomes a byte range of the
//! thread's register frame; every polynomial becomes a flat list of terms;
//! every special register an enum.
//!
//! Guarantee: a [`Plan`] refers only to frame bytes, atoms, parameters,
//! shared buffers and statements that exist; every `Compute` gets exactly
//! the lanes it reads and writes; a memory operand is a tensor for a
//! global or generic form and a shared buffer for a `.shared` (CTA) form;
//! an mbarrier buffer is addressed by the mbarrier forms alone, and they
//! address nothing else; a parity wait is the blocking one (its `done` the
//! compiler's retry predicate); a bulk store (plain or tensor) reads a
//! shared buffer and writes a tensor; the shared buffers fit a CTA's
//! shared memory; only a `.shared::cluster` `ld`, `st`, `atom` or `red`
//! addresses another CTA's copy of a shared buffer; a cluster has at most
//! 16 CTAs. A program that does not
//! satisfy this (hand-built or corrupt IR) is a [`PrepareError`], never a
//! panic later.

use std::collections::HashMap;
use std::sync::Arc;

use tile_kernel_lowering::DType;
use tile_kernel_lowering::program::{
    CmpOp, Cond, DimSpec, MemorySpace, Node, OperandValue, ParamKind, Program, Statement,
};
use tile_kernel_lowering::ptx::{Access, Modifiers, OperandKind, Slot, Space, VariantId};
use tile_kernel_lowering::shared_layout::MatrixOperand;
use tile_kernel_lowering::sym::{AtomId, AtomKind, ComputedOp, Poly};

use crate::fault::PrepareError;
use crate::semantics::matrix::Wgmma;
use crate::semantics::{
    AtomicUpdate, Barrier, Bits, Collective, Compute, MbarrierOp, Semantics, mask, semantics,
};
use crate::shared::{MBARRIER_BYTES, SharedLayout};

/// A polynomial as a flat sum of products, evaluated with the wrapping
/// 64-bit arithmetic the emitted PTX uses.
#[derive(Debug, Clone)]
pub(crate) struct Linear {
    pub constant: i64,
    pub terms: Vec<(i64, Vec<AtomId>)>,
}

impl Linear {
    fn new(poly: &Poly, atoms: usize) -> Result<Linear, String> {
        let mut constant = 0i64;
        let mut terms = Vec::new();
        for (monomial, coefficient) in poly.terms() {
            // The emitter writes coefficients as 64-bit immediates.
            let coefficient = i64::try_from(coefficient)
                .map_err(|_| format!("coefficient {coefficient} does not fit 64 bits"))?;
            if monomial.is_empty() {
                constant = coefficient;
            } else {
                if let Some(bad) = monomial.iter().find(|a| **a as usize >= atoms) {
                    return Err(format!("unknown atom {bad}"));
                }
                terms.push((coefficient, monomial.to_vec()));
            }
        }
        Ok(Linear { constant, terms })
    }

    /// The value over one thread's atom values.
    #[inline]
    pub fn eval(&self, atoms: &[i64]) -> i64 {
        let mut sum = self.constant;
        for (coefficient, monomial) in &self.terms {
            let mut product = *coefficient;
            for atom in monomial {
                product = product.wrapping_mul(atoms[*atom as usize]);
            }
            sum = sum.wrapping_add(product);
        }
        sum
    }
}

/// A condition with its polynomials flattened and its predicate registers
/// located in the frame.
#[derive(Debug, Clone)]
pub(crate) enum Test {
    Const(bool),
    Cmp(CmpOp, Linear),
    /// A `bool` scalar parameter.
    Param(usize),
    /// A predicate register: frame byte `offset`, for reports `tile`/`register`.
    Register {
        offset: usize,
        tile: usize,
        register: usize,
    },
    Not(Box<Test>),
    And(Box<Test>, Box<Test>),
    Or(Box<Test>, Box<Test>),
}

/// A special register as the executor computes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Special {
    Tid(usize),
    Ntid(usize),
    Ctaid(usize),
    Nctaid(usize),
    LaneId,
    WarpId,
    NWarpId,
    SmId,
    NSmId,
    LaneMaskEq,
    LaneMaskLe,
    LaneMaskLt,
    LaneMaskGe,
    LaneMaskGt,
    Clock,
    Clock64,
    GlobalTimer,
    GridId,
    TotalSmemSize,
    DynamicSmemSize,
}

impl Special {
    fn from_name(name: &str) -> Option<Special> {
        let axis = |suffix: &str| match suffix {
            "x" => Some(0),
            "y" => Some(1),
            "z" => Some(2),
            _ => None,
        };
        if let Some((register, suffix)) = name.split_once('.') {
            let axis = axis(suffix)?;
            return match register {
                "%tid" => Some(Special::Tid(axis)),
                "%ntid" => Some(Special::Ntid(axis)),
                "%ctaid" => Some(Special::Ctaid(axis)),
                "%nctaid" => Some(Special::Nctaid(axis)),
                _ => None,
            };
        }
        Some(match name {
            "%laneid" => Special::LaneId,
            "%warpid" => Special::WarpId,
            "%nwarpid" => Special::NWarpId,
            "%smid" => Special::SmId,
            "%nsmid" => Special::NSmId,
            "%lanemask_eq" => Special::LaneMaskEq,
            "%lanemask_le" => Special::LaneMaskLe,
            "%lanemask_lt" => Special::LaneMaskLt,
            "%lanemask_ge" => Special::LaneMaskGe,
            "%lanemask_gt" => Special::LaneMaskGt,
            "%clock" => Special::Clock,
            "%clock64" => Special::Clock64,
            "%globaltimer" => Special::GlobalTimer,
            "%gridid" => Special::GridId,
            "%total_smem_size" => Special::TotalSmemSize,
            "%dynamic_smem_size" => Special::DynamicSmemSize,
            _ => return None,
        })
    }
}

/// Where a source lane's bits come from.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    /// `bytes` frame bytes at `offset` (little-endian), element `element`
    /// of tile `tile` for reports.
    Register {
        offset: usize,
        bytes: usize,
        tile: usize,
        element: usize,
    },
    /// A literal or immediate, already truncated to its width.
    Value(Bits),
    /// A scalar parameter's bits, truncated to `bits`.
    Param {
        param: usize,
        bits: usize,
    },
    Special(Special),
    /// A runtime integer: the index polynomial's value for the thread,
    /// truncated to `bits` (the checker proved it fits).
    Index {
        value: Linear,
        bits: usize,
    },
    /// A `zero_fill` copy's `src-size`: `clamp(remaining, 0, size)` where
    /// `in_bounds` holds, 0 elsewhere.
    CopiedBytes {
        in_bounds: Test,
        remaining: Linear,
        size: u64,
    },
}

/// Where a destination lane's bits go: `bytes` frame bytes at `offset`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Destination {
    pub offset: usize,
    pub bytes: usize,
}

/// The memory a memory operand addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Region {
    /// A tensor parameter (global memory).
    Tensor(usize),
    /// A shared buffer of the block ([`Plan::shared`]).
    Shared(usize),
}

/// A memory operand: `[region + offset]`, `offset` in bytes.
#[derive(Debug, Clone)]
pub(crate) struct Address {
    pub region: Region,
    pub offset: Linear,
    /// For a shared buffer, the rank in the cluster (`%cluster_ctarank`)
    /// of the CTA whose copy of the buffer it addresses, per thread
    /// (`buf.in_cta(rank)`); `None`: the executing thread's CTA's. Only a
    /// plain `.shared::cluster` access (`ld`, `st`, `atom`, `red`) and the
    /// remote arrival `mbarrier.arrive.shared::cluster` have one.
    pub cta: Option<Linear>,
}

/// What one instruction does.
#[derive(Debug, Clone)]
pub(crate) enum Action {
    Compute {
        compute: Arc<Compute>,
        sources: Vec<Source>,
        destinations: Vec<Destination>,
    },
    /// `destinations.len()` elements of `element_bytes` each, contiguous;
    /// each is sign-extended (`signed`, `ld.s8`) or zero-extended to its
    /// register's width.
    Load {
        address: Address,
        element_bytes: usize,
        signed: bool,
        destinations: Vec<Destination>,
    },
    Store {
        address: Address,
        element_bytes: usize,
        sources: Vec<Source>,
    },
    /// A warp collective: the executing lanes of each warp together.
    Collective {
        collective: Arc<Collective>,
        sources: Vec<Source>,
        destinations: Vec<Destination>,
    },
    /// `ldmatrix`: every lane reads a 16-byte row at `address`; the warp
    /// distributes them (one destination per matrix; see
    /// [`crate::semantics::Semantics::MatrixLoad`]).
    MatrixLoad {
        address: Address,
        transpose: bool,
        destinations: Vec<Destination>,
    },
    /// `stmatrix`: the warp's registers (one source per matrix) as rows,
    /// each written at its lane's `address` (see
    /// [`crate::semantics::Semantics::MatrixStore`]).
    MatrixStore {
        address: Address,
        transpose: bool,
        sources: Vec<Source>,
    },
    /// `wgmma.mma_async` over each warpgroup: A from the shared rows `a`
    /// (two 16-byte halves per row, [`Builder::matrix_rows`]) or the
    /// registers `a_registers`, B from the rows `b`, C from `accumulator`
    /// where `scale_d` holds (else 0), D to `destinations`.
    WarpgroupMma {
        mma: Wgmma,
        a: Option<Vec<Address>>,
        a_registers: Vec<Source>,
        b: Vec<Address>,
        accumulator: Vec<Source>,
        scale_d: Test,
        negate_a: bool,
        negate_b: bool,
        destinations: Vec<Destination>,
    },
    /// A CTA barrier: sources `a` (`b`, `c`), destination `d` for `bar.red`.
    Barrier {
        barrier: Barrier,
        sources: Vec<Source>,
        destinations: Vec<Destination>,
    },
    /// Per element `e`: `new = update(old, operands[e])`; `destinations`
    /// (empty for `red`) receive the old values.
    Atomic {
        address: Address,
        update: Arc<AtomicUpdate>,
        operands: Vec<Vec<Source>>,
        destinations: Vec<Destination>,
    },
    /// `cp.async`: `bytes` from `src` (global) to `dst` (shared), owned by
    /// the copy until the thread's wait retires its group; with
    /// `src_bytes` (`src-size`), only that many are read and the rest are
    /// zeros.
    AsyncCopy {
        dst: Address,
        src: Address,
        bytes: usize,
        src_bytes: Option<Source>,
    },
    /// `cp.async.bulk`: `size` bytes from `src` (global) to `dst` (shared),
    /// owned by the copy until the phase of the mbarrier object at
    /// `barrier` it signals completes (its `complete_tx`).
    BulkCopy {
        dst: Address,
        src: Address,
        size: Source,
        barrier: Address,
    },
    /// `cp.async.bulk.tensor` (tile mode): the box of `box_dims` at
    /// `coords` (outermost first) of tensor parameter `param`, whose dims
    /// are `dims` (each `symbol value * mul / div + add`, with the symbols'
    /// kernel values), to `dst` (shared) in row-major order, elements
    /// outside the tensor zero; completes like a [`Action::BulkCopy`].
    TensorCopy {
        dst: Address,
        param: usize,
        element: usize,
        dims: Vec<DimSpec>,
        box_dims: Vec<u32>,
        coords: Vec<Linear>,
        barrier: Address,
        /// `.multicast::cluster`: its `ctaMask` (bit `i`: the CTA of rank
        /// `i` in the cluster), the box landing at `dst`'s offset in each
        /// of those CTAs' copy of its buffer, signalling each one's object
        /// at `barrier`'s offset.
        multicast: Option<Source>,
    },
    /// `cp.async.bulk.global.shared::cta.bulk_group`: `size` bytes from
    /// `src` (shared, read-owned by the store until a bulk wait of its
    /// thread retires its bulk group) to `dst` (global), both 16-byte
    /// aligned; joins its thread's next bulk group
    /// ([`Action::BulkCommit`]). With `reduce`, the bulk reduction
    /// `cp.reduce.async.bulk.global.shared::cta.bulk_group.op.type`: each
    /// element of `dst` (`reduce.bits` wide) is updated atomically with
    /// its element of `src` instead of overwritten; everything else is the
    /// store's.
    BulkStore {
        dst: Address,
        src: Address,
        size: Source,
        reduce: Option<Arc<AtomicUpdate>>,
    },
    /// `cp.async.bulk.tensor` to global memory (tile mode): the box of
    /// `box_dims` at `src` (shared, 128-byte aligned, row-major, read-owned
    /// like a [`Action::BulkStore`]'s) to tensor parameter `param` (dims
    /// and coordinates as in [`Action::TensorCopy`]), elements outside the
    /// tensor not written.
    TensorStore {
        src: Address,
        param: usize,
        element: usize,
        dims: Vec<DimSpec>,
        box_dims: Vec<u32>,
        coords: Vec<Linear>,
    },
    /// `cp.async.commit_group`.
    AsyncCommit,
    /// `cp.async.wait_group pending` (`None`: `cp.async.wait_all`).
    AsyncWait {
        pending: Option<usize>,
    },
    /// `cp.async.bulk.commit_group`.
    BulkCommit,
    /// `cp.async.bulk.wait_group{.read} pending` (`read`: `.read`).
    BulkWait {
        pending: usize,
        read: bool,
    },
    /// An operation on the mbarrier object at `address` (in an mbarrier
    /// buffer).
    Mbarrier {
        address: Address,
        op: MbarrierAction,
    },
    Nothing,
}

/// What an [`Action::Mbarrier`] does, with its operands located.
#[derive(Debug, Clone)]
pub(crate) enum MbarrierAction {
    /// `mbarrier.init [addr], count`.
    Init { count: Source },
    /// `mbarrier.inval [addr]`.
    Inval,
    /// `mbarrier.arrive state, [addr]`; `state` is `None` for the sink `_`;
    /// `release` unless `.relaxed`; `expect_tx`: its `txCount` (the
    /// `arrive.expect_tx` form); `cluster_scope`: `.cluster` (a `.cta`
    /// release on another CTA's object, `mbarrier.arrive.shared::cluster`
    /// with an [`Address::cta`], releases nothing to its threads).
    Arrive {
        state: Option<Destination>,
        release: bool,
        expect_tx: Option<Source>,
        cluster_scope: bool,
    },
    /// `cp.async.mbarrier.arrive{.noinc} [addr]`.
    CopyArrive { noinc: bool },
    /// `mbarrier.try_wait.parity` retried until done: `parity` its
    /// operand; `acquire` unless `.relaxed`; `cluster_scope`: `.cluster`
    /// (it acquires other CTAs' cluster-scoped releases too).
    WaitParity {
        parity: Source,
        acquire: bool,
        cluster_scope: bool,
    },
}

/// One instruction of the plan.
#[derive(Debug, Clone)]
pub(crate) struct Step {
    /// Index into [`Plan::statements`].
    pub statement: usize,
    pub guard: Test,
    pub action: Action,
}

/// The structured body, as the executor walks it.
#[derive(Debug, Clone)]
pub(crate) enum Block {
    Steps(Vec<Step>),
    Define {
        atom: AtomId,
        op: ComputedOp,
        a: Linear,
        b: Linear,
    },
    /// A register atom: the register's bits (a fault if undefined),
    /// extended to 64 bits as `dtype` says.
    ReadRegister {
        atom: AtomId,
        source: Source,
        dtype: DType,
    },
    If {
        test: Test,
        then: Vec<Block>,
        otherwise: Vec<Block>,
    },
    Loop {
        var: AtomId,
        start: Linear,
        end: Linear,
        step: Linear,
        body: Vec<Block>,
    },
}

/// Where a kernel-wide atom's value comes from at block start.
#[derive(Debug, Clone, Copy)]
pub(crate) enum AtomSource {
    ThreadId(usize),
    CtaId(usize),
    GridDim(usize),
    /// `cta_id(axis) % cluster`.
    ClusterCtaId {
        axis: usize,
        cluster: u32,
    },
    /// `cta_id(axis) / cluster`.
    ClusterId {
        axis: usize,
        cluster: u32,
    },
    LaneId,
    WarpId,
    WarpInGroup,
    WarpgroupId,
    /// Bits `shift..shift + bits` of the lane.
    LaneField {
        shift: u32,
        bits: u32,
    },
    Symbol(usize),
    /// An integer scalar parameter, extended as the emitter's `cvt.s64`.
    Param {
        param: usize,
        dtype: DType,
    },
    /// Set by the body (loop variables, computed values).
    Body,
}

/// Register frame layout: tile `t`'s registers start at frame byte
/// `offsets[t]`, in row-major order.
#[derive(Debug, Clone)]
pub(crate) struct Frame {
    pub offsets: Vec<usize>,
    pub bytes: usize,
}

/// The prepared kernel.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub frame: Frame,
    pub atoms: Vec<AtomSource>,
    pub body: Vec<Block>,
    /// `(number, opcode)` of each statement.
    pub statements: Vec<(usize, String)>,
    /// The block's shared buffers; the dynamic one (if any) with 0 bytes
    /// until a launch sizes it.
    pub shared: Vec<SharedLayout>,
    /// The static buffers' bytes together, each 16-byte aligned.
    pub static_shared_bytes: usize,
}

/// Register bytes per thread the interpreter accepts: far above what the
/// checker's register budget admits (224 registers), and small enough that
/// a block's frames (up to 1,024 threads) stay within 64 MiB.
const MAX_FRAME_BYTES: usize = 1 << 16;

/// CTAs per cluster the interpreter accepts: the most PTX allows (16, with
/// the non-portable cluster size opt-in; the checker admits 8).
const MAX_CLUSTER_CTAS: u64 = 16;

/// Shared memory per block the interpreter accepts, static buffers (with
/// the padding between them) and the dynamic buffer together: what an
/// H100/H200 CTA may have at most (227 KiB).
pub(crate) const DEVICE_SHARED_BYTES_PER_BLOCK: usize =
    tile_kernel_lowering::memory::MAX_SHARED_BYTES_PER_CTA;

pub(crate) fn plan(program: &Program) -> Result<Plan, PrepareError> {
    let error = |message: String| PrepareError {
        kernel: program.name.clone(),
        message,
    };
    let threads = program
        .launch
        .block
        .iter()
        .map(|d| u64::from(*d))
        .product::<u64>();
    if threads > 1024 {
        return Err(error(format!(
            "its block of {threads} threads exceeds CUDA's 1024"
        )));
    }
    let cluster_ctas = program
        .launch
        .cluster
        .iter()
        .map(|d| u64::from(*d))
        .product::<u64>();
    if cluster_ctas > MAX_CLUSTER_CTAS {
        return Err(error(format!(
            "its cluster of {cluster_ctas} CTAs exceeds the {MAX_CLUSTER_CTAS} a cluster may hold"
        )));
    }
    let mut offsets = Vec::with_capacity(program.tiles.len());
    let mut bytes = 0usize;
    for tile in &program.tiles {
        offsets.push(bytes);
        bytes = tile
            .registers()
            .checked_mul(tile.dtype.size_bytes())
            .and_then(|b| b.checked_add(bytes))
            .filter(|b| *b <= MAX_FRAME_BYTES)
            .ok_or_else(|| {
                error(format!(
                    "its tiles take more than {MAX_FRAME_BYTES} bytes of registers per thread (at `{}`)",
                    tile.name
                ))
            })?;
    }
    let frame = Frame { offsets, bytes };
    let mut shared = Vec::with_capacity(program.shared.len());
    let mut total = 0usize;
    if program.shared.iter().filter(|b| b.is_dynamic()).count() > 1 {
        return Err(error("it has more than one dynamic shared buffer".into()));
    }
    for buffer in &program.shared {
        if buffer.mbarrier && buffer.dtype.size_bytes() != MBARRIER_BYTES {
            return Err(error(format!(
                "its mbarrier buffer `{}` does not hold 8-byte words",
                buffer.name
            )));
        }
        if buffer.is_dynamic() {
            shared.push(SharedLayout {
                name: buffer.name.clone(),
                bytes: 0,
                mbarrier: buffer.mbarrier,
            });
            continue;
        }
        // The buffer's bytes, and where it ends after the 16-byte aligned
        // start following the buffers before it.
        let placed = buffer
            .static_bytes()
            .and_then(|bytes| Some((bytes, total.next_multiple_of(16).checked_add(bytes)?)))
            .filter(|(_, end)| *end <= DEVICE_SHARED_BYTES_PER_BLOCK);
        let Some((bytes, end)) = placed else {
            return Err(error(format!(
                "its shared buffers take more than {DEVICE_SHARED_BYTES_PER_BLOCK} bytes (at `{}`)",
                buffer.name
            )));
        };
        total = end;
        shared.push(SharedLayout {
            name: buffer.name.clone(),
            bytes,
            mbarrier: buffer.mbarrier,
        });
    }
    let atom_count = program.atoms.len();
    let mut atoms = Vec::with_capacity(atom_count);
    for id in 0..atom_count {
        let atom = program.atoms.get(id as AtomId);
        atoms.push(match &atom.kind {
            AtomKind::ThreadId(axis) => AtomSource::ThreadId(usize::from(*axis).min(2)),
            AtomKind::CtaId(axis) => AtomSource::CtaId(usize::from(*axis).min(2)),
            AtomKind::GridDim(axis) => AtomSource::GridDim(usize::from(*axis).min(2)),
            AtomKind::ClusterCtaId(axis) => {
                let axis = usize::from(*axis).min(2);
                AtomSource::ClusterCtaId {
                    axis,
                    cluster: program.launch.cluster[axis].max(1),
                }
            }
            AtomKind::ClusterId(axis) => {
                let axis = usize::from(*axis).min(2);
                AtomSource::ClusterId {
                    axis,
                    cluster: program.launch.cluster[axis].max(1),
                }
            }
            AtomKind::LaneId => AtomSource::LaneId,
            AtomKind::WarpId => AtomSource::WarpId,
            AtomKind::WarpInGroup => AtomSource::WarpInGroup,
            AtomKind::WarpgroupId => AtomSource::WarpgroupId,
            AtomKind::LaneField { shift, bits } => AtomSource::LaneField {
                shift: u32::from(*shift),
                bits: u32::from(*bits),
            },
            AtomKind::Symbol(index) => {
                if *index >= program.symbols.len() {
                    return Err(error(format!(
                        "atom `{}` names a missing symbol",
                        atom.name
                    )));
                }
                AtomSource::Symbol(*index)
            }
            AtomKind::Param(param) => match program.params.get(*param).map(|p| &p.kind) {
                Some(ParamKind::Scalar(dtype)) => AtomSource::Param {
                    param: *param,
                    dtype: *dtype,
                },
                _ => {
                    return Err(error(format!(
                        "atom `{}` is not a scalar parameter",
                        atom.name
                    )));
                }
            },
            AtomKind::LoopVar | AtomKind::Computed(..) | AtomKind::Register { .. } => {
                AtomSource::Body
            }
        });
    }
    let mut builder = Builder {
        program,
        frame: &frame,
        semantics: HashMap::new(),
        statements: Vec::new(),
    };
    let body = builder.blocks(&program.body).map_err(error)?;
    let statements = builder.statements;
    Ok(Plan {
        frame,
        atoms,
        body,
        statements,
        shared,
        // Static buffers over 48 KiB live in the dynamic shared memory
        // (`Program::shared_placement`): the launch provides their bytes.
        static_shared_bytes: if program.static_buffers_in_dynamic_memory() {
            0
        } else {
            total
        },
    })
}

/// The prepared semantics of one variant, shared by its instructions.
#[derive(Clone)]
enum PreparedSemantics {
    Compute(Arc<Compute>),
    Load,
    Store,
    Prefetch,
    Atomic(Arc<AtomicUpdate>, bool),
    Collective(Arc<Collective>),
    MatrixLoad { matrices: usize, transpose: bool },
    MatrixStore { matrices: usize, transpose: bool },
    Barrier(Barrier),
    AsyncCopy,
    BulkCopy,
    TensorCopy,
    Fence,
    AsyncCommit,
    AsyncWait { all: bool },
    // A bulk store, or (with the update) a bulk reduction.
    BulkStore(Option<Arc<AtomicUpdate>>),
    TensorStore,
    BulkCommit,
    BulkWait { read: bool },
    Mbarrier(MbarrierOp),
    WarpgroupMma(Wgmma),
}

struct Builder<'p> {
    program: &'p Program,
    frame: &'p Frame,
    semantics: HashMap<VariantId, (Modifiers, PreparedSemantics)>,
    statements: Vec<(usize, String)>,
}

impl Builder<'_> {
    fn blocks(&mut self, nodes: &[Node]) -> Result<Vec<Block>, String> {
        let mut out = Vec::new();
        for node in nodes {
            match node {
                Node::Statement(statement) => {
                    let steps = self.statement(statement)?;
                    match out.last_mut() {
                        Some(Block::Steps(previous)) => previous.extend(steps),
                        _ => out.push(Block::Steps(steps)),
                    }
                }
                Node::Define(atom) => {
                    let atoms = self.program.atoms.len();
                    if *atom as usize >= atoms {
                        return Err(format!("defines unknown atom {atom}"));
                    }
                    if let AtomKind::Register {
                        tile,
                        register,
                        dtype,
                    } = self.program.atoms.get(*atom).kind
                    {
                        let lane = tile_kernel_lowering::program::Lane {
                            tile,
                            byte_offset: register * dtype.size_bytes(),
                            bytes: dtype.size_bytes(),
                        };
                        out.push(Block::ReadRegister {
                            atom: *atom,
                            source: self.lane(&lane)?.0,
                            dtype,
                        });
                        continue;
                    }
                    let AtomKind::Computed(op, args) = &self.program.atoms.get(*atom).kind else {
                        return Err(format!("defines atom {atom}, which is not computed"));
                    };
                    let [a, b] = args.as_slice() else {
                        return Err(format!("computed atom {atom} needs two arguments"));
                    };
                    out.push(Block::Define {
                        atom: *atom,
                        op: *op,
                        a: Linear::new(a, atoms)?,
                        b: Linear::new(b, atoms)?,
                    });
                }
                Node::If {
                    cond,
                    then,
                    otherwise,
                } => out.push(Block::If {
                    test: self.test(cond)?,
                    then: self.blocks(then)?,
                    otherwise: self.blocks(otherwise)?,
                }),
                Node::Loop {
                    var,
                    start,
                    end,
                    step,
                    body,
                } => {
                    let atoms = self.program.atoms.len();
                    if *var as usize >= atoms {
                        return Err(format!("loop over unknown atom {var}"));
                    }
                    out.push(Block::Loop {
                        var: *var,
                        start: Linear::new(start, atoms)?,
                        end: Linear::new(end, atoms)?,
                        step: Linear::new(step, atoms)?,
                        body: self.blocks(body)?,
                    })
                }
            }
        }
        Ok(out)
    }

    /// The addresses of a `wgmma` shared matrix's rows: for each row, its
    /// two 16-byte halves of K, at their logical offsets.
    fn matrix_rows(
        &self,
        buffer: usize,
        start: &Poly,
        matrix: &MatrixOperand,
    ) -> Result<Vec<Address>, String> {
        match self.program.shared.get(buffer) {
            Some(found) if !found.mbarrier && found.layout == matrix.layout => {}
            _ => return Err(format!("a matrix descriptor of shared buffer {buffer}")),
        }
        let atoms = self.program.atoms.len();
        let mut rows = Vec::with_capacity(2 * matrix.rows as usize);
        for row in 0..matrix.rows {
            for half in 0..2 {
                let offset = start.add_const(i128::from(matrix.logical_offset(row, 16 * half)));
                rows.push(Address {
                    region: Region::Shared(buffer),
                    offset: Linear::new(&offset, atoms)?,
                    cta: None,
                });
            }
        }
        Ok(rows)
    }

    fn test(&self, cond: &Cond) -> Result<Test, String> {
        Ok(match cond {
            Cond::Const(value) => Test::Const(*value),
            Cond::Cmp(op, poly) => Test::Cmp(*op, Linear::new(poly, self.program.atoms.len())?),
            Cond::Param(param) => match self.program.params.get(*param).map(|p| &p.kind) {
                Some(ParamKind::Scalar(DType::Bool)) => Test::Param(*param),
                _ => {
                    return Err(format!(
                        "condition on parameter {param}, which is not a bool"
                    ));
                }
            },
            Cond::Register { tile, register, .. } => {
                let Some(t) = self.program.tiles.get(*tile) else {
                    return Err(format!("condition on unknown tile {tile}"));
                };
                if t.dtype != DType::Bool || *register >= t.registers() {
                    return Err(format!("condition on `{}` register {register}", t.name));
                }
                Test::Register {
                    offset: self.frame.offsets[*tile] + register,
                    tile: *tile,
                    register: *register,
                }
            }
            Cond::Not(inner) => Test::Not(Box::new(self.test(inner)?)),
            Cond::And(a, b) => Test::And(Box::new(self.test(a)?), Box::new(self.test(b)?)),
            Cond::Or(a, b) => Test::Or(Box::new(self.test(a)?), Box::new(self.test(b)?)),
        })
    }

    /// The variant `id` names (of `opcode`, for messages), and its
    /// semantics (cached).
    fn variant(
        &mut self,
        id: &VariantId,
        opcode: &str,
    ) -> Result<(Modifiers, PreparedSemantics), String> {
        if let Some(found) = self.semantics.get(id) {
            return Ok(found.clone());
        }
        let variant = id
            .modifiers()
            .ok_or_else(|| format!("`{opcode}` names no variant of this build of the PTX table"))?;
        let shared = match semantics(&variant).map_err(|e| e.to_string())? {
            Semantics::Compute(compute) => PreparedSemantics::Compute(Arc::new(compute)),
            Semantics::Load => PreparedSemantics::Load,
            Semantics::Store => PreparedSemantics::Store,
            Semantics::Prefetch => PreparedSemantics::Prefetch,
            Semantics::Atomic {
                update,
                returns_old,
            } => PreparedSemantics::Atomic(Arc::new(update), returns_old),
            Semantics::Collective(collective) => {
                PreparedSemantics::Collective(Arc::new(collective))
            }
            Semantics::Barrier(barrier) => PreparedSemantics::Barrier(barrier),
            Semantics::MatrixLoad {
                matrices,
                transpose,
            } => PreparedSemantics::MatrixLoad {
                matrices,
                transpose,
            },
            Semantics::MatrixStore {
                matrices,
                transpose,
            } => PreparedSemantics::MatrixStore {
                matrices,
                transpose,
            },
            Semantics::AsyncCopy => PreparedSemantics::AsyncCopy,
            Semantics::BulkCopy => PreparedSemantics::BulkCopy,
            Semantics::TensorCopy => PreparedSemantics::TensorCopy,
            Semantics::Fence => PreparedSemantics::Fence,
            Semantics::AsyncCommit => PreparedSemantics::AsyncCommit,
            Semantics::AsyncWait { all } => PreparedSemantics::AsyncWait { all },
            Semantics::BulkStore => PreparedSemantics::BulkStore(None),
            Semantics::BulkReduce(update) => PreparedSemantics::BulkStore(Some(Arc::new(update))),
            Semantics::TensorStore => PreparedSemantics::TensorStore,
            Semantics::BulkCommit => PreparedSemantics::BulkCommit,
            Semantics::BulkWait { read } => PreparedSemantics::BulkWait { read },
            Semantics::Mbarrier(op) => PreparedSemantics::Mbarrier(op),
            Semantics::WarpgroupMma(mma) => PreparedSemantics::WarpgroupMma(mma),
        };
        self.semantics
            .insert(id.clone(), (variant.clone(), shared.clone()));
        Ok((variant, shared))
    }

    fn statement(&mut self, statement: &Statement) -> Result<Vec<Step>, String> {
        let index = self.statements.len();
        self.statements
            .push((statement.number, statement.opcode.clone()));
        let mut steps = Vec::with_capacity(statement.instructions.len());
        for instruction in &statement.instructions {
            let (variant, shared) = self.variant(&statement.variant, &statement.opcode)?;
            let slots = variant.operands();
            if slots.len() != instruction.operands.len() {
                return Err(format!(
                    "`{}` has {} operands, its form {}",
                    statement.opcode,
                    instruction.operands.len(),
                    slots.len()
                ));
            }
            let mut sources = Vec::new();
            let mut destinations = Vec::new();
            let mut address = None;
            // A copy's two addresses: (destination, source).
            let mut copy_ends: (Option<Address>, Option<Address>) = (None, None);
            // The mbarrier object a bulk copy signals.
            let mut barrier = None;
            // A tensor copy's map and coordinates.
            let mut tensor_box = None;
            // Per operand: its source lanes (for atomics' per-element operands).
            let mut operand_sources: Vec<(&str, Vec<Source>)> = Vec::new();
            // The operands the compiler supplies (`_`, a retry predicate).
            let mut implicit: Vec<&str> = Vec::new();
            let is_mbarrier = matches!(shared, PreparedSemantics::Mbarrier(_));
            // `wgmma`: its shared matrices, its accumulator as sources, and
            // its `scale-d`.
            let mut matrices: Vec<Vec<Address>> = Vec::new();
            let mut accumulator: Vec<Source> = Vec::new();
            let mut condition = None;
            for (slot, value) in slots.iter().zip(&instruction.operands) {
                let width = slot.ty.carrier_bits();
                match value {
                    OperandValue::Descriptor {
                        buffer,
                        start,
                        matrix,
                    } => {
                        matrices.push(self.matrix_rows(buffer.index, start, matrix)?);
                        continue;
                    }
                    OperandValue::Condition(cond) => {
                        condition = Some(self.test(cond)?);
                        continue;
                    }
                    OperandValue::Registers { lanes, .. }
                        if slot.access == Access::Write
                            && matches!(shared, PreparedSemantics::WarpgroupMma(_)) =>
                    {
                        for lane in lanes {
                            let (source, destination) = self.lane(lane)?;
                            destinations.push(destination);
                            accumulator.push(source);
                        }
                        continue;
                    }
                    OperandValue::Memory {
                        buffer,
                        offset,
                        cta,
                        ..
                    } => {
                        let region = match buffer.space {
                            MemorySpace::Global => {
                                let param = buffer.index;
                                match self.program.params.get(param).map(|p| &p.kind) {
                                    Some(ParamKind::Tensor { .. }) => {}
                                    _ => {
                                        return Err(format!("memory operand on parameter {param}"));
                                    }
                                }
                                Region::Tensor(param)
                            }
                            MemorySpace::Shared => {
                                let index = buffer.index;
                                let Some(found) = self.program.shared.get(index) else {
                                    return Err(format!(
                                        "operand of unknown shared buffer {index}"
                                    ));
                                };
                                // mbarrier objects are reached only by the
                                // forms' barrier operands, which reach
                                // nothing else.
                                if found.mbarrier != slot.mbarrier {
                                    return Err(format!(
                                        "`{}` addresses shared buffer `{}`, {}",
                                        statement.opcode,
                                        found.name,
                                        if found.mbarrier {
                                            "which holds mbarrier objects"
                                        } else {
                                            "which holds no mbarrier objects"
                                        }
                                    ));
                                }
                                Region::Shared(index)
                            }
                        };
                        if slot.mbarrier && matches!(region, Region::Tensor(_)) {
                            return Err(format!(
                                "`{}` addresses a tensor, not an mbarrier object",
                                statement.opcode
                            ));
                        }
                        if !buffer.space.addressed_by(variant.operand_space(slot.name)) {
                            let name = match region {
                                Region::Tensor(param) => &self.program.params[param].name,
                                Region::Shared(index) => &self.program.shared[index].name,
                            };
                            return Err(format!(
                                "`{}` does not address {} memory, but its operand is {} `{name}`",
                                statement.opcode,
                                buffer.space.ptx_token(),
                                buffer.space.noun()
                            ));
                        }
                        let cta = match cta {
                            None => None,
                            Some(rank) => {
                                // Another CTA's copy of a shared buffer:
                                // through a `.shared::cluster` address, by
                                // a plain access.
                                let plain = matches!(
                                    shared,
                                    PreparedSemantics::Load
                                        | PreparedSemantics::Store
                                        | PreparedSemantics::Atomic(..)
                                        | PreparedSemantics::Mbarrier(MbarrierOp::Arrive {
                                            expect_tx: false,
                                            ..
                                        })
                                );
                                let cluster_space = variant.operand_space(slot.name)
                                    == Space::Shared { cluster: true };
                                let Region::Shared(index) = region else {
                                    return Err(format!(
                                        "`{}` addresses another CTA's copy of a tensor",
                                        statement.opcode
                                    ));
                                };
                                if !plain || !cluster_space {
                                    return Err(format!(
                                        "`{}` addresses another CTA's copy of shared buffer `{}`, which only the `.shared::cluster` forms of `ld`, `st`, `atom`, `red` and `mbarrier.arrive` may",
                                        statement.opcode, self.program.shared[index].name
                                    ));
                                }
                                Some(Linear::new(rank, self.program.atoms.len())?)
                            }
                        };
                        let at = Address {
                            region,
                            offset: Linear::new(offset, self.program.atoms.len())?,
                            cta,
                        };
                        if slot.mbarrier && !is_mbarrier {
                            barrier = Some(at);
                            continue;
                        }
                        if slot.access == Access::Write {
                            copy_ends.0 = Some(at.clone());
                        } else {
                            copy_ends.1 = Some(at.clone());
                        }
                        address = Some(at);
                        continue;
                    }
                    OperandValue::TensorMap { map, coords } => {
                        let found = self
                            .program
                            .tensor_maps
                            .get(*map)
                            .ok_or_else(|| format!("unknown tensor map {map}"))?;
                        let (element, dims) =
                            match self.program.params.get(found.param).map(|p| &p.kind) {
                                Some(ParamKind::Tensor { dims, dtype, .. })
                                    if dims.len() == found.box_dims.len()
                                        && coords.len() == dims.len() =>
                                {
                                    (
                                        dtype.size_bytes(),
                                        dims.iter().map(|d| self.kernel_dim(*d)).collect(),
                                    )
                                }
                                _ => {
                                    return Err(format!(
                                        "tensor map {map} does not fit its tensor"
                                    ));
                                }
                            };
                        let coords = coords
                            .iter()
                            .map(|c| Linear::new(c, self.program.atoms.len()))
                            .collect::<Result<Vec<_>, _>>()?;
                        tensor_box =
                            Some(((found.param, element), dims, found.box_dims.clone(), coords));
                        continue;
                    }
                    // The compiler's `_` and retry predicate: no lanes.
                    OperandValue::Implicit(_) => {
                        implicit.push(slot.name);
                        continue;
                    }
                    OperandValue::Registers { lanes, .. } if slot.access == Access::Write => {
                        for lane in lanes {
                            destinations.push(self.lane(lane)?.1);
                        }
                        continue;
                    }
                    _ => {}
                }
                if slot.access != Access::Read || slot.kind == OperandKind::Address {
                    return Err(format!(
                        "`{}`: operand `{}` cannot be read",
                        statement.opcode, slot.name
                    ));
                }
                let lanes: Vec<Source> = match value {
                    OperandValue::Registers { lanes, .. } => lanes
                        .iter()
                        .map(|lane| self.lane(lane).map(|(source, _)| source))
                        .collect::<Result<_, _>>()?,
                    OperandValue::Param { param, bits } => {
                        match self.program.params.get(*param).map(|p| &p.kind) {
                            Some(ParamKind::Scalar(_)) => {}
                            _ => return Err(format!("scalar operand on parameter {param}")),
                        }
                        vec![Source::Param {
                            param: *param,
                            bits: (*bits).min(width),
                        }]
                    }
                    OperandValue::Constant { value, .. } => {
                        vec![Source::Value(mask(*value, width))]
                    }
                    OperandValue::Immediate { value } => {
                        vec![Source::Value(mask(*value as u64, width))]
                    }
                    OperandValue::SourceBytes {
                        in_bounds,
                        remaining,
                        size,
                    } => vec![Source::CopiedBytes {
                        in_bounds: self.test(in_bounds)?,
                        remaining: Linear::new(remaining, self.program.atoms.len())?,
                        size: *size,
                    }],
                    OperandValue::Index { value, bits } => vec![Source::Index {
                        value: Linear::new(value, self.program.atoms.len())?,
                        bits: (*bits).min(width),
                    }],
                    OperandValue::Special { name } => vec![Source::Special(
                        Special::from_name(name)
                            .ok_or_else(|| format!("unknown special register `{name}`"))?,
                    )],
                    OperandValue::Memory { .. }
                    | OperandValue::Implicit(_)
                    | OperandValue::TensorMap { .. }
                    | OperandValue::Descriptor { .. }
                    | OperandValue::Condition(_) => {
                        unreachable!("handled above")
                    }
                };
                sources.extend(lanes.iter().cloned());
                operand_sources.push((slot.name, lanes));
            }
            let action = match shared {
                PreparedSemantics::Compute(compute) => {
                    lanes_fit(
                        &statement.opcode,
                        &sources,
                        &destinations,
                        (compute.inputs(), compute.outputs()),
                    )?;
                    Action::Compute {
                        compute,
                        sources,
                        destinations,
                    }
                }
                PreparedSemantics::Load => {
                    let address = address.ok_or("a load without an address")?;
                    let element_bytes = memory_element_bytes(&variant);
                    let signed = variant
                        .operands()
                        .iter()
                        .any(|o| o.kind == OperandKind::Address && o.ty.is_signed_int());
                    Action::Load {
                        address,
                        element_bytes,
                        signed,
                        destinations,
                    }
                }
                PreparedSemantics::Store => {
                    let address = address.ok_or("a store without an address")?;
                    let element_bytes = memory_element_bytes(&variant);
                    // The stored lanes: every source but the cache policy
                    // (`st...L2::cache_hint [a], b, policy`).
                    let sources = values_but_policy(&operand_sources).concat();
                    Action::Store {
                        address,
                        element_bytes,
                        sources,
                    }
                }
                PreparedSemantics::Collective(collective) => {
                    lanes_fit(
                        &statement.opcode,
                        &sources,
                        &destinations,
                        (collective.inputs(), collective.outputs()),
                    )?;
                    Action::Collective {
                        collective,
                        sources,
                        destinations,
                    }
                }
                PreparedSemantics::MatrixLoad {
                    matrices,
                    transpose,
                } => {
                    let address = address.ok_or("ldmatrix without an address")?;
                    if destinations.len() != matrices {
                        return Err(format!(
                            "`{}` writes {matrices} registers, not {}",
                            statement.opcode,
                            destinations.len()
                        ));
                    }
                    Action::MatrixLoad {
                        address,
                        transpose,
                        destinations,
                    }
                }
                PreparedSemantics::MatrixStore {
                    matrices,
                    transpose,
                } => {
                    let address = address.ok_or("stmatrix without an address")?;
                    if sources.len() != matrices {
                        return Err(format!(
                            "`{}` reads {matrices} registers, not {}",
                            statement.opcode,
                            sources.len()
                        ));
                    }
                    Action::MatrixStore {
                        address,
                        transpose,
                        sources,
                    }
                }
                PreparedSemantics::Barrier(barrier) => {
                    // `a` (`b`, `c`) in, `d` out for `bar.red`.
                    let reduces = usize::from(barrier.reduction.is_some());
                    let lanes = (
                        usize::from(barrier.numbered) + usize::from(barrier.count) + reduces,
                        reduces,
                    );
                    lanes_fit(&statement.opcode, &sources, &destinations, lanes)?;
                    Action::Barrier {
                        barrier,
                        sources,
                        destinations,
                    }
                }
                PreparedSemantics::Prefetch => Action::Nothing,
                PreparedSemantics::AsyncCopy => {
                    let (Some(dst), Some(src)) = copy_ends else {
                        return Err(format!("`{}` without its two addresses", statement.opcode));
                    };
                    let bytes = immediate_of(&operand_sources, "cp-size")
                        .ok_or_else(|| format!("`{}` without a copy size", statement.opcode))?;
                    let src_bytes = operand_sources
                        .iter()
                        .find(|(name, _)| *name == "src-size")
                        .and_then(|(_, lanes)| lanes.first().cloned());
                    Action::AsyncCopy {
                        dst,
                        src,
                        bytes,
                        src_bytes,
                    }
                }
                PreparedSemantics::BulkCopy => {
                    let (Some(dst), Some(src), Some(barrier)) = (copy_ends.0, copy_ends.1, barrier)
                    else {
                        return Err(format!(
                            "`{}` without its two addresses and its mbarrier",
                            statement.opcode
                        ));
                    };
                    let size = match operand_sources.iter().find(|(name, _)| *name == "size") {
                        Some((_, lanes)) if lanes.len() == 1 => lanes[0].clone(),
                        _ => return Err(format!("`{}` without its size", statement.opcode)),
                    };
                    Action::BulkCopy {
                        dst,
                        src,
                        size,
                        barrier,
                    }
                }
                PreparedSemantics::TensorCopy => {
                    let (
                        Some(dst),
                        Some(((param, element), dims, box_dims, coords)),
                        Some(barrier),
                    ) = (copy_ends.0, tensor_box, barrier)
                    else {
                        return Err(format!(
                            "`{}` without its destination, tensor map and mbarrier",
                            statement.opcode
                        ));
                    };
                    let multicast = match operand_sources.iter().find(|(n, _)| *n == "ctaMask") {
                        None => None,
                        Some((_, lanes)) if lanes.len() == 1 => Some(lanes[0].clone()),
                        Some(_) => {
                            return Err(format!(
                                "`{}`: a ctaMask of several lanes",
                                statement.opcode
                            ));
                        }
                    };
                    Action::TensorCopy {
                        dst,
                        param,
                        element,
                        dims,
                        box_dims,
                        coords,
                        barrier,
                        multicast,
                    }
                }
                PreparedSemantics::BulkStore(reduce) => {
                    let (Some(dst), Some(src)) = copy_ends else {
                        return Err(format!("`{}` without its two addresses", statement.opcode));
                    };
                    if !matches!(
                        (dst.region, src.region),
                        (Region::Tensor(_), Region::Shared(_))
                    ) {
                        return Err(format!(
                            "`{}` does not copy a shared buffer to a tensor",
                            statement.opcode
                        ));
                    }
                    let size = match operand_sources.iter().find(|(name, _)| *name == "size") {
                        Some((_, lanes)) if lanes.len() == 1 => lanes[0].clone(),
                        _ => return Err(format!("`{}` without its size", statement.opcode)),
                    };
                    Action::BulkStore {
                        dst,
                        src,
                        size,
                        reduce,
                    }
                }
                PreparedSemantics::TensorStore => {
                    let (Some(src), Some(((param, element), dims, box_dims, coords))) =
                        (copy_ends.1, tensor_box)
                    else {
                        return Err(format!(
                            "`{}` without its tensor map and source",
                            statement.opcode
                        ));
                    };
                    if !matches!(src.region, Region::Shared(_)) {
                        return Err(format!(
                            "`{}` does not copy a shared buffer",
                            statement.opcode
                        ));
                    }
                    Action::TensorStore {
                        src,
                        param,
                        element,
                        dims,
                        box_dims,
                        coords,
                    }
                }
                PreparedSemantics::BulkCommit => Action::BulkCommit,
                PreparedSemantics::BulkWait { read } => Action::BulkWait {
                    pending: immediate_of(&operand_sources, "n")
                        .ok_or_else(|| format!("`{}` without its group count", statement.opcode))?,
                    read,
                },
                PreparedSemantics::Fence => Action::Nothing,
                PreparedSemantics::WarpgroupMma(mma) => {
                    let (a, b) = match (mma.register_a, matrices.as_slice()) {
                        (false, [a, b]) => (Some(a.clone()), b.clone()),
                        (true, [b]) => (None, b.clone()),
                        _ => {
                            return Err(format!(
                                "`{}` without its shared matrices",
                                statement.opcode
                            ));
                        }
                    };
                    let a_registers = operand_sources
                        .iter()
                        .find(|(name, _)| *name == "a")
                        .map(|(_, lanes)| lanes.clone())
                        .unwrap_or_default();
                    let negate = |name: &str| {
                        operand_sources.iter().any(|(n, lanes)| {
                            *n == name && matches!(lanes.as_slice(), [Source::Value(v)] if *v as u32 == u32::MAX)
                        })
                    };
                    if destinations.len() != mma.accumulator_registers()
                        || (mma.register_a && a_registers.len() != 4)
                    {
                        return Err(format!(
                            "`{}` with the wrong register counts",
                            statement.opcode
                        ));
                    }
                    Action::WarpgroupMma {
                        mma,
                        a,
                        a_registers,
                        b,
                        accumulator,
                        scale_d: condition.unwrap_or(Test::Const(true)),
                        negate_a: negate("imm-scale-a"),
                        negate_b: negate("imm-scale-b"),
                        destinations,
                    }
                }
                PreparedSemantics::AsyncCommit => Action::AsyncCommit,
                PreparedSemantics::AsyncWait { all: true } => Action::AsyncWait { pending: None },
                PreparedSemantics::AsyncWait { all: false } => Action::AsyncWait {
                    pending: Some(immediate_of(&operand_sources, "n").ok_or_else(|| {
                        format!("`{}` without its group count", statement.opcode)
                    })?),
                },
                PreparedSemantics::Mbarrier(op) => {
                    let address = address.ok_or("an mbarrier operation without an address")?;
                    let opcode = &statement.opcode;
                    let lane = |name: &str| match operand_sources.iter().find(|(n, _)| *n == name) {
                        Some((_, lanes)) if lanes.len() == 1 => Ok(lanes[0].clone()),
                        _ => Err(format!("`{opcode}` without its `{name}`")),
                    };
                    let op = match op {
                        MbarrierOp::Init => MbarrierAction::Init {
                            count: lane("count")?,
                        },
                        MbarrierOp::Inval => MbarrierAction::Inval,
                        MbarrierOp::Arrive { release, expect_tx } => {
                            if destinations.len() > 1 {
                                return Err(format!("`{opcode}`: more than one state lane"));
                            }
                            MbarrierAction::Arrive {
                                state: destinations.first().copied(),
                                cluster_scope: variant.get(Slot::Scope) == Some("cluster"),
                                release,
                                expect_tx: if expect_tx {
                                    Some(lane("txCount")?)
                                } else {
                                    None
                                },
                            }
                        }
                        MbarrierOp::CopyArrive { noinc } => MbarrierAction::CopyArrive { noinc },
                        MbarrierOp::WaitParity { acquire } => {
                            // Only the blocking wait: `done` is the
                            // compiler's retry predicate, not a register
                            // the kernel tests.
                            if !implicit.contains(&"done") || !destinations.is_empty() {
                                return Err(format!(
                                    "`{opcode}`: the interpreter runs only the blocking wait (its `done` the compiler's retry predicate)"
                                ));
                            }
                            MbarrierAction::WaitParity {
                                parity: lane("parity")?,
                                acquire,
                                cluster_scope: variant.get(Slot::Scope) == Some("cluster"),
                            }
                        }
                    };
                    Action::Mbarrier { address, op }
                }
                PreparedSemantics::Atomic(update, returns_old) => {
                    let address = address.ok_or("an atomic without an address")?;
                    // Per-element operands: `b` (and `c`), lane `e` each;
                    // the cache policy is not a value of the update.
                    let values = values_but_policy(&operand_sources);
                    let elements = values.first().map_or(0, |lanes| lanes.len());
                    if elements == 0 || values.iter().any(|lanes| lanes.len() != elements) {
                        return Err(format!("`{}`: uneven atomic operands", statement.opcode));
                    }
                    if returns_old && destinations.len() != elements {
                        return Err(format!(
                            "`{}`: destination lanes differ from elements",
                            statement.opcode
                        ));
                    }
                    let operands = (0..elements)
                        .map(|e| values.iter().map(|lanes| lanes[e].clone()).collect())
                        .collect();
                    Action::Atomic {
                        address,
                        update,
                        operands,
                        destinations: if returns_old {
                            destinations
                        } else {
                            Vec::new()
                        },
                    }
                }
            };
            steps.push(Step {
                statement: index,
                guard: self.test(&statement.guard)?,
                action,
            });
        }
        Ok(steps)
    }

    /// A tensor dim over the symbols' kernel values (value / divisor),
    /// which the interpreter runs with: `{mul * N / div + add}` becomes
    /// `N' * (mul * divisor) / div + add`.
    fn kernel_dim(&self, dim: DimSpec) -> DimSpec {
        match dim {
            DimSpec::Symbolic {
                symbol,
                mul,
                div,
                add,
            } => DimSpec::Symbolic {
                symbol,
                mul: self
                    .program
                    .symbols
                    .get(usize::from(symbol))
                    .map_or(0, |s| mul.saturating_mul(s.divisor)),
                div,
                add,
            },
            constant => constant,
        }
    }

    /// A register lane as a source and as a destination.
    fn lane(
        &self,
        lane: &tile_kernel_lowering::program::Lane,
    ) -> Result<(Source, Destination), String> {
        let tile = self
            .program
            .tiles
            .get(lane.tile)
            .ok_or_else(|| format!("lane of unknown tile {}", lane.tile))?;
        let size = tile.registers() * tile.dtype.size_bytes();
        if lane.bytes == 0 || lane.bytes > 8 || lane.byte_offset + lane.bytes > size {
            return Err(format!("lane outside tile `{}`", tile.name));
        }
        let offset = self.frame.offsets[lane.tile] + lane.byte_offset;
        Ok((
            Source::Register {
                offset,
                bytes: lane.bytes,
                tile: lane.tile,
                element: lane.byte_offset / tile.dtype.size_bytes(),
            },
            Destination {
                offset,
                bytes: lane.bytes,
            },
        ))
    }
}

/// Whether an instruction binds exactly the `(source, destination)` lanes
/// its semantics take.
fn lanes_fit(
    opcode: &str,
    sources: &[Source],
    destinations: &[Destination],
    (inputs, outputs): (usize, usize),
) -> Result<(), String> {
    if sources.len() == inputs && destinations.len() == outputs {
        return Ok(());
    }
    Err(format!(
        "`{opcode}` binds {} source and {} destination lanes; its semantics take {inputs} and {outputs}",
        sources.len(),
        destinations.len(),
    ))
}

/// The source operands' lanes, without the cache-policy operand of the
/// `L2::cache_hint` forms, which steers caching and is not a value.
fn values_but_policy(operands: &[(&str, Vec<Source>)]) -> Vec<Vec<Source>> {
    operands
        .iter()
        .filter(|(name, _)| *name != "policy")
        .map(|(_, lanes)| lanes.clone())
        .collect()
}

/// The bytes of one memory element of a load or store: its type's width.
fn memory_element_bytes(variant: &Modifiers) -> usize {
    variant
        .operands()
        .iter()
        .find(|o| o.kind == OperandKind::Address)
        .map_or(4, |o| (o.ty.carrier_bits() / 8).max(1))
}

/// The value of immediate operand `name` (`cp-size`, a wait's `n`).
fn immediate_of(operands: &[(&str, Vec<Source>)], name: &str) -> Option<usize> {
    match operands.iter().find(|(n, _)| *n == name)?.1.as_slice() {
        [Source::Value(value)] => usize::try_from(*value).ok(),
        _ => None,
    }
}
