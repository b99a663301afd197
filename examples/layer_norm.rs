//! Layer normalization forward of an f32 [M, N] tensor with weight and bias
//! (Triton's layer-norm tutorial): one CTA per row, the row kept in
//! registers (16 values a thread), `mean = sum / N` and `var = sum((x -
//! mean)^2) / N` with warp butterflies, a shared buffer of the warps' sums
//! and a barrier, `rstd = 1 / sqrt(var + eps)` (`sqrt.rn` and `rcp.rn`),
//! `y = (x - mean) * rstd * w + b`; the row's mean and rstd are stored too,
//! as Triton's kernel does. Two sizes of the same kernel: `layer_norm_4k`
//! (256 threads: rows of up to 4096 columns) and `layer_norm_8k` (512
//! threads: up to 8192); N a multiple of 4. Checked against an f64 host
//! reference; on a GPU, timed on the device's stream.
//!
//! `cargo run --release --example layer_norm [M N]` (default 16384 x 4096
//! and 8192 x 8192 on a GPU, a few small shapes on the CPU interpreter).

#[path = "common/cta.rs"]
mod cta;
#[path = "common/rows.rs"]
mod rows;

use cta::cta_sum;
use tile_kernel::prelude::*;

/// `$name`: `$warps` warps (`$block` threads), `$per` values a thread;
/// thread (w, l) holds columns `128 * $warps * j + 128 w + 4 l .. + 4`, 0
/// past N.
macro_rules! layer_norm_kernel {
    ($name:ident, block = $block:tt, warps = $warps:tt, per = $per:tt, steps = $steps:tt) => {
        #[tile_kernel(grid = M, block = $block)]
        #[allow(clippy::too_many_arguments)]
        fn $name(
            x: Tensor<f32, M, N>,
            w: Tensor<f32, N>,
            b: Tensor<f32, N>,
            y: Tensor<f32, M, N>,
            mean: Tensor<f32, M>,
            rstd: Tensor<f32, M>,
            eps: f32,
        ) {
            let row = cta_id(0);
            let v = alloc_local::<f32>([32, $per], scope = "warp");
            let s = alloc_local::<f32>([32, 1], scope = "warp");
            let t = alloc_local::<f32>([32, 1], scope = "warp");
            let mu = alloc_local::<f32>([32, 1], scope = "warp");
            let wb = alloc_local::<f32>([2, 4, 1]);
            let sums = alloc_shared::<f32>([$warps]);
            let squares = alloc_shared::<f32>([$warps]);
            let add = |a: f32, b: f32| a + b;
            ewise(|| 0.0f32, v, scope = "warp");
            for j in 0..$per / 4 {
                let c = j * (128 * $warps) + warp_id() * 128 + lane_id() * 4;
                let part = v.slice(s![lane_id(), j * 4..j * 4 + 4]).reshape([1, 4]);
                let at = x.slice(s![row..row + 1, c..c + 4]);
                apply(
                    ptx["ld.global.v4.f32"],
                    part,
                    at,
                    pred = c + 4 <= N,
                    preserve_dst = true,
                );
            }
            // The mean: the thread's sum, the warp's, then all warps'.
            ewise(|a: f32| a, s, v.slice(s![.., 0..1]), scope = "warp");
            for k in 1..$per {
                ewise(add, s, s, v.slice(s![.., k..k + 1]), scope = "warp");
            }
            cta_sum(s, t, sums, $warps, $steps);
            let me = s.slice(s![lane_id(), ..]);
            ewise(|a: f32| a / (N as f32), mu, s, scope = "warp");
            // x - mean where the row has values (0 stays 0), then the
            // variance the same way.
            for j in 0..$per / 4 {
                let c = j * (128 * $warps) + warp_id() * 128 + lane_id() * 4;
                if c + 4 <= N {
                    let part = v.slice(s![lane_id(), j * 4..j * 4 + 4]).unsqueeze(-1);
                    let m = mu.slice(s![lane_id(), ..]).unsqueeze(-1).broadcast([4, 1]);
                    ewise(|a: f32, m: f32| a - m, part, part, m);
                }
            }
            ewise(|a: f32| a * a, s, v.slice(s![.., 0..1]), scope = "warp");
            for k in 1..$per {
                let square = |q: f32, a: f32| fma(a, a, q);
                ewise(square, s, s, v.slice(s![.., k..k + 1]), scope = "warp");
            }
            cta_sum(s, t, squares, $warps, $steps);
            // rstd = 1 / sqrt(var + eps), in s.
            ewise(
                |a: f32| (a / (N as f32) + eps).sqrt().recip(),
                s,
                s,
                scope = "warp",
            );
            if warp_id() == 0 {
                let first = lane_id() == 0;
                let mu = mu.slice(s![lane_id(), ..]);
                apply(
                    ptx["st.global.f32"],
                    mean.slice(s![row..row + 1]),
                    mu,
                    pred = first,
                );
                apply(
                    ptx["st.global.f32"],
                    rstd.slice(s![row..row + 1]),
                    me,
                    pred = first,
                );
            }
            // y = (x - mean) * rstd * w + b.
            for j in 0..$per / 4 {
                let c = j * (128 * $warps) + warp_id() * 128 + lane_id() * 4;
                let inside = c + 4 <= N;
                let part = v.slice(s![lane_id(), j * 4..j * 4 + 4]).unsqueeze(-1);
                let wj = wb.slice(s![0, .., ..]);
                let bj = wb.slice(s![1, .., ..]);
                apply(
                    ptx["ld.global.v4.f32"],
                    wj.reshape([1, 4]),
                    w.slice(s![c..c + 4]).reshape([1, 4]),
                    pred = inside,
                );
                apply(
                    ptx["ld.global.v4.f32"],
                    bj.reshape([1, 4]),
                    b.slice(s![c..c + 4]).reshape([1, 4]),
                    pred = inside,
                );
                let r = me.unsqueeze(-1).broadcast([4, 1]);
                ewise(
                    |d: f32, r: f32, w: f32, b: f32| fma(d * r, w, b),
                    part,
                    part,
                    r,
                    wj,
                    bj,
                );
                let at = y.slice(s![row..row + 1, c..c + 4]);
                apply(
                    ptx["st.global.v4.f32"],
                    at,
                    part.reshape([1, 4]),
                    pred = inside,
                );
            }
        }
    };
}

