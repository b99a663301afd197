//! The float family's semantics (`float.rs`, `approx.rs`): f32/f64 against
//! the host's native IEEE operations and an independent directed-rounding
//! oracle, the PTX special cases (NaN rules, `.ftz`, `.sat`, `min`/`max`,
//! `testp`, `copysign`), the approximate forms' documented error bounds,
//! the floating-point atomics, and vectors recorded on an H200.

use tile_kernel_interp::semantics::{Compute, Semantics, semantics};
use tile_kernel_lowering::ptx::resolve::legal_variants;
use tile_kernel_lowering::ptx::table::FORMS;

#[allow(dead_code)] // each test file uses part of it
mod support;
use support::{op, run_one as run, usable_variant as variant};
use tile_kernel_testkit::Rng;

/// What this file's tests draw from the test kit's seeded [`Rng`].
trait Draws {
    fn f32(&mut self) -> u32;
    fn f32_near(&mut self, x: u32) -> u32;
    fn f64(&mut self) -> u64;
}

impl Draws for Rng {
    /// f32 bits: uniform bits, mid-range values, tiny values, specials.
    fn f32(&mut self) -> u32 {
        let r = self.next_u64();
        let sign = ((r >> 63) as u32) << 31;
        let mant = (r >> 20) as u32 & 0x7f_ffff;
        match r % 8 {
            0 | 1 => r as u32,
            2..=4 => sign | ((127 - 20 + (r >> 8) % 41) as u32) << 23 | mant,
            5 => sign | (((r >> 8) % 4) as u32) << 23 | mant,
            6 => sign | ((127 - 2 + (r >> 8) % 5) as u32) << 23 | (mant & 0x7f_f000),
            _ => SPECIALS_F32[(r >> 8) as usize % SPECIALS_F32.len()],
        }
    }

    /// An f32 near `x` (exponent within 2): cancellation and rounding cases.
    fn f32_near(&mut self, x: u32) -> u32 {
        let r = self.next_u64();
        let e = ((x >> 23) & 0xff) as i64 + (r % 5) as i64 - 2;
        let e = e.clamp(1, 254) as u32;
        ((r >> 32) as u32 & 0x8000_0000) | e << 23 | (r >> 8) as u32 & 0x7f_ffff
    }

    /// f64 bits, the same mix as [`Rng::f32`].
    fn f64(&mut self) -> u64 {
        let r = self.next_u64();
        let sign = r & 1 << 63;
        let mant = self.next_u64() & 0xf_ffff_ffff_ffff;
        match r % 8 {
            0 | 1 => self.next_u64(),
            2..=4 => sign | (1023 - 40 + (r >> 8) % 81) << 52 | mant,
            5 => sign | ((r >> 8) % 4) << 52 | mant,
            6 => sign | (1023 - 2 + (r >> 8) % 5) << 52 | (mant & !0xff_ffff_ffff),
            _ => SPECIALS_F64[(r >> 8) as usize % SPECIALS_F64.len()],
        }
    }
}

const SPECIALS_F32: &[u32] = &[
    0,
    0x8000_0000,
    1,
    0x8000_0001,
    0x7f_ffff,
    0x807f_ffff,
    0x80_0000,
    0x8080_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0000,
    0x7fff_ffff,
    0x7f80_0001,
    0xff81_2345,
    0x3f7f_ffff,
];

const SPECIALS_F64: &[u64] = &[
    0,
    1 << 63,
    1,
    0x8000_0000_0000_0001,
    0x000f_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0x7fef_ffff_ffff_ffff,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0xfff8_1234_5678_9abc,
    0x7ff0_0000_0000_0001,
];

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

fn is_nan64(x: u64) -> bool {
    x & !(1 << 63) > 0x7ff0_0000_0000_0000
}

// ---------------------------------------------------------------- rn vs host

#[test]
fn f32_rn_matches_the_host() {
    let mut rng = Rng::new(0x1234_5678);
    let add = [op("add.f32"), op("add.rn.f32")];
    let sub = op("sub.rn.f32");
    let mul = [op("mul.f32"), op("mul.rn.f32")];
    let div = op("div.rn.f32");
    let fma = [op("fma.rn.f32"), op("mad.rn.f32")];
    let sqrt = op("sqrt.rn.f32");
    let rcp = op("rcp.rn.f32");
    let canon = |x: f32| {
        if x.is_nan() {
            0x7fff_ffff
        } else {
            u64::from(x.to_bits())
        }
    };
    for _ in 0..200_000 {
        let a = rng.f32();
        let b = if rng.next_u64() & 1 == 0 {
            rng.f32()
        } else {
            rng.f32_near(a)
        };
        let c = rng.f32();
        let (x, y, z) = (f(a), f(b), f(c));
        let s = [u64::from(a), u64::from(b), u64::from(c)];
        for add in &add {
            assert_eq!(run(add, &s[..2]), canon(x + y), "add {a:#x} {b:#x}");
        }
        assert_eq!(run(&sub, &s[..2]), canon(x - y), "sub {a:#x} {b:#x}");
        for mul in &mul {
            assert_eq!(run(mul, &s[..2]), canon(x * y), "mul {a:#x} {b:#x}");
        }
        assert_eq!(run(&div, &s[..2]), canon(x / y), "div {a:#x} {b:#x}");
        for fma in &fma {
            let want = canon(x.mul_add(y, z));
            assert_eq!(run(fma, &s), want, "fma {a:#x} {b:#x} {c:#x}");
        }
        assert_eq!(run(&sqrt, &s[..1]), canon(x.sqrt()), "sqrt {a:#x}");
        assert_eq!(run(&rcp, &s[..1]), canon(1.0 / x), "rcp {a:#x}");
    }
}

/// The f64 NaN rule: the first NaN operand in the hardware's preference
/// order, quieted; an invalid operation gives `0xfff8000000000000`.
fn f64_expect(host: f64, preferred: &[u64]) -> u64 {
    if let Some(n) = preferred.iter().find(|&&x| is_nan64(x)) {
        n | 1 << 51
    } else if host.is_nan() {
        0xfff8_0000_0000_0000
    } else {
        host.to_bits()
    }
}

#[test]
fn f64_rn_matches_the_host() {
    let mut rng = Rng::new(0x9abc_def0);
    let add = op("add.rn.f64");
    let sub = op("sub.f64");
    let mul = op("mul.rn.f64");
    let div = op("div.rn.f64");
    let fma = [op("fma.rn.f64"), op("mad.rn.f64")];
    let sqrt = op("sqrt.rn.f64");
    let rcp = op("rcp.rn.f64");
    for _ in 0..200_000 {
        let (a, b, c) = (rng.f64(), rng.f64(), rng.f64());
        let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
        assert_eq!(
            run(&add, &[a, b]),
            f64_expect(x + y, &[b, a]),
            "add {a:#x} {b:#x}"
        );
        assert_eq!(
            run(&sub, &[a, b]),
            f64_expect(x - y, &[b, a]),
            "sub {a:#x} {b:#x}"
        );
        assert_eq!(
            run(&mul, &[a, b]),
            f64_expect(x * y, &[b, a]),
            "mul {a:#x} {b:#x}"
        );
        assert_eq!(
            run(&div, &[a, b]),
            f64_expect(x / y, &[a, b]),
            "div {a:#x} {b:#x}"
        );
        for fma in &fma {
            let want = f64_expect(x.mul_add(y, z), &[b, c, a]);
            assert_eq!(run(fma, &[a, b, c]), want, "fma {a:#x} {b:#x} {c:#x}");
        }
        assert_eq!(run(&sqrt, &[a]), f64_expect(x.sqrt(), &[a]), "sqrt {a:#x}");
        assert_eq!(run(&rcp, &[a]), f64_expect(1.0 / x, &[a]), "rcp {a:#x}");
    }
}

// ------------------------------------------------------- directed rounding

/// The rounding directions, as PTX tokens.
const MODES: [&str; 4] = ["rn", "rz", "rm", "rp"];

