//! Logic, shifts and bit fields: hand-derived PTX examples for every rule
//! (prmt modes, bfe/bfi edges, bmsk/szext modes, fns), and property tests
//! against the ISA's pseudo-code written out bit by bit.
//!
//! The hardware-specific rules (64-bit bfe/bfi operands, fns with an
//! offset of i32::MIN) were measured on an H200.

use tile_kernel_interp::semantics::{Bits, compute, destination_lanes};
use tile_kernel_lowering::ptx::resolve::legal_variants;
use tile_kernel_lowering::ptx::table::FORMS;
use tile_kernel_lowering::ptx::{Access, OperandKind, Usability};

#[allow(dead_code)] // each test file uses part of it
mod support;
use support::{one, run};
use tile_kernel_testkit::Rng;

const FORMS_HERE: &[&str] = &[
    "and",
    "and.pred",
    "or",
    "or.pred",
    "xor",
    "xor.pred",
    "not",
    "not.pred",
    "cnot",
    "lop3",
    "lop3.bool",
    "shl",
    "shr",
    "shf",
    "prmt",
    "bfe",
    "bfi",
    "bfind",
    "brev",
    "popc",
    "clz",
    "bmsk",
    "szext",
    "fns",
];

/// What this file's tests draw from the test kit's seeded [`Rng`].
trait Draws {
    fn amount(&mut self) -> u64;
}

impl Draws for Rng {
    /// A shift amount, position or length: usually small, sometimes huge.
    fn amount(&mut self) -> u64 {
        let r = self.next_u64();
        match r % 8 {
            0 => self.next_u64() & 0xffff_ffff,
            1 => 0xffff_ff00 | (self.next_u64() & 0xff),
            2 => 0x100 + (self.next_u64() % 80),
            _ => self.next_u64() % 80,
        }
    }
}

fn mask(v: u64, bits: usize) -> u64 {
    if bits >= 64 { v } else { v & ((1 << bits) - 1) }
}

fn bit(v: u64, i: u64) -> u64 {
    if i >= 64 { 0 } else { (v >> i) & 1 }
}

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
            for _ in 0..500 {
                let inputs: Vec<Bits> = (0..c.inputs())
                    .map(|i| {
                        if i % 2 == 0 {
                            rng.next_u64()
                        } else {
                            rng.amount()
                        }
                    })
                    .collect();
                let mut out = vec![0; c.outputs()];
                c.run(&inputs, &mut out);
                for (lane, (&value, &bits)) in out.iter().zip(&widths).enumerate() {
                    assert_eq!(value, mask(value, bits), "{} lane {lane}", v.opcode_text());
                }
            }
        }
    }
    assert_eq!(variants, 72);
}

// ------------------------------------------------------------ logic

#[test]
fn logic_on_registers_and_predicates() {
    assert_eq!(one("and", "and.b16", &[0x1_ff0f, 0xf0ff]), 0xf00f);
    assert_eq!(one("or", "or.b32", &[0xf000_0000, 0x0f]), 0xf000_000f);
    assert_eq!(one("xor", "xor.b64", &[u64::MAX, 1]), u64::MAX - 1);
    assert_eq!(one("not", "not.b16", &[0x00ff]), 0xff00);
    assert_eq!(one("not", "not.b64", &[0]), u64::MAX);
    // cnot: C's logical not, per width.
    assert_eq!(one("cnot", "cnot.b32", &[0]), 1);
    assert_eq!(one("cnot", "cnot.b32", &[0x8000_0000]), 0);
    assert_eq!(one("cnot", "cnot.b16", &[0x1_0000]), 1);
    for (a, b) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        assert_eq!(one("and.pred", "and.pred", &[a, b]), a & b);
        assert_eq!(one("or.pred", "or.pred", &[a, b]), a | b);
        assert_eq!(one("xor.pred", "xor.pred", &[a, b]), a ^ b);
    }
    assert_eq!(one("not.pred", "not.pred", &[0]), 1);
    assert_eq!(one("not.pred", "not.pred", &[1]), 0);
}

