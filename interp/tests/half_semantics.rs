//! The half family's semantics (`half.rs`): f16/bf16 and their pairs
//! against the `half` crate, the PTX special cases (canonical NaN, `.ftz`,
//! `.sat`, `.relu`, `.oob`, `min`/`max` flags), pairs computing each half
//! on its own, the approximate forms' documented bounds, and vectors
//! recorded on an H200.

use half::{bf16, f16};
use tile_kernel_interp::semantics::{Semantics, semantics};
use tile_kernel_lowering::ptx::resolve::legal_variants;
use tile_kernel_lowering::ptx::table::FORMS;

#[allow(dead_code)] // each test file uses part of it
mod support;
use support::{op, run_one as run};
use tile_kernel_testkit::Rng;

/// What this file's tests draw from the test kit's seeded [`Rng`].
trait Draws {
    fn bits16(&mut self) -> u64;
}

impl Draws for Rng {
    fn bits16(&mut self) -> u64 {
        self.next_u64() >> 48
    }
}

/// One of the two 16-bit types: its name and exact conversions.
#[derive(Clone, Copy)]
struct Ty {
    name: &'static str,
    to_f64: fn(u64) -> f64,
    /// Round to nearest even from an f32 (exact for one +, -, * of two
    /// values of the type: double rounding through f32 is innocuous).
    from_f32: fn(f32) -> u64,
    /// The smallest normal magnitude.
    min_normal: u64,
}

const F16: Ty = Ty {
    name: "f16",
    to_f64: |x| f16::from_bits(x as u16).to_f64(),
    from_f32: |x| u64::from(f16::from_f32(x).to_bits()),
    min_normal: 0x0400,
};

const BF16: Ty = Ty {
    name: "bf16",
    to_f64: |x| bf16::from_bits(x as u16).to_f64(),
    from_f32: |x| u64::from(bf16::from_f32(x).to_bits()),
    min_normal: 0x0080,
};

impl Ty {
    /// The PTX result for a host result: NaN canonical.
    fn expect(self, x: f32) -> u64 {
        if x.is_nan() {
            0x7fff
        } else {
            (self.from_f32)(x)
        }
    }

    /// The value of `x` nearest to the exact `v` (ties to even), found among
    /// the neighbours of a first guess (all values involved exact in f64).
    fn nearest(self, v: f64) -> u64 {
        let guess = (self.from_f32)(v as f32);
        let mut best = guess;
        for d in [-2i64, -1, 1, 2] {
            let c = (guess as i64 + d) as u64 & 0xffff;
            let (cv, bv) = ((self.to_f64)(c), (self.to_f64)(best));
            if cv.is_nan() || (cv < 0.0) != (v < 0.0) && v != 0.0 {
                continue;
            }
            let (dc, db) = ((cv - v).abs(), (bv - v).abs());
            if dc < db || (dc == db && c & 1 == 0) {
                best = c;
            }
        }
        best
    }
}

#[test]
fn add_sub_mul_round_like_the_half_crate() {
    let mut rng = Rng::new(7);
    for ty in [F16, BF16] {
        for name in ["add", "sub", "mul"] {
            let ops = [
                op(&format!("{name}.{}", ty.name)),
                op(&format!("{name}.rn.{}", ty.name)),
            ];
            let pair = op(&format!("{name}.{}x2", ty.name));
            for i in 0..100_000 {
                let a = rng.bits16();
                // Every other operand close to a (exponent within 2).
                let b = if i % 2 == 0 {
                    rng.bits16()
                } else {
                    a & 0xff80 ^ rng.bits16() & 0x807f ^ (rng.next_u64() % 3) << 7
                };
                let (x, y) = ((ty.to_f64)(a) as f32, (ty.to_f64)(b) as f32);
                let want = ty.expect(match name {
                    "add" => x + y,
                    "sub" => x - y,
                    _ => x * y,
                });
                for c in &ops {
                    assert_eq!(run(c, &[a, b]), want, "{name}.{} {a:#x} {b:#x}", ty.name);
                }
                // The pair computes each half on its own, in place.
                let (c2, d2) = (rng.bits16(), rng.bits16());
                let hi = run(&ops[0], &[c2, d2]);
                assert_eq!(run(&pair, &[c2 << 16 | a, d2 << 16 | b]), hi << 16 | want);
            }
        }
    }
}

