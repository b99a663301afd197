//! Legality rules and target requirements of the convert family
//! (`table/convert.rs`).

use super::*;

/// `cvt.pack`: PTX 6.5 on sm_72; the sub-byte types (`.u4 .s4 .u2 .s2`) sm_75.
pub fn cvt_pack_requires(m: &Modifiers, _: Target) -> Requirement {
    match m.get("convert") {
        Some("u4" | "s4" | "u2" | "s2") => Requirement::new(75, 6, 5),
        _ => Requirement::new(72, 6, 5),
    }
}