/// `s + e` (an f64 and the exact sign of a tiny remainder `e`, |e| below
/// half an ulp of `s`) rounded to f32 in `mode`: an oracle independent of
/// the interpreter's rounding core.
fn round_f32(s: f64, e: i32, mode: &str) -> u32 {
    // The f32 neighbours below and above the exact value.
    let near = s as f32;
    let (mut lo, mut hi) = (near, near);
    let above = f64::from(near) > s || (f64::from(near) == s && e < 0);
    let below = f64::from(near) < s || (f64::from(near) == s && e > 0);
    if above {
        lo = near.next_down();
    }
    if below {
        hi = near.next_up();
    }
    if lo == hi {
        return near.to_bits();
    }
    // Overflow: the neighbours of a value beyond the largest finite.
    if near.is_infinite() {
        if near > 0.0 {
            lo = f32::MAX;
        } else {
            hi = f32::MIN;
        }
    }
    let negative = s < 0.0 || (s == 0.0 && e < 0);
    let pick = match mode {
        "rz" => {
            if negative {
                hi
            } else {
                lo
            }
        }
        "rm" => lo,
        "rp" => hi,
        _ => {
            let mid = (f64::from(lo) + f64::from(hi)) / 2.0;
            if lo.is_infinite() || hi.is_infinite() {
                near
            } else if s < mid || (s == mid && e < 0) {
                lo
            } else if s > mid || (s == mid && e > 0) {
                hi
            } else if lo.to_bits() & 1 == 0 {
                lo
            } else {
                hi
            }
        }
    };
    pick.to_bits()
}

/// The sign of `x` as -1, 0 or 1.
fn sign(x: f64) -> i32 {
    if x > 0.0 {
        1
    } else if x < 0.0 {
        -1
    } else {
        0
    }
}

/// `a + b` as an f64 and the sign of its rounding error (TwoSum).
fn two_sum(a: f64, b: f64) -> (f64, i32) {
    let s = a + b;
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    (s, sign(err))
}

#[test]
fn f32_directed_rounding_matches_an_independent_oracle() {
    let mut rng = Rng::new(0x5555_aaaa);
    let ops: Vec<_> = MODES
        .iter()
        .map(|m| {
            (
                *m,
                op(&format!("add.{m}.f32")),
                op(&format!("mul.{m}.f32")),
                op(&format!("fma.{m}.f32")),
                op(&format!("div.{m}.f32")),
                op(&format!("sqrt.{m}.f32")),
            )
        })
        .collect();
    let mut checked = 0;
    for _ in 0..100_000 {
        let a = rng.f32();
        let b = if rng.next_u64() & 1 == 0 {
            rng.f32()
        } else {
            rng.f32_near(a)
        };
        let c = rng.f32();
        let (x, y, z) = (f64::from(f(a)), f64::from(f(b)), f64::from(f(c)));
        if [x, y, z].iter().any(|v| !v.is_finite()) {
            continue;
        }
        let s = [u64::from(a), u64::from(b), u64::from(c)];
        for (mode, add, mul, fma, div, sqrt) in &ops {
            // Exact zero sums: +0, or -0 toward minus infinity.
            let (sum, e) = two_sum(x, y);
            if sum != 0.0 || e != 0 {
                let want = round_f32(sum, e, mode);
                assert_eq!(
                    run(add, &s[..2]),
                    u64::from(want),
                    "add.{mode} {a:#x} {b:#x}"
                );
            }
            let p = x * y; // exact in f64
            if p != 0.0 {
                let want = round_f32(p, 0, mode);
                assert_eq!(
                    run(mul, &s[..2]),
                    u64::from(want),
                    "mul.{mode} {a:#x} {b:#x}"
                );
                let (sum, e) = two_sum(p, z);
                if sum != 0.0 && sum.is_finite() {
                    let want = round_f32(sum, e, mode);
                    let got = run(fma, &s);
                    assert_eq!(got, u64::from(want), "fma.{mode} {a:#x} {b:#x} {c:#x}");
                }
            }
            if y != 0.0 && x != 0.0 {
                let q = x / y;
                let r = (-q).mul_add(y, x); // exact remainder
                let want = round_f32(q, sign(r) * sign(y), mode);
                assert_eq!(
                    run(div, &s[..2]),
                    u64::from(want),
                    "div.{mode} {a:#x} {b:#x}"
                );
            }
            if x > 0.0 {
                let q = x.sqrt();
                let r = (-q).mul_add(q, x);
                let want = round_f32(q, sign(r), mode);
                assert_eq!(run(sqrt, &s[..1]), u64::from(want), "sqrt.{mode} {a:#x}");
            }
            checked += 1;
        }
    }
    assert!(checked > 300_000);
}

#[test]
fn exact_zero_sums_take_the_sign_of_the_rounding() {
    for mode in MODES {
        let add = op(&format!("add.{mode}.f32"));
        let want = if mode == "rm" { 0x8000_0000 } else { 0 };
        assert_eq!(run(&add, &[0x3f80_0000, 0xbf80_0000]), want, "{mode}");
        let add = op(&format!("add.{mode}.f64"));
        let want = if mode == "rm" { 1 << 63 } else { 0 };
        assert_eq!(
            run(&add, &[0x3ff0_0000_0000_0000, 0xbff0_0000_0000_0000]),
            want,
            "{mode}"
        );
    }
}

#[test]
fn f64_directed_rounding_brackets_the_exact_result() {
    let mut rng = Rng::new(0x7777);
    let names = ["add", "sub", "mul", "div", "fma", "sqrt"];
    for name in names {
        let ops: Vec<Compute> = MODES
            .iter()
            .map(|m| op(&format!("{name}.{m}.f64")))
            .collect();
        let arity = ops[0].inputs();
        for _ in 0..20_000 {
            let s: Vec<u64> = (0..arity).map(|_| rng.f64()).collect();
            let r: Vec<u64> = ops.iter().map(|o| run(o, &s)).collect();
            let v: Vec<f64> = r.iter().map(|&x| f64::from_bits(x)).collect();
            let (rn, rz, rm, rp) = (v[0], v[1], v[2], v[3]);
            if rn.is_nan() {
                assert!(v.iter().all(|x| x.is_nan()), "{name} {s:x?}");
                continue;
            }
            // rm <= rp, at most one ulp apart; rn and rz are one of the two.
            assert!(rm <= rp, "{name} {s:x?}: {r:x?}");
            if rm.is_finite() && rp.is_finite() {
                assert!(rp == rm || rm.next_up() == rp, "{name} {s:x?}: {r:x?}");
            }
            assert!(rn == rm || rn == rp, "{name} {s:x?}: {r:x?}");
            let toward_zero = if rm >= 0.0 { rm } else { rp };
            assert!(
                rz == toward_zero || (rz == 0.0 && rm == 0.0),
                "{name} {s:x?}: {r:x?}"
            );
        }
    }
}

// ------------------------------------------------------------- special cases

#[test]
fn f32_nan_results_are_canonical() {
    let nans = [
        0x7fc0_0000u64,
        0xffc0_0000,
        0x7f80_0001,
        0xff81_2345,
        0x7fc1_2345,
    ];
    for opcode in [
        "add.f32",
        "sub.rz.f32",
        "mul.rp.ftz.f32",
        "div.rn.f32",
        "div.full.f32",
    ] {
        let c = op(opcode);
        for n in nans {
            assert_eq!(run(&c, &[n, 0x3f80_0000]), 0x7fff_ffff, "{opcode}");
            assert_eq!(run(&c, &[0x3f80_0000, n]), 0x7fff_ffff, "{opcode}");
        }
    }
    for opcode in [
        "neg.f32",
        "abs.f32",
        "neg.ftz.f32",
        "sqrt.rn.f32",
        "rcp.approx.f32",
        "ex2.approx.f32",
    ] {
        let c = op(opcode);
        for n in nans {
            assert_eq!(run(&c, &[n]), 0x7fff_ffff, "{opcode} {n:#x}");
        }
    }
    // Invalid operations.
    assert_eq!(
        run(&op("add.f32"), &[0x7f80_0000, 0xff80_0000]),
        0x7fff_ffff
    );
    assert_eq!(run(&op("mul.rz.f32"), &[0, 0xff80_0000]), 0x7fff_ffff);
    assert_eq!(
        run(&op("fma.rn.f32"), &[0, 0x7f80_0000, 0x3f80_0000]),
        0x7fff_ffff
    );
    assert_eq!(run(&op("sqrt.rn.f32"), &[0xbf80_0000]), 0x7fff_ffff);
    assert_eq!(run(&op("div.rp.f32"), &[0, 0x8000_0000]), 0x7fff_ffff);
}

