//! The compiler must never panic, whatever the input: a panicking proc macro
//! gives users an opaque, span-less error. Random kernels and opcode strings
//! are thrown at `compile` and `resolve`; only `Ok`/diagnostics may come back.

use proptest::prelude::*;
use tile_kernel_lowering::ast::*;
use tile_kernel_lowering::ptx::resolve;
use tile_kernel_lowering::{DType, SpanId, Target, compile};

const TOKENS: &[&str] = &[
    "cvt",
    "ld",
    "st",
    "mov",
    "add",
    "mul",
    "fma",
    "min",
    "global",
    "rn",
    "rz",
    "rni",
    "sat",
    "satfinite",
    "relu",
    "ftz",
    "f16x2",
    "bf16x2",
    "e4m3x2",
    "f32",
    "f16",
    "f64",
    "u8",
    "u16",
    "u32",
    "s32",
    "b32",
    "b16",
    "b64",
    "v2",
    "v4",
    "nc",
    "cs",
    "wide",
    "lo",
    "hi",
    "tf32",
    "rna",
    "NaN",
    "xorsign",
    "abs",
    "",
    "x",
];

fn opcode() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 1..7).prop_map(|t| t.join("."))
}

fn number() -> impl Strategy<Value = i64> {
    prop_oneof![-4i64..6, Just(i64::MIN), Just(i64::MAX), Just(-1)]
}

fn dtype() -> impl Strategy<Value = DType> {
    prop::sample::select(DType::ALL.to_vec())
}

/// An integer expression: constants, names (the loop variables `i`/`k`,
/// the `let` name `v`, the symbol `N`, the parameters `s`/`p`, unknown
/// `zz`), built-in calls (with odd axes and arities) and operators.
fn int_expr() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        4 => number().prop_map(|v| Expr::Int(i128::from(v), SpanId(20))),
        3 => prop::sample::select(vec!["i", "k", "v", "N", "s", "p", "zz"])
            .prop_map(|name| Expr::Name(name.to_string(), SpanId(21))),
        2 => (
            prop::sample::select(vec![
                "thread_id", "cta_id", "block_dim", "grid_dim", "lane_id", "warp_id", "min",
                "ceil_div", "nope",
            ]),
            prop::collection::vec(prop_oneof![0i128..4, Just(-1), Just(i128::MAX)], 0..3),
        )
            .prop_map(|(func, args)| Expr::Call {
                func: func.to_string(),
                args: args.into_iter().map(|a| Expr::Int(a, SpanId(22))).collect(),
                span: SpanId(23),
            }),
        1 => any::<bool>().prop_map(|b| Expr::Bool(b, SpanId(24))),
    ];
    leaf.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            (
                prop::sample::select(vec![
                    BinOp::Add,
                    BinOp::Sub,
                    BinOp::Mul,
                    BinOp::Div,
                    BinOp::Rem,
                    BinOp::Shl,
                    BinOp::Shr,
                    BinOp::BitAnd,
                    BinOp::Lt,
                    BinOp::Le,
                    BinOp::Eq,
                    BinOp::And,
                    BinOp::Or,
                ]),
                inner.clone(),
                inner.clone(),
            )
                .prop_map(|(op, lhs, rhs)| Expr::Binary {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                    span: SpanId(25),
                }),
            (prop::sample::select(vec![UnOp::Neg, UnOp::Not]), inner).prop_map(|(op, expr)| {
                Expr::Unary {
                    op,
                    expr: Box::new(expr),
                    span: SpanId(26),
                }
            }),
        ]
    })
}

/// A slice bound: mostly a constant, sometimes a runtime expression.
fn bound() -> impl Strategy<Value = Expr> {
    prop_oneof![
        4 => number().prop_map(|v| Expr::Int(i128::from(v), SpanId(1))),
        1 => int_expr(),
    ]
}

fn view() -> impl Strategy<Value = ViewKind> {
    let item = prop_oneof![
        bound().prop_map(|index| SliceItem::Index {
            index,
            span: SpanId(1)
        }),
        (
            prop::option::of(bound()),
            prop::option::of(bound()),
            number()
        )
            .prop_map(|(start, end, step)| SliceItem::Range {
                start,
                end,
                step,
                span: SpanId(1)
            }),
    ];
    prop_oneof![
        prop::collection::vec(item, 0..4).prop_map(ViewKind::Slice),
        dtype().prop_map(ViewKind::View),
        prop::collection::vec(number(), 0..4).prop_map(ViewKind::Reshape),
        number().prop_map(ViewKind::Unsqueeze),
    ]
}

