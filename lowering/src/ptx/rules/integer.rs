//! Legality rules and target requirements of the integer family
//! (`table/integer.rs`).

use super::*;
use crate::ptx::Slot;

/// Whether the `type` slot holds a packed pair of 16-bit integers.
fn packed_pair(m: &Modifiers) -> bool {
    matches!(m.ty(Slot::Type), Some(PtxType::U16x2 | PtxType::S16x2))
}

/// `add.{u16x2,s16x2}`: sm_90 (PTX 8.0); the scalar types are PTX 1.0.
pub fn add_requires(m: &Modifiers, _: Target) -> Requirement {
    if packed_pair(m) {
        Requirement::new(90, 8, 0)
    } else {
        Requirement::new(20, 1, 0)
    }
}

/// Integer `min`/`max`: `.relu` only on `.s32` and `.s16x2`
/// (`min{.relu}.{s16x2, s32}`).
pub fn int_min_max(m: &Modifiers) -> Result<(), Violation> {
    if let Some(relu) = m.get(Slot::Relu)
        && !matches!(m.ty(Slot::Type), Some(PtxType::S32 | PtxType::S16x2))
    {
        return Err(Violation::at(
            relu,
            "integer min/max take .relu only on .s32 and .s16x2",
        ));
    }
    Ok(())
}

/// `min/max` on `.u16x2`/`.s16x2` and `.relu`: sm_90 (PTX 8.0).
pub fn int_min_max_requires(m: &Modifiers, _: Target) -> Requirement {
    if m.has(Slot::Relu) || packed_pair(m) {
        Requirement::new(90, 8, 0)
    } else {
        Requirement::new(20, 1, 0)
    }
}

/// Whether the `type` slot is 64 bits wide.
fn wide_type(m: &Modifiers) -> bool {
    m.ty(Slot::Type).is_some_and(|t| t.carrier_bits() == 64)
}

/// `add.cc`, `addc`, `sub.cc`, `subc`: 32-bit PTX 1.2; 64-bit PTX 4.3 on sm_20.
pub fn carry_requires(m: &Modifiers, _: Target) -> Requirement {
    if wide_type(m) {
        Requirement::new(20, 4, 3)
    } else {
        Requirement::new(20, 1, 2)
    }
}

/// `mad.cc`, `madc`: 32-bit PTX 3.0 on sm_20; 64-bit PTX 4.3.
pub fn mad_carry_requires(m: &Modifiers, _: Target) -> Requirement {
    if wide_type(m) {
        Requirement::new(20, 4, 3)
    } else {
        Requirement::new(20, 3, 0)
    }
}

/// `mad24`: `.sat` only as `mad24.hi.sat.s32`.
pub fn mad24_saturation(m: &Modifiers) -> Result<(), Violation> {
    if let Some(sat) = m.get(Slot::Sat) {
        if m.ty(Slot::Type) != Some(PtxType::S32) {
            return Err(Violation::at(sat, "mad24 takes .sat only on .s32"));
        }
        if m.get(Slot::Mode) != Some("hi") {
            return Err(Violation::at(
                sat,
                "mad24 takes .sat only as mad24.hi.sat.s32",
            ));
        }
    }
    Ok(())
}

/// `dp4a`, `dp2a`: sm_61 (PTX 5.0).
pub fn dot_product_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(61, 5, 0)
}
