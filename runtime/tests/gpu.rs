//! Runtime behaviour on the CPU interpreter device and on a real GPU.
//!
//! Most tests are functions `fn name(dev: &Device) -> Result<()>` that
//! [`on_both_devices!`] turns into two tests: `name::on_cpu` runs on the CPU
//! interpreter device (always, so CI checks launch semantics and argument
//! errors without a GPU) and `name::on_gpu` on GPU 0. Every test that needs
//! a GPU is `#[ignore]`d, so a machine without one reports it as ignored in
//! the test summary; `--include-ignored` runs them, and then a missing GPU
//! fails the test (never a silent pass). Tests of what only a GPU has
//! (module loads and the JIT, the compute capability, cudarc memory, a
//! second GPU) are GPU-only.
//!
//! The kernels are hand-written PTX with hand-built specs. For the CPU
//! device, `add4` and `add_one` also carry the IR of the same kernel
//! written in the tile language (module [`ir`]): the interpreter runs that,
//! a GPU still loads the hand-written PTX.

use std::fmt::Debug;

use tile_kernel_runtime::spec::{
    Borrow, DimSpec, KernelSpec, LaunchFormulaSpec, LaunchOp, ParamKindSpec, ParamSpec, SymbolSpec,
};
use tile_kernel_runtime::{
    DType, Device, DeviceTensor, Element, Error, Kernel, Result, Target, bf16, f16,
};

/// GPU 0; a test that asks for it fails where there is none.
fn gpu() -> Device {
    match Device::cuda(0) {
        Ok(device) => device,
        Err(e) => panic!("this test needs a GPU, but opening GPU 0 failed: {e}"),
    }
}

