//! The CPU interpreter device without a GPU: tensors in host memory
//! (uploads, downloads, views), and launches on it with kernels compiled by
//! the real `#[tile_kernel]` macro (through the facade [`tk`], its
//! `crate = ".."` path), so their specs carry real programs.
//!
//! Everything here but the tests marked `needs the interpreter executor`
//! checks the runtime's own work (argument checks, memory, errors) and
//! passes whatever the interpreter computes.

use std::fmt::Debug;

use tile_kernel_macros::tile_kernel;

use crate::spec::{Borrow, KernelSpec, LaunchFormulaSpec, ParamKindSpec, ParamSpec};
use crate::{DType, Device, DeviceTensor, Element, Error, Kernel, Result, TensorView, bf16, f16};

/// What the macro's generated code names, as the `tile_kernel` crate
/// provides it.
pub(crate) mod tk {
    pub(crate) use crate::{Device, Error, TensorArg, TensorArgMut};
    // Named by launchers of `f16` / `bf16` tensors (none here yet).
    #[allow(unused_imports)]
    pub(crate) use crate::{bf16, f16};

    pub(crate) mod __private {
        pub(crate) use crate::{Kernel, spec};
        pub(crate) use tile_kernel_lowering::DType;
    }

    macro_rules! __with_runtime {
        ($($item:item)*) => { $($item)* };
    }
    pub(crate) use __with_runtime;

    /// The facade's module template (`tile_kernel::__kernel_module!`, which
    /// the generated code invokes) with this crate's paths, without the
    /// docs and the scalar twin (these kernels have none).
    macro_rules! __kernel_module {
        (@dim Const($value:literal)) => { $crate::cpu_tests::tk::__private::spec::DimSpec::Const($value) };
        (@dim Symbolic($symbol:literal $mul:literal $div:literal $add:literal)) => {
            $crate::cpu_tests::tk::__private::spec::DimSpec::Symbolic { symbol: $symbol, mul: $mul, div: $div, add: $add }
        };
        (@param ($name:literal Tensor $dtype:ident [$($dim:ident $args:tt)*] $borrow:ident)) => {
            $crate::cpu_tests::tk::__private::spec::ParamSpec {
                name: $name,
                kind: $crate::cpu_tests::tk::__private::spec::ParamKindSpec::Tensor {
                    dtype: $crate::cpu_tests::tk::__private::DType::$dtype,
                    shape: &[$($crate::cpu_tests::tk::__kernel_module!(@dim $dim $args)),*],
                    borrow: $crate::cpu_tests::tk::__private::spec::Borrow::$borrow,
                },
            }
        };
        (@param ($name:literal Scalar $dtype:ident)) => {
            $crate::cpu_tests::tk::__private::spec::ParamSpec {
                name: $name,
                kind: $crate::cpu_tests::tk::__private::spec::ParamKindSpec::Scalar { dtype: $crate::cpu_tests::tk::__private::DType::$dtype },
            }
        };
        (@formula [$($op:ident $(($arg:literal))?)*]) => {
            $crate::cpu_tests::tk::__private::spec::LaunchFormulaSpec(&[$($crate::cpu_tests::tk::__private::spec::LaunchOp::$op $(($arg))?),*])
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
            &[$($crate::cpu_tests::tk::__private::spec::TensorMapSpec { param: $param, box_dims: &[$($extent),*], swizzle: $swizzle }),*]
        };
        (@symbols [$(($name:literal $divisor:literal $multiple_of:literal))*]) => {
            &[$($crate::cpu_tests::tk::__private::spec::SymbolSpec { name: $name, divisor: $divisor, multiple_of: $multiple_of }),*]
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
                pub const SPEC: $crate::cpu_tests::tk::__private::spec::KernelSpec = $crate::cpu_tests::tk::__private::spec::KernelSpec {
                    name: ENTRY,
                    ptx: PTX,
                    target: $crate::cpu_tests::tk::__private::spec::Target { sm: $sm, arch_specific: $arch_specific },
                    grid: [$($crate::cpu_tests::tk::__kernel_module!(@formula $grid)),*],
                    block: [$bx, $by, $bz],
                    cluster: [$cx, $cy, $cz],
                    shared_mem_bytes: $crate::cpu_tests::tk::__kernel_module!(@formula $shared),
                    params: &[$($crate::cpu_tests::tk::__kernel_module!(@param $param)),*],
                    symbols: $crate::cpu_tests::tk::__kernel_module!(@symbols $symbols),
tensor_maps: $crate::cpu_tests::tk::__kernel_module!(@maps $maps),
                    program: PROGRAM,
                };
                pub static KERNEL: $crate::cpu_tests::tk::__private::Kernel = $kernel;
            }
            $crate::cpu_tests::tk::__with_runtime! {
                $($attr)*
                #[allow(dead_code, clippy::too_many_arguments)]
                $vis fn $name $inputs -> ::core::result::Result<(), $crate::cpu_tests::tk::Error> {
                    $crate::cpu_tests::tk::__kernel_module!(@body $name $device $body $pushes)
                }
            }
        };
    }
    pub(crate) use __kernel_module;
}

