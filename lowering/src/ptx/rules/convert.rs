//! Legality rules and target requirements of the convert family
//! (`table/convert.rs`).

use super::*;
use crate::ptx::Slot;

/// `cvt.pack`: PTX 6.5 on sm_72; the sub-byte types (`.u4 .s4 .u2 .s2`) sm_75.
pub fn cvt_pack_requires(m: &Modifiers, _: Target) -> Requirement {
    match m.get(Slot::Convert) {
        Some("u4" | "s4" | "u2" | "s2") => Requirement::new(75, 6, 5),
        _ => Requirement::new(72, 6, 5),
    }
}

/// fp4/fp6/ue8m0 conversions: the arch-specific Blackwell targets
/// (sm_100a, sm_120a; ptxas 12.9 rejects them on plain sm_100/sm_120 and on
/// sm_90), from PTX ISA 8.6.
pub fn blackwell_narrow_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::arch_specific(&[100, 120], 8, 6)
}
