//! Comparison and selection: hand-derived PTX examples (unsigned vs
//! signed, NaN and the unordered operators, `.ftz`, `p|q`, `.BoolOp`, the
//! half pairs, every `set` result type, `selp`, `slct`), and property
//! tests against Rust's own comparisons.

use tile_kernel_interp::semantics::{Bits, compute, destination_lanes};
use tile_kernel_lowering::ptx::Usability;
use tile_kernel_lowering::ptx::resolve::legal_variants;
use tile_kernel_lowering::ptx::table::FORMS;

#[allow(dead_code)] // each test file uses part of it
mod support;
use support::{one, run};
use tile_kernel_testkit::Rng;

const FORMS_HERE: &[&str] = &[
    "setp",
    "setp.pair",
    "setp.bool",
    "setp.bool-pair",
    "setp.halves",
    "setp.halves-bool",
    "set",
    "set.bool",
    "set.to-half",
    "set.to-half-bool",
    "set.from-half",
    "set.from-half-bool",
    "selp",
    "slct",
];

fn setp(opcode: &str, a: Bits, b: Bits) -> bool {
    one("setp", opcode, &[a, b]) == 1
}

const F32_NAN: Bits = 0x7fc0_0000;
const F32_ONE: Bits = 0x3f80_0000;
const F32_NEG_ZERO: Bits = 0x8000_0000;
/// The smallest positive and negative f32 subnormals.
const F32_TINY: Bits = 1;
const F32_NEG_TINY: Bits = 0x8000_0001;

const CMP_OPS: &[&str] = &[
    "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
];

#[test]
fn every_variant_has_semantics_of_the_right_shape() {
    let mut rng = Rng::new(1);
    let mut variants = 0;
    for form in FORMS.iter().filter(|f| FORMS_HERE.contains(&f.id)) {
        for v in legal_variants(form) {
            if v.usability() != Usability::Yes {
                continue;
            }
            variants += 1;
            let c = compute(&v).unwrap_or_else(|| panic!("{}", v.opcode_text()));
            assert_eq!(c.outputs(), destination_lanes(&v));
            for _ in 0..20 {
                let inputs: Vec<Bits> = (0..c.inputs()).map(|_| rng.next_u64()).collect();
                let mut out = vec![0; c.outputs()];
                c.run(&inputs, &mut out);
                if v.form.id.starts_with("setp") {
                    assert!(out.iter().all(|&p| p <= 1), "{}", v.opcode_text());
                }
            }
        }
    }
    assert!(variants > 4000, "{variants}");
}

#[test]
fn signed_unsigned_and_bit_compares() {
    // 0xffffffff is -1 as .s32 but the largest .u32.
    assert!(setp("setp.lt.s32", 0xffff_ffff, 1));
    assert!(!setp("setp.lt.u32", 0xffff_ffff, 1));
    assert!(setp("setp.hi.u32", 0xffff_ffff, 1));
    assert!(setp("setp.lo.u16", 1, 0xffff));
    assert!(setp("setp.ls.u64", 5, 5));
    assert!(setp("setp.hs.u64", u64::MAX, 0));
    assert!(setp("setp.gt.s16", 0x7fff, 0x8000));
    assert!(setp("setp.ge.s64", 0, 1 << 63));
    assert!(setp("setp.eq.b16", 0x1_1234, 0x1234));
    assert!(setp("setp.ne.b64", 1 << 63, 0));
}

#[test]
fn nan_is_unordered() {
    for ty in ["f32", "f64"] {
        let (nan, one_) = if ty == "f32" {
            (F32_NAN, F32_ONE)
        } else {
            (0x7ff8_0000_0000_0000, 0x3ff0_0000_0000_0000)
        };
        for op in CMP_OPS {
            let opcode = format!("setp.{op}.{ty}");
            let with_nan = setp(&opcode, nan, one_);
            let expect = op.ends_with('u') || *op == "nan";
            assert_eq!(with_nan, expect, "{opcode} NaN, 1");
            assert_eq!(setp(&opcode, one_, nan), expect, "{opcode} 1, NaN");
        }
    }
    // ne is ordered: false on NaN; neu true.
    assert!(!setp("setp.ne.f32", F32_NAN, F32_NAN));
    assert!(setp("setp.neu.f32", F32_NAN, F32_NAN));
    // A signalling NaN is a NaN too.
    assert!(setp("setp.nan.f32", 0x7f80_0001, 0));
    assert!(setp("setp.num.f32", 0x7f80_0000, 0xff80_0000));
}

