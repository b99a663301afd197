//! RMSNorm in bf16 (LLaMA's): `y = bf16(x / sqrt(mean(x^2) + eps) * w)` for
//! x bf16 [M, N] and w bf16 [N], computed in f32 and rounded once. One CTA
//! per row, the row kept in registers (16 values a thread), the sum of
//! squares reduced with warp butterflies, a shared buffer of the warps'
//! sums and a barrier; `1 / sqrt(..)` as `sqrt.rn` and `rcp.rn`. Two sizes
//! of the same kernel: `rms_norm_4k` (256 threads: rows of up to 4096
//! columns) and `rms_norm_8k` (512 threads: up to 8192); N a multiple of 8.
//! Checked against an f64 host reference; on a GPU, timed on the device's
//! stream.
//!
//! `cargo run --release --example rms_norm [M N]` (default 16384 x 4096 and
//! 8192 x 8192 on a GPU, a few small shapes on the CPU interpreter).

#[path = "common/cta.rs"]
mod cta;
#[path = "common/rows.rs"]
mod rows;

use cta::cta_sum;
use tile_kernel::prelude::*;

/// `$name`: `$warps` warps (`$block` threads), 16 values a thread; thread
/// (w, l) holds columns `256 * $warps * j + 256 w + 8 l .. + 8` of x and of
/// w, 0 past N.
macro_rules! rms_norm_kernel {
    ($name:ident, block = $block:tt, warps = $warps:tt, steps = $steps:tt) => {
        #[tile_kernel(grid = M, block = $block)]
        fn $name(x: Tensor<bf16, M, N>, w: Tensor<bf16, N>, y: Tensor<bf16, M, N>, eps: f32) {
            let row = cta_id(0);
            let h = alloc_local::<bf16>([32, 16], scope = "warp");
            let hw = alloc_local::<bf16>([32, 16], scope = "warp");
            let v = alloc_local::<f32>([32, 16], scope = "warp");
            let s = alloc_local::<f32>([32, 1], scope = "warp");
            let t = alloc_local::<f32>([32, 1], scope = "warp");
            let sums = alloc_shared::<f32>([$warps]);
            ewise(|| 0.0, h, scope = "warp");
            ewise(|| 0.0, hw, scope = "warp");
            for j in 0..2 {
                let c = j * (256 * $warps) + warp_id() * 256 + lane_id() * 8;
                let inside = c + 8 <= N;
                let hj = h
                    .view::<u32>()
                    .slice(s![lane_id(), j * 4..j * 4 + 4])
                    .reshape([1, 4]);
                let wj = hw
                    .view::<u32>()
                    .slice(s![lane_id(), j * 4..j * 4 + 4])
                    .reshape([1, 4]);
                let xj = x.slice(s![row..row + 1, c..c + 8]).view::<u32>();
                apply(
                    ptx["ld.global.v4.b32"],
                    hj,
                    xj,
                    pred = inside,
                    preserve_dst = true,
                );
                let at = w.slice(s![c..c + 8]).view::<u32>().reshape([1, 4]);
                apply(
                    ptx["ld.global.v4.b32"],
                    wj,
                    at,
                    pred = inside,
                    preserve_dst = true,
                );
            }
            ewise(|a: bf16| a as f32, v, h, scope = "warp");
            // The row's sum of squares: the thread's, the warp's, all warps'.
            ewise(|a: f32| a * a, s, v.slice(s![.., 0..1]), scope = "warp");
            for k in 1..16 {
                let square = |q: f32, a: f32| fma(a, a, q);
                ewise(square, s, s, v.slice(s![.., k..k + 1]), scope = "warp");
            }
            cta_sum(s, t, sums, $warps, $steps);
            ewise(
                |a: f32| (a / (N as f32) + eps).sqrt().recip(),
                s,
                s,
                scope = "warp",
            );
            ewise(
                |a: f32, r: f32, w: bf16| (a * r * (w as f32)) as bf16,
                h.unsqueeze(-1),
                v.unsqueeze(-1),
                s.unsqueeze(-1).broadcast([32, 16, 1]),
                hw.unsqueeze(-1),
                scope = "warp",
            );
            for j in 0..2 {
                let c = j * (256 * $warps) + warp_id() * 256 + lane_id() * 8;
                let hj = h
                    .view::<u32>()
                    .slice(s![lane_id(), j * 4..j * 4 + 4])
                    .reshape([1, 4]);
                let at = y.slice(s![row..row + 1, c..c + 8]).view::<u32>();
                apply(ptx["st.global.v4.b32"], at, hj, pred = c + 8 <= N);
            }
        }
    };
}

