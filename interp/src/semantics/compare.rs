//! Comparison and selection (ISA 9.7.6, 9.7.5.1-2): `setp` (one result,
//! `p|q`, `.BoolOp`, and the half pairs), `set` (masks, 1.0 / 0.0 in
//! f32, f16, bf16 and the pairs), `selp`, `slct`.
//!
//! Floats are compared exactly: every f16, bf16 and f32 value is decoded
//! into the f64 of the same value, so one comparison covers all widths.
//! `.ftz` flushes subnormal inputs (f32, and f16 for the half forms) to
//! zero first. The ordered operators (`eq ne lt le gt ge`) are false when
//! either input is NaN, the unordered ones (`equ .. geu`) true; `num` is
//! "neither is NaN", `nan` "either is". Unsigned types also spell the
//! ordered operators `lo ls hi hs`.

use std::sync::Arc;
use tile_kernel_lowering::ptx::Slot;

use super::integer::{Int, sext};
use super::{Bits, Compute, mask};
use tile_kernel_lowering::ptx::{Modifiers, PtxType};

/// One comparison of two register values of the compared type.
type Comparison = Arc<dyn Fn(Bits, Bits) -> bool + Send + Sync>;

/// The semantics of a comparison or selection variant, or `None` for other forms.
pub(crate) fn compute(m: &Modifiers) -> Option<Compute> {
    match m.form.id {
        "setp" | "setp.pair" | "setp.bool" | "setp.bool-pair" => setp(m),
        "setp.halves" | "setp.halves-bool" => setp_halves(m),
        "set" | "set.bool" | "set.to-half" | "set.to-half-bool" | "set.from-half"
        | "set.from-half-bool" => set(m),
        "selp" => {
            let bits = m.ty(Slot::Type)?.carrier_bits();
            Some(Compute::new(3, 1, move |s, d| {
                d[0] = mask(if s[2] & 1 == 1 { s[0] } else { s[1] }, bits);
            }))
        }
        "slct" => slct(m),
        _ => None,
    }
}

/// The `.BoolOp` that folds a comparison with the predicate `c`.
#[derive(Debug, Clone, Copy)]
enum BoolOp {
    And,
    Or,
    Xor,
}

impl BoolOp {
    /// The variant's `bool` slot: `Some(None)` when it has none, `None`
    /// for an unknown token.
    fn of(m: &Modifiers) -> Option<Option<BoolOp>> {
        Some(match m.get(Slot::Bool) {
            None => None,
            Some("and") => Some(BoolOp::And),
            Some("or") => Some(BoolOp::Or),
            Some("xor") => Some(BoolOp::Xor),
            Some(_) => return None,
        })
    }

    /// `t BoolOp c`, or `t` itself without a `BoolOp`.
    fn apply(op: Option<BoolOp>, t: bool, c: bool) -> bool {
        match op {
            None => t,
            Some(BoolOp::And) => t && c,
            Some(BoolOp::Or) => t || c,
            Some(BoolOp::Xor) => t ^ c,
        }
    }
}

/// `setp` with one result, `p|q` (`q` from the complement), and `.BoolOp`:
/// `p = t BoolOp c`, `q = !t BoolOp c`.
fn setp(m: &Modifiers) -> Option<Compute> {
    let compare = comparison(m.ty(Slot::Type)?, m.get(Slot::Cmp)?, m.has(Slot::Ftz))?;
    let op = BoolOp::of(m)?;
    let inputs = if op.is_some() { 3 } else { 2 };
    let pair = matches!(m.form.id, "setp.pair" | "setp.bool-pair");
    let outputs = if pair { 2 } else { 1 };
    Some(Compute::new(inputs, outputs, move |s, d| {
        let t = compare(s[0], s[1]);
        let c = op.is_some() && s[2] & 1 == 1;
        d[0] = Bits::from(BoolOp::apply(op, t, c));
        if pair {
            d[1] = Bits::from(BoolOp::apply(op, !t, c));
        }
    }))
}

