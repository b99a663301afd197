//! Legality rules and target requirements of the data family
//! (`table/data.rs`).

use super::*;

/// `prmt`, `bfe`, `bfi`, `bfind`, `brev`, `popc`, `clz`: sm_20 (PTX 2.0).
pub fn ptx_2_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(20, 2, 0)
}

/// `shf`: sm_32 (PTX 3.1).
pub fn shf_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(32, 3, 1)
}

/// `lop3.b32`: sm_50 (PTX 4.3).
pub fn lop3_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(50, 4, 3)
}

/// `fns`: sm_30 (PTX 6.0).
pub fn fns_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(30, 6, 0)
}

/// `bmsk`, `szext`: sm_70 (PTX 7.6).
pub fn ptx_7_6_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(70, 7, 6)
}

/// `.b128` registers: sm_70 (PTX 8.3).
pub fn b128_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(70, 8, 3)
}

/// `lop3.BoolOp.b32 d|p, a, b, c, immLut, q`: PTX ISA 8.2, sm_70.
pub fn lop3_bool_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(70, 8, 2)
}