#[test]
fn f64_nans_propagate_quieted_in_the_hardware_order() {
    let (qa, qb, qc) = (
        0x7ff8_0000_0000_00aau64,
        0xfff8_0000_0000_00bb,
        0x7ff8_0000_0000_00cc,
    );
    let snan = 0x7ff0_0000_0000_0001u64;
    let one = 0x3ff0_0000_0000_0000u64;
    // add/sub/mul: b first; div: a first; fma: b, c, a.
    assert_eq!(run(&op("add.f64"), &[qa, qb]), qb);
    assert_eq!(run(&op("sub.rz.f64"), &[qa, qb]), qb);
    assert_eq!(run(&op("mul.rm.f64"), &[qa, qb]), qb);
    assert_eq!(run(&op("div.rn.f64"), &[qa, qb]), qa);
    assert_eq!(run(&op("fma.rn.f64"), &[qa, qb, qc]), qb);
    assert_eq!(run(&op("fma.rp.f64"), &[qa, one, qc]), qc);
    assert_eq!(run(&op("mad.rn.f64"), &[qa, one, one]), qa);
    // Signaling NaNs are quieted; `sub` does not flip a NaN's sign.
    assert_eq!(run(&op("add.f64"), &[one, snan]), snan | 1 << 51);
    assert_eq!(run(&op("sub.f64"), &[one, snan]), snan | 1 << 51);
    assert_eq!(run(&op("sqrt.rn.f64"), &[snan]), snan | 1 << 51);
    // neg/abs keep a NaN's sign (quieted).
    assert_eq!(run(&op("neg.f64"), &[qb]), qb);
    assert_eq!(run(&op("abs.f64"), &[qb]), qb);
    assert_eq!(run(&op("neg.f64"), &[snan]), snan | 1 << 51);
    // Invalid operations give 0xfff8000000000000.
    let inf = 0x7ff0_0000_0000_0000u64;
    assert_eq!(
        run(&op("add.f64"), &[inf, inf | 1 << 63]),
        0xfff8_0000_0000_0000
    );
    assert_eq!(run(&op("mul.rz.f64"), &[0, inf]), 0xfff8_0000_0000_0000);
    assert_eq!(run(&op("div.rn.f64"), &[0, 0]), 0xfff8_0000_0000_0000);
    assert_eq!(
        run(&op("sqrt.rn.f64"), &[one | 1 << 63]),
        0xfff8_0000_0000_0000
    );
    // min/max with both operands NaN: b.
    assert_eq!(run(&op("min.f64"), &[qa, qb]), qb);
    assert_eq!(run(&op("max.f64"), &[qa, snan]), snan | 1 << 51);
}

#[test]
fn ftz_flushes_subnormal_operands_and_tiny_results() {
    let mul = op("mul.rn.ftz.f32");
    // Subnormal operands count as zeros of their sign.
    assert_eq!(run(&mul, &[0x0000_0001, 0x3f80_0000]), 0);
    assert_eq!(run(&mul, &[0x8000_0001, 0x3f80_0000]), 0x8000_0000);
    assert_eq!(run(&op("add.ftz.f32"), &[0x007f_ffff, 0x8000_0000]), 0);
    // A subnormal result is flushed.
    assert_eq!(run(&mul, &[0x0080_0000, 0x3f00_0000]), 0);
    // Without .ftz it is kept.
    assert_eq!(
        run(&op("mul.rn.f32"), &[0x0080_0000, 0x3f00_0000]),
        0x0040_0000
    );
    // 2^-126 * (1 - 2^-24): tiny even after rounding to 24 bits with an
    // unbounded exponent, so flushed although it rounds to 2^-126.
    assert_eq!(run(&mul, &[0x0080_0000, 0x3f7f_ffff]), 0);
    // (1 + 2^-23) 2^-64 * (2 - 2^-22) 2^-63 = 2^-126 - 2^-172: below 2^-126
    // but rounds up to it with an unbounded exponent: kept (not tiny).
    assert_eq!(run(&mul, &[0x1f80_0001, 0x207f_fffe]), 0x0080_0000);
    assert_eq!(run(&op("mul.rz.ftz.f32"), &[0x1f80_0001, 0x207f_fffe]), 0);
    assert_eq!(
        run(&op("mul.rp.ftz.f32"), &[0x1f80_0001, 0x207f_fffe]),
        0x0080_0000
    );
    // f64 has no .ftz: subnormals are kept.
    assert_eq!(run(&op("mul.rn.f64"), &[1, 0x3ff0_0000_0000_0000]), 1);
}

#[test]
fn sat_clamps_to_zero_one() {
    let add = op("add.sat.f32");
    assert_eq!(run(&add, &[0x8000_0000, 0x8000_0000]), 0, "-0 gives +0");
    assert_eq!(run(&add, &[0x3f80_0000, 0x3f80_0000]), 0x3f80_0000);
    assert_eq!(run(&add, &[0xbf80_0000, 0x3f00_0000]), 0);
    assert_eq!(run(&add, &[0x7fc0_0000, 0]), 0, "NaN gives +0");
    assert_eq!(run(&add, &[0x7f80_0000, 0]), 0x3f80_0000);
    assert_eq!(run(&add, &[0x3e80_0000, 0x3e80_0000]), 0x3f00_0000);
    assert_eq!(
        run(&op("mul.rn.ftz.sat.f32"), &[0x8000_0001, 0x3f80_0000]),
        0
    );
    assert_eq!(
        run(&op("fma.rz.sat.f32"), &[0x7f80_0000, 0, 0]),
        0,
        "inf * 0"
    );
}

#[test]
fn min_max_rules() {
    let (min, max) = (op("min.f32"), op("max.f32"));
    let (pz, nz, one, nan) = (0u64, 0x8000_0000u64, 0x3f80_0000u64, 0x7fc0_0000u64);
    assert_eq!(run(&min, &[pz, nz]), nz);
    assert_eq!(run(&min, &[nz, pz]), nz);
    assert_eq!(run(&max, &[nz, pz]), pz);
    assert_eq!(run(&max, &[pz, nz]), pz);
    assert_eq!(run(&min, &[nan, one]), one);
    assert_eq!(run(&max, &[one, 0xff81_2345]), one);
    assert_eq!(run(&min, &[nan, 0xff81_2345]), 0x7fff_ffff);
    assert_eq!(run(&op("min.NaN.f32"), &[nan, one]), 0x7fff_ffff);
    assert_eq!(run(&op("max.NaN.f32"), &[one, 0xff81_2345]), 0x7fff_ffff);
    // Subnormals are kept without .ftz, and count as zeros with it.
    assert_eq!(run(&min, &[1, 0x8000_0001]), 0x8000_0001);
    assert_eq!(run(&op("min.ftz.f32"), &[1, 0x8000_0001]), 0x8000_0000);
    assert_eq!(
        run(&op("max.ftz.f32"), &[0x8000_0001, 0x8000_0000]),
        0x8000_0000
    );
    // .xorsign.abs: compare magnitudes, the sign is the xor of the signs.
    let (minx, maxx) = (op("min.xorsign.abs.f32"), op("max.xorsign.abs.f32"));
    let (m2, p3) = (0xc000_0000u64, 0x4040_0000u64);
    assert_eq!(run(&maxx, &[m2, p3]), 0xc040_0000);
    assert_eq!(run(&minx, &[m2, p3]), 0xc000_0000);
    assert_eq!(run(&minx, &[m2, 0xc040_0000]), 0x4000_0000);
    // A NaN operand's sign still counts; a NaN result stays canonical.
    assert_eq!(run(&maxx, &[0xffc0_0000, 0]), 0x8000_0000);
    assert_eq!(run(&maxx, &[0xffc0_0000, 0xffc0_0000]), 0x7fff_ffff);
    assert_eq!(
        run(&op("min.NaN.xorsign.abs.f32"), &[0xbf80_0000, nan]),
        0x7fff_ffff
    );
    // f64.
    assert_eq!(run(&op("min.f64"), &[0, 1 << 63]), 1 << 63);
    assert_eq!(run(&op("max.f64"), &[0x7ff8_0000_0000_0000, 1]), 1);
}

#[test]
fn neg_abs_copysign_testp() {
    assert_eq!(run(&op("neg.f32"), &[1]), 0x8000_0001);
    assert_eq!(run(&op("neg.ftz.f32"), &[1]), 0x8000_0000);
    assert_eq!(run(&op("abs.f32"), &[0x8000_0001]), 1);
    assert_eq!(run(&op("abs.ftz.f32"), &[0x8000_0001]), 0);
    assert_eq!(run(&op("neg.f64"), &[0]), 1 << 63);
    // copysign d, a, b: b with a's sign, bitwise (NaN payloads kept).
    let cs = op("copysign.f32");
    assert_eq!(run(&cs, &[0x8000_0000, 0x3f80_0000]), 0xbf80_0000);
    assert_eq!(run(&cs, &[0, 0xff81_2345]), 0x7f81_2345);
    assert_eq!(
        run(&op("copysign.f64"), &[1 << 63, 0x7ff0_0000_0000_0001]),
        0xfff0_0000_0000_0001
    );
    // testp: zeros count as normal.
    let t = |test: &str, ty: &str, x: u64| run(&op(&format!("testp.{test}.{ty}")), &[x]);
    assert_eq!(t("normal", "f32", 0), 1);
    assert_eq!(t("normal", "f32", 0x8000_0000), 1);
    assert_eq!(t("normal", "f32", 1), 0);
    assert_eq!(t("normal", "f32", 0x7f80_0000), 0);
    assert_eq!(t("subnormal", "f32", 1), 1);
    assert_eq!(t("subnormal", "f32", 0), 0);
    assert_eq!(t("finite", "f32", 0x7f7f_ffff), 1);
    assert_eq!(t("finite", "f32", 0xff80_0000), 0);
    assert_eq!(t("infinite", "f32", 0xff80_0000), 1);
    assert_eq!(t("number", "f32", 0xff80_0001), 0);
    assert_eq!(t("notanumber", "f32", 0xff80_0001), 1);
    assert_eq!(t("normal", "f64", 0x0010_0000_0000_0000), 1);
    assert_eq!(t("subnormal", "f64", 0x000f_ffff_ffff_ffff), 1);
    assert_eq!(t("notanumber", "f64", 0x7ff0_0000_0000_0001), 1);
}