fn place() -> impl Strategy<Value = PlaceExpr> {
    (
        prop::sample::select(vec!["a", "b", "t", "u", "s", "p", "v", "zz"]),
        prop::collection::vec(view(), 0..3),
    )
        .prop_map(|(base, views)| PlaceExpr {
            base: base.to_string(),
            base_span: SpanId(2),
            views: views
                .into_iter()
                .map(|kind| ViewOp {
                    kind,
                    span: SpanId(3),
                })
                .collect(),
            span: SpanId(4),
        })
}

fn operand() -> impl Strategy<Value = Operand> {
    let place = place().prop_map(Operand::Place);
    let literal = prop_oneof![
        any::<i64>().prop_map(|v| LiteralValue::Int(v as i128)),
        any::<f64>().prop_map(LiteralValue::Float),
        any::<bool>().prop_map(LiteralValue::Bool),
    ]
    .prop_map(|value| {
        Operand::Literal(Literal {
            value,
            span: SpanId(5),
        })
    });
    prop_oneof![4 => place, 1 => literal]
}

fn dims() -> impl Strategy<Value = Vec<Dim>> {
    let constant = prop_oneof![0u64..9, Just(u64::MAX), Just(1 << 40)]
        .prop_map(|value| Dim::constant(value, SpanId(6)));
    // Symbolic dims: `N`, `{2 * N}`, `{N / 2}`, and odd ones (`{N * N}`, an
    // unknown call).
    let symbolic = (0usize..5).prop_map(|shape| {
        let n = || Box::new(Expr::Name("N".to_string(), SpanId(6)));
        let two = || Box::new(Expr::Int(2, SpanId(6)));
        let binary = |op, lhs, rhs| Expr::Binary {
            op,
            lhs,
            rhs,
            span: SpanId(6),
        };
        let expr = match shape {
            0 => *n(),
            1 => binary(BinOp::Mul, two(), n()),
            2 => binary(BinOp::Div, n(), two()),
            3 => binary(BinOp::Mul, n(), n()),
            _ => Expr::Call {
                func: "thread_id".to_string(),
                args: vec![*two()],
                span: SpanId(6),
            },
        };
        Dim {
            expr,
            span: SpanId(6),
        }
    });
    prop::collection::vec(prop_oneof![4 => constant, 1 => symbolic], 0..4)
}

fn stmt() -> impl Strategy<Value = Stmt> {
    let alloc =
        (prop::sample::select(vec!["t", "u"]), dtype(), dims()).prop_map(|(name, dtype, shape)| {
            Stmt::AllocLocal(AllocLocal {
                name: name.to_string(),
                name_span: SpanId(7),
                dtype,
                dtype_span: SpanId(8),
                shape,
                span: SpanId(9),
            })
        });
    let pred = prop_oneof![
        3 => Just(Expr::Name("p".to_string(), SpanId(11))),
        2 => Just(Expr::Unary {
            op: UnOp::Not,
            expr: Box::new(Expr::Name("p".to_string(), SpanId(11))),
            span: SpanId(11),
        }),
        2 => int_expr(),
        1 => Just(Expr::Other("p.is_some()".to_string(), SpanId(11))),
    ];
    let apply = (
        opcode(),
        prop::collection::vec(operand(), 0..5),
        prop::option::of(pred),
        any::<Option<bool>>(),
    )
        .prop_map(|(opcode, operands, pred, preserve)| {
            Stmt::Apply(Apply {
                opcode,
                opcode_span: SpanId(10),
                operands,
                scope: None,
                pred,
                preserve_dst: preserve.map(|v| (v, SpanId(12))),
                span: SpanId(13),
            })
        });
    // `let v = <integer expression>;` or `let v = <view>;`
    let let_ = prop_oneof![
        3 => int_expr(),
        1 => place().prop_map(Expr::View),
    ]
    .prop_map(|value| {
        Stmt::Let(Let {
            name: "v".to_string(),
            name_span: SpanId(30),
            value,
            span: SpanId(31),
        })
    });
    let leaf = prop_oneof![3 => alloc, 4 => apply, 2 => let_];
    leaf.prop_recursive(3, 24, 4, |inner| {
        let body = prop::collection::vec(inner, 0..4);
        // Constant bounds (unrolled, `k` a constant) or runtime bounds
        // (a PTX loop), with or without `step_by`.
        let for_constant = (number(), number(), body.clone()).prop_map(|(start, end, body)| {
            Stmt::For(For {
                var: "k".to_string(),
                var_span: SpanId(32),
                start: Expr::Int(i128::from(start), SpanId(33)),
                end: Expr::Int(i128::from(end), SpanId(33)),
                step: None,
                body,
                span: SpanId(34),
            })
        });
        let for_runtime = (
            int_expr(),
            int_expr(),
            prop::option::of(int_expr()),
            body.clone(),
        )
            .prop_map(|(start, end, step, body)| {
                Stmt::For(For {
                    var: "i".to_string(),
                    var_span: SpanId(35),
                    start,
                    end,
                    step,
                    body,
                    span: SpanId(36),
                })
            });
        let if_ = (int_expr(), body.clone(), body).prop_map(|(cond, then, otherwise)| {
            Stmt::If(If {
                cond,
                then,
                otherwise,
                span: SpanId(37),
            })
        });
        prop_oneof![for_constant, for_runtime, if_]
    })
}

