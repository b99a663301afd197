//! `check()` diagnostics built directly from the AST (no macro): exact
//! codes, messages, help/notes and spans for a few legality rules, plus the
//! `.version` the checker picks for a legal kernel.

use tile_kernel_lowering::ast::{
    AllocLocal, AllocSpace, Apply, Dim, Expr, Kernel, LaunchDims, Literal, LiteralValue, Operand,
    Param, ParamType, PlaceExpr, SliceItem, Stmt, ViewKind, ViewOp,
};
use tile_kernel_lowering::{Code, DType, Diagnostic, PtxVersion, SpanId, Target, compile};

/// Hands out distinct span ids so each diagnostic's anchor can be checked.
struct Spans(u32);

impl Spans {
    fn next(&mut self) -> SpanId {
        self.0 += 1;
        SpanId(self.0)
    }
}

struct Builder {
    spans: Spans,
    kernel: Kernel,
}

impl Builder {
    fn new(target: Target) -> Self {
        let mut spans = Spans(0);
        let name_span = spans.next();
        Builder {
            spans,
            kernel: Kernel {
                name: "k".into(),
                name_span,
                launch: LaunchDims::default(),
                target,
                params: Vec::new(),
                body: Vec::new(),
            },
        }
    }

    fn tensor(&mut self, name: &str, dtype: DType, dims: &[u64]) {
        let span = self.spans.next();
        let dims = dims
            .iter()
            .map(|d| Dim::constant(*d, self.spans.next()))
            .collect();
        self.kernel.params.push(Param {
            name: name.into(),
            span,
            ty: ParamType::Tensor { dtype, dims },
        });
    }

    fn scalar(&mut self, name: &str, dtype: DType) {
        let span = self.spans.next();
        self.kernel.params.push(Param {
            name: name.into(),
            span,
            ty: ParamType::Scalar(dtype),
        });
    }

    fn alloc(&mut self, name: &str, dtype: DType, shape: &[u64]) {
        let alloc = AllocLocal {
            name: name.into(),
            name_span: self.spans.next(),
            dtype,
            dtype_span: self.spans.next(),
            shape: shape
                .iter()
                .map(|d| Dim::constant(*d, self.spans.next()))
                .collect(),
            scope: None,
            layout: None,
            space: AllocSpace::Registers,
            span: self.spans.next(),
        };
        self.kernel.body.push(Stmt::AllocLocal(alloc));
    }

    fn place(&mut self, base: &str, views: Vec<ViewKind>) -> Operand {
        Operand::Place(PlaceExpr {
            base: base.into(),
            base_span: self.spans.next(),
            views: views
                .into_iter()
                .map(|kind| ViewOp {
                    kind,
                    span: self.spans.next(),
                })
                .collect(),
            span: self.spans.next(),
        })
    }

    fn name(&mut self, base: &str) -> Operand {
        self.place(base, Vec::new())
    }

    fn int(&mut self, value: i128) -> Operand {
        Operand::Literal(Literal {
            value: LiteralValue::Int(value),
            span: self.spans.next(),
        })
    }

    /// Adds `apply(ptx[opcode], operands..)`; returns the opcode's span.
    fn apply(&mut self, opcode: &str, operands: Vec<Operand>) -> SpanId {
        self.apply_with(opcode, operands, None, None)
    }

    fn apply_with(
        &mut self,
        opcode: &str,
        operands: Vec<Operand>,
        pred: Option<Expr>,
        preserve_dst: Option<(bool, SpanId)>,
    ) -> SpanId {
        let opcode_span = self.spans.next();
        let span = self.spans.next();
        self.kernel.body.push(Stmt::Apply(Apply {
            opcode: opcode.into(),
            opcode_span,
            operands,
            scope: None,
            pred,
            preserve_dst,
            zero_fill: None,
            span,
        }));
        opcode_span
    }

    fn diagnostics(&self) -> Vec<Diagnostic> {
        let out = compile(&self.kernel);
        assert_eq!(out.ptx.is_none(), !out.diagnostics.is_empty());
        out.diagnostics
    }
}

fn span_of(operand: &Operand) -> SpanId {
    operand.span()
}

fn columns(start: i64, end: i64) -> ViewKind {
    ViewKind::Slice(vec![
        SliceItem::range(None, None, 1, SpanId(0)),
        SliceItem::range(Some(start), Some(end), 1, SpanId(0)),
    ])
}