/// README's seed kernel: row `[x0, x1]` becomes one `u32` holding
/// `f16(x0)` (low half) and `f16(x1)` (high half).
#[tile_kernel(crate = "crate::cpu_tests::tk", grid = 1, block = 1)]
fn narrow_pairs(a: Tensor<f32, 4, 2>, out: Tensor<u32, 4, 1>) {
    let r = alloc_local::<f32>([4, 2]);
    let d = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(
        ptx["cvt.rn.f16x2.f32"],
        d,
        r.slice(s![.., 1..2]),
        r.slice(s![.., 0..1]),
    );
    apply(ptx["st.global.b32"], out, d);
}

/// `y[i] = x[i] + k` for any `N`: a size symbol, a grid formula, a
/// runtime guard and a scalar parameter.
#[tile_kernel(crate = "crate::cpu_tests::tk", grid = ceil_div(N, 64), block = 64)]
fn add_scalar(x: Tensor<f32, N>, y: Tensor<f32, N>, k: f32) {
    let i = cta_id(0) * 64 + thread_id(0);
    let v = alloc_local::<f32>([1]);
    if i < N {
        apply(ptx["ld.global.f32"], v, x.slice(s![i..i + 1]));
        apply(ptx["add.f32"], v, v, k);
        apply(ptx["st.global.f32"], y.slice(s![i..i + 1]), v);
    }
}

/// The error of a call that must fail.
fn expect_err<T: Debug>(result: Result<T>, what: &str) -> Error {
    match result {
        Ok(value) => panic!("{what}: expected an error, got Ok({value:?})"),
        Err(e) => e,
    }
}

// ------------------------------------------------------------- tensors

/// Uploads `values` as `[2, n / 2]` and checks they come back bit for bit,
/// through the tensor, a view and `upload_from`.
fn round_trip<T: Element + Debug>(values: &[T], bits: impl Fn(T) -> u64) -> Result<()> {
    let dev = Device::cpu();
    let shape = [2, values.len() / 2];
    let mut x = dev.upload(values, shape)?;
    assert!(x.is_cpu());
    assert_eq!(
        (x.shape(), x.len(), x.dtype()),
        (&shape[..], values.len(), T::DTYPE)
    );
    let want: Vec<u64> = values.iter().map(|&v| bits(v)).collect();
    let got: Vec<u64> = x.download()?.into_iter().map(&bits).collect();
    assert_eq!(got, want, "{}", T::DTYPE);
    assert_eq!(x.view().download()?.len(), values.len());
    let reversed: Vec<T> = values.iter().rev().copied().collect();
    x.upload_from(&reversed)?;
    let got: Vec<u64> = x.download()?.into_iter().map(&bits).collect();
    let want: Vec<u64> = reversed.iter().map(|&v| bits(v)).collect();
    assert_eq!(got, want, "{}", T::DTYPE);
    let zeros = dev.zeros::<T>(shape)?;
    assert!(zeros.download()?.into_iter().all(|v| bits(v) == 0));
    Ok(())
}

