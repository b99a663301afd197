//! Dynamic per-token fp8 quantization (vLLM's): for each row of a bf16
//! [M, N] tensor, `scale = max(absmax / 448, 1 / (448 * 512))` (stored as an
//! f32 per row) and `q = e4m3(x / scale)`, saturating. One CTA per row, the
//! row kept in registers (16 values a thread), the absmax reduced with
//! `redux.sync.max.u32` on the bits of |x| (non-negative floats order like
//! their bits), a shared buffer of the warps' maxima and a barrier. Two
//! sizes of the same kernel: `quantize_4k` (256 threads: rows of up to 4096
//! columns) and `quantize_8k` (512 threads: up to 8192); N a multiple of 8.
//! Checked bit for bit against a host reference on the `float8` crate; on
//! a GPU, timed on the device's stream.
//!
//! `cargo run --release --example quantize_per_token [M N]` (default
//! 16384 x 4096 and 8192 x 8192 on a GPU, small shapes on the interpreter).

use float8::F8E4M3;
#[path = "common/rows.rs"]
mod rows;

use tile_kernel::prelude::*;

/// `$name`: `$warps` warps (`$block` threads), 16 values a thread; thread
/// (w, l) holds columns `256 * $warps * j + 256 w + 8 l .. + 8`, 0 past N.
macro_rules! quantize_kernel {
    ($name:ident, block = $block:tt, warps = $warps:tt) => {
        #[tile_kernel(grid = M, block = $block)]
        fn $name(x: Tensor<bf16, M, N>, q: Tensor<u8, M, N>, scales: Tensor<f32, M>) {
            let row = cta_id(0);
            let h = alloc_local::<bf16>([32, 16], scope = "warp");
            let bits = alloc_local::<u32>([32, 16], scope = "warp");
            let scale = alloc_local::<f32>([32, 1], scope = "warp");
            let d = alloc_local::<u16>([32, 8], scope = "warp");
            let maxes = alloc_shared::<u32>([$warps]);
            ewise(|| 0.0, h, scope = "warp");
            for j in 0..2 {
                let c = j * (256 * $warps) + warp_id() * 256 + lane_id() * 8;
                let hj = h
                    .view::<u32>()
                    .slice(s![lane_id(), j * 4..j * 4 + 4])
                    .reshape([1, 4]);
                let xj = x.slice(s![row..row + 1, c..c + 8]).view::<u32>();
                apply(
                    ptx["ld.global.v4.b32"],
                    hj,
                    xj,
                    pred = c + 8 <= N,
                    preserve_dst = true,
                );
            }
            // The row's absmax as the bits of an f32: the thread's, the
            // warp's, then all warps'.
            ewise(
                |a: bf16| (a as f32).abs().to_bits(),
                bits,
                h,
                scope = "warp",
            );
            for step in 0..4 {
                let half = 8 >> step;
                let low = bits.slice(s![.., 0..half]);
                let high = bits.slice(s![.., half..2 * half]);
                ewise(|a: u32, b: u32| max(a, b), low, low, high, scope = "warp");
            }
            let m = bits.slice(s![.., 0..1]);
            apply(ptx["redux.sync.max.u32"], m, m, scope = "warp");
            let me = m.slice(s![lane_id(), ..]);
            let i = warp_id();
            apply(
                ptx["st.shared.u32"],
                maxes.slice(s![i..i + 1]),
                me,
                pred = lane_id() == 0,
            );
            apply(ptx["bar.sync"], 0, scope = "cta");
            let l = lane_id() % $warps;
            apply(ptx["ld.shared.u32"], me, maxes.slice(s![l..l + 1]));
            apply(ptx["redux.sync.max.u32"], m, m, scope = "warp");
            let floor = |a: u32| max(f32::from_bits(a) / 448.0, 1.0 / (448.0f32 * 512.0));
            ewise(floor, scale, m, scope = "warp");
            if warp_id() == 0 {
                let at = scales.slice(s![row..row + 1]);
                apply(
                    ptx["st.global.f32"],
                    at,
                    scale.slice(s![lane_id(), ..]),
                    pred = lane_id() == 0,
                );
            }
            // Element 2i in the low byte of pair i: the packing cvt puts its
            // first source in the high byte.
            let pairs = h.reshape([32, 8, 2]);
            ewise(
                |lo: bf16, hi: bf16, s: f32| {
                    ptx["cvt.rn.satfinite.e4m3x2.f32"]((hi as f32) / s, (lo as f32) / s)
                },
                d.unsqueeze(-1),
                pairs.slice(s![.., .., 0..1]),
                pairs.slice(s![.., .., 1..2]),
                scale.unsqueeze(-1).broadcast([32, 8, 1]),
                scope = "warp",
            );
            for j in 0..2 {
                let c = j * (256 * $warps) + warp_id() * 256 + lane_id() * 8;
                let dj = d
                    .view::<u32>()
                    .slice(s![lane_id(), j * 2..j * 2 + 2])
                    .reshape([1, 2]);
                let at = q.slice(s![row..row + 1, c..c + 8]).view::<u32>();
                apply(ptx["st.global.v2.b32"], at, dj, pred = c + 8 <= N);
            }
        }
    };
}

