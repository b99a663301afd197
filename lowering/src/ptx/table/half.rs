//! Half precision: `f16`, `f16x2`, `bf16`, `bf16x2` arithmetic (ISA 9.7.4).

use super::*;

/// The forms of this family, in lookup order.
pub static FORMS: &[InstructionForm] = &[];
