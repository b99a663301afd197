//! TODO: semantics of this family.

use super::Compute;
use tile_kernel_lowering::ptx::Modifiers;

/// The semantics of a variant of this family's forms, or `None` for other forms.
pub(crate) fn compute(_variant: &Modifiers) -> Option<Compute> {
    None
}