#[test]
fn lop3_truth_tables() {
    let (a, b, c) = (0xf0f0_1234, 0xcccc_5678, 0xaaaa_9abc);
    assert_eq!(one("lop3", "lop3.b32", &[a, b, c, 0xf0]), a);
    assert_eq!(one("lop3", "lop3.b32", &[a, b, c, 0xcc]), b);
    assert_eq!(one("lop3", "lop3.b32", &[a, b, c, 0xaa]), c);
    assert_eq!(one("lop3", "lop3.b32", &[a, b, c, 0x96]), a ^ b ^ c);
    assert_eq!(one("lop3", "lop3.b32", &[a, b, c, 0x80]), a & b & c);
    assert_eq!(
        one("lop3", "lop3.b32", &[a, b, c, 0xe8]),
        (a & b) | (a & c) | (b & c)
    );
    assert_eq!(one("lop3", "lop3.b32", &[a, b, c, 0xff]), 0xffff_ffff);
    assert_eq!(one("lop3", "lop3.b32", &[a, b, c, 0x00]), 0);
    // a ? b : c.
    assert_eq!(
        one("lop3", "lop3.b32", &[a, b, c, 0xca]),
        (a & b) | (!a & c & 0xffff_ffff)
    );
}

#[test]
fn lop3_property() {
    let mut rng = Rng::new(2);
    for _ in 0..3000 {
        let (a, b, c, lut) = (
            rng.next_u64(),
            rng.next_u64(),
            rng.next_u64(),
            rng.next_u64() & 0xff,
        );
        let mut d = 0;
        for i in 0..32 {
            let index = (bit(a, i) << 2) | (bit(b, i) << 1) | bit(c, i);
            d |= bit(lut, index) << i;
        }
        assert_eq!(one("lop3", "lop3.b32", &[a, b, c, lut]), d);
    }
}

#[test]
fn lop3_boolop_folds_d_nonzero_with_q() {
    // d = a & b & c.
    for (a, q, d, and, or) in [
        (0u64, 0u64, 0u64, 0u64, 0u64),
        (0, 1, 0, 0, 1),
        (4, 0, 4, 0, 1),
        (4, 1, 4, 1, 1),
    ] {
        let args = [a, 0xffff_ffff, 0xffff_ffff, 0x80, q];
        assert_eq!(run("lop3.bool", "lop3.and.b32", &args), vec![d, and]);
        assert_eq!(run("lop3.bool", "lop3.or.b32", &args), vec![d, or]);
    }
}

// ------------------------------------------------------------ shifts

#[test]
fn shifts_past_the_width() {
    assert_eq!(one("shl", "shl.b16", &[0x1234, 4]), 0x2340);
    assert_eq!(one("shl", "shl.b16", &[0x1234, 16]), 0);
    assert_eq!(one("shl", "shl.b32", &[1, 31]), 0x8000_0000);
    assert_eq!(one("shl", "shl.b32", &[1, 32]), 0);
    assert_eq!(one("shl", "shl.b64", &[1, 63]), 1 << 63);
    assert_eq!(one("shl", "shl.b64", &[1, 0xffff_ffff]), 0);
    assert_eq!(one("shr", "shr.u16", &[0x8000, 15]), 1);
    assert_eq!(one("shr", "shr.b16", &[0x8000, 16]), 0);
    assert_eq!(one("shr", "shr.s16", &[0x8000, 4]), 0xf800);
    assert_eq!(one("shr", "shr.s16", &[0x8000, 100]), 0xffff);
    assert_eq!(one("shr", "shr.s16", &[0x7fff, 100]), 0);
    assert_eq!(
        one("shr", "shr.s32", &[0x8000_0000, 0xffff_ffff]),
        0xffff_ffff
    );
    assert_eq!(one("shr", "shr.u32", &[0x8000_0000, 32]), 0);
    assert_eq!(one("shr", "shr.s64", &[1 << 63, 63]), u64::MAX);
    assert_eq!(one("shr", "shr.u64", &[u64::MAX, 64]), 0);
    // The amount is a .u32: lane bits above bit 31 are not part of it.
    assert_eq!(one("shl", "shl.b32", &[1, 0x1_0000_0001]), 2);
}

