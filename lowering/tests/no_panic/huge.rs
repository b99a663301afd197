//! Huge inputs: kernels at the limits of `docs/robustness.md`, built
//! and compiled on threads of a given stack.

use super::*;

/// A kernel over `x`, `y: Tensor<T, ..dims>`.
pub(crate) fn huge_kernel(dtype: DType, dims: &[u64], block: u32, body: Vec<Stmt>) -> Kernel {
    let tensor = |name: &str| Param {
        name: name.to_string(),
        span: SpanId(90),
        ty: ParamType::Tensor {
            dtype,
            dims: dims.iter().map(|d| Dim::constant(*d, SpanId(91))).collect(),
        },
    };
    Kernel {
        name: "huge".to_string(),
        name_span: SpanId(0),
        launch: LaunchDims::fixed([1, 1, 1], [block, 1, 1]),
        target: Target::SM_90,
        params: vec![
            tensor("x"),
            tensor("y"),
            Param {
                name: "n".into(),
                span: SpanId(92),
                ty: ParamType::Scalar(DType::U32),
            },
        ],
        body,
    }
}

/// `base`, whole.
pub(crate) fn whole(base: &str) -> Operand {
    build::place(base, Vec::new())
}

/// `base.slice(s![at..at + 1])`.
pub(crate) fn element(base: &str, at: Expr) -> Operand {
    Operand::Place(PlaceExpr {
        base: base.to_string(),
        base_span: SpanId(101),
        views: vec![ViewOp {
            kind: ViewKind::Slice(vec![SliceItem::Range {
                start: Some(at.clone()),
                end: Some(binary(BinOp::Add, at, int(1))),
                step: 1,
                span: SpanId(102),
            }]),
            span: SpanId(103),
        }],
        span: SpanId(104),
    })
}

/// `for var in 0..end { body }`.
pub(crate) fn nest(var: &str, end: i128, body: Stmt) -> Stmt {
    Stmt::For(For {
        var: var.into(),
        var_span: SpanId(107),
        start: int(0),
        end: int(end),
        step: None,
        body: vec![body],
        span: SpanId(108),
    })
}

/// Compiles on a thread with `stack` bytes (the test threads' default is
/// 2 MiB; rustc runs proc macros with 8 MiB), returning the codes and the
/// time taken. The kernel is built and dropped on that thread too.
pub(crate) fn compile_on(
    stack: usize,
    build: impl FnOnce() -> Kernel + Send + 'static,
) -> (Vec<Code>, Duration) {
    std::thread::Builder::new()
        .stack_size(stack)
        .spawn(move || {
            let kernel = build();
            let start = Instant::now();
            let out = compile(&kernel);
            let elapsed = start.elapsed();
            assert_eq!(out.ptx.is_some(), out.diagnostics.is_empty());
            let codes = out.diagnostics.iter().map(|d| d.code).collect();
            (codes, elapsed)
        })
        .expect("spawn")
        .join()
        .expect("compile panicked or overflowed")
}

pub(crate) const STACK: usize = 2 << 20;

/// Bounds for the huge inputs: generous for debug builds on slow machines;
/// `docs/robustness.md` gives measured release and debug times.
pub(crate) const HUGE_TIME_LIMIT: Duration = Duration::from_secs(30);

pub(crate) fn check_huge(name: &str, codes: &[Code], expected: &[Code], elapsed: Duration) {
    report(&format!(
        "no_panic: huge input {name}: {:?} in {elapsed:.1?}",
        codes.iter().map(ToString::to_string).collect::<Vec<_>>()
    ));
    assert_eq!(codes, expected, "{name}");
    assert!(elapsed < HUGE_TIME_LIMIT, "{name} took {elapsed:?}");
}

/// `for k in 0..count { ld r <- x[k]; st y[k] <- r }`.
pub(crate) fn unrolled_copy(count: i128) -> Kernel {
    huge_kernel(
        DType::F32,
        &[4097],
        1,
        vec![
            alloc("r", DType::F32, &[1]),
            Stmt::For(For {
                var: "k".into(),
                var_span: SpanId(105),
                start: int(0),
                end: int(count),
                step: None,
                body: vec![
                    plain_apply(
                        "ld.global.f32",
                        vec![whole("r"), element("x", name("k"))],
                        None,
                    ),
                    plain_apply(
                        "st.global.f32",
                        vec![element("y", name("k")), whole("r")],
                        None,
                    ),
                ],
                span: SpanId(106),
            }),
        ],
    )
}

