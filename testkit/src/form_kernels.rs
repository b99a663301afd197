//! Kernels that run one variant of one PTX form on fresh operands, built as
//! syntax trees: every register source is loaded from a tensor, the form
//! runs, every register destination is stored to a tensor, and every
//! address operand is a tensor of its own (for a form of the shared state
//! space, a shared buffer staged from and to a tensor of its own).
//!
//! Used by `lowering/tests/forms_end_to_end.rs`,
//! which checks that the checker and emitter accept every usable form, and
//! by `tests/differential` / `examples/sweep_conversions.rs`, which run
//! such kernels on the GPU and on the CPU interpreter and compare the bits.
//! It depends on `tile_kernel_lowering` only.
//!
//! Two shapes ([`Shape`]):
//!
//! - [`Shape::Single`]: one thread, one block; a tensor per operand holds
//!   exactly the operand's lanes (`io{i}: Tensor<T, lanes>`).
//! - [`Shape::PerThread`]: `grid = ceil_div(N, block)`, each thread `i =
//!   cta_id(0) * block + thread_id(0)` with `i < N` runs the form once on
//!   row `i` of every tensor (`io{i}: Tensor<T, N, lanes>`); address
//!   operands are row `i` of their tensor too, or, with
//!   [`Choices::shared_memory`], the whole `[lanes]` tensor every thread
//!   shares (atomics only: atomic accesses never race).
//!
//! **Shared memory.** The address operand of a `.shared` / `.shared::cta`
//! form is a view of a buffer of the CTA, `sm{i} = alloc_shared::<T>(..)`
//! (`T`: the dtype of the operand's tensor `m{i}`), staged from and to
//! `m{i}` through a register tile `s{i}` one element at a time
//! (`ld.global` + `st.shared` in, `ld.shared` + `st.global` out):
//!
//! 1. if the form reads the memory (`ld`, `atom`, `red`), the tensor's
//!    rows are copied into the buffer, then `bar.sync 0` (`scope = "cta"`);
//! 2. the form runs (for thread `i < N`);
//! 3. if the form writes the memory (`st`, `atom`, `red`), `bar.sync 0`,
//!    then the buffer's rows are copied back to the tensor.
//!
//! Every barrier is outside the guards (`i < N`, ...): every thread of the
//! CTA reaches it.
//!
//! - [`Shape::Single`]: `sm{i}` is `[lanes]`, copied whole.
//! - [`Shape::PerThread`]: `sm{i}` is `[block, lanes]`, `m{i}` is `[N,
//!   lanes]`, and thread `i` runs the form on row `thread_id(0)` of the
//!   buffer. The copies are made by *other* threads, so that the data
//!   crosses the barriers: with `block` a multiple of 32 and at least 64,
//!   the thread of warp `w` and lane `l` copies row `r = l * W + w`
//!   (`W = block / 32`) of the buffer from and to row `j = cta_id(0) *
//!   block + r` of `m{i}` (if `j < N`), the rows of a CTA still being rows
//!   `cta_id(0) * block + ..` of the tensor; with other blocks each thread
//!   copies its own row.
//! - [`Shape::PerThread`] with [`Choices::shared_memory`] (atomics): `sm{i}`
//!   is one `[lanes]` element every thread of the CTA updates (shared
//!   memory is per CTA); `m{i}` is `[N, lanes]`: thread 0 of the CTA
//!   initialises the element from its row (`cta_id(0) * block`), and every
//!   thread `i < N` stores the CTA's final value to its row `i`.
//!
//! **CTA barriers** ([`Usability::CtaBarrier`]: `bar.sync`, `barrier.sync`,
//! `bar.red`, `barrier.red`) run with `scope = "cta"` on CTA tiles
//! (`alloc_local::<T>([block, lanes], scope = "cta")`, whose row
//! `thread_id(0)` the thread loads and stores); in [`Shape::PerThread`]
//! outside the guard `i < N`, so that every thread of the CTA takes part: a
//! thread past `N` has zero sources (a predicate false) and stores
//! nothing. With [`Choices::cta_exchange`], a value also crosses the
//! barrier through shared memory (a `bar.sync` kernel without it has no
//! tensor at all).
//!
//! Predicates travel through `u32` tensors (`setp.ne.u32` after the load,
//! `selp.u32` before the store); immediates and special registers are
//! compile-time choices ([`Choices`]).