/// The classic mistake: a scalar opcode applied to a `u16` view without the
/// singleton register axis. One error at the operand, with the fix.
#[test]
fn missing_unsqueeze_gets_a_help_line() {
    let mut b = Builder::new(Target::SM_90);
    b.tensor("packed", DType::U32, &[4, 1]);
    b.alloc("d", DType::U32, &[4, 1]);
    b.alloc("f", DType::F32, &[4, 2, 1]);
    let (d, packed) = (b.name("d"), b.name("packed"));
    b.apply("ld.global.b32", vec![d, packed]);
    let f = b.name("f");
    let view = b.place("d", vec![ViewKind::View(DType::U16)]);
    let view_span = span_of(&view);
    b.apply("cvt.f32.f16", vec![f, view]);
    let diags = b.diagnostics();
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(diags[0].span, view_span);
    assert_eq!(diags[0].code, Code::REGISTER_EXTENT);
    assert_eq!(
        diags[0].message,
        "operand `a` of `cvt.f32.f16` takes 1 register, but the register axis (final axis) of `d` has extent 2"
    );
    assert_eq!(
        diags[0].help,
        [
            "add a singleton register axis with `.unsqueeze(-1)` so each of the 2 elements becomes its own repeat"
        ]
    );
    assert_eq!(diags[0].notes, ["the form is `cvt.f32.f16 d, a`"]);
}

#[test]
fn repeat_shapes_must_match() {
    let mut b = Builder::new(Target::SM_90);
    b.tensor("a", DType::F32, &[4, 2]);
    b.alloc("r", DType::F32, &[4, 2]);
    b.alloc("d", DType::U32, &[2, 1]);
    let (r, a) = (b.name("r"), b.name("a"));
    b.apply("ld.global.v2.f32", vec![r, a]);
    let ops = vec![
        b.name("d"),
        b.place("r", vec![columns(1, 2)]),
        b.place("r", vec![columns(0, 1)]),
    ];
    let hi_span = span_of(&ops[1]);
    b.apply("cvt.rn.f16x2.f32", ops);
    let diags = b.diagnostics();
    assert_eq!(diags.len(), 2, "{diags:#?}");
    assert_eq!(diags[0].span, hi_span);
    assert_eq!(
        diags[0].rendered(),
        "TK0214: repeat shape [4] of `r` does not match repeat shape [2] of `d`\n  \
         = note: all tensor operands of one `apply` share their repeat axes (every axis but the last)"
    );
    assert_eq!(diags[1].message, diags[0].message);
}

/// The fixed version of the same kernel compiles, at the default target's
/// PTX version.
#[test]
fn widen_pairs_compiles() {
    let mut b = Builder::new(Target::SM_90);
    b.tensor("packed", DType::U32, &[4, 1]);
    b.tensor("out", DType::F32, &[4, 2]);
    b.alloc("d", DType::U32, &[4, 1]);
    b.alloc("f", DType::F32, &[4, 2, 1]);
    let (d, packed) = (b.name("d"), b.name("packed"));
    b.apply("ld.global.b32", vec![d, packed]);
    let f = b.name("f");
    let view = b.place(
        "d",
        vec![ViewKind::View(DType::U16), ViewKind::Unsqueeze(-1)],
    );
    b.apply("cvt.f32.f16", vec![f, view]);
    let out = b.name("out");
    let f = b.place("f", vec![ViewKind::Reshape(vec![4, 2])]);
    b.apply("st.global.v2.f32", vec![out, f]);
    let compiled = compile(&b.kernel);
    assert_eq!(compiled.diagnostics, Vec::<Diagnostic>::new());
    assert_eq!(compiled.param_writes, [false, true]);
    let ptx = compiled.ptx.unwrap();
    assert!(ptx.contains(".version 7.8\n.target sm_90\n"), "{ptx}");
    assert_eq!(ptx.matches("cvt.f32.f16 ").count(), 8);
    assert_eq!(ptx.matches("st.global.v2.f32 ").count(), 4);
}

#[test]
fn wrong_carrier_width_names_both_widths() {
    let mut b = Builder::new(Target::SM_90);
    b.tensor("a", DType::F32, &[4, 2]);
    b.alloc("h", DType::U16, &[4, 2]);
    let (h, a) = (b.name("h"), b.name("a"));
    let h_span = span_of(&h);
    b.apply("ld.global.v2.f32", vec![h, a]);
    let diags = b.diagnostics();
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(diags[0].span, h_span);
    assert_eq!(
        diags[0].rendered(),
        "TK0217: operand `d` of `ld.global.v2.f32` is `.f32` with a 32-bit carrier, but this operand's dtype `u16` is 16-bit\n  \
         = note: `.f32` accepts `f32` or `u32`\n  \
         = help: `.view::<u32>()` would regroup the bits into 32-bit registers; adjust the final axis to 2 registers"
    );
}

