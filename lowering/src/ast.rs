//! The kernel as written: the typed syntax tree the macro builds from Rust
//! tokens. Names are unresolved and shapes unchecked here; [`crate::sema`]
//! turns this into a validated [`crate::program::Program`].
//!
//! Every node carries the [`SpanId`] errors about it should point at.

use crate::diag::SpanId;
use crate::dtype::DType;
use crate::target::Target;

#[cfg(any(test, feature = "testkit"))]
pub mod build;
pub mod scalar;

/// A `#[tile_kernel]` function.
#[derive(Debug, Clone, PartialEq)]
pub struct Kernel {
    /// The Rust function name; also the PTX entry name.
    pub name: String,
    pub name_span: SpanId,
    pub launch: LaunchDims,
    pub target: Target,
    pub params: Vec<Param>,
    pub body: Vec<Stmt>,
}

/// Grid and block extents: `grid = ceil_div(N, 256)`, `block = [32, 4, 1]`.
/// Grid extents are expressions over symbols; block extents are constants
/// (the kernel is compiled for one block shape, which it declares with
/// `.reqntid`).
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchDims {
    pub grid: [Expr; 3],
    pub block: [u32; 3],
    /// Where errors about the launch size point.
    pub span: SpanId,
    /// `cluster = [x, y, z]`: CTAs per thread-block cluster along each grid
    /// axis (`[1, 1, 1]`: no cluster declared), declared with
    /// `.reqnctapercluster`.
    pub cluster: [u32; 3],
    /// Where errors about the cluster shape point.
    pub cluster_span: SpanId,
}

impl LaunchDims {
    /// A launch of constant extents.
    pub fn fixed(grid: [u32; 3], block: [u32; 3]) -> Self {
        LaunchDims {
            grid: grid.map(|g| Expr::Int(i128::from(g), SpanId::default())),
            block,
            span: SpanId::default(),
            cluster: [1, 1, 1],
            cluster_span: SpanId::default(),
        }
    }
}

impl Default for LaunchDims {
    fn default() -> Self {
        LaunchDims::fixed([1, 1, 1], [1, 1, 1])
    }
}

/// A kernel parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: String,
    pub span: SpanId,
    pub ty: ParamType,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ParamType {
    /// `Tensor<T, d0, d1, ..>`: a row-major tensor in global memory.
    Tensor { dtype: DType, dims: Vec<Dim> },
    /// A scalar passed by value (`f32`, `u32`, `bool`, ...).
    Scalar(DType),
    /// A type the parser could not read (and already reported). The name
    /// stays bound so its uses add no "cannot find" errors; a kernel with
    /// such a parameter never produces PTX.
    Unparsed,
}

/// One extent as written: `4`, `{8 / 2}`, `N`, `{2 * N}`, `{N / 2}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Dim {
    pub expr: Expr,
    pub span: SpanId,
}

impl Dim {
    /// A constant extent.
    pub fn constant(value: u64, span: SpanId) -> Dim {
        Dim {
            expr: Expr::Int(i128::from(value), span),
            span,
        }
    }
}

/// A body statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    AllocLocal(AllocLocal),
    Apply(Apply),
    /// `let name = expr;`: a runtime value, a predicate or a named view.
    Let(Let),
    /// `for var in range { body }`.
    For(For),
    /// `if cond { then } else { otherwise }`.
    If(If),
    /// `ewise(function, dst, inputs.., scope = ..);`: a scalar function at
    /// every element of `dst`.
    Ewise(Ewise),
    /// `fn name(x: f32) -> f32 { .. }` or `let name = |x: f32| ..;`: a
    /// scalar function `ewise` can name.
    Function(FunctionDef),
    /// `fn name(t: Tile, n: usize) { statements }`: a kernel function,
    /// inlined where it is called.
    KernelFunction(KernelFunction),
    /// `name(args..);`: a call of a kernel function.
    Call(Call),
    /// A statement the parser could not read (and already reported). What
    /// it would have bound or written is recorded so that later statements
    /// add no follow-up errors (one mistake, one error).
    Invalid(Invalid),
}

