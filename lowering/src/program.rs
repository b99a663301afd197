//! The lowered kernel IR, between checking and PTX emission.
//!
//! - **Values**: runtime integers are [`Poly`]s over the kernel's [`Atoms`]
//!   (special registers, symbols, integer parameters, loop variables and
//!   computed values); predicates are [`Cond`]s.
//! - **Access maps**: a memory operand is a tensor plus a byte-offset
//!   polynomial of loop/thread indices.
//! - **Control flow** is structured: [`Node::If`] and [`Node::Loop`] hold
//!   their bodies; constant-bound loops were unrolled by the checker.
//! - Register tiles stay fully unrolled: PTX registers cannot be indexed, so
//!   every register operand names its tile element statically.
//!
//! Guarantee from [`crate::sema`] and [`crate::prove`]: every instruction is a legal form on the
//! program's target; every register lane lies inside its tile and is one
//! whole register, one aligned part of one (at most 4 parts), or a run of 2
//! or 4 whole registers; every memory access is in bounds (proven, or under a
//! guard that implies it; a tensor copy's box is clipped to its tensor by
//! the hardware, through the map the launcher builds) and aligned to its size, given the launch-time
//! checks in [`Program::symbols`] and 16-byte-aligned tensor bases; stores of
//! different threads never touch the same bytes; shared-memory accesses stay
//! in their buffer, and between two CTA barriers no thread touches bytes of a
//! shared buffer that another thread writes; every runtime index value fits
//! in 64-bit signed arithmetic.

use serde::{Deserialize, Serialize};

use crate::dtype::DType;
pub use crate::memory::{Buffer, MemorySpace};
pub use crate::spec::Borrow;
use crate::sym::{AtomId, Atoms, Fact, Poly};
use crate::target::{PtxVersion, Target};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Program {
    pub name: String,
    pub target: Target,
    /// The `.version` to emit: the highest of the target's minimum and every
    /// used form's minimum.
    pub ptx_version: PtxVersion,
    pub launch: Launch,
    pub params: Vec<ProgramParam>,
    /// Size symbols, passed to the kernel as hidden `.u64` parameters after
    /// the user's parameters (each as its value divided by its divisor).
    pub symbols: Vec<Symbol>,
    pub atoms: Atoms,
    pub tiles: Vec<Tile>,
    /// The CTA's shared-memory buffers (`alloc_shared`), each 16-byte
    /// aligned, one instance per CTA.
    pub shared: Vec<SharedBuffer>,
    /// The tensor maps the kernel's tensor copies read, each passed as a
    /// hidden 128-byte parameter after the size symbols, in this order
    /// (the launcher encodes them; the kernel cannot write one).
    pub tensor_maps: Vec<TensorMap>,
    pub body: Vec<Node>,
}

/// A tensor map (TMA descriptor) of a tensor parameter with one box: what
/// the launcher passes to `cuTensorMapEncodeTiled` (tiled mode, no
/// interleave, zero fill out of bounds, the swizzle of the shared buffer
/// the copies meet). Its element type is the tensor's; its dims and
/// strides come from the tensor's shape at launch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TensorMap {
    /// The tensor parameter (a [`ParamKind::Tensor`]).
    pub param: usize,
    /// The box's extents, outermost axis first (as the kernel writes
    /// them), each in `1..=256`; the innermost is a multiple of 16 bytes.
    pub box_dims: Vec<u32>,
    /// The swizzle span in bytes (32, 64 or 128) of the `swizzle_*`
    /// shared buffer its copies fill or read, whose rows are the box's
    /// innermost row; 0 for none (a row-major buffer).
    #[serde(default)]
    pub swizzle: u32,
}

