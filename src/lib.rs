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

/// Expands to the module `NAME` of a `#[tile_kernel]` (`PTX`, `ENTRY`,
/// `PROGRAM`, `SPEC`, `KERNEL`, and with a scalar twin the `SCALAR_*`
/// items) and its launcher `fn NAME` from the compact description the
/// attribute writes: the items, their docs, the spec's paths and the
/// launcher's body are written here once instead of in every expansion
/// (the attribute writes the launcher's docs and parameters, which carry
/// the spans of the kernel's). Not a public API.
///
/// `kernel` (and the twin's) is the `KERNEL` static's initializer, which
/// the attribute writes with its `unsafe` block and safety argument: this
/// template itself is safe code.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_module {
    (@dim Const($value:literal)) => {
        $crate::__private::spec::DimSpec::Const($value)
    };
    (@dim Symbolic($symbol:literal $mul:literal $div:literal $add:literal)) => {
        $crate::__private::spec::DimSpec::Symbolic {
            symbol: $symbol,
            mul: $mul,
            div: $div,
            add: $add,
        }
    };
    (@param ($name:literal Tensor $dtype:ident [$($dim:ident $args:tt)*] $borrow:ident)) => {
        $crate::__private::spec::ParamSpec {
            name: $name,
            kind: $crate::__private::spec::ParamKindSpec::Tensor {
                dtype: $crate::__private::DType::$dtype,
                shape: &[$($crate::__kernel_module!(@dim $dim $args)),*],
                borrow: $crate::__private::spec::Borrow::$borrow,
            },
        }
    };
    (@param ($name:literal Scalar $dtype:ident)) => {
        $crate::__private::spec::ParamSpec {
            name: $name,
            kind: $crate::__private::spec::ParamKindSpec::Scalar {
                dtype: $crate::__private::DType::$dtype,
            },
        }
    };
    (@formula [$($op:ident $(($arg:literal))?)*]) => {
        $crate::__private::spec::LaunchFormulaSpec(&[$($crate::__private::spec::LaunchOp::$op $(($arg))?),*])
    };
    // The launcher's body: `run`, `twin` (the scalar twin where the vector
    // accesses' alignment fails; `misaligned` launches nothing) or
    // `failed` (the kernel has errors: `compile_error!` stops the build).
    // `launch` is the template's own local: no parameter can shadow it.
    (@body $name:ident $device:ident run [$($push:ident $args:tt)*]) => {{
        #[allow(unused_mut)] // no parameters: no pushes
        let mut launch = $name::KERNEL.launch($device)?;
        $(launch.$push $args?;)*
        launch.run()
    }};
    (@body $name:ident $device:ident twin [$($push:ident $args:tt)*]) => {{
        #[allow(unused_mut)] // no parameters: no pushes
        let mut launch = $name::KERNEL.launch($device)?;
        $(launch.$push $args?;)*
        if !launch.misaligned() {
            return launch.run();
        }
        ::core::mem::drop(launch);
        #[allow(unused_mut)]
        let mut launch = $name::SCALAR_KERNEL.launch($device)?;
        $(launch.$push $args?;)*
        launch.run()
    }};
    (@body $name:ident $device:ident failed [$($param:ident)*]) => {{
        let _ = ($device, $($param),*);
        ::core::unreachable!("this tile kernel failed to compile")
    }};
    (@maps [$(($param:literal [$($extent:literal)*] $swizzle:literal))*]) => {
        &[$($crate::__private::spec::TensorMapSpec {
            param: $param,
            box_dims: &[$($extent),*],
            swizzle: $swizzle,
        }),*]
    };
    (@symbols [$(($name:literal $divisor:literal $multiple_of:literal))*]) => {
        &[$($crate::__private::spec::SymbolSpec {
            name: $name,
            divisor: $divisor,
            multiple_of: $multiple_of,
        }),*]
    };
    (
        $vis:vis $name:ident $entry:literal ptx $ptx:literal program $program:literal
        target $sm:literal $arch_specific:literal
        grid [$($grid:tt)*] block [$bx:literal $by:literal $bz:literal]
        cluster [$cx:literal $cy:literal $cz:literal] shared $shared:tt
        params [$($param:tt)*] symbols $symbols:tt maps $maps:tt
        $(twin $twin_entry:literal ptx $twin_ptx:literal program $twin_program:literal
            grid [$($twin_grid:tt)*] shared $twin_shared:tt symbols $twin_symbols:tt
            maps $twin_maps:tt
            kernel $twin_kernel:expr;)?
        kernel $kernel:expr;
        launcher [$($attr:tt)*] $inputs:tt $body:ident $device:ident $pushes:tt
    ) => {
        #[doc = ::core::concat!("PTX text and runtime description of the `", $entry, "` tile kernel.")]
        #[allow(dead_code)]
        $vis mod $name {
            /// The PTX module text, generated at compile time.
            pub const PTX: &str = $ptx;
            /// The PTX entry name.
            pub const ENTRY: &str = $entry;
            /// The kernel's lowered IR, encoded
            /// (`tile_kernel::lowering::encoding::decode` reads it): what
            /// the CPU interpreter runs.
            pub const PROGRAM: &[u8] = $program;
            /// The launch description: parameters (dtypes, dims and size
            /// symbols, access), launch-size formulas, target. With the
            /// `runtime` feature off, this is what an engine launches from.
            pub const SPEC: $crate::__private::spec::KernelSpec = $crate::__private::spec::KernelSpec {
                name: ENTRY,
                ptx: PTX,
                target: $crate::__private::spec::Target {
                    sm: $sm,
                    arch_specific: $arch_specific,
                },
                grid: [$($crate::__kernel_module!(@formula $grid)),*],
                block: [$bx, $by, $bz],
                cluster: [$cx, $cy, $cz],
                shared_mem_bytes: $crate::__kernel_module!(@formula $shared),
                params: &[$($crate::__kernel_module!(@param $param)),*],
                symbols: $crate::__kernel_module!(@symbols $symbols),
                tensor_maps: $crate::__kernel_module!(@maps $maps),
                program: PROGRAM,
            };
            $crate::__with_runtime! {
                /// The compiled kernel: spec plus per-context module cache.
                pub static KERNEL: $crate::__private::Kernel = $kernel;
            }
            $(
                /// The PTX of the kernel's scalar twin (`fallback = "scalar"`):
                /// every vector memory access split into scalar ones.
                pub const SCALAR_PTX: &str = $twin_ptx;
                /// The scalar twin's entry name.
                pub const SCALAR_ENTRY: &str = $twin_entry;
                /// The scalar twin's lowered IR, encoded.
                pub const SCALAR_PROGRAM: &[u8] = $twin_program;
                /// The scalar twin's launch description: the kernel's
                /// parameters, without the vector accesses' alignment
                /// requirements.
                pub const SCALAR_SPEC: $crate::__private::spec::KernelSpec = $crate::__private::spec::KernelSpec {
                    name: SCALAR_ENTRY,
                    ptx: SCALAR_PTX,
                    target: SPEC.target,
                    grid: [$($crate::__kernel_module!(@formula $twin_grid)),*],
                    block: SPEC.block,
                    cluster: SPEC.cluster,
                    shared_mem_bytes: $crate::__kernel_module!(@formula $twin_shared),
                    params: SPEC.params,
                    symbols: $crate::__kernel_module!(@symbols $twin_symbols),
                    tensor_maps: $crate::__kernel_module!(@maps $twin_maps),
                    program: SCALAR_PROGRAM,
                };
                $crate::__with_runtime! {
                    /// The scalar twin: spec plus per-context module cache.
                    pub static SCALAR_KERNEL: $crate::__private::Kernel = $twin_kernel;
                }
            )?
        }

        $crate::__with_runtime! {
            $($attr)*
            #[allow(dead_code, clippy::too_many_arguments)]
            $vis fn $name $inputs -> ::core::result::Result<(), $crate::Error> {
                $crate::__kernel_module!(@body $name $device $body $pushes)
            }
        }
    };
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
