//! Legality rules and target requirements of the registered family
//! (`table/registered.rs`).

#[allow(unused_imports)]
use super::*;