#[test]
fn every_element_type_round_trips_bit_for_bit() -> Result<()> {
    round_trip(
        &[
            0.0,
            -0.0,
            1.5,
            f32::NAN,
            f32::INFINITY,
            f32::MIN_POSITIVE / 2.0,
        ],
        |v: f32| u64::from(v.to_bits()),
    )?;
    round_trip(&[0.0, -0.0, f64::NAN, f64::MAX], |v: f64| v.to_bits())?;
    round_trip(
        &[f16::NAN, f16::NEG_ZERO, f16::from_bits(1), f16::MAX],
        |v: f16| u64::from(v.to_bits()),
    )?;
    round_trip(
        &[
            bf16::NAN,
            bf16::NEG_INFINITY,
            bf16::from_bits(0x8001),
            bf16::ONE,
        ],
        |v: bf16| u64::from(v.to_bits()),
    )?;
    round_trip(&[0u8, 1, 0x7f, 0xff], u64::from)?;
    round_trip(&[0u16, 1, 0x8000, 0xffff], u64::from)?;
    round_trip(&[0u32, 1, 0x8000_0000, u32::MAX], u64::from)?;
    round_trip(&[0u64, 1, 1 << 63, u64::MAX], |v| v)?;
    round_trip(&[0i8, -1, i8::MIN, i8::MAX], |v| v as u8 as u64)?;
    round_trip(&[0i16, -1, i16::MIN, i16::MAX], |v| v as u16 as u64)?;
    round_trip(&[0i32, -1, i32::MIN, i32::MAX], |v| v as u32 as u64)?;
    round_trip(&[0i64, -1, i64::MIN, i64::MAX], |v| v as u64)?;
    Ok(())
}

#[test]
fn host_lengths_and_shapes_are_checked() -> Result<()> {
    let dev = Device::cpu();
    assert!(matches!(
        dev.upload(&[1.0f32; 7], [4, 2]),
        Err(Error::LengthMismatch {
            expected: 8,
            actual: 7,
            ..
        })
    ));
    let mut x = dev.zeros::<u16>([3])?;
    assert!(matches!(
        x.upload_from(&[1, 2]),
        Err(Error::LengthMismatch {
            expected: 3,
            actual: 2,
            ..
        })
    ));
    assert!(matches!(
        dev.zeros::<f32>([usize::MAX, 2]),
        Err(Error::TooLarge { .. })
    ));
    // Empty tensors: no bytes, nothing to copy.
    let mut empty = dev.upload::<f32>(&[], [0, 4])?;
    assert!(empty.is_empty());
    assert_eq!(empty.download()?, Vec::<f32>::new());
    empty.upload_from(&[])?;
    assert_eq!(dev.zeros::<i64>([2, 0])?.download()?, Vec::<i64>::new());
    // A rank-0 tensor holds one element.
    assert_eq!(dev.upload(&[7u8], [])?.download()?, [7]);
    Ok(())
}

/// `[6, 2]` tensor of `0..12`.
fn counting(dev: &Device) -> Result<DeviceTensor<u32>> {
    dev.upload(&(0..12).collect::<Vec<u32>>(), [6, 2])
}

#[test]
fn slices_and_reshapes_see_the_right_elements() -> Result<()> {
    let dev = Device::cpu();
    let x = counting(&dev)?;
    let rows = x.slice(2..5)?;
    assert!(rows.is_cpu());
    assert_eq!(rows.shape(), &[3, 2]);
    assert_eq!(rows.download()?, [4, 5, 6, 7, 8, 9]);
    // A view of a view, and a reshape.
    assert_eq!(rows.slice(1..)?.download()?, [6, 7, 8, 9]);
    let flat = rows.reshape([6])?;
    assert_eq!(flat.slice(5..6)?.download()?, [9]);
    assert!(matches!(
        rows.reshape([4]),
        Err(Error::ReshapeMismatch { .. })
    ));
    assert!(matches!(
        x.slice(4..7),
        Err(Error::SliceOutOfRange {
            start: 4,
            end: 7,
            ..
        })
    ));
    assert_eq!(x.slice(6..)?.download()?, Vec::<u32>::new());
    assert_eq!(rows.clone().download()?, rows.download()?);
    Ok(())
}

#[test]
fn mutable_views_write_their_own_rows_only() -> Result<()> {
    let dev = Device::cpu();
    let mut x = counting(&dev)?;
    x.slice_mut(1..2)?.upload_from(&[100, 101])?;
    {
        let (mut front, mut back) = x.split_at_mut(4)?;
        assert_eq!((front.shape(), back.shape()), (&[4, 2][..], &[2, 2][..]));
        front.slice_mut(3..)?.upload_from(&[70, 71])?;
        back.upload_from(&[80, 81, 90, 91])?;
        let (mut a, mut b) = back.split_at_mut(1)?;
        assert_eq!(a.download()?, [80, 81]);
        b.reborrow().upload_from(&[92, 93])?;
        assert_eq!(b.view().download()?, [92, 93]);
        assert_eq!(front.slice(1..2)?.download()?, [100, 101]);
        assert!(matches!(
            front.split_at_mut(5),
            Err(Error::SliceOutOfRange { .. })
        ));
        a.upload_from(&[82, 83])?;
    }
    assert_eq!(
        x.download()?,
        [0, 1, 100, 101, 4, 5, 70, 71, 82, 83, 92, 93]
    );
    let mut view = x.view_mut();
    view.slice_mut(0..1)?.upload_from(&[9, 9])?;
    let whole = view.reshape([12])?;
    assert_eq!(whole.slice(..3)?.download()?, [9, 9, 100]);
    let shared = whole.into_view();
    assert_eq!(shared.len(), 12);
    Ok(())
}