/// `setp.CmpOp{.BoolOp}.{f16x2,bf16x2} p|q, a, b{, c}`: `p` from the low
/// halves, `q` from the high halves, each folded with `c`.
fn setp_halves(m: &Modifiers) -> Option<Compute> {
    let compare = comparison(
        half_of(m.ty(Slot::Type)?)?,
        m.get(Slot::Cmp)?,
        m.has(Slot::Ftz),
    )?;
    let op = BoolOp::of(m)?;
    let inputs = if op.is_some() { 3 } else { 2 };
    Some(Compute::new(inputs, 2, move |s, d| {
        let c = op.is_some() && s[2] & 1 == 1;
        let lo = compare(s[0] & 0xffff, s[1] & 0xffff);
        let hi = compare((s[0] >> 16) & 0xffff, (s[1] >> 16) & 0xffff);
        d[0] = Bits::from(BoolOp::apply(op, lo, c));
        d[1] = Bits::from(BoolOp::apply(op, hi, c));
    }))
}

/// The element type of a half pair.
fn half_of(ty: PtxType) -> Option<PtxType> {
    match ty {
        PtxType::F16x2 => Some(PtxType::F16),
        PtxType::Bf16x2 => Some(PtxType::Bf16),
        _ => None,
    }
}

/// The "true" value of a `set` result of type `ty` (false is always
/// zero): all ones, or 1.0 in the result's float format (per half for
/// the pairs).
fn set_true(ty: PtxType) -> Option<Bits> {
    Some(match ty {
        PtxType::U32 | PtxType::S32 => 0xffff_ffff,
        PtxType::U16 | PtxType::S16 => 0xffff,
        PtxType::F32 => 0x3f80_0000,
        PtxType::F16 | PtxType::F16x2 => 0x3c00,
        PtxType::Bf16 | PtxType::Bf16x2 => 0x3f80,
        _ => return None,
    })
}

/// `set.CmpOp{.BoolOp}.dtype.stype d, a, b{, c}`: `(a CmpOp b) BoolOp c`
/// as all ones (integer results) or 1.0 (float results), else 0. With a
/// pair source (`.f16x2`/`.bf16x2`) each 16-bit half of `d` is the result
/// for that half: 0xffff or 0 for a `.u32`/`.s32` result, 1.0 or 0.0 for
/// a pair result.
fn set(m: &Modifiers) -> Option<Compute> {
    let (dtype, stype) = (m.ty(Slot::Dtype)?, m.ty(Slot::Stype)?);
    let op = BoolOp::of(m)?;
    let inputs = if op.is_some() { 3 } else { 2 };
    if let Some(element) = half_of(stype) {
        let compare = comparison(element, m.get(Slot::Cmp)?, m.has(Slot::Ftz))?;
        let one = set_true(dtype)?;
        let one = one & 0xffff;
        return Some(Compute::new(inputs, 1, move |s, d| {
            let c = op.is_some() && s[2] & 1 == 1;
            let lo = BoolOp::apply(op, compare(s[0] & 0xffff, s[1] & 0xffff), c);
            let hi = BoolOp::apply(op, compare((s[0] >> 16) & 0xffff, (s[1] >> 16) & 0xffff), c);
            d[0] = (if lo { one } else { 0 }) | (if hi { one << 16 } else { 0 });
        }));
    }
    let compare = comparison(stype, m.get(Slot::Cmp)?, m.has(Slot::Ftz))?;
    let one = set_true(dtype)?;
    Some(Compute::new(inputs, 1, move |s, d| {
        let c = op.is_some() && s[2] & 1 == 1;
        d[0] = if BoolOp::apply(op, compare(s[0], s[1]), c) {
            one
        } else {
            0
        };
    }))
}

