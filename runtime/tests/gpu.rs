//! Runtime behaviour on a real GPU.
//!
//! Every test opens GPU 0 through [`device`]; without a CUDA driver (or GPU)
//! it prints `skipping: <reason>` and passes, unless
//! `TILE_KERNEL_REQUIRE_GPU=1`, which turns the skip into a failure so a GPU
//! machine cannot silently run nothing.

use std::fmt::Debug;

use tile_kernel_runtime::{
    Access, DType, Device, Element, Error, Kernel, KernelSpec, ParamKind, ParamSpec, Result, bf16,
    f16,
};

/// GPU 0, or `None` (after saying why) where there is none.
fn device() -> Option<Device> {
    let reason = match Device::new(0) {
        Ok(device) => return Some(device),
        Err(e @ (Error::NoDriver | Error::NoDevice { .. })) => e.to_string(),
        Err(e) => panic!("opening GPU 0 failed: {e}"),
    };
    if std::env::var_os("TILE_KERNEL_REQUIRE_GPU").is_some_and(|v| v == "1") {
        panic!("TILE_KERNEL_REQUIRE_GPU=1, but no GPU is usable: {reason}");
    }
    eprintln!("skipping: {reason}");
    None
}

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

#[test]
fn every_element_type_round_trips_exactly() -> Result<()> {
    let Some(dev) = device() else { return Ok(()) };
    round_trip(
        &dev,
        &[0x0001, 0x8000, 0x7c00, 0x7e01, 0x7bff, 0x0400, 0x3e00].map(f16::from_bits),
    )?;
    round_trip(
        &dev,
        &[0x0001, 0x8000, 0x7f80, 0x7fc1, 0x7f7f, 0x0080, 0x3fc0].map(bf16::from_bits),
    )?;
    round_trip(
        &dev,
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
        &dev,
        &[
            1,
            1 << 63,
            0x7ff0_0000_0000_0000,
            0x7ff8_0000_dead_beef,
            (-2.25f64).to_bits(),
        ]
        .map(f64::from_bits),
    )?;
    round_trip(&dev, &[0u8, 1, 0x7f, 0x80, u8::MAX])?;
    round_trip(&dev, &[0u16, 1, 0x8000, u16::MAX, 0x1234])?;
    round_trip(&dev, &[0u32, 1, 0x8000_0000, u32::MAX, 0xdead_beef])?;
    round_trip(&dev, &[0u64, 1, 1 << 63, u64::MAX, 0x0123_4567_89ab_cdef])?;
    round_trip(&dev, &[0i8, -1, i8::MIN, i8::MAX, 42])?;
    round_trip(&dev, &[0i16, -1, i16::MIN, i16::MAX, -1234])?;
    round_trip(&dev, &[0i32, -1, i32::MIN, i32::MAX, -123_456])?;
    round_trip(&dev, &[0i64, -1, i64::MIN, i64::MAX, -1 << 40])?;
    Ok(())
}

