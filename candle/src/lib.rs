//! tile-kernel kernels as [candle](https://crates.io/crates/candle-core) ops.
//!
//! A `#[tile_kernel]` kernel becomes a candle op by implementing
//! [`TileOp`] for a small type (its name, which kernel to launch, its
//! scalar arguments); [`CandleOp`] wraps it as candle's `CustomOp1`,
//! `CustomOp2` or `CustomOp3` (kernels that write one tensor), and
//! [`call`] runs it for any number of outputs. The same op runs on both of
//! candle's devices:
//!
//! - on the **CPU** device the kernel runs on tile-kernel's CPU
//!   interpreter (the inputs are copied into its memory and the outputs
//!   back);
//! - on the **CUDA** device (feature `cuda`) it launches on the stream of
//!   candle's `CudaDevice`, with views of candle's buffers as inputs (no
//!   copy) and outputs allocated through candle.
//!
//! The op's tensors map onto the kernel's parameters in order: read-only
//! tensor parameters are the inputs, written ones the outputs (their shapes
//! computed from the size symbols the inputs bind), scalars come from
//! [`TileOp::scalars`]. The launch is the runtime's checked
//! [`LaunchBuilder`](tile_kernel::runtime::LaunchBuilder), so dtypes,
//! shapes, size symbols, alignment and the kernel's target architecture
//! are checked as by the kernel's own launcher, and its errors come back
//! as candle errors (`candle::Error::Wrapped`) with the same text. An input
//! with a strided layout is an error naming it and its strides, unless the
//! op opts in to a copy ([`TileOp::copy_strided_inputs`]).
//!
//! Modules, one job each:
//! - `op`: [`TileOp`], [`CandleOp`] and [`call`]; the dispatch to a backend.
//! - `plan`: the op's tensors mapped onto the kernel's parameters, the
//!   inputs' contiguous ranges, the outputs' shapes (pure functions).
//! - `dtype`: the element types candle and tile-kernel share, [`Scalar`].
//! - `launch`: one checked launch over tile-kernel views, either device.
//! - `cpu`: candle's CPU storage to and from the interpreter device.
//! - `cuda` (feature `cuda`): candle's CUDA storage as views, outputs
//!   allocated through candle, the launch on candle's stream.

mod cpu;
#[cfg(feature = "cuda")]
mod cuda;
mod dtype;
mod launch;
mod op;
mod plan;

pub use dtype::Scalar;
pub use op::{CandleOp, TileOp, call};
/// The runtime's kernel type, what [`TileOp::kernel`] returns
/// (`&NAME::KERNEL` of a `#[tile_kernel]` fn).
pub use tile_kernel::runtime::Kernel;
