//! Legality rules and target requirements of the warp family
//! (`table/warp.rs`).

#[allow(unused_imports)]
use super::*;
