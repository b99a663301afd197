//! Legality rules and target requirements of the integer family
//! (`table/integer.rs`).

#[allow(unused_imports)]
use super::*;