#[test]
fn funnel_shifts_clamp_or_wrap() {
    let (a, b) = (0x8765_4321u64, 0x1234_5678u64);
    // .l: high word of {b, a} << n; .r: low word of {b, a} >> n.
    assert_eq!(one("shf", "shf.l.clamp.b32", &[a, b, 8]), 0x3456_7887);
    assert_eq!(one("shf", "shf.r.clamp.b32", &[a, b, 8]), 0x7887_6543);
    assert_eq!(one("shf", "shf.l.clamp.b32", &[a, b, 0]), b);
    assert_eq!(one("shf", "shf.r.wrap.b32", &[a, b, 0]), a);
    // .clamp: 32 and beyond give the other word.
    assert_eq!(one("shf", "shf.l.clamp.b32", &[a, b, 40]), a);
    assert_eq!(one("shf", "shf.r.clamp.b32", &[a, b, 0xffff_ffff]), b);
    // .wrap: 40 is 8.
    assert_eq!(one("shf", "shf.l.wrap.b32", &[a, b, 40]), 0x3456_7887);
    assert_eq!(one("shf", "shf.r.wrap.b32", &[a, b, 32]), a);
}

#[test]
fn shift_property() {
    let mut rng = Rng::new(3);
    for _ in 0..3000 {
        let (a, b, n) = (rng.next_u64(), rng.next_u64(), rng.amount());
        for bits in [16usize, 32, 64] {
            let shl = if n >= bits as u64 {
                0
            } else {
                mask(a << n, bits)
            };
            assert_eq!(one("shl", &format!("shl.b{bits}"), &[a, n]), shl);
            let value = mask(a, bits);
            let shr = if n >= bits as u64 { 0 } else { value >> n };
            assert_eq!(one("shr", &format!("shr.u{bits}"), &[a, n]), shr);
            let signed = ((value << (64 - bits)) as i64) >> (64 - bits);
            let sar = mask((signed >> n.min(63)) as u64, bits);
            assert_eq!(one("shr", &format!("shr.s{bits}"), &[a, n]), sar);
        }
        let wide = (u128::from(mask(b, 32)) << 32) | u128::from(mask(a, 32));
        for (mode, count) in [("clamp", n.min(32)), ("wrap", n & 31)] {
            let left = mask(((wide << count) >> 32) as u64, 32);
            let right = mask((wide >> count) as u64, 32);
            assert_eq!(one("shf", &format!("shf.l.{mode}.b32"), &[a, b, n]), left);
            assert_eq!(one("shf", &format!("shf.r.{mode}.b32"), &[a, b, n]), right);
        }
    }
}

// ------------------------------------------------------------ prmt

#[test]
fn prmt_default_mode_selects_and_replicates_signs() {
    let (a, b) = (0x3322_1100u64, 0xf766_5544u64);
    assert_eq!(one("prmt", "prmt.b32", &[a, b, 0x3210]), a);
    assert_eq!(one("prmt", "prmt.b32", &[a, b, 0x7654]), b);
    assert_eq!(one("prmt", "prmt.b32", &[a, b, 0x0123]), 0x0011_2233);
    assert_eq!(one("prmt", "prmt.b32", &[a, b, 0x4444]), 0x4444_4444);
    // Bit 3 of a selector replicates the selected byte's bit 7.
    assert_eq!(one("prmt", "prmt.b32", &[a, b, 0xf8f7]), 0xff00_fff7);
    assert_eq!(one("prmt", "prmt.b32", &[0x80, 0, 0x4448]), 0x0000_00ff);
    // Only c's low 16 bits count.
    assert_eq!(one("prmt", "prmt.b32", &[a, b, 0xffff_3210]), a);
}

