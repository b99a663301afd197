//! Kernels that run one variant of one PTX form on fresh operands, built as
//! syntax trees: every register source is loaded from a tensor, the form
//! runs, every register destination is stored to a tensor, and every
//! address operand is a tensor of its own.
//!
//! Shared (through `#[path]`) by `lowering/tests/forms_end_to_end.rs`,
//! which checks that the checker and emitter accept every usable form, and
//! by `tests/differential.rs` / `examples/sweep_conversions.rs`, which run
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
//! Predicates travel through `u32` tensors (`setp.ne.u32` after the load,
//! `selp.u32` before the store); immediates and special registers are
//! compile-time choices ([`Choices`]).

use tile_kernel_lowering::ast::*;
use tile_kernel_lowering::program::Program;
use tile_kernel_lowering::ptx::{Access, Modifiers, OperandKind, PtxType, ResolvedOperand};
use tile_kernel_lowering::spec::{
    Access as SpecAccess, KernelSpec, LaunchExpr, ParamKind as SpecParamKind, ParamSpec, SymbolSpec,
};
use tile_kernel_lowering::{DType, SpanId, Target};

pub const S: SpanId = SpanId(0);

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

pub fn place(base: &str, views: Vec<ViewKind>) -> Operand {
    Operand::Place(PlaceExpr {
        base: base.to_string(),
        base_span: S,
        views: views
            .into_iter()
            .map(|kind| ViewOp { kind, span: S })
            .collect(),
        span: S,
    })
}

/// `name.reshape([lanes, 1])`: one repeat per register.
pub fn per_register(name: &str, lanes: u8) -> Operand {
    place(name, vec![ViewKind::Reshape(vec![i64::from(lanes), 1])])
}

pub fn apply(opcode: &str, operands: Vec<Operand>) -> Stmt {
    Stmt::Apply(Apply {
        opcode: opcode.to_string(),
        opcode_span: S,
        operands,
        scope: None,
        pred: None,
        preserve_dst: None,
        span: S,
    })
}

pub fn alloc(name: &str, dtype: DType, lanes: u8) -> Stmt {
    Stmt::AllocLocal(AllocLocal {
        name: name.to_string(),
        name_span: S,
        dtype,
        dtype_span: S,
        shape: vec![Dim::constant(u64::from(lanes), S)],
        scope: None,
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

pub fn literal(value: i128) -> Operand {
    Operand::Literal(Literal {
        value: LiteralValue::Int(value),
        span: S,
    })
}

pub fn int(value: i128) -> Expr {
    Expr::Int(value, S)
}

pub fn name(n: &str) -> Expr {
    Expr::Name(n.to_string(), S)
}

pub fn call(func: &str, args: Vec<Expr>) -> Expr {
    Expr::Call {
        func: func.to_string(),
        args,
        span: S,
    }
}

pub fn binary(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
    Expr::Binary {
        op,
        lhs: Box::new(lhs),
        rhs: Box::new(rhs),
        span: S,
    }
}

/// `let i = cta_id(0) * block + thread_id(0);`
pub fn global_index(var: &str, block: u32) -> Stmt {
    Stmt::Let(Let {
        name: var.to_string(),
        name_span: S,
        value: binary(
            BinOp::Add,
            binary(
                BinOp::Mul,
                call("cta_id", vec![int(0)]),
                int(i128::from(block)),
            ),
            call("thread_id", vec![int(0)]),
        ),
        span: S,
    })
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
    /// tensor instead of its own row (for atomics).
    pub shared_memory: bool,
    /// Tensors are the unsigned bit containers of their dtypes (`f32` ->
    /// `u32`), so that a harness moves bytes of four widths only.
    pub containers: bool,
    /// A `.L2::cache_hint` form's `policy` source is made in the kernel by
    /// [`POLICY_OPCODE`] instead of loaded: the GPU expects a policy that
    /// `createpolicy` made, not arbitrary bits.
    pub created_policy: bool,
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
    /// both (`atom`, `red`), as the form decides.
    Memory,
}

/// One tensor parameter of a generated kernel, in parameter order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TensorRole {
    /// The operand it serves: an index into `Modifiers::operands()`.
    pub operand: usize,
    pub role: Role,
    /// The tensor's dtype.
    pub dtype: DType,
    /// Elements a row (the operand's lanes).
    pub lanes: u8,
    /// Whether it has one row per thread (`[N, lanes]`), or is one row all
    /// threads share (`[lanes]`: [`Shape::Single`], or shared memory).
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
    let per_thread = matches!(shape, Shape::PerThread { .. });
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
    let row = |t: &str, per_row: bool, mut then: Vec<ViewKind>| {
        let mut views = Vec::new();
        if per_row {
            views.push(ViewKind::Slice(vec![
                SliceItem::Index {
                    index: name(row_index),
                    span: S,
                },
                SliceItem::range(None, None, 1, S),
            ]));
        }
        views.append(&mut then);
        place(t, views)
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
    let mut before = Vec::new();
    let mut after = Vec::new();
    let mut apply_operands = Vec::new();
    let mut immediates = choices.immediates.iter();
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
                allocs.push(alloc(&r, dtype, lanes));
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
                if access == Access::Read {
                    if predicate {
                        before.push(apply(
                            "ld.global.b32",
                            vec![
                                per_register(&staged, lanes),
                                registers(&io, per_thread, lanes),
                            ],
                        ));
                        before.push(apply(
                            "setp.ne.u32",
                            vec![
                                per_register(&r, lanes),
                                per_register(&staged, lanes),
                                literal(0),
                            ],
                        ));
                    } else {
                        before.push(apply(
                            &format!("ld.global.b{}", dtype.bits()),
                            vec![per_register(&r, lanes), registers(&io, per_thread, lanes)],
                        ));
                    }
                } else if predicate {
                    after.push(apply(
                        "selp.u32",
                        vec![
                            per_register(&staged, lanes),
                            literal(1),
                            literal(0),
                            per_register(&r, lanes),
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
                        vec![registers(&io, per_thread, lanes), per_register(&r, lanes)],
                    ));
                }
            }
        }
    }
    let mut work = before;
    work.push(apply(&m.opcode_text(), apply_operands));
    work.extend(after);
    let (launch, body) = match shape {
        Shape::Single => {
            let mut body = allocs;
            body.extend(work);
            (LaunchDims::fixed([1, 1, 1], [1, 1, 1]), body)
        }
        Shape::PerThread { block } => {
            let mut body = vec![global_index(row_index, block)];
            body.extend(allocs);
            body.push(Stmt::If(If {
                cond: binary(BinOp::Lt, name(row_index), name(ROWS)),
                then: work,
                otherwise: Vec::new(),
                span: S,
            }));
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
    let formula = |f: &tile_kernel_lowering::program::LaunchFormula| LaunchExpr(leak(f.0.clone()));
    let params = program
        .params
        .iter()
        .map(|p| ParamSpec {
            name: Box::leak(p.name.clone().into_boxed_str()),
            kind: match &p.kind {
                tile_kernel_lowering::program::ParamKind::Tensor {
                    dtype,
                    dims,
                    written,
                } => SpecParamKind::Tensor {
                    dtype: *dtype,
                    shape: leak(dims.clone()),
                    access: if *written {
                        SpecAccess::Write
                    } else {
                        SpecAccess::Read
                    },
                },
                tile_kernel_lowering::program::ParamKind::Scalar(dtype) => {
                    SpecParamKind::Scalar { dtype: *dtype }
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
        shared_mem_bytes: 0,
        params: leak(params),
        symbols: leak(symbols),
        program: &[],
    }
}
