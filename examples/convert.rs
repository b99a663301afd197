//! Tensor conversions of any length with tile-kernel: f32 -> f16, f32 ->
//! bf16, f16 -> f32 and f32 -> fp8 e4m3 (saturating), each checked bit for
//! bit against the `half` / `float8` crates at several sizes, tails included.
//!
//! `cargo run --release --example convert` checks sizes 0, 1, 7, 2048,
//! 2^20 + 3 and 2^28; pass a number to use another largest size
//! (`-- 100000` for a quick run, e.g. under compute-sanitizer).
//!
//! Without a GPU the kernels run on the CPU interpreter (`Device::new`),
//! which skips the default 2^28 (pass a size to run it anyway) and prints
//! the wall time of each kernel launch at 2^20 + 3.

#[path = "common/conversions.rs"]
mod conversions;
#[path = "common/reference.rs"]
mod reference;

use tile_kernel::prelude::*;

use reference::*;

/// On the CPU device, launches of at least this many elements print their
/// wall time.
const TIMED_ON_CPU: usize = 1 << 20;

/// The default largest size; the CPU device skips it unless asked for.
const LARGEST: usize = 1 << 28;

type Launcher<I, O> = fn(&Device, &DeviceTensor<I>, &mut DeviceTensor<O>) -> Result<(), Error>;

/// Runs one conversion on `input` and compares with the host reference.
fn check<
    I: tile_kernel::Element + Sync,
    O: tile_kernel::Element + Bits + Default + Send + std::fmt::Debug,
>(
    dev: &Device,
    name: &str,
    launch: Launcher<I, O>,
    input: &[I],
    reference: impl Fn(I) -> O + Sync,
    is_nan: impl Fn(O) -> bool,
) -> Result<(), Error> {
    let n = input.len();
    let x = dev.upload(input, [n])?;
    let mut y = dev.zeros::<O>([n])?;
    // On the CPU device the launch runs to completion before it returns.
    let start = std::time::Instant::now();
    launch(dev, &x, &mut y)?;
    let elapsed = start.elapsed();
    let got = y.download()?;
    let want = parallel_map(input, &reference);
    if let Some(i) = first_mismatch(&got, &want, is_nan) {
        panic!(
            "{name}: N = {n}: element {i}: {} {:?}, reference {:?}",
            if dev.is_cpu() { "interpreter" } else { "GPU" },
            got.get(i),
            want.get(i)
        );
    }
    if dev.is_cpu() && n >= TIMED_ON_CPU {
        println!(
            "  {name:<8} N = {n:>10}: bit-exact (kernel {:.3} s on the CPU interpreter)",
            elapsed.as_secs_f64()
        );
    } else {
        println!("  {name:<8} N = {n:>10}: bit-exact");
    }
    Ok(())
}

/// `input.map(f)` on all cores (the 2^28 references take a while otherwise).
fn parallel_map<I: Copy + Sync, O: Send + Copy + Default>(
    input: &[I],
    f: &(impl Fn(I) -> O + Sync),
) -> Vec<O> {
    let mut out = vec![O::default(); input.len()];
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = input.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        for (src, dst) in input.chunks(chunk).zip(out.chunks_mut(chunk)) {
            scope.spawn(move || {
                for (d, s) in dst.iter_mut().zip(src) {
                    *d = f(*s);
                }
            });
        }
    });
    out
}

fn main() -> Result<(), Error> {
    let asked: Option<usize> = std::env::args().nth(1).and_then(|a| a.parse().ok());
    // The GPU when a CUDA driver is present, else the CPU interpreter
    // (`TILE_KERNEL_DEVICE=cpu|gpu` decides instead when set).
    let dev = Device::new(0)?;
    println!("device: {}", dev.name()?);
    let largest = match asked {
        Some(n) => n,
        None if dev.is_cpu() => {
            println!(
                "skipping N = 2^28 on the CPU interpreter (pass a size, e.g. `-- {LARGEST}`, to run it)"
            );
            (1 << 20) + 3
        }
        None => LARGEST,
    };
    let mut sizes: Vec<usize> = vec![0, 1, 7, 2048, (1 << 20) + 3, largest];
    sizes.retain(|n| *n <= largest);
    sizes.dedup();
    for n in sizes {
        let x = f32_inputs(n, 0x9e37_79b9 ^ n as u64);
        check(
            &dev,
            "to_half",
            conversions::to_half,
            &x,
            ref_f16,
            f16_is_nan,
        )?;
        check(
            &dev,
            "to_bf16",
            conversions::to_bf16,
            &x,
            ref_bf16,
            bf16_is_nan,
        )?;
        check(
            &dev,
            "to_e4m3",
            conversions::to_e4m3,
            &x,
            ref_e4m3,
            e4m3_is_nan,
        )?;
        drop(x);
        let h = f16_inputs(n);
        check(&dev, "to_f32", conversions::to_f32, &h, ref_f32, f32_is_nan)?;
    }
    println!("OK: every conversion matches half/float8 bit for bit at every size");
    Ok(())
}
