//! Bandwidth of the conversion kernels on the GPU, next to a device-to-device
//! copy measured in the same run.
//!
//! `cargo run --release --example bench [log2 N]` (default N = 2^28) prints
//! one row per kernel: elements, bytes moved (read + written), the median of
//! 30 timed launches (CUDA events, after 5 warm-up launches), the effective
//! bandwidth and its ratio to the copy. `scripts/bench_torch.py` prints
//! PyTorch's rows in the same format.
//!
//! Without a GPU (the CPU interpreter device) there is nothing to time: it
//! runs every kernel below once at N = 2^16 + 13 (or 2^(log2 N) + 13) and
//! checks the results bit for bit against `half`/`float8`.

#[path = "common/conversions.rs"]
mod conversions;
#[path = "common/quantize.rs"]
mod quantize;
#[allow(dead_code)]
#[path = "common/reference.rs"]
mod reference;

use reference::*;
use tile_kernel::prelude::*;

const WARMUP: usize = 5;

type Convert<I, O> = fn(&Device, &DeviceTensor<I>, &mut DeviceTensor<O>) -> Result<(), Error>;
const TIMED: usize = 30;

/// Median milliseconds of `TIMED` runs of `f`, each timed by `Device::time`
/// (two CUDA events on the device's stream; it waits for the second).
fn time(dev: &Device, mut f: impl FnMut() -> Result<(), Error>) -> Result<f64, Error> {
    for _ in 0..WARMUP {
        f()?;
    }
    let mut times = Vec::with_capacity(TIMED);
    for _ in 0..TIMED {
        times.push(dev.time(&mut f)?);
    }
    times.sort_by(f64::total_cmp);
    Ok((times[TIMED / 2 - 1] + times[TIMED / 2]) / 2.0)
}

fn row(name: &str, elements: usize, bytes: usize, ms: f64, copy_gbs: Option<f64>) -> f64 {
    let gbs = bytes as f64 / (ms * 1e-3) / 1e9;
    let ratio = copy_gbs.map_or("1.000".to_string(), |c| format!("{:.3}", gbs / c));
    println!("| {name:<22} | {elements:>11} | {bytes:>12} | {ms:>9.4} | {gbs:>8.1} | {ratio:>8} |");
    gbs
}

/// Checks one kernel's output against the host reference, or exits.
fn expect_same<T: Bits + std::fmt::Debug>(
    name: &str,
    got: &[T],
    want: &[T],
    nan: impl Fn(T) -> bool,
) {
    if let Some(i) = first_mismatch(got, want, nan) {
        eprintln!(
            "MISMATCH: {name}: element {i} of {}: interpreter {:?}, reference {:?}",
            want.len(),
            got.get(i),
            want.get(i)
        );
        std::process::exit(1);
    }
    println!("| {name:<32} | {:>11} | bit-exact |", want.len());
}

