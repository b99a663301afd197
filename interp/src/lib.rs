//! tile-kernel's CPU interpreter: runs a lowered kernel ([`Program`]) on the
//! host with the PTX semantics of every usable form, bit-exact with the GPU.
//!
//! ```text
//! Program --prepare--> Prepared --run(grid, args)--> memory effects | Fault
//!  (the IR)   (forms resolved to      (clusters in parallel on host
//!              semantics, registers    threads; the threads of a
//!              laid out)               cluster's blocks in lockstep)
//! ```
//!
//! Modules, one job each:
//! - [`semantics`]: the value semantics of each form variant, pure
//!   functions of register bits ([`semantics::softfloat`] is their exact
//!   rounding core).
//! - `prepare`: the program resolved into a plan (variants to semantics,
//!   register lanes to frame bytes, polynomials flattened); corrupt IR is a
//!   [`PrepareError`] here, never a panic later.
//! - `exec`: one cluster (one block, without a cluster), the threads of
//!   its blocks in lockstep, each block's ids, warps, barriers and work
//!   limit its own; a pure instruction on an undefined register gives an
//!   undefined result, a store, atomic, collective, barrier or condition
//!   that reads one is a fault.
//! - `memory`: tensor bytes, bounds/alignment checks, race detection,
//!   atomic read-modify-write.
//! - `shared`: the shared buffers of a cluster's blocks, one copy each,
//!   which plain `.shared::cluster` accesses reach across the cluster:
//!   bounds/alignment checks, which bytes have been written (shared
//!   memory starts undefined), race detection between barriers (within a
//!   block, and across the cluster's blocks), the bytes asynchronous
//!   copies own, and each block's mbarrier objects (their phases, and
//!   which thread has observed which).
//! - `run`: [`Prepared`]: argument checks, whole clusters spread over host
//!   threads, the first fault by cluster order.
//! - `fault`: [`Fault`], what the interpreter reports instead of garbage.
//!
//! The crate has no `unsafe`: global memory is `AtomicU8` (shared memory
//! belongs to one cluster, which one host thread runs), so even a racy
//! kernel is defined behaviour on the host (and its race is reported).
//!
//! [`Program`]: tile_kernel_lowering::program::Program

#![forbid(unsafe_code)]

pub mod semantics;

mod exec;
mod fault;
mod memory;
mod prepare;
mod run;
mod shared;

pub use fault::{Fault, FaultKind, PrepareError, ThreadId};
pub use run::{Arg, Prepared, RunOptions, RunReport};