// ---------------------------------------------------------------- approx

/// Relative error of `got` against `want`.
fn rel(got: f64, want: f64) -> f64 {
    ((got - want) / want).abs()
}

#[test]
fn approximations_are_within_the_documented_bounds() {
    let mut rng = Rng::new(0xabcdef);
    let unary = |name: &str| op(name);
    let (ex2, lg2, sin, cos) = (
        unary("ex2.approx.f32"),
        unary("lg2.approx.f32"),
        unary("sin.approx.f32"),
        unary("cos.approx.f32"),
    );
    let (tanh, rsqrt, sqrt, rcp) = (
        unary("tanh.approx.f32"),
        unary("rsqrt.approx.f32"),
        unary("sqrt.approx.f32"),
        unary("rcp.approx.f32"),
    );
    let div = op("div.approx.f32");
    let full = op("div.full.f32");
    let value = |c: &Compute, x: u32| f64::from(f(run(c, &[u64::from(x)]) as u32));
    for _ in 0..100_000 {
        let a = rng.f32();
        let x = f64::from(f(a));
        if !x.is_finite() || x == 0.0 || f(a).is_subnormal() {
            continue;
        }
        // ex2: 2 ulp (checked as relative 2^-22 away from under/overflow).
        let want = x.exp2();
        if want > 1e-37 && want < 1e38 {
            assert!(rel(value(&ex2, a), want) <= 2f64.powf(-22.0), "ex2 {a:#x}");
        }
        if x > 0.0 {
            let got = value(&lg2, a);
            let want = x.log2();
            if x > 0.5 && x < 2.0 {
                assert!((got - want).abs() <= 2f64.powi(-22), "lg2 {a:#x}");
            } else {
                assert!(rel(got, want) <= 2f64.powi(-22), "lg2 {a:#x}");
            }
            assert!(
                rel(value(&rsqrt, a), 1.0 / x.sqrt()) <= 2f64.powf(-22.9),
                "rsqrt {a:#x}"
            );
            assert!(
                rel(value(&sqrt, a), x.sqrt()) <= 2f64.powi(-23),
                "sqrt {a:#x}"
            );
        }
        if x.abs() <= 2.0 * std::f64::consts::PI {
            assert!(
                (value(&sin, a) - x.sin()).abs() <= 2f64.powf(-20.5),
                "sin {a:#x}"
            );
            assert!(
                (value(&cos, a) - x.cos()).abs() <= 2f64.powf(-20.5),
                "cos {a:#x}"
            );
        }
        assert!(
            rel(value(&tanh, a), x.tanh()) <= 2f64.powf(-10.987),
            "tanh {a:#x}"
        );
        let r = f32::from_bits(run(&rcp, &[u64::from(a)]) as u32);
        let exact = (1.0 / x) as f32;
        if exact.is_normal() {
            assert!(r.to_bits().abs_diff(exact.to_bits()) <= 1, "rcp {a:#x}");
        }
        let b = rng.f32();
        let y = f64::from(f(b));
        let q = (x / y) as f32;
        if q.is_normal() && y.abs() >= 2f64.powi(-126) && y.abs() <= 2f64.powi(126) {
            let got = run(&div, &[u64::from(a), u64::from(b)]) as u32;
            assert!(got.abs_diff(q.to_bits()) <= 2, "div.approx {a:#x} {b:#x}");
            let got = run(&full, &[u64::from(a), u64::from(b)]) as u32;
            assert!(got.abs_diff(q.to_bits()) <= 2, "div.full {a:#x} {b:#x}");
        }
    }
}

#[test]
fn approximation_special_values() {
    let one = 0x3f80_0000u64;
    let (pinf, ninf, nz) = (0x7f80_0000u64, 0xff80_0000u64, 0x8000_0000u64);
    let t = |name: &str, x: u64| run(&op(name), &[x]);
    assert_eq!(t("ex2.approx.f32", ninf), 0);
    assert_eq!(t("ex2.approx.ftz.f32", pinf), pinf);
    assert_eq!(t("ex2.approx.f32", nz), one);
    assert_eq!(t("lg2.approx.f32", 0), ninf);
    assert_eq!(t("lg2.approx.f32", nz), ninf);
    assert_eq!(t("lg2.approx.f32", 0xbf80_0000), 0x7fff_ffff);
    assert_eq!(t("lg2.approx.ftz.f32", 1), ninf, "subnormal flushed");
    assert_eq!(t("lg2.approx.f32", pinf), pinf);
    assert_eq!(t("sin.approx.f32", nz), nz);
    assert_eq!(t("sin.approx.f32", pinf), 0x7fff_ffff);
    assert_eq!(
        t("sin.approx.f32", 0x8000_0001),
        nz,
        "subnormal counts as zero"
    );
    assert_eq!(t("cos.approx.f32", 1), one);
    assert_eq!(t("cos.approx.ftz.f32", ninf), 0x7fff_ffff);
    assert_eq!(t("tanh.approx.f32", ninf), 0xbf80_0000);
    assert_eq!(t("tanh.approx.f32", nz), nz);
    assert_eq!(t("tanh.approx.f32", 1), 1, "subnormal kept");
    assert_eq!(t("rsqrt.approx.f32", nz), ninf);
    assert_eq!(t("rsqrt.approx.f32", pinf), 0);
    assert_eq!(t("rsqrt.approx.f32", 0xc000_0000), 0x7fff_ffff);
    assert_eq!(t("sqrt.approx.f32", nz), nz);
    assert_eq!(t("sqrt.approx.f32", 0x8000_0001), 0x7fff_ffff);
    assert_eq!(t("sqrt.approx.ftz.f32", 0x8000_0001), nz);
    assert_eq!(t("rcp.approx.f32", nz), ninf);
    assert_eq!(t("rcp.approx.f32", ninf), nz);
    assert_eq!(t("rcp.approx.ftz.f32", 1), pinf);
    // div.approx: 2^126 < |b| < 2^128 gives 0 (NaN for an infinite a).
    let div = op("div.approx.f32");
    assert_eq!(run(&div, &[one, 0x7f00_0000]), 0);
    assert_eq!(run(&div, &[0xbf80_0000, 0x7f00_0000]), nz);
    assert_eq!(run(&div, &[pinf, 0x7f00_0000]), 0x7fff_ffff);
    // Without .ftz a subnormal divisor is scaled: 2^-149 / 2^-149 = 1.
    assert_eq!(run(&div, &[1, 1]), one);
    assert_eq!(run(&div, &[0, 1]), 0);
    assert_eq!(
        run(&op("div.approx.ftz.f32"), &[1, 1]),
        0x7fff_ffff,
        "0 / 0"
    );
    // The f64 special-function forms read the top 32 bits only.
    let rcp = op("rcp.approx.ftz.f64");
    assert_eq!(run(&rcp, &[0x4000_0000_0000_0000]), 0x3fe0_0000_0000_0000);
    assert_eq!(run(&rcp, &[0x4000_0000_ffff_ffff]), 0x3fe0_0000_0000_0000);
    assert_eq!(run(&rcp, &[0x7ff8_0000_0000_0000]), 0x7fff_ffff_0000_0000);
    assert_eq!(run(&rcp, &[0x7ff0_0000_0000_0001]), 0, "reads as +inf");
    assert_eq!(run(&rcp, &[0x8000_0000_0000_0001]), 0xfff0_0000_0000_0000);
    let rsqrt = op("rsqrt.approx.ftz.f64");
    assert_eq!(run(&rsqrt, &[0x3fd0_0000_0000_0000]), 0x4000_0000_0000_0000);
    assert_eq!(run(&rsqrt, &[0xbff0_0000_0000_0000]), 0x7fff_ffff_0000_0000);
    let rsqrt = op("rsqrt.approx.f64");
    assert_eq!(run(&rsqrt, &[0x3fd0_0000_0000_0000]), 0x4000_0000_0000_0000);
    assert_eq!(run(&rsqrt, &[0xbff0_0000_0000_0000]), 0xfff8_0000_0000_0000);
}

