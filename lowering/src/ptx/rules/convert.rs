//! Legality rules and target requirements of the convert family
//! (`table/convert.rs`).

#[allow(unused_imports)]
use super::*;
