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
use crate::program::{DimSpec, SharedBuffer, static_shared_bytes_after};
use crate::shared_layout::{LAYOUT_NAMES, SharedLayout};

use super::{Binding, Checker};

/// A shared buffer while checking.
pub(super) struct SharedState {
    pub buffer: SharedBuffer,
    /// [`static_shared_bytes`](crate::program::static_shared_bytes) of
    /// the buffers up to this one: the budget check of the next
    /// allocation adds one buffer to it, not all of them again (a loop of
    /// allocations was quadratic).
    static_bytes_through: usize,
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
            layout: SharedLayout::Linear,
        };
        let Some(buffer) = self.shared_layout(alloc, buffer) else {
            return;
        };
        let before = self.shared.last().map_or(0, |s| s.static_bytes_through);
        let static_bytes_through = static_shared_bytes_after(before, &buffer);
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
            let total = static_bytes_through;
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
        self.shared.push(SharedState {
            buffer,
            static_bytes_through,
        });
    }

    /// `layout = ".."`: the buffer's [`SharedLayout`], which its shape must
    /// admit (constant extents; the row rule of the layout).
    fn shared_layout(
        &mut self,
        alloc: &ast::AllocLocal,
        mut buffer: SharedBuffer,
    ) -> Option<SharedBuffer> {
        let Some((name, span)) = &alloc.layout else {
            return Some(buffer);
        };
        let extents: Option<Vec<u64>> = buffer
            .shape
            .iter()
            .map(|d| match d {
                DimSpec::Const(e) => Some(*e),
                DimSpec::Symbolic { .. } => None,
            })
            .collect();
        let element = buffer.dtype.size_bytes() as u64;
        let row_bytes = extents
            .as_ref()
            .and_then(|e| e.last())
            .map_or(0, |last| last.saturating_mul(element));
        let Some(layout) = SharedLayout::named(name, u32::try_from(row_bytes).unwrap_or(0)) else {
            let known = LAYOUT_NAMES
                .iter()
                .map(|n| format!("\"{n}\""))
                .collect::<Vec<_>>()
                .join(", ");
            self.diags.push(
                Diagnostic::new(
                    Code::SHARED_LAYOUT,
                    *span,
                    format!("unknown shared layout `\"{name}\"`"),
                )
                .with_help(format!("the layouts are {known}")),
            );
            return None;
        };
        let problem = match &extents {
            None => Some(
                "its extents are sized at launch; a laid-out buffer has constant extents"
                    .to_string(),
            ),
            Some(_) if buffer.mbarrier => Some("it holds mbarrier objects".to_string()),
            Some(extents) => {
                let rows = extents[..extents.len().saturating_sub(1)]
                    .iter()
                    .fold(1u64, |a, e| a.saturating_mul(*e));
                layout.admits(row_bytes, rows).err()
            }
        };
        if let Some(problem) = problem {
            self.diags.push(
                Diagnostic::new(
                    Code::SHARED_LAYOUT,
                    *span,
                    format!(
                        "shared buffer `{}` {} cannot have layout `\"{name}\"`: {problem}",
                        alloc.name,
                        self.shared_shape_text(&buffer)
                    ),
                )
                .with_note(layout_rule(layout)),
            );
            return None;
        }
        buffer.layout = layout;
        Some(buffer)
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

/// What a layout asks of a buffer's shape, for notes.
fn layout_rule(layout: SharedLayout) -> String {
    match layout {
        SharedLayout::Swizzle { span } => format!(
            "a `swizzle_{span}` buffer is rows of exactly {span} bytes (its last axis), in groups of 8 rows: `alloc_shared::<bf16>([64, {}], layout = \"swizzle_{span}\")`",
            span / 2
        ),
        _ => "a `core_matrices` buffer is rows of a multiple of 16 bytes (its last axis), in groups of 8 rows: `alloc_shared::<bf16>([64, 32], layout = \"core_matrices\")`".to_string(),
    }
}
