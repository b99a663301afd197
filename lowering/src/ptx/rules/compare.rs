//! Legality rules and target requirements of the compare family
//! (`table/compare.rs`).

#[allow(unused_imports)]
use super::*;