#[test]
fn float_orderings_zero_signs_and_ftz() {
    assert!(setp("setp.eq.f32", 0, F32_NEG_ZERO));
    assert!(setp("setp.lt.f32", 0xbf80_0000, F32_ONE));
    assert!(setp("setp.gt.f32", 0x7f80_0000, 0x7f7f_ffff));
    assert!(setp("setp.equ.f32", F32_ONE, F32_ONE));
    assert!(!setp("setp.ltu.f32", F32_ONE, F32_ONE));
    // Subnormals compare as themselves, or as zero with .ftz.
    assert!(setp("setp.gt.f32", F32_TINY, 0));
    assert!(!setp("setp.gt.ftz.f32", F32_TINY, 0));
    assert!(setp("setp.eq.ftz.f32", F32_NEG_TINY, F32_TINY));
    assert!(setp("setp.lt.f32", F32_NEG_TINY, 0));
    // f64 has no .ftz: its subnormals are ordinary.
    assert!(setp("setp.gt.f64", 1, 0));
    // f16: subnormal 0x0001, flushed with .ftz; bf16 compares exactly.
    assert!(setp("setp.gt.f16", 0x0001, 0x8000));
    assert!(setp("setp.eq.ftz.f16", 0x0001, 0x8000));
    assert!(setp("setp.lt.f16", 0xbc00, 0x3c00));
    assert!(setp("setp.nan.f16", 0x7c01, 0));
    assert!(setp("setp.gt.bf16", 0x0001, 0));
    assert!(setp("setp.eq.bf16", 0x3f80, 0x3f80));
    assert!(setp("setp.nan.bf16", 0x7fc0, 0));
    assert!(setp("setp.lt.bf16", 0xff80, 0xff7f));
}

#[test]
fn pairs_and_boolops() {
    // p|q: q is the complement of the comparison.
    assert_eq!(run("setp.pair", "setp.lt.s32", &[1, 2]), vec![1, 0]);
    assert_eq!(run("setp.pair", "setp.lt.s32", &[2, 1]), vec![0, 1]);
    // NaN: the ordered compare is false, so q is true.
    assert_eq!(
        run("setp.pair", "setp.eq.f32", &[F32_NAN, F32_NAN]),
        vec![0, 1]
    );
    for (t_inputs, t) in [([1u64, 2u64], true), ([2, 1], false)] {
        for c in [0u64, 1] {
            let (tb, cb) = (t, c == 1);
            let [a, b] = t_inputs;
            for (op, f) in [
                ("and", (|x: bool, y: bool| x && y) as fn(bool, bool) -> bool),
                ("or", |x, y| x || y),
                ("xor", |x, y| x ^ y),
            ] {
                let single = one("setp.bool", &format!("setp.lt.{op}.u32"), &[a, b, c]);
                assert_eq!(single, u64::from(f(tb, cb)), "setp.lt.{op}");
                let pair = run("setp.bool-pair", &format!("setp.lt.{op}.u32"), &[a, b, c]);
                assert_eq!(pair, vec![u64::from(f(tb, cb)), u64::from(f(!tb, cb))]);
            }
        }
    }
}