#[test]
fn prmt_modes_follow_the_isa_table() {
    // Bytes 0-3 from a, 4-7 from b.
    let (a, b) = (0x3322_1100u64, 0x7766_5544u64);
    let cases: &[(&str, [u64; 4])] = &[
        // Listed as in the ISA: selector 0..3 -> d.b3 d.b2 d.b1 d.b0.
        ("f4e", [0x3322_1100, 0x4433_2211, 0x5544_3322, 0x6655_4433]),
        ("b4e", [0x5566_7700, 0x6677_0011, 0x7700_1122, 0x0011_2233]),
        ("rc8", [0x0000_0000, 0x1111_1111, 0x2222_2222, 0x3333_3333]),
        ("ecl", [0x3322_1100, 0x3322_1111, 0x3322_2222, 0x3333_3333]),
        ("ecr", [0x0000_0000, 0x1111_1100, 0x2222_1100, 0x3322_1100]),
        ("rc16", [0x1100_1100, 0x3322_3322, 0x1100_1100, 0x3322_3322]),
    ];
    for (mode, expect) in cases {
        for (selector, &d) in expect.iter().enumerate() {
            let opcode = format!("prmt.b32.{mode}");
            // Only c's two low bits select the pattern.
            let c = selector as u64 | 0xffff_fff0;
            assert_eq!(one("prmt", &opcode, &[a, b, c]), d, "{opcode} {selector}");
        }
    }
}

#[test]
fn prmt_property() {
    let mut rng = Rng::new(4);
    for _ in 0..3000 {
        let (a, b, c) = (rng.next_u64(), rng.next_u64(), rng.next_u64());
        let bytes = (mask(b, 32) << 32) | mask(a, 32);
        let mut d = 0;
        for k in 0..4 {
            let sel = (c >> (4 * k)) & 0xf;
            let byte = (bytes >> (8 * (sel & 7))) & 0xff;
            let byte = if sel & 8 == 0 {
                byte
            } else {
                0xff * (byte >> 7)
            };
            d |= byte << (8 * k);
        }
        assert_eq!(one("prmt", "prmt.b32", &[a, b, c]), d);
    }
}

// ------------------------------------------------------------ bit fields

#[test]
fn bfe_fields_signs_and_edges() {
    assert_eq!(one("bfe", "bfe.u32", &[0x1234_5678, 4, 8]), 0x67);
    assert_eq!(one("bfe", "bfe.s32", &[0x1234_5678, 4, 8]), 0x67);
    assert_eq!(one("bfe", "bfe.s32", &[0x1234_5f88, 4, 8]), 0xffff_fff8);
    // A zero length gives 0, also signed.
    assert_eq!(one("bfe", "bfe.s32", &[0xffff_ffff, 4, 0]), 0);
    // Past the msb: the field stops at bit 31 and .s32 fills with bit 31.
    assert_eq!(one("bfe", "bfe.u32", &[0x8000_0000, 28, 8]), 0x8);
    assert_eq!(one("bfe", "bfe.s32", &[0x8000_0000, 28, 8]), 0xffff_fff8);
    // A start beyond the msb: all sign (or zero).
    assert_eq!(one("bfe", "bfe.s32", &[0x8000_0000, 40, 3]), 0xffff_ffff);
    assert_eq!(one("bfe", "bfe.u32", &[0x8000_0000, 40, 3]), 0);
    // 32-bit: position and length are b & 0xff and c & 0xff.
    assert_eq!(one("bfe", "bfe.u32", &[0x1234_5678, 0x104, 0x308]), 0x67);
    // 64-bit: the whole 32-bit values count (H200): 0x100 is past bit 63.
    assert_eq!(one("bfe", "bfe.u64", &[0x1234_5678, 0x104, 8]), 0);
    assert_eq!(one("bfe", "bfe.s64", &[1 << 63, 0x100, 8]), u64::MAX);
    assert_eq!(
        one("bfe", "bfe.u64", &[0x1234_5678_9abc_def0, 32, 0x100]),
        0x1234_5678
    );
    assert_eq!(
        one("bfe", "bfe.s64", &[0x8000_0000_0000_0000, 60, 8]),
        0xffff_ffff_ffff_fff8
    );
}

