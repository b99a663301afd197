//! Integer arithmetic, integer atomics and data movement: hand-derived PTX
//! examples for every rule, and property tests against reference formulas.
//!
//! The results the ISA leaves unspecified (division and remainder by zero)
//! and the other hardware-specific rules were measured on an H200 by
//! running every usable variant over special and random inputs.

use tile_kernel_interp::semantics::{Bits, atomic_update, compute, destination_lanes};
use tile_kernel_lowering::ptx::Slot;
use tile_kernel_lowering::ptx::resolve::legal_variants;
use tile_kernel_lowering::ptx::table::FORMS;
use tile_kernel_lowering::ptx::{Access, Effect, OperandKind, Usability};

#[allow(dead_code)] // each test file uses part of it
mod support;
use support::{one, run, variant};
use tile_kernel_testkit::Rng;

/// The forms whose semantics these tests cover.
const FORMS_HERE: &[&str] = &[
    "add.int",
    "sub.int",
    "mul.int",
    "mul.wide",
    "mad.int",
    "mad.wide",
    "min.int",
    "max.int",
    "neg.int",
    "abs.int",
    "mul24",
    "mad24",
    "sad",
    "div.int",
    "rem",
    "dp4a.unsigned",
    "dp4a.signed",
    "dp4a.mixed",
    "dp2a.unsigned",
    "dp2a.signed",
    "dp2a.mixed",
    "mov",
    "mov.pack2",
    "mov.pack4",
    "mov.unpack2",
    "mov.unpack4",
    "mov.pack2-split",
    "mov.pack4-split",
    "mov.unpack2-split",
    "mov.unpack4-split",
    "mov.pred",
    "mov.sreg32",
    "mov.sreg64",
    "createpolicy.fractional",
    "createpolicy.fractional-all",
    "createpolicy.cvt",
];

/// What this file's tests draw from the test kit's seeded [`Rng`].
trait Draws {
    fn value(&mut self) -> u64;
}

impl Draws for Rng {
    /// Random bits, often an edge value.
    fn value(&mut self) -> u64 {
        const EDGES: &[u64] = &[
            0,
            1,
            2,
            0x7f,
            0x80,
            0xff,
            0x7fff,
            0x8000,
            0xffff,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_ffff,
            0x7fff_ffff_ffff_ffff,
            0x8000_0000_0000_0000,
            u64::MAX,
        ];
        let r = self.next_u64();
        if r.is_multiple_of(4) {
            EDGES[(r >> 8) as usize % EDGES.len()]
        } else {
            self.next_u64()
        }
    }
}

fn mask(v: u64, bits: usize) -> u64 {
    if bits >= 64 { v } else { v & ((1 << bits) - 1) }
}

fn sext(v: u64, bits: usize) -> i128 {
    let shift = 128 - bits;
    (((v as u128) << shift) as i128) >> shift
}

// ------------------------------------------------------------ structure

#[test]
fn every_variant_has_semantics_of_the_right_shape_and_width() {
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
            let widths: Vec<usize> = v
                .operands()
                .iter()
                .filter(|o| o.access == Access::Write && o.kind != OperandKind::Address)
                .flat_map(|o| std::iter::repeat_n(o.ty.carrier_bits(), usize::from(o.lanes)))
                .collect();
            for _ in 0..200 {
                // Garbage above each lane's width must not matter or leak.
                let inputs: Vec<Bits> = (0..c.inputs()).map(|_| rng.value()).collect();
                let mut out = vec![0; c.outputs()];
                c.run(&inputs, &mut out);
                for (lane, (&value, &bits)) in out.iter().zip(&widths).enumerate() {
                    assert_eq!(value, mask(value, bits), "{} lane {lane}", v.opcode_text());
                }
            }
        }
    }
    assert!(variants > 100, "{variants}");
}

