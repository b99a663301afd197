//! Warp-level collectives: registered and certified; usable once scopes exist.

use super::*;

/// The forms of this family, in lookup order.
pub static FORMS: &[InstructionForm] = &[];
