//! Row softmax of an f32 [M, N] tensor (Triton's fused-softmax tutorial):
//! one CTA per row, the row kept in registers, the row's max and sum
//! reduced with warp butterflies, a shared buffer of the warps' values and a
//! barrier, `exp(x - max)` as `ex2.approx((x - max) * log2 e)`, and the
//! scaling by one reciprocal. Two sizes of the same kernel: `softmax_8k`
//! (512 threads, 16 values a thread: rows of up to 8192 columns) and
//! `softmax_32k` (1024 threads, 32 values a thread: up to 32768); N a
//! multiple of 4. Checked against an f64 host softmax; on a GPU, timed on
//! the device's stream.
//!
//! `cargo run --release --example softmax [M N]` (default 16384 x 4096,
//! 8192 x 8192 and 1024 x 32768 on a GPU, small shapes on the interpreter).

#[path = "common/cta.rs"]
mod cta;
#[path = "common/rows.rs"]
mod rows;

use cta::{cta_max, cta_sum};
use tile_kernel::prelude::*;

/// `$name`: `$warps` warps (`$block` threads), `$per` values a thread; thread (w, l) holds
/// columns `128 * $warps * j + 128 w + 4 l .. + 4`, -inf past N.
macro_rules! softmax_kernel {
    ($name:ident, block = $block:tt, warps = $warps:tt, per = $per:tt, steps = $steps:tt) => {
        #[tile_kernel(grid = M, block = $block)]
        fn $name(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>) {
            let row = cta_id(0);
            let v = alloc_local::<f32>([32, $per], scope = "warp");
            let m = alloc_local::<f32>([32, 1], scope = "warp");
            let t = alloc_local::<f32>([32, 1], scope = "warp");
            let maxes = alloc_shared::<f32>([$warps]);
            let sums = alloc_shared::<f32>([$warps]);
            let fmax = |a: f32, b: f32| max(a, b);
            let add = |a: f32, b: f32| a + b;
            ewise(|| f32::NEG_INFINITY, v, scope = "warp");
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
            // The row's max: the thread's, the warp's, then all warps'.
            ewise(|a: f32| a, m, v.slice(s![.., 0..1]), scope = "warp");
            for k in 1..$per {
                ewise(fmax, m, m, v.slice(s![.., k..k + 1]), scope = "warp");
            }
            cta_max(m, t, maxes, $warps, $steps);
            // e = exp(x - max), then the row's sum the same way.
            let each = m.unsqueeze(-1).broadcast([32, $per, 1]);
            let exp = |a: f32, mx: f32| ex2_approx((a - mx) * f32::consts::LOG2_E);
            ewise(exp, v.unsqueeze(-1), v.unsqueeze(-1), each, scope = "warp");
            ewise(|a: f32| a, m, v.slice(s![.., 0..1]), scope = "warp");
            for k in 1..$per {
                ewise(add, m, m, v.slice(s![.., k..k + 1]), scope = "warp");
            }
            cta_sum(m, t, sums, $warps, $steps);
            // y = e * (1 / sum).
            ewise(|s: f32| s.recip(), m, m, scope = "warp");
            let scale = |e: f32, r: f32| e * r;
            ewise(
                scale,
                v.unsqueeze(-1),
                v.unsqueeze(-1),
                each,
                scope = "warp",
            );
            for j in 0..$per / 4 {
                let c = j * (128 * $warps) + warp_id() * 128 + lane_id() * 4;
                let part = v.slice(s![lane_id(), j * 4..j * 4 + 4]).reshape([1, 4]);
                let at = y.slice(s![row..row + 1, c..c + 4]);
                apply(ptx["st.global.v4.f32"], at, part, pred = c + 4 <= N);
            }
        }
    };
}

softmax_kernel!(softmax_4k, block = 256, warps = 8, per = 16, steps = 3);
softmax_kernel!(softmax_8k, block = 512, warps = 16, per = 16, steps = 4);
softmax_kernel!(softmax_32k, block = 1024, warps = 32, per = 32, steps = 5);

type Kernel = fn(&Device, &DeviceTensor<f32>, &mut DeviceTensor<f32>) -> Result<(), Error>;

/// The kernels with the longest row each holds.
const KERNELS: [(&str, usize, Kernel); 3] = [
    ("softmax_4k", 4096, softmax_4k),
    ("softmax_8k", 8192, softmax_8k),
    ("softmax_32k", 32768, softmax_32k),
];

/// Deterministic values in (-8, 8) plus 0, 25, .., 100 by row (exp(100)
/// overflows f32: the max must be subtracted).
fn inputs(m: usize, n: usize) -> Vec<f32> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    (0..m * n)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 20) as f32 - 8.0 + (i / n % 5) as f32 * 25.0
        })
        .collect()
}

/// Runs every kernel that holds rows of `n` and checks it; on a GPU, times it.
fn check(dev: &Device, m: usize, n: usize) -> Result<(), Error> {
    let host = inputs(m, n);
    let x = dev.upload(&host, [m, n])?;
    let mut y = dev.upload(&vec![f32::NAN; m * n], [m, n])?;
    for (name, _, kernel) in KERNELS.into_iter().filter(|k| k.1 >= n) {
        kernel(dev, &x, &mut y)?;
        let got = y.download()?;
        // ex2.approx is within 2 ulp, the sums and the reciprocal add a few
        // more: a relative error of 1e-5 per element (and 1e-12 absolute for
        // underflowing elements) is far above the kernel's and far below a bug.
        let mut worst = 0f64;
        for r in 0..m {
            let row = &host[r * n..(r + 1) * n];
            let max = row
                .iter()
                .fold(f64::NEG_INFINITY, |a, &b| a.max(f64::from(b)));
            let sum: f64 = row.iter().map(|&v| (f64::from(v) - max).exp()).sum();
            for (c, &v) in row.iter().enumerate() {
                let want = (f64::from(v) - max).exp() / sum;
                let have = f64::from(got[r * n + c]);
                let err = (have - want).abs();
                assert!(
                    err <= 1e-5 * want + 1e-12,
                    "{name}, row {r}, column {c}: kernel {have:e}, reference {want:e}"
                );
                worst = worst.max(err / want.max(1e-30));
            }
        }
        if !dev.is_cpu() {
            let runs: u32 = 20;
            let ms = dev.time(|| {
                for _ in 0..runs {
                    kernel(dev, &x, &mut y)?;
                }
                Ok(())
            })? / f64::from(runs);
            let gbs = 2.0 * (m * n * 4) as f64 / ms / 1e6;
            println!("{name} {m} x {n} f32: {ms:.4} ms, {gbs:.1} GB/s (read + write)");
        }
        println!(
            "OK: {name} {m} x {n} within 1e-5 relative of the f64 reference (worst {worst:.2e})"
        );
    }
    Ok(())
}

fn main() -> Result<(), Error> {
    // SOFTMAX_PTX=softmax_8k (a kernel's name) prints its PTX.
    rows::main(
        "SOFTMAX_PTX",
        &[
            ("softmax_4k", softmax_4k::PTX),
            ("softmax_8k", softmax_8k::PTX),
            ("softmax_32k", softmax_32k::PTX),
        ],
        &[(64, 1000), (3, 8192), (5, 4), (2, 8196), (2, 32768)],
        &[(16384, 4096), (8192, 8192), (1024, 32768), (1000, 1000)],
        check,
    )
}
