//! Legality rules and target requirements of the memory family
//! (`table/memory.rs`).

#[allow(unused_imports)]
use super::*;