#[test]
fn zeros_are_all_bits_clear() -> Result<()> {
    let Some(dev) = device() else { return Ok(()) };
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

#[test]
fn empty_tensors_work() -> Result<()> {
    let Some(dev) = device() else { return Ok(()) };
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

#[test]
fn upload_from_overwrites_and_checks_length() -> Result<()> {
    let Some(dev) = device() else { return Ok(()) };
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

#[test]
fn device_reports_name_and_capability() -> Result<()> {
    let Some(dev) = device() else { return Ok(()) };
    assert_eq!(dev.ordinal(), 0);
    assert!(!dev.name()?.is_empty());
    let (major, _minor) = dev.compute_capability()?;
    assert!(major >= 5, "compute capability {major}.x");
    dev.synchronize()
}

// ---------------------------------------------------------------- kernels

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
        kind: ParamKind::Tensor {
            dtype: DType::U32,
            shape: &[4],
            access: Access::Read,
        },
    },
    ParamSpec {
        name: "y",
        kind: ParamKind::Tensor {
            dtype: DType::U32,
            shape: &[4],
            access: Access::Write,
        },
    },
    ParamSpec {
        name: "k",
        kind: ParamKind::Scalar { dtype: DType::U32 },
    },
];

const ADD4: KernelSpec = KernelSpec {
    name: "add4",
    ptx: ADD4_PTX,
    grid: [1, 1, 1],
    block: [1, 1, 1],
    shared_mem_bytes: 0,
    params: ADD4_PARAMS,
};

/// Used only by `launch_computes_and_loads_the_module_once`, so its load
/// count is not disturbed by other tests.
static ADD4_COUNTED: Kernel = Kernel::new(ADD4);
/// Shared by the argument-checking tests.
static ADD4_CHECKED: Kernel = Kernel::new(ADD4);

#[test]
fn launch_computes_and_loads_the_module_once() -> Result<()> {
    let Some(dev) = device() else { return Ok(()) };
    let x = dev.upload(&[1u32, 2, 3, u32::MAX], [4])?;
    let mut y = dev.zeros::<u32>([4])?;
    assert_eq!(ADD4_COUNTED.load_count(), 0);
    for k in [10u32, 20, 30] {
        ADD4_COUNTED
            .launch(&dev)?
            .tensor(&x)?
            .tensor_mut(&mut y)?
            .scalar(&k)?
            .run()?;
        let want = [1, 2, 3, u32::MAX].map(|v: u32| v.wrapping_add(k));
        assert_eq!(y.download()?, want.to_vec(), "k = {k}");
    }
    assert_eq!(ADD4_COUNTED.load_count(), 1);

    // A second handle on GPU 0 shares the primary context, so the cached
    // module and the tensors are valid with it.
    let same_gpu = Device::new(0)?;
    ADD4_COUNTED
        .launch(&same_gpu)?
        .tensor(&x)?
        .tensor_mut(&mut y)?
        .scalar(&5u32)?
        .run()?;
    same_gpu.synchronize()?;
    assert_eq!(y.download()?, vec![6, 7, 8, 4]);
    assert_eq!(ADD4_COUNTED.load_count(), 1);
    Ok(())
}

#[test]
fn wrong_shape_is_shape_mismatch() -> Result<()> {
    let Some(dev) = device() else { return Ok(()) };
    let x = dev.upload(&[1u32, 2, 3, 4], [2, 2])?;
    match expect_err(ADD4_CHECKED.launch(&dev)?.tensor(&x), "[2, 2] for [4]") {
        Error::ShapeMismatch {
            kernel,
            param,
            expected,
            actual,
        } => {
            assert_eq!((kernel, param), ("add4", "x"));
            assert_eq!(expected, vec![4]);
            assert_eq!(actual, vec![2, 2]);
        }
        other => panic!("expected ShapeMismatch, got {other}"),
    }
    Ok(())
}

#[test]
fn wrong_dtypes_are_dtype_mismatch() -> Result<()> {
    let Some(dev) = device() else { return Ok(()) };
    let xf = dev.upload(&[1.0f32, 2.0, 3.0, 4.0], [4])?;
    let err = expect_err(ADD4_CHECKED.launch(&dev)?.tensor(&xf), "f32 tensor");
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
    let launch = ADD4_CHECKED.launch(&dev)?.tensor(&x)?.tensor_mut(&mut y)?;
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

#[test]
fn protocol_misuse_is_argument_mismatch() -> Result<()> {
    let Some(dev) = device() else { return Ok(()) };
    let x = dev.upload(&[1u32, 2, 3, 4], [4])?;
    let mut y = dev.zeros::<u32>([4])?;

    // A written tensor passed shared.
    let err = expect_err(
        ADD4_CHECKED.launch(&dev)?.tensor(&x)?.tensor(&x),
        "shared borrow of y",
    );
    assert!(
        matches!(err, Error::ArgumentMismatch { kernel: "add4", .. }),
        "{err}"
    );

    // Too few arguments.
    let err = expect_err(ADD4_CHECKED.launch(&dev)?.tensor(&x)?.run(), "missing args");
    assert!(matches!(err, Error::ArgumentMismatch { .. }), "{err}");
    assert!(err.to_string().contains("missing `y`"), "{err}");

    // Too many arguments.
    let full = ADD4_CHECKED
        .launch(&dev)?
        .tensor(&x)?
        .tensor_mut(&mut y)?
        .scalar(&1u32)?;
    let err = expect_err(full.scalar(&2u32), "extra arg");
    assert!(matches!(err, Error::ArgumentMismatch { .. }), "{err}");

    // A scalar where a tensor goes.
    let err = expect_err(ADD4_CHECKED.launch(&dev)?.scalar(&1u32), "scalar for x");
    assert!(matches!(err, Error::ArgumentMismatch { .. }), "{err}");

    // Nothing was launched: y is untouched.
    assert_eq!(y.download()?, vec![0; 4]);
    Ok(())
}

#[test]
fn replaced_allocation_is_refused() -> Result<()> {
    let Some(dev) = device() else { return Ok(()) };
    let x = dev.upload(&[1u32, 2, 3, 4], [4])?;
    let mut y = dev.zeros::<u32>([4])?;
    let shorter = dev
        .stream()
        .alloc_zeros::<u32>(2)
        .map_err(|source| Error::Driver {
            during: "test allocation",
            source,
        })?;
    *y.cuda_slice_mut() = shorter;
    let err = expect_err(
        ADD4_CHECKED.launch(&dev)?.tensor(&x)?.tensor_mut(&mut y),
        "2-element allocation behind a [4] tensor",
    );
    assert!(matches!(err, Error::ArgumentMismatch { .. }), "{err}");
    Ok(())
}

#[test]
fn tensors_of_another_gpu_are_refused() -> Result<()> {
    let Some(dev) = device() else { return Ok(()) };
    let other = match Device::new(1) {
        Ok(other) => other,
        Err(e) => {
            eprintln!("skipping: needs a second GPU ({e})");
            return Ok(());
        }
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

static BROKEN: Kernel = Kernel::new(KernelSpec {
    name: "broken_entry",
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
    grid: [1, 1, 1],
    block: [1, 1, 1],
    shared_mem_bytes: 0,
    params: &[],
});

#[test]
fn invalid_ptx_is_module_load_with_the_jit_log() -> Result<()> {
    let Some(dev) = device() else { return Ok(()) };
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

static MISSING_ENTRY: Kernel = Kernel::new(KernelSpec {
    name: "absent",
    ptx: "\
.version 7.8
.target sm_90
.address_size 64

.visible .entry present()
{
\tret;
}
",
    grid: [1, 1, 1],
    block: [1, 1, 1],
    shared_mem_bytes: 0,
    params: &[],
});

#[test]
fn missing_entry_is_module_load() -> Result<()> {
    let Some(dev) = device() else { return Ok(()) };
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
static NOP: Kernel = Kernel::new(KernelSpec {
    name: "nop",
    ptx: "\
.version 7.8
.target sm_90
.address_size 64

.visible .entry nop()
{
\tret;
}
",
    grid: [2, 1, 1],
    block: [32, 1, 1],
    shared_mem_bytes: 0,
    params: &[],
});

#[test]
fn parameterless_kernel_runs() -> Result<()> {
    let Some(dev) = device() else { return Ok(()) };
    NOP.launch(&dev)?.run()?;
    dev.synchronize()?;
    assert_eq!(NOP.load_count(), 1);
    Ok(())
}
