//! Integer arithmetic (ISA 9.7.1, 9.7.13.5-6): `add`, `sub`, `mul`, `mad`,
//! `mul24`, `mad24`, `sad`, `div`, `rem`, `abs`, `neg`, `min`, `max`,
//! `dp4a`, `dp2a`, and the per-element updates of the integer `atom`/`red`
//! variants.
//!
//! Every value is read at its type's width (bits above the width are
//! ignored) and written masked to it. Results the ISA leaves unspecified
//! (division and remainder by zero) are the ones NVIDIA hardware returns;
//! see [`div_by_zero`] and [`rem_by_zero`].
//!
//! The module also holds the small lane helpers ([`unary`], [`binary`],
//! [`ternary`], [`sext`]) that the other integer-like families (bits,
//! data, compare) share.

use super::{AtomicUpdate, Bits, Compute, mask};
use tile_kernel_lowering::ptx::Slot;
use tile_kernel_lowering::ptx::{Effect, Modifiers, PtxType};

/// A [`Compute`] of one source lane and one destination lane.
pub(super) fn unary(f: impl Fn(Bits) -> Bits + Send + Sync + 'static) -> Compute {
    Compute::new(1, 1, move |s, d| d[0] = f(s[0]))
}

/// A [`Compute`] of two source lanes and one destination lane.
pub(super) fn binary(f: impl Fn(Bits, Bits) -> Bits + Send + Sync + 'static) -> Compute {
    Compute::new(2, 1, move |s, d| d[0] = f(s[0], s[1]))
}

/// A [`Compute`] of three source lanes and one destination lane.
pub(super) fn ternary(f: impl Fn(Bits, Bits, Bits) -> Bits + Send + Sync + 'static) -> Compute {
    Compute::new(3, 1, move |s, d| d[0] = f(s[0], s[1], s[2]))
}

/// The low `bits` bits of `x` read as a two's-complement signed number
/// (`bits` in 1..=64).
pub(super) fn sext(x: Bits, bits: u32) -> i64 {
    let shift = 64 - bits.clamp(1, 64);
    ((x << shift) as i64) >> shift
}

/// An integer (or bit-size) operand type: its width and signedness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Int {
    /// Width in bits: 16, 32 or 64.
    pub(super) bits: u32,
    /// Whether values are two's-complement signed (`.sN`).
    pub(super) signed: bool,
}

impl Int {
    /// The scalar integer or bit-size type `ty` (`.b16`..`.b64` count as
    /// unsigned), or `None` for any other type.
    pub(super) fn of(ty: PtxType) -> Option<Int> {
        let (bits, signed) = match ty {
            PtxType::U16 | PtxType::B16 => (16, false),
            PtxType::U32 | PtxType::B32 => (32, false),
            PtxType::U64 | PtxType::B64 => (64, false),
            PtxType::S16 => (16, true),
            PtxType::S32 => (32, true),
            PtxType::S64 => (64, true),
            _ => return None,
        };
        Some(Int { bits, signed })
    }

    /// The exact integer value of the register bits `x`.
    pub(super) fn value(self, x: Bits) -> i128 {
        if self.signed {
            i128::from(sext(x, self.bits))
        } else {
            i128::from(mask(x, self.bits as usize))
        }
    }

    /// The register bits of `v` reduced modulo 2^bits.
    fn wrap(self, v: i128) -> Bits {
        mask(v as u64, self.bits as usize)
    }

    /// The smallest and largest value of the type.
    fn range(self) -> (i128, i128) {
        if self.signed {
            (-(1i128 << (self.bits - 1)), (1i128 << (self.bits - 1)) - 1)
        } else {
            (0, (1i128 << self.bits) - 1)
        }
    }
}

/// Applies `f` to the two 16-bit halves of `a` and `b` (`.u16x2`, `.s16x2`).
fn per_half(a: Bits, b: Bits, f: impl Fn(u16, u16) -> u16) -> Bits {
    let lo = f(a as u16, b as u16);
    let hi = f((a >> 16) as u16, (b >> 16) as u16);
    Bits::from(lo) | (Bits::from(hi) << 16)
}