#[test]
fn f64_approximations_are_within_2_pow_minus_19() {
    let mut rng = Rng::new(99);
    let (rcp, rsqrt, full) = (
        op("rcp.approx.ftz.f64"),
        op("rsqrt.approx.ftz.f64"),
        op("rsqrt.approx.f64"),
    );
    for _ in 0..50_000 {
        let a = rng.f64();
        let x = f64::from_bits(a);
        if !x.is_normal() || x.abs() > 1e300 {
            continue;
        }
        let got = f64::from_bits(run(&rcp, &[a]));
        assert!(rel(got, 1.0 / x) < 2f64.powf(-19.9), "rcp {a:#x}");
        if x > 0.0 {
            let got = f64::from_bits(run(&rsqrt, &[a]));
            assert!(rel(got, 1.0 / x.sqrt()) < 2f64.powf(-19.9), "rsqrt {a:#x}");
            let got = f64::from_bits(run(&full, &[a]));
            assert!(rel(got, 1.0 / x.sqrt()) <= 2f64.powi(-52), "rsqrt {a:#x}");
        }
    }
}

// ---------------------------------------------------------------- atomics

/// The update of an atomic opcode applied per element of a chunk of
/// `elements` memory elements (a vector access).
fn atomic(opcode: &str, old: u64, b: u64) -> u64 {
    let (update, _) = match semantics(&variant(opcode)) {
        Ok(Semantics::Atomic {
            update,
            returns_old,
        }) => (update, returns_old),
        other => panic!("{opcode}: {other:?}"),
    };
    let bits = update.bits;
    let vec = ["v2", "v4", "v8"]
        .iter()
        .find(|v| opcode.split('.').any(|t| t == **v))
        .map_or(1, |v| usize::from(v.as_bytes()[1] - b'0'));
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    let mut new = 0;
    for e in 0..vec {
        let (o, x) = (old >> (e * bits) & mask, b >> (e * bits) & mask);
        new |= (update.apply(o, &[x]) & mask) << (e * bits);
    }
    new
}

#[test]
fn float_atomics() {
    // add.f32 flushes subnormal operands and results and rounds to nearest.
    assert_eq!(
        atomic("atom.global.add.f32", 0x3f80_0000, 0x3f80_0000),
        0x4000_0000
    );
    assert_eq!(atomic("atom.add.f32", 0x0000_0001, 0x0000_0001), 0);
    assert_eq!(
        atomic("red.global.add.f32", 0x0080_0000, 0x8040_0000),
        0x0080_0000
    );
    assert_eq!(atomic("atom.add.f32", 0x7fc0_0001, 0), 0x7fff_ffff);
    // On shared memory add.f32 keeps subnormals (the PTX ISA's `atom` and
    // `red`; the H200 agrees on every shared variant of the differential
    // test).
    for opcode in [
        "atom.shared.add.f32",
        "atom.shared::cta.add.f32",
        "red.shared.add.f32",
    ] {
        assert_eq!(atomic(opcode, 0x0000_0001, 0x0000_0001), 2, "{opcode}");
        assert_eq!(
            atomic(opcode, 0x0080_0000, 0x8040_0000),
            0x0040_0000,
            "{opcode}"
        );
    }
    assert_eq!(
        atomic(
            "atom.global.add.v2.f32",
            0x3f80_0000_0000_0001,
            0x3f80_0000_0000_0001
        ),
        0x4000_0000_0000_0000
    );
    // add.f64 keeps subnormals, and stores NaN operands unquieted, b first.
    assert_eq!(atomic("atom.global.add.f64", 1, 1), 2);
    let snan = 0x7ff0_0000_0000_0001u64;
    assert_eq!(atomic("atom.add.f64", 0, snan), snan);
    assert_eq!(
        atomic("red.add.f64", snan, 0x7ff8_0000_0000_0002),
        0x7ff8_0000_0000_0002
    );
    assert_eq!(atomic("atom.add.f64", snan, 0), snan);
    // On shared memory add.f64 quiets NaNs, the old value's first (rows
    // the H200 returned in the differential test, 2026-11-30).
    for (old, b, want) in [
        (
            0x0010_0000_0000_0000,
            0xfff0_0000_0000_0001,
            0xfff8_0000_0000_0001,
        ),
        (
            0x7ff8_0000_0000_0000,
            0xfff8_0000_0000_0001,
            0x7ff8_0000_0000_0000,
        ),
        (
            0x7ff0_0000_0000_0001,
            0xfff8_0000_0000_0001,
            0x7ff8_0000_0000_0001,
        ),
        (
            0xffef_ffff_ffff_ffff,
            0x7ff7_ffff_ffff_ffff,
            0x7fff_ffff_ffff_ffff,
        ),
        (
            0x7ff7_ffff_ffff_ffff,
            0x0000_0000_0000_0001,
            0x7fff_ffff_ffff_ffff,
        ),
        (
            0xffff_ffff_ffff_ffff,
            0xfff8_0000_0000_0001,
            0xffff_ffff_ffff_ffff,
        ),
    ] {
        for opcode in ["atom.shared.add.f64", "red.shared::cta.add.f64"] {
            assert_eq!(atomic(opcode, old, b), want, "{opcode} {old:#x} {b:#x}");
        }
    }
    assert_eq!(atomic("atom.shared.add.f64", 1, 1), 2);
    // Half-precision adds do not flush; each half of a pair on its own.
    assert_eq!(atomic("atom.global.add.noftz.f16", 0x0001, 0x0001), 0x0002);
    assert_eq!(
        atomic("atom.add.noftz.f16x2", 0x3c00_0001, 0x3c00_0001),
        0x4000_0002
    );
    assert_eq!(
        atomic("red.add.noftz.bf16x2", 0x3f80_7fc0, 0x3f80_0000),
        0x4000_7fff
    );
    // Vector min/max on halves: NaN ignored, -0 < +0.
    assert_eq!(
        atomic("atom.global.min.noftz.v2.f16", 0x8000_7e00, 0x0000_3c00),
        0x8000_3c00
    );
    assert_eq!(
        atomic(
            "red.global.max.noftz.v2.bf16x2",
            0x0000_0000_8000_3f80,
            0x7fc0_0000_0000_4000
        ),
        0x0000_0000_0000_4000
    );
}

// ------------------------------------------------------------ never panics

#[test]
fn every_variant_masks_its_outputs_and_never_panics() {
    let ids = [
        "add.float",
        "sub.float",
        "mul.float",
        "fma",
        "min.float",
        "max.float",
        "neg.float",
        "abs.float",
        "mad.float",
        "div.float",
        "rcp.f32",
        "rcp.f64",
        "rcp.approx.f64",
        "sqrt",
        "rsqrt",
        "sin",
        "cos",
        "lg2",
        "ex2.float",
        "tanh.float",
        "copysign",
        "testp",
    ];
    let mut rng = Rng::new(31337);
    for form in FORMS.iter().filter(|f| ids.contains(&f.id)) {
        for m in legal_variants(form) {
            let Ok(Semantics::Compute(c)) = semantics(&m) else {
                panic!("{}", m.opcode_text());
            };
            let width = m.operands()[0].ty.carrier_bits();
            let mut d = vec![0u64; c.outputs()];
            for i in 0..2000 {
                let s: Vec<u64> = (0..c.inputs())
                    .map(|_| match i % 3 {
                        0 => rng.next_u64(),
                        1 => u64::from(rng.f32()) | rng.next_u64() << 32,
                        _ => rng.f64(),
                    })
                    .collect();
                c.run(&s, &mut d);
                let limit = if m.form.id == "testp" {
                    1
                } else if width >= 64 {
                    u64::MAX
                } else {
                    (1 << width) - 1
                };
                assert!(d[0] <= limit, "{} {s:x?} -> {:#x}", m.opcode_text(), d[0]);
            }
        }
    }
}

// ------------------------------------------------------------- GPU vectors

