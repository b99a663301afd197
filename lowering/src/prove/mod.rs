//! Proofs: what the compiler proves about a kernel before it lowers it.
//!
//! [`Obligation`] lists every property a legal kernel has. Its variants are
//! the documentation of what is proven; each names the module that
//! discharges it. The engine is being moved here from the checker's walk
//! one obligation at a time: an obligation that lives here reads what the
//! checker recorded and builds no IR; the others are still discharged
//! during the walk, where their doc says.

pub(crate) mod registers;

/// A property every legal kernel has, and where it is proven.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Obligation {
    /// Every memory access is in bounds of its tensor or shared buffer:
    /// proven from the facts in scope, or guarded by a predicate the
    /// compiler adds (SPEC §6). Today: `check/expand.rs`; statically
    /// out-of-range slices in `check/views.rs`.
    InBounds,
    /// Every memory access is aligned to its size, or a launch-time
    /// requirement on a symbol makes it so. Today: `check/expand.rs`.
    Aligned,
    /// Every register value a store, atomic, collective, barrier or
    /// condition observes is defined where it is observed; values computed
    /// from guarded writes are defined where the guard held
    /// (`registers`, over the recorded register flow).
    RegistersDefined,
    /// No `apply` writes a register twice, and no repeat coordinate reads
    /// what another writes (rule 8, order independence). Today:
    /// `check/expand.rs`.
    OrderIndependent,
    /// No two threads race on a global tensor or a shared buffer, and
    /// `.nc` loads read only tensors the kernel does not write. Today:
    /// `check/safety.rs` (global) and `check/shared.rs` (shared, by
    /// barrier epoch).
    RaceFree,
    /// Every collective and barrier is reached by all threads of its scope
    /// together. Today: `check/scopes.rs`.
    Converged,
    /// Registers, instructions, unrolled statements and static shared
    /// memory fit their budgets. Today: `check/safety.rs`,
    /// `check/limits.rs`, `check/shared.rs`.
    Budget,
}