/// A shared-memory buffer of the CTA: row-major elements of `dtype`,
/// `shape` as allocated. A buffer whose dims are all constant is *static*
/// (its size is known at compile time); one with a symbolic dim is the
/// kernel's *dynamic* buffer (at most one per kernel), sized at launch
/// ([`Program::dynamic_shared_bytes`]).
///
/// Where they live ([`Program::shared_placement`]): the static buffers are
/// declared in the PTX while they take at most the 48 KiB PTX lets a
/// kernel declare; beyond that, all of them move to the CTA's dynamic
/// shared memory, at constant 128-byte aligned offsets, and the launcher
/// provides their bytes. The dynamic buffer comes after them there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedBuffer {
    pub name: String,
    pub dtype: DType,
    pub shape: Vec<DimSpec>,
    /// `alloc_shared::<Mbarrier>`: mbarrier objects (8-byte words), reached
    /// only by the `mbarrier` forms.
    #[serde(default)]
    pub mbarrier: bool,
    /// Where its logical bytes lie (`layout = ".."`; row-major by default).
    #[serde(default)]
    pub layout: crate::shared_layout::SharedLayout,
}

impl SharedBuffer {
    /// The alignment of its first byte: 128 bytes, or its layout's
    /// (a swizzle atom) when larger.
    pub fn alignment(&self) -> usize {
        crate::memory::STATIC_SHARED_ALIGNMENT.max(self.layout.alignment())
    }

    /// Whether a dim is symbolic (the buffer is sized at launch).
    pub fn is_dynamic(&self) -> bool {
        self.shape
            .iter()
            .any(|d| matches!(d, DimSpec::Symbolic { .. }))
    }

    /// A static buffer's size in bytes (saturating: the checker keeps real
    /// buffers within 48 KiB; a corrupt program's absurd sizes must not
    /// overflow); `None` for the dynamic buffer.
    pub fn static_bytes(&self) -> Option<usize> {
        self.shape
            .iter()
            .try_fold(self.dtype.size_bytes(), |acc, d| match d {
                DimSpec::Const(extent) => {
                    Some(acc.saturating_mul(usize::try_from(*extent).unwrap_or(usize::MAX)))
                }
                DimSpec::Symbolic { .. } => None,
            })
    }

    /// Its size in bytes for the symbols' full values (`values[s]` for
    /// symbol `s`), with checked arithmetic: `None` on overflow.
    pub fn bytes_for(&self, values: &[u64]) -> Option<u64> {
        eval_launch(&self.bytes_formula().0, values)
    }

    /// `[256, N]`: its shape as a kernel spells it; `name` spells a symbol.
    pub fn shape_text(&self, name: impl Fn(u16) -> String) -> String {
        let dims: Vec<String> = self.shape.iter().map(|d| dim_text(*d, &name)).collect();
        format!("[{}]", dims.join(", "))
    }

    /// Its size in bytes as a launch formula over the symbols.
    pub fn bytes_formula(&self) -> LaunchFormula {
        let mut ops = vec![LaunchOp::Const(self.dtype.size_bytes() as u64)];
        for dim in &self.shape {
            match *dim {
                DimSpec::Const(extent) => ops.push(LaunchOp::Const(extent)),
                DimSpec::Symbolic {
                    symbol,
                    mul,
                    div,
                    add,
                } => {
                    ops.push(LaunchOp::Symbol(symbol));
                    if mul != 1 {
                        ops.extend([LaunchOp::Const(mul), LaunchOp::Mul]);
                    }
                    if div != 1 {
                        ops.extend([LaunchOp::Const(div), LaunchOp::Div]);
                    }
                    if add != 0 {
                        ops.extend([LaunchOp::Const(add), LaunchOp::Add]);
                    }
                }
            }
            ops.push(LaunchOp::Mul);
        }
        LaunchFormula(ops)
    }
}

/// The bytes the static buffers among `buffers` take together, each
/// at its alignment ([`SharedBuffer::alignment`]) after the one before it
/// (what the PTX declares; the dynamic buffer is not counted).
pub fn static_shared_bytes<'a>(buffers: impl IntoIterator<Item = &'a SharedBuffer>) -> usize {
    buffers.into_iter().fold(0, static_shared_bytes_after)
}

/// [`static_shared_bytes`] of buffers that take `total` bytes, and
/// `buffer` after them: its padding and its bytes (none for the dynamic
/// buffer).
pub fn static_shared_bytes_after(total: usize, buffer: &SharedBuffer) -> usize {
    match buffer.static_bytes() {
        Some(bytes) => total
            .next_multiple_of(buffer.alignment())
            .saturating_add(bytes),
        None => total,
    }
}

