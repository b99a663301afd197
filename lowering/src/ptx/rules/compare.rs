//! Legality rules and target requirements of the compare family
//! (`table/compare.rs`).

use super::*;
use crate::ptx::Slot;
use crate::ptx::types::TypeClass;

/// The ordered comparisons every type has (`.eq .ne .lt .le .gt .ge`).
const ORDERED: [&str; 6] = ["eq", "ne", "lt", "le", "gt", "ge"];
/// The unsigned spellings of the ordered comparisons (`.lo .ls .hi .hs`).
const UNSIGNED: [&str; 4] = ["lo", "ls", "hi", "hs"];

/// The comparison operators PTX defines for values of type `ty` (ISA 9.7.6.1
/// tables "Operators for signed/unsigned/bit-size/floating-point types").
fn takes_compare_op(ty: PtxType, op: &str) -> bool {
    if ty.is_float() {
        // Ordered, unordered (`*u`), `num` and `nan`; never the unsigned names.
        !UNSIGNED.contains(&op)
    } else if ty.is_unsigned_int() {
        ORDERED.contains(&op) || UNSIGNED.contains(&op)
    } else if ty.is_signed_int() {
        ORDERED.contains(&op)
    } else {
        // Bit-size types compare for (in)equality only.
        op == "eq" || op == "ne"
    }
}

/// `CmpOp` against the type in `slot`; `.ftz` only on `.f32` and `.f16`
/// (scalar or pair) comparisons, never on `.bf16`.
fn compare_on(m: &Modifiers, slot: Slot) -> Result<(), Violation> {
    let Some(ty) = m.ty(slot) else {
        return Err(Violation::new("a comparison needs a source type"));
    };
    let t = ty.token();
    if let Some(op) = m.get(Slot::Cmp)
        && !takes_compare_op(ty, op)
    {
        let kind = if ty.is_float() {
            "floating-point types compare with the ordered (.eq .ne .lt .le .gt .ge), unordered (.equ .neu .ltu .leu .gtu .geu), .num and .nan operators"
        } else if ty.is_unsigned_int() {
            "unsigned types compare with .eq .ne .lt .le .gt .ge or .lo .ls .hi .hs"
        } else if ty.is_signed_int() {
            "signed types compare with .eq .ne .lt .le .gt .ge only"
        } else {
            "bit-size types compare with .eq and .ne only"
        };
        return Err(Violation::at(
            op,
            format!(".{op} is not a comparison of .{t}: {kind}"),
        ));
    }
    if let Some(ftz) = m.get(Slot::Ftz)
        && !matches!(ty, PtxType::F32 | PtxType::F16 | PtxType::F16x2)
    {
        return Err(Violation::at(
            ftz,
            format!(".ftz applies only to .f32 and .f16/.f16x2 comparisons, not .{t}"),
        ));
    }
    Ok(())
}

/// `setp.CmpOp{.BoolOp}{.ftz}.type`: the operator must exist for `.type`.
pub fn setp(m: &Modifiers) -> Result<(), Violation> {
    compare_on(m, Slot::Type)
}

/// `set.CmpOp{.BoolOp}{.ftz}.dtype.stype`: the operator must exist for `.stype`.
pub fn set(m: &Modifiers) -> Result<(), Violation> {
    compare_on(m, Slot::Stype)
}

/// `slct{.ftz}.dtype.ctype`: `.ftz` only with the `.f32` selector.
pub fn slct(m: &Modifiers) -> Result<(), Violation> {
    if let Some(ftz) = m.get(Slot::Ftz)
        && m.get(Slot::Ctype) != Some("f32")
    {
        return Err(Violation::at(
            ftz,
            ".ftz applies only to slct with an .f32 selector (slct.ftz.dtype.f32)",
        ));
    }
    Ok(())
}

/// `setp`: the half types are newer (`.f16`/`.f16x2`: sm_53, PTX 4.2;
/// `.bf16`/`.bf16x2`: sm_90, PTX 7.8); the rest is PTX 1.0.
pub fn setp_requires(m: &Modifiers, _: Target) -> Requirement {
    match m.ty(Slot::Type) {
        Some(PtxType::F16 | PtxType::F16x2) => Requirement::new(53, 4, 2),
        Some(PtxType::Bf16 | PtxType::Bf16x2) => Requirement::new(90, 7, 8),
        _ => Requirement::new(20, 1, 0),
    }
}

/// Whether `set` with a half type on either side has the `(dtype, stype)`
/// pair (ISA 9.7.5.1, narrowed/widened to ptxas 12.9: `.bf16.bf16` is
/// accepted, `.f16.bf16` is not, a `.f32` result is not offered).
fn half_set_pair(dst: PtxType, src: PtxType) -> bool {
    let int_or_bits = src.is_int() || src.class() == TypeClass::Bits;
    match dst {
        PtxType::F16 => int_or_bits || matches!(src, PtxType::F16 | PtxType::F32 | PtxType::F64),
        PtxType::Bf16 => {
            int_or_bits
                || matches!(
                    src,
                    PtxType::F16 | PtxType::Bf16 | PtxType::F32 | PtxType::F64
                )
        }
        PtxType::U16 | PtxType::S16 => matches!(src, PtxType::F16 | PtxType::Bf16),
        PtxType::U32 | PtxType::S32 => matches!(
            src,
            PtxType::F16 | PtxType::Bf16 | PtxType::F16x2 | PtxType::Bf16x2
        ),
        PtxType::F16x2 => src == PtxType::F16x2,
        PtxType::Bf16x2 => src == PtxType::Bf16x2,
        _ => false,
    }
}

/// `set` with half types: the `(dtype, stype)` pair must exist; then the
/// usual operator and `.ftz` rules of the source, and no `.ftz` with a
/// `.bf16` result.
pub fn set_half(m: &Modifiers) -> Result<(), Violation> {
    let (Some(dst), Some(src)) = (m.ty(Slot::Dtype), m.ty(Slot::Stype)) else {
        return Err(Violation::new("set needs a result and a source type"));
    };
    let (d, s) = (dst.token(), src.token());
    if !half_set_pair(dst, src) {
        return Err(Violation::new(format!(
            "set has no .{d}.{s} line: a half result (.f16, .bf16) takes a scalar source, an integer result takes .f16/.bf16 (or a pair, for 32 bits), and a pair result its own pair type"
        )));
    }
    compare_on(m, Slot::Stype)?;
    if let Some(ftz) = m.get(Slot::Ftz)
        && dst == PtxType::Bf16
    {
        return Err(Violation::at(
            ftz,
            ".ftz is not offered with a .bf16 result",
        ));
    }
    Ok(())
}

/// `set` with half types: `.bf16`/`.bf16x2` on either side sm_90 (PTX 7.8);
/// an integer result from `.f16`/`.f16x2` PTX 6.5 (measured: ptxas 12.9 names
/// "half precision floating point set instruction with integer result");
/// else sm_53 (PTX 4.2).
pub fn set_half_requires(m: &Modifiers, _: Target) -> Requirement {
    let bf16 = |slot: Slot| matches!(m.ty(slot), Some(PtxType::Bf16 | PtxType::Bf16x2));
    if bf16(Slot::Dtype) || bf16(Slot::Stype) {
        Requirement::new(90, 7, 8)
    } else if m.ty(Slot::Dtype).is_some_and(PtxType::is_int) {
        Requirement::new(53, 6, 5)
    } else {
        Requirement::new(53, 4, 2)
    }
}