use tile_kernel_lowering::ast::*;
use tile_kernel_lowering::program::Program;
use tile_kernel_lowering::ptx::{
    Access, Effect, Modifiers, OperandKind, PtxType, ResolvedOperand, Space, Usability,
};
use tile_kernel_lowering::spec::{
    KernelSpec, LaunchFormulaSpec, ParamKindSpec, ParamSpec, SymbolSpec, TensorMapSpec,
};
use tile_kernel_lowering::{DType, Target};

use crate::ast::{
    SPAN as S, alloc_shared, apply, apply_scoped, binary, call, guarded, int, let_, literal, name,
    place,
};

/// The dtype a tile or tensor of PTX type `ty` gets: the type itself where
/// a dtype is it, else the unsigned container of its width.
pub fn dtype_for(ty: PtxType) -> Option<DType> {
    if ty == PtxType::Pred {
        return Some(DType::Bool);
    }
    let accepted = ty.accepted_dtypes();
    ty.natural_dtype()
        .filter(|d| accepted.contains(d))
        .or_else(|| accepted.iter().copied().find(|d| *d == d.bit_container()))
}

/// `name.reshape([lanes, 1])`: one repeat per register.
pub fn per_register(name: &str, lanes: u8) -> Operand {
    place(name, vec![ViewKind::Reshape(vec![i64::from(lanes), 1])])
}

/// `t.slice(s![index, ..])` followed by `then` (without an index: `t`
/// followed by `then`).
pub fn row_view(t: &str, index: Option<Expr>, mut then: Vec<ViewKind>) -> Operand {
    let mut views = Vec::new();
    if let Some(index) = index {
        views.push(ViewKind::Slice(vec![
            SliceItem::Index { index, span: S },
            SliceItem::range(None, None, 1, S),
        ]));
    }
    views.append(&mut then);
    place(t, views)
}

/// `apply(ptx["bar.sync"], 0, scope = "cta");`: every thread of the CTA
/// waits for the others; shared memory accesses before it are ordered
/// before those after it.
pub fn cta_barrier() -> Stmt {
    apply_scoped("bar.sync", vec![literal(0)], "cta")
}

/// `let name = alloc_local::<dtype>([lanes]);`
pub fn alloc(name: &str, dtype: DType, lanes: u8) -> Stmt {
    crate::ast::alloc(name, dtype, &[u64::from(lanes)])
}

/// `let name = alloc_local::<dtype>([threads, lanes], scope = scope);`: a
/// group tile, row `t` the part of the scope's thread `t`.
pub fn alloc_group(name: &str, dtype: DType, threads: u32, lanes: u8, scope: &str) -> Stmt {
    Stmt::AllocLocal(AllocLocal {
        name: name.to_string(),
        name_span: S,
        dtype,
        dtype_span: S,
        shape: vec![
            Dim::constant(u64::from(threads), S),
            Dim::constant(u64::from(lanes), S),
        ],
        scope: Some((scope.to_string(), S)),
        layout: None,
        space: AllocSpace::Registers,
        span: S,
    })
}

/// `name: Tensor<dtype, lanes>`.
pub fn tensor(name: &str, dtype: DType, lanes: u8) -> Param {
    tensor_of(name, dtype, vec![Dim::constant(u64::from(lanes), S)])
}

/// `name: Tensor<dtype, dims..>`.
pub fn tensor_of(name: &str, dtype: DType, dims: Vec<Dim>) -> Param {
    Param {
        name: name.to_string(),
        span: S,
        ty: ParamType::Tensor { dtype, dims },
    }
}

/// `let i = cta_id(0) * block + thread_id(0);`
pub fn global_index(var: &str, block: u32) -> Stmt {
    let_(
        var,
        binary(
            BinOp::Add,
            binary(
                BinOp::Mul,
                call("cta_id", vec![int(0)]),
                int(i128::from(block)),
            ),
            call("thread_id", vec![int(0)]),
        ),
    )
}

