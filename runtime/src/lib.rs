//! The device side of tile-kernel: opens devices, moves tensors, and launches
//! the PTX that `#[tile_kernel]` emitted at compile time, through cudarc, or
//! runs the same kernels on the CPU interpreter where there is no GPU.
//!
//! The macro writes a [`KernelSpec`](spec::KernelSpec) (PTX text, target,
//! launch shape, parameter list, size symbols, encoded IR) into a `static`
//! [`Kernel`]; its generated launcher pushes each argument through a
//! [`LaunchBuilder`], which checks it against the spec, and runs it. Before the
//! first load in a context the device's compute capability is checked against
//! the spec's [`Target`] ([`Error::ArchMismatch`]); the driver then
//! JIT-compiles the PTX once per context and the module is cached.
//!
//! Tensor dims may be symbolic ([`DimSpec`](spec::DimSpec)): `Tensor<f32, N>`
//! binds the size symbol `N` ([`SymbolSpec`](spec::SymbolSpec)) from the tensor
//! passed, every other use of `N` must agree, and the grid may be a formula
//! over the symbols ([`LaunchFormulaSpec`](spec::LaunchFormulaSpec), e.g.
//! `ceil_div(N, 2048)`) evaluated at launch with checked arithmetic. Symbols
//! reach the kernel as hidden `.u64` parameters.
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
//! # The CPU interpreter device
//!
//! [`Device::cpu`] is a device without a GPU: tensors live in host memory
//! (bytes as `AtomicU8`s, each element little-endian, as on the GPU) and a
//! launch runs the kernel's IR (the spec's `program`, decoded and prepared
//! once per [`Kernel`]) on the interpreter, `tile-kernel-interp`, to
//! completion. [`Device::new`] opens it when no CUDA driver is present
//! (saying so once on stderr) or when the environment variable
//! `TILE_KERNEL_DEVICE` ([`DEVICE_ENV`]) is `cpu`; `gpu` forces CUDA
//! ([`Device::cuda`] never falls back). Launches check the same things as
//! on a GPU; a tensor of the other kind of device is
//! [`Error::WrongDevice`], a spec without IR (hand-built) is
//! [`Error::NoProgram`], and a fault the interpreter detects is
//! [`Error::Interpreter`]. CUDA-only calls (contexts, streams, pinned
//! buffers, asynchronous copies, cudarc memory, the compute capability)
//! return [`Error::NotOnGpu`] there. The CPU path has no `unsafe`.
//!
//! # Views and launches
//!
//! Kernels take any [`TensorArg`]: a whole [`DeviceTensor`], a shared
//! [`TensorView`] or an exclusive [`TensorViewMut`] (a shape over a range
//! of an allocation, e.g. rows of a tensor or an offset of an engine's
//! `CudaSlice`). A launch checks dtype, shape and symbols, device (the CUDA
//! context, or host memory on the CPU device), that the memory holds the
//! shape, and that it starts 16-byte aligned ([`Error::Misaligned`]), all
//! before anything is queued.
//!
//! # Copies
//!
//! `upload_async` / `download_async` (on tensors and views) copy to and
//! from cudarc `PinnedHostSlice`s ([`Device::alloc_pinned`]) on a device's
//! stream and do not synchronize; the pinned buffer's accessors wait for
//! the copies. [`Device::upload`], `download` and `upload_from` are
//! blocking.
//!
//! # Timing
//!
//! [`Device::timer`] records a CUDA event on the device's stream and
//! [`Timer::stop`] a second one; [`StoppedTimer::elapsed_ms`] waits for the
//! second and returns the milliseconds between them. [`Device::time`] does
//! all three around a closure. On the CPU device the timer reads the wall
//! clock, so a benchmark needs no cudarc and runs on both.
//!
//! The trust boundary is explicit: [`Kernel::new`] is `unsafe`. Its caller (the
//! `#[tile_kernel]` macro) promises that the spec describes the PTX and that
//! the PTX is memory-safe for every launch the launcher's checks accept (all
//! symbol values up to [`MAX_SYMBOL_VALUE`](spec::MAX_SYMBOL_VALUE) that meet
//! their requirements); from there on, launching is safe API.
//!
//! Modules, one job each:
//! - `error`: the [`Error`] every fallible call returns (no panics, even
//!   without a CUDA driver), with a bounded PTX excerpt for module-load
//!   failures.
//! - `element`: [`Element`] and [`ScalarArg`], the Rust types that cross to
//!   the GPU, each tied to its [`DType`].
//! - `device`: [`Device`] (context + stream, or the CPU interpreter), the
//!   choice [`Device::new`] makes, [`driver_available`], tensor
//!   constructors, pinned host buffers.
//! - `tensor`: [`DeviceTensor`], a whole device allocation (or host memory)
//!   plus its shape.
//! - `view`: [`TensorView`], [`TensorViewMut`] and the sealed
//!   [`TensorArg`] / [`TensorArgMut`] traits launches take.
//! - `copy`: blocking and asynchronous copies, and the cross-stream
//!   ordering launches and copies share.
//! - `host`: the CPU device's memory (element bytes as `AtomicU8`s).
//! - [`spec`]: the launch description a kernel is built from (the
//!   macro-facing data types).
//! - `symbols`: binding size symbols from shapes, their launch-time
//!   requirements, grid evaluation (pure functions, tested without a GPU).
//! - `kernel`: [`Kernel`], a [`KernelSpec`](spec::KernelSpec) with its loaded
//!   modules and prepared CPU program; [`Kernel::new`] is the trust boundary.
//! - `module`: the per-context module cache, the driver load of the PTX,
//!   and the raw `cuModuleLoadDataEx` call that recovers the JIT's log.
//! - `launch`: the checked [`LaunchBuilder`] and its backends, the driver
//!   and the interpreter; the one `unsafe` driver launch.
//! - `spec_check`: a spec against what it meets: each argument, the
//!   parameter counts, the device's architecture, the IR it carries.
//! - `timer`: [`Device::timer`] / [`Device::time`], timing work with CUDA
//!   events on the device's stream (the wall clock on the CPU device).