/// The CPU interpreter device: runs every kernel once and checks it bit for
/// bit; timing it would say nothing about a GPU, so nothing is timed.
fn check_on_cpu(dev: &Device, log2: Option<u32>) -> Result<(), Error> {
    // The 13 makes the last block a scalar tail in every kernel.
    let n = (1usize << log2.unwrap_or(16)) + 13;
    println!(
        "device: {}, N = {n}: every kernel once, checked bit for bit (no timing: bandwidth needs an NVIDIA GPU)",
        dev.name()?
    );
    let x = f32_inputs(n, 0x9e37_79b9);
    let h = f16_inputs(n);
    let x32 = dev.upload(&x, [n])?;
    let h16 = dev.upload(&h, [n])?;
    let mut kernels = 0;

    let want: Vec<u16> = x.iter().map(|&v| ref_f16(v)).collect();
    for (name, kernel) in [
        ("f32 -> f16", conversions::to_half as Convert<f32, u16>),
        ("f32 -> f16 (ld.nc)", variants::to_half_nc),
        ("f32 -> f16 (ld.nc.L1::no_alloc)", variants::to_half_nc_na),
        ("f32 -> f16 (ld.cs, st.cs)", variants::to_half_cs),
        ("f32 -> f16 (ld.nc, st.cs)", variants::to_half_nc_cs),
    ] {
        let mut y = dev.zeros::<u16>([n])?;
        kernel(dev, &x32, &mut y)?;
        expect_same(name, &y.download()?, &want, f16_is_nan);
        kernels += 1;
    }

    let want: Vec<u16> = x.iter().map(|&v| ref_bf16(v)).collect();
    let mut y16 = dev.zeros::<u16>([n])?;
    conversions::to_bf16(dev, &x32, &mut y16)?;
    expect_same("f32 -> bf16", &y16.download()?, &want, bf16_is_nan);
    kernels += 1;

    let want: Vec<u8> = x.iter().map(|&v| ref_e4m3(v)).collect();
    let mut y8 = dev.zeros::<u8>([n])?;
    conversions::to_e4m3(dev, &x32, &mut y8)?;
    expect_same(
        "f32 -> e4m3 (satfinite)",
        &y8.download()?,
        &want,
        e4m3_is_nan,
    );
    kernels += 1;

    let want: Vec<f32> = h.iter().map(|&v| ref_f32(v)).collect();
    for (name, kernel) in [
        (
            "f16 -> f32 (4/thread)",
            conversions::to_f32 as Convert<u16, f32>,
        ),
        ("f16 -> f32 (8/thread)", variants::to_f32_x8),
        ("f16 -> f32 (block 128)", variants::to_f32_b128),
        ("f16 -> f32 (4/t, b128)", variants::to_f32_x4_b128),
    ] {
        let mut y = dev.zeros::<f32>([n])?;
        kernel(dev, &h16, &mut y)?;
        expect_same(name, &y.download()?, &want, f32_is_nan);
        kernels += 1;
    }
    println!(
        "OK: results of all {kernels} kernels match half/float8 bit for bit on the CPU interpreter; bandwidth needs an NVIDIA GPU"
    );
    Ok(())
}

fn main() -> Result<(), Error> {
    let log2_arg: Option<u32> = std::env::args().nth(1).and_then(|a| a.parse().ok());
    // The GPU when a CUDA driver is present, else the CPU interpreter
    // (`TILE_KERNEL_DEVICE=cpu|gpu` decides instead when set).
    let dev = Device::new(0)?;
    if dev.is_cpu() {
        return check_on_cpu(&dev, log2_arg);
    }
    let log2 = log2_arg.unwrap_or(28);
    let n = 1usize << log2;
    println!(
        "device: {}, N = 2^{log2}, median of {TIMED} launches after {WARMUP} warm-ups",
        dev.name()?
    );
    println!(
        "| kernel                 |    elements |  bytes moved |   time ms |     GB/s | vs copy |"
    );
    println!(
        "|------------------------|-------------|--------------|-----------|----------|---------|"
    );

    let x32 = dev.upload(&vec![1.5f32; n], [n])?;
    let mut copy_dst = dev.zeros::<f32>([n])?;
    let ms = time(&dev, || {
        dev.stream()?
            .memcpy_dtod(x32.cuda_slice()?, copy_dst.cuda_slice_mut()?)
            .map_err(|source| Error::Driver {
                during: "copying",
                source,
            })
    })?;
    let copy = row("copy f32 (memcpy_dtod)", n, 8 * n, ms, None);
    drop(copy_dst);

    let mut y16 = dev.zeros::<u16>([n])?;
    let ms = time(&dev, || conversions::to_half(&dev, &x32, &mut y16))?;
    row("f32 -> f16", n, 6 * n, ms, Some(copy));
    let ms = time(&dev, || conversions::to_bf16(&dev, &x32, &mut y16))?;
    row("f32 -> bf16", n, 6 * n, ms, Some(copy));
    let mut y8 = dev.zeros::<u8>([n])?;
    let ms = time(&dev, || conversions::to_e4m3(&dev, &x32, &mut y8))?;
    row("f32 -> e4m3 (satfinite)", n, 5 * n, ms, Some(copy));
    drop(y8);
    let mut y32 = dev.zeros::<f32>([n])?;
    let ms = time(&dev, || conversions::to_f32(&dev, &y16, &mut y32))?;
    row("f16 -> f32 (4/thread)", n, 6 * n, ms, Some(copy));
    // fp8 quantization with in-kernel scales (examples/quantize_e4m3.rs):
    // x read, bytes and scales written; the dequantizer the reverse.
    let mut q8 = dev.zeros::<u8>([n])?;
    for (name, block, _, quantize, dequantize) in quantize::VARIANTS {
        let blocks = n.div_ceil(block);
        let mut scales = dev.zeros::<f32>([blocks])?;
        let bytes = 5 * n + 4 * blocks;
        let ms = time(&dev, || quantize(&dev, &x32, &mut q8, &mut scales))?;
        row(&format!("quantize e4m3 {name}"), n, bytes, ms, Some(copy));
        let ms = time(&dev, || dequantize(&dev, &q8, &scales, &mut y32))?;
        row(&format!("dequantize e4m3 {name}"), n, bytes, ms, Some(copy));
    }
    drop(q8);
    if std::env::args().any(|a| a == "--variants") {
        let mut h16 = dev.zeros::<u16>([n])?;
        for (name, kernel) in [
            (
                "f32 -> f16 (ld.nc)",
                variants::to_half_nc as Convert<f32, u16>,
            ),
            ("f32 -> f16 (ld.nc.L1::no_alloc)", variants::to_half_nc_na),
            ("f32 -> f16 (ld.cs, st.cs)", variants::to_half_cs),
            ("f32 -> f16 (ld.nc, st.cs)", variants::to_half_nc_cs),
        ] {
            let ms = time(&dev, || kernel(&dev, &x32, &mut h16))?;
            row(name, n, 6 * n, ms, Some(copy));
        }
        let ms = time(&dev, || variants::to_f32_x8(&dev, &y16, &mut y32))?;
        row("f16 -> f32 (8/thread)", n, 6 * n, ms, Some(copy));
        let ms = time(&dev, || variants::to_f32_b128(&dev, &y16, &mut y32))?;
        row("f16 -> f32 (block 128)", n, 6 * n, ms, Some(copy));
        let ms = time(&dev, || variants::to_f32_x4_b128(&dev, &y16, &mut y32))?;
        row("f16 -> f32 (4/t, b128)", n, 6 * n, ms, Some(copy));
    }
    Ok(())
}