#[test]
fn gpu_only_accessors_are_errors_on_the_cpu() -> Result<()> {
    let dev = Device::cpu();
    let mut x = dev.zeros::<f32>([4])?;
    assert!(matches!(
        x.cuda_slice(),
        Err(Error::NotOnGpu {
            what: "`DeviceTensor::cuda_slice`"
        })
    ));
    assert!(matches!(x.cuda_slice_mut(), Err(Error::NotOnGpu { .. })));
    assert!(matches!(x.view().cuda_view(), Err(Error::NotOnGpu { .. })));
    assert!(matches!(
        x.view_mut().cuda_view_mut(),
        Err(Error::NotOnGpu { .. })
    ));
    assert!(matches!(
        narrow_pairs::KERNEL.function(&dev),
        Err(Error::NotOnGpu { .. })
    ));
    assert!(format!("{x:?}").contains("CPU interpreter"), "{x:?}");
    Ok(())
}

// ------------------------------------------------------------- launches

#[test]
fn macro_kernels_carry_their_program() {
    let program = tile_kernel_lowering::encoding::decode(add_scalar::SPEC.program)
        .expect("the macro's program decodes");
    assert_eq!(program.name, "add_scalar");
    assert_eq!(add_scalar::PROGRAM, add_scalar::SPEC.program);
    assert!(
        narrow_pairs::KERNEL.prepared().is_ok(),
        "{:?}",
        narrow_pairs::KERNEL.prepared().err()
    );
}

#[test]
fn launch_arguments_are_checked_on_the_cpu() -> Result<()> {
    let dev = Device::cpu();
    let x = dev.upload(&[1.0f32; 8], [8])?;
    let mut y = dev.zeros::<f32>([8])?;
    let k = 0.5f32;
    let launch = || add_scalar::KERNEL.launch(&dev);

    // Wrong dtype, for a tensor and a scalar.
    let ints = dev.zeros::<u32>([8])?;
    assert!(matches!(
        expect_err(launch()?.tensor(&ints), "u32 for f32"),
        Error::DTypeMismatch {
            param: "x",
            expected: DType::F32,
            actual: DType::U32,
            ..
        }
    ));
    let err = expect_err(
        launch()?.tensor(&x)?.tensor_mut(&mut y)?.scalar(&1u32),
        "u32 for the f32 scalar",
    );
    assert!(
        matches!(err, Error::DTypeMismatch { param: "k", .. }),
        "{err}"
    );
    // Symbols must agree.
    let mut short = dev.zeros::<f32>([7])?;
    let err = expect_err(launch()?.tensor(&x)?.tensor_mut(&mut short), "N = 8 vs 7");
    assert!(
        matches!(
            err,
            Error::SymbolMismatch {
                symbol: "N",
                expected: 8,
                actual: 7,
                ..
            }
        ),
        "{err}"
    );
    // A written parameter needs a mutable borrow.
    assert!(matches!(
        expect_err(launch()?.tensor(&x)?.tensor(&y), "y shared"),
        Error::ArgumentMismatch { .. }
    ));
    // Too few and too many arguments.
    let err = expect_err(launch()?.tensor(&x)?.run(), "missing y and k");
    assert!(err.to_string().contains("missing `y`"), "{err}");
    assert!(matches!(
        expect_err(
            launch()?
                .tensor(&x)?
                .tensor_mut(&mut y)?
                .scalar(&k)?
                .scalar(&k),
            "a fourth argument"
        ),
        Error::ArgumentMismatch { .. }
    ));
    // A shape narrow_pairs was not compiled for.
    let wide = dev.zeros::<f32>([2, 4])?;
    assert!(matches!(
        expect_err(narrow_pairs::KERNEL.launch(&dev)?.tensor(&wide), "[2, 4]"),
        Error::ShapeMismatch { param: "a", .. }
    ));
    Ok(())
}