fn kernel() -> impl Strategy<Value = Kernel> {
    (
        (
            dtype(),
            dims(),
            dtype(),
            dims(),
            prop::collection::vec(stmt(), 0..8),
        ),
        (
            prop::sample::select(vec![1u32, 2, 32, 256, 1024, 0]),
            prop_oneof![
                3 => Just(Expr::Int(1, SpanId(18))),
                1 => int_expr(),
            ],
        ),
    )
        .prop_map(|((da, a, db, b, body), (block, grid))| Kernel {
            name: "k".to_string(),
            name_span: SpanId(0),
            launch: LaunchDims {
                grid: [grid, Expr::Int(1, SpanId(18)), Expr::Int(1, SpanId(18))],
                block: [block, 1, 1],
                span: SpanId(18),
            },
            target: Target::SM_90,
            params: vec![
                Param {
                    name: "a".into(),
                    span: SpanId(14),
                    ty: ParamType::Tensor { dtype: da, dims: a },
                },
                Param {
                    name: "b".into(),
                    span: SpanId(15),
                    ty: ParamType::Tensor { dtype: db, dims: b },
                },
                Param {
                    name: "s".into(),
                    span: SpanId(16),
                    ty: ParamType::Scalar(DType::F32),
                },
                Param {
                    name: "p".into(),
                    span: SpanId(17),
                    ty: ParamType::Scalar(DType::Bool),
                },
            ],
            body,
        })
}

// ------------------------------------------------- near-legal kernels
//
// Random kernels almost never get past name resolution, so the proofs
// (bounds, alignment, races), runtime loops and the emitter are exercised by
// a second generator: kernels over `x`/`y: Tensor<f32, ..>` and a tile `r`
// whose statements are plausible (loads, stores, register ops, `let`, `for`
// and `if`) with random index arithmetic.

fn name(text: &str) -> Expr {
    Expr::Name(text.to_string(), SpanId(40))
}

fn int(value: i128) -> Expr {
    Expr::Int(value, SpanId(41))
}

fn call(func: &str, axis: i128) -> Expr {
    Expr::Call {
        func: func.to_string(),
        args: vec![int(axis)],
        span: SpanId(42),
    }
}

fn binary(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
    Expr::Binary {
        op,
        lhs: Box::new(lhs),
        rhs: Box::new(rhs),
        span: SpanId(43),
    }
}

/// An index: constants, `thread_id`, `cta_id * 256 + thread_id`, loop
/// variables, `base`, the symbol `N` and the scalar `n`, under `+`/`*`.
fn index() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        3 => (0i128..9).prop_map(int),
        2 => Just(call("thread_id", 0)),
        1 => Just(binary(
            BinOp::Add,
            binary(BinOp::Mul, call("cta_id", 0), int(256)),
            call("thread_id", 0)
        )),
        2 => prop::sample::select(vec!["k", "i", "base", "N", "n"]).prop_map(name),
    ];
    leaf.prop_recursive(2, 6, 2, |inner| {
        (
            prop::sample::select(vec![BinOp::Add, BinOp::Mul, BinOp::Sub]),
            inner.clone(),
            inner,
        )
            .prop_map(|(op, lhs, rhs)| binary(op, lhs, rhs))
    })
}

/// `x.slice(s![at..at + width])` (or `y`), optionally reshaped to `[1, width]`.
fn tensor_slice(tensor: &str, at: Expr, width: i128) -> Operand {
    let mut views = vec![ViewOp {
        kind: ViewKind::Slice(vec![SliceItem::Range {
            start: Some(at.clone()),
            end: Some(binary(BinOp::Add, at, int(width))),
            step: 1,
            span: SpanId(44),
        }]),
        span: SpanId(45),
    }];
    if width > 1 {
        views.push(ViewOp {
            kind: ViewKind::Reshape(vec![1, width as i64]),
            span: SpanId(46),
        });
    }
    Operand::Place(PlaceExpr {
        base: tensor.to_string(),
        base_span: SpanId(47),
        views,
        span: SpanId(48),
    })
}