/// f16 -> f32 variants for the shape study in docs/performance.md.
mod variants {
    use tile_kernel::prelude::*;

    /// 8 elements per thread: one 16-byte load, two 16-byte stores.
    #[tile_kernel(grid = ceil_div(N, 2048), block = 256)]
    pub fn to_f32_x8(x: Tensor<u16, N>, y: Tensor<f32, N>) {
        let base = (cta_id(0) * 256 + thread_id(0)) * 8;
        let w = alloc_local::<u32>([1, 4]);
        let f = alloc_local::<f32>([8, 1]);
        let h = alloc_local::<u16>([8, 1]);
        if base + 8 <= N {
            apply(
                ptx["ld.global.v4.b32"],
                w,
                x.slice(s![base..base + 8]).view::<u32>().reshape([1, 4]),
            );
            apply(ptx["cvt.f32.f16"], f, w.view::<u16>().reshape([8, 1]));
            apply(
                ptx["st.global.v4.f32"],
                y.slice(s![base..base + 8]).reshape([2, 4]),
                f.reshape([2, 4]),
            );
        } else {
            for k in 0..8 {
                if base + k < N {
                    apply(
                        ptx["ld.global.b16"],
                        h[k],
                        x.slice(s![base + k..base + k + 1]),
                    );
                    apply(ptx["cvt.f32.f16"], f[k], h[k]);
                    apply(
                        ptx["st.global.f32"],
                        y.slice(s![base + k..base + k + 1]),
                        f[k],
                    );
                }
            }
        }
    }

    /// 8 elements per thread, 128 threads per block.
    #[tile_kernel(grid = ceil_div(N, 1024), block = 128)]
    pub fn to_f32_b128(x: Tensor<u16, N>, y: Tensor<f32, N>) {
        let base = (cta_id(0) * 128 + thread_id(0)) * 8;
        let w = alloc_local::<u32>([1, 4]);
        let f = alloc_local::<f32>([8, 1]);
        let h = alloc_local::<u16>([8, 1]);
        if base + 8 <= N {
            apply(
                ptx["ld.global.v4.b32"],
                w,
                x.slice(s![base..base + 8]).view::<u32>().reshape([1, 4]),
            );
            apply(ptx["cvt.f32.f16"], f, w.view::<u16>().reshape([8, 1]));
            apply(
                ptx["st.global.v4.f32"],
                y.slice(s![base..base + 8]).reshape([2, 4]),
                f.reshape([2, 4]),
            );
        } else {
            for k in 0..8 {
                if base + k < N {
                    apply(
                        ptx["ld.global.b16"],
                        h[k],
                        x.slice(s![base + k..base + k + 1]),
                    );
                    apply(ptx["cvt.f32.f16"], f[k], h[k]);
                    apply(
                        ptx["st.global.f32"],
                        y.slice(s![base + k..base + k + 1]),
                        f[k],
                    );
                }
            }
        }
    }