#[test]
fn bfi_inserts_what_fits() {
    assert_eq!(
        one("bfi", "bfi.b32", &[0xab, 0x1234_5678, 8, 8]),
        0x1234_ab78
    );
    assert_eq!(
        one("bfi", "bfi.b32", &[0xab, 0x1234_5678, 8, 0]),
        0x1234_5678
    );
    // Bits past the msb are dropped.
    assert_eq!(one("bfi", "bfi.b32", &[0xff, 0, 28, 8]), 0xf000_0000);
    assert_eq!(one("bfi", "bfi.b32", &[0xff, 7, 32, 8]), 7);
    // 32-bit: c & 0xff, d & 0xff.
    assert_eq!(
        one("bfi", "bfi.b32", &[0xab, 0x1234_5678, 0x108, 0x208]),
        0x1234_ab78
    );
    // 64-bit: the whole values count (H200).
    assert_eq!(
        one("bfi", "bfi.b64", &[0xab, 0x1234_5678, 0x108, 8]),
        0x1234_5678
    );
    assert_eq!(one("bfi", "bfi.b64", &[u64::MAX, 0, 60, 0x100]), 0xf << 60);
}

/// `bfe` by the ISA's pseudo-code, bit by bit, with `operand` the part of
/// the position and length that counts.
fn bfe_reference(bits: u64, signed: bool, operand: u64, a: u64, b: u64, c: u64) -> u64 {
    let msb = bits - 1;
    let (pos, len) = (b & operand, c & operand);
    let sbit = if !signed || len == 0 {
        0
    } else {
        bit(a, (pos + len - 1).min(msb))
    };
    let mut d = 0;
    for i in 0..bits {
        let v = if i < len && pos + i <= msb {
            bit(a, pos + i)
        } else {
            sbit
        };
        d |= v << i;
    }
    d
}

fn bfi_reference(bits: u64, operand: u64, a: u64, b: u64, c: u64, d: u64) -> u64 {
    let msb = bits - 1;
    let (pos, len) = (c & operand, d & operand);
    let mut f = mask(b, bits as usize);
    let mut i = 0;
    while i < len && pos + i <= msb {
        f = (f & !(1 << (pos + i))) | (bit(a, i) << (pos + i));
        i += 1;
    }
    f
}

#[test]
fn bit_field_property() {
    let mut rng = Rng::new(5);
    for _ in 0..3000 {
        let (a, b, c, d) = (rng.next_u64(), rng.amount(), rng.amount(), rng.amount());
        for (ty, bits, signed, operand) in [
            ("u32", 32, false, 0xff),
            ("s32", 32, true, 0xff),
            ("u64", 64, false, 0xffff_ffff),
            ("s64", 64, true, 0xffff_ffff),
        ] {
            let expect = bfe_reference(bits, signed, operand, a, b, c);
            assert_eq!(
                one("bfe", &format!("bfe.{ty}"), &[a, b, c]),
                expect,
                "bfe.{ty}"
            );
        }
        let f = rng.next_u64();
        assert_eq!(
            one("bfi", "bfi.b32", &[f, a, b, c]),
            bfi_reference(32, 0xff, f, a, b, c)
        );
        assert_eq!(
            one("bfi", "bfi.b64", &[f, a, b, d]),
            bfi_reference(64, 0xffff_ffff, f, a, b, d)
        );
    }
}

