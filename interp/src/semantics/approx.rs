//! The approximate instructions: `.approx` forms (`rcp`, `sqrt`, `rsqrt`,
//! `div`, `sin`, `cos`, `lg2`, `ex2`, `tanh`, and the half-precision `ex2`
//! and `tanh`) and `div.full.f32`.
//!
//! The GPU computes these with its special function units, whose exact
//! algorithm is not published. Each function here returns a *faithful*
//! result: the exact function value computed in f64 (with the host's libm),
//! rounded to nearest in the destination format, with the special inputs
//! (zeros, infinities, NaN, subnormals under `.ftz`) handled exactly as the
//! hardware does. Each function's documentation gives the maximum error
//! the PTX ISA documents (the bound a comparison with the GPU must allow:
//! our result is well inside it, the hardware's anywhere within it) and
//! the largest error measured on an H200 against the exact function
//! (sampled over 100,000 operands for f32 and f64, every operand for the
//! 16-bit types). Where the two disagree, the measurement is the safer
//! bound. The ISA figures were checked against the tolerances of ZLUDA's
//! exhaustive GPU tests (`vosen/ptx_tests`), which quote the ISA.
//!
//! NaN results are the canonical NaN of the type (f32 `0x7fffffff`, f16 and
//! bf16 `0x7fff`); the f64 forms follow f64 rules (see each).

use super::Bits;
use super::float::{Arith, Kind, f32_bits, f32_of};
use super::softfloat::{self, Format, RoundOptions, Rounding};

/// The f32 result of `f` on operand `a`: `.ftz` flushes a subnormal operand
/// and a subnormal result; NaN gives the canonical NaN.
#[inline]
fn f32_unary(a: Bits, ftz: bool, f: impl Fn(f64) -> f64) -> Bits {
    let k = Kind::F32;
    let a = a & k.mask();
    let a = if ftz { k.flush(a) } else { a };
    if k.is_nan(a) {
        return k.canonical_nan();
    }
    let bits = f32_bits(f(f64::from(f32_of(a))) as f32);
    if k.is_nan(bits) {
        k.canonical_nan()
    } else if ftz {
        k.flush(bits)
    } else {
        bits
    }
}

/// `f(a)` for the 16-bit `kind` (f16 or bf16): computed in f64 and rounded
/// to nearest; `ftz` flushes a subnormal operand and result; NaN gives the
/// canonical NaN.
#[inline]
fn half_unary(kind: Kind, a: Bits, ftz: bool, f: impl Fn(f64) -> f64) -> Bits {
    let a = a & kind.mask();
    let a = if ftz { kind.flush(a) } else { a };
    if kind.is_nan(a) {
        return kind.canonical_nan();
    }
    let x = f64_of(kind, a);
    let y = f(x);
    if y.is_nan() {
        return kind.canonical_nan();
    }
    let options = RoundOptions {
        flush_subnormal_output: ftz,
        ..RoundOptions::default()
    };
    let value = softfloat::decode(Format::F64, y.to_bits());
    softfloat::round(kind.format(), value, Rounding::NearestEven, options)
}

/// The value of the 16-bit `a` of `kind` as an f64 (exact).
fn f64_of(kind: Kind, a: Bits) -> f64 {
    match kind {
        Kind::Bf16 => f64::from(f32::from_bits((a as u32) << 16)),
        _ => {
            let options = RoundOptions::default();
            let value = softfloat::decode(Format::F16, a);
            f64::from_bits(softfloat::round(
                Format::F64,
                value,
                Rounding::NearestEven,
                options,
            ))
        }
    }
}

/// `rcp.approx{.ftz}.f32`: `1 / a`.
///
/// Bound: 1 ulp over the full range (PTX ISA). Measured: 1 ulp from the
/// correctly rounded result (relative 2^-23.3). Specials: `+-0` gives
/// `+-inf`, `+-inf` gives `+-0`; subnormal operands and results are exact
/// without `.ftz`, and flushed with it.
pub(super) fn rcp_f32(a: Bits, ftz: bool) -> Bits {
    f32_unary(a, ftz, |x| 1.0 / x)
}