/// `on_both_devices!(a, b, ..)`: for each `fn a(dev: &Device) -> Result<()>`,
/// a module `a` with the tests `a::on_cpu` (on the CPU interpreter, always
/// run) and `a::on_gpu` (on GPU 0, ignored unless `--include-ignored`).
/// Attributes written before a name go on its CPU test only.
macro_rules! on_both_devices {
    ($($(#[$cpu:meta])* $name:ident),+ $(,)?) => {$(
        mod $name {
            #[test]
            $(#[$cpu])*
            fn on_cpu() -> ::tile_kernel_runtime::Result<()> {
                super::$name(&::tile_kernel_runtime::Device::cpu())
            }

            #[test]
            #[ignore = "needs an NVIDIA GPU (run with --include-ignored)"]
            fn on_gpu() -> ::tile_kernel_runtime::Result<()> {
                super::$name(&super::gpu())
            }
        }
    )+};
}

on_both_devices!(
    every_element_type_round_trips_exactly,
    zeros_are_all_bits_clear,
    empty_tensors_work,
    upload_from_overwrites_and_checks_length,
    launch_computes_and_loads_the_module_once,
    wrong_shape_is_shape_mismatch,
    wrong_dtypes_are_dtype_mismatch,
    protocol_misuse_is_argument_mismatch,
    symbolic_dims_bind_n_and_size_the_grid,
    symbolic_n_zero_launches_nothing,
    symbolic_mismatch_between_params_is_refused,
    parameterless_kernel_runs,
    a_timer_brackets_a_launch,
);

/// The error of a call that must fail.
fn expect_err<T>(result: Result<T>, what: &str) -> Error {
    match result {
        Ok(_) => panic!("{what}: expected an error, got Ok"),
        Err(e) => e,
    }
}

// ---------------------------------------------------------------- tensors

/// Exact bit patterns, so NaN payloads and signed zeros count.
trait Bits: Element + Debug {
    fn bits(self) -> u64;
}

macro_rules! bits_via_to_bits {
    ($($ty:ty),*) => {$(
        impl Bits for $ty {
            fn bits(self) -> u64 {
                u64::from(self.to_bits())
            }
        }
    )*};
}
bits_via_to_bits!(f16, bf16, f32, f64);

macro_rules! bits_via_cast {
    ($($ty:ty),*) => {$(
        impl Bits for $ty {
            fn bits(self) -> u64 {
                self as u64
            }
        }
    )*};
}
bits_via_cast!(u8, u16, u32, u64, i8, i16, i32, i64);

/// Uploads `values` as a `[1, n]` tensor and checks that they come back bit
/// for bit.
fn round_trip<T: Bits>(dev: &Device, values: &[T]) -> Result<()> {
    let tensor = dev.upload(values, [1, values.len()])?;
    assert_eq!(tensor.shape(), &[1, values.len()]);
    assert_eq!(tensor.len(), values.len());
    assert_eq!(tensor.dtype(), T::DTYPE);
    let back = tensor.download()?;
    let want: Vec<u64> = values.iter().map(|v| v.bits()).collect();
    let got: Vec<u64> = back.iter().map(|v| v.bits()).collect();
    assert_eq!(got, want, "{} round trip", T::DTYPE);
    Ok(())
}

fn every_element_type_round_trips_exactly(dev: &Device) -> Result<()> {
    round_trip(
        dev,
        &[0x0001, 0x8000, 0x7c00, 0x7e01, 0x7bff, 0x0400, 0x3e00].map(f16::from_bits),
    )?;
    round_trip(
        dev,
        &[0x0001, 0x8000, 0x7f80, 0x7fc1, 0x7f7f, 0x0080, 0x3fc0].map(bf16::from_bits),
    )?;
    round_trip(
        dev,
        &[
            0x0000_0001,
            0x8000_0000,
            0x7f80_0000,
            0x7fc0_0123,
            0x7f7f_ffff,
            1.5f32.to_bits(),
        ]
        .map(f32::from_bits),
    )?;
    round_trip(
        dev,
        &[
            1,
            1 << 63,
            0x7ff0_0000_0000_0000,
            0x7ff8_0000_dead_beef,
            (-2.25f64).to_bits(),
        ]
        .map(f64::from_bits),
    )?;
    round_trip(dev, &[0u8, 1, 0x7f, 0x80, u8::MAX])?;
    round_trip(dev, &[0u16, 1, 0x8000, u16::MAX, 0x1234])?;
    round_trip(dev, &[0u32, 1, 0x8000_0000, u32::MAX, 0xdead_beef])?;
    round_trip(dev, &[0u64, 1, 1 << 63, u64::MAX, 0x0123_4567_89ab_cdef])?;
    round_trip(dev, &[0i8, -1, i8::MIN, i8::MAX, 42])?;
    round_trip(dev, &[0i16, -1, i16::MIN, i16::MAX, -1234])?;
    round_trip(dev, &[0i32, -1, i32::MIN, i32::MAX, -123_456])?;
    round_trip(dev, &[0i64, -1, i64::MIN, i64::MAX, -1 << 40])?;
    Ok(())
}

fn zeros_are_all_bits_clear(dev: &Device) -> Result<()> {
    let y = dev.zeros::<u32>([4, 1])?;
    assert_eq!(y.shape(), &[4, 1]);
    assert_eq!(y.download()?, vec![0u32; 4]);
    let h = dev.zeros::<f16>(vec![3, 5])?;
    assert!(h.download()?.iter().all(|v| v.to_bits() == 0));
    let shape: &[usize] = &[2, 2, 2];
    let l = dev.zeros::<i64>(shape)?;
    assert_eq!(l.download()?, vec![0i64; 8]);
    Ok(())
}

fn empty_tensors_work(dev: &Device) -> Result<()> {
    let mut e = dev.upload::<f32>(&[], [0, 3])?;
    assert!(e.is_empty());
    assert_eq!(e.shape(), &[0, 3]);
    assert_eq!(e.download()?, Vec::<f32>::new());
    e.upload_from(&[])?;
    let z = dev.zeros::<u8>([5, 0])?;
    assert_eq!(z.len(), 0);
    assert_eq!(z.download()?, Vec::<u8>::new());
    Ok(())
}

fn upload_from_overwrites_and_checks_length(dev: &Device) -> Result<()> {
    let mut t = dev.zeros::<i32>([2, 2])?;
    t.upload_from(&[1, -2, 3, -4])?;
    assert_eq!(t.download()?, vec![1, -2, 3, -4]);
    match expect_err(t.upload_from(&[1, 2, 3]), "short upload_from") {
        Error::LengthMismatch {
            shape,
            expected,
            actual,
        } => assert_eq!((shape, expected, actual), (vec![2, 2], 4, 3)),
        other => panic!("expected LengthMismatch, got {other}"),
    }
    match expect_err(dev.upload(&[1.0f32; 7], [4, 2]), "short upload") {
        Error::LengthMismatch {
            expected, actual, ..
        } => assert_eq!((expected, actual), (8, 7)),
        other => panic!("expected LengthMismatch, got {other}"),
    }
    Ok(())
}

/// GPU-only: the CPU device has no compute capability (`NotOnGpu`, tested
/// in the runtime's unit tests).
#[test]
#[ignore = "needs an NVIDIA GPU (run with --include-ignored)"]
fn device_reports_name_and_capability() -> Result<()> {
    let dev = gpu();
    assert_eq!(dev.ordinal(), 0);
    assert!(!dev.name()?.is_empty());
    let (major, _minor) = dev.compute_capability()?;
    assert!(major >= 5, "compute capability {major}.x");
    dev.synchronize()
}

// ---------------------------------------------------------------- kernels

/// `add4` and `add_one` written in the tile language, compiled by the real
/// macro: their IR (`PROGRAM`) is what the CPU device runs for the
/// hand-built specs below, whose name, launch shape, symbols and
/// parameters they match (a launch on the CPU device checks that).
mod ir {
    use tile_kernel_macros::tile_kernel;

    /// What the macro's generated code names (`crate = "crate::ir::tk"`).
    pub(crate) mod tk {
        #[allow(unused_imports)]
        pub(crate) use tile_kernel_runtime::{Device, Error, TensorArg, TensorArgMut, bf16, f16};

        pub(crate) mod __private {
            pub(crate) use tile_kernel_runtime::{DType, Kernel, spec};
        }

        macro_rules! __with_runtime {
            ($($item:item)*) => { $($item)* };
        }
        pub(crate) use __with_runtime;

        /// The facade's module template (`tile_kernel::__kernel_module!`, which
        /// the generated code invokes) with this crate's paths, without the
        /// docs and the scalar twin (these kernels have none).
        macro_rules! __kernel_module {
            (@dim Const($value:literal)) => { $crate::ir::tk::__private::spec::DimSpec::Const($value) };
            (@dim Symbolic($symbol:literal $mul:literal $div:literal $add:literal)) => {
                $crate::ir::tk::__private::spec::DimSpec::Symbolic { symbol: $symbol, mul: $mul, div: $div, add: $add }
            };
            (@param ($name:literal Tensor $dtype:ident [$($dim:ident $args:tt)*] $borrow:ident)) => {
                $crate::ir::tk::__private::spec::ParamSpec {
                    name: $name,
                    kind: $crate::ir::tk::__private::spec::ParamKindSpec::Tensor {
                        dtype: $crate::ir::tk::__private::DType::$dtype,
                        shape: &[$($crate::ir::tk::__kernel_module!(@dim $dim $args)),*],
                        borrow: $crate::ir::tk::__private::spec::Borrow::$borrow,
                    },
                }
            };
            (@param ($name:literal Scalar $dtype:ident)) => {
                $crate::ir::tk::__private::spec::ParamSpec {
                    name: $name,
                    kind: $crate::ir::tk::__private::spec::ParamKindSpec::Scalar { dtype: $crate::ir::tk::__private::DType::$dtype },
                }
            };
            (@formula [$($op:ident $(($arg:literal))?)*]) => {
                $crate::ir::tk::__private::spec::LaunchFormulaSpec(&[$($crate::ir::tk::__private::spec::LaunchOp::$op $(($arg))?),*])
            };
            (@body $name:ident $device:ident run [$($push:ident $args:tt)*]) => {{
                #[allow(unused_mut)] // no parameters: no pushes
                let mut launch = $name::KERNEL.launch($device)?;
                $(launch.$push $args?;)*
                launch.run()
            }};
            (@body $name:ident $device:ident failed [$($param:ident)*]) => {{
                let _ = ($device, $($param),*);
                ::core::unreachable!("this tile kernel failed to compile")
            }};
            (@maps [$(($param:literal [$($extent:literal)*] $swizzle:literal))*]) => {
            &[$($crate::ir::tk::__private::spec::TensorMapSpec { param: $param, box_dims: &[$($extent),*], swizzle: $swizzle }),*]
        };
        (@symbols [$(($name:literal $divisor:literal $multiple_of:literal))*]) => {
                &[$($crate::ir::tk::__private::spec::SymbolSpec { name: $name, divisor: $divisor, multiple_of: $multiple_of }),*]
            };
            (
                $vis:vis $name:ident $entry:literal ptx $ptx:literal program $program:literal
                target $sm:literal $arch_specific:literal
                grid [$($grid:tt)*] block [$bx:literal $by:literal $bz:literal]
            cluster [$cx:literal $cy:literal $cz:literal] shared $shared:tt
                params [$($param:tt)*] symbols $symbols:tt maps $maps:tt
                kernel $kernel:expr;
                launcher [$($attr:tt)*] $inputs:tt $body:ident $device:ident $pushes:tt
            ) => {
                #[allow(dead_code)]
                $vis mod $name {
                    pub const PTX: &str = $ptx;
                    pub const ENTRY: &str = $entry;
                    pub const PROGRAM: &[u8] = $program;
                    pub const SPEC: $crate::ir::tk::__private::spec::KernelSpec = $crate::ir::tk::__private::spec::KernelSpec {
                        name: ENTRY,
                        ptx: PTX,
                        target: $crate::ir::tk::__private::spec::Target { sm: $sm, arch_specific: $arch_specific },
                        grid: [$($crate::ir::tk::__kernel_module!(@formula $grid)),*],
                        block: [$bx, $by, $bz],
                        cluster: [$cx, $cy, $cz],
                        shared_mem_bytes: $crate::ir::tk::__kernel_module!(@formula $shared),
                        params: &[$($crate::ir::tk::__kernel_module!(@param $param)),*],
                        symbols: $crate::ir::tk::__kernel_module!(@symbols $symbols),
tensor_maps: $crate::ir::tk::__kernel_module!(@maps $maps),
                        program: PROGRAM,
                    };
                    pub static KERNEL: $crate::ir::tk::__private::Kernel = $kernel;
                }
                $crate::ir::tk::__with_runtime! {
                    $($attr)*
                    #[allow(dead_code, clippy::too_many_arguments)]
                    $vis fn $name $inputs -> ::core::result::Result<(), $crate::ir::tk::Error> {
                        $crate::ir::tk::__kernel_module!(@body $name $device $body $pushes)
                    }
                }
            };
        }
        pub(crate) use __kernel_module;
    }

    /// `y[i] = x[i] + k` for four `u32`, one thread.
    #[tile_kernel(crate = "crate::ir::tk", grid = 1, block = 1)]
    pub(crate) fn add4(x: Tensor<u32, 4>, y: Tensor<u32, 4>, k: u32) {
        let r = alloc_local::<u32>([4, 1]);
        apply(ptx["ld.global.b32"], r, x.reshape([4, 1]));
        apply(ptx["add.u32"], r, r, k);
        apply(ptx["st.global.b32"], y.reshape([4, 1]), r);
    }

    /// Does nothing, in 2 blocks of 32 threads.
    #[tile_kernel(crate = "crate::ir::tk", grid = 2, block = 32)]
    pub(crate) fn nop() {}

    /// `y[i] = x[i] + 1.0` for `i < N`, one thread per element.
    #[tile_kernel(crate = "crate::ir::tk", grid = ceil_div(N, 256), block = 256)]
    pub(crate) fn add_one(x: Tensor<f32, N>, y: Tensor<f32, N>) {
        let i = cta_id(0) * 256 + thread_id(0);
        let v = alloc_local::<f32>([1]);
        if i < N {
            apply(ptx["ld.global.f32"], v, x.slice(s![i..i + 1]));
            apply(ptx["add.f32"], v, v, 1.0);
            apply(ptx["st.global.f32"], y.slice(s![i..i + 1]), v);
        }
    }
}

/// `y[i] = x[i] + k` for four `u32`, one thread, fixed offsets.
const ADD4_PTX: &str = "\
.version 7.8
.target sm_90
.address_size 64

.visible .entry add4(
\t.param .u64 add4_x,
\t.param .u64 add4_y,
\t.param .u32 add4_k
)
{
\t.reg .u32 %r<6>;
\t.reg .u64 %rd<5>;

\tld.param.u64 %rd1, [add4_x];
\tld.param.u64 %rd2, [add4_y];
\tld.param.u32 %r5, [add4_k];
\tcvta.to.global.u64 %rd3, %rd1;
\tcvta.to.global.u64 %rd4, %rd2;
\tld.global.b32 %r1, [%rd3];
\tld.global.b32 %r2, [%rd3+4];
\tld.global.b32 %r3, [%rd3+8];
\tld.global.b32 %r4, [%rd3+12];
\tadd.u32 %r1, %r1, %r5;
\tadd.u32 %r2, %r2, %r5;
\tadd.u32 %r3, %r3, %r5;
\tadd.u32 %r4, %r4, %r5;
\tst.global.b32 [%rd4], %r1;
\tst.global.b32 [%rd4+4], %r2;
\tst.global.b32 [%rd4+8], %r3;
\tst.global.b32 [%rd4+12], %r4;
\tret;
}
";

const ADD4_PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "x",
        kind: ParamKindSpec::Tensor {
            dtype: DType::U32,
            shape: &[DimSpec::Const(4)],
            borrow: Borrow::Shared,
        },
    },
    ParamSpec {
        name: "y",
        kind: ParamKindSpec::Tensor {
            dtype: DType::U32,
            shape: &[DimSpec::Const(4)],
            borrow: Borrow::Exclusive,
        },
    },
    ParamSpec {
        name: "k",
        kind: ParamKindSpec::Scalar { dtype: DType::U32 },
    },
];