#[test]
fn integer_atomics_have_updates_and_float_atomics_are_left_to_the_float_family() {
    let mut count = 0;
    for form in FORMS
        .iter()
        .filter(|f| matches!(f.effect, Effect::Atomic { .. }))
    {
        for v in legal_variants(form) {
            if v.usability() != Usability::Yes {
                continue;
            }
            let ty = v.ty(Slot::Type).expect("type");
            if ty.is_float() {
                continue;
            }
            let update = atomic_update(&v).unwrap_or_else(|| panic!("{}", v.opcode_text()));
            assert_eq!(update.bits, ty.carrier_bits(), "{}", v.opcode_text());
            count += 1;
        }
    }
    assert!(count > 100, "{count}");
}

// ------------------------------------------------------------ add / sub

#[test]
fn add_and_sub_wrap_or_saturate() {
    assert_eq!(one("add.int", "add.u32", &[0xffff_ffff, 2]), 1);
    assert_eq!(one("add.int", "add.s16", &[0x7fff, 1]), 0x8000);
    assert_eq!(one("add.int", "add.u64", &[u64::MAX, 1]), 0);
    // .sat.s32 clamps at both ends.
    assert_eq!(
        one("add.int", "add.sat.s32", &[0x7fff_ffff, 1]),
        0x7fff_ffff
    );
    assert_eq!(
        one("add.int", "add.sat.s32", &[0x8000_0000, 0xffff_ffff]),
        0x8000_0000
    );
    assert_eq!(
        one("add.int", "add.sat.s32", &[0xffff_fffe, 1]),
        0xffff_ffff
    );
    assert_eq!(
        one("sub.int", "sub.sat.s32", &[0x8000_0000, 1]),
        0x8000_0000
    );
    assert_eq!(
        one("sub.int", "sub.sat.s32", &[0x7fff_ffff, 0xffff_ffff]),
        0x7fff_ffff
    );
    assert_eq!(one("sub.int", "sub.u16", &[0, 1]), 0xffff);
    // Per 16-bit half, no carry between the halves.
    assert_eq!(one("add.int", "add.u16x2", &[0xffff_0001, 0x0001_ffff]), 0);
    assert_eq!(
        one("add.int", "add.s16x2", &[0x7fff_8000, 0x0001_ffff]),
        0x8000_7fff
    );
}

#[test]
fn add_sub_property() {
    let mut rng = Rng::new(2);
    for _ in 0..2000 {
        let (a, b) = (rng.value(), rng.value());
        for (ty, bits) in [("u16", 16), ("s32", 32), ("u64", 64)] {
            let add = one("add.int", &format!("add.{ty}"), &[a, b]);
            assert_eq!(add, mask(a.wrapping_add(b), bits));
            let sub = one("sub.int", &format!("sub.{ty}"), &[a, b]);
            assert_eq!(sub, mask(a.wrapping_sub(b), bits));
        }
        let sat = (a as u32 as i32).saturating_add(b as u32 as i32);
        assert_eq!(
            one("add.int", "add.sat.s32", &[a, b]),
            u64::from(sat as u32)
        );
        let sat = (a as u32 as i32).saturating_sub(b as u32 as i32);
        assert_eq!(
            one("sub.int", "sub.sat.s32", &[a, b]),
            u64::from(sat as u32)
        );
    }
}

// ------------------------------------------------------------ mul / mad

#[test]
fn mul_halves_and_wide() {
    assert_eq!(
        one("mul.int", "mul.hi.u32", &[0xffff_ffff, 0xffff_ffff]),
        0xffff_fffe
    );
    assert_eq!(one("mul.int", "mul.lo.u32", &[0xffff_ffff, 0xffff_ffff]), 1);
    // -1 * -1 = 1: high word 0; -1 * 1: high word all ones.
    assert_eq!(one("mul.int", "mul.hi.s32", &[0xffff_ffff, 0xffff_ffff]), 0);
    assert_eq!(one("mul.int", "mul.hi.s32", &[0xffff_ffff, 1]), 0xffff_ffff);
    assert_eq!(one("mul.int", "mul.hi.u64", &[u64::MAX, 2]), 1);
    assert_eq!(one("mul.int", "mul.hi.s64", &[u64::MAX, 2]), u64::MAX);
    assert_eq!(one("mul.int", "mul.lo.s16", &[0x8000, 0xffff]), 0x8000);
    assert_eq!(one("mul.wide", "mul.wide.s16", &[0xfffe, 3]), 0xffff_fffa);
    assert_eq!(one("mul.wide", "mul.wide.u16", &[0xfffe, 3]), 0x2_fffa);
    assert_eq!(
        one("mul.wide", "mul.wide.u32", &[0xffff_ffff, 0xffff_ffff]),
        0xffff_fffe_0000_0001
    );
    assert_eq!(
        one("mul.wide", "mul.wide.s32", &[0x8000_0000, 0x8000_0000]),
        0x4000_0000_0000_0000
    );
}