/// `sqrt.approx{.ftz}.f32`.
///
/// Bound: relative error 2^-23 over the full range. Measured: 2^-23.3 (1
/// ulp). Specials: `-0` gives `-0`, negative numbers (subnormals too,
/// without `.ftz`) and `-inf` give NaN, `+inf` gives `+inf`.
pub(super) fn sqrt_f32(a: Bits, ftz: bool) -> Bits {
    f32_unary(a, ftz, f64::sqrt)
}

/// `rsqrt.approx{.ftz}.f32`: `1 / sqrt(a)`.
///
/// Bound: "The maximum relative error for rsqrt.f32 over the entire
/// positive finite floating-point range is 2^-22.9" (PTX ISA). Measured:
/// 2^-23.0. Specials: `+-0` gives `+-inf`, `+inf` gives `+0`, negative
/// numbers and `-inf` give NaN.
pub(super) fn rsqrt_f32(a: Bits, ftz: bool) -> Bits {
    f32_unary(a, ftz, |x| 1.0 / x.sqrt())
}

/// `rsqrt.approx{.ftz}.f64`: `1 / sqrt(a)`.
///
/// Bound: we found no numeric bound in the ISA for the f64 forms.
/// Measured: `rsqrt.approx.f64` is refined to relative error 2^-52 (within
/// 1 ulp; this returns `1 / sqrt(a)` computed in f64, also within 1 ulp,
/// with the f64 NaN rules: a NaN operand quieted, a negative one
/// `0xfff8000000000000`); `rsqrt.approx.ftz.f64` works on the top 32 bits
/// of `a` only (see [`top_word_approx`]), relative error 2^-20.08.
pub(super) fn rsqrt_f64(a: Bits, ftz: bool) -> Bits {
    if ftz {
        return top_word_approx(a, |x| 1.0 / x.sqrt());
    }
    let k = Kind::F64;
    if let Some(nan) = k.nan_of(&[a]) {
        return nan;
    }
    let r = (1.0 / f64::from_bits(a).sqrt()).to_bits();
    if k.is_nan(r) { k.default_nan() } else { r }
}

/// `rcp.approx.ftz.f64`: `1 / a` to about 20 significant bits.
///
/// Bound: we found no numeric bound in the ISA (the table calls it "about
/// 20 significant bits"). Measured: relative error 2^-19.97, computed from
/// the top 32 bits of `a` only (see [`top_word_approx`]).
pub(super) fn rcp_ftz_f64(a: Bits) -> Bits {
    top_word_approx(a, |x| 1.0 / x)
}

/// The f64 special-function-unit approximations (`MUFU.RCP64H`,
/// `MUFU.RSQ64H`), as measured on an H200: only the top 32 bits of `a` are
/// read (the low 32 are taken as zero, so a NaN whose payload is only in
/// the low word reads as an infinity), a subnormal operand counts as zero,
/// the result is `f` of that truncated to its top 32 bits (low 32 bits
/// zero; the hardware rounds up instead in about 7% of cases), a subnormal
/// result is flushed, and a NaN result is `0x7fffffff00000000`.
fn top_word_approx(a: Bits, f: impl Fn(f64) -> f64) -> Bits {
    const NAN: Bits = 0x7fff_ffff_0000_0000;
    let k = Kind::F64;
    let a = k.flush(a & 0xffff_ffff_0000_0000);
    if k.is_nan(a) {
        return NAN;
    }
    let r = k.flush(f(f64::from_bits(a)).to_bits());
    if k.is_nan(r) {
        NAN
    } else {
        r & 0xffff_ffff_0000_0000
    }
}

