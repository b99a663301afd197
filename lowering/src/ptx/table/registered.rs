//! Registered and certified, not yet usable: barriers, fences, async copies, matrix instructions.

use super::*;

/// The forms of this family, in lookup order.
pub static FORMS: &[InstructionForm] = &[];