/// `r`, `r[at]` or `r.reshape([1, 4])`.
fn tile(at: Option<Expr>, whole_row: bool) -> Operand {
    let views = match (at, whole_row) {
        (_, true) => vec![ViewKind::Reshape(vec![1, 4])],
        (Some(at), false) => vec![ViewKind::Slice(vec![SliceItem::Index {
            index: at,
            span: SpanId(49),
        }])],
        (None, false) => Vec::new(),
    };
    Operand::Place(PlaceExpr {
        base: "r".to_string(),
        base_span: SpanId(50),
        views: views
            .into_iter()
            .map(|kind| ViewOp {
                kind,
                span: SpanId(51),
            })
            .collect(),
        span: SpanId(52),
    })
}

fn plain_apply(opcode: &str, operands: Vec<Operand>, pred: Option<Expr>) -> Stmt {
    Stmt::Apply(Apply {
        opcode: opcode.to_string(),
        opcode_span: SpanId(53),
        operands,
        scope: None,
        pred,
        preserve_dst: None,
        span: SpanId(54),
    })
}

fn near_stmt() -> impl Strategy<Value = Stmt> {
    let pred = prop::option::of(prop_oneof![
        Just(name("p")),
        index().prop_map(|i| binary(BinOp::Lt, i, name("N"))),
    ]);
    let element = prop_oneof![(0i128..5).prop_map(int), Just(name("k")), index()];
    let load = (index(), element.clone(), pred.clone()).prop_map(|(at, element, pred)| {
        plain_apply(
            "ld.global.f32",
            vec![tile(Some(element), false), tensor_slice("x", at, 1)],
            pred,
        )
    });
    let load_v4 = (index(), pred.clone()).prop_map(|(at, pred)| {
        plain_apply(
            "ld.global.v4.f32",
            vec![tile(None, true), tensor_slice("x", at, 4)],
            pred,
        )
    });
    let store =
        (index(), element, pred.clone(), any::<bool>()).prop_map(|(at, element, pred, nc)| {
            if nc {
                plain_apply(
                    "ld.global.nc.f32",
                    vec![tile(Some(element), false), tensor_slice("y", at, 1)],
                    pred,
                )
            } else {
                plain_apply(
                    "st.global.f32",
                    vec![tensor_slice("y", at, 1), tile(Some(element), false)],
                    pred,
                )
            }
        });
    let arith = (any::<bool>(), pred).prop_map(|(shifted, pred)| {
        let operands = if shifted {
            // Order dependent: `r[1..4] = r[0..3]`.
            let rows = |a: i64, b: i64| {
                Operand::Place(PlaceExpr {
                    base: "r".to_string(),
                    base_span: SpanId(55),
                    views: vec![ViewOp {
                        kind: ViewKind::Slice(vec![SliceItem::range(
                            Some(a),
                            Some(b),
                            1,
                            SpanId(56),
                        )]),
                        span: SpanId(57),
                    }],
                    span: SpanId(58),
                })
            };
            vec![rows(1, 4), rows(0, 3)]
        } else {
            vec![tile(None, false), tile(None, false)]
        };
        plain_apply("mov.f32", operands, pred)
    });
    let let_base = index().prop_map(|value| {
        Stmt::Let(Let {
            name: "base".to_string(),
            name_span: SpanId(59),
            value,
            span: SpanId(60),
        })
    });
    let leaf = prop_oneof![3 => load, 1 => load_v4, 2 => store, 1 => arith, 2 => let_base];
    leaf.prop_recursive(3, 16, 3, |inner| {
        let body = prop::collection::vec(inner, 1..4);
        let unrolled = (0i128..3, 1i128..5, body.clone()).prop_map(|(start, end, body)| {
            Stmt::For(For {
                var: "k".to_string(),
                var_span: SpanId(61),
                start: int(start),
                end: int(end),
                step: None,
                body,
                span: SpanId(62),
            })
        });
        let grid_stride = (
            index(),
            prop_oneof![Just(name("N")), index()],
            prop::option::of(prop_oneof![
                Just(binary(
                    BinOp::Mul,
                    call("grid_dim", 0),
                    call("block_dim", 0)
                )),
                index(),
            ]),
            body.clone(),
        )
            .prop_map(|(start, end, step, body)| {
                Stmt::For(For {
                    var: "i".to_string(),
                    var_span: SpanId(63),
                    start,
                    end,
                    step,
                    body,
                    span: SpanId(64),
                })
            });
        let branch = (
            index(),
            prop_oneof![Just(name("N")), index()],
            body.clone(),
            prop::collection::vec(Just(()), 0..2),
            body,
        )
            .prop_map(|(lhs, rhs, then, has_else, otherwise)| {
                Stmt::If(If {
                    cond: binary(BinOp::Le, lhs, rhs),
                    then,
                    otherwise: if has_else.is_empty() {
                        Vec::new()
                    } else {
                        otherwise
                    },
                    span: SpanId(65),
                })
            });
        prop_oneof![unrolled, grid_stride, branch]
    })
}