/// Results recorded on an H200 (sm_90, driver 580, ptxas 13.0): opcode,
/// source lanes, destination.
const GPU: &[(&str, &[u64], u64)] = &[
    ("add.f32", &[0xff812345, 0x5f800000], 0x7fffffff),
    ("add.f32", &[0x40000000, 0x7f000000], 0x7f000000),
    ("add.f32", &[0x33800000, 0x800000], 0x33800000),
    ("add.f32", &[0x2604b0d8, 0xe52b5460], 0xe52b5460),
    ("add.f32", &[0xba22c8f1, 0xb9604d5d], 0xba5adc48),
    ("sub.rm.f32", &[0x46f81961, 0xc62d4e4b], 0x47276043),
    ("sub.rm.f32", &[0x80800000, 0x7f7fffff], 0xff800000),
    ("sub.rm.f32", &[0x40490fdb, 0x7fc12345], 0x7fffffff),
    ("sub.rm.f32", &[0x19e3276, 0x80d26492], 0x1d2cb9a),
    ("sub.rm.f32", &[0xc0ee21e1, 0xc06b7cbd], 0xc070c705),
    ("mul.rp.ftz.f32", &[0x7f000000, 0x807fffff], 0x80000000),
    ("mul.rp.ftz.f32", &[0x80000001, 0x3f800001], 0x80000000),
    ("mul.rp.ftz.f32", &[0x800000, 0x3f400000], 0x0),
    ("mul.rp.ftz.f32", &[0x962980be, 0xc16540b4], 0x1817cb02),
    ("mul.rp.ftz.f32", &[0x49506000, 0xb6096c17], 0xbfdfb6b6),
    ("mul.rn.ftz.f32", &[0x40c21bf3, 0x80151a00], 0x80000000),
    ("mul.rn.ftz.f32", &[0xc353a445, 0x9ad5], 0x80000000),
    ("mul.rn.ftz.f32", &[0x3d380093, 0x82b215b2], 0x80000000),
    ("mul.rn.ftz.f32", &[0x415fbd37, 0x8009274d], 0x80000000),
    ("mul.rn.ftz.f32", &[0xbab91fbb, 0x85310177], 0x0),
    ("fma.rn.ftz.f32", &[0x3ae3c19f, 0x58fdf80, 0x80800002], 0x0),
    (
        "fma.rn.ftz.f32",
        &[0x4173bdd5, 0x8010ce00, 0x800000],
        0x800000,
    ),
    (
        "fma.rn.ftz.f32",
        &[0xbe0d9032, 0x826778f6, 0x807ffffe],
        0x1000001,
    ),
    ("fma.rn.ftz.f32", &[0xbb011b9d, 0x857dcda2, 0x80800000], 0x0),
    (
        "fma.rn.ftz.f32",
        &[0x3caca786, 0x3bdca23, 0x80800002],
        0x800001,
    ),
    ("fma.rz.sat.f32", &[0xff812345, 0x800000, 0xbf7fffff], 0x0),
    ("fma.rz.sat.f32", &[0xffc54321, 0xc00000, 0x80000000], 0x0),
    ("fma.rz.sat.f32", &[0x7fffff, 0x7fffff, 0xbf800000], 0x0),
    ("fma.rz.sat.f32", &[0xc067d931, 0xbc30d342, 0xbd2024a7], 0x0),
    ("fma.rz.sat.f32", &[0x43f54195, 0xbc6aa347, 0x40e0ca5e], 0x0),
    (
        "mad.rm.ftz.sat.f32",
        &[0x1fffffff, 0x3f400000, 0x42c80000],
        0x3f800000,
    ),
    (
        "mad.rm.ftz.sat.f32",
        &[0x400000, 0x400000, 0x40000000],
        0x3f800000,
    ),
    (
        "mad.rm.ftz.sat.f32",
        &[0x3fc00000, 0xc00000, 0x7f800001],
        0x0,
    ),
    (
        "mad.rm.ftz.sat.f32",
        &[0xc00ba000, 0xbf0a18b1, 0x20000000],
        0x3f800000,
    ),
    (
        "mad.rm.ftz.sat.f32",
        &[0xb7dfaa81, 0x48e16b35, 0xb81dd4ab],
        0x0,
    ),
    ("div.rn.ftz.f32", &[0x3fffffff, 0x7fffff], 0x7f800000),
    ("div.rn.ftz.f32", &[0x800001, 0x80800000], 0xbf800001),
    ("div.rn.ftz.f32", &[0xbd8d6000, 0xc10b7e63], 0x3c01b9ee),
    ("div.rn.ftz.f32", &[0x81c6ba3e, 0x85ce18], 0xc0be1b18),
    ("div.rn.ftz.f32", &[0x3d771ef3, 0x3c12bb59], 0x40d792c8),
    ("div.rp.f32", &[0x80800000, 0x3fc00000], 0x80555555),
    ("div.rp.f32", &[0xbc175088, 0xc1489ecd], 0x3a411574),
    ("div.rp.f32", &[0x807fffff, 0x7f800001], 0x7fffffff),
    ("div.rp.f32", &[0x6c1acb97, 0x500f2990], 0x5b8a66a0),
    ("div.rp.f32", &[0xb7128797, 0xb6c6b524], 0x3fbcc722),
    (
        "add.f64",
        &[0xffefffffffffffff, 0x3ff0000000000001],
        0xffefffffffffffff,
    ),
    (
        "add.f64",
        &[0x3810000000000000, 0x10000000000001],
        0x3810000000000000,
    ),
    (
        "add.f64",
        &[0x409f354d9fe42fc0, 0x3f5da8a65d973a1b],
        0x409f354f7a6e9599,
    ),
    (
        "add.f64",
        &[0x3f3e3b6118000000, 0x40dbace48376fbbf],
        0x40dbace48b05d405,
    ),
    (
        "add.f64",
        &[0xc11d958cd7584dad, 0xc131a77b02ca792a],
        0xc1390cde38a08c95,
    ),
    (
        "sub.f64",
        &[0xbfc0000000000000, 0xfff0000000000000],
        0x7ff0000000000000,
    ),
    (
        "sub.f64",
        &[0x18000000000000, 0x3fffffffffffffff],
        0xbfffffffffffffff,
    ),
    (
        "sub.f64",
        &[0x400921fb54442d18, 0x10000000000001],
        0x400921fb54442d18,
    ),
    (
        "sub.f64",
        &[0xc129a72ef1c60e1f, 0xc14ed6f4eaf15df6],
        0x41486d292e7fda6e,
    ),
    (
        "sub.f64",
        &[0x4130aef37b0fd986, 0x412f86c95a033eda],
        0x40ed71d9c1c74320,
    ),
    ("mul.rz.f64", &[0x3fffffffffffffff, 0x0], 0x0),
    (
        "mul.rz.f64",
        &[0xfff0000000000000, 0x4059000000000000],
        0xfff0000000000000,
    ),
    (
        "mul.rz.f64",
        &[0x10000000000000, 0x4000000000000000],
        0x20000000000000,
    ),
    (
        "mul.rz.f64",
        &[0xc006104ff7663bce, 0x3fdbd23c88bdea44],
        0xbff32eb8426406f7,
    ),
    (
        "mul.rz.f64",
        &[0x3f29efaf30000000, 0xc0ea3759e86aa024],
        0xc0253f9b2b19df5b,
    ),
    (
        "fma.rn.f64",
        &[0xfff0000000000000, 0xc000000000000000, 0xc000000000000000],
        0x7ff0000000000000,
    ),
    (
        "fma.rn.f64",
        &[0xbff0000000000000, 0x7ff0000000000001, 0xbfc0000000000000],
        0x7ff8000000000001,
    ),
    (
        "fma.rn.f64",
        &[0xbff0000000000000, 0x8000000000000001, 0xbfc0000000000000],
        0xbfc0000000000000,
    ),
    (
        "fma.rn.f64",
        &[0x40587919fc0c9e09, 0x3fedb45a4593ffb0, 0xc07e464e94fbc1be],
        0xc078986322e29b00,
    ),
    (
        "fma.rn.f64",
        &[0xc102b08cabb0a4ea, 0xc0ac3a43410226a0, 0xc1c07c825cd02744],
        0x3e9125f98ead7390,
    ),
    (
        "fma.rp.f64",
        &[0x8000000000000, 0x7fefffffffffffff, 0x7fefffffffffffff],
        0x7ff0000000000000,
    ),
    (
        "fma.rp.f64",
        &[0xfff8fedcba987654, 0x8000000000000000, 0x3ca0000000000000],
        0xfff8fedcba987654,
    ),
    (
        "fma.rp.f64",
        &[0x7fffffffffffffff, 0x7fefffffffffffff, 0x7fffffffffffffff],
        0x7fffffffffffffff,
    ),
    (
        "fma.rp.f64",
        &[0xbf03ed12104adf44, 0x40066b4fa6bdc748, 0x3f1beb9d71650c23],
        0x3be0b11c2517ac70,
    ),
    (
        "fma.rp.f64",
        &[0x3f74b15916ebf210, 0xc13d900fc39d9c9c, 0x3f75c9c3b35dbf70],
        0xc0c31de050ff4089,
    ),
    (
        "div.rn.f64",
        &[0x2000000000000000, 0x3ff0000000000000],
        0x2000000000000000,
    ),
    (
        "div.rn.f64",
        &[0xc000000000000000, 0x3ff8000000000000],
        0xbff5555555555555,
    ),
    (
        "div.rn.f64",
        &[0x3fe8000000000000, 0xfff0000000000000],
        0x8000000000000000,
    ),
    (
        "div.rn.f64",
        &[0x3de6793937af3d, 0x804ab1d46015b349],
        0xbfe1ebdec9ad0874,
    ),
    (
        "div.rn.f64",
        &[0xbef641726ec4d66c, 0xc0f2aba81584edc8],
        0x3df31283bb6722f7,
    ),
    (
        "div.rm.f64",
        &[0x2000000000000000, 0x7ff8123456789abc],
        0x7ff8123456789abc,
    ),
    (
        "div.rm.f64",
        &[0x8000000000000001, 0x7ff8000000000000],
        0x7ff8000000000000,
    ),
    (
        "div.rm.f64",
        &[0x8000000000000, 0xbfc0000000000000],
        0x8030000000000000,
    ),
    (
        "div.rm.f64",
        &[0x3fe2000000000000, 0x4025000000000000],
        0x3fab6db6db6db6db,
    ),
    (
        "div.rm.f64",
        &[0x3ee7a0ed8b3231fe, 0x410d46583dc50a4f],
        0x3dc9d4072ef35545,
    ),
    ("sqrt.rn.f64", &[0x9a11df29c160f44], 0x24c7676749a5f4f8),
    ("sqrt.rn.f64", &[0xbf2e5d823e34161b], 0xfff8000000000000),
    ("sqrt.rn.f64", &[0xbff5000000000000], 0xfff8000000000000),
    ("sqrt.rn.f64", &[0xc03e000000000000], 0xfff8000000000000),
    ("sqrt.rn.f64", &[0x7b36d40e306c8], 0x1ff6334bd6c9f279),
    ("rcp.rz.f64", &[0x2eec0de9782c43], 0x7fb08ec84cc70491),
    ("rcp.rz.f64", &[0x412283e6d2d4a68e], 0x3ebba72416a9473c),
    ("rcp.rz.f64", &[0x3fa7da2b98b45602], 0x4035772b0608720f),
    ("rcp.rz.f64", &[0x3f86c1f8dcf951c4], 0x40567f74d1df0031),
    ("rcp.rz.f64", &[0xbfde000000000000], 0xc001111111111111),
    ("sqrt.rp.ftz.f32", &[0xbe7e15bf], 0x7fffffff),
    ("sqrt.rp.ftz.f32", &[0xc5c55f83], 0x7fffffff),
    ("sqrt.rp.ftz.f32", &[0x40a80000], 0x4012a476),
    ("sqrt.rp.ftz.f32", &[0xc0380000], 0x7fffffff),
    ("sqrt.rp.ftz.f32", &[0x81096aa6], 0x7fffffff),
    ("rcp.rm.ftz.f32", &[0x3f7b5ae0], 0x3f825d8c),
    ("rcp.rm.ftz.f32", &[0xc5e3ae5b], 0xb90febae),
    ("rcp.rm.ftz.f32", &[0x3f300000], 0x3fba2e8b),
    ("rcp.rm.ftz.f32", &[0x40d00000], 0x3e1d89d8),
    ("rcp.rm.ftz.f32", &[0xc1300000], 0xbdba2e8c),
    ("min.f32", &[0x807fffff, 0x1f800000], 0x807fffff),
    ("min.f32", &[0x807fffff, 0xff7fffff], 0xff7fffff),
    ("min.f32", &[0x7f800001, 0xffc54321], 0x7fffffff),
    ("min.f32", &[0x48dcb000, 0xb75f4aa3], 0xb75f4aa3),
    ("min.f32", &[0xf461e8b4, 0x9b54ba6f], 0xf461e8b4),
    ("max.ftz.NaN.f32", &[0x7fc12345, 0x3f800001], 0x7fffffff),
    ("max.ftz.NaN.f32", &[0x4b800000, 0x3fffffff], 0x4b800000),
    ("max.ftz.NaN.f32", &[0x3f400000, 0xbe000000], 0x3f400000),
    ("max.ftz.NaN.f32", &[0x384f1000, 0xc72a4ef1], 0x384f1000),
    ("max.ftz.NaN.f32", &[0x49c6e000, 0x3613f39d], 0x49c6e000),
    ("min.xorsign.abs.f32", &[0x3fc00000, 0x3e800000], 0x3e800000),
    ("min.xorsign.abs.f32", &[0xc0000000, 0x1fffffff], 0x9fffffff),
    ("min.xorsign.abs.f32", &[0x3f800000, 0x7f000000], 0x3f800000),
    ("min.xorsign.abs.f32", &[0xc3bde61c, 0x44ce7814], 0xc3bde61c),
    ("min.xorsign.abs.f32", &[0x422c3, 0xacce14], 0x422c3),
    (
        "max.NaN.xorsign.abs.f32",
        &[0x7f000000, 0x7f000000],
        0x7f000000,
    ),
    (
        "max.NaN.xorsign.abs.f32",
        &[0x7fc12345, 0x7f800001],
        0x7fffffff,
    ),
    (
        "max.NaN.xorsign.abs.f32",
        &[0xbf800000, 0xffc00000],
        0x7fffffff,
    ),
    (
        "max.NaN.xorsign.abs.f32",
        &[0xc22c2607, 0xc15f8fef],
        0x422c2607,
    ),
    (
        "max.NaN.xorsign.abs.f32",
        &[0xc54d45b1, 0xb91c7df7],
        0x454d45b1,
    ),
    (
        "min.f64",
        &[0x4340000000000000, 0x2000000000000000],
        0x2000000000000000,
    ),
    (
        "min.f64",
        &[0x3810000000000000, 0x10000000000001],
        0x10000000000001,
    ),
    (
        "min.f64",
        &[0x10000000000000, 0x8010000000000000],
        0x8010000000000000,
    ),
    (
        "min.f64",
        &[0x3f6fb52d0ee0ace9, 0x3f9ab0b170a658ad],
        0x3f6fb52d0ee0ace9,
    ),
    (
        "min.f64",
        &[0x413c0882c83530d4, 0xbf1f31d8a40b52fe],
        0xbf1f31d8a40b52fe,
    ),
    (
        "max.f64",
        &[0x3ca0000000000000, 0x3ca0000000000000],
        0x3ca0000000000000,
    ),
    (
        "max.f64",
        &[0xc017128e4e0e16d1, 0xc0e7d77fa17ee500],
        0xc017128e4e0e16d1,
    ),
    (
        "max.f64",
        &[0x7fffffffffffffff, 0x4340000000000000],
        0x4340000000000000,
    ),
    (
        "max.f64",
        &[0x3f4893693d2ae6e5, 0x409fca67af975257],
        0x409fca67af975257,
    ),
    (
        "max.f64",
        &[0xc0318a138e26fd05, 0x40143e3263b712ab],
        0x40143e3263b712ab,
    ),
    ("neg.f32", &[0xc326598f], 0x4326598f),
    ("neg.f32", &[0x8e521edc], 0xe521edc),
    ("neg.f32", &[0x41700000], 0xc1700000),
    ("neg.f32", &[0x811ec219], 0x11ec219),
    ("neg.f32", &[0xb4a2e299], 0x34a2e299),
    ("abs.ftz.f32", &[0xc2b6901e], 0x42b6901e),
    ("abs.ftz.f32", &[0x8137d266], 0x137d266),
    ("abs.ftz.f32", &[0xc1f00000], 0x41f00000),
    ("abs.ftz.f32", &[0x81847905], 0x1847905),
    ("abs.ftz.f32", &[0x3de901f4], 0x3de901f4),
    ("neg.f64", &[0x412e0112a2106f18], 0xc12e0112a2106f18),
    ("neg.f64", &[0x413fc6419d64ede5], 0xc13fc6419d64ede5),
    ("neg.f64", &[0xc06de55a8253a7ae], 0x406de55a8253a7ae),
    ("neg.f64", &[0xb25b75d7ae2f66d5], 0x325b75d7ae2f66d5),
    ("neg.f64", &[0xbfda732205c28341], 0x3fda732205c28341),
    ("abs.f64", &[0x4020000000000000], 0x4020000000000000),
    ("abs.f64", &[0x49e39dc3c1285], 0x49e39dc3c1285),
    ("abs.f64", &[0x413aa91533a75298], 0x413aa91533a75298),
    ("abs.f64", &[0xc112325d5e245e1a], 0x4112325d5e245e1a),
    ("abs.f64", &[0x87ff0819baf19ec2], 0x7ff0819baf19ec2),
    ("copysign.f32", &[0x3fffffff, 0x3f800000], 0x3f800000),
    ("copysign.f32", &[0xffc00000, 0xff7fffff], 0xff7fffff),
    ("copysign.f32", &[0x7fc12345, 0x7fffff], 0x7fffff),
    ("copysign.f32", &[0xbd04b1c4, 0x3c98d0b5], 0xbc98d0b5),
    ("copysign.f32", &[0x865ea8fc, 0x51979822], 0xd1979822),
    (
        "copysign.f64",
        &[0x2000000000000000, 0xc000000000000000],
        0x4000000000000000,
    ),
    (
        "copysign.f64",
        &[0x42fd0f3031d18, 0x17c6b4f00ee80f],
        0x17c6b4f00ee80f,
    ),
    (
        "copysign.f64",
        &[0x400921fb54442d18, 0x18000000000000],
        0x18000000000000,
    ),
    (
        "copysign.f64",
        &[0x41092a2efd37232e, 0x4128257fdf78a887],
        0x4128257fdf78a887,
    ),
    (
        "copysign.f64",
        &[0xc2eb6a86fb4fa, 0x13e3e3165144b2],
        0x13e3e3165144b2,
    ),
    ("testp.normal.f32", &[0xef906229], 0x1),
    ("testp.normal.f32", &[0x47d0a601], 0x1),
    ("testp.normal.f32", &[0x362b22a9], 0x1),
    ("testp.normal.f32", &[0xc870b98d], 0x1),
    ("testp.normal.f32", &[0x75d5524f], 0x1),
    ("testp.subnormal.f64", &[0x9e4e234af1a49688], 0x0),
    ("testp.subnormal.f64", &[0x40475027511f025a], 0x0),
    ("testp.subnormal.f64", &[0x76445cd9a873805d], 0x0),
    ("testp.subnormal.f64", &[0x3fe8317879bb95ae], 0x0),
    ("testp.subnormal.f64", &[0x402b000000000000], 0x0),
    ("testp.notanumber.f32", &[0xbf400000], 0x0),
    ("testp.notanumber.f32", &[0xbfb80000], 0x0),
    ("testp.notanumber.f32", &[0x45d7a982], 0x0),
    ("testp.notanumber.f32", &[0x4877d97f], 0x0),
    ("testp.notanumber.f32", &[0xc7b64791], 0x0),
    ("testp.finite.f64", &[0x3fdfc3ac31fd80e7], 0x1),
    ("testp.finite.f64", &[0xa90304113aaba6f1], 0x1),
    ("testp.finite.f64", &[0x3a629a53e627e6], 0x1),
    ("testp.finite.f64", &[0x3b28442d2bc8a4], 0x1),
    ("testp.finite.f64", &[0xbfee000000000000], 0x1),
];