rms_norm_kernel!(rms_norm_4k, block = 256, warps = 8, steps = 3);
rms_norm_kernel!(rms_norm_8k, block = 512, warps = 16, steps = 4);

type Kernel = fn(
    &Device,
    &DeviceTensor<bf16>,
    &DeviceTensor<bf16>,
    &mut DeviceTensor<bf16>,
    f32,
) -> Result<(), Error>;

/// The kernels with the longest row each holds.
const KERNELS: [(&str, usize, Kernel); 2] = [
    ("rms_norm_4k", 4096, rms_norm_4k),
    ("rms_norm_8k", 8192, rms_norm_8k),
];

/// Deterministic bf16 values: `scale` times (-1, 1), plus `offset`.
fn values(n: usize, seed: u64, scale: f32, offset: f32) -> Vec<bf16> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            bf16::from_f32(((state >> 40) as f32 / (1u64 << 23) as f32 - 1.0) * scale + offset)
        })
        .collect()
}

/// Runs every kernel that holds rows of `n` and checks it; on a GPU, times it.
fn check(dev: &Device, m: usize, n: usize) -> Result<(), Error> {
    let eps = 1e-6f32;
    let hx = values(m * n, 0x9e37_79b9_7f4a_7c15, 4.0, 0.0);
    let hw = values(n, 0x2545_f491_4f6c_dd1d, 0.5, 1.0);
    let x = dev.upload(&hx, [m, n])?;
    let w = dev.upload(&hw, [n])?;
    for (name, _, kernel) in KERNELS.into_iter().filter(|k| k.1 >= n) {
        let mut y = dev.upload(&vec![bf16::NAN; m * n], [m, n])?;
        kernel(dev, &x, &w, &mut y, eps)?;
        let got = y.download()?;
        // The f32 result before its rounding to bf16 is within 1e-5 relative
        // of the f64 value; the rounding adds half a bf16 ulp: bf16 results
        // may differ from the rounded f64 value by one ulp where the value
        // lies within 1e-5 of a tie, never more.
        let mut off_by_one = 0usize;
        for r in 0..m {
            let row = &hx[r * n..(r + 1) * n];
            let ss: f64 = row.iter().map(|v| f64::from(v.to_f32()).powi(2)).sum();
            let rs = 1.0 / (ss / n as f64 + f64::from(eps)).sqrt();
            for c in 0..n {
                let want = f64::from(row[c].to_f32()) * rs * f64::from(hw[c].to_f32());
                let have = got[r * n + c];
                if have != bf16::from_f64(want) {
                    let lo = bf16::from_f64(want * (1.0 - 1e-5));
                    let hi = bf16::from_f64(want * (1.0 + 1e-5));
                    assert!(
                        have == lo || have == hi,
                        "{name}, row {r}, column {c}: kernel {have}, reference {want:e}"
                    );
                    off_by_one += 1;
                }
            }
        }
        if !dev.is_cpu() {
            let runs: u32 = 20;
            let ms = dev.time(|| {
                for _ in 0..runs {
                    kernel(dev, &x, &w, &mut y, eps)?;
                }
                Ok(())
            })? / f64::from(runs);
            let gbs = (2 * m * n * 2) as f64 / ms / 1e6;
            println!("{name} {m} x {n} bf16: {ms:.4} ms, {gbs:.1} GB/s (x read + y written)");
        }
        println!(
            "OK: {name} {m} x {n} equals the f64 reference rounded to bf16 ({off_by_one} of {} one ulp off, near ties)",
            m * n
        );
    }
    Ok(())
}

fn main() -> Result<(), Error> {
    // RMS_NORM_PTX=rms_norm_8k (a kernel's name) prints its PTX.
    rows::main(
        "RMS_NORM_PTX",
        &[
            ("rms_norm_4k", rms_norm_4k::PTX),
            ("rms_norm_8k", rms_norm_8k::PTX),
        ],
        &[(64, 1000), (3, 8192), (5, 8)],
        &[(16384, 4096), (8192, 8192), (1000, 1000)],
        check,
    )
}