quantize_kernel!(quantize_4k, block = 256, warps = 8);
quantize_kernel!(quantize_8k, block = 512, warps = 16);

type Kernel = fn(
    &Device,
    &DeviceTensor<bf16>,
    &mut DeviceTensor<u8>,
    &mut DeviceTensor<f32>,
) -> Result<(), Error>;

/// The kernels with the longest row each holds.
const KERNELS: [(&str, usize, Kernel); 2] = [
    ("quantize_4k", 4096, quantize_4k),
    ("quantize_8k", 8192, quantize_8k),
];

/// Deterministic bf16 values in (-1, 1) times 1, 10, 100, 1000 by row;
/// every 7th row is zero (its scale is the floor), and one element a row
/// is 4x the row's others.
fn inputs(m: usize, n: usize) -> Vec<bf16> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    (0..m * n)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let (r, c) = (i / n, i % n);
            let unit = (state >> 40) as f32 / (1u64 << 23) as f32 - 1.0;
            let peak = if c == (r * 37) % n { 4.0 } else { 1.0 };
            let scale = if r % 7 == 6 {
                0.0
            } else {
                10f32.powi((r % 4) as i32)
            };
            bf16::from_f32(unit * peak * scale)
        })
        .collect()
}

/// Runs every kernel that holds rows of `n` and checks it; on a GPU, times it.
fn check(dev: &Device, m: usize, n: usize) -> Result<(), Error> {
    let hx = inputs(m, n);
    let x = dev.upload(&hx, [m, n])?;
    for (name, _, kernel) in KERNELS.into_iter().filter(|k| k.1 >= n) {
        let mut q = dev.upload(&vec![0x7fu8; m * n], [m, n])?;
        let mut scales = dev.upload(&vec![f32::NAN; m], [m])?;
        kernel(dev, &x, &mut q, &mut scales)?;
        let (got_q, got_scales) = (q.download()?, scales.download()?);
        for r in 0..m {
            let row = &hx[r * n..(r + 1) * n];
            let absmax = row.iter().fold(0f32, |a, v| a.max(v.to_f32().abs()));
            let scale = (absmax / 448.0).max(1.0f32 / (448.0 * 512.0));
            assert_eq!(
                got_scales[r].to_bits(),
                scale.to_bits(),
                "{name}, row {r}: scale"
            );
            for (c, v) in row.iter().enumerate() {
                let want = F8E4M3::from_f32(v.to_f32() / scale).to_bits();
                assert_eq!(
                    got_q[r * n + c],
                    want,
                    "{name}, row {r}, column {c}: x = {v}"
                );
            }
        }
        if !dev.is_cpu() {
            let runs: u32 = 20;
            let ms = dev.time(|| {
                for _ in 0..runs {
                    kernel(dev, &x, &mut q, &mut scales)?;
                }
                Ok(())
            })? / f64::from(runs);
            let gbs = (m * n * 3 + m * 4) as f64 / ms / 1e6;
            println!(
                "{name} {m} x {n} bf16 -> e4m3: {ms:.4} ms, {gbs:.1} GB/s (x read + q and scales written)"
            );
        }
        println!(
            "OK: {name} {m} x {n}: scales and e4m3 bytes equal the host reference bit for bit"
        );
    }
    Ok(())
}

fn main() -> Result<(), Error> {
    // QUANTIZE_PER_TOKEN_PTX=quantize_8k (a kernel's name) prints its PTX.
    rows::main(
        "QUANTIZE_PER_TOKEN_PTX",
        &[
            ("quantize_4k", quantize_4k::PTX),
            ("quantize_8k", quantize_8k::PTX),
        ],
        &[(64, 1000), (3, 8192), (7, 8)],
        &[(16384, 4096), (8192, 8192), (1000, 1000)],
        check,
    )
}