#[test]
fn half_pairs_give_p_from_the_low_halves() {
    // a = (hi 1.0, lo 2.0), b = (hi 2.0, lo 1.0).
    let (a, b) = (0x3c00_4000, 0x4000_3c00);
    assert_eq!(run("setp.halves", "setp.gt.f16x2", &[a, b]), vec![1, 0]);
    assert_eq!(run("setp.halves", "setp.lt.f16x2", &[a, b]), vec![0, 1]);
    assert_eq!(
        run("setp.halves", "setp.gt.bf16x2", &[0x3f80_4000, 0x4000_3f80]),
        vec![1, 0]
    );
    // NaN in the high half only.
    assert_eq!(
        run("setp.halves", "setp.equ.f16x2", &[0x7e00_3c00, 0x3c00_3c00]),
        vec![1, 1]
    );
    assert_eq!(
        run("setp.halves", "setp.eq.f16x2", &[0x7e00_3c00, 0x3c00_3c00]),
        vec![1, 0]
    );
    // Each half folded with c.
    assert_eq!(
        run("setp.halves-bool", "setp.gt.and.f16x2", &[a, b, 0]),
        vec![0, 0]
    );
    assert_eq!(
        run("setp.halves-bool", "setp.gt.or.f16x2", &[a, b, 1]),
        vec![1, 1]
    );
    assert_eq!(
        run("setp.halves-bool", "setp.gt.xor.f16x2", &[a, b, 1]),
        vec![0, 1]
    );
}

#[test]
fn set_results_by_type() {
    assert_eq!(one("set", "set.lt.u32.s32", &[0xffff_ffff, 0]), 0xffff_ffff);
    assert_eq!(one("set", "set.lt.s32.u32", &[0xffff_ffff, 0]), 0);
    assert_eq!(one("set", "set.eq.f32.f64", &[0, 1 << 63]), F32_ONE);
    assert_eq!(one("set", "set.nan.f32.f32", &[1, 2]), 0);
    assert_eq!(one("set.bool", "set.eq.or.f32.b16", &[1, 2, 1]), F32_ONE);
    assert_eq!(one("set.bool", "set.eq.xor.u32.b16", &[1, 1, 1]), 0);
    // Half results: 1.0 in the result format.
    assert_eq!(one("set.to-half", "set.gt.f16.s32", &[1, 0]), 0x3c00);
    assert_eq!(one("set.to-half", "set.gt.bf16.f32", &[F32_ONE, 0]), 0x3f80);
    assert_eq!(one("set.to-half", "set.gt.bf16.f32", &[0, F32_ONE]), 0);
    assert_eq!(one("set.to-half-bool", "set.gt.and.f16.u16", &[1, 0, 0]), 0);
    // Half sources: a mask of the result's width...
    assert_eq!(
        one("set.from-half", "set.lt.u16.f16", &[0xbc00, 0x3c00]),
        0xffff
    );
    assert_eq!(
        one("set.from-half", "set.lt.s32.bf16", &[0xbf80, 0x3f80]),
        0xffff_ffff
    );
    // ... or per half for a pair source: 0xffff / 0 into a .u32, 1.0 / 0.0 into a pair.
    let (a, b) = (0x3c00_4000, 0x4000_3c00);
    assert_eq!(
        one("set.from-half", "set.gt.u32.f16x2", &[a, b]),
        0x0000_ffff
    );
    assert_eq!(
        one("set.from-half", "set.lt.s32.f16x2", &[a, b]),
        0xffff_0000
    );
    assert_eq!(
        one("set.from-half", "set.gt.f16x2.f16x2", &[a, b]),
        0x0000_3c00
    );
    assert_eq!(
        one(
            "set.from-half",
            "set.ge.bf16x2.bf16x2",
            &[0x3f80_3f80, 0x3f80_3f80]
        ),
        0x3f80_3f80
    );
    assert_eq!(
        one("set.from-half-bool", "set.gt.or.f16x2.f16x2", &[a, b, 1]),
        0x3c00_3c00
    );
    assert_eq!(
        one("set.from-half-bool", "set.gt.and.u32.f16x2", &[a, b, 1]),
        0x0000_ffff
    );
}