/// The traces of an unreadable statement.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Invalid {
    /// Names a `let` would have bound.
    pub binds: Vec<String>,
    /// Tiles and tensors the statement names (treated as written).
    pub touches: Vec<String>,
    /// Whether its opcode writes memory (a store, an atomic, a reduction:
    /// [`crate::ptx::resolve::memory_destinations`]): its first touched name
    /// is that destination, and a tensor there keeps `&mut` in the launcher.
    pub stores: bool,
    /// Whether tokens the macro never saw stood here (an editor replaced
    /// them by its placeholder), so every tile declared so far counts as
    /// written: they may have been statements that wrote it.
    pub writes_any_tile: bool,
}

/// `let name = alloc_local::<T>([d0, d1, ..]);`, or a group tile
/// `alloc_local::<T>([32, d1, ..], scope = "warp")` whose leading axes are
/// bound to the threads of the scope (`docs/scopes.md`).
#[derive(Debug, Clone, PartialEq)]
pub struct AllocLocal {
    pub name: String,
    pub name_span: SpanId,
    pub dtype: DType,
    pub dtype_span: SpanId,
    pub shape: Vec<Dim>,
    /// `scope = ".."` as written (absent: a per-thread tile).
    pub scope: Option<(String, SpanId)>,
    /// `layout = ".."` of a shared buffer as written (absent: row-major;
    /// `crate::shared_layout`).
    pub layout: Option<(String, SpanId)>,
    /// Registers (`alloc_local`) or the CTA's shared memory (`alloc_shared`).
    pub space: AllocSpace,
    pub span: SpanId,
}

/// Where an allocation lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AllocSpace {
    /// `alloc_local`: registers of each thread (or of each thread's part
    /// of a group tile).
    #[default]
    Registers,
    /// `alloc_shared::<T>([..])`: one buffer per CTA in shared memory.
    Shared,
    /// `alloc_shared::<Mbarrier>([..])`: mbarrier objects (8 bytes each) in
    /// shared memory, reached only by the `mbarrier` forms.
    Mbarriers,
}

impl AllocSpace {
    /// Whether the allocation is a buffer of the CTA's shared memory.
    pub fn is_shared(self) -> bool {
        matches!(self, AllocSpace::Shared | AllocSpace::Mbarriers)
    }
}

/// `let name = expr;` where `expr` is an integer or bool expression, or a
/// view of a tile or tensor (`x.slice(s![i, ..])`).
#[derive(Debug, Clone, PartialEq)]
pub struct Let {
    pub name: String,
    pub name_span: SpanId,
    pub value: Expr,
    pub span: SpanId,
}

/// `for var in start..end { .. }` or `for var in (start..end).step_by(step) { .. }`.
#[derive(Debug, Clone, PartialEq)]
pub struct For {
    pub var: String,
    pub var_span: SpanId,
    pub start: Expr,
    pub end: Expr,
    pub step: Option<Expr>,
    pub body: Vec<Stmt>,
    /// The loop head (`for k in 0..8`).
    pub span: SpanId,
}

/// `if cond { .. } else { .. }` (`else if` nests as an `If` in `otherwise`).
#[derive(Debug, Clone, PartialEq)]
pub struct If {
    pub cond: Expr,
    pub then: Vec<Stmt>,
    pub otherwise: Vec<Stmt>,
    pub span: SpanId,
}

/// `apply(ptx["OPCODE"], operands.., scope = .., pred = .., preserve_dst = .., zero_fill = ..);`
#[derive(Debug, Clone, PartialEq)]
pub struct Apply {
    pub opcode: String,
    pub opcode_span: SpanId,
    pub operands: Vec<Operand>,
    pub scope: Option<(String, SpanId)>,
    pub pred: Option<Expr>,
    pub preserve_dst: Option<(bool, SpanId)>,
    /// `zero_fill = true` (at this span): a `cp.async` copies the bytes of
    /// its source that lie in the tensor and zero-fills the rest.
    pub zero_fill: Option<SpanId>,
    /// The whole statement.
    pub span: SpanId,
}