/// The alignment the CTA's shared memory must start at: the largest of
/// its buffers'.
pub fn shared_alignment<'a>(buffers: impl IntoIterator<Item = &'a SharedBuffer>) -> usize {
    buffers
        .into_iter()
        .map(SharedBuffer::alignment)
        .max()
        .unwrap_or(crate::memory::STATIC_SHARED_ALIGNMENT)
}

/// Where a shared buffer lives ([`Program::shared_placement`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SharedPlacement {
    /// A `.shared` variable of the PTX.
    Declared,
    /// In the CTA's dynamic shared memory, this many bytes from its start.
    Dynamic { offset: usize },
}

impl Program {
    /// Whether the static buffers live in dynamic shared memory: together
    /// they take more than the 48 KiB a kernel may declare in its PTX
    /// ([`crate::memory::MAX_STATIC_SHARED_BYTES`]).
    pub fn static_buffers_in_dynamic_memory(&self) -> bool {
        static_shared_bytes(&self.shared) > crate::memory::MAX_STATIC_SHARED_BYTES
    }

    /// Where each shared buffer lives, in the order of `self.shared`: the
    /// static buffers declared in the PTX, or (over 48 KiB) at 128-byte
    /// aligned offsets in declaration order from the start of the dynamic
    /// shared memory; the dynamic buffer after them (offset 0 when the
    /// static buffers are declared).
    pub fn shared_placement(&self) -> Vec<SharedPlacement> {
        let moved = self.static_buffers_in_dynamic_memory();
        // The dynamic buffer follows every moved static one.
        let dynamic_at = if moved {
            static_shared_bytes(&self.shared)
                .next_multiple_of(crate::memory::STATIC_SHARED_ALIGNMENT)
        } else {
            0
        };
        let mut offset = 0usize;
        self.shared
            .iter()
            .map(|buffer| match buffer.static_bytes() {
                Some(bytes) if moved => {
                    let at = offset.next_multiple_of(buffer.alignment());
                    offset = at.saturating_add(bytes);
                    SharedPlacement::Dynamic { offset: at }
                }
                Some(_) => SharedPlacement::Declared,
                None => SharedPlacement::Dynamic { offset: dynamic_at },
            })
            .collect()
    }

    /// The bytes of the static buffers the PTX declares
    /// ([`static_shared_bytes`]; 0 when they live in dynamic shared
    /// memory).
    pub fn static_shared_bytes(&self) -> usize {
        if self.static_buffers_in_dynamic_memory() {
            0
        } else {
            static_shared_bytes(&self.shared)
        }
    }

    /// The dynamic shared memory a launch must provide, in bytes, as a
    /// formula over the symbols: the static buffers' bytes when they live
    /// there (with the padding that aligns each, and the dynamic buffer's
    /// start), plus the dynamic buffer's size; 0 without either.
    pub fn dynamic_shared_bytes(&self) -> LaunchFormula {
        let dynamic = self.shared.iter().find(|b| b.is_dynamic());
        let moved = if self.static_buffers_in_dynamic_memory() {
            let bytes = static_shared_bytes(&self.shared);
            if dynamic.is_some() {
                bytes.next_multiple_of(crate::memory::STATIC_SHARED_ALIGNMENT)
            } else {
                bytes
            }
        } else {
            0
        };
        match (dynamic, moved) {
            (None, moved) => LaunchFormula::constant(moved as u64),
            (Some(buffer), 0) => buffer.bytes_formula(),
            (Some(buffer), moved) => {
                let mut formula = buffer.bytes_formula();
                formula
                    .0
                    .extend([LaunchOp::Const(moved as u64), LaunchOp::Add]);
                formula
            }
        }
    }
}

/// The launch shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Launch {
    /// Grid extents as formulas over symbols.
    pub grid: [LaunchFormula; 3],
    pub block: [u32; 3],
    /// `.maxnreg`: the registers each thread starts with, fixed where the
    /// kernel changes them with `setmaxnreg`
    /// (`crate::prove::register_pool`); `None`: ptxas chooses.
    #[serde(default)]
    pub max_registers: Option<u32>,
    /// CTAs per thread-block cluster along each grid axis (`[1, 1, 1]`:
    /// none declared). Each grid extent is a multiple of it (checked at
    /// compile time for constants, by the launcher otherwise).
    #[serde(default = "no_cluster")]
    pub cluster: [u32; 3],
}

