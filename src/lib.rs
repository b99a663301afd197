//! # tile-kernel
//!
//! PTX-level GPU kernels in Rust. A `#[tile_kernel]` function is written in a
//! small tile language: register tiles (`alloc_local`) and
//! `apply(ptx["OPCODE"], operands..)` statements that expand one PTX
//! instruction over every repeat coordinate of a tile. The macro checks every
//! operand against the PTX form at compile time, emits the PTX text as a
//! `const`, and generates a safe launcher that runs it through `cudarc`.
//!
//! ```no_run
//! use tile_kernel::prelude::*;
//!
//! #[tile_kernel(grid = 1, block = 1)]
//! fn narrow_pairs(a: Tensor<f32, 4, 2>, out: Tensor<u32, 4, 1>) {
//!     let r = alloc_local::<f32>([4, 2]);
//!     let d = alloc_local::<u32>([4, 1]);
//!     apply(ptx["ld.global.v2.f32"], r, a);
//!     apply(ptx["cvt.rn.f16x2.f32"], d, r.slice(s![.., 1..2]), r.slice(s![.., 0..1]));
//!     apply(ptx["st.global.b32"], out, d);
//! }
//!
//! # fn main() -> Result<(), tile_kernel::Error> {
//! println!("{}", narrow_pairs::PTX);
//! let dev = Device::new(0)?;
//! let a = dev.upload(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [4, 2])?;
//! let mut out = dev.zeros::<u32>([4, 1])?;
//! narrow_pairs(&dev, &a, &mut out)?;
//! let words: Vec<u32> = out.download()?;
//! # Ok(()) }
//! ```
//!
//! Every error the macro reports starts with a code (`TK0203: ..`) and
//! ends with where it is explained: [`errors`], one section per code.
//!
//! Crates: [`lowering`] (the language: IR, PTX table, checks, emission;
//! usable without the macro), `tile-kernel-macros` (the attribute),
//! `tile-kernel-runtime` (devices, tensors, launches; re-exported here).
//!
//! ## Features
//!
//! - `runtime` (default): the cudarc runtime and each kernel's safe
//!   launcher `fn NAME(device, ..)`.
//! - Without it (`default-features = false`, *PTX-only mode*) cudarc is not
//!   a dependency; each kernel still defines `NAME::PTX`, `NAME::ENTRY` and
//!   `NAME::SPEC`, the launch description (parameters with dtypes, dims and
//!   symbols, access, launch-size formulas as data; see [`spec`]), for an
//!   engine that launches the PTX with its own CUDA stack
//!   (`examples/ptx_only_launch.rs`).

pub use half::{bf16, f16};
pub use tile_kernel_lowering::DType;
pub use tile_kernel_macros::{function, tile_kernel};
#[cfg(feature = "runtime")]
pub use tile_kernel_runtime::{
    Device, DeviceTensor, Element, Error, PinnedHostSlice, Result, ScalarArg, StoppedTimer,
    TensorArg, TensorArgMut, TensorView, TensorViewMut, Timer, driver_available,
};

/// The launch description every kernel carries as `NAME::SPEC`, as plain
/// data (no CUDA types): what an engine needs to launch the PTX itself.
pub use tile_kernel_lowering::spec;

/// The compiler core: kernel IR, the PTX instruction table (with a lookup
/// API in [`lowering::ptx`]), legality checks and PTX emission.
pub use tile_kernel_lowering as lowering;

#[doc = include_str!("../docs/errors.md")]
pub mod errors {}

/// Runtime types for advanced use: a kernel built from a hand-written
/// [`spec`] (`Kernel::new`), the checked launch builder.
#[cfg(feature = "runtime")]
pub mod runtime {
    pub use tile_kernel_runtime::{Kernel, LaunchBuilder, MAX_PARAMS, MAX_SYMBOLS, Target};
}

/// `use tile_kernel::prelude::*;` brings the attribute and host types.
pub mod prelude {
    #[cfg(feature = "runtime")]
    pub use crate::{Device, DeviceTensor, Error, TensorView, TensorViewMut};
    pub use crate::{bf16, f16, tile_kernel};
}

/// Paths the generated code uses; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use tile_kernel_lowering::DType;
    pub use tile_kernel_lowering::spec;
    #[cfg(feature = "runtime")]
    pub use tile_kernel_runtime::Kernel;
}

/// Expands to its input with the `runtime` feature and to nothing without
/// it: generated launchers are wrapped in it, because a proc macro cannot
/// see this crate's features.
#[cfg(feature = "runtime")]
#[doc(hidden)]
#[macro_export]
macro_rules! __with_runtime {
    ($($item:item)*) => { $($item)* };
}

/// See the `runtime` variant.
#[cfg(not(feature = "runtime"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __with_runtime {
    ($($item:item)*) => {};
}