#[test]
fn views_must_start_16_byte_aligned_on_the_cpu_too() -> Result<()> {
    let dev = Device::cpu();
    let x = dev.upload(&[1.0f32; 12], [12])?;
    let mut y = dev.zeros::<f32>([8])?;
    // Element 1: byte offset 4.
    let err = expect_err(
        add_scalar::KERNEL.launch(&dev)?.tensor(&x.slice(1..9)?),
        "a view at byte 4",
    );
    assert!(
        matches!(
            err,
            Error::Misaligned {
                param: "x",
                address: 4,
                ..
            }
        ),
        "{err}"
    );
    // Element 4: byte offset 16 is fine (checked, not run).
    let _checked = add_scalar::KERNEL
        .launch(&dev)?
        .tensor(&x.slice(4..12)?)?
        .tensor_mut(&mut y.view_mut())?
        .scalar(&1.0f32)?;
    // So is an empty view anywhere.
    let mut none = dev.zeros::<f32>([0])?;
    let _checked = add_scalar::KERNEL
        .launch(&dev)?
        .tensor(&x.slice(1..1)?)?
        .tensor_mut(&mut none)?
        .scalar(&1.0f32)?;
    Ok(())
}

/// Without work (every tensor empty) a launch returns `Ok` at once, as on
/// a GPU, without running the interpreter.
#[test]
fn empty_work_runs_nothing() -> Result<()> {
    let dev = Device::cpu();
    let x = dev.zeros::<f32>([0])?;
    let mut y = dev.zeros::<f32>([0])?;
    add_scalar(&dev, &x, &mut y, 1.0)
}