fn no_cluster() -> [u32; 3] {
    [1, 1, 1]
}

impl Launch {
    /// Whether the kernel declares a cluster of more than one CTA.
    pub fn clustered(&self) -> bool {
        self.cluster != [1, 1, 1]
    }
}

/// A launch-size formula over symbols, in reverse Polish notation (the
/// runtime evaluates it with checked arithmetic).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchFormula(pub Vec<LaunchOp>);

impl LaunchFormula {
    pub fn constant(value: u64) -> Self {
        LaunchFormula(vec![LaunchOp::Const(value)])
    }

    pub fn as_const(&self) -> Option<u64> {
        match self.0.as_slice() {
            [LaunchOp::Const(v)] => Some(*v),
            _ => None,
        }
    }

    /// Its value for the symbols' full values ([`eval_launch`]).
    pub fn eval(&self, values: &[u64]) -> Option<u64> {
        eval_launch(&self.0, values)
    }
}

/// One step of a launch formula. Binary operations pop `b`, then `a`, and
/// push `a op b`. Shared with the runtime, which evaluates formulas with
/// checked `u64` arithmetic (an underflow, overflow or division by zero
/// refuses the launch).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LaunchOp {
    /// Pushes a constant.
    Const(u64),
    /// Pushes the symbol's full user value, e.g. `N` (not `N / divisor`).
    Symbol(u16),
    /// `a + b`.
    Add,
    /// `a - b`; below zero is an error.
    Sub,
    /// `a * b`.
    Mul,
    /// `a / b`, rounded down.
    Div,
    /// `a / b`, rounded up.
    CeilDiv,
    /// `min(a, b)`.
    Min,
    /// `max(a, b)`.
    Max,
}

/// Evaluates a launch formula for the symbols' full values (`values[s]`
/// for `Symbol(s)`), with checked arithmetic: `None` on underflow,
/// overflow, division by zero or a malformed formula. The runtime, the
/// launch description ([`crate::spec::LaunchFormulaSpec`]) and tests share it.
pub fn eval_launch(ops: &[LaunchOp], values: &[u64]) -> Option<u64> {
    let mut stack = [0u64; 16];
    let mut depth = 0usize;
    for op in ops {
        let value = match *op {
            LaunchOp::Const(v) => v,
            LaunchOp::Symbol(s) => *values.get(usize::from(s))?,
            binary => {
                let b = stack[depth.checked_sub(1)?];
                let a = stack[depth.checked_sub(2)?];
                depth -= 2;
                match binary {
                    LaunchOp::Add => a.checked_add(b)?,
                    LaunchOp::Sub => a.checked_sub(b)?,
                    LaunchOp::Mul => a.checked_mul(b)?,
                    LaunchOp::Div => a.checked_div(b)?,
                    LaunchOp::CeilDiv => a.checked_add(b.checked_sub(1)?)?.checked_div(b)?,
                    LaunchOp::Min => a.min(b),
                    LaunchOp::Max => a.max(b),
                    LaunchOp::Const(_) | LaunchOp::Symbol(_) => return None,
                }
            }
        };
        *stack.get_mut(depth)? = value;
        depth += 1;
    }
    (depth == 1).then_some(stack[0])
}