const ADD4: KernelSpec = KernelSpec {
    name: "add4",
    ptx: ADD4_PTX,
    target: Target::SM_90,
    grid: [LaunchFormulaSpec(&[LaunchOp::Const(1)]); 3],
    block: [1, 1, 1],
    cluster: [1, 1, 1],
    shared_mem_bytes: LaunchFormulaSpec::ZERO,
    params: ADD4_PARAMS,
    symbols: &[],
    tensor_maps: &[],
    program: ir::add4::PROGRAM,
};

// SAFETY (both statics): `add4` takes `.u64 x, .u64 y, .u32 k`, exactly
// ADD4_PARAMS in order, and the spec declares no symbols, so no hidden
// parameters. It runs one thread (grid and block 1) that loads the four
// `u32` at x + 0, 4, 8, 12 and stores four at the same offsets of y: in
// bounds for the only shape the launcher accepts, `[4]`, and 4-byte aligned
// on the 16-byte aligned base addresses it checks. It stores only to `y`,
// declared `Borrow::Exclusive`, and one thread cannot race with itself.
/// Used only by `launch_computes_and_loads_the_module_once`, so its load
/// count is not disturbed by other tests.
static ADD4_COUNTED: Kernel = unsafe { Kernel::new(ADD4) };
/// Shared by the argument-checking tests.
static ADD4_CHECKED: Kernel = unsafe { Kernel::new(ADD4) };