#[test]
fn mad_adds_the_chosen_half() {
    assert_eq!(one("mad.int", "mad.lo.u32", &[0x1_0000, 0x1_0000, 5]), 5);
    assert_eq!(one("mad.int", "mad.hi.u32", &[0x1_0000, 0x1_0000, 5]), 6);
    assert_eq!(one("mad.int", "mad.lo.s64", &[u64::MAX, 3, 3]), 0);
    // mad.hi.sat.s32: hi(0x7fffffff^2) = 0x3fffffff; + 0x7fffffff saturates.
    assert_eq!(
        one(
            "mad.int",
            "mad.hi.sat.s32",
            &[0x7fff_ffff, 0x7fff_ffff, 0x7fff_ffff]
        ),
        0x7fff_ffff
    );
    // hi(MIN * MAX) = -0x3fffffff - 1 (0xc0000000); + MIN saturates low.
    assert_eq!(
        one(
            "mad.int",
            "mad.hi.sat.s32",
            &[0x8000_0000, 0x7fff_ffff, 0x8000_0000]
        ),
        0x8000_0000
    );
    assert_eq!(one("mad.int", "mad.hi.s32", &[0xffff_ffff, 1, 1]), 0);
    assert_eq!(one("mad.wide", "mad.wide.s32", &[0xffff_ffff, 2, 3]), 1);
    assert_eq!(
        one("mad.wide", "mad.wide.u16", &[0xffff, 0xffff, 0x1_fffe]),
        0xffff_ffff
    );
}

#[test]
fn mul_mad_property() {
    let mut rng = Rng::new(3);
    for _ in 0..2000 {
        let (a, b, c) = (rng.value(), rng.value(), rng.value());
        for (ty, bits, signed) in [
            ("u16", 16, false),
            ("s16", 16, true),
            ("u32", 32, false),
            ("s32", 32, true),
            ("u64", 64, false),
            ("s64", 64, true),
        ] {
            let value = |x: u64| {
                if signed {
                    sext(x, bits)
                } else {
                    i128::from(mask(x, bits)) // fits: bits <= 64
                }
            };
            // The exact product; its bits as a 2 * bits wide number.
            let p = if signed {
                (value(a) * value(b)) as u128
            } else {
                u128::from(mask(a, bits)) * u128::from(mask(b, bits))
            };
            let lo = mask(p as u64, bits);
            let hi = mask((p >> bits) as u64, bits);
            assert_eq!(one("mul.int", &format!("mul.lo.{ty}"), &[a, b]), lo);
            assert_eq!(one("mul.int", &format!("mul.hi.{ty}"), &[a, b]), hi);
            assert_eq!(
                one("mad.int", &format!("mad.lo.{ty}"), &[a, b, c]),
                mask(lo.wrapping_add(c), bits)
            );
            assert_eq!(
                one("mad.int", &format!("mad.hi.{ty}"), &[a, b, c]),
                mask(hi.wrapping_add(c), bits)
            );
            if bits < 64 {
                let wide = mask(p as u64, 2 * bits);
                assert_eq!(one("mul.wide", &format!("mul.wide.{ty}"), &[a, b]), wide);
                assert_eq!(
                    one("mad.wide", &format!("mad.wide.{ty}"), &[a, b, c]),
                    mask(wide.wrapping_add(c), 2 * bits)
                );
            }
        }
        let hi = ((i64::from(a as u32 as i32) * i64::from(b as u32 as i32)) >> 32) as i32;
        let sat = hi.saturating_add(c as u32 as i32);
        assert_eq!(
            one("mad.int", "mad.hi.sat.s32", &[a, b, c]),
            u64::from(sat as u32)
        );
    }
}

