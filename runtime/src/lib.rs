//! The GPU side of tile-kernel: opens devices, moves tensors, and launches
//! the PTX that `#[tile_kernel]` emitted at compile time, through cudarc.
//!
//! The macro writes a [`KernelSpec`] (PTX text, target, launch shape,
//! parameter list, size symbols) into a `static` [`Kernel`]; its generated
//! launcher pushes each argument through a [`Launch`], which checks it
//! against the spec, and runs it. Before the first load in a context the
//! device's compute capability is checked against the spec's [`Target`]
//! ([`Error::ArchMismatch`]); the driver then JIT-compiles the PTX once per
//! context and the module is cached.
//!
//! Tensor dims may be symbolic ([`DimSpec`]): `Tensor<f32, N>` binds the
//! size symbol `N` ([`SymbolSpec`]) from the tensor passed, every other use
//! of `N` must agree, and the grid may be a formula over the symbols
//! ([`LaunchExpr`], e.g. `ceil_div(N, 2048)`) evaluated at launch with
//! checked arithmetic. Symbols reach the kernel as hidden `.u64` parameters.
//!
//! # Streams
//!
//! A [`Device`] is a CUDA context plus one stream; every launch, copy and
//! allocation made through it is queued on that stream. [`Device::new`]
//! creates a new non-blocking stream (never the legacy default stream);
//! [`Device::from_stream`] uses a caller's cudarc stream, so an engine's
//! own stream order includes the kernels. Where a tensor crosses streams,
//! the later use waits for the earlier conflicting ones through cudarc's
//! per-allocation read/write events (always on for contexts a `Device`
//! creates), or, for a caller's context that never entered cudarc's
//! multi-stream mode, by joining the two streams. `docs/runtime.md` has the
//! details.
//!
//! # Views and launches
//!
//! Kernels take any [`TensorArg`]: a whole [`DeviceTensor`], a shared
//! [`TensorView`] or an exclusive [`TensorViewMut`] (a shape over a range
//! of an allocation, e.g. rows of a tensor or an offset of an engine's
//! `CudaSlice`). A launch checks dtype, shape and symbols, context, that
//! the memory holds the shape, and that it starts 16-byte aligned
//! ([`Error::Misaligned`]), all before anything is queued.
//!
//! # Copies
//!
//! `upload_async` / `download_async` (on tensors and views) copy to and
//! from cudarc `PinnedHostSlice`s ([`Device::alloc_pinned`]) on a device's
//! stream and do not synchronize; the pinned buffer's accessors wait for
//! the copies. [`Device::upload`], `download` and `upload_from` are
//! blocking.
//!
//! The trust boundary is explicit: [`Kernel::new`] is `unsafe`. Its caller
//! (the `#[tile_kernel]` macro) promises that the spec describes the PTX and
//! that the PTX is memory-safe for every launch the launcher's checks accept
//! (all symbol values up to [`MAX_SYMBOL_VALUE`] that meet their
//! requirements); from there on, launching is safe API.
//!
//! Modules, one job each:
//! - `error`: the [`Error`] every fallible call returns (no panics, even
//!   without a CUDA driver), with a bounded PTX excerpt for module-load
//!   failures.
//! - `element`: [`Element`] and [`ScalarArg`], the Rust types that cross to
//!   the GPU, each tied to its [`DType`].
//! - `device`: [`Device`] (context + stream), [`driver_available`], tensor
//!   constructors, pinned host buffers.
//! - `tensor`: [`DeviceTensor`], a whole device allocation plus its shape.
//! - `view`: [`TensorView`], [`TensorViewMut`] and the sealed
//!   [`TensorArg`] / [`TensorArgMut`] traits launches take.
//! - `copy`: blocking and asynchronous copies, and the cross-stream
//!   ordering launches and copies share.
//! - `symbols`: [`DimSpec`], [`SymbolSpec`], [`LaunchExpr`]; binding
//!   symbols from shapes, their launch-time requirements, grid evaluation
//!   (pure functions, tested without a GPU).
//! - `kernel`: [`KernelSpec`], the per-context module cache in [`Kernel`],
//!   the arch check, and the checked [`Launch`] builder.

mod copy;
mod device;
mod element;
mod error;
mod kernel;
mod symbols;
mod tensor;
mod view;

pub use device::{Device, driver_available};
pub use element::{Element, ScalarArg};
pub use error::Error;
pub use half::{bf16, f16};
pub use kernel::{Access, Kernel, KernelSpec, Launch, MAX_PARAMS, ParamKind, ParamSpec};
pub use symbols::{DimSpec, LaunchExpr, LaunchOp, MAX_SYMBOL_VALUE, MAX_SYMBOLS, SymbolSpec};
pub use tensor::DeviceTensor;
pub use tile_kernel_lowering::{DType, Target};
pub use view::{TensorArg, TensorArgMut, TensorView, TensorViewMut};

/// cudarc's page-locked host buffer, the host side of asynchronous copies
/// ([`Device::alloc_pinned`]).
pub use cudarc::driver::PinnedHostSlice;

#[doc(hidden)]
pub use cudarc;

/// The result of every fallible runtime call.
pub type Result<T, E = Error> = std::result::Result<T, E>;