/// A launch formula in the kernel's syntax, for docs and messages:
/// `ceil_div(N, 2048)`; `name` spells a symbol. `<malformed>` for a formula
/// that does not leave exactly one value.
pub fn formula_text(ops: &[LaunchOp], name: impl Fn(u16) -> String) -> String {
    // (text, precedence): 1 for + -, 2 for * /, 3 for atoms and calls.
    let mut stack: Vec<(String, u8)> = Vec::new();
    for &op in ops {
        let (text, precedence) = match op {
            LaunchOp::Const(value) => (value.to_string(), 3),
            LaunchOp::Symbol(symbol) => (name(symbol), 3),
            binary => {
                let (Some((b, pb)), Some((a, pa))) = (stack.pop(), stack.pop()) else {
                    return "<malformed>".into();
                };
                let call = |function: &str| (format!("{function}({a}, {b})"), 3);
                let infix = |symbol: &str, precedence: u8| {
                    let a = if pa < precedence {
                        format!("({a})")
                    } else {
                        a.clone()
                    };
                    let b = if pb <= precedence {
                        format!("({b})")
                    } else {
                        b.clone()
                    };
                    (format!("{a} {symbol} {b}"), precedence)
                };
                match binary {
                    LaunchOp::Add => infix("+", 1),
                    LaunchOp::Sub => infix("-", 1),
                    LaunchOp::Mul => infix("*", 2),
                    LaunchOp::Div => infix("/", 2),
                    LaunchOp::CeilDiv => call("ceil_div"),
                    LaunchOp::Min => call("min"),
                    LaunchOp::Max => call("max"),
                    LaunchOp::Const(_) | LaunchOp::Symbol(_) => ("<malformed>".into(), 3),
                }
            }
        };
        stack.push((text, precedence));
    }
    match stack.pop() {
        Some((text, _)) if stack.is_empty() => text,
        _ => "<malformed>".into(),
    }
}

/// A size symbol (`N` in `Tensor<f32, N>`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Symbol {
    pub name: String,
    /// The value must be a multiple of this; the kernel receives value / divisor.
    pub divisor: u64,
    /// Launch-time requirement from alignment proofs (1: none).
    pub multiple_of: u64,
    /// The atom holding value / divisor.
    pub atom: AtomId,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramParam {
    pub name: String,
    pub kind: ParamKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ParamKind {
    /// A global-memory pointer to a row-major tensor.
    Tensor {
        dtype: DType,
        dims: Vec<DimSpec>,
        /// Whether the kernel stores into it, so the launcher takes it
        /// `&mut`.
        borrow: Borrow,
    },
    Scalar(DType),
}

/// One tensor extent as the launcher checks it (shared with the runtime).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DimSpec {
    /// Exactly this extent.
    Const(u64),
    /// `value(symbol) * mul / div + add`, with `mul, div >= 1` and
    /// `value * mul` a multiple of `div`; `symbol` indexes the kernel's
    /// symbols.
    Symbolic {
        symbol: u16,
        mul: u64,
        div: u64,
        add: u64,
    },
}

/// One dim as a kernel's signature spells it: `4`, `N`, `{2 * N / 3 + 1}`;
/// `name` spells a symbol.
pub fn dim_text(dim: DimSpec, name: impl Fn(u16) -> String) -> String {
    match dim {
        DimSpec::Const(extent) => extent.to_string(),
        DimSpec::Symbolic {
            symbol,
            mul,
            div,
            add,
        } => {
            let mut text = name(symbol);
            if mul != 1 {
                text = format!("{mul} * {text}");
            }
            if div != 1 {
                text = format!("{text} / {div}");
            }
            if add != 0 {
                text = format!("{text} + {add}");
            }
            if mul == 1 && div == 1 && add == 0 {
                text
            } else {
                format!("{{{text}}}")
            }
        }
    }
}

/// A local register tile: one virtual register per element.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tile {
    pub name: String,
    pub dtype: DType,
    pub shape: Vec<usize>,
}

impl Tile {
    pub fn registers(&self) -> usize {
        self.shape.iter().product()
    }
}

/// One step of the structured body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Node {
    /// The instructions of one `apply`.
    Statement(Statement),
    /// Compute a [`crate::sym::AtomKind::Computed`] atom here.
    Define(AtomId),
    If {
        cond: Cond,
        then: Vec<Node>,
        otherwise: Vec<Node>,
    },
    /// `for var in (start..end).step_by(step)`, `step >= 1` proven.
    Loop {
        var: AtomId,
        start: Poly,
        end: Poly,
        step: Poly,
        body: Vec<Node>,
    },
}