#[test]
fn mul24_and_mad24_use_the_low_24_bits() {
    // Bits above 23 are ignored; .s32 sign-extends from bit 23.
    assert_eq!(one("mul24", "mul24.lo.u32", &[0xff00_0002, 3]), 6);
    assert_eq!(one("mul24", "mul24.lo.u32", &[0x00ff_ffff, 2]), 0x1ff_fffe);
    assert_eq!(one("mul24", "mul24.lo.s32", &[0x00ff_ffff, 2]), 0xffff_fffe);
    // .hi: bits 47..16 of the 48-bit product.
    assert_eq!(
        one("mul24", "mul24.hi.u32", &[0xff_ffff, 0xff_ffff]),
        0xffff_fe00
    );
    assert_eq!(one("mul24", "mul24.hi.s32", &[0xff_ffff, 0xff_ffff]), 0);
    assert_eq!(one("mul24", "mul24.hi.s32", &[0x80_0000, 1]), 0xffff_ff80);
    assert_eq!(one("mad24", "mad24.lo.u32", &[2, 3, 0xffff_ffff]), 5);
    assert_eq!(
        one("mad24", "mad24.hi.u32", &[0xff_ffff, 0xff_ffff, 0x200]),
        0
    );
    // mad24.hi.sat.s32 clamps the sum.
    assert_eq!(
        one(
            "mad24",
            "mad24.hi.sat.s32",
            &[0x7f_ffff, 0x7f_ffff, 0x7fff_ffff]
        ),
        0x7fff_ffff
    );
    assert_eq!(
        one(
            "mad24",
            "mad24.hi.sat.s32",
            &[0x80_0000, 0x7f_ffff, 0x8000_0000]
        ),
        0x8000_0000
    );
}

#[test]
fn mul24_property() {
    let mut rng = Rng::new(4);
    for _ in 0..2000 {
        let (a, b, c) = (rng.value(), rng.value(), rng.value());
        let su = (a & 0xff_ffff) * (b & 0xff_ffff);
        let ss = (sext(a, 24) * sext(b, 24)) as i64;
        assert_eq!(one("mul24", "mul24.lo.u32", &[a, b]), mask(su, 32));
        assert_eq!(one("mul24", "mul24.hi.u32", &[a, b]), mask(su >> 16, 32));
        assert_eq!(one("mul24", "mul24.lo.s32", &[a, b]), mask(ss as u64, 32));
        assert_eq!(
            one("mul24", "mul24.hi.s32", &[a, b]),
            mask((ss >> 16) as u64, 32)
        );
        assert_eq!(
            one("mad24", "mad24.lo.s32", &[a, b, c]),
            mask((ss as u64).wrapping_add(c), 32)
        );
        let hi = (ss >> 16) as i32;
        let sat = hi.saturating_add(c as u32 as i32);
        assert_eq!(
            one("mad24", "mad24.hi.sat.s32", &[a, b, c]),
            u64::from(sat as u32)
        );
    }
}

// ------------------------------------------------------------ sad / div / rem / abs / neg

#[test]
fn sad_is_c_plus_the_distance() {
    assert_eq!(one("sad", "sad.s32", &[0xffff_ffff, 1, 10]), 12);
    assert_eq!(
        one("sad", "sad.u32", &[0xffff_ffff, 1, 10]),
        0x1_0000_0008 & 0xffff_ffff
    );
    assert_eq!(one("sad", "sad.s16", &[0x7fff, 0x8000, 0]), 0xffff);
    assert_eq!(one("sad", "sad.u64", &[3, 10, 1]), 8);
}