/// Hand-built specs have no program: they cannot launch on the CPU, and
/// say why before any argument is pushed. A program that does not decode
/// or does not describe its spec's kernel is refused too.
#[test]
fn kernels_without_a_usable_program_are_refused() {
    const X: ParamSpec = ParamSpec {
        name: "x",
        kind: ParamKindSpec::Tensor {
            dtype: DType::U32,
            shape: &[crate::spec::DimSpec::Const(4)],
            borrow: Borrow::Exclusive,
        },
    };
    const HAND_BUILT: KernelSpec = KernelSpec {
        name: "hand_built",
        ptx: ".version 7.8\n.target sm_90\n.address_size 64\n",
        target: crate::Target::SM_90,
        grid: [LaunchFormulaSpec::ONE; 3],
        block: [1, 1, 1],
        cluster: [1, 1, 1],
        shared_mem_bytes: LaunchFormulaSpec::ZERO,
        params: &[X],
        symbols: &[],
        tensor_maps: &[],
        program: &[],
    };
    let dev = Device::cpu();
    let refused = |spec: KernelSpec| {
        // SAFETY: never reaches a GPU (launched on the CPU device only),
        // and the interpreter checks every access itself.
        let kernel = unsafe { Kernel::new(spec) };
        let err = expect_err(kernel.launch(&dev).map(|_| ()), spec.name);
        (err.to_string(), err)
    };
    let (text, err) = refused(HAND_BUILT);
    assert!(
        matches!(
            err,
            Error::NoProgram {
                kernel: "hand_built"
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        text,
        "kernel `hand_built` has no IR for the CPU interpreter (its spec's `program` is empty, as in a hand-built spec), so it cannot run on the CPU device"
    );
    let (text, err) = refused(KernelSpec {
        tensor_maps: &[],
        program: b"not a program",
        ..HAND_BUILT
    });
    assert!(matches!(err, Error::BadProgram { .. }), "{err:?}");
    assert!(text.contains("its IR does not decode"), "{text}");
    // Another kernel's program.
    let (text, _) = refused(KernelSpec {
        tensor_maps: &[],
        program: add_scalar::PROGRAM,
        ..HAND_BUILT
    });
    assert!(text.contains("the IR is of kernel `add_scalar`"), "{text}");
    // The same kernel, but the spec claims it only reads what it writes.
    let spec = narrow_pairs::SPEC;
    let mut params = spec.params.to_vec();
    if let ParamKindSpec::Tensor { borrow, .. } = &mut params[1].kind {
        *borrow = Borrow::Shared;
    }
    let (text, _) = refused(KernelSpec {
        params: params.leak(),
        ..spec
    });
    assert!(
        text.contains("its parameter `out` differs from the spec's `out`"),
        "{text}"
    );
    // Another grid.
    let (text, _) = refused(KernelSpec {
        grid: [LaunchFormulaSpec::ONE; 3],
        ..add_scalar::SPEC
    });
    assert!(text.contains("grid formula 0"), "{text}");
    // Less dynamic shared memory than the program's buffers need.
    let (text, _) = refused(KernelSpec {
        shared_mem_bytes: LaunchFormulaSpec(&[crate::spec::LaunchOp::Const(64)]),
        ..add_scalar::SPEC
    });
    assert!(
        text.contains("its dynamic shared memory formula differs from the spec's"),
        "{text}"
    );
}

/// A read-only view passed where the kernel reads is fine; the launch
/// builder takes shared views of CPU tensors like GPU ones.
#[test]
fn shared_views_are_accepted_for_read_parameters() -> Result<()> {
    let dev = Device::cpu();
    let x = dev.upload(&[1.0f32; 16], [16])?;
    let view: TensorView<'_, f32> = x.slice(8..)?;
    let mut y = dev.zeros::<f32>([8])?;
    let _checked = add_scalar::KERNEL
        .launch(&dev)?
        .tensor(&view)?
        .tensor_mut(&mut y)?
        .scalar(&2.0f32)?;
    Ok(())
}

/// A tensor of one kind of device on a launch on the other is refused
/// when it is pushed, naming where it is and where the launch runs.
#[test]
#[ignore = "needs an NVIDIA GPU (run with --include-ignored)"]
fn cpu_and_gpu_tensors_do_not_mix() -> Result<()> {
    let gpu = match Device::cuda(0) {
        Ok(gpu) => gpu,
        Err(e) => panic!("this test needs a GPU, but opening GPU 0 failed: {e}"),
    };
    let cpu = Device::cpu();
    let on_cpu = cpu.upload(&[1.0f32; 8], [8])?;
    let mut on_gpu = gpu.zeros::<f32>([8])?;
    let err = expect_err(add_scalar::KERNEL.launch(&gpu)?.tensor(&on_cpu), "host x");
    assert!(
        matches!(
            err,
            Error::WrongDevice {
                param: "x",
                memory: "host memory (a CPU-device tensor)",
                device: "a CUDA device",
                ..
            }
        ),
        "{err}"
    );
    let err = expect_err(
        add_scalar::KERNEL
            .launch(&cpu)?
            .tensor(&on_cpu)?
            .tensor_mut(&mut on_gpu),
        "GPU y",
    );
    assert_eq!(
        err.to_string(),
        "kernel `add_scalar`: tensor `y` is in GPU memory, but the kernel is launched on the CPU interpreter device"
    );
    Ok(())
}

// ------------------------------------------- computed by the interpreter

#[test]
#[ignore = "needs the interpreter executor (in progress)"]
fn cpu_launch_computes_narrow_pairs() -> Result<()> {
    let dev = Device::cpu();
    let values = [
        1.0f32,
        2.0,
        -0.5,
        65504.0,
        1e-8,
        f32::INFINITY,
        70000.0,
        -0.0,
    ];
    let a = dev.upload(&values, [4, 2])?;
    let mut out = dev.zeros::<u32>([4, 1])?;
    narrow_pairs(&dev, &a, &mut out)?;
    let want: Vec<u32> = values
        .chunks(2)
        .map(|pair| {
            let low = u32::from(f16::from_f32(pair[0]).to_bits());
            let high = u32::from(f16::from_f32(pair[1]).to_bits());
            low | high << 16
        })
        .collect();
    assert_eq!(out.download()?, want);
    Ok(())
}

#[test]
#[ignore = "needs the interpreter executor (in progress)"]
fn cpu_launch_computes_add_scalar_over_views() -> Result<()> {
    let dev = Device::cpu();
    let n = 200;
    let host: Vec<f32> = (0..n + 4).map(|i| i as f32 * 0.25).collect();
    let x = dev.upload(&host, [n + 4])?;
    let mut y = dev.upload(&vec![f32::NAN; n + 8], [n + 8])?;
    // Views at 16-byte offsets of both tensors.
    let (_, mut tail) = y.split_at_mut(8)?;
    add_scalar(&dev, &x.slice(4..)?, &mut tail, 1.5)?;
    let got = y.download()?;
    assert!(got[..8].iter().all(|v| v.is_nan()), "{:?}", &got[..8]);
    let want: Vec<f32> = host[4..].iter().map(|v| v + 1.5).collect();
    assert_eq!(&got[8..], &want[..]);
    Ok(())
}