mod copy;
#[cfg(test)]
mod cpu_tests;
mod device;
mod element;
mod error;
mod host;
mod kernel;
mod launch;
mod module;
mod spec_check;
mod symbols;
mod tensor;
mod tensor_maps;
#[cfg(test)]
mod test_specs;
mod timer;
mod view;

pub use device::{DEVICE_ENV, Device, driver_available};
pub use element::{Element, ScalarArg};
pub use error::Error;
pub use half::{bf16, f16};
pub use kernel::Kernel;
pub use launch::{LaunchBuilder, MAX_PARAMS};
pub use symbols::MAX_SYMBOLS;
pub use tensor::DeviceTensor;
/// What the CPU interpreter reports in [`Error::Interpreter`].
pub use tile_kernel_interp::{Fault, FaultKind, ThreadId};
pub use tile_kernel_lowering::{DType, Target};
pub use timer::{StoppedTimer, Timer};
pub use view::{TensorArg, TensorArgMut, TensorView, TensorViewMut};

/// cudarc's page-locked host buffer, the host side of asynchronous copies
/// ([`Device::alloc_pinned`]).
pub use cudarc::driver::PinnedHostSlice;

#[doc(hidden)]
pub use cudarc;

/// The launch description a [`Kernel`] is built from, as plain `'static`
/// data: what the `#[tile_kernel]` macro writes next to its PTX (kernel
/// name, target, launch-size formulas, parameters, size symbols, encoded
/// IR) and what every launch is checked against. The same types as
/// `tile_kernel_lowering::spec`, which needs no runtime.
pub mod spec {
    pub use tile_kernel_lowering::spec::{
        Borrow, DimSpec, KernelSpec, LaunchFormulaSpec, LaunchOp, MAX_SYMBOL_VALUE, ParamKindSpec,
        ParamSpec, SymbolSpec, Target, TensorMapSpec, partial_cluster_axis,
    };
}

/// The result of every fallible runtime call.
pub type Result<T, E = Error> = std::result::Result<T, E>;
