//! Shared memory and CTA barriers (SPEC §7, `docs/scopes.md`).
//!
//! - `alloc_shared::<T>([..])` declares one buffer per CTA: with constant
//!   extents a static buffer (at most [`crate::memory::MAX_SHARED_BYTES_PER_CTA`] of them in all;
//!   over [`crate::memory::MAX_STATIC_SHARED_BYTES`] they live in dynamic
//!   shared memory, [`crate::program::Program::shared_placement`]),
//!   or, at most once per kernel, with extents that name a size symbol
//!   (TK0613 otherwise), the dynamic buffer the launcher sizes (TK0614 for a
//!   second one). Its views are memory operands of the `.shared` forms
//!   (`ld.shared`, `st.shared`, `atom.shared`, ..), with bounds proven or
//!   guarded against the (symbolic) extents and alignment proven as for
//!   global tensors (buffers are 16-byte aligned).
//! - A CTA barrier (`bar.sync 0`, `barrier.sync 0`, `bar.red`) is an
//!   `apply` with `scope = "cta"`; it must be reached by every thread of the
//!   CTA together (`crate::prove::convergence`).
//! - **Races** between barriers are the race obligation's
//!   (`crate::prove::shared_races`): the walk puts a
//!   [`crate::checked::Node::CtaBarrier`] after each barrier every thread
//!   passes.
//!
//! Guarantee: a declared buffer fits the static budget (or is the one
//! dynamic buffer) and is bound to its name; its accesses are held to the
//! obligations of any memory operand (`crate::prove`).

use crate::ast;
use crate::diag::{Code, Diagnostic};
use crate::memory::MemorySpace;
use crate::program::{SharedBuffer, static_shared_bytes};

use super::{Binding, Checker};

/// A shared buffer while checking.
pub(super) struct SharedState {
    pub buffer: SharedBuffer,
}

impl Checker<'_> {
    /// `let s = alloc_shared::<T>([..]);`: a static buffer (constant
    /// extents), or the kernel's one dynamic buffer (an extent names a size
    /// symbol; the launcher provides its bytes).
    pub(super) fn alloc_shared(&mut self, alloc: &ast::AllocLocal) {
        let Some(shape) = self.shared_dims(&alloc.shape) else {
            return;
        };
        let buffer = SharedBuffer {
            name: alloc.name.clone(),
            dtype: alloc.dtype,
            shape,
            mbarrier: alloc.space == ast::AllocSpace::Mbarriers,
        };
        if buffer.is_dynamic() {
            if let Some(first) = self.shared.iter().find(|s| s.buffer.is_dynamic()) {
                let first = first.buffer.name.clone();
                self.diags.push(
                    Diagnostic::new(
                        Code::SECOND_DYNAMIC_SHARED,
                        alloc.span,
                        format!(
                            "shared buffer `{}` is sized at launch, and so is `{first}`: a kernel has one dynamic shared buffer",
                            alloc.name
                        ),
                    )
                    .with_help(format!("give one of `{first}` and `{}` constant extents, or keep both in one buffer sized at launch (`alloc_shared::<f32>([2, N])` holds two rows of N)", alloc.name)),
                );
                return;
            }
        } else {
            let total = static_shared_bytes(self.shared.iter().map(|s| &s.buffer).chain([&buffer]));
            let budget = MemorySpace::Shared.static_budget().unwrap_or(usize::MAX);
            if total > budget {
                self.diags.push(
                    Diagnostic::new(
                        Code::SHARED_TOO_LARGE,
                        alloc.span,
                        format!(
                            "shared buffer `{}` {} brings the CTA's shared buffers to {total} bytes, more than the {budget} a CTA may have",
                            alloc.name,
                            self.shared_shape_text(&buffer)
                        ),
                    )
                    .with_help("use smaller buffers, or reuse one buffer across phases of the kernel"),
                );
                return;
            }
        }
        self.bind(&alloc.name, Binding::Shared(self.shared.len()));
        self.shared.push(SharedState { buffer });
    }

    /// `[256, N]`: a buffer's shape as the kernel spells it.
    pub(super) fn shared_shape_text(&self, buffer: &SharedBuffer) -> String {
        buffer.shape_text(|s| {
            self.symbols
                .get(usize::from(s))
                .map_or_else(|| "?".into(), |st| st.symbol.name.clone())
        })
    }
}
