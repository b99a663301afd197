//! Near-legal kernels: plausible kernels that reach the proofs and the
//! emitter.
//!
//! Random kernels rarely get past name resolution, so the proofs (bounds,
//! alignment, races), runtime loops and the emitter are exercised by a
//! second generator: kernels over `x`/`y: Tensor<f32, ..>`, a tile `r` and
//! plausible statements with random index arithmetic.

use super::*;

/// `func(axis)`.
pub(crate) fn call(func: &str, axis: i128) -> Expr {
    build::call(func, vec![int(axis)])
}

/// An index: constants, `thread_id`, `cta_id * 256 + thread_id`,
/// `lane_id()`, loop variables, `base`, the symbol `N` and the scalar `n`,
/// under `+ - *` and `<<` by a constant: a polynomial, so a slice
/// `at..at + w` has a constant extent.
pub(crate) fn index() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        3 => (0i128..9).prop_map(int),
        3 => Just(call("thread_id", 0)),
        1 => Just(binary(
            BinOp::Add,
            binary(BinOp::Mul, call("cta_id", 0), int(256)),
            call("thread_id", 0)
        )),
        1 => Just(Expr::Call { func: "lane_id".into(), args: vec![], span: SpanId(42) }),
        3 => prop::sample::select(vec!["k", "i", "base", "N", "n"]).prop_map(name),
    ];
    leaf.prop_recursive(2, 6, 2, |inner| {
        prop_oneof![
            4 => (
                prop::sample::select(vec![BinOp::Add, BinOp::Mul, BinOp::Sub]),
                inner.clone(),
                inner.clone(),
            )
                .prop_map(|(op, lhs, rhs)| binary(op, lhs, rhs)),
            1 => (inner, 0i128..4).prop_map(|(lhs, c)| binary(BinOp::Shl, lhs, int(c))),
        ]
    })
}

/// A `let` value: an index, or one through the built-ins that define a new
/// value (`/`, `%`, `>>`, `min`, `max`, `ceil_div`).
pub(crate) fn let_value() -> impl Strategy<Value = Expr> {
    prop_oneof![
        2 => index(),
        1 => (
            prop::sample::select(vec![BinOp::Div, BinOp::Rem, BinOp::Shr]),
            index(),
            1i128..5,
        )
            .prop_map(|(op, lhs, c)| binary(op, lhs, int(c))),
        1 => (prop::sample::select(vec!["min", "max"]), index(), index()).prop_map(
            |(func, a, b)| Expr::Call {
                func: func.to_string(),
                args: vec![a, b],
                span: SpanId(42),
            }
        ),
        1 => (index(), 1i128..300).prop_map(|(a, c)| Expr::Call {
            func: "ceil_div".to_string(),
            args: vec![a, int(c)],
            span: SpanId(42),
        }),
    ]
}

