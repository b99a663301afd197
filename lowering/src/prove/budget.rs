//! The budget obligation for registers: the kernel's tiles fit the
//! registers a thread has.
//!
//! **Input**: every tile with the `alloc_local` that declared it.
//! **Output**: TK0606 at the largest tile (the one most worth shrinking)
//! when the tiles need more than [`REGISTER_BUDGET`] 32-bit registers per
//! thread. The checker also halts its walk past the budget
//! (`over_budget`), since each later statement's cost grows with the
//! tiles' size; this error is the one it reports.
//!
//! The other budgets are compile-time limits of the walk itself
//! (instructions, unrolled statements, nesting: `sema/limits.rs`) and the
//! static shared-memory budget, checked where a buffer is declared
//! ([`crate::memory::MemorySpace::static_budget`]).

use crate::diag::{Code, Diagnostic, SpanId};
use crate::program::Tile;

/// Tiles may use at most this many 32-bit registers per thread: PTX allows
/// 255, and the rest is kept for addresses, indices and predicates.
pub const REGISTER_BUDGET: usize = 224;

/// The 32-bit registers a tile occupies (64-bit elements take two).
pub(crate) fn tile_registers(tile: &Tile) -> usize {
    tile.registers() * tile.dtype.size_bytes().div_ceil(4)
}

/// Whether `registers` (the tiles' sum, saturating) exceed the budget.
pub(crate) fn over_budget(registers: usize) -> bool {
    registers > REGISTER_BUDGET
}

/// The register-budget error of a kernel whose tiles are `tiles` (each with
/// the span of its allocation), if they do not fit; `kernel_span` when
/// there are none.
pub(crate) fn prove(tiles: &[(&Tile, SpanId)], kernel_span: SpanId) -> Option<Diagnostic> {
    let registers = tiles.iter().fold(0usize, |sum, (tile, _)| {
        sum.saturating_add(tile_registers(tile))
    });
    if !over_budget(registers) {
        return None;
    }
    let mut sizes: Vec<String> = tiles
        .iter()
        .map(|(tile, _)| format!("`{}`: {}", tile.name, tile_registers(tile)))
        .collect();
    sizes.truncate(8);
    // At the largest tile: the one most worth shrinking.
    let span = tiles
        .iter()
        .max_by_key(|(tile, _)| tile.registers() * tile.dtype.size_bytes())
        .map_or(kernel_span, |(_, span)| *span);
    Some(
        Diagnostic::new(
            Code::REGISTER_BUDGET,
            span,
            format!(
                "the tiles of this kernel need {registers} 32-bit registers per thread, more than the {REGISTER_BUDGET} it may use"
            ),
        )
        .with_note(format!("per tile: {}", sizes.join(", ")))
        .with_note("a thread has 255 registers; the rest hold addresses, indices and predicates. Tiles that do not fit would spill to local memory")
        .with_help("use smaller tiles, or reuse one tile across loop iterations"),
    )
}