/// What `div` returns for a zero divisor (the ISA leaves it unspecified):
/// all ones at the type's width for every type, signed or not, i.e. what
/// ptxas's division sequence produces on sm_90 (measured on an H200).
pub(super) fn div_by_zero(int: Int) -> Bits {
    mask(Bits::MAX, int.bits as usize)
}

/// What `rem` returns for a zero divisor (the ISA leaves it unspecified):
/// all ones at the type's width for every type, like [`div_by_zero`]
/// (measured on an H200).
pub(super) fn rem_by_zero(int: Int) -> Bits {
    mask(Bits::MAX, int.bits as usize)
}

/// The semantics of an integer arithmetic variant, or `None` for other forms.
pub(crate) fn compute(m: &Modifiers) -> Option<Compute> {
    let id = m.form.id;
    match id {
        "add.int" | "sub.int" => add_sub(m, id == "sub.int"),
        "mul.int" => mul(m),
        "mul.wide" => mul_wide(m),
        "mad.int" => mad(m),
        "mad.wide" => mad_wide(m),
        "min.int" | "max.int" => min_max(m, id == "max.int"),
        "neg.int" => {
            let int = Int::of(m.ty(Slot::Type)?)?;
            Some(unary(move |a| int.wrap(-int.value(a))))
        }
        "abs.int" => {
            let int = Int::of(m.ty(Slot::Type)?)?;
            Some(unary(move |a| int.wrap(int.value(a).abs())))
        }
        "mul24" => mul24(m),
        "mad24" => mad24(m),
        "sad" => {
            let int = Int::of(m.ty(Slot::Type)?)?;
            Some(ternary(move |a, b, c| {
                let diff = (int.value(a) - int.value(b)).abs();
                int.wrap(int.value(c) + diff)
            }))
        }
        "div.int" => {
            let int = Int::of(m.ty(Slot::Type)?)?;
            Some(binary(move |a, b| {
                let (x, y) = (int.value(a), int.value(b));
                if y == 0 {
                    div_by_zero(int)
                } else {
                    // i128 holds every quotient, MIN / -1 included; the
                    // wrap then gives the two's-complement MIN back.
                    int.wrap(x / y)
                }
            }))
        }
        "rem" => {
            let int = Int::of(m.ty(Slot::Type)?)?;
            Some(binary(move |a, b| {
                let (x, y) = (int.value(a), int.value(b));
                if y == 0 {
                    rem_by_zero(int)
                } else {
                    // Truncating remainder: the sign of the dividend.
                    int.wrap(x % y)
                }
            }))
        }
        "dp4a.unsigned" | "dp4a.signed" | "dp4a.mixed" => {
            let a_signed = m.get(Slot::Atype) == Some("s32");
            let b_signed = m.get(Slot::Btype) == Some("s32");
            Some(ternary(move |a, b, c| {
                let mut acc = c as u32;
                for i in 0..4 {
                    let x = lane_value(a >> (8 * i), 8, a_signed);
                    let y = lane_value(b >> (8 * i), 8, b_signed);
                    acc = acc.wrapping_add((x * y) as u32);
                }
                Bits::from(acc)
            }))
        }
        "dp2a.unsigned" | "dp2a.signed" | "dp2a.mixed" => {
            let a_signed = m.get(Slot::Atype) == Some("s32");
            let b_signed = m.get(Slot::Btype) == Some("s32");
            // `.lo` takes b's bytes 0 and 1, `.hi` its bytes 2 and 3.
            let first = if m.get(Slot::Mode) == Some("hi") {
                2
            } else {
                0
            };
            Some(ternary(move |a, b, c| {
                let mut acc = c as u32;
                for i in 0..2 {
                    let x = lane_value(a >> (16 * i), 16, a_signed);
                    let y = lane_value(b >> (8 * (first + i)), 8, b_signed);
                    acc = acc.wrapping_add((x * y) as u32);
                }
                Bits::from(acc)
            }))
        }
        _ => None,
    }
}

/// The low `bits` bits of `x`, sign- or zero-extended.
fn lane_value(x: Bits, bits: u32, signed: bool) -> i64 {
    if signed {
        sext(x, bits)
    } else {
        mask(x, bits as usize) as i64
    }
}