/// `div.approx{.ftz}.f32`: `a * (1 / b)`.
///
/// Bound: "For b in [2^-126, 2^126], the maximum ulp error is 2. For
/// 2^126 < |b| < 2^128, if a is infinity, div.approx.f32 returns NaN,
/// otherwise it returns 0" (PTX ISA). Measured: 2 ulp from our model (near
/// the bottom of the normal range with `.ftz` the 1-ulp differences also
/// decide between `2^-126` and 0). Modelled as the hardware sequence: the
/// reciprocal of `b` rounded to nearest and flushed to zero when subnormal,
/// times `a` rounded to nearest (`.ftz`: flushing as `mul.ftz` does).
/// Without `.ftz` a subnormal `b` is scaled first, so the quotient is
/// accurate there too (as on an H200).
pub(super) fn div_f32(a: Bits, b: Bits, ftz: bool) -> Bits {
    let k = Kind::F32;
    let (a, b) = (a & k.mask(), b & k.mask());
    let (a, b) = if ftz {
        (k.flush(a), k.flush(b))
    } else {
        (a, b)
    };
    if k.is_nan(a) || k.is_nan(b) {
        return k.canonical_nan();
    }
    if !ftz && k.is_subnormal(b) {
        return f32_bits((f64::from(f32_of(a)) / f64::from(f32_of(b))) as f32);
    }
    let r = k.flush(f32_bits(1.0 / f32_of(b)));
    let times = Arith {
        kind: k,
        rounding: Rounding::NearestEven,
        ftz,
        sat: false,
    };
    times.mul(a, r)
}

/// `div.full{.ftz}.f32`: `a / b`, full range.
///
/// PTX ISA: "div.full.f32 implements a relatively fast, full-range
/// approximation that scales operands to achieve better accuracy, but is
/// not fully IEEE 754 compliant and does not support rounding modifiers.
/// The maximum ulp error is 2 across the full range of inputs." Measured:
/// 2 ulp from the correctly rounded quotient, which this returns
/// (`div.rn{.ftz}.f32`; near `2^-126` with `.ftz` a 1-ulp difference may
/// also decide between `2^-126` and 0).
pub(super) fn div_full_f32(a: Bits, b: Bits, ftz: bool) -> Bits {
    let quotient = Arith {
        kind: Kind::F32,
        rounding: Rounding::NearestEven,
        ftz,
        sat: false,
    };
    quotient.div(a, b)
}

/// `sin.approx{.ftz}.f32` (radians).
///
/// Bound: absolute error 2^-20.5 (ZLUDA applies it over `[-2pi, 2pi]`)
/// and 2^-14.7 over `[-100pi, 100pi]`; none documented outside. Measured:
/// 2^-21.5 over `[-pi, pi]`, 2^-20.6 over `[-2pi, 2pi]`, 2^-14.8 over
/// `[-100pi, 100pi]`; operands below about 2^-22.35 in magnitude give
/// zero, and far outside the documented range the hardware's argument
/// reduction gives values unrelated to `sin(a)` (this returns the true
/// sine). Specials: `+-0` gives `+-0`, `+-inf` gives NaN; subnormal
/// operands count as zeros with or without `.ftz`.
pub(super) fn sin_f32(a: Bits, ftz: bool) -> Bits {
    let _ = ftz;
    f32_unary(a, true, f64::sin)
}

/// `cos.approx{.ftz}.f32` (radians).
///
/// Bound: absolute error 2^-20.5 (ZLUDA applies it over `[-2pi, 2pi]`)
/// and 2^-14.7 over `[-100pi, 100pi]`; none documented outside. Measured:
/// 2^-21.3 over `[-pi, pi]` but 2^-20.46 over `[-2pi, 2pi]` (slightly
/// above 2^-20.5: check `(pi, 2pi]` against 2^-20.4), 2^-14.75 over
/// `[-100pi, 100pi]`; far outside, the hardware's argument reduction gives
/// values unrelated to `cos(a)` (this returns the true cosine). Specials:
/// `+-0` gives `1`, `+-inf` gives NaN; subnormal operands count as zeros
/// with or without `.ftz`.
pub(super) fn cos_f32(a: Bits, ftz: bool) -> Bits {
    let _ = ftz;
    f32_unary(a, true, f64::cos)
}

