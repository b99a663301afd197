//! Half precision (ISA 9.7.4): `add`, `sub`, `mul`, `fma` (`.relu`,
//! `.oob`, `.sat`, `.ftz`), `neg`, `abs`, `min`, `max`, `ex2.approx` and
//! `tanh.approx` on `.f16`, `.f16x2`, `.bf16` and `.bf16x2`.
//!
//! A pair type (`x2`) computes each 16-bit half of its 32-bit registers
//! independently: the low half from the low halves, the high half from the
//! high halves. Rules (measured on an H200, matching the ISA where it
//! speaks):
//!
//! - every NaN result is the canonical NaN `0x7fff` (`neg`/`abs` too);
//! - `.ftz` flushes subnormal operands and rounded results to the zero of
//!   their sign; `.sat` clamps to `[+0.0, 1.0]` (NaN and `-0.0` give `+0.0`);
//! - `.relu` clamps a negative result (`-0.0` included) to `+0.0`, a NaN
//!   stays the canonical NaN;
//! - `.oob` gives `+0.0` where `a` or `b` is the OOB NaN that tensor loads
//!   fill out-of-bounds elements with (see [`is_oob_nan`]; an OOB NaN `c`
//!   is an ordinary NaN), whatever the other operands (NaN included);
//! - `min`/`max` follow the f32 rules (`float.rs`).

use super::approx;
use super::float::{Arith, Kind, MinMax, sign_op};
use super::{Bits, Compute};
use tile_kernel_lowering::ptx::Slot;
use tile_kernel_lowering::ptx::{Modifiers, PtxType};

/// `f` applied to each 16-bit half of `a` and `b` (the low half from the low
/// halves, the high from the high), packed back in place.
pub(super) fn per_half(a: Bits, b: Bits, f: impl Fn(Bits, Bits) -> Bits) -> Bits {
    let lo = f(a & 0xffff, b & 0xffff) & 0xffff;
    let hi = f(a >> 16 & 0xffff, b >> 16 & 0xffff) & 0xffff;
    hi << 16 | lo
}

/// `f` applied to each 16-bit half of `a`, packed back in place.
fn per_half1(a: Bits, f: impl Fn(Bits) -> Bits) -> Bits {
    per_half(a, 0, |x, _| f(x))
}

/// `f` applied to each 16-bit half of `a`, `b` and `c`, packed back in place.
fn per_half3(a: Bits, b: Bits, c: Bits, f: impl Fn(Bits, Bits, Bits) -> Bits) -> Bits {
    let lo = f(a & 0xffff, b & 0xffff, c & 0xffff) & 0xffff;
    let hi = f(a >> 16 & 0xffff, b >> 16 & 0xffff, c >> 16 & 0xffff) & 0xffff;
    hi << 16 | lo
}

/// Whether the 16-bit `x` is the OOB NaN (the fill of an out-of-bounds
/// tensor element, which `.oob` treats as making the product zero): `0x7ff7`
/// with either sign, for f16 and bf16 alike (measured on an H200 over every
/// 16-bit pattern in each operand position).
pub(super) fn is_oob_nan(x: Bits) -> bool {
    x & 0x7fff == 0x7ff7
}

/// A [`Compute`] of one lane that applies `f` to the whole register
/// (scalar types) or to each half (pairs).
fn unary(pair: bool, f: impl Fn(Bits) -> Bits + Send + Sync + 'static) -> Compute {
    if pair {
        Compute::new(1, 1, move |s, d| d[0] = per_half1(s[0], &f))
    } else {
        Compute::new(1, 1, move |s, d| d[0] = f(s[0] & 0xffff))
    }
}

fn binary(pair: bool, f: impl Fn(Bits, Bits) -> Bits + Send + Sync + 'static) -> Compute {
    if pair {
        Compute::new(2, 1, move |s, d| d[0] = per_half(s[0], s[1], &f))
    } else {
        Compute::new(2, 1, move |s, d| d[0] = f(s[0] & 0xffff, s[1] & 0xffff))
    }
}

fn ternary(pair: bool, f: impl Fn(Bits, Bits, Bits) -> Bits + Send + Sync + 'static) -> Compute {
    if pair {
        Compute::new(3, 1, move |s, d| d[0] = per_half3(s[0], s[1], s[2], &f))
    } else {
        Compute::new(3, 1, move |s, d| {
            d[0] = f(s[0] & 0xffff, s[1] & 0xffff, s[2] & 0xffff)
        })
    }
}

/// `.relu`: a negative result (`-0.0` too) becomes `+0.0`; NaN stays.
fn relu(kind: Kind, x: Bits) -> Bits {
    if x & kind.sign() != 0 && !kind.is_nan(x) {
        0
    } else {
        x
    }
}

/// The semantics of a variant of this family's forms, or `None` for other forms.
pub(crate) fn compute(m: &Modifiers) -> Option<Compute> {
    let ty = m.ty(Slot::Type)?;
    let pair = match ty {
        PtxType::F16 | PtxType::Bf16 => false,
        PtxType::F16x2 | PtxType::Bf16x2 => true,
        _ => return None,
    };
    let kind = Kind::of(ty)?;
    let ftz = m.has(Slot::Ftz);
    Some(match m.form.id {
        "add.half" => {
            let op = Arith::of(kind, m, Slot::Rnd);
            binary(pair, move |a, b| op.add(a, b))
        }
        "sub.half" => {
            let op = Arith::of(kind, m, Slot::Rnd);
            binary(pair, move |a, b| op.sub(a, b))
        }
        "mul.half" => {
            let op = Arith::of(kind, m, Slot::Rnd);
            binary(pair, move |a, b| op.mul(a, b))
        }
        "fma.half" | "fma.half-oob" => {
            let op = Arith::of(kind, m, Slot::Rnd);
            let (use_relu, oob) = (m.has(Slot::Relu), m.has(Slot::Oob));
            ternary(pair, move |a, b, c| {
                // Only the multiplicands are tested: an OOB NaN `c` is an
                // ordinary NaN.
                if oob && (is_oob_nan(a) || is_oob_nan(b)) {
                    return 0;
                }
                let d = op.fma(a, b, c);
                if use_relu { relu(kind, d) } else { d }
            })
        }
        "neg.half" | "abs.half" => {
            let abs = m.form.mnemonic == "abs";
            unary(pair, move |a| sign_op(kind, abs, ftz, a))
        }
        "min.half" | "max.half" => {
            let op = MinMax::of(kind, m);
            binary(pair, move |a, b| op.apply(a, b))
        }
        "ex2.half" => match kind {
            Kind::F16 => unary(pair, approx::ex2_f16),
            _ => unary(pair, approx::ex2_ftz_bf16),
        },
        "tanh.half" => match kind {
            Kind::F16 => unary(pair, approx::tanh_f16),
            _ => unary(pair, approx::tanh_bf16),
        },
        _ => return None,
    })
}