/// The row of a CTA's `block` rows that the thread of warp `w` and lane
/// `l` copies to and from shared memory for another thread: `l * W + w`
/// (`W = block / 32` warps) where `block` is a multiple of 32 and at least
/// 64 (a permutation of the CTA's threads that the race analysis
/// proves injective: lane and warp digits), else `thread_id(0)` (its own).
pub fn copier_row(block: u32) -> Expr {
    if crosses_threads(block) {
        binary(
            BinOp::Add,
            binary(
                BinOp::Mul,
                call("lane_id", Vec::new()),
                int(i128::from(block / 32)),
            ),
            call("warp_id", Vec::new()),
        )
    } else {
        call("thread_id", vec![int(0)])
    }
}

/// Whether [`copier_row`] is another thread's row (for most threads).
pub fn crosses_threads(block: u32) -> bool {
    block.is_multiple_of(32) && block >= 64
}

/// `grid = ceil_div(rows, block)` over one axis, `block` threads a block.
pub fn per_thread_launch(rows: &str, block: u32) -> LaunchDims {
    LaunchDims {
        grid: [
            call("ceil_div", vec![name(rows), int(i128::from(block))]),
            int(1),
            int(1),
        ],
        block: [block, 1, 1],
        span: S,
        cluster: [1, 1, 1],
        cluster_span: S,
    }
}

/// How a generated kernel spreads its work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One thread runs the form once.
    Single,
    /// Every thread `i < N` (`N`: the size symbol [`ROWS`]) runs it on row
    /// `i` of every tensor; `block` threads a block.
    PerThread { block: u32 },
}

/// The size symbol of [`Shape::PerThread`] kernels: the number of rows.
pub const ROWS: &str = "N";

/// The compile-time parts of a variant's operands.
#[derive(Debug, Clone, Default)]
pub struct Choices {
    /// The value of each immediate operand, in operand order (missing ones
    /// take the operand's minimum).
    pub immediates: Vec<i64>,
    /// The special register a `Special` operand reads (default: the first
    /// the form allows).
    pub special: Option<&'static str>,
    /// [`Shape::PerThread`]: every thread addresses the same `[lanes]`
    /// tensor instead of its own row (for atomics); in shared memory, the
    /// same `[lanes]` element of its CTA's buffer (see the module doc).
    pub shared_memory: bool,
    /// Tensors are the unsigned bit containers of their dtypes (`f32` ->
    /// `u32`), so that a harness moves bytes of four widths only.
    pub containers: bool,
    /// A `.L2::cache_hint` form's `policy` source is made in the kernel by
    /// [`POLICY_OPCODE`] instead of loaded: the GPU expects a policy that
    /// `createpolicy` made, not arbitrary bits.
    pub created_policy: bool,
    /// A CTA barrier in [`Shape::PerThread`]: a value crosses it through
    /// shared memory. Thread `i < N` stores row `i` of `ex_in: Tensor<u32,
    /// N, 1>` to row `thread_id(0)` of a `[block, 1]` buffer before the
    /// barrier, and after it the thread of [`copier_row`] `r` stores row
    /// `r` of the buffer to row `cta_id(0) * block + r` of `ex_out` (if
    /// below `N`): `ex_out` equals `ex_in` when the barrier orders the
    /// CTA's shared memory. Both tensors' [`TensorRole::operand`] is the
    /// barrier operand `a`.
    pub cta_exchange: bool,
}

/// What makes the cache policy of [`Choices::created_policy`] kernels.
pub const POLICY_OPCODE: &str = "createpolicy.fractional.L2::evict_last.b64";

/// What one tensor parameter of a generated kernel is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The lanes of a register or predicate source, loaded before the form.
    Source,
    /// The lanes of a register or predicate destination, stored after it.
    Destination,
    /// The memory an address operand names: read (`ld`), written (`st`) or
    /// both (`atom`, `red`), as the form decides (in shared memory: staged
    /// to and from the CTA's buffer).
    Memory,
}

/// One tensor parameter of a generated kernel, in parameter order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TensorRole {
    /// The operand it serves: an index into `Modifiers::operands()` (the
    /// barrier operand for the tensors of [`Choices::cta_exchange`]).
    pub operand: usize,
    pub role: Role,
    /// The tensor's dtype.
    pub dtype: DType,
    /// Elements a row (the operand's lanes).
    pub lanes: u8,
    /// Whether it has one row per thread (`[N, lanes]`), or is one row all
    /// threads share (`[lanes]`: [`Shape::Single`], or
    /// [`Choices::shared_memory`] in global memory).
    pub per_row: bool,
    /// A predicate operand, carried as `u32` 0 or 1.
    pub predicate: bool,
}