#[test]
fn bfind_finds_the_top_non_sign_bit() {
    assert_eq!(one("bfind", "bfind.u32", &[0]), 0xffff_ffff);
    assert_eq!(one("bfind", "bfind.u32", &[1]), 0);
    assert_eq!(one("bfind", "bfind.u32", &[0x8000_0000]), 31);
    assert_eq!(one("bfind", "bfind.shiftamt.u32", &[0x8000_0000]), 0);
    assert_eq!(one("bfind", "bfind.shiftamt.u32", &[1]), 31);
    assert_eq!(one("bfind", "bfind.shiftamt.u32", &[0]), 0xffff_ffff);
    // Signed: a negative value is searched as ~a.
    assert_eq!(one("bfind", "bfind.s32", &[0xffff_ffff]), 0xffff_ffff);
    assert_eq!(one("bfind", "bfind.s32", &[0x8000_0000]), 30);
    assert_eq!(one("bfind", "bfind.s32", &[0xffff_fff0]), 3);
    assert_eq!(one("bfind", "bfind.shiftamt.s32", &[0xffff_fff0]), 28);
    assert_eq!(one("bfind", "bfind.u64", &[1 << 40]), 40);
    assert_eq!(one("bfind", "bfind.s64", &[u64::MAX]), 0xffff_ffff);
    assert_eq!(one("bfind", "bfind.shiftamt.s64", &[1]), 63);
}

#[test]
fn counting_and_reversing() {
    assert_eq!(one("brev", "brev.b32", &[1]), 0x8000_0000);
    assert_eq!(one("brev", "brev.b32", &[0x1_0000_0001]), 0x8000_0000);
    assert_eq!(one("brev", "brev.b64", &[0x3]), 0xc000_0000_0000_0000);
    assert_eq!(one("popc", "popc.b32", &[0x1_ffff_ffff]), 32);
    assert_eq!(one("popc", "popc.b64", &[u64::MAX]), 64);
    assert_eq!(one("clz", "clz.b32", &[0]), 32);
    assert_eq!(one("clz", "clz.b32", &[0x1_0000_0001]), 31);
    assert_eq!(one("clz", "clz.b64", &[0]), 64);
    assert_eq!(one("clz", "clz.b64", &[1 << 63]), 0);
}

#[test]
fn bmsk_modes() {
    assert_eq!(one("bmsk", "bmsk.clamp.b32", &[4, 8]), 0xff0);
    assert_eq!(one("bmsk", "bmsk.wrap.b32", &[4, 8]), 0xff0);
    assert_eq!(one("bmsk", "bmsk.clamp.b32", &[4, 0]), 0);
    // The field stops at bit 31.
    assert_eq!(one("bmsk", "bmsk.clamp.b32", &[28, 8]), 0xf000_0000);
    assert_eq!(one("bmsk", "bmsk.wrap.b32", &[28, 8]), 0xf000_0000);
    // .clamp: a position of 32 or more gives 0; a width of 32 or more runs to bit 31.
    assert_eq!(one("bmsk", "bmsk.clamp.b32", &[32, 8]), 0);
    assert_eq!(one("bmsk", "bmsk.clamp.b32", &[4, 32]), 0xffff_fff0);
    assert_eq!(
        one("bmsk", "bmsk.clamp.b32", &[0, 0xffff_ffff]),
        0xffff_ffff
    );
    // .wrap: both mod 32.
    assert_eq!(one("bmsk", "bmsk.wrap.b32", &[36, 8]), 0xff0);
    assert_eq!(one("bmsk", "bmsk.wrap.b32", &[4, 32]), 0);
    assert_eq!(one("bmsk", "bmsk.wrap.b32", &[4, 40]), 0xff0);
}