/// On a GPU the module is loaded once; the CPU device loads no module (it
/// runs the IR), so the load counts are checked on the GPU only (the GPU
/// twin may run in the same process, so the CPU test does not read them).
fn launch_computes_and_loads_the_module_once(dev: &Device) -> Result<()> {
    let loads = |count: usize| {
        if !dev.is_cpu() {
            assert_eq!(ADD4_COUNTED.load_count(), count);
        }
    };
    let x = dev.upload(&[1u32, 2, 3, u32::MAX], [4])?;
    let mut y = dev.zeros::<u32>([4])?;
    loads(0);
    for k in [10u32, 20, 30] {
        ADD4_COUNTED
            .launch(dev)?
            .tensor(&x)?
            .tensor_mut(&mut y)?
            .scalar(&k)?
            .run()?;
        let want = [1, 2, 3, u32::MAX].map(|v: u32| v.wrapping_add(k));
        assert_eq!(y.download()?, want.to_vec(), "k = {k}");
    }
    loads(1);

    // A second handle on GPU 0 shares the primary context, so the cached
    // module and the tensors are valid with it (every CPU device is one
    // device, so its tensors are valid with another handle too).
    let same_gpu = if dev.is_cpu() {
        Device::cpu()
    } else {
        Device::cuda(0)?
    };
    ADD4_COUNTED
        .launch(&same_gpu)?
        .tensor(&x)?
        .tensor_mut(&mut y)?
        .scalar(&5u32)?
        .run()?;
    same_gpu.synchronize()?;
    assert_eq!(y.download()?, vec![6, 7, 8, 4]);
    loads(1);
    Ok(())
}