impl TensorRole {
    /// Bytes of one row.
    pub fn row_bytes(&self) -> usize {
        usize::from(self.lanes) * self.dtype.size_bytes()
    }
}

/// A generated kernel and what each of its parameters is for.
#[derive(Debug, Clone)]
pub struct Generated {
    pub kernel: Kernel,
    pub tensors: Vec<TensorRole>,
}

/// A one-thread kernel named `name` that runs `m` once on fresh operands,
/// or the operand type no dtype carries.
pub fn kernel_for(name: &str, m: &Modifiers, target: Target) -> Result<Kernel, PtxType> {
    generate(name, m, target, Shape::Single, &Choices::default()).map(|g| g.kernel)
}

/// An address operand in shared memory: its buffer, staged from and to
/// its tensor through a register tile.
struct Staged {
    /// The tensor `m{i}`.
    tensor: String,
    /// The buffer `sm{i}`.
    buffer: String,
    /// The register tile `s{i}`.
    stage: String,
    dtype: DType,
    lanes: u8,
    /// One `[lanes]` element (not a row per thread).
    one: bool,
    /// The form reads the memory: it is copied in first.
    read: bool,
    /// The form writes the memory: it is copied out after.
    written: bool,
}

impl Staged {
    /// Row `tensor_row` of the tensor into row `buffer_row` of the buffer
    /// (`None`: the whole `[lanes]`).
    fn copy_in(&self, buffer_row: Option<Expr>, tensor_row: Option<Expr>) -> Vec<Stmt> {
        let bits = self.dtype.bits();
        let lanes = vec![ViewKind::Reshape(vec![i64::from(self.lanes), 1])];
        vec![
            apply(
                &format!("ld.global.b{bits}"),
                vec![
                    per_register(&self.stage, self.lanes),
                    row_view(&self.tensor, tensor_row, lanes.clone()),
                ],
            ),
            apply(
                &format!("st.shared.b{bits}"),
                vec![
                    row_view(&self.buffer, buffer_row, lanes),
                    per_register(&self.stage, self.lanes),
                ],
            ),
        ]
    }

    /// Row `buffer_row` of the buffer back to row `tensor_row` of the tensor.
    fn copy_out(&self, buffer_row: Option<Expr>, tensor_row: Option<Expr>) -> Vec<Stmt> {
        let bits = self.dtype.bits();
        let lanes = vec![ViewKind::Reshape(vec![i64::from(self.lanes), 1])];
        vec![
            apply(
                &format!("ld.shared.b{bits}"),
                vec![
                    per_register(&self.stage, self.lanes),
                    row_view(&self.buffer, buffer_row, lanes.clone()),
                ],
            ),
            apply(
                &format!("st.global.b{bits}"),
                vec![
                    row_view(&self.tensor, tensor_row, lanes),
                    per_register(&self.stage, self.lanes),
                ],
            ),
        ]
    }
}