/// `ewise(function, dst, inputs.., scope = ..)`: `function` inlined at
/// every element of `dst`, reading the same element of each tile input
/// (scalar inputs broadcast).
#[derive(Debug, Clone, PartialEq)]
pub struct Ewise {
    pub function: EwiseFunction,
    pub dst: PlaceExpr,
    pub inputs: Vec<Operand>,
    pub scope: Option<(String, SpanId)>,
    /// The whole statement.
    pub span: SpanId,
}

/// The function of an `ewise`: written in place, or the name of a
/// [`FunctionDef`].
#[derive(Debug, Clone, PartialEq)]
pub enum EwiseFunction {
    Inline(scalar::Function),
    Named(String, SpanId),
}

/// A named scalar function of the kernel's body.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionDef {
    pub name: String,
    pub name_span: SpanId,
    pub function: scalar::Function,
}

/// `fn name(a: Tile, s: Shared, n: usize) { .. }`: statements with
/// parameters, checked where they are inlined (at each call) exactly like
/// statements written there. It names nothing of the kernel but its
/// parameters and the kernel's functions.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelFunction {
    pub name: String,
    pub name_span: SpanId,
    pub params: Vec<KernelParam>,
    pub body: Vec<Stmt>,
    /// The signature.
    pub span: SpanId,
}

/// One parameter of a kernel function.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelParam {
    pub name: String,
    pub name_span: SpanId,
    pub kind: KernelParamKind,
    /// `Tile<f32>`: the element type the argument must have.
    pub dtype: Option<DType>,
    /// The type as written.
    pub span: SpanId,
}

/// What a kernel function's parameter takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelParamKind {
    /// `Tile`: a register tile or a view of one (group tiles included).
    Tile,
    /// `Tensor`: a global tensor or a view of one.
    Tensor,
    /// `Shared`: a shared buffer or a view of one.
    Shared,
    /// `usize`: a runtime integer (a constant stays a constant).
    Index,
}

impl KernelParamKind {
    /// The type as a user writes it.
    pub fn rust_name(self) -> &'static str {
        match self {
            KernelParamKind::Tile => "Tile",
            KernelParamKind::Tensor => "Tensor",
            KernelParamKind::Shared => "Shared",
            KernelParamKind::Index => "usize",
        }
    }
}

/// `name(args..);`
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub name: String,
    pub name_span: SpanId,
    pub args: Vec<Operand>,
    /// The whole statement.
    pub span: SpanId,
}

/// One positional operand of `apply`.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// A tile or tensor, possibly through views: `r.slice(s![.., 1..2])`.
    /// A bare name may also turn out to be a scalar parameter.
    Place(PlaceExpr),
    /// A literal broadcast across repeats.
    Literal(Literal),
    /// `sreg("%clock64")`: a special register, read by `mov`.
    Special { name: String, span: SpanId },
    /// A runtime integer written as an expression: `N * 4`,
    /// `thread_id(0)`, `grid_dim(0)`. (A bare name is a [`Operand::Place`]
    /// until the checker knows whether it names a tile or a value.)
    Value(Expr),
}

impl Operand {
    pub fn span(&self) -> SpanId {
        match self {
            Operand::Place(place) => place.span,
            Operand::Literal(literal) => literal.span,
            Operand::Special { span, .. } => *span,
            Operand::Value(expr) => expr.span(),
        }
    }
}

/// A named tile/tensor/view followed by view operations, applied left to right.
#[derive(Debug, Clone, PartialEq)]
pub struct PlaceExpr {
    pub base: String,
    pub base_span: SpanId,
    pub views: Vec<ViewOp>,
    /// The whole expression.
    pub span: SpanId,
}