fn near_kernel() -> impl Strategy<Value = Kernel> {
    let dim = prop_oneof![
        Just(Dim::constant(64, SpanId(70))),
        Just(Dim {
            expr: name("N"),
            span: SpanId(70)
        }),
        Just(Dim {
            expr: binary(BinOp::Mul, int(4), name("N")),
            span: SpanId(70)
        }),
    ];
    let grid = prop_oneof![
        Just(int(1)),
        Just(int(4)),
        Just(Expr::Call {
            func: "ceil_div".to_string(),
            args: vec![name("N"), int(256)],
            span: SpanId(71),
        }),
    ];
    (
        dim.clone(),
        dim,
        prop::sample::select(vec![1u32, 32, 256]),
        grid,
        prop::collection::vec(near_stmt(), 1..6),
        any::<(bool, bool)>(),
    )
        .prop_map(|(dx, dy, block, grid, stmts, (init, base))| {
            let tensor = |name: &str, dim: Dim, span| Param {
                name: name.to_string(),
                span: SpanId(span),
                ty: ParamType::Tensor {
                    dtype: DType::F32,
                    dims: vec![dim],
                },
            };
            let mut body = vec![Stmt::AllocLocal(AllocLocal {
                name: "r".to_string(),
                name_span: SpanId(72),
                dtype: DType::F32,
                dtype_span: SpanId(73),
                shape: vec![Dim::constant(4, SpanId(74)), Dim::constant(1, SpanId(74))],
                span: SpanId(75),
            })];
            if init {
                // `r` written up front, so reads of it are legal.
                let zero = Operand::Literal(Literal {
                    value: LiteralValue::Float(0.0),
                    span: SpanId(81),
                });
                body.push(plain_apply("mov.f32", vec![tile(None, false), zero], None));
            }
            if base {
                // `let base = (cta_id(0) * 256 + thread_id(0)) * 4;`
                body.push(Stmt::Let(Let {
                    name: "base".to_string(),
                    name_span: SpanId(82),
                    value: binary(
                        BinOp::Mul,
                        binary(
                            BinOp::Add,
                            binary(BinOp::Mul, call("cta_id", 0), int(256)),
                            call("thread_id", 0),
                        ),
                        int(4),
                    ),
                    span: SpanId(83),
                }));
            }
            body.extend(stmts);
            Kernel {
                name: "k".to_string(),
                name_span: SpanId(0),
                launch: LaunchDims {
                    grid: [grid, int(1), int(1)],
                    block: [block, 1, 1],
                    span: SpanId(76),
                },
                target: Target::SM_90,
                params: vec![
                    tensor("x", dx, 77),
                    tensor("y", dy, 78),
                    Param {
                        name: "n".into(),
                        span: SpanId(79),
                        ty: ParamType::Scalar(DType::U32),
                    },
                    Param {
                        name: "p".into(),
                        span: SpanId(80),
                        ty: ParamType::Scalar(DType::Bool),
                    },
                ],
                body,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn resolve_never_panics(text in opcode()) {
        let _ = resolve(&text);
    }

    #[test]
    fn compile_never_panics_and_reports_exactly_one_outcome(k in kernel()) {
        let out = compile(&k);
        // Either PTX or diagnostics, never both or neither.
        prop_assert_eq!(out.ptx.is_some(), out.diagnostics.is_empty());
    }

    #[test]
    fn near_legal_kernels_never_panic(k in near_kernel()) {
        let out = compile(&k);
        prop_assert_eq!(out.ptx.is_some(), out.diagnostics.is_empty());
        prop_assert_eq!(out.program.is_some(), out.ptx.is_some());
    }
}