/// `lg2.approx{.ftz}.f32`: `log2(a)`.
///
/// Bound: absolute error 2^-22 for `a` in `(0.5, 2)`, relative error 2^-22
/// elsewhere. Measured: 2^-22.2 absolute, 2^-22.3 relative. Specials: `+-0`
/// gives `-inf`, negative numbers and `-inf` give NaN, `+inf` gives `+inf`;
/// subnormal operands are exact without `.ftz`.
pub(super) fn lg2_f32(a: Bits, ftz: bool) -> Bits {
    f32_unary(a, ftz, f64::log2)
}

/// `ex2.approx{.ftz}.f32`: `2^a`.
///
/// Bound: 2 ulp from the correctly rounded result over the full range
/// (relative 2^-22.5 for normal results). Measured: 2 ulp, relative
/// 2^-22.8. Specials: `+-0` gives `1`, `-inf` gives `+0`, `+inf` gives
/// `+inf`; subnormal results are kept without `.ftz`.
pub(super) fn ex2_f32(a: Bits, ftz: bool) -> Bits {
    f32_unary(a, ftz, f64::exp2)
}

/// `tanh.approx.f32`.
///
/// Bound: relative error 2^-10.987 (ZLUDA's test uses 2^-11, "from PTX
/// documentation"). Measured: 2^-16.5. Specials: `+-0` gives `+-0`,
/// `+-inf` gives `+-1`; subnormal operands are kept (`tanh(x) = x`).
pub(super) fn tanh_f32(a: Bits) -> Bits {
    f32_unary(a, false, f64::tanh)
}

/// `ex2.approx.f16` (per half for `.f16x2`): `2^a`.
///
/// Bound: relative error 2^-9.9. Measured (every operand): 2^-10.0, 1 ulp
/// from the correctly rounded result. Subnormal operands and results are
/// kept. Specials: `+-0` gives `1`, `-inf` gives `+0`, `+inf` gives `+inf`.
pub(super) fn ex2_f16(a: Bits) -> Bits {
    half_unary(Kind::F16, a, false, f64::exp2)
}

/// `ex2.approx.ftz.bf16` (per half for `.bf16x2`): `2^a`.
///
/// Bound: relative error 2^-7. Measured (every operand): 2^-7.02, 1 ulp
/// from the correctly rounded result. Subnormal operands and results are
/// flushed. Specials: `+-0` gives `1`, `-inf` gives `+0`, `+inf` gives
/// `+inf`.
pub(super) fn ex2_ftz_bf16(a: Bits) -> Bits {
    half_unary(Kind::Bf16, a, true, f64::exp2)
}

/// `tanh.approx.f16` (per half for `.f16x2`).
///
/// Bound: we could not confirm the ISA's figure for `.f16` (2^-10.987 is
/// the f32 one); measured (every operand): relative 2^-10.02, 1 ulp from
/// the correctly rounded result, so check against 2^-10. Specials: `+-0`
/// gives `+-0`, `+-inf` gives `+-1`.
pub(super) fn tanh_f16(a: Bits) -> Bits {
    half_unary(Kind::F16, a, false, f64::tanh)
}

/// `tanh.approx.bf16` (per half for `.bf16x2`).
///
/// Bound: we could not confirm the ISA's figure for `.bf16`; measured
/// (every operand): relative 2^-7.01, 1 ulp from the correctly rounded
/// result, so check against 2^-7. Specials: `+-0` gives `+-0`, `+-inf`
/// gives `+-1`.
pub(super) fn tanh_bf16(a: Bits) -> Bits {
    half_unary(Kind::Bf16, a, false, f64::tanh)
}
