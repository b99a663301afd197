use tile_kernel_lowering::ast::*;
use tile_kernel_lowering::*;

fn s(n: u32) -> SpanId { SpanId(n) }
fn dim(v: u64) -> Dim { Dim { value: v, span: s(0) } }
fn place(base: &str, views: Vec<ViewKind>) -> Operand {
    Operand::Place(PlaceExpr { base: base.into(), base_span: s(1), views: views.into_iter().map(|k| ViewOp { kind: k, span: s(2) }).collect(), span: s(3) })
}
fn all() -> SliceItem { SliceItem::Range { start: None, end: None, step: 1, span: s(4) } }
fn rg(a: i64, b: i64) -> SliceItem { SliceItem::Range { start: Some(a), end: Some(b), step: 1, span: s(4) } }
fn apply(op: &str, operands: Vec<Operand>) -> Stmt {
    Stmt::Apply(Apply { opcode: op.into(), opcode_span: s(5), operands, scope: None, pred: None, preserve_dst: None, span: s(6) })
}
fn alloc(name: &str, dtype: DType, shape: &[u64]) -> Stmt {
    Stmt::AllocLocal(AllocLocal { name: name.into(), name_span: s(7), dtype, dtype_span: s(8), shape: shape.iter().map(|d| dim(*d)).collect(), span: s(9) })
}

#[test]
fn seed() {
    let k = Kernel {
        name: "narrow_pairs".into(), name_span: s(10), launch: LaunchDims::default(), target: Target::SM_90,
        params: vec![
            Param { name: "a".into(), span: s(11), ty: ParamType::Tensor { dtype: DType::F32, dims: vec![dim(4), dim(2)] } },
            Param { name: "out".into(), span: s(12), ty: ParamType::Tensor { dtype: DType::U32, dims: vec![dim(4), dim(1)] } },
        ],
        body: vec![
            alloc("r", DType::F32, &[4, 2]),
            alloc("d", DType::U32, &[4, 1]),
            apply("ld.global.v2.f32", vec![place("r", vec![]), place("a", vec![])]),
            apply("cvt.rn.f16x2.f32", vec![place("d", vec![]), place("r", vec![ViewKind::Slice(vec![all(), rg(1, 2)])]), place("r", vec![ViewKind::Slice(vec![all(), rg(0, 1)])])]),
            apply("st.global.b32", vec![place("out", vec![]), place("d", vec![])]),
        ],
    };
    let c = compile(&k);
    println!("{:#?}", c.diagnostics);
    println!("{}", c.ptx.clone().unwrap_or_default());
    std::fs::write("/tmp/px/seed.ptx", c.ptx.unwrap()).unwrap();
    let k2 = Kernel {
        name: "widen_pairs".into(), name_span: s(10), launch: LaunchDims::default(), target: Target::SM_90,
        params: vec![
            Param { name: "packed".into(), span: s(11), ty: ParamType::Tensor { dtype: DType::U32, dims: vec![dim(4), dim(1)] } },
            Param { name: "out".into(), span: s(12), ty: ParamType::Tensor { dtype: DType::F32, dims: vec![dim(4), dim(2)] } },
        ],
        body: vec![
            alloc("d", DType::U32, &[4, 1]),
            alloc("f", DType::F32, &[4, 2, 1]),
            apply("ld.global.b32", vec![place("d", vec![]), place("packed", vec![])]),
            apply("cvt.f32.f16", vec![place("f", vec![]), place("d", vec![ViewKind::View(DType::U16), ViewKind::Unsqueeze(-1)])]),
            apply("st.global.v2.f32", vec![place("out", vec![]), place("f", vec![ViewKind::Reshape(vec![4, 2])])]),
            
            apply("cvt.f16.f32", vec![place("d", vec![ViewKind::View(DType::U16)]), place("f", vec![])]),
        ],
    };
    let c = compile(&k2);
    for d in &c.diagnostics { println!("{:?}: {}", d.span, d.rendered()); }
    println!("{}", c.ptx.clone().unwrap_or_default());
}
