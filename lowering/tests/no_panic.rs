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

fn view() -> impl Strategy<Value = ViewKind> {
    let item = prop_oneof![
        number().prop_map(|index| SliceItem::Index {
            index,
            span: SpanId(1)
        }),
        (
            prop::option::of(number()),
            prop::option::of(number()),
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

fn operand() -> impl Strategy<Value = Operand> {
    let place = (
        prop::sample::select(vec!["a", "b", "t", "u", "s", "p", "zz"]),
        prop::collection::vec(view(), 0..3),
    )
        .prop_map(|(base, views)| {
            Operand::Place(PlaceExpr {
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
        });
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
    prop::collection::vec(prop_oneof![0u64..9, Just(u64::MAX), Just(1 << 40)], 0..4).prop_map(|v| {
        v.into_iter()
            .map(|value| Dim {
                value,
                span: SpanId(6),
            })
            .collect()
    })
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
    let apply = (
        opcode(),
        prop::collection::vec(operand(), 0..5),
        any::<Option<bool>>(),
        any::<Option<bool>>(),
    )
        .prop_map(|(opcode, operands, pred, preserve)| {
            Stmt::Apply(Apply {
                opcode,
                opcode_span: SpanId(10),
                operands,
                scope: None,
                pred: pred.map(|negate| {
                    let name = PredExpr::Name("p".to_string(), SpanId(11));
                    if negate {
                        PredExpr::Not(Box::new(name), SpanId(11))
                    } else {
                        name
                    }
                }),
                preserve_dst: preserve.map(|v| (v, SpanId(12))),
                span: SpanId(13),
            })
        });
    prop_oneof![alloc, apply]
}

fn kernel() -> impl Strategy<Value = Kernel> {
    (
        dtype(),
        dims(),
        dtype(),
        dims(),
        prop::collection::vec(stmt(), 0..8),
    )
        .prop_map(|(da, a, db, b, body)| Kernel {
            name: "k".to_string(),
            name_span: SpanId(0),
            launch: LaunchDims::default(),
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
}