/// Atomic updates recorded on an H200: opcode, old memory, operand `b`,
/// new memory (vector forms: the whole vector, element 0 lowest).
const GPU_ATOMIC: &[(&str, &[u64], u64)] = &[
    ("atom.global.add.f32", &[0x7fffffff, 0xc00000], 0x7fffffff),
    ("atom.global.add.f32", &[0x3f7fffff, 0x1], 0x3f7fffff),
    ("atom.global.add.f32", &[0xffc00000, 0x80000001], 0x7fffffff),
    ("atom.global.add.f32", &[0x48107dc4, 0xc7a9eb40], 0x476e2090),
    ("atom.global.add.f32", &[0x5c6b04, 0x80eddeb6], 0x80eddeb6),
    (
        "red.global.add.v2.f32",
        &[0x100000001000000, 0x200000001f800000],
        0x200000001f800000,
    ),
    (
        "red.global.add.v2.f32",
        &[0x3fc000003fc00000, 0x807fffff007fffff],
        0x3fc000003fc00000,
    ),
    (
        "red.global.add.v2.f32",
        &[0x40490fdb40490fdb, 0xff8000007f800000],
        0xff8000007f800000,
    ),
    (
        "red.global.add.v2.f32",
        &[0xb7611dd33ff80000, 0xc8b49558c0d00000],
        0xc8b49558c0920000,
    ),
    (
        "red.global.add.v2.f32",
        &[0x411ed092c0980000, 0xbe79ea3041680000],
        0x411ae8e9411c0000,
    ),
    (
        "atom.global.add.f64",
        &[0x10000000000001, 0xfffffffffffff],
        0x20000000000000,
    ),
    (
        "atom.global.add.f64",
        &[0x7ff0000000000000, 0x10000000000001],
        0x7ff0000000000000,
    ),
    (
        "atom.global.add.f64",
        &[0xbfc0000000000000, 0x20000000000000],
        0xbfc0000000000000,
    ),
    (
        "atom.global.add.f64",
        &[0x3f42f0ae204ebed3, 0x40a8560dadeb6108],
        0x40a8560df9ae1989,
    ),
    (
        "atom.global.add.f64",
        &[0xbedd3c3ab7e6485e, 0xc1070bd9fea098c5],
        0xc1070bd9fea4404c,
    ),
    (
        "atom.global.add.noftz.f16x2",
        &[0x83ff7fff, 0x7e128000],
        0x7fff7fff,
    ),
    (
        "atom.global.add.noftz.f16x2",
        &[0xe4501617, 0xff4cbe27],
        0x7fffbe25,
    ),
    (
        "atom.global.add.noftz.f16x2",
        &[0xfe000000, 0x4000400],
        0x7fff0400,
    ),
    (
        "atom.global.add.noftz.f16x2",
        &[0x4740c080, 0x4bc0cec0],
        0x4db0cf50,
    ),
    (
        "atom.global.add.noftz.f16x2",
        &[0x48bdb014, 0x2f8031b],
        0x48bdb014,
    ),
    ("atom.global.add.noftz.bf16", &[0x3f80, 0x807f], 0x3f80),
    ("atom.global.add.noftz.bf16", &[0x4000, 0xbf7f], 0x3f80),
    ("atom.global.add.noftz.bf16", &[0x37c2, 0xefe7], 0xefe7),
    ("atom.global.add.noftz.bf16", &[0xbdd7, 0x4105], 0x4103),
    ("atom.global.add.noftz.bf16", &[0x85ff, 0x5374], 0x5374),
    (
        "atom.global.min.noftz.v2.f16",
        &[0xfc00fc00, 0x3c008400],
        0xfc00fc00,
    ),
    (
        "atom.global.min.noftz.v2.f16",
        &[0xcb800eda, 0xc040148b],
        0xcb800eda,
    ),
    (
        "atom.global.min.noftz.v2.f16",
        &[0xbbffbbff, 0x56404248],
        0xbbffbbff,
    ),
    (
        "atom.global.min.noftz.v2.f16",
        &[0xfc9f6df7, 0x11257177],
        0x11256df7,
    ),
    (
        "atom.global.min.noftz.v2.f16",
        &[0xbc40de31, 0xc4f59842],
        0xc4f5de31,
    ),
    (
        "atom.global.max.noftz.v2.bf16x2",
        &[0xc472c8bc4188bfa0, 0xbb633708c068c0d8],
        0xbb6337084188bfa0,
    ),
    (
        "atom.global.max.noftz.v2.bf16x2",
        &[0x479cbcc73f9040e0, 0xb7a243b7c1e83e88],
        0x479c43b73f9040e0,
    ),
    (
        "atom.global.max.noftz.v2.bf16x2",
        &[0x13f801f003f80, 0x3f81807fc000007f],
        0x3f813f801f003f80,
    ),
    (
        "atom.global.max.noftz.v2.bf16x2",
        &[0x801980f3b60344f0, 0x80c4816d35edc592],
        0x801980f335ed44f0,
    ),
    (
        "atom.global.max.noftz.v2.bf16x2",
        &[0xc0184148013c81c3, 0xbff0c0f0812401db],
        0xbff04148013c01db,
    ),
];

#[test]
fn recorded_gpu_results() {
    for (opcode, sources, want) in GPU {
        assert_eq!(run(&op(opcode), sources), *want, "{opcode} {sources:x?}");
    }
    for (opcode, sources, want) in GPU_ATOMIC {
        assert_eq!(
            atomic(opcode, sources[0], sources[1]),
            *want,
            "{opcode} {sources:x?}"
        );
    }
}
