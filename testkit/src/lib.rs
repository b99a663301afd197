//! The test kit: what the tests of every crate of the workspace share,
//! as one dev-only crate instead of files included by `#[path]`.
//!
//! - [`ast`]: builders for syntax trees (`int`, `name`, `call`, `binary`,
//!   `place`, `apply`, `alloc`, `kernel`, ..). They live in the lowering
//!   crate (`tile_kernel_lowering::ast::build`, behind its `testkit`
//!   feature) so that lowering's own unit tests, which see the crate's
//!   types as they are compiled for the test, use the same builders; this
//!   crate re-exports them to everyone else.
//! - [`Rng`]: the one seeded PRNG (SplitMix64).
//! - [`ptxas`]: the pinned ptxas, for the assembly and certification tests.
//! - [`form_kernels`]: kernels that run one variant of one PTX form on fresh
//!   operands, for `lowering/tests/forms_end_to_end.rs`,
//!   `tests/differential` and `examples/sweep_conversions.rs`.
//!
//! Not published: only `[dev-dependencies]` name it.

pub mod form_kernels;
pub mod ptxas;
mod rng;

pub use rng::Rng;
pub use tile_kernel_lowering::ast::build as ast;