/// A kernel named `name` that runs `m` in `shape` with `choices`, or the
/// operand type no dtype carries.
pub fn generate(
    kernel_name: &str,
    m: &Modifiers,
    target: Target,
    shape: Shape,
    choices: &Choices,
) -> Result<Generated, PtxType> {
    let operands = m.operands();
    if let Some(op) = operands
        .iter()
        .find(|o| !matches!(o.kind, OperandKind::Immediate { .. }) && dtype_for(o.ty).is_none())
    {
        return Err(op.ty);
    }
    let dtype_for = |ty| dtype_for(ty).expect("checked above");
    let tensor_dtype = |dtype: DType| {
        if choices.containers {
            dtype.bit_container()
        } else {
            dtype
        }
    };
    let row_index = "i";
    // The row a thread copies to and from shared memory (`copier_row`).
    let copier_index = "j";
    let (per_thread, block) = match shape {
        Shape::Single => (false, 1),
        Shape::PerThread { block } => (true, block),
    };
    let barrier_form = m.usability() == Usability::CtaBarrier;
    let atomic = matches!(m.effect(), Effect::Atomic { .. });
    // A tensor parameter of `lanes` elements a row (or in all).
    let tensor_param = |t: &str, dtype: DType, lanes: u8, per_row: bool| {
        if per_row {
            tensor_of(
                t,
                dtype,
                vec![
                    Dim {
                        expr: name(ROWS),
                        span: S,
                    },
                    Dim::constant(u64::from(lanes), S),
                ],
            )
        } else {
            tensor(t, dtype, lanes)
        }
    };
    // The operand's row of a per-row tensor (`t.slice(s![i, ..])`), or
    // the whole tensor.
    let row = |t: &str, per_row: bool, then: Vec<ViewKind>| {
        row_view(t, per_row.then(|| name(row_index)), then)
    };
    let registers = |t: &str, per_row: bool, lanes: u8| {
        row(
            t,
            per_row,
            vec![ViewKind::Reshape(vec![i64::from(lanes), 1])],
        )
    };
    let mut params = Vec::new();
    let mut tensors = Vec::new();
    let mut allocs = Vec::new();
    let mut shared_allocs = Vec::new();
    let mut staged: Vec<Staged> = Vec::new();
    // A barrier form's sources, zeroed for every thread (`PerThread`).
    let mut inits = Vec::new();
    let mut before = Vec::new();
    // A barrier form's predicate conversions, for every thread (`PerThread`).
    let mut converts = Vec::new();
    let mut after = Vec::new();
    let mut apply_operands = Vec::new();
    let mut immediates = choices.immediates.iter();
    let mut zero_fill = false;
    for (i, op) in operands.iter().enumerate() {
        let ResolvedOperand {
            kind,
            access,
            ty,
            lanes,
            ..
        } = *op;
        match kind {
            OperandKind::Immediate { min, .. } => {
                let value = immediates.next().copied().unwrap_or(min);
                apply_operands.push(literal(i128::from(value)));
            }
            OperandKind::TensorCoords => unreachable!("TMA forms are never usable"),
            OperandKind::Special(names) => apply_operands.push(Operand::Special {
                name: choices.special.unwrap_or(names[0]).to_string(),
                span: S,
            }),
            OperandKind::Address if matches!(m.operand_space(op.name), Space::Shared { .. }) => {
                let t = format!("m{i}");
                let dtype = tensor_dtype(dtype_for(ty));
                // One element a CTA, or a row per thread; either way the
                // tensor has a row per thread (the final value of the
                // CTA's element goes to every row of the CTA).
                let one = !per_thread || choices.shared_memory;
                params.push(tensor_param(&t, dtype, lanes, per_thread));
                tensors.push(TensorRole {
                    operand: i,
                    role: Role::Memory,
                    dtype,
                    lanes,
                    per_row: per_thread,
                    predicate: false,
                });
                let buffer = format!("sm{i}");
                let stage = format!("s{i}");
                let dims = if one {
                    vec![u64::from(lanes)]
                } else {
                    vec![u64::from(block), u64::from(lanes)]
                };
                shared_allocs.push(alloc_shared(&buffer, dtype, &dims));
                allocs.push(alloc(&stage, dtype, lanes));
                apply_operands.push(row_view(
                    &buffer,
                    (!one).then(|| call("thread_id", vec![int(0)])),
                    Vec::new(),
                ));
                staged.push(Staged {
                    tensor: t,
                    buffer,
                    stage,
                    dtype,
                    lanes,
                    one,
                    read: access == Access::Read || atomic,
                    written: access == Access::Write,
                });
            }
            OperandKind::Address => {
                let t = format!("m{i}");
                let per_row = per_thread && !choices.shared_memory;
                let dtype = tensor_dtype(dtype_for(ty));
                params.push(tensor_param(&t, dtype, lanes, per_row));
                tensors.push(TensorRole {
                    operand: i,
                    role: Role::Memory,
                    dtype,
                    lanes,
                    per_row,
                    predicate: false,
                });
                apply_operands.push(row(&t, per_row, Vec::new()));
            }
            // The compiler computes a copy's `src-size` (`zero_fill`).
            OperandKind::Register if op.name == "src-size" => zero_fill = true,
            OperandKind::Register
                if choices.created_policy
                    && op.name == "policy"
                    && access == Access::Read
                    && ty == PtxType::B64 =>
            {
                let r = format!("r{i}");
                allocs.push(alloc(&r, dtype_for(ty), lanes));
                before.push(apply(POLICY_OPCODE, vec![per_register(&r, lanes)]));
                apply_operands.push(place(&r, Vec::new()));
            }
            OperandKind::Register | OperandKind::Predicate => {
                let dtype = dtype_for(ty);
                let predicate = dtype == DType::Bool;
                let r = format!("r{i}");
                // A barrier's register operands are CTA tiles: the thread
                // loads and stores its part, row `thread_id(0)`.
                let r_part = || {
                    if barrier_form {
                        row_view(
                            &r,
                            Some(call("thread_id", vec![int(0)])),
                            vec![ViewKind::Reshape(vec![i64::from(lanes), 1])],
                        )
                    } else {
                        per_register(&r, lanes)
                    }
                };
                allocs.push(if barrier_form {
                    alloc_group(&r, dtype, block, lanes, "cta")
                } else {
                    alloc(&r, dtype, lanes)
                });
                apply_operands.push(place(&r, Vec::new()));
                // Predicates travel through a u32 tile: `setp`/`selp`.
                let carrier = if predicate {
                    DType::U32
                } else {
                    tensor_dtype(dtype)
                };
                let io = format!("io{i}");
                params.push(tensor_param(&io, carrier, lanes, per_thread));
                tensors.push(TensorRole {
                    operand: i,
                    role: if access == Access::Read {
                        Role::Source
                    } else {
                        Role::Destination
                    },
                    dtype: carrier,
                    lanes,
                    per_row: per_thread,
                    predicate,
                });
                let staged = format!("w{i}");
                if predicate {
                    allocs.push(alloc(&staged, DType::U32, lanes));
                }
                // A barrier form runs in every thread of the CTA: a thread
                // past `N` loads nothing and runs it on zeros.
                let zeroed = barrier_form && per_thread && access == Access::Read;
                if zeroed {
                    let (tile, bits) = if predicate {
                        (per_register(&staged, lanes), 32)
                    } else {
                        (r_part(), dtype.bits())
                    };
                    inits.push(apply(&format!("mov.b{bits}"), vec![tile, literal(0)]));
                }
                if access == Access::Read {
                    if predicate {
                        before.push(apply(
                            "ld.global.b32",
                            vec![
                                per_register(&staged, lanes),
                                registers(&io, per_thread, lanes),
                            ],
                        ));
                        let setp = apply(
                            "setp.ne.u32",
                            vec![r_part(), per_register(&staged, lanes), literal(0)],
                        );
                        if zeroed {
                            converts.push(setp);
                        } else {
                            before.push(setp);
                        }
                    } else {
                        before.push(apply(
                            &format!("ld.global.b{}", dtype.bits()),
                            vec![r_part(), registers(&io, per_thread, lanes)],
                        ));
                    }
                } else if predicate {
                    after.push(apply(
                        "selp.u32",
                        vec![
                            per_register(&staged, lanes),
                            literal(1),
                            literal(0),
                            r_part(),
                        ],
                    ));
                    after.push(apply(
                        "st.global.b32",
                        vec![
                            registers(&io, per_thread, lanes),
                            per_register(&staged, lanes),
                        ],
                    ));
                } else {
                    after.push(apply(
                        &format!("st.global.b{}", dtype.bits()),
                        vec![registers(&io, per_thread, lanes), r_part()],
                    ));
                }
            }
        }
    }
    let form = if barrier_form {
        apply_scoped(&m.opcode_text(), apply_operands, "cta")
    } else {
        apply(&m.opcode_text(), apply_operands)
    };
    let mut form = form;
    if zero_fill && let Stmt::Apply(apply) = &mut form {
        apply.zero_fill = Some(S);
    }
    // An asynchronous copy lands at its wait, before anything reads it.
    if m.effect() == Effect::AsyncCopy {
        after.insert(0, apply("cp.async.wait_all", Vec::new()));
    }
    // A value crossing a CTA barrier through shared memory.
    let mut exchange_in = Vec::new();
    let mut exchange_out = Vec::new();
    if barrier_form && per_thread && choices.cta_exchange {
        let operand = operands.iter().position(|o| o.name == "a").unwrap_or(0);
        for (t, role) in [("ex_in", Role::Source), ("ex_out", Role::Destination)] {
            params.push(tensor_param(t, DType::U32, 1, true));
            tensors.push(TensorRole {
                operand,
                role,
                dtype: DType::U32,
                lanes: 1,
                per_row: true,
                predicate: false,
            });
        }
        shared_allocs.push(alloc_shared("ex", DType::U32, &[u64::from(block), 1]));
        allocs.push(alloc("ex_a", DType::U32, 1));
        allocs.push(alloc("ex_b", DType::U32, 1));
        let one = || vec![ViewKind::Reshape(vec![1, 1])];
        exchange_in = vec![
            apply(
                "ld.global.b32",
                vec![
                    per_register("ex_a", 1),
                    row_view("ex_in", Some(name(row_index)), one()),
                ],
            ),
            apply(
                "st.shared.b32",
                vec![
                    row_view("ex", Some(call("thread_id", vec![int(0)])), one()),
                    per_register("ex_a", 1),
                ],
            ),
        ];
        exchange_out = vec![
            apply(
                "ld.shared.b32",
                vec![
                    per_register("ex_b", 1),
                    row_view("ex", Some(copier_row(block)), one()),
                ],
            ),
            apply(
                "st.global.b32",
                vec![
                    row_view("ex_out", Some(name(copier_index)), one()),
                    per_register("ex_b", 1),
                ],
            ),
        ];
    }
    let (launch, body) = match shape {
        Shape::Single => {
            let mut body = shared_allocs;
            body.extend(allocs);
            let fill: Vec<Stmt> = staged
                .iter()
                .filter(|s| s.read)
                .flat_map(|s| s.copy_in(None, None))
                .collect();
            if !fill.is_empty() {
                body.extend(fill);
                body.push(cta_barrier());
            }
            body.extend(before);
            body.push(form);
            body.extend(after);
            let drain: Vec<Stmt> = staged
                .iter()
                .filter(|s| s.written)
                .flat_map(|s| s.copy_out(None, None))
                .collect();
            if !drain.is_empty() {
                body.push(cta_barrier());
                body.extend(drain);
            }
            (LaunchDims::fixed([1, 1, 1], [1, 1, 1]), body)
        }
        Shape::PerThread { block } => {
            let below = |var: &str| binary(BinOp::Lt, name(var), name(ROWS));
            let mut body = vec![global_index(row_index, block)];
            if staged.iter().any(|s| !s.one) || !exchange_out.is_empty() {
                // `j = cta_id(0) * block + copier_row(block)`.
                body.push(let_(
                    copier_index,
                    binary(
                        BinOp::Add,
                        binary(
                            BinOp::Mul,
                            call("cta_id", vec![int(0)]),
                            int(i128::from(block)),
                        ),
                        copier_row(block),
                    ),
                ));
            }
            body.extend(shared_allocs);
            body.extend(allocs);
            // 1. The memory the form reads, into the buffers.
            let mut fill = Vec::new();
            for s in staged.iter().filter(|s| s.read) {
                fill.push(if s.one {
                    guarded(
                        below(row_index),
                        vec![guarded(
                            binary(BinOp::Eq, call("thread_id", vec![int(0)]), int(0)),
                            s.copy_in(None, Some(name(row_index))),
                        )],
                    )
                } else {
                    guarded(
                        below(copier_index),
                        s.copy_in(Some(copier_row(block)), Some(name(copier_index))),
                    )
                });
            }
            if !fill.is_empty() {
                body.extend(fill);
                body.push(cta_barrier());
            }
            // 2. The form.
            if barrier_form {
                // Every thread of the CTA runs it.
                body.extend(inits);
                before.extend(exchange_in);
                if !before.is_empty() {
                    body.push(guarded(below(row_index), before));
                }
                body.extend(converts);
                body.push(form);
                if !after.is_empty() {
                    body.push(guarded(below(row_index), after));
                }
                if !exchange_out.is_empty() {
                    body.push(guarded(below(copier_index), exchange_out));
                }
            } else {
                let mut work = before;
                work.push(form);
                work.extend(after);
                body.push(guarded(below(row_index), work));
            }
            // 3. The memory the form wrote, back to the tensors.
            let mut drain = Vec::new();
            for s in staged.iter().filter(|s| s.written) {
                drain.push(if s.one {
                    guarded(below(row_index), s.copy_out(None, Some(name(row_index))))
                } else {
                    guarded(
                        below(copier_index),
                        s.copy_out(Some(copier_row(block)), Some(name(copier_index))),
                    )
                });
            }
            if !drain.is_empty() {
                body.push(cta_barrier());
                body.extend(drain);
            }
            (per_thread_launch(ROWS, block), body)
        }
    };
    Ok(Generated {
        kernel: Kernel {
            name: kernel_name.to_string(),
            name_span: S,
            launch,
            target,
            params,
            body,
        },
        tensors,
    })
}

