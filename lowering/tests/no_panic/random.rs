//! Random kernels: every form of the AST the macro can build.

use super::*;

/// Literals at every boundary the compiler cares about.
pub(crate) fn interesting_int() -> impl Strategy<Value = i128> {
    prop_oneof![
        6 => -4i128..10,
        2 => prop::sample::select(vec![
            16i128,
            31,
            32,
            255,
            256,
            1023,
            1024,
            1025,
            4096,
            4097,
            65535,
            65536,
            (1 << 31) - 1,
            1 << 31,
            (1 << 32) - 1,
            1 << 32,
            (1 << 40) - 1,
            1 << 40,
            (1 << 62) - 1,
            1 << 62,
            i128::from(i64::MAX),
            i128::from(i64::MAX) + 1,
            i128::from(i64::MIN),
            i128::from(u64::MAX),
            i128::MAX,
            i128::MIN,
            -(1 << 62),
            -1024,
        ]),
        1 => any::<i64>().prop_map(i128::from),
    ]
}

pub(crate) fn small_i64() -> impl Strategy<Value = i64> {
    prop_oneof![
        6 => -4i64..9,
        1 => Just(i64::MIN),
        1 => Just(i64::MAX),
        1 => any::<i64>(),
    ]
}

/// Names the random kernels use: parameters `a`, `b`, `s`, `p`, `n`, the
/// symbol `N`, tiles `t`, `u`, `é`, `let`/loop names `v`, `q`, `i`, `k`,
/// non-ASCII parameters `é`/`è`, and unknown names.
pub(crate) const NAMES: &[&str] = &[
    "a", "b", "s", "p", "n", "N", "M", "t", "u", "v", "q", "i", "k", "é", "è", "数", "zz", "device",
];

pub(crate) fn name_expr() -> impl Strategy<Value = Expr> {
    prop::sample::select(NAMES).prop_map(|n| Expr::Name(n.to_string(), SpanId(21)))
}

pub(crate) const BUILTINS: &[&str] = &[
    "thread_id",
    "cta_id",
    "block_dim",
    "grid_dim",
    "lane_id",
    "warp_id",
    "min",
    "max",
    "ceil_div",
    "nope",
];

pub(crate) const BINOPS: &[BinOp] = &BinOp::ALL;

/// An integer or bool expression of every form (names, literals, calls with
/// odd axes and arities, every operator, views and unreadable text).
pub(crate) fn expr() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        4 => interesting_int().prop_map(|v| Expr::Int(v, SpanId(20))),
        4 => name_expr(),
        2 => (
            prop::sample::select(BUILTINS),
            prop::collection::vec(interesting_int(), 0..3),
        )
            .prop_map(|(func, args)| Expr::Call {
                func: func.to_string(),
                args: args.into_iter().map(|a| Expr::Int(a, SpanId(22))).collect(),
                span: SpanId(23),
            }),
        1 => any::<bool>().prop_map(|b| Expr::Bool(b, SpanId(24))),
        1 => Just(Expr::Other("x.len()".to_string(), SpanId(27))),
    ];
    leaf.prop_recursive(5, 32, 3, |inner| {
        prop_oneof![
            4 => (prop::sample::select(BINOPS), inner.clone(), inner.clone()).prop_map(
                |(op, lhs, rhs)| Expr::Binary {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                    span: SpanId(25),
                }
            ),
            2 => (prop::sample::select(vec![UnOp::Neg, UnOp::Not]), inner.clone()).prop_map(
                |(op, expr)| Expr::Unary {
                    op,
                    expr: Box::new(expr),
                    span: SpanId(26),
                }
            ),
            2 => (
                prop::sample::select(BUILTINS),
                prop::collection::vec(inner.clone(), 0..3)
            )
                .prop_map(|(func, args)| Expr::Call {
                    func: func.to_string(),
                    args,
                    span: SpanId(28),
                }),
            // `a..=b` reaches the AST as `a..b + 1`.
            1 => inner.clone().prop_map(|e| Expr::Binary {
                op: BinOp::Add,
                lhs: Box::new(e),
                rhs: Box::new(Expr::Int(1, SpanId(29))),
                span: SpanId(29),
            }),
            1 => (inner, prop::collection::vec(const_view_kind(), 0..3)).prop_map(|(index, views)| {
                // A view whose slice bound is an expression.
                let mut ops = vec![ViewOp {
                    kind: ViewKind::Slice(vec![SliceItem::Index {
                        index,
                        span: SpanId(30),
                    }]),
                    span: SpanId(31),
                }];
                ops.extend(views.into_iter().map(|kind| ViewOp {
                    kind,
                    span: SpanId(31),
                }));
                Expr::View(PlaceExpr {
                    base: "t".to_string(),
                    base_span: SpanId(32),
                    views: ops,
                    span: SpanId(33),
                })
            }),
        ]
    })
}