#[test]
fn div_and_rem_truncate_and_give_all_ones_for_zero() {
    assert_eq!(
        one("div.int", "div.s32", &[(-7i32) as u32 as u64, 2]),
        0xffff_fffd
    );
    assert_eq!(
        one("rem", "rem.s32", &[(-7i32) as u32 as u64, 2]),
        0xffff_ffff
    );
    assert_eq!(one("rem", "rem.s32", &[7, (-2i32) as u32 as u64]), 1);
    assert_eq!(one("div.int", "div.u16", &[0xfffe, 2]), 0x7fff);
    assert_eq!(one("div.int", "div.s16", &[0xfffe, 2]), 0xffff);
    // MIN / -1 wraps to MIN; MIN % -1 is 0.
    assert_eq!(
        one("div.int", "div.s32", &[0x8000_0000, 0xffff_ffff]),
        0x8000_0000
    );
    assert_eq!(one("rem", "rem.s32", &[0x8000_0000, 0xffff_ffff]), 0);
    assert_eq!(one("div.int", "div.s64", &[1 << 63, u64::MAX]), 1 << 63);
    // Division and remainder by zero: all ones, every type (H200).
    for (ty, ones) in [
        ("u16", 0xffff),
        ("s16", 0xffff),
        ("u32", 0xffff_ffff),
        ("s32", 0xffff_ffff),
        ("u64", u64::MAX),
        ("s64", u64::MAX),
    ] {
        for a in [0, 1, 0x8000, 0x7fff_ffff, u64::MAX] {
            assert_eq!(
                one("div.int", &format!("div.{ty}"), &[a, 0]),
                ones,
                "div.{ty}"
            );
            assert_eq!(one("rem", &format!("rem.{ty}"), &[a, 0]), ones, "rem.{ty}");
        }
    }
}

#[test]
fn div_rem_property() {
    let mut rng = Rng::new(5);
    for _ in 0..3000 {
        let (a, b) = (rng.value(), rng.value());
        if b & 0xffff == 0 {
            continue;
        }
        assert_eq!(
            one("div.int", "div.u32", &[a, b]),
            u64::from(a as u32 / b as u32)
        );
        assert_eq!(one("rem", "rem.u64", &[a, b]), a % b);
        let (x, y) = (a as u32 as i32, b as u32 as i32);
        if y != 0 {
            assert_eq!(
                one("div.int", "div.s32", &[a, b]),
                u64::from(x.wrapping_div(y) as u32)
            );
            assert_eq!(
                one("rem", "rem.s32", &[a, b]),
                u64::from(x.wrapping_rem(y) as u32)
            );
        }
        let (x, y) = (a as u16 as i16, b as u16 as i16);
        assert_eq!(
            one("div.int", "div.s16", &[a, b]),
            u64::from(x.wrapping_div(y) as u16)
        );
        assert_eq!(
            one("rem", "rem.s16", &[a, b]),
            u64::from(x.wrapping_rem(y) as u16)
        );
        let (x, y) = (a as i64, b as i64);
        if y != 0 {
            assert_eq!(one("div.int", "div.s64", &[a, b]), x.wrapping_div(y) as u64);
        }
    }
}

#[test]
fn abs_and_neg_wrap_at_the_minimum() {
    assert_eq!(one("abs.int", "abs.s32", &[0x8000_0000]), 0x8000_0000);
    assert_eq!(one("abs.int", "abs.s16", &[0xffff]), 1);
    assert_eq!(one("abs.int", "abs.s64", &[1 << 63]), 1 << 63);
    assert_eq!(one("neg.int", "neg.s16", &[0x8000]), 0x8000);
    assert_eq!(one("neg.int", "neg.s32", &[1]), 0xffff_ffff);
    assert_eq!(one("neg.int", "neg.s64", &[0]), 0);
}

// ------------------------------------------------------------ min / max

#[test]
fn min_max_by_signedness_per_half_and_relu() {
    assert_eq!(one("min.int", "min.u32", &[0xffff_ffff, 1]), 1);
    assert_eq!(one("min.int", "min.s32", &[0xffff_ffff, 1]), 0xffff_ffff);
    assert_eq!(one("max.int", "max.s16", &[0x8000, 0x7fff]), 0x7fff);
    assert_eq!(one("max.int", "max.u64", &[1 << 63, 5]), 1 << 63);
    // .relu: the result, clamped below at 0.
    assert_eq!(
        one(
            "max.int",
            "max.relu.s32",
            &[(-5i32) as u32 as u64, (-3i32) as u32 as u64]
        ),
        0
    );
    assert_eq!(one("min.int", "min.relu.s32", &[7, 3]), 3);
    // Per 16-bit half.
    assert_eq!(
        one("min.int", "min.u16x2", &[0x0001_ffff, 0xffff_0002]),
        0x0001_0002
    );
    assert_eq!(
        one("min.int", "min.s16x2", &[0x0001_ffff, 0xffff_0002]),
        0xffff_ffff
    );
    assert_eq!(
        one("max.int", "max.relu.s16x2", &[0x8000_0005, 0xffff_0003]),
        0x0000_0005
    );
    assert_eq!(
        one("min.int", "min.relu.s16x2", &[0x0004_fffb, 0x0009_0002]),
        0x0004_0000
    );
}