/// `x.slice(s![at..at + width])` (or `y`), optionally reshaped to `[1, width]`.
pub(crate) fn tensor_slice(tensor: &str, at: Expr, width: i128) -> Operand {
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

/// Views of `r: [4, 1]` that keep its shape, nested a few levels.
pub(crate) fn same_shape_chain(which: u8) -> Vec<ViewKind> {
    match which % 4 {
        0 => Vec::new(),
        1 => vec![
            ViewKind::Reshape(vec![2, 2]),
            ViewKind::Reshape(vec![-1]),
            ViewKind::Unsqueeze(-1),
        ],
        2 => vec![
            ViewKind::View(DType::U32),
            ViewKind::View(DType::F32),
            ViewKind::Slice(vec![SliceItem::range(Some(0), Some(4), 1, SpanId(49))]),
        ],
        _ => vec![
            ViewKind::Slice(vec![SliceItem::range(None, None, 1, SpanId(49))]),
            ViewKind::Reshape(vec![1, 4]),
            ViewKind::Reshape(vec![4, 1]),
            ViewKind::View(DType::F32),
        ],
    }
}

/// `r` (through a same-shape chain), `r[at]` or `r.reshape([1, 4])`.
pub(crate) fn tile(at: Option<Expr>, whole_row: bool, chain: u8) -> Operand {
    let mut views = same_shape_chain(chain);
    match (at, whole_row) {
        (_, true) => views.push(ViewKind::Reshape(vec![1, 4])),
        (Some(at), false) => views.push(ViewKind::Slice(vec![SliceItem::Index {
            index: at,
            span: SpanId(49),
        }])),
        (None, false) => {}
    }
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

pub(crate) fn plain_apply(opcode: &str, operands: Vec<Operand>, pred: Option<Expr>) -> Stmt {
    Stmt::Apply(Apply {
        opcode: opcode.to_string(),
        opcode_span: SpanId(53),
        operands,
        scope: None,
        pred,
        preserve_dst: None,
        zero_fill: None,
        span: SpanId(54),
    })
}

pub(crate) fn near_pred() -> impl Strategy<Value = Option<Expr>> {
    prop::option::weighted(
        0.3,
        prop_oneof![
            2 => Just(name("p")),
            1 => Just(name("q")),
            2 => index().prop_map(|i| binary(BinOp::Lt, i, name("N"))),
            1 => index().prop_map(|i| binary(
                BinOp::And,
                name("p"),
                binary(BinOp::Le, i, name("N"))
            )),
            1 => Just(Expr::Unary {
                op: UnOp::Not,
                expr: Box::new(name("p")),
                span: SpanId(55),
            }),
        ],
    )
}

pub(crate) fn near_stmt(features: Features) -> BoxedStrategy<Stmt> {
    let element = prop_oneof![
        6 => (0i128..4).prop_map(int),
        3 => Just(name("k")),
        1 => index(),
    ];
    let at_x = prop_oneof![
        3 => (0i128..4).prop_map(|c| binary(BinOp::Add, name("own"), int(c))),
        2 => index(),
    ];
    let load = (at_x, element.clone(), near_pred(), any::<(bool, u8)>()).prop_map(
        move |(at, element, pred, (keep, chain))| {
            let mut stmt = plain_apply(
                "ld.global.f32",
                vec![tile(Some(element), false, chain), tensor_slice("x", at, 1)],
                pred.clone(),
            );
            // A tame kernel keeps old values: its reads of `r` after
            // predicated loads are then reads of written registers.
            if let Stmt::Apply(apply) = &mut stmt
                && (keep || features.tame)
                && pred.is_some()
            {
                apply.preserve_dst = Some((true, SpanId(56)));
            }
            stmt
        },
    );
    let at_v4 = prop_oneof![3 => Just(name("own")), 1 => index()];
    let load_v4 = (at_v4, near_pred(), any::<u8>()).prop_map(|(at, pred, chain)| {
        plain_apply(
            "ld.global.v4.f32",
            vec![tile(None, true, chain), tensor_slice("x", at, 4)],
            pred,
        )
    });
    // Accesses to `y`: mostly at the thread's own `own + c` (race-free),
    // sometimes anywhere; `.nc` loads mostly of `x` (never written).
    let at_y = prop_oneof![
        3 => (0i128..4).prop_map(|c| binary(BinOp::Add, name("own"), int(c))),
        1 => index(),
    ];
    let store = (at_y, index(), element, near_pred(), any::<(u8, u8)>()).prop_map(
        |(at_y, at_x, element, pred, (kind, chain))| match kind % 5 {
            0 => plain_apply(
                "ld.global.nc.f32",
                vec![
                    tile(Some(element), false, chain),
                    tensor_slice("x", at_x, 1),
                ],
                pred,
            ),
            1 => plain_apply(
                "ld.global.nc.f32",
                vec![
                    tile(Some(element), false, chain),
                    tensor_slice("y", at_y, 1),
                ],
                pred,
            ),
            _ => plain_apply(
                "st.global.f32",
                vec![
                    tensor_slice("y", at_y, 1),
                    tile(Some(element), false, chain),
                ],
                pred,
            ),
        },
    );
    let arith = (0u8..3, near_pred(), any::<u8>()).prop_map(|(kind, pred, chain)| {
        let operands = match kind {
            0 => {
                // Order dependent: `r[1..4] = r[0..3]`.
                let rows = |a: i64, b: i64| {
                    Operand::Place(PlaceExpr {
                        base: "r".to_string(),
                        base_span: SpanId(57),
                        views: vec![ViewOp {
                            kind: ViewKind::Slice(vec![SliceItem::range(
                                Some(a),
                                Some(b),
                                1,
                                SpanId(58),
                            )]),
                            span: SpanId(59),
                        }],
                        span: SpanId(60),
                    })
                };
                vec![rows(1, 4), rows(0, 3)]
            }
            1 => vec![tile(None, false, chain), tile(None, false, chain / 4)],
            _ => vec![
                tile(None, false, chain),
                Operand::Literal(Literal {
                    value: LiteralValue::Float(1.5),
                    span: SpanId(61),
                }),
            ],
        };
        plain_apply("mov.f32", operands, pred)
    });
    let let_base = let_value().prop_map(|value| {
        Stmt::Let(Let {
            name: "base".to_string(),
            name_span: SpanId(62),
            value,
            span: SpanId(63),
        })
    });
    let let_pred = index().prop_map(|i| {
        Stmt::Let(Let {
            name: "q".to_string(),
            name_span: SpanId(64),
            value: binary(BinOp::Lt, i, name("N")),
            span: SpanId(65),
        })
    });
    let mut leaves: Vec<(u32, BoxedStrategy<Stmt>)> = vec![
        (3, load.boxed()),
        (1, load_v4.boxed()),
        (2, store.boxed()),
        (1, arith.boxed()),
        (2, let_base.boxed()),
        (1, let_pred.boxed()),
    ];
    leaves.extend(scoped_leaves(features));
    let leaf = prop::strategy::Union::new_weighted(leaves);
    leaf.prop_recursive(3, 16, 3, move |inner| {
        let scoped = if features.any() {
            scoped_blocks(features, inner.clone())
        } else {
            Vec::new()
        };
        let body = prop::collection::vec(inner, 1..4);
        // `for k in a..b`, `a..=b` (as `a..b + 1`) or `(a..b).step_by(c)`.
        let unrolled =
            (0i128..3, 1i128..5, 0u8..3, body.clone()).prop_map(|(start, end, form, body)| {
                let (end, step) = match form {
                    0 => (int(end), None),
                    1 => (binary(BinOp::Add, int(end - 1), int(1)), None),
                    _ => (int(end), Some(int(2))),
                };
                Stmt::For(For {
                    var: "k".to_string(),
                    var_span: SpanId(66),
                    start: int(start),
                    end,
                    step,
                    body,
                    span: SpanId(67),
                })
            });
        let grid_stride = (
            index(),
            prop_oneof![Just(name("N")), Just(name("n")), index()],
            prop::option::of(prop_oneof![
                2 => Just(binary(
                    BinOp::Mul,
                    call("grid_dim", 0),
                    call("block_dim", 0)
                )),
                1 => (1i128..5).prop_map(int),
                1 => index(),
            ]),
            body.clone(),
        )
            .prop_map(|(start, end, step, body)| {
                Stmt::For(For {
                    var: "i".to_string(),
                    var_span: SpanId(68),
                    start,
                    end,
                    step,
                    body,
                    span: SpanId(69),
                })
            });
        let branch = (
            index(),
            prop_oneof![Just(name("N")), index()],
            body.clone(),
            0u8..3,
            body,
        )
            .prop_map(|(lhs, rhs, then, form, otherwise)| {
                let otherwise = match form {
                    0 => Vec::new(),
                    1 => otherwise,
                    // `else if`.
                    _ => vec![Stmt::If(If {
                        cond: name("p"),
                        then: otherwise,
                        otherwise: Vec::new(),
                        span: SpanId(70),
                    })],
                };
                Stmt::If(If {
                    cond: binary(BinOp::Le, lhs, rhs),
                    then,
                    otherwise,
                    span: SpanId(71),
                })
            });
        // With scopes, thread-dependent loops and branches (where no
        // collective or barrier may go) are rarer, and absent when tame.
        let mut forms: Vec<(u32, BoxedStrategy<Stmt>)> = vec![(2, unrolled.boxed())];
        if !features.tame {
            let weight = if features.any() { 1 } else { 2 };
            forms.push((weight, grid_stride.boxed()));
            forms.push((weight, branch.boxed()));
        }
        forms.extend(scoped);
        prop::strategy::Union::new_weighted(forms)
    })
    .boxed()
}
