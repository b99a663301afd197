//! Legality rules and target requirements of the data family
//! (`table/data.rs`).

#[allow(unused_imports)]
use super::*;
