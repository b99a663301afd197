//! Legality rules and target requirements of the float family
//! (`table/float.rs`).

#[allow(unused_imports)]
use super::*;