#[test]
fn scalars_cannot_be_destinations_and_globals_are_not_registers() {
    let mut b = Builder::new(Target::SM_90);
    b.tensor("a", DType::F32, &[4, 2]);
    b.scalar("x", DType::F32);
    b.alloc("r", DType::F32, &[4, 2]);
    let (r, a) = (b.name("r"), b.name("a"));
    b.apply("ld.global.v2.f32", vec![r, a]);
    // `x` (a scalar) as destination, `a` (global) as a register source.
    let (x, a, lit) = (b.name("x"), b.name("a"), b.int(1));
    let (x_span, a_span, lit_span) = (span_of(&x), span_of(&a), span_of(&lit));
    b.apply("add.f32", vec![x, a, lit]);
    let diags = b.diagnostics();
    let rendered: Vec<(SpanId, String)> = diags.iter().map(|d| (d.span, d.rendered())).collect();
    assert_eq!(
        rendered,
        [
            (
                x_span,
                "TK0218: operand `d` of `add.f32` is a destination, but a scalar parameter `x: f32` cannot be written\n  \
                 = note: the form is `add.f32 d, a, b`\n  \
                 = help: write into a local tile (`alloc_local`)"
                    .to_string()
            ),
            (
                a_span,
                "TK0213: `a` is a global tensor, but operand `a` of `add.f32` is a register source\n  \
                 = note: the form is `add.f32 d, a, b`\n  \
                 = help: load the tensor into a local tile (`alloc_local`) with `ld.global` first"
                    .to_string()
            ),
            (
                lit_span,
                "TK0220: operand `b` of `add.f32`: `.f32` is a float type: write a float literal like `1.0`\n  \
                 = note: the form is `add.f32 d, a, b`"
                    .to_string()
            ),
        ]
    );
}

/// An fp8 opcode on an sm_80 kernel names the minimum target; all errors of
/// the kernel are reported together (the unknown opcode of a later
/// statement too).
#[test]
fn arch_floor_and_unknown_opcode_are_both_reported() {
    let mut b = Builder::new(Target::sm(80));
    b.tensor("a", DType::F32, &[2, 2]);
    b.alloc("r", DType::F32, &[2, 2]);
    b.alloc("q", DType::U16, &[2, 1]);
    let (r, a) = (b.name("r"), b.name("a"));
    b.apply("ld.global.v2.f32", vec![r, a]);
    let ops = vec![
        b.name("q"),
        b.place("r", vec![columns(1, 2)]),
        b.place("r", vec![columns(0, 1)]),
    ];
    let fp8 = b.apply("cvt.rn.satfinite.e4m3x2.f32", ops);
    let ops = vec![b.name("q"), b.name("q")];
    let typo = b.apply("mv.b16", ops);
    let diags = b.diagnostics();
    assert_eq!(diags.len(), 2, "{diags:#?}");
    assert_eq!(diags[0].span, fp8);
    assert_eq!(
        diags[0].rendered(),
        "TK0209: `cvt.rn.satfinite.e4m3x2.f32` requires sm_89 or newer (PTX ISA 8.1), but this kernel targets sm_80\n  \
         = help: raise the target with `#[tile_kernel(arch = \"sm_89\", ..)]`"
    );
    assert_eq!(diags[1].span, typo);
    assert_eq!(diags[1].code, Code::UNKNOWN_INSTRUCTION);
    assert_eq!(diags[1].message, "unknown PTX instruction `mv`");
    assert_eq!(diags[1].help, ["did you mean `mov`?"]);
}