#[test]
fn fma_rounds_once() {
    let mut rng = Rng::new(11);
    for ty in [F16, BF16] {
        let fma = op(&format!("fma.rn.{}", ty.name));
        let pair = op(&format!("fma.rn.{}x2", ty.name));
        for _ in 0..100_000 {
            // Magnitudes in [2^-6, 2^6): a*b+c is exact in f64.
            let v = |r: u64| -> u64 {
                let e = if ty.name == "f16" {
                    15 - 6 + r % 12
                } else {
                    127 - 6 + r % 12
                };
                let m = if ty.name == "f16" { 10 } else { 7 };
                (r >> 20 & 1) << 15 | e << m | (r >> 24) & ((1 << m) - 1)
            };
            let (a, b, c) = (v(rng.next_u64()), v(rng.next_u64()), v(rng.next_u64()));
            let exact = (ty.to_f64)(a) * (ty.to_f64)(b) + (ty.to_f64)(c);
            let want = if exact == 0.0 { 0 } else { ty.nearest(exact) };
            assert_eq!(
                run(&fma, &[a, b, c]),
                want,
                "fma.{} {a:#x} {b:#x} {c:#x}",
                ty.name
            );
            assert_eq!(run(&pair, &[a << 16, b << 16, c << 16]), want << 16);
        }
    }
}

#[test]
fn nan_results_are_canonical() {
    for ty in ["f16", "bf16"] {
        let nan = if ty == "f16" { 0xfe12u64 } else { 0xff81 };
        for opcode in [
            "add",
            "sub.rn",
            "mul",
            "neg",
            "abs",
            "min.NaN",
            "fma.rn",
            "fma.rn.relu",
        ] {
            let c = op(&format!("{opcode}.{ty}"));
            let s: Vec<u64> = (0..c.inputs())
                .map(|i| if i == 0 { nan } else { 0 })
                .collect();
            assert_eq!(run(&c, &s), 0x7fff, "{opcode}.{ty}");
        }
        // Invalid: inf - inf.
        let inf = if ty == "f16" { 0x7c00u64 } else { 0x7f80 };
        assert_eq!(run(&op(&format!("sub.{ty}")), &[inf, inf]), 0x7fff);
    }
}

#[test]
fn ftz_sat_relu() {
    let mul = op("mul.rn.ftz.f16");
    assert_eq!(run(&mul, &[0x0001, 0x3c00]), 0, "subnormal operand");
    assert_eq!(run(&mul, &[0x8400, 0x3800]), 0x8000, "subnormal result");
    assert_eq!(run(&op("mul.rn.f16"), &[0x8400, 0x3800]), 0x8200);
    // Tiny after rounding with an unbounded exponent (recorded on an H200).
    assert_eq!(run(&mul, &[0xb0f8, 0x8e70]), 0);
    assert_eq!(
        run(&mul, &[0x311d, 0x8e42]),
        0x8400,
        "rounds up to 2^-14: kept"
    );
    assert_eq!(
        run(&mul, &[0x1f7b, 0x2047]),
        0x0400,
        "rounds up to 2^-14: kept"
    );
    // .sat: [+0, 1], NaN and -0 give +0.
    let add = op("add.sat.f16");
    assert_eq!(run(&add, &[0x8000, 0x8000]), 0);
    assert_eq!(run(&add, &[0x3c00, 0x3c00]), 0x3c00);
    assert_eq!(run(&add, &[0x7e00, 0]), 0);
    assert_eq!(
        run(&op("fma.rn.sat.f16x2"), &[0x3c00_bc00, 0x3c00_3c00, 0]),
        0x3c00_0000
    );
    // .relu: negative (also -0) to +0, NaN stays canonical.
    let relu = op("fma.rn.relu.bf16");
    assert_eq!(run(&relu, &[0xbf80, 0x3f80, 0]), 0);
    assert_eq!(run(&relu, &[0x8000, 0x3f80, 0x8000]), 0);
    assert_eq!(run(&relu, &[0x3f80, 0x3f80, 0]), 0x3f80);
    assert_eq!(run(&relu, &[0xffc1, 0x3f80, 0]), 0x7fff);
    assert_eq!(run(&op("fma.rn.ftz.relu.f16"), &[0x8400, 0x3800, 0]), 0);
}

