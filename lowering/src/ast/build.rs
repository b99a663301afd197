//! Builders for syntax trees, for tests: the nodes the macro would build
//! from `int`, `name`, `call(..)`, `a + b`, `x.slice(..)`, `apply(..)`,
//! `alloc_local`, `let`, `if`, parameters and kernels, without the macro.
//!
//! Compiled for this crate's unit tests and, through the `testkit` feature,
//! for the test kit (`tile-kernel-testkit`), which re-exports it to every
//! other test. Every node is at [`SPAN`]: a test that needs to tell spans
//! apart builds that node itself.

use super::*;

/// The span of every node built here.
pub const SPAN: SpanId = SpanId(0);

/// `value`.
pub fn int(value: i128) -> Expr {
    Expr::Int(value, SPAN)
}

/// A name: a variable, a symbol or a parameter.
pub fn name(text: &str) -> Expr {
    Expr::Name(text.to_string(), SPAN)
}

/// `func(args..)`.
pub fn call(func: &str, args: Vec<Expr>) -> Expr {
    Expr::Call {
        func: func.to_string(),
        args,
        span: SPAN,
    }
}

/// `lhs op rhs`.
pub fn binary(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
    Expr::Binary {
        op,
        lhs: Box::new(lhs),
        rhs: Box::new(rhs),
        span: SPAN,
    }
}

/// `base` followed by `views`.
pub fn place(base: &str, views: Vec<ViewKind>) -> Operand {
    Operand::Place(PlaceExpr {
        base: base.to_string(),
        base_span: SPAN,
        views: views
            .into_iter()
            .map(|kind| ViewOp { kind, span: SPAN })
            .collect(),
        span: SPAN,
    })
}

/// An integer literal operand.
pub fn literal(value: i128) -> Operand {
    Operand::Literal(Literal {
        value: LiteralValue::Int(value),
        span: SPAN,
    })
}

/// `apply(ptx[opcode], operands..)`.
pub fn apply(opcode: &str, operands: Vec<Operand>) -> Stmt {
    Stmt::Apply(Apply {
        opcode: opcode.to_string(),
        opcode_span: SPAN,
        operands,
        scope: None,
        pred: None,
        preserve_dst: None,
        zero_fill: None,
        span: SPAN,
    })
}

/// `apply(ptx[opcode], operands.., scope = scope)`.
pub fn apply_scoped(opcode: &str, operands: Vec<Operand>, scope: &str) -> Stmt {
    Stmt::Apply(Apply {
        opcode: opcode.to_string(),
        opcode_span: SPAN,
        operands,
        scope: Some((scope.to_string(), SPAN)),
        pred: None,
        preserve_dst: None,
        zero_fill: None,
        span: SPAN,
    })
}

/// `let name = alloc_local::<dtype>([shape..]);`: a per-thread register tile.
pub fn alloc(name: &str, dtype: DType, shape: &[u64]) -> Stmt {
    allocation(name, dtype, shape, AllocSpace::Registers)
}

/// `let name = alloc_shared::<dtype>([shape..]);`: a buffer of the CTA.
pub fn alloc_shared(name: &str, dtype: DType, shape: &[u64]) -> Stmt {
    allocation(name, dtype, shape, AllocSpace::Shared)
}

fn allocation(name: &str, dtype: DType, shape: &[u64], space: AllocSpace) -> Stmt {
    Stmt::AllocLocal(AllocLocal {
        name: name.to_string(),
        name_span: SPAN,
        dtype,
        dtype_span: SPAN,
        shape: shape.iter().map(|&d| Dim::constant(d, SPAN)).collect(),
        scope: None,
        layout: None,
        space,
        span: SPAN,
    })
}

/// `let name = value;`
pub fn let_(name: &str, value: Expr) -> Stmt {
    Stmt::Let(Let {
        name: name.to_string(),
        name_span: SPAN,
        value,
        span: SPAN,
    })
}

/// `if cond { then }`.
pub fn guarded(cond: Expr, then: Vec<Stmt>) -> Stmt {
    Stmt::If(If {
        cond,
        then,
        otherwise: Vec::new(),
        span: SPAN,
    })
}

/// `name: Tensor<dtype, dims..>`.
pub fn tensor(name: &str, dtype: DType, dims: Vec<Expr>) -> Param {
    Param {
        name: name.to_string(),
        span: SPAN,
        ty: ParamType::Tensor {
            dtype,
            dims: dims
                .into_iter()
                .map(|expr| Dim { expr, span: SPAN })
                .collect(),
        },
    }
}

/// `#[tile_kernel(grid = grid, block = block)] fn name(params..) { body }`
/// for sm_90.
pub fn kernel(
    name: &str,
    grid: [Expr; 3],
    block: [u32; 3],
    params: Vec<Param>,
    body: Vec<Stmt>,
) -> Kernel {
    Kernel {
        name: name.to_string(),
        name_span: SPAN,
        launch: LaunchDims {
            grid,
            block,
            span: SPAN,
            cluster: [1, 1, 1],
            cluster_span: SPAN,
        },
        target: Target::SM_90,
        params,
        body,
    }
}