/// A view operation; none of them moves data.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewOp {
    pub kind: ViewKind,
    pub span: SpanId,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ViewKind {
    /// `.slice(s![..])` or `t[..]` (which indexes the leading axis only).
    Slice(Vec<SliceItem>),
    /// `.view::<U>()`: reinterpret the bits of the final axis.
    View(DType),
    /// `.reshape([..])`; at most one extent may be `-1`.
    Reshape(Vec<i64>),
    /// `.unsqueeze(axis)`; negative axes count from the end.
    Unsqueeze(i64),
    /// `.permute([..])`: the same elements with the axes in the given
    /// order (axis `i` of the result is axis `order[i]` of the view).
    Permute(Vec<i64>),
    /// `.broadcast([..])`: repeat axes of extent 1 read at every index of
    /// the given extent (stride 0); read-only.
    Broadcast(Vec<i64>),
    /// `.in_cta(rank)`: the same view of the copy of a shared buffer that
    /// the CTA of rank `rank` in the thread's cluster holds (distributed
    /// shared memory); the shape and offsets do not change.
    InCta(Expr),
}

/// One item of `s![..]`, in ndarray's convention (negative constants count
/// from the end of the axis). Bounds may be runtime expressions; the extent
/// of a range must be a compile-time constant.
#[derive(Debug, Clone, PartialEq)]
pub enum SliceItem {
    /// `i`: select one index and drop the axis.
    Index { index: Expr, span: SpanId },
    /// `a..b;step`, any bound optional.
    Range {
        start: Option<Expr>,
        end: Option<Expr>,
        step: i64,
        span: SpanId,
    },
}

impl SliceItem {
    pub fn span(&self) -> SpanId {
        match self {
            SliceItem::Index { span, .. } | SliceItem::Range { span, .. } => *span,
        }
    }

    /// A constant index (tests and simple callers).
    pub fn index(index: i64, span: SpanId) -> SliceItem {
        SliceItem::Index {
            index: Expr::Int(i128::from(index), span),
            span,
        }
    }

    /// A range of constant bounds (tests and simple callers).
    pub fn range(start: Option<i64>, end: Option<i64>, step: i64, span: SpanId) -> SliceItem {
        SliceItem::Range {
            start: start.map(|v| Expr::Int(i128::from(v), span)),
            end: end.map(|v| Expr::Int(i128::from(v), span)),
            step,
            span,
        }
    }
}

/// A literal operand.
#[derive(Debug, Clone, PartialEq)]
pub struct Literal {
    pub value: LiteralValue,
    pub span: SpanId,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LiteralValue {
    Int(i128),
    Float(f64),
    Bool(bool),
}

/// An integer or bool expression of the tile language (SPEC §6): literals,
/// names (symbols, scalar parameters, `let` values, loop variables),
/// built-in calls and operators. Views of tiles and tensors appear only as
/// `let` initialisers.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Int(i128, SpanId),
    Bool(bool, SpanId),
    Name(String, SpanId),
    /// `thread_id(0)`, `min(a, b)`, `ceil_div(n, 256)`, ...
    Call {
        func: String,
        args: Vec<Expr>,
        span: SpanId,
    },
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
        span: SpanId,
    },
    Unary {
        op: UnOp,
        expr: Box<Expr>,
        span: SpanId,
    },
    /// A name followed by views (`x.slice(s![i..i + 4])`).
    View(PlaceExpr),
    /// Something the parser recognised as an expression but not as part of
    /// the language; checked so the error says what was given.
    Other(String, SpanId),
}

impl Expr {
    pub fn span(&self) -> SpanId {
        match self {
            Expr::Int(_, span)
            | Expr::Bool(_, span)
            | Expr::Name(_, span)
            | Expr::Call { span, .. }
            | Expr::Binary { span, .. }
            | Expr::Unary { span, .. }
            | Expr::Other(_, span) => *span,
            Expr::View(place) => place.span,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
}

impl BinOp {
    /// Every operator, in declaration order.
    pub const ALL: [BinOp; 18] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::Rem,
        BinOp::Shl,
        BinOp::Shr,
        BinOp::BitAnd,
        BinOp::BitOr,
        BinOp::BitXor,
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
        BinOp::Eq,
        BinOp::Ne,
        BinOp::And,
        BinOp::Or,
    ];

    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
}
