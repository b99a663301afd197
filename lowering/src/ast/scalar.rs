//! Scalar functions as written: the functions `ewise` inlines at every
//! register coordinate (`|x: f32| x * 2.0 + 1.0`, or a `fn` item in the
//! kernel's body). Types are as annotated; nothing is resolved or checked
//! here ([`crate::sema`] types them and expands them into `apply`s).

use crate::diag::SpanId;
use crate::dtype::DType;

use super::{BinOp, UnOp};

/// A scalar function: typed parameters, an optional return type and a body.
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    pub params: Vec<FunctionParam>,
    /// `-> T` (a closure may leave it out: the body's type is the result).
    pub ret: Option<(DType, SpanId)>,
    pub body: Block,
    /// A `fn` item (which captures nothing, as in Rust) or a closure (which
    /// may read the kernel's scalar parameters and runtime integers).
    pub is_item: bool,
    /// The whole function (the closure, or the `fn` item's signature).
    pub span: SpanId,
}

/// `name: T`.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionParam {
    pub name: String,
    pub name_span: SpanId,
    pub dtype: DType,
    pub dtype_span: SpanId,
}

/// `{ let a = ..; let b = ..; value }`.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub lets: Vec<Let>,
    /// The block's value; `None` for a block that ends in a statement.
    pub value: Option<Box<Expr>>,
    pub span: SpanId,
}

impl Block {
    /// The `let` values, then the value: the block's expressions in order.
    pub fn exprs(&self) -> impl Iterator<Item = &Expr> {
        self.lets
            .iter()
            .map(|binding| &binding.value)
            .chain(self.value.as_deref())
    }
}

/// `let name: T = value;` (the type is optional).
#[derive(Debug, Clone, PartialEq)]
pub struct Let {
    pub name: String,
    pub name_span: SpanId,
    pub ty: Option<(DType, SpanId)>,
    pub value: Expr,
}

/// A scalar expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A parameter, a `let` of the function, or a capture from the kernel
    /// (a scalar parameter, a size symbol, a runtime integer).
    Name(String, SpanId),
    /// An integer literal; `suffix` as in `3u32`.
    Int {
        value: i128,
        suffix: Option<DType>,
        span: SpanId,
    },
    /// A float literal, with its digits as written (so an `f32` literal
    /// rounds once, from the decimal, as rustc rounds it). A named
    /// constant (`f32::INFINITY`) carries its value's text.
    Float {
        text: String,
        suffix: Option<DType>,
        span: SpanId,
    },
    Bool(bool, SpanId),
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
        /// The operator token.
        op_span: SpanId,
        span: SpanId,
    },
    Unary {
        op: UnOp,
        expr: Box<Expr>,
        span: SpanId,
    },
    /// `expr as T`.
    Cast {
        expr: Box<Expr>,
        to: DType,
        to_span: SpanId,
        span: SpanId,
    },
    /// `fma(a, b, c)`, `ex2_approx(x)`, `f32::from_bits(u)`, a scalar
    /// function of the kernel; `x.to_bits()` and `x.abs()` are calls with
    /// the receiver first.
    Call {
        func: String,
        func_span: SpanId,
        args: Vec<Expr>,
        span: SpanId,
    },
    /// `ptx["add.rz.f32"](a, b)`: one named instruction whose only
    /// destination is the value.
    Ptx {
        opcode: String,
        opcode_span: SpanId,
        args: Vec<Expr>,
        span: SpanId,
    },
    /// `if cond { .. } else { .. }` with a value on both paths.
    If {
        cond: Box<Expr>,
        then: Block,
        otherwise: Block,
        span: SpanId,
    },
    Block(Block),
    /// Syntax outside the scalar language, reported by the parser already
    /// (uses add no follow-up errors).
    Invalid(SpanId),
}

impl Expr {
    pub fn span(&self) -> SpanId {
        match self {
            Expr::Name(_, span)
            | Expr::Int { span, .. }
            | Expr::Float { span, .. }
            | Expr::Bool(_, span)
            | Expr::Binary { span, .. }
            | Expr::Unary { span, .. }
            | Expr::Cast { span, .. }
            | Expr::Call { span, .. }
            | Expr::Ptx { span, .. }
            | Expr::If { span, .. }
            | Expr::Invalid(span) => *span,
            Expr::Block(block) => block.span,
        }
    }
}
