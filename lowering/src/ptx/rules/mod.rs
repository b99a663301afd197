//! Cross-slot legality rules and target requirements of the table's forms.
//!
//! Each function is pure over one form's [`Modifiers`]; the table points at
//! them by name. Rules encode the PTX ISA syntax lines, narrowed where ptxas
//! is stricter (noted "toolchain"). The conversion rules follow the `cvt`
//! page of the PTX ISA (§9.7.9.21: its rounding-modifier and `.ftz`/`.sat`
//! rules, its PTX ISA and target notes); `lowering/tests/certify.rs` sweeps
//! them against ptxas in both directions and lists the spellings where
//! ptxas and the ISA disagree.

// Rules and requirements of the families that have their own module
// (`table/<family>.rs` uses `rules::<family>::..`).
pub mod compare;
pub mod convert;
pub mod data;
pub mod float;
pub mod half;
pub mod integer;
pub mod memory;
pub mod registered;
pub mod warp;

use super::form::{Modifiers, Violation};
use super::types::PtxType;
use crate::ptx::Slot;
use crate::target::{Requirement, Target};

const IRND: [&str; 4] = ["rni", "rzi", "rmi", "rpi"];

fn is_irnd(token: &str) -> bool {
    IRND.contains(&token)
}

/// Significand and exponent bits of a float type: precision loss is judged by both.
fn float_format(ty: PtxType) -> Option<(u32, u32)> {
    match ty {
        PtxType::F16 => Some((11, 5)),
        PtxType::Bf16 => Some((8, 8)),
        PtxType::F32 => Some((24, 8)),
        PtxType::F64 => Some((53, 11)),
        _ => None,
    }
}

/// Whether every value of `src` is exactly representable in `dst` (both floats).
fn float_widens_exactly(dst: PtxType, src: PtxType) -> bool {
    match (float_format(dst), float_format(src)) {
        (Some((dm, de)), Some((sm, se))) => dm >= sm && de >= se,
        _ => false,
    }
}