fn wrong_shape_is_shape_mismatch(dev: &Device) -> Result<()> {
    let x = dev.upload(&[1u32, 2, 3, 4], [2, 2])?;
    match expect_err(ADD4_CHECKED.launch(dev)?.tensor(&x), "[2, 2] for [4]") {
        Error::ShapeMismatch {
            kernel,
            param,
            expected,
            actual,
        } => {
            assert_eq!((kernel, param), ("add4", "x"));
            assert_eq!(expected, "[4]");
            assert_eq!(actual, vec![2, 2]);
        }
        other => panic!("expected ShapeMismatch, got {other}"),
    }
    Ok(())
}

fn wrong_dtypes_are_dtype_mismatch(dev: &Device) -> Result<()> {
    let xf = dev.upload(&[1.0f32, 2.0, 3.0, 4.0], [4])?;
    let err = expect_err(ADD4_CHECKED.launch(dev)?.tensor(&xf), "f32 tensor");
    assert!(
        matches!(
            err,
            Error::DTypeMismatch {
                expected: DType::U32,
                actual: DType::F32,
                ..
            }
        ),
        "{err}"
    );

    let x = dev.upload(&[1u32, 2, 3, 4], [4])?;
    let mut y = dev.zeros::<u32>([4])?;
    let launch = ADD4_CHECKED.launch(dev)?.tensor(&x)?.tensor_mut(&mut y)?;
    let err = expect_err(launch.scalar(&1i32), "i32 scalar");
    assert!(
        matches!(
            err,
            Error::DTypeMismatch {
                param: "k",
                expected: DType::U32,
                actual: DType::I32,
                ..
            }
        ),
        "{err}"
    );
    Ok(())
}

fn protocol_misuse_is_argument_mismatch(dev: &Device) -> Result<()> {
    let x = dev.upload(&[1u32, 2, 3, 4], [4])?;
    let mut y = dev.zeros::<u32>([4])?;

    // A written tensor passed shared.
    let err = expect_err(
        ADD4_CHECKED.launch(dev)?.tensor(&x)?.tensor(&x),
        "shared borrow of y",
    );
    assert!(
        matches!(err, Error::ArgumentMismatch { kernel: "add4", .. }),
        "{err}"
    );

    // Too few arguments.
    let err = expect_err(ADD4_CHECKED.launch(dev)?.tensor(&x)?.run(), "missing args");
    assert!(matches!(err, Error::ArgumentMismatch { .. }), "{err}");
    assert!(err.to_string().contains("missing `y`"), "{err}");

    // Too many arguments.
    let full = ADD4_CHECKED
        .launch(dev)?
        .tensor(&x)?
        .tensor_mut(&mut y)?
        .scalar(&1u32)?;
    let err = expect_err(full.scalar(&2u32), "extra arg");
    assert!(matches!(err, Error::ArgumentMismatch { .. }), "{err}");

    // A scalar where a tensor goes.
    let err = expect_err(ADD4_CHECKED.launch(dev)?.scalar(&1u32), "scalar for x");
    assert!(matches!(err, Error::ArgumentMismatch { .. }), "{err}");

    // Nothing was launched: y is untouched.
    assert_eq!(y.download()?, vec![0; 4]);
    Ok(())
}

/// GPU-only: it swaps in a cudarc allocation, which only a GPU tensor has.
#[test]
#[ignore = "needs an NVIDIA GPU (run with --include-ignored)"]
fn replaced_allocation_is_refused() -> Result<()> {
    let dev = gpu();
    let x = dev.upload(&[1u32, 2, 3, 4], [4])?;
    let mut y = dev.zeros::<u32>([4])?;
    let shorter = dev
        .stream()?
        .alloc_zeros::<u32>(2)
        .map_err(|source| Error::Driver {
            during: "test allocation",
            source,
        })?;
    *y.cuda_slice_mut()? = shorter;
    let err = expect_err(
        ADD4_CHECKED.launch(&dev)?.tensor(&x)?.tensor_mut(&mut y),
        "2-element allocation behind a [4] tensor",
    );
    assert!(matches!(err, Error::ArgumentMismatch { .. }), "{err}");
    Ok(())
}

