//! The two fused ops of a LLaMA block's input, as tile-kernel kernels and
//! candle ops: RMSNorm in bf16 (`y = bf16(x / sqrt(mean(x^2) + eps) * w)`,
//! computed in f32) and vLLM's dynamic per-token fp8 quantization (`scale =
//! max(absmax / 448, 1 / (448 * 512))` per row, `q = e4m3(x / scale)`,
//! saturating). The kernels are those of the workspace's
//! `examples/rms_norm.rs` and `examples/quantize_per_token.rs` (one CTA per
//! row, the row in registers; a kernel for rows of up to 4096 columns and
//! one for up to 8192; N a multiple of 8); the op types pick one by the
//! row length. Shared by the crate's example and tests (`#[path]`), with
//! `cta.rs` of the workspace's examples.

use tile_kernel::prelude::*;
use tile_kernel_candle::{Kernel, Scalar, TileOp};

use crate::cta::cta_sum;

/// `$name`: `$warps` warps (`$block` threads), 16 values a thread; thread
/// (w, l) holds columns `256 * $warps * j + 256 w + 8 l .. + 8` of x and of
/// w, 0 past N.
macro_rules! rms_norm_kernel {
    ($name:ident, block = $block:tt, warps = $warps:tt, steps = $steps:tt) => {
        #[tile_kernel(grid = M, block = $block)]
        pub fn $name(x: Tensor<bf16, M, N>, w: Tensor<bf16, N>, y: Tensor<bf16, M, N>, eps: f32) {
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

/// `$name`: `$warps` warps (`$block` threads), 16 values a thread; thread
/// (w, l) holds columns `256 * $warps * j + 256 w + 8 l .. + 8`, 0 past N.
macro_rules! quantize_kernel {
    ($name:ident, block = $block:tt, warps = $warps:tt) => {
        #[tile_kernel(grid = M, block = $block)]
        pub fn $name(x: Tensor<bf16, M, N>, q: Tensor<u8, M, N>, scales: Tensor<f32, M>) {
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

/// The kernel of a pair (rows of up to 4096 columns, up to 8192) for rows
/// of the input's last dim, or an error naming the op.
fn by_row_length(
    op: &str,
    inputs: &[&[usize]],
    short: &'static Kernel,
    long: &'static Kernel,
) -> candle::Result<&'static Kernel> {
    match inputs.first().and_then(|shape| shape.last()) {
        Some(&n) if n <= 4096 => Ok(short),
        Some(&n) if n <= 8192 => Ok(long),
        Some(&n) => candle::bail!("op `{op}`: rows of {n} columns are longer than 8192"),
        None => candle::bail!("op `{op}`: the input has no columns"),
    }
}

/// RMSNorm of `x` bf16 [M, N] with weight `w` bf16 [N]: one output, so a
/// `CustomOp2`: `x.apply_op2_no_bwd(&w, &CandleOp(RmsNorm { eps }))`.
pub struct RmsNorm {
    pub eps: f32,
}

impl TileOp for RmsNorm {
    fn name(&self) -> &'static str {
        "tile-kernel-rms-norm"
    }

    fn kernel(&self, inputs: &[&[usize]]) -> candle::Result<&'static Kernel> {
        by_row_length(
            self.name(),
            inputs,
            &rms_norm_4k::KERNEL,
            &rms_norm_8k::KERNEL,
        )
    }

    fn scalars(&self) -> Vec<Scalar> {
        vec![Scalar::F32(self.eps)]
    }
}

/// Per-token fp8 quantization of `x` bf16 [M, N]: two outputs, the e4m3
/// bytes `q` u8 [M, N] and the scales f32 [M], so it runs through
/// `tile_kernel_candle::call(&QuantizePerToken, &[&x])`.
pub struct QuantizePerToken;

impl TileOp for QuantizePerToken {
    fn name(&self) -> &'static str {
        "tile-kernel-quantize-per-token"
    }

    fn kernel(&self, inputs: &[&[usize]]) -> candle::Result<&'static Kernel> {
        by_row_length(
            self.name(),
            inputs,
            &quantize_4k::KERNEL,
            &quantize_8k::KERNEL,
        )
    }
}