/// Inclusive value range of an integer type, as i128.
fn int_range(ty: PtxType) -> (i128, i128) {
    let bits = ty.carrier_bits() as u32;
    if ty.is_signed_int() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// Rounding, `.ftz`, `.sat`, `.relu` and `.satfinite` on the scalar `cvt` line.
pub fn cvt_scalar(m: &Modifiers) -> Result<(), Violation> {
    let (Some(dst), Some(src)) = (m.ty(Slot::Dtype), m.ty(Slot::Atype)) else {
        return Err(Violation::new("cvt needs a destination and a source type"));
    };
    let rnd = m.get(Slot::Rnd);
    let d = dst.token();
    let a = src.token();
    if let Some(flag) = m.get(Slot::Relu).or(m.get(Slot::Satfinite)) {
        if !(matches!(dst, PtxType::F16 | PtxType::Bf16) && src == PtxType::F32) {
            return Err(Violation::at(
                flag,
                format!(".{flag} exists only on the f16/bf16 <- f32 scalar lines, not on .{d}.{a}"),
            ));
        }
        match rnd {
            Some("rn") | Some("rz") => {}
            Some(other) => {
                return Err(Violation::at(
                    other,
                    format!("the .{flag} line rounds with .rn or .rz only"),
                ));
            }
            None => {
                return Err(Violation::new(format!(
                    "the .{flag} line needs a rounding modifier: .rn or .rz"
                )));
            }
        }
        if let Some(t) = m.get(Slot::Ftz).or(m.get(Slot::Sat)) {
            return Err(Violation::at(
                t,
                format!(".{t} cannot be combined with .{flag}"),
            ));
        }
        return Ok(());
    }

    let dst_int = dst.is_int();
    let src_int = src.is_int();
    match (dst_int, src_int) {
        (true, true) => {
            if let Some(r) = rnd {
                return Err(Violation::at(
                    r,
                    format!("integer-to-integer conversion .{d}.{a} takes no rounding modifier"),
                ));
            }
        }
        (true, false) => match rnd {
            Some(r) if is_irnd(r) => {}
            Some(r) => {
                return Err(Violation::at(
                    r,
                    format!(
                        "float-to-integer conversion .{d}.{a} needs an integer rounding modifier (.rni, .rzi, .rmi, .rpi), not .{r}"
                    ),
                ));
            }
            None => {
                return Err(Violation::new(format!(
                    "float-to-integer conversion .{d}.{a} needs an integer rounding modifier (.rni, .rzi, .rmi, .rpi)"
                )));
            }
        },
        (false, true) => match rnd {
            Some(r) if !is_irnd(r) => {}
            Some(r) => {
                return Err(Violation::at(
                    r,
                    format!(
                        "integer-to-float conversion .{d}.{a} needs a floating-point rounding modifier (.rn, .rz, .rm, .rp), not .{r}"
                    ),
                ));
            }
            None => {
                return Err(Violation::new(format!(
                    "integer-to-float conversion .{d}.{a} needs a floating-point rounding modifier (.rn, .rz, .rm, .rp)"
                )));
            }
        },
        (false, false) => {
            if dst == src {
                if let Some(r) = rnd.filter(|r| !is_irnd(r)) {
                    return Err(Violation::at(
                        r,
                        format!(
                            "a same-type conversion .{d}.{a} only rounds to an integral value: use .rni, .rzi, .rmi, .rpi or no rounding modifier, not .{r}"
                        ),
                    ));
                }
            } else if float_widens_exactly(dst, src) {
                if let Some(r) = rnd {
                    return Err(Violation::at(
                        r,
                        format!(
                            ".{d} holds every .{a} value exactly, so .{d}.{a} takes no rounding modifier"
                        ),
                    ));
                }
            } else {
                match rnd {
                    Some(r) if !is_irnd(r) => {}
                    Some(r) => {
                        return Err(Violation::at(
                            r,
                            format!(
                                ".{d}.{a} loses precision and needs a floating-point rounding modifier (.rn, .rz, .rm, .rp), not .{r}"
                            ),
                        ));
                    }
                    None => {
                        return Err(Violation::new(format!(
                            ".{d}.{a} loses precision, so a rounding modifier is required (.rn, .rz, .rm, .rp)"
                        )));
                    }
                }
            }
        }
    }

    if let Some(ftz) = m.get(Slot::Ftz)
        && dst != PtxType::F32
        && src != PtxType::F32
    {
        return Err(Violation::at(
            ftz,
            format!(
                ".ftz applies only when .f32 is the source or destination type, not to .{d}.{a}"
            ),
        ));
    }
    let has_bf16 = dst == PtxType::Bf16 || src == PtxType::Bf16;
    if has_bf16 && (dst.carrier_bits() == 8 || src.carrier_bits() == 8) {
        return Err(Violation::new(format!(
            "conversions between .bf16 and 8-bit integers (.{d}.{a}) are not offered: ptxas 13 rejects them (ptxas 12.9 still accepts them), so a newer driver could fail to load the PTX; convert through .f32 or a 16-bit integer"
        )));
    }
    if let Some(sat) = m.get(Slot::Sat) {
        if has_bf16 {
            return Err(Violation::at(
                sat,
                format!("ptxas accepts no .sat on a .bf16 conversion (.{d}.{a})"),
            ));
        }
        if dst_int && src_int {
            let (dlo, dhi) = int_range(dst);
            let (slo, shi) = int_range(src);
            if dlo <= slo && dhi >= shi {
                return Err(Violation::at(
                    sat,
                    format!(
                        ".{d} already covers every .{a} value, so .sat cannot saturate anything"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Targets of the scalar `cvt` line: bf16 and `.relu`/`.satfinite` are newer.
pub fn cvt_scalar_requires(m: &Modifiers, _: Target) -> Requirement {
    let dst = m.ty(Slot::Dtype);
    let src = m.ty(Slot::Atype);
    let mut req = Requirement::new(20, 1, 0);
    if dst == Some(PtxType::F64) || src == Some(PtxType::F64) {
        req = req.max(Requirement::new(20, 1, 4));
    }
    match (dst, src) {
        (Some(PtxType::Bf16), Some(PtxType::F32)) => req = req.max(Requirement::new(80, 7, 0)),
        (Some(PtxType::F32), Some(PtxType::Bf16)) => {
            req = req.max(Requirement::new(80, 7, 1));
            if m.has(Slot::Ftz) {
                req = req.max(Requirement::new(90, 7, 8));
            }
        }
        (Some(PtxType::Bf16), _) | (_, Some(PtxType::Bf16)) => {
            req = req.max(Requirement::new(90, 7, 8))
        }
        _ => {}
    }
    if m.has(Slot::Relu) {
        req = req.max(Requirement::new(80, 7, 0));
    }
    if m.has(Slot::Satfinite) {
        // PTX 8.1; no arch floor of its own (ptxas 12.9 assembles
        // `cvt.rn.satfinite.f16.f32` for sm_70): `.bf16` and `.relu` bring sm_80.
        req = req.max(Requirement::new(20, 8, 1));
    }
    req
}

/// `.f16x2`/`.bf16x2` from two `.f32`: `.relu` since sm_80, `.satfinite` since PTX 8.1.
pub fn cvt_half_pair_requires(m: &Modifiers, _: Target) -> Requirement {
    let req = Requirement::new(80, 7, 0);
    if m.has(Slot::Satfinite) {
        req.max(Requirement::new(80, 8, 1))
    } else {
        req
    }
}

/// `cvt.rna.tf32.f32` has no `.relu`; the other rounding lines do.
pub fn cvt_tf32(m: &Modifiers) -> Result<(), Violation> {
    if m.get(Slot::Rnd) == Some("rna")
        && let Some(relu) = m.get(Slot::Relu)
    {
        return Err(Violation::at(
            relu,
            "the .rna tf32 line has no .relu; use .rn or .rz with .relu",
        ));
    }
    Ok(())
}

/// tf32: `.rna` sm_80; `.rn`/`.rz` sm_90 (PTX 7.8); `.rn`/`.rz` with `.satfinite` sm_100 (PTX 8.6).
pub fn cvt_tf32_requires(m: &Modifiers, _: Target) -> Requirement {
    let satfinite = m.has(Slot::Satfinite);
    match (m.get(Slot::Rnd), satfinite) {
        (Some("rna"), false) => Requirement::new(80, 7, 0),
        (Some("rna"), true) => Requirement::new(80, 8, 1),
        (_, false) => Requirement::new(90, 7, 8),
        (_, true) => Requirement::new(100, 8, 6),
    }
}

/// FP8 conversions: sm_89 with PTX 8.1, or sm_90 with PTX 7.8.
pub fn cvt_fp8_requires(_: &Modifiers, target: Target) -> Requirement {
    if target.sm >= 90 {
        Requirement::new(90, 7, 8)
    } else {
        Requirement::new(89, 8, 1)
    }
}

/// `.ftz` and `.sat` exist only on the `.f32` lines of float arithmetic.
pub fn float_arith(m: &Modifiers) -> Result<(), Violation> {
    let ty = m.ty(Slot::Type);
    if ty != Some(PtxType::F32) {
        let t = ty.map(PtxType::token).unwrap_or("?");
        for flag in [Slot::Ftz, Slot::Sat] {
            if let Some(token) = m.get(flag) {
                return Err(Violation::at(
                    token,
                    format!(".{token} applies only to .f32, not .{t}"),
                ));
            }
        }
    }
    Ok(())
}

/// Integer `.sat` exists only as `.s32` (add/sub) or `mad.hi.sat.s32`.
pub fn int_saturation(m: &Modifiers) -> Result<(), Violation> {
    if let Some(sat) = m.get(Slot::Sat) {
        if m.ty(Slot::Type) != Some(PtxType::S32) {
            return Err(Violation::at(sat, "integer .sat applies only to .s32"));
        }
        if m.get(Slot::Mode).is_some_and(|mode| mode != "hi") {
            return Err(Violation::at(sat, "mad takes .sat only as mad.hi.sat.s32"));
        }
    }
    Ok(())
}

/// Float `min`/`max`: `.xorsign` and `.abs` come together; `.f64` takes no modifiers.
pub fn float_min_max(m: &Modifiers) -> Result<(), Violation> {
    if m.ty(Slot::Type) == Some(PtxType::F64) {
        for slot in [Slot::Ftz, Slot::Nan, Slot::Xorsign, Slot::Abs] {
            if let Some(token) = m.get(slot) {
                return Err(Violation::at(
                    token,
                    format!(".{token} applies only to .f32; min/max.f64 takes no modifiers"),
                ));
            }
        }
    }
    match (m.get(Slot::Xorsign), m.get(Slot::Abs)) {
        (Some(x), None) => Err(Violation::at(
            x,
            ".xorsign must be followed by .abs (.xorsign.abs)",
        )),
        (None, Some(a)) => Err(Violation::at(
            a,
            ".abs on min/max exists only as .xorsign.abs",
        )),
        _ => Ok(()),
    }
}

/// `.NaN` on min/max: sm_80 (PTX 7.0); `.xorsign.abs`: sm_86 (PTX 7.2).
pub fn float_min_max_requires(m: &Modifiers, _: Target) -> Requirement {
    let mut req = Requirement::new(20, 1, 0);
    if m.has(Slot::Nan) {
        req = req.max(Requirement::new(80, 7, 0));
    }
    if m.has(Slot::Xorsign) {
        req = req.max(Requirement::new(86, 7, 2));
    }
    req
}

/// Pack/unpack: the lanes must be at least 8 bits wide (`mov.b16` of two bytes).
pub fn pack_lanes(m: &Modifiers) -> Result<(), Violation> {
    let lanes = m.form.operands.iter().find_map(|o| match o.ty {
        super::form::TypeRef::LaneOf { lanes, .. } => Some(lanes as usize),
        _ => None,
    });
    if let (Some(lanes), Some(ty)) = (lanes, m.ty(Slot::Type))
        && ty.carrier_bits() / lanes < 8
    {
        return Err(Violation::at(
            ty.token(),
            format!(
                "mov.{} cannot be split into {lanes} lanes: lanes are at least 8 bits",
                ty.token()
            ),
        ));
    }
    Ok(())
}

/// Available on every target this compiler knows.
pub fn baseline(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(20, 1, 0)
}

/// `fma.f32` (with mandatory rounding) dates from sm_20 / PTX 2.0.
pub fn fma_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(20, 2, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::form::Modifiers;
    use crate::ptx::table::FORMS;

    /// Builds the modifiers of form `id` from an opcode text, assigning each
    /// token to the first remaining slot that lists it (PTX order), without
    /// running the rule.
    fn modifiers(id: &str, opcode: &str) -> Modifiers {
        let form = FORMS.iter().find(|f| f.id == id).expect("form id");
        let mut tokens = vec![None; form.slots.len()];
        let mut next = 0;
        for token in opcode.split('.').skip(1) {
            let (i, canonical) = form.slots[next..]
                .iter()
                .enumerate()
                .find_map(|(j, s)| {
                    s.choices
                        .iter()
                        .find(|c| **c == token)
                        .map(|c| (next + j, *c))
                })
                .unwrap_or_else(|| panic!("`{token}` has no slot in {id} after position {next}"));
            tokens[i] = Some(canonical);
            next = i + 1;
        }
        Modifiers { form, tokens }
    }

    fn cvt(opcode: &str) -> Result<(), Violation> {
        cvt_scalar(&modifiers("cvt.scalar", opcode))
    }

    fn cvt_err(opcode: &str) -> Violation {
        cvt(opcode).expect_err(opcode)
    }

    // -------------------------------------------- cvt (ISA 9.7.9.21): rounding

    #[test]
    fn exact_float_widening_takes_no_rounding() {
        assert_eq!(cvt("cvt.f32.f16"), Ok(()));
        assert_eq!(cvt("cvt.f64.f32"), Ok(()));
        assert_eq!(cvt("cvt.f32.bf16"), Ok(()));
        assert_eq!(
            cvt_err("cvt.rn.f32.f16"),
            Violation::at(
                "rn",
                ".f32 holds every .f16 value exactly, so .f32.f16 takes no rounding modifier"
            )
        );
        assert_eq!(
            cvt_err("cvt.rzi.f64.f32").token,
            Some("rzi"),
            "integer rounding is no exception"
        );
    }

    #[test]
    fn lossy_float_narrowing_requires_float_rounding() {
        assert_eq!(
            cvt_err("cvt.f16.f32"),
            Violation::new(
                ".f16.f32 loses precision, so a rounding modifier is required (.rn, .rz, .rm, .rp)"
            )
        );
        for rnd in ["rn", "rz", "rm", "rp"] {
            assert_eq!(cvt(&format!("cvt.{rnd}.f16.f32")), Ok(()), "{rnd}");
            assert_eq!(cvt(&format!("cvt.{rnd}.f32.f64")), Ok(()), "{rnd}");
        }
        assert_eq!(
            cvt_err("cvt.rni.f16.f32"),
            Violation::at(
                "rni",
                ".f16.f32 loses precision and needs a floating-point rounding modifier (.rn, .rz, .rm, .rp), not .rni"
            )
        );
        // f16 <-> bf16 lose in both directions (significand one way, exponent the other).
        assert_eq!(cvt("cvt.rn.bf16.f16"), Ok(()));
        assert_eq!(cvt("cvt.rn.f16.bf16"), Ok(()));
        assert!(cvt("cvt.bf16.f16").is_err());
        assert!(cvt("cvt.rni.f16.bf16").is_err());
    }

    #[test]
    fn same_type_float_rounds_to_integral_only() {
        assert_eq!(cvt("cvt.rni.f32.f32"), Ok(()));
        assert_eq!(cvt("cvt.rpi.f16.f16"), Ok(()));
        assert_eq!(cvt("cvt.f64.f64"), Ok(()));
        assert_eq!(
            cvt_err("cvt.rn.f32.f32"),
            Violation::at(
                "rn",
                "a same-type conversion .f32.f32 only rounds to an integral value: use .rni, .rzi, .rmi, .rpi or no rounding modifier, not .rn"
            )
        );
    }

    #[test]
    fn float_to_int_requires_integer_rounding() {
        assert_eq!(cvt("cvt.rzi.s32.f32"), Ok(()));
        assert_eq!(cvt("cvt.rni.u8.f16"), Ok(()));
        assert_eq!(
            cvt_err("cvt.rn.s32.f32"),
            Violation::at(
                "rn",
                "float-to-integer conversion .s32.f32 needs an integer rounding modifier (.rni, .rzi, .rmi, .rpi), not .rn"
            )
        );
        assert_eq!(
            cvt_err("cvt.s32.f32"),
            Violation::new(
                "float-to-integer conversion .s32.f32 needs an integer rounding modifier (.rni, .rzi, .rmi, .rpi)"
            )
        );
    }

    #[test]
    fn int_to_float_requires_float_rounding() {
        assert_eq!(cvt("cvt.rn.f32.s32"), Ok(()));
        assert_eq!(cvt("cvt.rz.f64.u64"), Ok(()));
        assert_eq!(
            cvt_err("cvt.f32.s32"),
            Violation::new(
                "integer-to-float conversion .f32.s32 needs a floating-point rounding modifier (.rn, .rz, .rm, .rp)"
            )
        );
        assert_eq!(
            cvt_err("cvt.rni.f32.u16"),
            Violation::at(
                "rni",
                "integer-to-float conversion .f32.u16 needs a floating-point rounding modifier (.rn, .rz, .rm, .rp), not .rni"
            )
        );
    }

    #[test]
    fn int_to_int_takes_no_rounding() {
        assert_eq!(cvt("cvt.s32.s16"), Ok(()));
        assert_eq!(cvt("cvt.u8.u8"), Ok(()));
        assert_eq!(
            cvt_err("cvt.rn.s32.s16"),
            Violation::at(
                "rn",
                "integer-to-integer conversion .s32.s16 takes no rounding modifier"
            )
        );
        assert_eq!(cvt_err("cvt.rzi.s32.s32").token, Some("rzi"));
    }

    // -------------------- cvt (ISA 9.7.9.21): .ftz, .sat, toolchain exclusions

    #[test]
    fn ftz_needs_an_f32_side() {
        assert_eq!(cvt("cvt.rzi.ftz.s32.f32"), Ok(()));
        assert_eq!(cvt("cvt.ftz.f32.bf16"), Ok(()));
        assert_eq!(cvt("cvt.rn.ftz.f16.f32"), Ok(()));
        assert_eq!(
            cvt_err("cvt.rn.ftz.f16.f64"),
            Violation::at(
                "ftz",
                ".ftz applies only when .f32 is the source or destination type, not to .f16.f64"
            )
        );
        assert!(cvt("cvt.rni.ftz.s32.f16").is_err());
    }

    #[test]
    fn integer_saturation_only_where_the_range_is_not_covered() {
        assert_eq!(
            cvt_err("cvt.sat.s32.s16"),
            Violation::at(
                "sat",
                ".s32 already covers every .s16 value, so .sat cannot saturate anything"
            )
        );
        assert_eq!(
            cvt("cvt.sat.u32.s32"),
            Ok(()),
            "unsigned from signed: never covered"
        );
        assert_eq!(cvt("cvt.sat.u64.s8"), Ok(()));
        assert_eq!(cvt("cvt.sat.s8.s32"), Ok(()), "narrowing");
        assert_eq!(cvt("cvt.sat.s32.u32"), Ok(()), "s32 does not cover u32");
        assert!(cvt("cvt.sat.s64.u32").is_err(), "s64 covers u32");
        assert!(cvt("cvt.sat.u32.u16").is_err());
        assert!(cvt("cvt.sat.u16.u16").is_err());
        // Saturation on float results clamps to [0, 1] and is always allowed.
        assert_eq!(cvt("cvt.sat.f32.f16"), Ok(()));
        assert_eq!(cvt("cvt.rn.sat.f32.s32"), Ok(()));
        assert_eq!(cvt("cvt.rzi.sat.s32.f32"), Ok(()));
    }

    #[test]
    fn bf16_toolchain_exclusions() {
        assert_eq!(
            cvt_err("cvt.rn.sat.bf16.f32"),
            Violation::at(
                "sat",
                "ptxas accepts no .sat on a .bf16 conversion (.bf16.f32)"
            )
        );
        assert!(cvt("cvt.sat.f32.bf16").is_err());
        assert_eq!(
            cvt_err("cvt.rni.u8.bf16"),
            Violation::new(
                "conversions between .bf16 and 8-bit integers (.u8.bf16) are not offered: ptxas 13 rejects them (ptxas 12.9 still accepts them), so a newer driver could fail to load the PTX; convert through .f32 or a 16-bit integer"
            )
        );
        assert!(cvt("cvt.rn.bf16.s8").is_err());
        assert_eq!(cvt("cvt.rn.bf16.s16"), Ok(()));
        assert_eq!(cvt("cvt.rni.s16.bf16"), Ok(()));
    }

    #[test]
    fn relu_and_satfinite_only_on_the_half_from_f32_lines() {
        for ok in [
            "cvt.rn.relu.f16.f32",
            "cvt.rz.relu.bf16.f32",
            "cvt.rn.satfinite.f16.f32",
            "cvt.rz.relu.satfinite.bf16.f32",
        ] {
            assert_eq!(cvt(ok), Ok(()), "{ok}");
        }
        assert_eq!(
            cvt_err("cvt.rn.relu.f32.f64"),
            Violation::at(
                "relu",
                ".relu exists only on the f16/bf16 <- f32 scalar lines, not on .f32.f64"
            )
        );
        assert_eq!(cvt_err("cvt.rn.satfinite.f16.f64").token, Some("satfinite"));
        assert_eq!(
            cvt_err("cvt.rm.relu.f16.f32"),
            Violation::at("rm", "the .relu line rounds with .rn or .rz only")
        );
        assert_eq!(
            cvt_err("cvt.satfinite.f16.f32"),
            Violation::new("the .satfinite line needs a rounding modifier: .rn or .rz")
        );
        assert_eq!(
            cvt_err("cvt.rn.relu.ftz.f16.f32"),
            Violation::at("ftz", ".ftz cannot be combined with .relu")
        );
        assert_eq!(cvt_err("cvt.rn.relu.sat.f16.f32").token, Some("sat"));
    }

    // --------------------------------------------- other rules of the table

    #[test]
    fn tf32_rna_has_no_relu() {
        let m = modifiers("cvt.tf32", "cvt.rna.relu.tf32.f32");
        assert_eq!(
            cvt_tf32(&m),
            Err(Violation::at(
                "relu",
                "the .rna tf32 line has no .relu; use .rn or .rz with .relu"
            ))
        );
        assert_eq!(
            cvt_tf32(&modifiers("cvt.tf32", "cvt.rna.satfinite.tf32.f32")),
            Ok(())
        );
        assert_eq!(
            cvt_tf32(&modifiers("cvt.tf32", "cvt.rz.satfinite.relu.tf32.f32")),
            Ok(())
        );
    }

    #[test]
    fn memory_access_rules() {
        assert_eq!(
            memory::access(&modifiers("ld", "ld.global.v4.f64")),
            Err(Violation::at(
                "v4",
                ".v4.f64 would move 256 bits; vector accesses are limited to 128 bits"
            ))
        );
        assert_eq!(memory::access(&modifiers("ld", "ld.global.v2.f64")), Ok(()));
        assert_eq!(
            memory::access(&modifiers("st", "st.global.cs.v4.f32")),
            Ok(())
        );
        assert_eq!(
            memory::access(&modifiers("ld", "ld.global.lu.nc.f32")),
            Err(Violation::at(
                "lu",
                "ld.global.nc takes only the .ca, .cg or .cs cache operator, not .lu"
            ))
        );
        assert_eq!(
            memory::access(&modifiers("st", "st.global.wb.L1::evict_last.b32")),
            Err(Violation::at(
                "wb",
                "cache operators and eviction priorities are mutually exclusive: write one or the other"
            ))
        );
    }

    #[test]
    fn arithmetic_rules() {
        assert_eq!(
            float_arith(&modifiers("add.float", "add.ftz.f64")),
            Err(Violation::at("ftz", ".ftz applies only to .f32, not .f64"))
        );
        assert_eq!(
            float_arith(&modifiers("fma", "fma.rn.sat.f64")),
            Err(Violation::at("sat", ".sat applies only to .f32, not .f64"))
        );
        assert_eq!(
            float_arith(&modifiers("mul.float", "mul.rz.ftz.sat.f32")),
            Ok(())
        );
        assert_eq!(
            int_saturation(&modifiers("add.int", "add.sat.u32")),
            Err(Violation::at("sat", "integer .sat applies only to .s32"))
        );
        assert_eq!(int_saturation(&modifiers("sub.int", "sub.sat.s32")), Ok(()));
        assert_eq!(
            int_saturation(&modifiers("mad.int", "mad.hi.sat.s32")),
            Ok(())
        );
        assert_eq!(
            int_saturation(&modifiers("mad.int", "mad.lo.sat.s32")),
            Err(Violation::at(
                "sat",
                "mad takes .sat only as mad.hi.sat.s32"
            ))
        );
        assert_eq!(
            float_min_max(&modifiers("min.float", "min.xorsign.f32")),
            Err(Violation::at(
                "xorsign",
                ".xorsign must be followed by .abs (.xorsign.abs)"
            ))
        );
        assert_eq!(
            float_min_max(&modifiers("max.float", "max.abs.f32")),
            Err(Violation::at(
                "abs",
                ".abs on min/max exists only as .xorsign.abs"
            ))
        );
        assert_eq!(
            float_min_max(&modifiers("min.float", "min.NaN.f64")),
            Err(Violation::at(
                "NaN",
                ".NaN applies only to .f32; min/max.f64 takes no modifiers"
            ))
        );
        assert_eq!(
            float_min_max(&modifiers("max.float", "max.ftz.NaN.xorsign.abs.f32")),
            Ok(())
        );
        assert_eq!(
            integer::int_min_max(&modifiers("min.int", "min.relu.s16")),
            Err(Violation::at(
                "relu",
                "integer min/max take .relu only on .s32 and .s16x2"
            ))
        );
        assert_eq!(
            integer::int_min_max(&modifiers("max.int", "max.relu.s32")),
            Ok(())
        );
    }

    #[test]
    fn pack_lanes_are_at_least_a_byte() {
        let mut m = modifiers("mov.pack4", "mov.b32");
        assert_eq!(pack_lanes(&m), Ok(()));
        m.tokens[0] = Some("b16"); // not among the form's choices: four 4-bit lanes
        assert_eq!(
            pack_lanes(&m),
            Err(Violation::at(
                "b16",
                "mov.b16 cannot be split into 4 lanes: lanes are at least 8 bits"
            ))
        );
    }

    // ---------------------------- cvt (ISA 9.7.9.21): targets and PTX versions

    fn req(id: &str, opcode: &str, target: Target) -> Requirement {
        modifiers(id, opcode).requirement(target)
    }

    #[test]
    fn cvt_floors() {
        let t = Target::SM_90;
        assert_eq!(
            req("cvt.scalar", "cvt.rn.f16.f32", t),
            Requirement::new(20, 1, 0)
        );
        assert_eq!(
            req("cvt.scalar", "cvt.rn.f32.f64", t),
            Requirement::new(20, 1, 4)
        );
        assert_eq!(
            req("cvt.scalar", "cvt.rn.bf16.f32", t),
            Requirement::new(80, 7, 0)
        );
        assert_eq!(
            req("cvt.scalar", "cvt.f32.bf16", t),
            Requirement::new(80, 7, 1)
        );
        assert_eq!(
            req("cvt.scalar", "cvt.ftz.f32.bf16", t),
            Requirement::new(90, 7, 8)
        );
        assert_eq!(
            req("cvt.scalar", "cvt.rn.bf16.f16", t),
            Requirement::new(90, 7, 8)
        );
        assert_eq!(
            req("cvt.scalar", "cvt.rni.s32.bf16", t),
            Requirement::new(90, 7, 8)
        );
        assert_eq!(
            req("cvt.scalar", "cvt.rn.relu.f16.f32", t),
            Requirement::new(80, 7, 0)
        );
        // Measured with ptxas 12.9: `.satfinite` alone is PTX 8.1 with no arch floor.
        assert_eq!(
            req("cvt.scalar", "cvt.rn.satfinite.f16.f32", t),
            Requirement::new(20, 8, 1)
        );
        assert_eq!(
            req("cvt.scalar", "cvt.rz.relu.satfinite.bf16.f32", t),
            Requirement::new(80, 8, 1)
        );
        let pair = "cvt.half-pair-from-f32";
        assert_eq!(req(pair, "cvt.rn.f16x2.f32", t), Requirement::new(80, 7, 0));
        assert_eq!(
            req(pair, "cvt.rz.relu.bf16x2.f32", t),
            Requirement::new(80, 7, 0)
        );
        assert_eq!(
            req(pair, "cvt.rn.satfinite.f16x2.f32", t),
            Requirement::new(80, 8, 1)
        );
        assert_eq!(
            req("cvt.tf32", "cvt.rna.tf32.f32", t),
            Requirement::new(80, 7, 0)
        );
        assert_eq!(
            req("cvt.tf32", "cvt.rna.satfinite.tf32.f32", t),
            Requirement::new(80, 8, 1)
        );
        assert_eq!(
            req("cvt.tf32", "cvt.rn.relu.tf32.f32", t),
            Requirement::new(90, 7, 8)
        );
        assert_eq!(
            req("cvt.tf32", "cvt.rz.satfinite.tf32.f32", t),
            Requirement::new(100, 8, 6)
        );
    }

    #[test]
    fn fp8_floor_depends_on_the_target() {
        for (id, opcode) in [
            ("cvt.fp8-pair-from-f32", "cvt.rn.satfinite.e4m3x2.f32"),
            (
                "cvt.fp8-pair-from-f16x2",
                "cvt.rn.satfinite.relu.e5m2x2.f16x2",
            ),
            ("cvt.f16x2-from-fp8-pair", "cvt.rn.f16x2.e4m3x2"),
        ] {
            assert_eq!(
                req(id, opcode, Target::sm(89)),
                Requirement::new(89, 8, 1),
                "{opcode}"
            );
            assert_eq!(
                req(id, opcode, Target::sm(90)),
                Requirement::new(90, 7, 8),
                "{opcode}"
            );
            assert_eq!(
                req(id, opcode, Target::sm(100)),
                Requirement::new(90, 7, 8),
                "{opcode}"
            );
            // On an older target the error names sm_89, the lowest that has it.
            let on_80 = req(id, opcode, Target::sm(80));
            assert_eq!(on_80, Requirement::new(89, 8, 1));
            assert!(!on_80.is_met_by(Target::sm(80)));
        }
    }

    #[test]
    fn memory_and_arithmetic_floors() {
        let t = Target::SM_90;
        assert_eq!(req("ld", "ld.global.v4.f32", t), Requirement::new(20, 1, 0));
        assert_eq!(req("ld", "ld.global.nc.f32", t), Requirement::new(32, 3, 1));
        assert_eq!(
            req("ld", "ld.global.L1::evict_last.f32", t),
            Requirement::new(70, 7, 4)
        );
        assert_eq!(
            req("ld", "ld.global.L2::64B.b32", t),
            Requirement::new(75, 7, 4)
        );
        assert_eq!(
            req("ld", "ld.global.L2::256B.b32", t),
            Requirement::new(80, 7, 4)
        );
        assert_eq!(
            req("st", "st.global.L1::no_allocate.b32", t),
            Requirement::new(70, 7, 4)
        );
        assert_eq!(
            req("min.float", "min.NaN.f32", t),
            Requirement::new(80, 7, 0)
        );
        assert_eq!(
            req("max.float", "max.xorsign.abs.f32", t),
            Requirement::new(86, 7, 2)
        );
        assert_eq!(
            req("min.int", "min.relu.s32", t),
            Requirement::new(90, 8, 0)
        );
        assert_eq!(req("fma", "fma.rn.f32", t), Requirement::new(20, 2, 0));
        assert_eq!(req("mov.pack2", "mov.b64", t), Requirement::new(20, 1, 0));
    }
}