/// Joins the `.entry` functions of several modules for one target into one
/// module at the highest `.version` among them.
pub fn join_modules(modules: &[String]) -> String {
    let mut version = String::new();
    let mut header = String::new();
    let mut bodies = String::new();
    for module in modules {
        let start = module.find(".visible .entry").expect("an entry");
        let (head, body) = module.split_at(start);
        let v = head
            .lines()
            .find(|l| l.starts_with(".version "))
            .expect(".version")
            .to_string();
        if version_number(&v) > version_number(&version) {
            version = v;
        }
        header = head.to_string();
        bodies.push_str(body);
        bodies.push('\n');
    }
    let header: String = header
        .lines()
        .map(|l| {
            if l.starts_with(".version ") {
                version.clone()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    format!("{header}\n{bodies}")
}

/// `.version 8.10` as (8, 10), for ordering (`8.10` is above `8.9`).
fn version_number(line: &str) -> (u32, u32) {
    let v = line.trim_start_matches(".version").trim();
    let (major, minor) = v.split_once('.').unwrap_or((v, "0"));
    (major.parse().unwrap_or(0), minor.parse().unwrap_or(0))
}

fn leak<T>(items: Vec<T>) -> &'static [T] {
    Box::leak(items.into_boxed_slice())
}

/// The launch description of a compiled kernel, as the `#[tile_kernel]`
/// macro would write it for the same program and PTX (strings and slices
/// leaked: a harness builds a bounded number of them). `program` is left
/// empty: the spec is for GPU launches.
pub fn spec_for(program: &Program, ptx: &str) -> KernelSpec {
    let formula =
        |f: &tile_kernel_lowering::program::LaunchFormula| LaunchFormulaSpec(leak(f.0.clone()));
    let params = program
        .params
        .iter()
        .map(|p| ParamSpec {
            name: Box::leak(p.name.clone().into_boxed_str()),
            kind: match &p.kind {
                tile_kernel_lowering::program::ParamKind::Tensor {
                    dtype,
                    dims,
                    borrow,
                } => ParamKindSpec::Tensor {
                    dtype: *dtype,
                    shape: leak(dims.clone()),
                    borrow: *borrow,
                },
                tile_kernel_lowering::program::ParamKind::Scalar(dtype) => {
                    ParamKindSpec::Scalar { dtype: *dtype }
                }
            },
        })
        .collect();
    let symbols = program
        .symbols
        .iter()
        .map(|s| SymbolSpec {
            name: Box::leak(s.name.clone().into_boxed_str()),
            divisor: s.divisor,
            multiple_of: s.multiple_of,
        })
        .collect();
    KernelSpec {
        name: Box::leak(program.name.clone().into_boxed_str()),
        ptx: Box::leak(ptx.to_string().into_boxed_str()),
        target: program.target,
        grid: [
            formula(&program.launch.grid[0]),
            formula(&program.launch.grid[1]),
            formula(&program.launch.grid[2]),
        ],
        block: program.launch.block,
        cluster: [1, 1, 1],
        shared_mem_bytes: formula(&program.dynamic_shared_bytes()),
        params: leak(params),
        symbols: leak(symbols),
        tensor_maps: leak(
            program
                .tensor_maps
                .iter()
                .map(|m| TensorMapSpec {
                    param: m.param,
                    box_dims: leak(m.box_dims.clone()),
                    swizzle: m.swizzle,
                })
                .collect(),
        ),
        program: &[],
    }
}