/// A slice bound: mostly a constant, sometimes any expression.
pub(crate) fn bound() -> impl Strategy<Value = Expr> {
    prop_oneof![
        4 => interesting_int().prop_map(|v| Expr::Int(v, SpanId(1))),
        1 => expr(),
    ]
}

pub(crate) fn slice_item() -> impl Strategy<Value = SliceItem> {
    prop_oneof![
        bound().prop_map(|index| SliceItem::Index {
            index,
            span: SpanId(1)
        }),
        (
            prop::option::of(bound()),
            prop::option::of(bound()),
            small_i64()
        )
            .prop_map(|(start, end, step)| SliceItem::Range {
                start,
                end,
                step,
                span: SpanId(1)
            }),
    ]
}

/// One view of any kind; constants from the interesting set.
pub(crate) fn view_kind() -> impl Strategy<Value = ViewKind> {
    prop_oneof![
        3 => prop::collection::vec(slice_item(), 0..4).prop_map(ViewKind::Slice),
        1 => prop::sample::select(DType::ALL.to_vec()).prop_map(ViewKind::View),
        1 => prop::collection::vec(prop_oneof![-1i64..9, small_i64()], 0..4).prop_map(ViewKind::Reshape),
        1 => small_i64().prop_map(ViewKind::Unsqueeze),
        1 => prop::collection::vec(prop_oneof![-1i64..4, small_i64()], 0..5).prop_map(ViewKind::Permute),
        1 => prop::collection::vec(prop_oneof![1i64..9, small_i64()], 0..4).prop_map(ViewKind::Broadcast),
        1 => interesting_int().prop_map(|v| ViewKind::InCta(Expr::Int(v, SpanId(1)))),
    ]
}

/// A view with constant operands only (inside [`expr`], which [`view_kind`]
/// itself uses).
pub(crate) fn const_view_kind() -> impl Strategy<Value = ViewKind> {
    let item = prop_oneof![
        interesting_int().prop_map(|v| SliceItem::Index {
            index: Expr::Int(v, SpanId(1)),
            span: SpanId(1)
        }),
        (
            prop::option::of(small_i64()),
            prop::option::of(small_i64()),
            small_i64()
        )
            .prop_map(|(start, end, step)| SliceItem::range(start, end, step, SpanId(1))),
    ];
    prop_oneof![
        2 => prop::collection::vec(item, 0..3).prop_map(ViewKind::Slice),
        1 => prop::sample::select(DType::ALL.to_vec()).prop_map(ViewKind::View),
        1 => prop::collection::vec(-1i64..9, 0..3).prop_map(ViewKind::Reshape),
        1 => (-3i64..3).prop_map(ViewKind::Unsqueeze),
        1 => prop::collection::vec(-1i64..4, 0..4).prop_map(ViewKind::Permute),
        1 => prop::collection::vec(1i64..9, 0..3).prop_map(ViewKind::Broadcast),
        1 => (-1i128..3).prop_map(|v| ViewKind::InCta(Expr::Int(v, SpanId(1)))),
    ]
}