/// `count` unrolled iterations of `mov b, a; mov a, b` over `[112, 1]`
/// tiles: 224 instructions per iteration.
pub(crate) fn mov_ladder(outer: i128) -> Kernel {
    let movs = vec![
        plain_apply("mov.b32", vec![whole("b"), whole("a")], None),
        plain_apply("mov.b32", vec![whole("a"), whole("b")], None),
    ];
    let inner = Stmt::For(For {
        var: "k".into(),
        var_span: SpanId(111),
        start: int(0),
        end: int(1024),
        step: None,
        body: movs,
        span: SpanId(112),
    });
    huge_kernel(
        DType::U32,
        &[112, 1],
        1,
        vec![
            alloc("a", DType::U32, &[112, 1]),
            alloc("b", DType::U32, &[112, 1]),
            plain_apply("ld.global.b32", vec![whole("a"), whole("x")], None),
            Stmt::For(For {
                var: "j".into(),
                var_span: SpanId(113),
                start: int(0),
                end: int(outer),
                step: None,
                body: vec![inner],
                span: SpanId(114),
            }),
            plain_apply("st.global.b32", vec![whole("y"), whole("a")], None),
        ],
    )
}

/// `for k in 0..iterations { st.global.f32 y[own + 256 k ..][256, 1] <- 1.0 }`
/// under `pred = n < 7`: 256 guarded stores with symbolic offsets per
/// iteration, the heaviest instructions per statement.
pub(crate) fn guarded_stores(iterations: i128) -> Kernel {
    let at = binary(BinOp::Mul, call("thread_id", 0), int(1 << 20));
    let start = binary(BinOp::Add, at, binary(BinOp::Mul, name("k"), int(256)));
    let view = Operand::Place(PlaceExpr {
        base: "y".into(),
        base_span: SpanId(127),
        views: vec![
            ViewOp {
                kind: ViewKind::Slice(vec![SliceItem::Range {
                    start: Some(start.clone()),
                    end: Some(binary(BinOp::Add, start, int(256))),
                    step: 1,
                    span: SpanId(128),
                }]),
                span: SpanId(129),
            },
            ViewOp {
                kind: ViewKind::Reshape(vec![256, 1]),
                span: SpanId(130),
            },
        ],
        span: SpanId(131),
    });
    let one = Operand::Literal(Literal {
        value: LiteralValue::Float(1.0),
        span: SpanId(132),
    });
    let body = vec![Stmt::For(For {
        var: "k".into(),
        var_span: SpanId(133),
        start: int(0),
        end: int(iterations),
        step: None,
        body: vec![plain_apply(
            "st.global.f32",
            vec![view, one],
            Some(binary(BinOp::Lt, name("n"), int(7))),
        )],
        span: SpanId(134),
    })];
    let mut kernel = huge_kernel(DType::F32, &[4], 32, body);
    kernel.params[1].ty = ParamType::Tensor {
        dtype: DType::F32,
        dims: vec![Dim {
            expr: name("N"),
            span: SpanId(135),
        }],
    };
    kernel
}

/// A left-deep sum `n + n + ... + n` of `terms` terms (depth `terms`).
pub(crate) fn sum(terms: usize) -> Expr {
    let mut e = name("n");
    for _ in 1..terms {
        e = binary(BinOp::Add, e, name("n"));
    }
    e
}

/// `-(-(-(... n)))`, `depth` levels.
pub(crate) fn negations(depth: usize) -> Expr {
    let mut e = name("n");
    for _ in 1..depth {
        e = Expr::Unary {
            op: UnOp::Neg,
            expr: Box::new(e),
            span: SpanId(115),
        };
    }
    e
}

/// `if cond { .. }` nested `depth` deep, with `body` inside.
pub(crate) fn nested_ifs(depth: usize, cond: Expr, body: Vec<Stmt>) -> Vec<Stmt> {
    let mut stmts = body;
    for _ in 0..depth {
        stmts = vec![Stmt::If(If {
            cond: cond.clone(),
            then: stmts,
            otherwise: Vec::new(),
            span: SpanId(116),
        })];
    }
    stmts
}
