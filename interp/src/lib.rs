//! tile-kernel's CPU interpreter: runs a lowered kernel ([`Program`]) on the
//! host with the PTX semantics of every usable form, bit-exact with the GPU.
//!
//! ```text
//! Program --prepare--> Prepared --run(grid, args)--> memory effects | Fault
//!  (the IR)   (forms resolved to      (blocks in parallel on host
//!              semantics, registers    threads; the threads of a block
//!              laid out)               in lockstep)
//! ```
//!
//! - [`semantics`]: the value semantics of each form variant, pure
//!   functions of register bits ([`semantics::softfloat`] is their exact
//!   rounding core).
//!
//! [`Program`]: tile_kernel_lowering::program::Program

pub mod semantics;

mod exec;
mod fault;
mod memory;
mod prepare;
mod run;

pub use fault::{Fault, FaultKind, PrepareError, ThreadId};
pub use run::{Arg, Prepared, RunOptions, RunReport};
