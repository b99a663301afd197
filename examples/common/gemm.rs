//! What the GEMM examples share: inputs, the check against an f64
//! reference, and the timing loop.

use std::time::Instant;
use tile_kernel::prelude::*;

/// A kernel of a GEMM example, `C = A B^T` (bf16 in, f32 out), and its
/// name.
pub type Gemm = (
    &'static str,
    fn(
        &Device,
        &DeviceTensor<bf16>,
        &DeviceTensor<bf16>,
        &mut DeviceTensor<f32>,
    ) -> Result<(), Error>,
);

/// `n` bf16 values in [-1, 1) from an xorshift of `seed`.
pub fn inputs(n: usize, seed: u64) -> Vec<bf16> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            bf16::from_f32(((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0)
        })
        .collect()
}

/// Runs `m x n x k` and checks every element against an f64 reference
/// with a K-scaled tolerance, |C - ref| <= 2^-20 * k (the inputs are in
/// [-1, 1); each of the K / 16 fused steps of the tensor cores truncates
/// its terms 25 bits below the largest and rounds toward zero).
pub fn check(dev: &Device, (name, gemm): Gemm, m: usize, n: usize, k: usize) -> Result<(), Error> {
    let ha = inputs(m * k, 0x6e11 + (m * n * k) as u64);
    let hb = inputs(n * k, 0x7e11 + (m * n * k) as u64);
    let a = dev.upload(&ha, [m, k])?;
    let b = dev.upload(&hb, [n, k])?;
    let mut c = dev.upload(&vec![f32::NAN; m * n], [m, n])?;
    gemm(dev, &a, &b, &mut c)?;
    let got = c.download()?;
    let bound = (k as f64) * 2f64.powi(-20);
    let mut worst = 0f64;
    for i in 0..m {
        for j in 0..n {
            let want: f64 = (0..k)
                .map(|kk| f64::from(ha[i * k + kk].to_f32()) * f64::from(hb[j * k + kk].to_f32()))
                .sum();
            let err = (f64::from(got[i * n + j]) - want).abs();
            worst = worst.max(err);
            assert!(
                err <= bound,
                "{name} {m} x {n} x {k}: C[{i}, {j}] = {} but the reference is {want}",
                got[i * n + j]
            );
        }
    }
    println!(
        "OK: {name} {m} x {n} x {k} within {bound:.1e} of the f64 reference (worst {worst:.2e})"
    );
    Ok(())
}

/// The awkward shapes every GEMM example checks (tails on every side).
pub const SHAPES: [(usize, usize, usize); 6] = [
    (64, 64, 32),
    (1, 1, 8),
    (70, 33, 40),
    (130, 200, 96),
    (17, 129, 264),
    (257, 131, 72),
];

/// Checks `kernels` at `[M N K]` from the command line, or at [`SHAPES`];
/// then, on a GPU and without arguments, checks each at 512 x 384 x 1024
/// and times it at 4096^3 (3 warm-up launches, the mean of 20).
pub fn run(kernels: &[Gemm]) -> Result<(), Error> {
    let dev = Device::new(0)?;
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let shapes: Vec<(usize, usize, usize)> = match args[..] {
        [m, n, k] => vec![(m, n, k)],
        _ => SHAPES.to_vec(),
    };
    for &gemm in kernels {
        for &(m, n, k) in &shapes {
            check(&dev, gemm, m, n, k)?;
        }
    }
    if dev.is_cpu() || args.len() == 3 {
        return Ok(());
    }
    time_kernels(kernels)
}

/// On the GPU: checks each of `kernels` at 512 x 384 x 1024 and times it at
/// 4096^3 (3 warm-up launches, the mean of 20).
pub fn time_kernels(kernels: &[Gemm]) -> Result<(), Error> {
    let dev = Device::new(0)?;
    let (m, n, k) = (4096, 4096, 4096);
    let a = dev.upload(&inputs(m * k, 1), [m, k])?;
    let b = dev.upload(&inputs(n * k, 2), [n, k])?;
    let mut c = dev.zeros::<f32>([m, n])?;
    for &(name, gemm) in kernels {
        check(&dev, (name, gemm), 512, 384, 1024)?;
        for _ in 0..3 {
            gemm(&dev, &a, &b, &mut c)?;
        }
        dev.synchronize()?;
        let runs = 20;
        let start = Instant::now();
        for _ in 0..runs {
            gemm(&dev, &a, &b, &mut c)?;
        }
        dev.synchronize()?;
        let seconds = start.elapsed().as_secs_f64() / f64::from(runs);
        println!(
            "{name} {m} x {n} x {k}: {:.3} ms, {:.1} TFLOP/s",
            seconds * 1e3,
            2.0 * (m * n * k) as f64 / seconds / 1e12
        );
    }
    Ok(())
}
