//! Legality rules and target requirements of the half family
//! (`table/half.rs`).

#[allow(unused_imports)]
use super::*;