#[test]
fn preserve_dst_needs_pred_and_a_written_destination() {
    let mut b = Builder::new(Target::SM_90);
    b.tensor("a", DType::F32, &[1, 1]);
    b.scalar("p", DType::Bool);
    b.alloc("r", DType::F32, &[1, 1]);
    b.alloc("s", DType::F32, &[1, 1]);
    b.alloc("t", DType::F32, &[1, 2]);
    let (r, a) = (b.name("r"), b.name("a"));
    b.apply("ld.global.f32", vec![r, a]);
    let flag = b.spans.next();
    let ops = vec![b.name("s"), b.name("r")];
    b.apply_with("mov.f32", ops, None, Some((true, flag)));
    let flag2 = b.spans.next();
    let ops = vec![b.place("t", vec![columns(1, 2)]), b.name("r")];
    let pred = Expr::Name("p".into(), b.spans.next());
    b.apply_with("mov.f32", ops, Some(pred), Some((true, flag2)));
    let diags = b.diagnostics();
    assert_eq!(diags.len(), 2, "{diags:#?}");
    assert_eq!(diags[0].span, flag);
    assert_eq!(
        diags[0].rendered(),
        "TK0304: `preserve_dst = true` needs `pred = ..`: without a predicate the destination is always written\n  \
         = help: add `pred = <bool parameter>` or remove `preserve_dst`"
    );
    assert_eq!(diags[1].span, flag2);
    assert_eq!(diags[1].code, Code::PRESERVE_DST_UNWRITTEN);
    assert_eq!(
        diags[1].message,
        "`preserve_dst = true` keeps the old value of `t` where `pred` is false, but `t[0, 1]` was never written before"
    );
}

#[test]
fn reading_an_unwritten_tile_is_an_error() {
    let mut b = Builder::new(Target::SM_90);
    b.tensor("out", DType::U32, &[4, 1]);
    b.alloc("d", DType::U32, &[4, 1]);
    let (out, d) = (b.name("out"), b.name("d"));
    let d_span = span_of(&d);
    b.apply("st.global.b32", vec![out, d]);
    let diags = b.diagnostics();
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].span, d_span);
    assert_eq!(
        diags[0].rendered(),
        "TK0302: `st.global.b32` reads `d[0, 0]`, which no earlier statement wrote\n  \
         = help: write `d` (for example with `ld.global` or `mov`) before reading it on every path to here"
    );
}

/// `.version` is the highest of the target's minimum and each used form's
/// floor (for the target).
#[test]
fn version_selection() {
    fn version(target: Target, opcode: &str) -> String {
        let mut b = Builder::new(target);
        b.tensor("a", DType::F32, &[1, 2]);
        b.tensor("out", DType::U16, &[1, 1]);
        b.alloc("r", DType::F32, &[1, 2]);
        b.alloc("q", DType::U16, &[1, 1]);
        let (r, a) = (b.name("r"), b.name("a"));
        b.apply("ld.global.v2.f32", vec![r, a]);
        let ops = if opcode.contains("e4m3x2") {
            vec![
                b.name("q"),
                b.place("r", vec![columns(1, 2)]),
                b.place("r", vec![columns(0, 1)]),
            ]
        } else {
            vec![b.name("q"), b.place("r", vec![columns(0, 1)])]
        };
        b.apply(opcode, ops);
        let (out, q) = (b.name("out"), b.name("q"));
        b.apply("st.global.b16", vec![out, q]);
        let compiled = compile(&b.kernel);
        assert_eq!(compiled.diagnostics, Vec::<Diagnostic>::new(), "{opcode}");
        let ptx = compiled.ptx.unwrap();
        let line = ptx.lines().find(|l| l.starts_with(".version")).unwrap();
        line.to_string()
    }
    let fp8 = "cvt.rn.satfinite.e4m3x2.f32";
    assert_eq!(version(Target::sm(89), fp8), ".version 8.1");
    assert_eq!(version(Target::SM_90, fp8), ".version 7.8");
    assert_eq!(version(Target::SM_90, "cvt.rn.f16.f32"), ".version 7.8");
    assert_eq!(
        version(Target::SM_90, "cvt.rn.satfinite.f16.f32"),
        ".version 8.1"
    );
    assert_eq!(version(Target::sm(80), "cvt.rn.f16.f32"), ".version 7.0");
    assert_eq!(
        version(Target::sm(80), "cvt.rn.relu.bf16.f32"),
        ".version 7.0"
    );
    assert_eq!(
        version(Target::sm(70), "cvt.rz.satfinite.f16.f32"),
        ".version 8.1"
    );
    assert_eq!(version(Target::sm(70), "cvt.rn.f16.f32"), ".version 6.0");
    assert_eq!(
        Target::sm(100).min_ptx_version(),
        Some(PtxVersion::new(8, 6))
    );
    assert_eq!(version(Target::sm(100), fp8), ".version 8.6");
}
