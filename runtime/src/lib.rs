//! The GPU side of tile-kernel: opens devices, moves tensors, and launches
//! the PTX that `#[tile_kernel]` emitted at compile time, through cudarc.
//!
//! The macro writes a [`KernelSpec`] (PTX text, launch shape, parameter list,
//! size symbols) into a `static` [`Kernel`]; its generated launcher pushes
//! each argument through a [`Launch`], which checks it against the spec, and
//! runs it. The driver JIT-compiles the PTX once per context and the module
//! is cached.
//!
//! Tensor dims may be symbolic ([`DimSpec`]): `Tensor<f32, N>` binds the
//! size symbol `N` ([`SymbolSpec`]) from the tensor passed, every other use
//! of `N` must agree, and the grid may be a formula over the symbols
//! ([`LaunchExpr`], e.g. `ceil_div(N, 2048)`) evaluated at launch with
//! checked arithmetic. Symbols reach the kernel as hidden `.u64` parameters.
//!
//! The trust boundary is explicit: [`Kernel::new`] is `unsafe`. Its caller
//! (the `#[tile_kernel]` macro) promises that the spec describes the PTX and
//! that the PTX is memory-safe for every launch the launcher's checks accept
//! (all symbol values up to [`MAX_SYMBOL_VALUE`] that meet their
//! requirements); from there on, launching is safe API.
//!
//! Modules, one job each:
//! - `error`: the [`Error`] every fallible call returns (no panics, even
//!   without a CUDA driver).
//! - `element`: [`Element`] and [`ScalarArg`], the Rust types that cross to
//!   the GPU, each tied to its [`DType`].
//! - `device`: [`Device`] (context + stream), [`driver_available`], tensor
//!   constructors.
//! - `tensor`: [`DeviceTensor`], a whole device allocation plus its shape.
//! - `symbols`: [`DimSpec`], [`SymbolSpec`], [`LaunchExpr`]; binding
//!   symbols from shapes, their launch-time requirements, grid evaluation
//!   (pure functions, tested without a GPU).
//! - `kernel`: [`KernelSpec`], the per-context module cache in [`Kernel`],
//!   and the checked [`Launch`] builder.

mod device;
mod element;
mod error;
mod kernel;
mod symbols;
mod tensor;

pub use device::{Device, driver_available};
pub use element::{Element, ScalarArg};
pub use error::Error;
pub use half::{bf16, f16};
pub use kernel::{Access, Kernel, KernelSpec, Launch, MAX_PARAMS, ParamKind, ParamSpec};
pub use symbols::{DimSpec, LaunchExpr, LaunchOp, MAX_SYMBOL_VALUE, MAX_SYMBOLS, SymbolSpec};
pub use tensor::DeviceTensor;
pub use tile_kernel_lowering::{DType, Target};

#[doc(hidden)]
pub use cudarc;

/// The result of every fallible runtime call.
pub type Result<T, E = Error> = std::result::Result<T, E>;