#[test]
fn oob_nan_zeroes_the_result() {
    for ty in ["f16", "bf16"] {
        let one = if ty == "f16" { 0x3c00u64 } else { 0x3f80 };
        for relu in ["", ".relu"] {
            let c = op(&format!("fma.rn.oob{relu}.{ty}"));
            for oob in [0x7ff7u64, 0xfff7] {
                assert_eq!(run(&c, &[oob, one, one]), 0);
                assert_eq!(run(&c, &[one, oob, 0x7e00]), 0, "whatever c is");
                // In c it is an ordinary NaN.
                assert_eq!(run(&c, &[one, one, oob]), 0x7fff);
            }
            // Other NaNs are ordinary NaNs.
            assert_eq!(run(&c, &[0x7fff, one, one]), 0x7fff);
            assert_eq!(run(&c, &[0x7ff6, one, one]), 0x7fff);
            let pair = op(&format!("fma.rn.oob{relu}.{ty}x2"));
            let got = run(
                &pair,
                &[one << 16 | 0x7ff7, one << 16 | one, one << 16 | one],
            );
            // 2.0 is 0x4000 in both types.
            assert_eq!(got, 0x4000 << 16, "{ty}x2");
        }
    }
}

#[test]
fn min_max_flags() {
    let min = op("min.f16");
    assert_eq!(run(&min, &[0x0000, 0x8000]), 0x8000);
    assert_eq!(run(&op("max.f16"), &[0x8000, 0x0000]), 0x0000);
    assert_eq!(run(&min, &[0x7e00, 0x3c00]), 0x3c00);
    assert_eq!(run(&min, &[0x7e00, 0xfe00]), 0x7fff);
    assert_eq!(run(&op("min.NaN.bf16"), &[0x7fc0, 0x3f80]), 0x7fff);
    assert_eq!(run(&op("min.ftz.f16"), &[0x0001, 0x8001]), 0x8000);
    assert_eq!(run(&op("min.f16"), &[0x0001, 0x8001]), 0x8001);
    let x = op("max.xorsign.abs.bf16");
    assert_eq!(run(&x, &[0xc000, 0x4040]), 0xc040);
    assert_eq!(run(&x, &[0xffc0, 0x0000]), 0x8000);
    let pair = op("min.xorsign.abs.f16x2");
    assert_eq!(run(&pair, &[0xc000_4000, 0xc200_c200]), 0x4000_c000);
}