#[test]
fn szext_modes() {
    assert_eq!(one("szext", "szext.clamp.s32", &[0x80, 8]), 0xffff_ff80);
    assert_eq!(one("szext", "szext.clamp.u32", &[0x1ff, 8]), 0xff);
    assert_eq!(one("szext", "szext.clamp.s32", &[0x7f, 8]), 0x7f);
    assert_eq!(one("szext", "szext.wrap.s32", &[0xffff, 0]), 0);
    assert_eq!(one("szext", "szext.clamp.s32", &[0xffff, 0]), 0);
    // 32 or more: a itself with .clamp, b & 31 with .wrap.
    assert_eq!(
        one("szext", "szext.clamp.s32", &[0x1234_56f8, 40]),
        0x1234_56f8
    );
    assert_eq!(
        one("szext", "szext.wrap.s32", &[0x1234_56f8, 40]),
        0xffff_fff8
    );
    assert_eq!(one("szext", "szext.wrap.u32", &[0x1234_56f8, 40]), 0xf8);
    assert_eq!(one("szext", "szext.wrap.u32", &[0x1234_56f8, 32]), 0);
}

#[test]
fn bmsk_szext_property() {
    let mut rng = Rng::new(6);
    for _ in 0..3000 {
        let (a, b) = (rng.amount(), rng.amount());
        for (mode, clamp) in [("clamp", true), ("wrap", false)] {
            // bmsk: bits [pos, pos + width) within 0..32.
            let (pos, width) = if clamp {
                (a.min(32), b.min(32))
            } else {
                (a & 31, b & 31)
            };
            let expect = (0..32)
                .filter(|&i| i >= pos && i < pos + width)
                .fold(0, |m, i| m | (1 << i));
            assert_eq!(one("bmsk", &format!("bmsk.{mode}.b32"), &[a, b]), expect);
            // szext: the low n bits of x, extended.
            let x = rng.next_u64() & 0xffff_ffff;
            let n = if clamp { b.min(32) } else { b & 31 };
            let low = mask(x, n as usize);
            let sign = n > 0 && bit(x, n - 1) == 1;
            let signed = if sign {
                low | (0xffff_ffff & !mask(u64::MAX, n as usize))
            } else {
                low
            };
            assert_eq!(one("szext", &format!("szext.{mode}.u32"), &[x, b]), low);
            assert_eq!(one("szext", &format!("szext.{mode}.s32"), &[x, b]), signed);
        }
    }
}

#[test]
fn fns_finds_the_nth_set_bit() {
    let m = 0b1011_0010;
    assert_eq!(one("fns", "fns.b32", &[m, 0, 1]), 1);
    assert_eq!(one("fns", "fns.b32", &[m, 0, 2]), 4);
    assert_eq!(one("fns", "fns.b32", &[m, 0, 4]), 7);
    assert_eq!(one("fns", "fns.b32", &[m, 0, 5]), 0xffff_ffff);
    // Base itself counts; negative offsets search downwards.
    assert_eq!(one("fns", "fns.b32", &[m, 4, 1]), 4);
    assert_eq!(one("fns", "fns.b32", &[m, 7, (-2i32) as u32 as u64]), 5);
    assert_eq!(one("fns", "fns.b32", &[m, 7, (-4i32) as u32 as u64]), 1);
    assert_eq!(
        one("fns", "fns.b32", &[m, 7, (-5i32) as u32 as u64]),
        0xffff_ffff
    );
    // Offset 0: base if its bit is set.
    assert_eq!(one("fns", "fns.b32", &[m, 5, 0]), 5);
    assert_eq!(one("fns", "fns.b32", &[m, 6, 0]), 0xffff_ffff);
    // A base past bit 31 finds nothing.
    assert_eq!(
        one("fns", "fns.b32", &[u64::from(u32::MAX), 32, 1]),
        0xffff_ffff
    );
    assert_eq!(
        one("fns", "fns.b32", &[u64::from(u32::MAX), 40, 0]),
        0xffff_ffff
    );
    // Offset i32::MIN gives 0 on the H200, whatever the mask and base.
    assert_eq!(one("fns", "fns.b32", &[0, 3, 0x8000_0000]), 0);
    assert_eq!(
        one("fns", "fns.b32", &[u64::from(u32::MAX), 40, 0x8000_0000]),
        0
    );
}
