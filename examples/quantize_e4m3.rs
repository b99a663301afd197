//! Per-block fp8 e4m3 quantization with scales computed in the kernel
//! (blocks of 32 and of 128 elements), and its dequantizer, checked bit for
//! bit against a host reference built on the `float8` crate at several
//! sizes, tails included: every variant of `examples/common/quantize.rs`
//! (4, 8 or 16 elements per lane).
//!
//! `cargo run --release --example quantize_e4m3` checks sizes 0, 1, 31,
//! 127, 129, 4096, 2^20 + 3 and 2^26 (pass a number for another largest
//! size). Without a GPU the kernels run on the CPU interpreter, which
//! skips the default largest size.

#[path = "common/quantize.rs"]
mod quantize;
#[path = "common/reference.rs"]
#[allow(dead_code)]
mod reference;

use float8::F8E4M3;
use tile_kernel::prelude::*;

/// The default largest size; the CPU device skips it unless asked for.
const LARGEST: usize = 1 << 26;

/// The host reference of one block: its scale and its e4m3 bytes.
fn reference_block(x: &[f32]) -> (f32, Vec<u8>) {
    let amax = x
        .iter()
        .map(|v| v.to_bits() & 0x7fff_ffff)
        .max()
        .unwrap_or(0);
    let scale = f32::from_bits(amax).max(1e-12) / 448.0;
    let q = x
        .iter()
        .map(|v| F8E4M3::from_f32(v / scale).to_bits())
        .collect();
    (scale, q)
}

/// The host reference of a whole tensor in blocks of `block`.
fn reference(x: &[f32], block: usize) -> (Vec<f32>, Vec<u8>) {
    let mut scales = Vec::new();
    let mut q = Vec::with_capacity(x.len());
    for chunk in x.chunks(block) {
        let (scale, bytes) = reference_block(chunk);
        scales.push(scale);
        q.extend(bytes);
    }
    (scales, q)
}

/// e4m3 bytes are equal, or both NaN (0x7f / 0xff).
fn same_e4m3(a: u8, b: u8) -> bool {
    a == b || (a & 0x7f == 0x7f && b & 0x7f == 0x7f)
}

/// f32 values are equal bit for bit, or both NaN.
fn same_f32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn check(
    dev: &Device,
    x: &[f32],
    (name, block, _, quantize, dequantize): &(
        &str,
        usize,
        usize,
        quantize::Quantize,
        quantize::Dequantize,
    ),
) -> Result<(), Error> {
    let block = *block;
    let n = x.len();
    let blocks = n.div_ceil(block);
    let xs = dev.upload(x, [n])?;
    let mut q = dev.zeros::<u8>([n])?;
    let mut scales = dev.zeros::<f32>([blocks])?;
    quantize(dev, &xs, &mut q, &mut scales)?;
    let (want_scales, want_q) = reference(x, block);
    let got_scales = scales.download()?;
    let got_q = q.download()?;
    let mut y = dev.zeros::<f32>([n])?;
    dequantize(dev, &q, &scales, &mut y)?;
    let got_y = y.download()?;
    if let Some(i) = (0..blocks).find(|&i| !same_f32(got_scales[i], want_scales[i])) {
        panic!(
            "{name}, N = {n}: scale {i}: kernel {:e}, reference {:e}",
            got_scales[i], want_scales[i]
        );
    }
    if let Some(i) = (0..n).find(|&i| !same_e4m3(got_q[i], want_q[i])) {
        panic!(
            "{name}, N = {n}: element {i} (x = {:e}): kernel {:#04x}, reference {:#04x}",
            x[i], got_q[i], want_q[i]
        );
    }
    // The dequantizer's reference: the exact value of the byte times the
    // block's scale, rounded to nearest.
    let want_y = |i: usize| F8E4M3::from_bits(want_q[i]).to_f32() * want_scales[i / block];
    if let Some(i) = (0..n).find(|&i| !same_f32(got_y[i], want_y(i))) {
        panic!(
            "dequantize {name}, N = {n}: element {i} (q = {:#04x}): kernel {:e}, reference {:e}",
            want_q[i],
            got_y[i],
            want_y(i)
        );
    }
    println!(
        "  {name:<8} N = {n:>9}: {blocks} scales, {n} e4m3 values and their dequantized f32 bit-exact"
    );
    Ok(())
}

/// Inputs with structure: each block gets its own magnitude, so scales
/// differ; special values (0, subnormals, inf, NaN) sit in the first ones.
fn inputs(n: usize) -> Vec<f32> {
    let mut x = reference::f32_inputs(n, 0x5eed ^ n as u64);
    for (i, v) in x.iter_mut().enumerate() {
        // Magnitudes from about 2^-20 to 2^20, changing every 96 elements.
        let exponent = ((i / 96) % 41) as i32 - 20;
        if v.is_finite() && i >= 64 {
            *v = (*v).clamp(-1.0, 1.0) * 2f32.powi(exponent);
        }
    }
    x
}

fn main() -> Result<(), Error> {
    if std::env::var_os("QUANTIZE_PTX").is_some() {
        println!("{}", quantize::quantize_128::PTX);
    }
    let asked: Option<usize> = std::env::args().nth(1).and_then(|a| a.parse().ok());
    let dev = Device::new(0)?;
    println!("device: {}", dev.name()?);
    let largest = match asked {
        Some(n) => n,
        None if dev.is_cpu() => (1 << 20) + 3,
        None => LARGEST,
    };
    let mut sizes = vec![0, 1, 31, 127, 129, 4096, (1 << 20) + 3, largest];
    sizes.retain(|n| *n <= largest);
    sizes.dedup();
    for n in sizes {
        let x = inputs(n);
        for variant in &quantize::VARIANTS {
            check(&dev, &x, variant)?;
        }
    }
    println!(
        "OK: fp8 e4m3 quantization and dequantization (blocks of 32 and 128; 4, 8 and 16 elements per lane) match the host reference bit for bit at every size"
    );
    Ok(())
}
