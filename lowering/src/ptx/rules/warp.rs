//! Legality rules and target requirements of the warp family
//! (`table/warp.rs`).

#[allow(unused_imports)]
use super::*;

/// `shfl.sync`, `vote.sync`, `bar.warp.sync`: PTX ISA 6.0, sm_30.
pub fn sync_collective_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(30, 6, 0)
}

/// `match.sync`: PTX ISA 6.0, sm_70.
pub fn match_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(70, 6, 0)
}

/// `redux.sync` on integers: PTX ISA 7.0, sm_80.
pub fn redux_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(80, 7, 0)
}

/// `activemask`: PTX ISA 6.2, sm_30.
pub fn activemask_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(30, 6, 2)
}

/// `elect.sync`: PTX ISA 8.0, sm_90.
pub fn elect_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(90, 8, 0)
}