/// `add`/`sub`: wrapping, `.sat.s32` clamping, or per 16-bit half.
fn add_sub(m: &Modifiers, sub: bool) -> Option<Compute> {
    let ty = m.ty(Slot::Type)?;
    if matches!(ty, PtxType::U16x2 | PtxType::S16x2) {
        // Wrapping per half: signedness does not change the bits.
        return Some(binary(move |a, b| {
            per_half(a, b, |x, y| {
                if sub {
                    x.wrapping_sub(y)
                } else {
                    x.wrapping_add(y)
                }
            })
        }));
    }
    let int = Int::of(ty)?;
    let sat = m.has(Slot::Sat);
    let (lo, hi) = int.range();
    Some(binary(move |a, b| {
        let (x, y) = (int.value(a), int.value(b));
        let v = if sub { x - y } else { x + y };
        if sat {
            int.wrap(v.clamp(lo, hi))
        } else {
            int.wrap(v)
        }
    }))
}

/// The full (double-width) product of two values of `int`.
fn product(int: Int, a: Bits, b: Bits) -> i128 {
    if int.bits == 64 && !int.signed {
        // u64 * u64 needs 128 unsigned bits: keep the bit pattern.
        (u128::from(a) * u128::from(b)) as i128
    } else {
        int.value(a) * int.value(b)
    }
}

/// The `.hi` or `.lo` half of the double-width product, as bits.
fn product_half(int: Int, hi: bool, a: Bits, b: Bits) -> Bits {
    let p = product(int, a, b);
    if hi {
        int.wrap(p >> int.bits)
    } else {
        int.wrap(p)
    }
}

/// `mul.hi`/`mul.lo`.
fn mul(m: &Modifiers) -> Option<Compute> {
    let int = Int::of(m.ty(Slot::Type)?)?;
    let hi = m.get(Slot::Mode) == Some("hi");
    Some(binary(move |a, b| product_half(int, hi, a, b)))
}

/// `mul.wide`: the whole product in a register of twice the width.
fn mul_wide(m: &Modifiers) -> Option<Compute> {
    let int = Int::of(m.ty(Slot::Type)?)?;
    let wide = (2 * int.bits) as usize;
    Some(binary(move |a, b| mask(product(int, a, b) as u64, wide)))
}

/// `mad.hi`/`mad.lo` (and `mad.hi.sat.s32`): the product's half plus `c`.
fn mad(m: &Modifiers) -> Option<Compute> {
    let int = Int::of(m.ty(Slot::Type)?)?;
    let hi = m.get(Slot::Mode) == Some("hi");
    let sat = m.has(Slot::Sat);
    let (lo_bound, hi_bound) = int.range();
    Some(ternary(move |a, b, c| {
        let half = product_half(int, hi, a, b);
        let v = int.value(half) + int.value(c);
        if sat {
            int.wrap(v.clamp(lo_bound, hi_bound))
        } else {
            int.wrap(v)
        }
    }))
}

/// `mad.wide`: the double-width product plus a double-width `c`.
fn mad_wide(m: &Modifiers) -> Option<Compute> {
    let int = Int::of(m.ty(Slot::Type)?)?;
    let wide = (2 * int.bits) as usize;
    Some(ternary(move |a, b, c| {
        mask((product(int, a, b) as u64).wrapping_add(c), wide)
    }))
}

/// `min`/`max`, scalar or per 16-bit half, with `.relu` clamping at zero.
fn min_max(m: &Modifiers, max: bool) -> Option<Compute> {
    let ty = m.ty(Slot::Type)?;
    let relu = m.has(Slot::Relu);
    let pick = move |x: i128, y: i128| {
        let v = if max { x.max(y) } else { x.min(y) };
        if relu { v.max(0) } else { v }
    };
    if matches!(ty, PtxType::U16x2 | PtxType::S16x2) {
        let half = Int {
            bits: 16,
            signed: ty == PtxType::S16x2,
        };
        return Some(binary(move |a, b| {
            per_half(a, b, |x, y| {
                half.wrap(pick(half.value(Bits::from(x)), half.value(Bits::from(y)))) as u16
            })
        }));
    }
    let int = Int::of(ty)?;
    Some(binary(move |a, b| {
        int.wrap(pick(int.value(a), int.value(b)))
    }))
}

