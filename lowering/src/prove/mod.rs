//! Proofs: what the compiler proves about a kernel before it lowers it.
//!
//! [`Obligation`] lists every property a legal kernel has. Its variants are
//! the documentation of what is proven; each names the module that
//! discharges it, one module per obligation. A module here reads the
//! checked kernel (`crate::checked`) and the declarations, and returns
//! diagnostics and what lowering needs (a guard, launch requirements); none
//! builds IR.
//!
//! Two kinds of proof:
//! - **per apply** (bounds, order, alignment, convergence): run by semantic
//!   analysis as it adds each apply to the checked kernel, so their errors
//!   come in statement order and a failed apply is not checked further;
//! - **whole kernel** (registers, races, async ownership, the register
//!   budget): run over the finished checked kernel, once.

pub(crate) mod alignment;
pub(crate) mod async_copies;
pub(crate) mod bounds;
pub mod budget;
pub(crate) mod cluster_rings;
pub(crate) mod convergence;
pub(crate) mod order;
pub(crate) mod races;
pub(crate) mod register_pool;
pub(crate) mod registers;
pub(crate) mod remote_lifetime;
pub(crate) mod shared_races;

pub use async_copies::loops_walked_to_the_limit;

/// A property every legal kernel has, and where it is proven.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Obligation {
    /// Every memory access is in bounds of its tensor or shared buffer:
    /// proven from the facts in scope, or guarded by a predicate the
    /// compiler adds (SPEC §6): `bounds`, which returns the guard;
    /// statically out-of-range slices are rejected in `sema/views.rs`.
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
    /// (the walk over the checked kernel, the separation engine and the
    /// rule for global tensors) and `shared_races` (shared buffers, by
    /// barrier epoch, over the same engine; a buffer other CTAs of the
    /// cluster reach by cluster barrier epoch, over the cluster's
    /// threads), and every access to another CTA's shared memory runs
    /// while that CTA does (`remote_lifetime`).
    RaceFree,
    /// The shared bytes an asynchronous copy (`cp.async`) writes are
    /// touched by nothing from its issue until a wait retires its group,
    /// and by other threads only after a CTA barrier that follows the
    /// wait; no store meets the global bytes a pending copy reads, and no
    /// copy is pending where the kernel ends: `async_copies`. A ring the
    /// CTAs of a cluster signal for each other (multicast copies, arrivals
    /// on another CTA's mbarrier) is proven there for one CTA, counting
    /// what every CTA does, after `cluster_rings` proved that every CTA
    /// runs it alike.
    AsyncOwnership,
    /// Every collective and barrier is reached by all threads of its scope
    /// together: `convergence`.
    Converged,
    /// The tiles fit the registers a thread has: `budget`. (The walk's own
    /// compile-time limits, instructions, unrolled statements and nesting,
    /// are in `sema/limits.rs`; the static shared-memory budget is checked
    /// where a buffer is declared, `sema/shared.rs`.)
    Budget,
}