/// A named tile/tensor with a chain of up to 12 views (deep nesting).
pub(crate) fn place() -> impl Strategy<Value = PlaceExpr> {
    (
        prop::sample::select(vec!["a", "b", "t", "u", "é", "s", "p", "v", "zz"]),
        prop_oneof![
            3 => prop::collection::vec(view_kind(), 0..3),
            1 => prop::collection::vec(view_kind(), 3..13),
        ],
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

pub(crate) fn literal() -> impl Strategy<Value = LiteralValue> {
    prop_oneof![
        interesting_int().prop_map(LiteralValue::Int),
        prop::sample::select(vec![
            0.0f64,
            -0.0,
            1.0,
            0.5,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            65504.0,
            65520.0,
            3.4e38,
            1e39,
        ])
        .prop_map(LiteralValue::Float),
        any::<f64>().prop_map(LiteralValue::Float),
        any::<bool>().prop_map(LiteralValue::Bool),
    ]
}

pub(crate) fn operand() -> impl Strategy<Value = Operand> {
    let literal = literal().prop_map(|value| {
        Operand::Literal(Literal {
            value,
            span: SpanId(5),
        })
    });
    // `sreg(..)`: real names of both widths, a misspelling, odd text.
    let special = prop::sample::select(vec!["%laneid", "%clock64", "%laneId", "", "%tid.w", "é"])
        .prop_map(|name| Operand::Special {
            name: name.to_string(),
            span: SpanId(5),
        });
    prop_oneof![8 => place().prop_map(Operand::Place), 2 => literal, 1 => special]
}

/// Dims: constants (zero, huge), symbols and their forms, and odd ones.
pub(crate) fn dim() -> impl Strategy<Value = Dim> {
    let constant = prop_oneof![
        4 => 0u64..9,
        1 => Just(u64::MAX),
        1 => Just(1 << 40),
        1 => Just(65536),
        // The extents of group axes (a warp, a warpgroup, blocks).
        1 => prop::sample::select(vec![32u64, 128, 256, 1024, 12288, 12289]),
    ]
    .prop_map(|value| Dim::constant(value, SpanId(6)));
    let n = || Box::new(Expr::Name("N".to_string(), SpanId(6)));
    let m = || Box::new(Expr::Name("M".to_string(), SpanId(6)));
    let int = |v| Box::new(Expr::Int(v, SpanId(6)));
    let binary = |op, lhs, rhs| Expr::Binary {
        op,
        lhs,
        rhs,
        span: SpanId(6),
    };
    let symbolic = prop::sample::select(vec![
        *n(),
        *m(),
        Expr::Name("é".to_string(), SpanId(6)),
        binary(BinOp::Mul, int(2), n()),
        binary(BinOp::Div, n(), int(2)),
        binary(BinOp::Add, n(), int(1)),
        binary(BinOp::Sub, n(), int(1)),
        binary(BinOp::Div, int(8), int(2)),
        binary(BinOp::Div, n(), int(0)),
        binary(BinOp::Mul, n(), n()),
        binary(BinOp::Mul, int(i128::MAX), n()),
        Expr::Unary {
            op: UnOp::Neg,
            expr: int(3),
            span: SpanId(6),
        },
        Expr::Call {
            func: "thread_id".to_string(),
            args: vec![*int(2)],
            span: SpanId(6),
        },
        Expr::Other("{ N }".to_string(), SpanId(6)),
    ])
    .prop_map(|expr| Dim {
        expr,
        span: SpanId(6),
    });
    prop_oneof![4 => constant, 2 => symbolic]
}

pub(crate) fn dims() -> impl Strategy<Value = Vec<Dim>> {
    prop::collection::vec(dim(), 0..4)
}

pub(crate) fn dtype() -> impl Strategy<Value = DType> {
    prop::sample::select(DType::ALL.to_vec())
}

pub(crate) fn pred_expr() -> impl Strategy<Value = Expr> {
    prop_oneof![
        3 => Just(Expr::Name("p".to_string(), SpanId(11))),
        2 => Just(Expr::Unary {
            op: UnOp::Not,
            expr: Box::new(Expr::Name("p".to_string(), SpanId(11))),
            span: SpanId(11),
        }),
        3 => expr(),
        1 => Just(Expr::Other("p.is_some()".to_string(), SpanId(11))),
    ]
}

pub(crate) fn stmt() -> impl Strategy<Value = Stmt> {
    let alloc = (
        prop::sample::select(vec!["t", "u", "é"]),
        dtype(),
        prop_oneof![
            4 => dims(),
            1 => prop::collection::vec(bound(), 0..3).prop_map(|exprs| exprs
                .into_iter()
                .map(|expr| Dim {
                    expr,
                    span: SpanId(6)
                })
                .collect()),
        ],
        // Group tiles of every scope (and unknown ones), shared buffers.
        prop::option::weighted(
            0.3,
            prop::sample::select(vec!["warp", "warpgroup", "cta", "thread", "lane", ""]),
        ),
        prop::sample::select(vec![
            AllocSpace::Registers,
            AllocSpace::Registers,
            AllocSpace::Shared,
        ]),
    )
        .prop_map(|(name, dtype, shape, scope, space)| {
            Stmt::AllocLocal(AllocLocal {
                name: name.to_string(),
                name_span: SpanId(7),
                dtype,
                dtype_span: SpanId(8),
                shape,
                scope: scope.map(|s| (s.to_string(), SpanId(19))),
                layout: None,
                space,
                span: SpanId(9),
            })
        });
    let scope = prop::option::of(prop::sample::select(vec![
        "thread",
        "warp",
        "warpgroup",
        "cta",
        "block",
        "",
    ]));
    let apply = (
        opcode(),
        prop::collection::vec(operand(), 0..5),
        prop::option::of(pred_expr()),
        any::<Option<bool>>(),
        scope,
    )
        .prop_map(|(opcode, operands, pred, preserve, scope)| {
            Stmt::Apply(Apply {
                opcode,
                opcode_span: SpanId(10),
                operands,
                scope: scope.map(|s| (s.to_string(), SpanId(19))),
                pred,
                preserve_dst: preserve.map(|v| (v, SpanId(12))),
                zero_fill: None,
                span: SpanId(13),
            })
        });
    // `let v = <expression>;`, `let v = <view>;` or `let v = t;`.
    let let_ = (
        prop::sample::select(vec!["v", "q", "é", "N", "a"]),
        prop_oneof![
            3 => expr(),
            1 => place().prop_map(Expr::View),
            1 => name_expr(),
        ],
    )
        .prop_map(|(name, value)| {
            Stmt::Let(Let {
                name: name.to_string(),
                name_span: SpanId(34),
                value,
                span: SpanId(35),
            })
        });
    // What the parser leaves of a statement it could not read.
    let invalid = (
        prop::collection::vec(prop::sample::select(NAMES), 0..3),
        prop::collection::vec(prop::sample::select(NAMES), 0..3),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(binds, touches, stores, writes_any_tile)| {
            Stmt::Invalid(Invalid {
                binds: binds.into_iter().map(str::to_string).collect(),
                touches: touches.into_iter().map(str::to_string).collect(),
                stores,
                writes_any_tile,
            })
        });
    let leaf = prop_oneof![3 => alloc, 5 => apply, 2 => let_, 1 => invalid];
    leaf.prop_recursive(4, 32, 4, |inner| {
        let body = prop::collection::vec(inner, 0..4);
        // Constant bounds (unrolled; `k` a constant), `a..=b` as `a..b + 1`,
        // runtime bounds (a PTX loop), any of them with `step_by`.
        let for_loop = (
            prop_oneof![
                2 => interesting_int().prop_map(|v| Expr::Int(v, SpanId(36))),
                1 => expr(),
            ],
            prop_oneof![
                2 => interesting_int().prop_map(|v| Expr::Int(v, SpanId(36))),
                1 => interesting_int().prop_map(|v| Expr::Binary {
                    op: BinOp::Add,
                    lhs: Box::new(Expr::Int(v, SpanId(36))),
                    rhs: Box::new(Expr::Int(1, SpanId(36))),
                    span: SpanId(36),
                }),
                1 => expr(),
            ],
            prop::option::of(prop_oneof![
                2 => interesting_int().prop_map(|v| Expr::Int(v, SpanId(37))),
                1 => expr(),
            ]),
            prop::sample::select(vec!["i", "k", "é", "N"]),
            body.clone(),
        )
            .prop_map(|(start, end, step, var, body)| {
                Stmt::For(For {
                    var: var.to_string(),
                    var_span: SpanId(38),
                    start,
                    end,
                    step,
                    body,
                    span: SpanId(39),
                })
            });
        let if_ = (pred_expr(), body.clone(), body).prop_map(|(cond, then, otherwise)| {
            Stmt::If(If {
                cond,
                then,
                otherwise,
                span: SpanId(40),
            })
        });
        prop_oneof![for_loop, if_]
    })
}

pub(crate) fn param() -> impl Strategy<Value = Param> {
    let ty = prop_oneof![
        4 => (dtype(), dims()).prop_map(|(dtype, dims)| ParamType::Tensor { dtype, dims }),
        2 => dtype().prop_map(ParamType::Scalar),
        1 => Just(ParamType::Unparsed),
    ];
    (
        prop::sample::select(vec!["a", "b", "s", "p", "n", "N", "é", "è", "device", "t"]),
        ty,
    )
        .prop_map(|(name, ty)| Param {
            name: name.to_string(),
            span: SpanId(14),
            ty,
        })
}

/// A grid extent: constants, symbols, formulas, and forms the grid rejects.
pub(crate) fn grid_expr() -> impl Strategy<Value = Expr> {
    prop_oneof![
        3 => Just(Expr::Int(1, SpanId(18))),
        1 => interesting_int().prop_map(|v| Expr::Int(v, SpanId(18))),
        2 => Just(Expr::Call {
            func: "ceil_div".to_string(),
            args: vec![
                Expr::Name("N".to_string(), SpanId(18)),
                Expr::Int(256, SpanId(18)),
            ],
            span: SpanId(18),
        }),
        2 => expr(),
    ]
}

pub(crate) fn target() -> impl Strategy<Value = Target> {
    let known: Vec<Target> = Target::known_names()
        .iter()
        .filter_map(|n| Target::parse(n))
        .collect();
    prop_oneof![
        4 => Just(Target::SM_90),
        2 => prop::sample::select(known),
        1 => (0u32..2000, any::<bool>()).prop_map(|(sm, arch_specific)| Target { sm, arch_specific }),
    ]
}

pub(crate) fn kernel() -> impl Strategy<Value = Kernel> {
    let block = prop_oneof![
        4 => Just(1u32),
        2 => prop::sample::select(vec![0u32, 2, 32, 256, 1024, 1025, u32::MAX]),
    ];
    (
        (
            prop_oneof![
                // The four parameters most statements name ...
                3 => Just(()).prop_flat_map(|_| (dtype(), dims(), dtype(), dims())).prop_map(
                    |(da, a, db, b)| {
                        vec![
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
                        ]
                    }
                ),
                // ... or any parameters (duplicates and non-ASCII names).
                1 => prop::collection::vec(param(), 0..6),
            ],
            prop::collection::vec(stmt(), 0..8),
        ),
        (
            [block.clone(), block.clone(), block],
            [grid_expr(), grid_expr(), grid_expr()],
            target(),
            prop::sample::select(vec!["k", "ké", "kernel_1"]),
            // Mostly no cluster; some legal shapes and some illegal ones
            // (a zero extent, more than 8 CTAs).
            prop::sample::select(vec![
                [1, 1, 1],
                [1, 1, 1],
                [2, 1, 1],
                [1, 2, 1],
                [2, 2, 2],
                [0, 1, 1],
                [16, 1, 1],
            ]),
        ),
    )
        .prop_map(
            |((params, body), (block, grid, target, name, cluster))| Kernel {
                name: name.to_string(),
                name_span: SpanId(0),
                launch: LaunchDims {
                    grid,
                    block,
                    span: SpanId(18),
                    cluster,
                    cluster_span: SpanId(19),
                },
                target,
                params,
                body,
            },
        )
}