// ------------------------------------------------------------ dp4a / dp2a

#[test]
fn dp4a_sign_handling() {
    // a = bytes 2, b = bytes 0xff (255 or -1).
    let (a, b) = (0x0202_0202, 0xffff_ffff);
    assert_eq!(one("dp4a.unsigned", "dp4a.u32.u32", &[a, b, 0]), 2040);
    assert_eq!(one("dp4a.signed", "dp4a.s32.u32", &[a, b, 0]), 2040);
    assert_eq!(
        one("dp4a.mixed", "dp4a.u32.s32", &[a, b, 0]),
        (-8i32) as u32 as u64
    );
    assert_eq!(
        one("dp4a.signed", "dp4a.s32.s32", &[a, b, 0]),
        (-8i32) as u32 as u64
    );
    assert_eq!(one("dp4a.signed", "dp4a.s32.s32", &[b, b, 5]), 9);
    // The accumulation wraps at 32 bits.
    assert_eq!(
        one("dp4a.unsigned", "dp4a.u32.u32", &[b, b, 0xffff_ffff]),
        4 * 255 * 255 - 1
    );
    // Byte i of a meets byte i of b.
    assert_eq!(
        one(
            "dp4a.unsigned",
            "dp4a.u32.u32",
            &[0x0403_0201, 0x0100_0000, 0]
        ),
        4
    );
}

#[test]
fn dp2a_halves_meet_the_low_or_high_bytes() {
    // a = halves (lo 2, hi 0xffff); b = bytes 1, 2, 3, 4 (low first).
    let (a, b) = (0xffff_0002, 0x0403_0201);
    assert_eq!(
        one("dp2a.unsigned", "dp2a.lo.u32.u32", &[a, b, 0]),
        2 + 0xffff * 2
    );
    assert_eq!(one("dp2a.signed", "dp2a.lo.s32.u32", &[a, b, 0]), 0);
    assert_eq!(
        one("dp2a.unsigned", "dp2a.hi.u32.u32", &[a, b, 0]),
        6 + 0xffff * 4
    );
    assert_eq!(one("dp2a.signed", "dp2a.hi.s32.s32", &[a, b, 1]), 3);
    // Signed b: bytes 0xff are -1.
    assert_eq!(
        one("dp2a.mixed", "dp2a.lo.u32.s32", &[0x0001_0001, 0xffff, 0]),
        (-2i32) as u32 as u64
    );
    assert_eq!(
        one(
            "dp2a.signed",
            "dp2a.hi.s32.s32",
            &[0xffff_ffff, 0xffff_0000, 0]
        ),
        2
    );
}

