//! Unit tests of the checker's whole-kernel rules that need no macro:
//! tiles written but never read (TK0308) and the budgets of `limits`.

use crate::ast::build::{apply, binary, int, name, place};
use crate::ast::*;
use crate::diag::{Code, SpanId};
use crate::dtype::DType;
use crate::target::Target;

use super::check;

const ALLOC_R: SpanId = SpanId(100);

fn alloc(name: &str, span: SpanId) -> Stmt {
    Stmt::AllocLocal(AllocLocal {
        name: name.to_string(),
        name_span: SpanId(9),
        dtype: DType::F32,
        dtype_span: SpanId(10),
        shape: vec![Dim::constant(4, SpanId(11)), Dim::constant(1, SpanId(11))],
        scope: None,
        layout: None,
        space: AllocSpace::Registers,
        span,
    })
}

/// `fn k(a: Tensor<f32, 4, 1>, out: Tensor<f32, 4, 1>, n: u32) { body }`.
fn codes(body: Vec<Stmt>) -> Vec<(Code, SpanId)> {
    let tensor = |name: &str| Param {
        name: name.to_string(),
        span: SpanId(12),
        ty: ParamType::Tensor {
            dtype: DType::F32,
            dims: vec![Dim::constant(4, SpanId(13)), Dim::constant(1, SpanId(13))],
        },
    };
    let kernel = Kernel {
        name: "k".into(),
        name_span: SpanId(0),
        launch: LaunchDims::default(),
        target: Target::SM_90,
        params: vec![
            tensor("a"),
            tensor("out"),
            Param {
                name: "n".into(),
                span: SpanId(14),
                ty: ParamType::Scalar(DType::U32),
            },
        ],
        body,
    };
    let checked = check(&kernel);
    assert_eq!(checked.program.is_some(), checked.diagnostics.is_empty());
    checked
        .diagnostics
        .iter()
        .map(|d| (d.code, d.span))
        .collect()
}

fn load_r() -> Stmt {
    apply(
        "ld.global.f32",
        vec![place("r", vec![]), place("a", vec![])],
    )
}

fn store_r(views: Vec<ViewKind>) -> Stmt {
    apply(
        "st.global.f32",
        vec![place("out", vec![]), place("r", views)],
    )
}

#[test]
fn a_tile_written_and_never_read_is_reported_at_its_allocation() {
    assert_eq!(
        codes(vec![alloc("r", ALLOC_R), load_r()]),
        [(Code::UNREAD_TILE, ALLOC_R)]
    );
}

#[test]
fn a_read_anywhere_through_a_view_counts() {
    // Read only in the `else` arm, through `reshape` and `slice`.
    let view = vec![
        ViewKind::Reshape(vec![2, 2]),
        ViewKind::Reshape(vec![4, 1]),
        ViewKind::Slice(vec![SliceItem::range(Some(0), Some(4), 1, SpanId(15))]),
    ];
    let branch = Stmt::If(If {
        cond: binary(BinOp::Lt, name("n"), int(3)),
        then: Vec::new(),
        otherwise: vec![store_r(view)],
        span: SpanId(16),
    });
    assert_eq!(codes(vec![alloc("r", ALLOC_R), load_r(), branch]), []);
    // Read only through a named view inside a runtime loop.
    let looped = Stmt::For(For {
        var: "i".into(),
        var_span: SpanId(17),
        start: int(0),
        end: name("n"),
        step: None,
        body: vec![
            Stmt::Let(Let {
                name: "w".into(),
                name_span: SpanId(18),
                value: Expr::View(PlaceExpr {
                    base: "r".into(),
                    base_span: SpanId(19),
                    views: Vec::new(),
                    span: SpanId(20),
                }),
                span: SpanId(21),
            }),
            apply(
                "st.global.f32",
                vec![place("out", vec![]), place("w", vec![])],
            ),
        ],
        span: SpanId(22),
    });
    assert_eq!(codes(vec![alloc("r", ALLOC_R), load_r(), looped]), []);
}

#[test]
fn an_in_place_update_is_a_read() {
    let update = apply(
        "add.f32",
        vec![
            place("r", vec![]),
            place("r", vec![]),
            Operand::Literal(Literal {
                value: LiteralValue::Float(1.0),
                span: SpanId(23),
            }),
        ],
    );
    assert_eq!(codes(vec![alloc("r", ALLOC_R), load_r(), update]), []);
}

#[test]
fn an_unused_tile_and_kernels_with_other_errors_are_not_reported() {
    // Never written: nothing computes into it.
    assert_eq!(codes(vec![alloc("r", ALLOC_R)]), []);
    // Another error: the dead tile is not reported (a failed statement may
    // be its missing read).
    let misspelled = apply(
        "st.global.f33",
        vec![place("out", vec![]), place("r", vec![])],
    );
    let found = codes(vec![alloc("r", ALLOC_R), load_r(), misspelled]);
    assert!(
        found.iter().all(|(c, _)| *c != Code::UNREAD_TILE),
        "{found:?}"
    );
    // An unreadable statement (already reported by the parser).
    let invalid = Stmt::Invalid(Invalid {
        binds: Vec::new(),
        touches: vec!["out".into(), "r".into()],
        stores: true,
        writes_any_tile: false,
    });
    assert_eq!(codes(vec![alloc("r", ALLOC_R), load_r(), invalid]), []);
}

#[test]
fn budget_errors_are_reported_once() {
    // The first store takes the kernel over the instruction limit: checking
    // stops there, so the second one adds no error of its own.
    let mut body = vec![alloc("r", ALLOC_R), load_r()];
    let big = Param {
        name: "big".into(),
        span: SpanId(24),
        ty: ParamType::Tensor {
            dtype: DType::F32,
            dims: vec![
                Dim::constant(super::MAX_INSTRUCTIONS as u64, SpanId(25)),
                Dim::constant(1, SpanId(25)),
            ],
        },
    };
    for _ in 0..2 {
        body.push(apply(
            "st.global.f32",
            vec![
                place("big", vec![]),
                Operand::Literal(Literal {
                    value: LiteralValue::Float(0.0),
                    span: SpanId(26),
                }),
            ],
        ));
    }
    body.push(store_r(Vec::new()));
    let kernel = Kernel {
        name: "k".into(),
        name_span: SpanId(0),
        launch: LaunchDims::default(),
        target: Target::SM_90,
        params: vec![
            Param {
                name: "a".into(),
                span: SpanId(12),
                ty: ParamType::Tensor {
                    dtype: DType::F32,
                    dims: vec![Dim::constant(4, SpanId(13)), Dim::constant(1, SpanId(13))],
                },
            },
            Param {
                name: "out".into(),
                span: SpanId(12),
                ty: ParamType::Tensor {
                    dtype: DType::F32,
                    dims: vec![Dim::constant(4, SpanId(13)), Dim::constant(1, SpanId(13))],
                },
            },
            big,
        ],
        body,
    };
    let found: Vec<Code> = check(&kernel).diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(found, [Code::INSTRUCTION_LIMIT]);
}
