//! Comparison and selection: `setp`, `set`, `selp`, `slct`, `testp`.

use super::*;

/// The forms of this family, in lookup order.
pub static FORMS: &[InstructionForm] = &[];