/// GPU-only: it needs two GPUs (the CPU device is one device).
#[test]
#[ignore = "needs two NVIDIA GPUs (run with --include-ignored on such a machine)"]
fn tensors_of_another_gpu_are_refused() -> Result<()> {
    let dev = gpu();
    let other = match Device::cuda(1) {
        Ok(other) => other,
        Err(e) => panic!("this test needs a second GPU: {e}"),
    };
    let x = other.upload(&[1u32, 2, 3, 4], [4])?;
    let err = expect_err(ADD4_CHECKED.launch(&dev)?.tensor(&x), "x on GPU 1");
    assert!(
        matches!(
            err,
            Error::WrongContext {
                kernel: "add4",
                param: "x"
            }
        ),
        "{err}"
    );
    Ok(())
}

// SAFETY: the PTX does not assemble, so the module never loads and no
// launch reaches the driver; the entry would take no parameters, as the
// spec says, and touch no memory.
static BROKEN: Kernel = unsafe {
    Kernel::new(KernelSpec {
        name: "broken_entry",
        target: Target::SM_90,
        ptx: "\
.version 7.8
.target sm_90
.address_size 64

.visible .entry broken_entry()
{
\tthis_is_not_an_instruction %r1;
\tret;
}
",
        grid: [LaunchFormulaSpec::ONE; 3],
        block: [1, 1, 1],
        cluster: [1, 1, 1],
        shared_mem_bytes: LaunchFormulaSpec::ZERO,
        params: &[],
        symbols: &[],
        tensor_maps: &[],
        program: &[],
    })
};

/// GPU-only: the driver's JIT and its log (the CPU device never reads
/// the PTX).
#[test]
#[ignore = "needs an NVIDIA GPU (run with --include-ignored)"]
fn invalid_ptx_is_module_load_with_the_jit_log() -> Result<()> {
    let dev = gpu();
    let err = expect_err(BROKEN.launch(&dev), "invalid PTX");
    let text = err.to_string();
    assert!(text.contains("broken_entry"), "{text}");
    assert!(
        text.contains("this_is_not_an_instruction"),
        "the PTX is shown: {text}"
    );
    match err {
        Error::ModuleLoad { kernel, log, .. } => {
            assert_eq!(kernel, "broken_entry");
            assert!(
                !log.is_empty() && !log.starts_with('('),
                "expected the driver's JIT error log, got {log:?}"
            );
        }
        other => panic!("expected ModuleLoad, got {other}"),
    }
    // Failures are not cached, and count as no load.
    assert!(BROKEN.function(&dev).is_err());
    assert_eq!(BROKEN.load_count(), 0);
    Ok(())
}

// SAFETY: the module has no `.entry absent`, so looking the function up
// fails and nothing is launched; its only entry takes no parameters and
// touches no memory.
static MISSING_ENTRY: Kernel = unsafe {
    Kernel::new(KernelSpec {
        name: "absent",
        target: Target::SM_90,
        ptx: "\
.version 7.8
.target sm_90
.address_size 64

.visible .entry present()
{
\tret;
}
",
        grid: [LaunchFormulaSpec::ONE; 3],
        block: [1, 1, 1],
        cluster: [1, 1, 1],
        shared_mem_bytes: LaunchFormulaSpec::ZERO,
        params: &[],
        symbols: &[],
        tensor_maps: &[],
        program: &[],
    })
};

/// GPU-only: loading the PTX module (the CPU device never reads the PTX).
#[test]
#[ignore = "needs an NVIDIA GPU (run with --include-ignored)"]
fn missing_entry_is_module_load() -> Result<()> {
    let dev = gpu();
    match expect_err(MISSING_ENTRY.launch(&dev), "missing entry") {
        Error::ModuleLoad { kernel, log, .. } => {
            assert_eq!(kernel, "absent");
            assert!(log.contains(".entry absent"), "{log}");
        }
        other => panic!("expected ModuleLoad, got {other}"),
    }
    Ok(())
}

/// A kernel without parameters: the smallest possible launch.
// SAFETY: `nop` takes no parameters, as the spec says, and touches no memory.
static NOP: Kernel = unsafe {
    Kernel::new(KernelSpec {
        name: "nop",
        target: Target::SM_90,
        ptx: "\
.version 7.8
.target sm_90
.address_size 64

.visible .entry nop()
{
\tret;
}
",
        grid: [
            LaunchFormulaSpec(&[LaunchOp::Const(2)]),
            LaunchFormulaSpec::ONE,
            LaunchFormulaSpec::ONE,
        ],
        block: [32, 1, 1],
        cluster: [1, 1, 1],
        shared_mem_bytes: LaunchFormulaSpec::ZERO,
        params: &[],
        symbols: &[],
        tensor_maps: &[],
        program: ir::nop::PROGRAM,
    })
};

fn parameterless_kernel_runs(dev: &Device) -> Result<()> {
    NOP.launch(dev)?.run()?;
    dev.synchronize()?;
    // Module loads exist on a GPU only (the CPU device runs the IR).
    if !dev.is_cpu() {
        assert_eq!(NOP.load_count(), 1);
    }
    Ok(())
}

// ---------------------------------------------------------------- symbolic sizes

/// `y[i] = x[i] + 1.0` for `i < N`, over `x: Tensor<f32, N>` and
/// `y: Tensor<f32, N>`, with `N` as the hidden `.u64` parameter after the
/// user parameters. One thread per element; the index is 64-bit.
const ADD_ONE_PTX: &str = "\
.version 7.8
.target sm_90
.address_size 64