#[test]
fn dot_product_property() {
    let mut rng = Rng::new(6);
    for _ in 0..2000 {
        let (a, b, c) = (rng.value(), rng.value(), rng.value());
        for (form, opcode, sa, sb) in [
            ("dp4a.unsigned", "dp4a.u32.u32", false, false),
            ("dp4a.signed", "dp4a.s32.u32", true, false),
            ("dp4a.mixed", "dp4a.u32.s32", false, true),
            ("dp4a.signed", "dp4a.s32.s32", true, true),
        ] {
            let lane = |x: u64, i: usize, signed: bool| {
                let byte = (x >> (8 * i)) & 0xff;
                if signed {
                    sext(byte, 8)
                } else {
                    i128::from(byte)
                }
            };
            let sum: i128 = (0..4).map(|i| lane(a, i, sa) * lane(b, i, sb)).sum();
            let expect = mask((i128::from(c as u32) + sum) as u64, 32);
            assert_eq!(one(form, opcode, &[a, b, c]), expect, "{opcode}");
        }
        for (mode, first) in [("lo", 0), ("hi", 2)] {
            for (form, types, sa, sb) in [
                ("dp2a.unsigned", "u32.u32", false, false),
                ("dp2a.signed", "s32.u32", true, false),
                ("dp2a.mixed", "u32.s32", false, true),
                ("dp2a.signed", "s32.s32", true, true),
            ] {
                let half = |i: usize| {
                    let h = (a >> (16 * i)) & 0xffff;
                    if sa { sext(h, 16) } else { i128::from(h) }
                };
                let byte = |i: usize| {
                    let x = (b >> (8 * (first + i))) & 0xff;
                    if sb { sext(x, 8) } else { i128::from(x) }
                };
                let sum: i128 = (0..2).map(|i| half(i) * byte(i)).sum();
                let expect = mask((i128::from(c as u32) + sum) as u64, 32);
                let opcode = format!("dp2a.{mode}.{types}");
                assert_eq!(one(form, &opcode, &[a, b, c]), expect, "{opcode}");
            }
        }
    }
}

// ------------------------------------------------------------ atomics

fn update(form: &str, opcode: &str, old: Bits, operands: &[Bits]) -> Bits {
    let v = variant(form, opcode);
    atomic_update(&v)
        .unwrap_or_else(|| panic!("no update for {opcode}"))
        .apply(old, operands)
}

#[test]
fn atomic_updates() {
    assert_eq!(update("atom", "atom.and.b32", 0xff00, &[0x0ff0]), 0x0f00);
    assert_eq!(update("atom", "atom.or.b64", 1 << 40, &[1]), (1 << 40) | 1);
    assert_eq!(
        update("atom", "atom.xor.b32", 0xffff_ffff, &[1]),
        0xffff_fffe
    );
    assert_eq!(update("atom", "atom.exch.b64", 7, &[9]), 9);
    assert_eq!(update("atom", "atom.add.u32", 0xffff_ffff, &[2]), 1);
    assert_eq!(update("atom", "atom.add.u64", u64::MAX, &[2]), 1);
    assert_eq!(update("red", "red.add.s32", 5, &[0xffff_fffb]), 0);
    // min/max by the type's signedness.
    assert_eq!(update("atom", "atom.min.u32", 0xffff_ffff, &[1]), 1);
    assert_eq!(
        update("atom", "atom.min.s32", 0xffff_ffff, &[1]),
        0xffff_ffff
    );
    assert_eq!(update("atom", "atom.max.s64", 1 << 63, &[0]), 0);
    assert_eq!(update("red", "red.max.u64", 1 << 63, &[0]), 1 << 63);
    // inc: old >= b ? 0 : old + 1.
    assert_eq!(update("atom", "atom.inc.u32", 4, &[5]), 5);
    assert_eq!(update("atom", "atom.inc.u32", 5, &[5]), 0);
    assert_eq!(update("atom", "atom.inc.u32", 9, &[5]), 0);
    assert_eq!(
        update("atom", "atom.inc.u32", 0xffff_fffe, &[0xffff_ffff]),
        0xffff_ffff
    );
    // dec: old == 0 || old > b ? b : old - 1.
    assert_eq!(update("atom", "atom.dec.u32", 0, &[5]), 5);
    assert_eq!(update("atom", "atom.dec.u32", 9, &[5]), 5);
    assert_eq!(update("atom", "atom.dec.u32", 5, &[5]), 4);
    assert_eq!(update("red", "red.dec.u32", 1, &[0]), 0);
    // cas: compare with b, store c.
    assert_eq!(
        update("atom.cas", "atom.cas.b16", 0x1234, &[0x1234, 0xbeef]),
        0xbeef
    );
    assert_eq!(
        update("atom.cas", "atom.cas.b16", 0x1234, &[0x1235, 0xbeef]),
        0x1234
    );
    assert_eq!(
        update("atom.cas", "atom.cas.b64", u64::MAX, &[u64::MAX, 3]),
        3
    );
    // The cache-hint forms' policy operand does not take part.
    assert_eq!(
        update(
            "atom.cache-hint",
            "atom.add.L2::cache_hint.u32",
            1,
            &[2, 0xdead]
        ),
        3
    );
}