/// The 48-bit product of the low 24 bits of `a` and `b` (sign-extended
/// from bit 23 for `.s32`).
fn product24(signed: bool, a: Bits, b: Bits) -> i64 {
    lane_value(a, 24, signed) * lane_value(b, 24, signed)
}

/// `mul24.hi` (product bits 47..16) and `mul24.lo` (bits 31..0).
fn mul24(m: &Modifiers) -> Option<Compute> {
    let signed = Int::of(m.ty(Slot::Type)?)?.signed;
    let hi = m.get(Slot::Mode) == Some("hi");
    Some(binary(move |a, b| {
        let p = product24(signed, a, b);
        mask((if hi { p >> 16 } else { p }) as u64, 32)
    }))
}

/// `mad24.hi`/`mad24.lo` plus `c`; `mad24.hi.sat.s32` clamps the sum.
fn mad24(m: &Modifiers) -> Option<Compute> {
    let signed = Int::of(m.ty(Slot::Type)?)?.signed;
    let hi = m.get(Slot::Mode) == Some("hi");
    let sat = m.has(Slot::Sat);
    Some(ternary(move |a, b, c| {
        let p = product24(signed, a, b);
        let part = mask((if hi { p >> 16 } else { p }) as u64, 32);
        if sat {
            let v = i64::from(part as u32 as i32) + i64::from(c as u32 as i32);
            mask(v.clamp(i32::MIN.into(), i32::MAX.into()) as u64, 32)
        } else {
            mask(part.wrapping_add(c), 32)
        }
    }))
}

/// The update of an integer `atom`/`red` variant (`and`, `or`, `xor`,
/// `exch`, `add`, `inc`, `dec`, `min`, `max` on 32/64-bit integer or bit
/// types, `cas` on `.b16`/`.b32`/`.b64`) or bulk reduction (a subset of
/// the same operations and types, element by element), or `None` for the
/// float types and the forms of other families.
pub(crate) fn atomic_update(m: &Modifiers) -> Option<AtomicUpdate> {
    if !matches!(m.effect(), Effect::Atomic { .. }) && !m.bulk_reduction() {
        return None;
    }
    let int = Int::of(m.ty(Slot::Type)?)?;
    let bits = int.bits as usize;
    let op = m.get(Slot::Op)?;
    let b_of = move |operands: &[Bits]| mask(operands.first().copied().unwrap_or(0), bits);
    let update = match op {
        "and" => AtomicUpdate::new(bits, move |old, o| mask(old, bits) & b_of(o)),
        "or" => AtomicUpdate::new(bits, move |old, o| mask(old, bits) | b_of(o)),
        "xor" => AtomicUpdate::new(bits, move |old, o| mask(old, bits) ^ b_of(o)),
        "exch" => AtomicUpdate::new(bits, move |_, o| b_of(o)),
        "add" => AtomicUpdate::new(bits, move |old, o| mask(old.wrapping_add(b_of(o)), bits)),
        // inc: old >= b ? 0 : old + 1 (unsigned).
        "inc" => AtomicUpdate::new(bits, move |old, o| {
            let (old, b) = (mask(old, bits), b_of(o));
            if old >= b { 0 } else { mask(old + 1, bits) }
        }),
        // dec: old == 0 || old > b ? b : old - 1 (unsigned).
        "dec" => AtomicUpdate::new(bits, move |old, o| {
            let (old, b) = (mask(old, bits), b_of(o));
            if old == 0 || old > b { b } else { old - 1 }
        }),
        "min" | "max" => {
            let max = op == "max";
            AtomicUpdate::new(bits, move |old, o| {
                let (x, y) = (int.value(old), int.value(b_of(o)));
                int.wrap(if max { x.max(y) } else { x.min(y) })
            })
        }
        // cas: [a] = old == b ? c : old.
        "cas" => AtomicUpdate::new(bits, move |old, o| {
            let old = mask(old, bits);
            let c = mask(o.get(1).copied().unwrap_or(0), bits);
            if old == b_of(o) { c } else { old }
        }),
        _ => return None,
    };
    Some(update)
}
