//! Proofs: what the compiler proves about a kernel before it lowers it.
//!
//! [`Obligation`] lists every property a legal kernel has. Its variants are
//! the documentation of what is proven; each names the module that
//! discharges it. A module here reads the checked kernel
//! (`crate::checked`) and the declarations, and returns diagnostics and
//! what lowering needs (a guard, launch requirements); none builds IR.
//! Per-apply obligations (bounds, order, alignment) run as each apply is
//! added to the checked kernel, so their errors come in statement order;
//! the register obligation runs over the whole checked kernel. The race,
//! convergence and budget obligations are still discharged in the
//! checker's modules named on their variants.

pub(crate) mod alignment;
pub(crate) mod bounds;
pub(crate) mod order;
pub(crate) mod races;
pub(crate) mod registers;

/// A property every legal kernel has, and where it is proven.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Obligation {
    /// Every memory access is in bounds of its tensor or shared buffer:
    /// proven from the facts in scope, or guarded by a predicate the
    /// compiler adds (SPEC §6): `bounds`, which returns the guard;
    /// statically out-of-range slices are rejected in `check/views.rs`.
    InBounds,
    /// Every memory access is aligned to its size, or a launch-time
    /// requirement on a symbol makes it so: `alignment`.
    Aligned,
    /// Every register value a store, atomic, collective, barrier or
    /// condition observes is defined where it is observed; values computed
    /// from guarded writes are defined where the guard held
    /// (`registers`, over the recorded register flow).
    RegistersDefined,
    /// No `apply` writes a register twice, and no repeat coordinate reads
    /// what another writes (rule 8, order independence): `order`.
    OrderIndependent,
    /// No two threads race on a global tensor or a shared buffer, and
    /// `.nc` loads read only tensors the kernel does not write: `races`
    /// (the separation engine, and the rule for global tensors); shared
    /// buffers are held to it by barrier epoch in `check/shared.rs`, over
    /// the same engine.
    RaceFree,
    /// Every collective and barrier is reached by all threads of its scope
    /// together. Today: `check/scopes.rs`.
    Converged,
    /// Registers, instructions, unrolled statements and static shared
    /// memory fit their budgets. Today: `check/limits.rs`,
    /// `check/shared.rs` (the shared space's budget).
    Budget,
}