// ------------------------------------------------------------ data movement

#[test]
fn mov_copies_at_the_type_width() {
    assert_eq!(one("mov", "mov.b16", &[0x1_2345]), 0x2345);
    assert_eq!(one("mov", "mov.f32", &[0x7fc0_0001]), 0x7fc0_0001);
    assert_eq!(one("mov", "mov.s64", &[u64::MAX]), u64::MAX);
    assert_eq!(one("mov.pred", "mov.pred", &[1]), 1);
    assert_eq!(one("mov.sreg32", "mov.u32", &[31]), 31);
    assert_eq!(one("mov.sreg64", "mov.u64", &[1 << 40]), 1 << 40);
}

#[test]
fn packing_puts_the_first_lane_low() {
    assert_eq!(one("mov.pack2", "mov.b32", &[0x1111, 0x2222]), 0x2222_1111);
    assert_eq!(one("mov.pack2", "mov.b16", &[0x11, 0x22]), 0x2211);
    assert_eq!(
        one("mov.pack2", "mov.b64", &[0x1111_1111, 0x2222_2222]),
        0x2222_2222_1111_1111
    );
    assert_eq!(one("mov.pack4", "mov.b32", &[1, 2, 3, 4]), 0x0403_0201);
    assert_eq!(
        one("mov.pack4", "mov.b64", &[1, 2, 3, 0xffff]),
        0xffff_0003_0002_0001
    );
    assert_eq!(
        one("mov.pack2-split", "mov.b32", &[0xaaaa, 0xbbbb]),
        0xbbbb_aaaa
    );
    assert_eq!(
        one("mov.pack4-split", "mov.b32", &[1, 2, 3, 4]),
        0x0403_0201
    );
    assert_eq!(
        run("mov.unpack2", "mov.b32", &[0x2222_1111]),
        vec![0x1111, 0x2222]
    );
    assert_eq!(run("mov.unpack2", "mov.b16", &[0x2211]), vec![0x11, 0x22]);
    assert_eq!(
        run("mov.unpack4", "mov.b64", &[0x4444_3333_2222_1111]),
        vec![0x1111, 0x2222, 0x3333, 0x4444]
    );
    assert_eq!(
        run("mov.unpack2-split", "mov.b64", &[0xbbbb_aaaa_0000_1111]),
        vec![0x1111, 0xbbbb_aaaa]
    );
    assert_eq!(
        run("mov.unpack4-split", "mov.b32", &[0x0403_0201]),
        vec![1, 2, 3, 4]
    );
}

#[test]
fn pack_unpack_round_trip() {
    let mut rng = Rng::new(7);
    for (pack, unpack, opcode, lanes, bits) in [
        ("mov.pack2", "mov.unpack2", "mov.b16", 2, 8),
        ("mov.pack2", "mov.unpack2", "mov.b32", 2, 16),
        ("mov.pack2", "mov.unpack2", "mov.b64", 2, 32),
        ("mov.pack4", "mov.unpack4", "mov.b32", 4, 8),
        ("mov.pack4", "mov.unpack4", "mov.b64", 4, 16),
    ] {
        for _ in 0..200 {
            let parts: Vec<Bits> = (0..lanes).map(|_| mask(rng.value(), bits)).collect();
            let packed = one(pack, opcode, &parts);
            assert_eq!(run(unpack, opcode, &[packed]), parts, "{opcode}");
        }
    }
}

#[test]
fn createpolicy_writes_the_fixed_handle() {
    let a = one(
        "createpolicy.fractional",
        "createpolicy.fractional.L2::evict_last.b64",
        &[0x3f80_0000],
    );
    let b = one(
        "createpolicy.fractional-all",
        "createpolicy.fractional.L2::evict_first.b64",
        &[],
    );
    let c = one("createpolicy.cvt", "createpolicy.cvt.L2.b64", &[7]);
    assert_eq!(a, b);
    assert_eq!(b, c);
}