.visible .entry add_one(
\t.param .u64 add_one_x,
\t.param .u64 add_one_y,
\t.param .u64 add_one_n
)
{
\t.reg .pred %p<2>;
\t.reg .b32 %r<4>;
\t.reg .f32 %f<3>;
\t.reg .b64 %rd<8>;

\tld.param.u64 %rd1, [add_one_x];
\tld.param.u64 %rd2, [add_one_y];
\tld.param.u64 %rd3, [add_one_n];
\tmov.u32 %r1, %ctaid.x;
\tmov.u32 %r2, %ntid.x;
\tmov.u32 %r3, %tid.x;
\tmul.wide.u32 %rd4, %r1, %r2;
\tcvt.u64.u32 %rd5, %r3;
\tadd.u64 %rd4, %rd4, %rd5;
\tsetp.ge.u64 %p1, %rd4, %rd3;
\t@%p1 bra DONE;
\tshl.b64 %rd5, %rd4, 2;
\tcvta.to.global.u64 %rd6, %rd1;
\tadd.u64 %rd6, %rd6, %rd5;
\tld.global.f32 %f1, [%rd6];
\tadd.f32 %f2, %f1, 0f3F800000;
\tcvta.to.global.u64 %rd7, %rd2;
\tadd.u64 %rd7, %rd7, %rd5;
\tst.global.f32 [%rd7], %f2;
DONE:
\tret;
}
";

const N_DIM: DimSpec = DimSpec::Symbolic {
    symbol: 0,
    mul: 1,
    div: 1,
    add: 0,
};

// SAFETY: `add_one` takes `.u64 x, .u64 y` (the two tensor params, in
// order) and then `.u64 n`, the hidden parameter of the one symbol `N`
// (divisor 1, so it receives N itself). The launcher accepts only `x` and
// `y` of shape `[N]` for one N <= 2^40 - 1. Each thread computes
// i = ctaid.x * ntid.x + tid.x in 64 bits (no overflow: both factors are
// below 2^32) and returns unless i < N, so it loads x[i] and stores y[i]
// only in bounds, at 4-byte aligned addresses (base 16-byte aligned, offset
// 4 * i). It stores only to `y`, declared `Borrow::Exclusive`, and distinct
// threads have distinct i, so no two stores race. Any grid is safe, so the
// one `ceil_div(N, 256)` gives is.
static ADD_ONE: Kernel = unsafe {
    Kernel::new(KernelSpec {
        name: "add_one",
        target: Target::SM_90,
        ptx: ADD_ONE_PTX,
        grid: [
            LaunchFormulaSpec(&[LaunchOp::Symbol(0), LaunchOp::Const(256), LaunchOp::CeilDiv]),
            LaunchFormulaSpec::ONE,
            LaunchFormulaSpec::ONE,
        ],
        block: [256, 1, 1],
        cluster: [1, 1, 1],
        shared_mem_bytes: LaunchFormulaSpec::ZERO,
        params: &[
            ParamSpec {
                name: "x",
                kind: ParamKindSpec::Tensor {
                    dtype: DType::F32,
                    shape: &[N_DIM],
                    borrow: Borrow::Shared,
                },
            },
            ParamSpec {
                name: "y",
                kind: ParamKindSpec::Tensor {
                    dtype: DType::F32,
                    shape: &[N_DIM],
                    borrow: Borrow::Exclusive,
                },
            },
        ],
        symbols: &[SymbolSpec {
            name: "N",
            divisor: 1,
            multiple_of: 1,
        }],
        tensor_maps: &[],
        program: ir::add_one::PROGRAM,
    })
};

/// Runs `add_one` over `n` elements and checks every one; the output starts
/// as NaN so that an element the kernel skipped shows.
fn add_one_checked(dev: &Device, n: usize) -> Result<()> {
    let host: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 7.0).collect();
    let x = dev.upload(&host, [n])?;
    let mut y = dev.upload(&vec![f32::NAN; n], [n])?;
    ADD_ONE.launch(dev)?.tensor(&x)?.tensor_mut(&mut y)?.run()?;
    let got = y.download()?;
    let want: Vec<f32> = host.iter().map(|v| v + 1.0).collect();
    assert_eq!(
        got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        "N = {n}"
    );
    Ok(())
}

fn symbolic_dims_bind_n_and_size_the_grid(dev: &Device) -> Result<()> {
    // 4 blocks, the last one partly idle; then exact multiples and a larger N.
    for n in [1000, 1, 256, 257, 100_003] {
        add_one_checked(dev, n)?;
    }
    // Module loads exist on a GPU only (the CPU device runs the IR).
    if !dev.is_cpu() {
        assert_eq!(ADD_ONE.load_count(), 1);
    }
    Ok(())
}

fn symbolic_n_zero_launches_nothing(dev: &Device) -> Result<()> {
    let x = dev.upload::<f32>(&[], [0])?;
    let mut y = dev.zeros::<f32>([0])?;
    // The grid would be ceil_div(0, 256) = 0 blocks, which the driver
    // refuses (CUDA_ERROR_INVALID_VALUE): Ok means the launch was skipped.
    ADD_ONE.launch(dev)?.tensor(&x)?.tensor_mut(&mut y)?.run()?;
    dev.synchronize()?;
    assert_eq!(y.download()?, Vec::<f32>::new());
    Ok(())
}