    /// 4 elements per thread, 128 threads per block.
    #[tile_kernel(grid = ceil_div(N, 512), block = 128)]
    pub fn to_f32_x4_b128(x: Tensor<u16, N>, y: Tensor<f32, N>) {
        let base = (cta_id(0) * 128 + thread_id(0)) * 4;
        let w = alloc_local::<u32>([1, 2]);
        let f = alloc_local::<f32>([4, 1]);
        let h = alloc_local::<u16>([4, 1]);
        if base + 4 <= N {
            apply(
                ptx["ld.global.v2.b32"],
                w,
                x.slice(s![base..base + 4]).view::<u32>().reshape([1, 2]),
            );
            apply(ptx["cvt.f32.f16"], f, w.view::<u16>().reshape([4, 1]));
            apply(
                ptx["st.global.v4.f32"],
                y.slice(s![base..base + 4]).reshape([1, 4]),
                f.reshape([1, 4]),
            );
        } else {
            for k in 0..4 {
                if base + k < N {
                    apply(
                        ptx["ld.global.b16"],
                        h[k],
                        x.slice(s![base + k..base + k + 1]),
                    );
                    apply(ptx["cvt.f32.f16"], f[k], h[k]);
                    apply(
                        ptx["st.global.f32"],
                        y.slice(s![base + k..base + k + 1]),
                        f[k],
                    );
                }
            }
        }
    }

    /// f32 -> f16 like `to_half`, with other cache operators on the vector
    /// load and store (the kernel bodies differ only in those two opcodes).
    macro_rules! to_half_with {
        ($name:ident, $load:literal, $store:literal) => {
            #[tile_kernel(grid = ceil_div(N, 2048), block = 256)]
            pub fn $name(x: Tensor<f32, N>, y: Tensor<u16, N>) {
                let base = (cta_id(0) * 256 + thread_id(0)) * 8;
                let r = alloc_local::<f32>([2, 4]);
                let d = alloc_local::<u32>([1, 4]);
                let v = alloc_local::<f32>([8, 1]);
                let h = alloc_local::<f16>([8, 1]);
                if base + 8 <= N {
                    apply(ptx[$load], r, x.slice(s![base..base + 8]).reshape([2, 4]));
                    let pairs = r.reshape([4, 2]);
                    apply(
                        ptx["cvt.rn.f16x2.f32"],
                        d.reshape([4, 1]),
                        pairs.slice(s![.., 1..2]),
                        pairs.slice(s![.., 0..1]),
                    );
                    apply(
                        ptx[$store],
                        y.slice(s![base..base + 8]).view::<u32>().reshape([1, 4]),
                        d,
                    );
                } else {
                    for k in 0..8 {
                        if base + k < N {
                            apply(
                                ptx["ld.global.f32"],
                                v[k],
                                x.slice(s![base + k..base + k + 1]),
                            );
                            apply(ptx["cvt.rn.f16.f32"], h[k], v[k]);
                            apply(
                                ptx["st.global.b16"],
                                y.slice(s![base + k..base + k + 1]),
                                h[k],
                            );
                        }
                    }
                }
            }
        };
    }

    to_half_with!(to_half_nc, "ld.global.nc.v4.f32", "st.global.v4.b32");
    to_half_with!(
        to_half_nc_na,
        "ld.global.nc.L1::no_allocate.v4.f32",
        "st.global.v4.b32"
    );
    to_half_with!(to_half_cs, "ld.global.cs.v4.f32", "st.global.cs.v4.b32");
    to_half_with!(to_half_nc_cs, "ld.global.nc.v4.f32", "st.global.cs.v4.b32");
}