/// `slct{.ftz}.dtype.ctype d, a, b, c`: `d = c >= 0 ? a : b`, `c` an
/// `.s32` or an `.f32` (where -0.0 picks `a`, NaN picks `b`, and `.ftz`
/// makes a negative subnormal -0.0).
fn slct(m: &Modifiers) -> Option<Compute> {
    let bits = m.ty(Slot::Dtype)?.carrier_bits();
    let pick_a: fn(Bits) -> bool = match (m.get(Slot::Ctype)?, m.has(Slot::Ftz)) {
        ("s32", _) => |c| sext(c, 32) >= 0,
        ("f32", false) => |c| f32_value(c, false) >= 0.0,
        ("f32", true) => |c| f32_value(c, true) >= 0.0,
        _ => return None,
    };
    Some(Compute::new(3, 1, move |s, d| {
        d[0] = mask(if pick_a(s[2]) { s[0] } else { s[1] }, bits);
    }))
}

/// The exact value of an f16 (binary16) bit pattern; `ftz` reads
/// subnormals as zero.
pub(super) fn f16_value(x: Bits, ftz: bool) -> f64 {
    let sign = if x & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = ((x >> 10) & 0x1f) as i32;
    let mantissa = (x & 0x3ff) as f64;
    let magnitude = match exponent {
        0 if ftz => 0.0,
        0 => mantissa * f64::powi(2.0, -24),
        31 if mantissa == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1024.0 + mantissa) * f64::powi(2.0, e - 25),
    };
    sign * magnitude
}

/// The exact value of a bf16 bit pattern (bf16 has no `.ftz` compare).
pub(super) fn bf16_value(x: Bits) -> f64 {
    f64::from(f32::from_bits(((x & 0xffff) as u32) << 16))
}

/// The exact value of an f32 bit pattern; `ftz` reads subnormals as zero.
pub(super) fn f32_value(x: Bits, ftz: bool) -> f64 {
    let v = f32::from_bits(x as u32);
    if ftz && v.is_subnormal() {
        0.0
    } else {
        f64::from(v)
    }
}

/// The comparison `a CmpOp b` of two values of type `ty`.
fn comparison(ty: PtxType, op: &str, ftz: bool) -> Option<Comparison> {
    if let Some(int) = Int::of(ty) {
        let test = ordering_test(op)?;
        return Some(Arc::new(move |a, b| {
            test(Some(int.value(a).cmp(&int.value(b))))
        }));
    }
    let decode: fn(Bits) -> f64 = match (ty, ftz) {
        (PtxType::F16, false) => |x| f16_value(x, false),
        (PtxType::F16, true) => |x| f16_value(x, true),
        (PtxType::Bf16, _) => bf16_value,
        (PtxType::F32, false) => |x| f32_value(x, false),
        (PtxType::F32, true) => |x| f32_value(x, true),
        (PtxType::F64, _) => f64::from_bits,
        _ => return None,
    };
    let test = ordering_test(op)?;
    Some(Arc::new(move |a, b| {
        test(decode(a).partial_cmp(&decode(b)))
    }))
}

/// The operator as a test of the ordering of `a` against `b` (`None`:
/// unordered, some input is NaN).
fn ordering_test(op: &str) -> Option<fn(Option<std::cmp::Ordering>) -> bool> {
    use std::cmp::Ordering::{Equal, Greater, Less};
    Some(match op {
        "eq" => |o| o == Some(Equal),
        "ne" => |o| matches!(o, Some(Less | Greater)),
        "lt" | "lo" => |o| o == Some(Less),
        "le" | "ls" => |o| matches!(o, Some(Less | Equal)),
        "gt" | "hi" => |o| o == Some(Greater),
        "ge" | "hs" => |o| matches!(o, Some(Greater | Equal)),
        "equ" => |o| matches!(o, None | Some(Equal)),
        "neu" => |o| o != Some(Equal),
        "ltu" => |o| matches!(o, None | Some(Less)),
        "leu" => |o| o != Some(Greater),
        "gtu" => |o| matches!(o, None | Some(Greater)),
        "geu" => |o| o != Some(Less),
        "num" => |o| o.is_some(),
        "nan" => |o| o.is_none(),
        _ => return None,
    })
}