layer_norm_kernel!(layer_norm_4k, block = 256, warps = 8, per = 16, steps = 3);
layer_norm_kernel!(layer_norm_8k, block = 512, warps = 16, per = 16, steps = 4);

type Kernel = fn(
    &Device,
    &DeviceTensor<f32>,
    &DeviceTensor<f32>,
    &DeviceTensor<f32>,
    &mut DeviceTensor<f32>,
    &mut DeviceTensor<f32>,
    &mut DeviceTensor<f32>,
    f32,
) -> Result<(), Error>;

/// The kernels with the longest row each holds.
const KERNELS: [(&str, usize, Kernel); 2] = [
    ("layer_norm_4k", 4096, layer_norm_4k),
    ("layer_norm_8k", 8192, layer_norm_8k),
];

/// Deterministic values in (-8, 8) plus an offset of 0, 50, .., 200 by row
/// (a one-pass variance would lose digits to the mean).
fn values(n: usize, seed: u64, scale: f32, offset: impl Fn(usize) -> f32) -> Vec<f32> {
    let mut state = seed;
    (0..n)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ((state >> 40) as f32 / (1u64 << 23) as f32 - 1.0) * scale + offset(i)
        })
        .collect()
}

/// Runs every kernel that holds rows of `n` and checks it; on a GPU, times it.
fn check(dev: &Device, m: usize, n: usize) -> Result<(), Error> {
    let eps = 1e-5f32;
    let hx = values(m * n, 0x9e37_79b9_7f4a_7c15, 8.0, |i| {
        (i / n % 5) as f32 * 50.0
    });
    let hw = values(n, 0x2545_f491_4f6c_dd1d, 1.0, |_| 1.0);
    let hb = values(n, 0x1234_5678_9abc_def1, 0.5, |_| 0.0);
    let x = dev.upload(&hx, [m, n])?;
    let w = dev.upload(&hw, [n])?;
    let b = dev.upload(&hb, [n])?;
    for (name, _, kernel) in KERNELS.into_iter().filter(|k| k.1 >= n) {
        let mut y = dev.upload(&vec![f32::NAN; m * n], [m, n])?;
        let mut mean = dev.upload(&vec![f32::NAN; m], [m])?;
        let mut rstd = dev.upload(&vec![f32::NAN; m], [m])?;
        kernel(dev, &x, &w, &b, &mut y, &mut mean, &mut rstd, eps)?;
        let (got, got_mean, got_rstd) = (y.download()?, mean.download()?, rstd.download()?);
        // Each output is within 2e-6 (|x_hat| + |mean| rstd) |w| + |b| of
        // the f64 value: a few ulp of f32 over the sums, sqrt and
        // reciprocal, and the mean's rounding, which x - mean carries.
        let mut worst = 0f64;
        for r in 0..m {
            let row: Vec<f64> = hx[r * n..(r + 1) * n]
                .iter()
                .map(|&v| f64::from(v))
                .collect();
            let mu = row.iter().sum::<f64>() / n as f64;
            let var = row.iter().map(|v| (v - mu) * (v - mu)).sum::<f64>() / n as f64;
            let rs = 1.0 / (var + f64::from(eps)).sqrt();
            let mean_err = (f64::from(got_mean[r]) - mu).abs();
            assert!(mean_err <= 1e-6 * (mu.abs() + 1.0), "{name}, row {r}: mean");
            let rstd_err = (f64::from(got_rstd[r]) - rs).abs();
            assert!(rstd_err <= 2e-6 * rs, "{name}, row {r}: rstd");
            for c in 0..n {
                let (wc, bc) = (f64::from(hw[c]), f64::from(hb[c]));
                let xhat = (row[c] - mu) * rs;
                let want = xhat * wc + bc;
                let have = f64::from(got[r * n + c]);
                let bound = (xhat.abs() + mu.abs() * rs) * wc.abs() + bc.abs();
                assert!(
                    (have - want).abs() <= 2e-6 * bound,
                    "{name}, row {r}, column {c}: kernel {have:e}, reference {want:e}"
                );
                worst = worst.max((have - want).abs() / bound);
            }
        }
        if !dev.is_cpu() {
            let runs: u32 = 20;
            let ms = dev.time(|| {
                for _ in 0..runs {
                    kernel(dev, &x, &w, &b, &mut y, &mut mean, &mut rstd, eps)?;
                }
                Ok(())
            })? / f64::from(runs);
            let gbs = (2 * m * n * 4) as f64 / ms / 1e6;
            println!("{name} {m} x {n} f32: {ms:.4} ms, {gbs:.1} GB/s (x read + y written)");
        }
        println!("OK: {name} {m} x {n} within 2e-6 of the f64 reference (worst {worst:.2e})");
    }
    Ok(())
}

fn main() -> Result<(), Error> {
    // LAYER_NORM_PTX=layer_norm_8k (a kernel's name) prints its PTX.
    rows::main(
        "LAYER_NORM_PTX",
        &[
            ("layer_norm_4k", layer_norm_4k::PTX),
            ("layer_norm_8k", layer_norm_8k::PTX),
        ],
        &[(64, 1000), (3, 8192), (5, 4)],
        &[(16384, 4096), (8192, 8192), (1000, 1000)],
        check,
    )
}