fn symbolic_mismatch_between_params_is_refused(dev: &Device) -> Result<()> {
    let x = dev.upload(&[1.0f32; 8], [8])?;
    let mut y = dev.zeros::<f32>([7])?;
    let err = expect_err(
        ADD_ONE.launch(dev)?.tensor(&x)?.tensor_mut(&mut y),
        "x of N = 8, y of N = 7",
    );
    match &err {
        Error::SymbolMismatch {
            kernel,
            symbol,
            param,
            shape,
            bound_by,
            expected,
            actual,
        } => {
            assert_eq!(
                (*kernel, *symbol, *param, *bound_by),
                ("add_one", "N", "y", "x")
            );
            assert_eq!(shape, &vec![7]);
            assert_eq!((*expected, *actual), (8, 7));
        }
        other => panic!("expected SymbolMismatch, got {other}"),
    }
    assert_eq!(
        err.to_string(),
        "kernel `add_one`: argument `y` has N = 7 (from its shape [7]), but `x` bound N = 8"
    );
    // A rank the dims cannot match is still a shape mismatch.
    let x2 = dev.upload(&[1.0f32; 8], [2, 4])?;
    match expect_err(ADD_ONE.launch(dev)?.tensor(&x2), "rank 2 for [N]") {
        Error::ShapeMismatch {
            param: "x",
            expected,
            actual,
            ..
        } => {
            assert_eq!(expected, "[N]");
            assert_eq!(actual, vec![2, 4]);
        }
        other => panic!("expected ShapeMismatch, got {other}"),
    }
    // Nothing was launched: y is untouched.
    assert_eq!(y.download()?, vec![0.0; 7]);
    Ok(())
}

// ---------------------------------------------------------------- timing

/// Launches `add_one` over `x` into `y` on `dev`.
fn add_one(dev: &Device, x: &DeviceTensor<f32>, y: &mut DeviceTensor<f32>) -> Result<()> {
    ADD_ONE.launch(dev)?.tensor(x)?.tensor_mut(y)?.run()
}

/// A timer around a launch reads a positive time (CUDA events on a GPU,
/// the wall clock on the CPU device), the same on every read; so does
/// `Device::time`; the launch's results are there.
fn a_timer_brackets_a_launch(dev: &Device) -> Result<()> {
    let n = 1 << 14;
    let x = dev.upload(&vec![1.0f32; n], [n])?;
    let mut y = dev.zeros::<f32>([n])?;
    let timer = dev.timer()?;
    add_one(dev, &x, &mut y)?;
    let stopped = timer.stop()?;
    let ms = stopped.elapsed_ms()?;
    assert!(ms > 0.0 && ms < 60_000.0, "{ms} ms");
    assert_eq!(stopped.elapsed_ms()?, ms);
    assert!(y.download()?.iter().all(|&v| v == 2.0));

    y.upload_from(&vec![0.0; n])?;
    let ms = dev.time(|| add_one(dev, &x, &mut y))?;
    assert!(ms > 0.0 && ms < 60_000.0, "{ms} ms");
    assert!(y.download()?.iter().all(|&v| v == 2.0));
    Ok(())
}

/// A timer's events are on its own device's stream. Around 20 launches
/// queued on a second stream (`with_new_stream`), that stream's timer
/// measures at least the time the launches need to move their bytes at
/// 10 TB/s (more than any GPU's memory bandwidth), while a timer on the
/// first device's stream, started before and stopped after the same
/// launches, measures less: its stream runs nothing in between.
#[test]
#[ignore = "needs an NVIDIA GPU (run with --include-ignored)"]
fn timers_measure_their_own_stream() -> Result<()> {
    const LAUNCHES: usize = 20;
    let dev = gpu();
    let other = dev.with_new_stream()?;
    let n = 1 << 26;
    let x = other.upload(&vec![1.0f32; n], [n])?;
    let mut y = other.zeros::<f32>([n])?;
    // The module is loaded here, so no timer measures the JIT.
    add_one(&other, &x, &mut y)?;
    other.synchronize()?;

    let idle = dev.timer()?;
    let busy = other.timer()?;
    for _ in 0..LAUNCHES {
        add_one(&other, &x, &mut y)?;
    }
    let busy = busy.stop()?;
    let idle = idle.stop()?;
    let busy_ms = busy.elapsed_ms()?;
    let idle_ms = idle.elapsed_ms()?;

    // Each launch reads and writes 4 bytes per element.
    let bytes = (LAUNCHES * 8 * n) as f64;
    let least_ms = bytes / 10e12 * 1e3;
    assert!(
        busy_ms >= least_ms,
        "the second stream's timer read {busy_ms} ms for {LAUNCHES} launches moving {bytes} bytes (at least {least_ms} ms)"
    );
    assert!(
        idle_ms < busy_ms,
        "the first stream's timer read {idle_ms} ms, the second stream's {busy_ms} ms"
    );
    // The timed launches computed what they should.
    assert!(y.download()?.iter().all(|&v| v == 2.0));
    Ok(())
}