/// How many nodes `nodes` holds, the bodies of `if`s and loops included
/// (each once): the size emission and encoding walk.
pub fn statement_count(nodes: &[Node]) -> usize {
    nodes
        .iter()
        .map(|node| match node {
            Node::If {
                then, otherwise, ..
            } => 1 + statement_count(then) + statement_count(otherwise),
            Node::Loop { body, .. } => 1 + statement_count(body),
            Node::Statement(_) | Node::Define(_) => 1,
        })
        .sum()
}

/// A predicate over runtime values.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Cond {
    Const(bool),
    /// `poly <op> 0`.
    Cmp(CmpOp, Poly),
    /// A `bool` scalar parameter.
    Param(usize),
    /// Predicate register `register` of `bool` tile `tile`, as the
    /// instruction that last wrote it left it: `version` names that write
    /// (fresh for every write, and after any `if` or loop that may have
    /// written it), so two conditions are equal only if they read the same
    /// value. The emitter ignores it.
    Register {
        tile: usize,
        register: usize,
        version: u64,
    },
    Not(Box<Cond>),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
}

impl Cond {
    /// The facts (`p <= 0`) that hold where the condition holds
    /// (`holds`) or where it does not: what a comparison states, through
    /// `!`, a conjunction that holds and a disjunction that does not.
    pub fn facts(&self, holds: bool) -> Vec<Fact> {
        match self {
            Cond::Cmp(op, p) => match (op, holds) {
                (CmpOp::Lt, true) => vec![p.add_const(1)],
                (CmpOp::Lt, false) => vec![p.scale(-1)],
                (CmpOp::Le, true) => vec![p.clone()],
                (CmpOp::Le, false) => vec![p.scale(-1).add_const(1)],
                (CmpOp::Eq, true) | (CmpOp::Ne, false) => vec![p.clone(), p.scale(-1)],
                (CmpOp::Eq, false) | (CmpOp::Ne, true) => Vec::new(),
            },
            Cond::Not(inner) => inner.facts(!holds),
            // The arm of a constant condition that never runs: `1 <= 0`.
            Cond::Const(value) if *value != holds => vec![Poly::constant(1)],
            Cond::And(a, b) if holds => {
                let mut facts = a.facts(true);
                facts.extend(b.facts(true));
                facts
            }
            Cond::Or(a, b) if !holds => {
                let mut facts = a.facts(false);
                facts.extend(b.facts(false));
                facts
            }
            _ => Vec::new(),
        }
    }

    /// The predicate registers the condition reads, as `(tile, register,
    /// version)`, in order.
    pub(crate) fn predicate_registers(&self, out: &mut Vec<(usize, usize, u64)>) {
        match self {
            Cond::Register {
                tile,
                register,
                version,
            } => out.push((*tile, *register, *version)),
            Cond::Not(inner) => inner.predicate_registers(out),
            Cond::And(a, b) | Cond::Or(a, b) => {
                a.predicate_registers(out);
                b.predicate_registers(out);
            }
            Cond::Const(_) | Cond::Cmp(..) | Cond::Param(_) => {}
        }
    }

    pub fn and(self, other: Cond) -> Cond {
        match (self, other) {
            (Cond::Const(true), c) | (c, Cond::Const(true)) => c,
            (Cond::Const(false), _) | (_, Cond::Const(false)) => Cond::Const(false),
            (a, b) => Cond::And(Box::new(a), Box::new(b)),
        }
    }