#[test]
fn approximations_within_documented_bounds() {
    // Exhaustive over every 16-bit operand.
    /// Opcode, operand type, exact function, log2 of the error bound.
    type Case = (&'static str, Ty, fn(f64) -> f64, f64);
    let cases: [Case; 4] = [
        ("ex2.approx.f16", F16, f64::exp2, -9.9),
        ("ex2.approx.ftz.bf16", BF16, f64::exp2, -7.0),
        ("tanh.approx.f16", F16, f64::tanh, -10.0),
        ("tanh.approx.bf16", BF16, f64::tanh, -7.0),
    ];
    for (opcode, ty, f, bound) in cases {
        let c = op(opcode);
        let pair = op(&format!("{opcode}x2"));
        for a in 0..=0xffffu64 {
            let got = run(&c, &[a]);
            assert_eq!(
                run(&pair, &[a << 16 | a]),
                got << 16 | got,
                "{opcode} {a:#x}"
            );
            let x = (ty.to_f64)(a);
            if x.is_nan() {
                assert_eq!(got, 0x7fff, "{opcode} {a:#x}");
                continue;
            }
            let want = f(x);
            let g = (ty.to_f64)(got);
            let tiny = want.abs() < (ty.to_f64)(ty.min_normal);
            if want.is_infinite() || g.is_infinite() || tiny || want == 0.0 {
                continue;
            }
            assert!(
                ((g - want) / want).abs() <= 2f64.powf(bound),
                "{opcode} {a:#x}: {g} vs {want}"
            );
        }
        // Specials.
        let t = |x: u64| run(&c, &[x]);
        let (one, inf) = if ty.name == "f16" {
            (0x3c00, 0x7c00)
        } else {
            (0x3f80, 0x7f80)
        };
        if opcode.starts_with("ex2") {
            assert_eq!(t(0), one);
            assert_eq!(t(0x8000), one);
            assert_eq!(t(inf | 0x8000), 0);
            assert_eq!(t(inf), inf);
        } else {
            assert_eq!(t(0x8000), 0x8000);
            assert_eq!(t(inf), one);
            assert_eq!(t(inf | 0x8000), one | 0x8000);
        }
    }
    // ex2.approx.ftz.bf16 flushes subnormal operands and results.
    let ex2 = op("ex2.approx.ftz.bf16");
    assert_eq!(run(&ex2, &[0x0001]), 0x3f80);
    assert_eq!(run(&ex2, &[0xc300]), 0, "2^-128 is subnormal in bf16");
}

#[test]
fn every_variant_masks_its_outputs_and_never_panics() {
    let ids = [
        "add.half",
        "sub.half",
        "mul.half",
        "fma.half",
        "fma.half-oob",
        "neg.half",
        "abs.half",
        "min.half",
        "max.half",
        "ex2.half",
        "tanh.half",
    ];
    let mut rng = Rng::new(5);
    for form in FORMS.iter().filter(|f| ids.contains(&f.id)) {
        for m in legal_variants(form) {
            let Ok(Semantics::Compute(c)) = semantics(&m) else {
                panic!("{}", m.opcode_text());
            };
            let width = m.operands()[0].ty.carrier_bits();
            let mut d = vec![0u64; c.outputs()];
            for _ in 0..3000 {
                let s: Vec<u64> = (0..c.inputs()).map(|_| rng.next_u64()).collect();
                c.run(&s, &mut d);
                assert!(
                    d[0] < 1 << width,
                    "{} {s:x?} -> {:#x}",
                    m.opcode_text(),
                    d[0]
                );
            }
        }
    }
}

/// Results recorded on an H200 (sm_90, driver 580, ptxas 13.0): opcode,
/// source lanes, destination.
const GPU: &[(&str, &[u64], u64)] = &[
    ("add.f16", &[0x7b15, 0x77b9], 0x7c00),
    ("add.f16", &[0xc380, 0xb640], 0xc424),
    ("add.f16", &[0x346, 0x7fda], 0x7fff),
    ("add.f16", &[0x60c0, 0x948b], 0x60c0),
    ("add.f16", &[0x6f4a, 0x8bba], 0x6f4a),
    ("sub.ftz.sat.f16x2", &[0x81448c0c, 0x8439930c], 0x4391106),
    ("sub.ftz.sat.f16x2", &[0x1ceac259, 0x31d88817], 0x0),
    ("sub.ftz.sat.f16x2", &[0x2000200, 0x800fc12], 0x0),
    ("sub.ftz.sat.f16x2", &[0xccc03f40, 0xbc00c3c0], 0x3c00),
    ("sub.ftz.sat.f16x2", &[0xfcc260f6, 0x77bc6830], 0x0),
    ("mul.rn.ftz.f16", &[0x443e, 0x80f1], 0x8000),
    ("mul.rn.ftz.f16", &[0x313b, 0x8e1e], 0x8400),
    ("mul.rn.ftz.f16", &[0xc840, 0x77], 0x8000),
    ("mul.rn.ftz.f16", &[0xcec5, 0x8028], 0x0),
    ("mul.rn.ftz.f16", &[0xc825, 0x7c], 0x8000),
    ("add.bf16", &[0x7f7f, 0x3f00], 0x7f7f),
    ("add.bf16", &[0xbf80, 0xbf7f], 0xc000),
    ("add.bf16", &[0x802a, 0x92], 0x68),
    ("add.bf16", &[0xbe5a, 0x3d5e], 0xbe22),
    ("add.bf16", &[0xb7c8, 0xc70c], 0xc70c),
    ("mul.bf16x2", &[0x3f807fff, 0x1f003fff], 0x1f007fff),
    ("mul.bf16x2", &[0x4428be30, 0xbc6741b3], 0xc118c076),
    ("mul.bf16x2", &[0x20007f7f, 0x7f7f0000], 0x5fff0000),
    ("mul.bf16x2", &[0x47f2c4e0, 0xb8a93bf6], 0xc120c157),
    ("mul.bf16x2", &[0x3e93721b, 0x594ee6b3], 0x586dff80),
    ("fma.rn.ftz.sat.f16", &[0x4000, 0xfc00, 0x3fff], 0x0),
    ("fma.rn.ftz.sat.f16", &[0x7fff, 0x3e00, 0x1], 0x0),
    ("fma.rn.ftz.sat.f16", &[0x7e00, 0x3c01, 0x1000], 0x0),
    ("fma.rn.ftz.sat.f16", &[0xcac0, 0x312e, 0x8000], 0x0),
    ("fma.rn.ftz.sat.f16", &[0x910f, 0x4620, 0x95c1], 0x0),
    ("fma.rn.relu.bf16", &[0xc000, 0x3f00, 0xff80], 0x0),
    ("fma.rn.relu.bf16", &[0x3f80, 0x3f80, 0x2000], 0x3f80),
    ("fma.rn.relu.bf16", &[0x3fc0, 0x7f, 0xbf7f], 0x0),
    ("fma.rn.relu.bf16", &[0x4579, 0x3d59, 0xc351], 0x4004),
    ("fma.rn.relu.bf16", &[0xbb38, 0x43f8, 0x7f81], 0x7fff),
    (
        "fma.rn.oob.f16x2",
        &[0x3a001000, 0x56400400, 0x42480001],
        0x54e20002,
    ),
    (
        "fma.rn.oob.f16x2",
        &[0x3bff1000, 0x13fff, 0x3800fe34],
        0x38007fff,
    ),
    (
        "fma.rn.oob.f16x2",
        &[0x8001fc00, 0x183ff, 0x80015640],
        0x80017c00,
    ),
    (
        "fma.rn.oob.f16x2",
        &[0x2560cca0, 0xd40bab4d, 0x7c017bff],
        0x7fff7bff,
    ),
    (
        "fma.rn.oob.f16x2",
        &[0xb1dd36ba, 0xbdc2fef7, 0x2e113200],
        0x35bd7fff,
    ),
    ("fma.rn.oob.relu.bf16", &[0x3fc0, 0x3f81, 0x807f], 0x3fc1),
    ("fma.rn.oob.relu.bf16", &[0x7f80, 0x1f80, 0xbf7f], 0x7f80),
    ("fma.rn.oob.relu.bf16", &[0x0, 0x7fc0, 0x7f7f], 0x7fff),
    ("fma.rn.oob.relu.bf16", &[0xb757, 0x4583, 0x3730], 0x0),
    ("fma.rn.oob.relu.bf16", &[0xe591, 0x7919, 0x8224], 0x0),
    ("neg.ftz.f16", &[0x8d64], 0xd64),
    ("neg.ftz.f16", &[0x4000], 0xc000),
    ("neg.ftz.f16", &[0x8646], 0x646),
    ("neg.ftz.f16", &[0x438], 0x8438),
    ("neg.ftz.f16", &[0x57a6], 0xd7a6),
    ("abs.bf16x2", &[0x803fff], 0x803fff),
    ("abs.bf16x2", &[0xc9b6dd38], 0x49b65d38),
    ("abs.bf16x2", &[0x20000001], 0x20000001),
    ("abs.bf16x2", &[0xbf5046fc], 0x3f5046fc),
    ("abs.bf16x2", &[0x4098450f], 0x4098450f),
    ("min.NaN.f16", &[0x3c00, 0x4248], 0x3c00),
    ("min.NaN.f16", &[0x3a00, 0x83ff], 0x83ff),
    ("min.NaN.f16", &[0xd323, 0x1667], 0xd323),
    ("min.NaN.f16", &[0x7cae, 0x85fe], 0x7fff),
    ("min.NaN.f16", &[0xf3c, 0x8e88], 0x8e88),
    (
        "max.ftz.xorsign.abs.f16x2",
        &[0x48957ff9, 0x3414842b],
        0x4895842b,
    ),
    (
        "max.ftz.xorsign.abs.f16x2",
        &[0x7bfffe34, 0xfe340000],
        0xfbff8000,
    ),
    (
        "max.ftz.xorsign.abs.f16x2",
        &[0x1407d20, 0xf9a28689],
        0xf9a28689,
    ),
    (
        "max.ftz.xorsign.abs.f16x2",
        &[0xc0fcbaeb, 0x3c3dc3ab],
        0xc0fc43ab,
    ),
    (
        "max.ftz.xorsign.abs.f16x2",
        &[0x4a40bb80, 0x494038c0],
        0x4a40bb80,
    ),
    ("min.xorsign.abs.bf16", &[0xffc0, 0x8000], 0x0),
    ("min.xorsign.abs.bf16", &[0x7f81, 0x4049], 0x4049),
    ("min.xorsign.abs.bf16", &[0xc72f, 0xc2ca], 0x42ca),
    ("min.xorsign.abs.bf16", &[0xc8f8, 0x3713], 0xb713),
    ("min.xorsign.abs.bf16", &[0x1d2, 0x8256], 0x81d2),
    ("max.NaN.bf16x2", &[0x4180c0e0, 0xc0e04100], 0x41804100),
    ("max.NaN.bf16x2", &[0x7190f57, 0x6a5b7ab8], 0x6a5b7ab8),
    ("max.NaN.bf16x2", &[0xc8ee41d4, 0x37fd3d2e], 0x37fd41d4),
    ("max.NaN.bf16x2", &[0x81a601e2, 0x80c98252], 0x80c901e2),
    ("max.NaN.bf16x2", &[0x449abb9a, 0xc00e3ecf], 0x449a3ecf),
];

#[test]
fn recorded_gpu_results() {
    for (opcode, sources, want) in GPU {
        assert_eq!(run(&op(opcode), sources), *want, "{opcode} {sources:x?}");
    }
}