#[test]
fn selp_and_slct() {
    assert_eq!(one("selp", "selp.b32", &[7, 9, 1]), 7);
    assert_eq!(one("selp", "selp.b32", &[7, 9, 0]), 9);
    assert_eq!(one("selp", "selp.u16", &[0x1_0007, 9, 1]), 7);
    assert_eq!(one("selp", "selp.f64", &[1, u64::MAX, 0]), u64::MAX);
    // slct: c >= 0 picks a.
    assert_eq!(one("slct", "slct.b32.s32", &[7, 9, 0]), 7);
    assert_eq!(one("slct", "slct.b32.s32", &[7, 9, 0xffff_ffff]), 9);
    assert_eq!(one("slct", "slct.u64.s32", &[7, 9, 0x7fff_ffff]), 7);
    assert_eq!(one("slct", "slct.f32.f32", &[7, 9, F32_ONE]), 7);
    assert_eq!(one("slct", "slct.f32.f32", &[7, 9, 0xbf80_0000]), 9);
    // -0.0 >= 0.0; NaN picks b.
    assert_eq!(one("slct", "slct.s16.f32", &[7, 9, F32_NEG_ZERO]), 7);
    assert_eq!(one("slct", "slct.s16.f32", &[7, 9, F32_NAN]), 9);
    assert_eq!(one("slct", "slct.s16.f32", &[7, 9, 0xffc0_0000]), 9);
    // A negative subnormal is negative, or -0.0 with .ftz.
    assert_eq!(one("slct", "slct.b64.f32", &[7, 9, F32_NEG_TINY]), 9);
    assert_eq!(one("slct", "slct.ftz.b64.f32", &[7, 9, F32_NEG_TINY]), 7);
}

#[test]
fn integer_compare_property() {
    let mut rng = Rng::new(2);
    for _ in 0..2000 {
        let (a, b) = (rng.next_u64(), rng.next_u64());
        let b = if rng.next_u64().is_multiple_of(4) {
            a
        } else {
            b
        };
        let (ua, ub) = (a as u32, b as u32);
        let (sa, sb) = (ua as i32, ub as i32);
        let cases: [(&str, bool); 12] = [
            ("setp.eq.u32", ua == ub),
            ("setp.ne.u32", ua != ub),
            ("setp.lt.u32", ua < ub),
            ("setp.lo.u32", ua < ub),
            ("setp.ls.u32", ua <= ub),
            ("setp.hi.u32", ua > ub),
            ("setp.hs.u32", ua >= ub),
            ("setp.lt.s32", sa < sb),
            ("setp.le.s32", sa <= sb),
            ("setp.gt.s32", sa > sb),
            ("setp.ge.s32", sa >= sb),
            ("setp.lt.s64", (a as i64) < (b as i64)),
        ];
        for (opcode, expect) in cases {
            assert_eq!(setp(opcode, a, b), expect, "{opcode} {a:#x} {b:#x}");
        }
    }
}

#[test]
fn float_compare_property() {
    let specials: &[u32] = &[
        0,
        0x8000_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0001,
        1,
        0x8000_0001,
        0x007f_ffff,
        0x0080_0000,
    ];
    let mut rng = Rng::new(3);
    for _ in 0..3000 {
        let mut pick = || {
            let r = rng.next_u64();
            if r.is_multiple_of(2) {
                specials[(r >> 8) as usize % specials.len()]
            } else {
                (r >> 16) as u32
            }
        };
        let (a, b) = (pick(), pick());
        for ftz in [false, true] {
            let value = |x: u32| {
                let f = f32::from_bits(x);
                if ftz && f.is_subnormal() { 0.0 } else { f }
            };
            let (x, y) = (value(a), value(b));
            let unordered = x.is_nan() || y.is_nan();
            let expect = [
                x == y,
                x != y && !unordered,
                x < y,
                x <= y,
                x > y,
                x >= y,
                unordered || x == y,
                unordered || x != y,
                unordered || x < y,
                unordered || x <= y,
                unordered || x > y,
                unordered || x >= y,
                !unordered,
                unordered,
            ];
            for (op, expect) in CMP_OPS.iter().zip(expect) {
                let opcode = if ftz {
                    format!("setp.{op}.ftz.f32")
                } else {
                    format!("setp.{op}.f32")
                };
                let got = setp(&opcode, u64::from(a), u64::from(b));
                assert_eq!(got, expect, "{opcode} {a:#x} {b:#x}");
            }
        }
    }
}