    #[allow(clippy::should_implement_trait)] // simplifying, not a plain `!`
    pub fn not(self) -> Cond {
        match self {
            Cond::Const(v) => Cond::Const(!v),
            Cond::Not(inner) => *inner,
            other => Cond::Not(Box::new(other)),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CmpOp {
    Lt,
    Le,
    Eq,
    Ne,
}

/// The instructions of one `apply`, in row-major repeat order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Statement {
    /// The canonical opcode: each instruction's, the PTX comment's and
    /// the reports'.
    pub opcode: String,
    /// The table variant the opcode resolved to, by position: what the
    /// interpreter runs, without parsing `opcode` again.
    pub variant: crate::ptx::VariantId,
    /// The `apply`'s position among the kernel's `apply`s as written,
    /// counted from 1 (unrolled copies share it), for runtime reports.
    pub number: usize,
    /// Every instruction is executed where this holds (`Const(true)`:
    /// always).
    pub guard: Cond,
    pub instructions: Vec<Instruction>,
}

/// One instruction of a [`Statement`]: its opcode and its guard are the
/// statement's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Instruction {
    pub operands: Vec<OperandValue>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum OperandValue {
    /// Registers of the issuing thread; several lanes form a `{..}` group.
    Registers {
        lanes: Vec<Lane>,
        write: bool,
        braced: bool,
        /// Several lanes written `p|q` (`setp`'s two destinations) instead
        /// of a `{..}` group.
        piped: bool,
        /// Written after the previous operand as `prev|this`.
        after_pipe: bool,
        /// Written `{x}` even with one lane.
        own_braces: bool,
    },
    /// `[base + offset]` into a buffer of a memory space (a tensor
    /// parameter, a shared buffer of [`Program::shared`]); `offset` in
    /// bytes. The form's state space addresses the buffer's space
    /// ([`crate::memory::MemorySpace::addressed_by`]). `generic`: the form
    /// takes a generic address (no state space), so a tensor's base is its
    /// generic pointer, not its global one.
    ///
    /// `cta`: for a shared buffer, the rank in the cluster
    /// (`%cluster_ctarank`) of the CTA whose copy of the buffer is
    /// addressed (`buf.in_cta(rank)`), `None` for the executing CTA's own.
    /// The checker proves `0 <= cta < ` the cluster's size for every thread
    /// that runs the instruction, and gives such operands only to
    /// `.shared::cluster` forms; the emitter maps the address with `mapa`.
    Memory {
        buffer: Buffer,
        offset: Poly,
        generic: bool,
        cta: Option<Poly>,
    },
    /// A scalar parameter's value (loaded once at entry).
    Param { param: usize, bits: usize },
    /// A literal's bits, materialised once at entry in a register of `bits` width.
    Constant { value: u64, bits: usize },
    /// A special register, by its PTX name (`%clock64`).
    Special { name: String },
    /// A runtime integer (an index polynomial: sizes, launch values, loop
    /// variables) as a `bits`-wide integer operand. Every thread's value
    /// fits the operand's type (proven by the checker), so truncating the
    /// 64-bit index value to `bits` keeps it exact.
    Index { value: Poly, bits: usize },
    /// A compile-time integer written into the instruction itself (an
    /// immediate-only operand such as `lop3`'s LUT), within the operand's
    /// legal range.
    Immediate { value: i64 },
    /// `[map, {c0, ..}]`: tensor map `map` of [`Program::tensor_maps`]
    /// (its generic address) and the box's start coordinates, one per
    /// tensor axis, outermost first (PTX writes them innermost first).
    /// Any value is safe (the hardware clips the box to the tensor); the
    /// emitter clamps each into the `.s32` the instruction takes.
    TensorMap { map: usize, coords: Vec<Poly> },
    /// A `cp.async`'s `src-size` under `zero_fill`: `clamp(remaining, 0,
    /// size)` bytes (a `.u32`) where `in_bounds` holds, 0 elsewhere; the
    /// copy zero-fills the rest of its `size` bytes.
    SourceBytes {
        in_bounds: Cond,
        remaining: Poly,
        size: u64,
    },
    /// A `wgmma` shared-memory matrix descriptor: the operand `matrix`
    /// of shared buffer `buffer` starting at logical byte `start`. The
    /// emitter encodes the 64-bit descriptor (the physical address of
    /// `start` and `matrix`'s constant bits); the interpreter reads the
    /// matrix's elements at their logical offsets.
    Descriptor {
        buffer: Buffer,
        start: Poly,
        matrix: crate::shared_layout::MatrixOperand,
    },
    /// A predicate source computed from a condition (`wgmma`'s `scale-d`:
    /// a literal or a runtime integer, non-zero to accumulate).
    Condition(Cond),
    /// A destination the compiler supplies to an `mbarrier` form: the
    /// sink `_`, or a predicate the emitted code retries the instruction
    /// on until it is true (a blocking `try_wait`).
    Implicit(crate::checked::Implicit),
}

/// The storage one register lane binds: `bytes` bytes at `byte_offset` inside
/// a tile whose registers are each `dtype.size_bytes()` wide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lane {
    pub tile: usize,
    pub byte_offset: usize,
    pub bytes: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_buffers_size_from_their_dims() {
        let fixed = SharedBuffer {
            name: "s".into(),
            dtype: DType::U32,
            shape: vec![DimSpec::Const(3), DimSpec::Const(5)],
            mbarrier: false,
            layout: Default::default(),
        };
        assert!(!fixed.is_dynamic());
        assert_eq!(fixed.static_bytes(), Some(60));
        assert_eq!(fixed.bytes_for(&[]), Some(60));
        // f32 [2, {3 * N / 2 + 1}] with N = 10: 2 * 16 * 4 bytes.
        let dynamic = SharedBuffer {
            name: "d".into(),
            dtype: DType::F32,
            shape: vec![
                DimSpec::Const(2),
                DimSpec::Symbolic {
                    symbol: 1,
                    mul: 3,
                    div: 2,
                    add: 1,
                },
            ],
            mbarrier: false,
            layout: Default::default(),
        };
        assert!(dynamic.is_dynamic());
        assert_eq!(dynamic.static_bytes(), None);
        assert_eq!(dynamic.bytes_for(&[7, 10]), Some(128));
        assert_eq!(dynamic.bytes_for(&[7, u64::MAX]), None);
        assert_eq!(dynamic.shape_text(|_| "N".into()), "[2, {3 * N / 2 + 1}]");
        let program = |shared: Vec<SharedBuffer>| Program {
            name: "k".into(),
            target: Target::SM_90,
            ptx_version: PtxVersion::new(7, 8),
            launch: Launch {
                grid: [
                    LaunchFormula::constant(1),
                    LaunchFormula::constant(1),
                    LaunchFormula::constant(1),
                ],
                block: [1, 1, 1],
                max_registers: None,
                cluster: [1, 1, 1],
            },
            params: Vec::new(),
            symbols: Vec::new(),
            atoms: Atoms::default(),
            tiles: Vec::new(),
            shared,
            tensor_maps: Vec::new(),
            body: Vec::new(),
        };
        // 60 bytes, then 128-byte aligned: 128 + 60.
        let both = program(vec![fixed.clone(), dynamic.clone(), fixed.clone()]);
        assert_eq!(both.static_shared_bytes(), 188);
        assert_eq!(both.dynamic_shared_bytes(), dynamic.bytes_formula());
        assert_eq!(
            program(Vec::new()).dynamic_shared_bytes(),
            LaunchFormula::constant(0)
        );
        assert_eq!(
            both.shared_placement(),
            [
                SharedPlacement::Declared,
                SharedPlacement::Dynamic { offset: 0 },
                SharedPlacement::Declared
            ]
        );

        // Over 48 KiB of static buffers: all of them move to the dynamic
        // shared memory, 128-byte aligned, and the dynamic buffer follows.
        let large = SharedBuffer {
            shape: vec![DimSpec::Const(12289)],
            ..fixed.clone()
        };
        let moved = program(vec![large.clone(), dynamic.clone(), fixed.clone()]);
        assert!(moved.static_buffers_in_dynamic_memory());
        assert_eq!(moved.static_shared_bytes(), 0);
        // 49156 bytes, then 60 at 49280 (end 49340), the dynamic buffer at 49408.
        assert_eq!(
            moved.shared_placement(),
            [
                SharedPlacement::Dynamic { offset: 0 },
                SharedPlacement::Dynamic { offset: 49408 },
                SharedPlacement::Dynamic { offset: 49280 }
            ]
        );
        assert_eq!(
            eval_launch(&moved.dynamic_shared_bytes().0, &[7, 10]),
            Some(49408 + 128)
        );
        let no_dynamic = program(vec![large, fixed.clone()]);
        assert_eq!(
            no_dynamic.dynamic_shared_bytes(),
            LaunchFormula::constant(49340)
        );
        // Exactly 48 KiB stays declared.
        let exact = program(vec![SharedBuffer {
            shape: vec![DimSpec::Const(12288)],
            ..fixed
        }]);
        assert!(!exact.static_buffers_in_dynamic_memory());
        assert_eq!(exact.static_shared_bytes(), 49152);
    }
}
