//! The kernel as written: the typed syntax tree the macro builds from Rust
//! tokens. Names are unresolved and shapes unchecked here; [`crate::check`]
//! turns this into a validated [`crate::program::Program`].
//!
//! Every node carries the [`SpanId`] errors about it should point at.

use crate::diag::SpanId;
use crate::dtype::DType;
use crate::target::Target;

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

/// Static grid and block extents (`grid = 1`, `block = [32, 4, 1]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchDims {
    pub grid: [u32; 3],
    pub block: [u32; 3],
}

impl Default for LaunchDims {
    fn default() -> Self {
        LaunchDims {
            grid: [1, 1, 1],
            block: [1, 1, 1],
        }
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

/// One static extent as written (`4`, `{8 / 2}`), already evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dim {
    pub value: u64,
    pub span: SpanId,
}

/// A body statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    AllocLocal(AllocLocal),
    Apply(Apply),
}

/// `let name = alloc_local::<T>([d0, d1, ..]);`
#[derive(Debug, Clone, PartialEq)]
pub struct AllocLocal {
    pub name: String,
    pub name_span: SpanId,
    pub dtype: DType,
    pub dtype_span: SpanId,
    pub shape: Vec<Dim>,
    pub span: SpanId,
}

/// `apply(ptx["OPCODE"], operands.., scope = .., pred = .., preserve_dst = ..);`
#[derive(Debug, Clone, PartialEq)]
pub struct Apply {
    pub opcode: String,
    pub opcode_span: SpanId,
    pub operands: Vec<Operand>,
    pub scope: Option<(String, SpanId)>,
    pub pred: Option<PredExpr>,
    pub preserve_dst: Option<(bool, SpanId)>,
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
}

impl Operand {
    pub fn span(&self) -> SpanId {
        match self {
            Operand::Place(place) => place.span,
            Operand::Literal(literal) => literal.span,
        }
    }
}

/// A named tile/tensor followed by view operations, applied left to right.
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
}

/// One item of `s![..]`, in ndarray's convention (negative numbers count from
/// the end of the axis).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SliceItem {
    /// `i`: select one index and drop the axis.
    Index { index: i64, span: SpanId },
    /// `a..b;step`, any bound optional.
    Range {
        start: Option<i64>,
        end: Option<i64>,
        step: i64,
        span: SpanId,
    },
}

impl SliceItem {
    pub fn span(&self) -> SpanId {
        match *self {
            SliceItem::Index { span, .. } | SliceItem::Range { span, .. } => span,
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

/// A predicate: `pred = p`, `pred = !p`, `pred = true`.
#[derive(Debug, Clone, PartialEq)]
pub enum PredExpr {
    Literal(bool, SpanId),
    /// A name: must resolve to a `bool` scalar parameter.
    Name(String, SpanId),
    Not(Box<PredExpr>, SpanId),
    /// Something the parser recognised as an expression but not as a predicate
    /// form; checked so the error says what kind of value was given.
    Other(String, SpanId),
}

impl PredExpr {
    pub fn span(&self) -> SpanId {
        match self {
            PredExpr::Literal(_, span)
            | PredExpr::Name(_, span)
            | PredExpr::Not(_, span)
            | PredExpr::Other(_, span) => *span,
        }
    }
}
