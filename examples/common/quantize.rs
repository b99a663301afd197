//! Per-block fp8 (e4m3) quantization with in-kernel scales, and the
//! dequantizer: the kernels of `examples/quantize_e4m3.rs` and of the
//! benchmark. One warp quantizes 128 consecutive elements: lane `l` holds
//! elements `4l .. 4l + 4` of them in a warp tile.
//!
//! For each block of `BLOCK` elements (32 or 128; the last block may be
//! shorter, its missing elements count as 0):
//!
//! - `amax` = the largest `|x|` (f32 bits with the sign cleared, compared
//!   as unsigned integers: non-negative floats order like their bits;
//!   a NaN is larger than every number);
//! - `scale = max(amax, 1e-12) / 448` (`max.f32`: a NaN `amax` gives
//!   1e-12), rounded to nearest;
//! - `q = e4m3(x / scale)`, the division rounded to nearest, the
//!   conversion `cvt.rn.satfinite` (finite overflow saturates to ±448,
//!   NaN stays NaN).
//!
//! The dequantizer computes `y = f32(q) * scale` (exact conversion, the
//! product rounded to nearest).

use tile_kernel::prelude::*;

/// A quantizer for blocks of `$block` elements, lane `l` holding the
/// `$per_lane` consecutive elements `32 * $per_lane * w + $per_lane * l ..`
/// of warp `w`'s chunk (`w = 8 * cta_id(0) + warp_id()`): one block spans
/// `$lanes = $block / $per_lane` lanes, and the warp's chunk holds
/// `$blocks = 32 / $lanes` blocks. The absmax of a block meets in
/// `log2($lanes)` butterfly shuffles (`shfl.sync.bfly` by `$lanes / 2`, ..,
/// 1 stays inside an aligned group of `$lanes` lanes); lane 0 gathers the
/// warp's scales (`shfl.sync.idx` from lane `$lanes * j`) and stores them.
/// `$st` stores a lane's `$per_lane / 4` packed words. `B` = the number of
/// blocks, `ceil_div(N, $block)`.
macro_rules! quantize_kernel {
    ($name:ident, block = $block:tt, per_lane = $per_lane:tt, words = $words:tt,
     lanes = $lanes:tt, shuffles = $shuffles:tt, blocks = $blocks:tt, st = $st:literal) => {
        #[tile_kernel(grid = ceil_div(B, 8 * $blocks), block = 256)]
        pub fn $name(x: Tensor<f32, N>, q: Tensor<u8, N>, scales: Tensor<f32, B>) {
            let w = cta_id(0) * 8 + warp_id();
            let base = w * (32 * $per_lane);
            let first = w * $blocks;
            let v = alloc_local::<f32>([32, $per_lane], scope = "warp");
            let a = alloc_local::<u32>([32, $per_lane], scope = "warp");
            let amax = alloc_local::<u32>([32, 1], scope = "warp");
            let other = alloc_local::<u32>([32, 1], scope = "warp");
            let scale = alloc_local::<f32>([32, 1], scope = "warp");
            let all = alloc_local::<f32>([32, $blocks], scope = "warp");
            let r = alloc_local::<f32>([32, $per_lane], scope = "warp");
            let d = alloc_local::<u16>([32, $per_lane / 2], scope = "warp");
            // The warp's chunk is the same for its 32 lanes, so the
            // collectives below run in whole warps.
            if first < B {
                let chunk = x.slice(s![base..base + 32 * $per_lane]);
                if base + 32 * $per_lane <= N {
                    for j in 0..$per_lane / 4 {
                        apply(
                            ptx["ld.global.v4.f32"],
                            v.slice(s![.., 4 * j..4 * j + 4]),
                            chunk
                                .reshape([32, $per_lane])
                                .slice(s![.., 4 * j..4 * j + 4]),
                            scope = "warp",
                        );
                    }
                } else {
                    apply(
                        ptx["mov.b32"],
                        v.view::<u32>().unsqueeze(-1),
                        0,
                        scope = "warp",
                    );
                    for k in 0..$per_lane {
                        let i = base + lane_id() * $per_lane + k;
                        apply(
                            ptx["ld.global.f32"],
                            v.slice(s![lane_id(), k..k + 1]),
                            x.slice(s![i..i + 1]),
                            pred = i < N,
                            preserve_dst = true,
                        );
                    }
                }
                // |x| as bits (non-negative floats order like their bits,
                // a NaN above every number), the lane's largest.
                apply(
                    ptx["and.b32"],
                    a.unsqueeze(-1),
                    v.view::<u32>().unsqueeze(-1),
                    0x7fff_ffff,
                    scope = "warp",
                );
                apply(
                    ptx["max.u32"],
                    amax,
                    a.slice(s![.., 0..1]),
                    a.slice(s![.., 1..2]),
                    scope = "warp",
                );
                for k in 2..$per_lane {
                    apply(
                        ptx["max.u32"],
                        amax,
                        amax,
                        a.slice(s![.., k..k + 1]),
                        scope = "warp",
                    );
                }
                // The block's largest, across its lanes.
                for step in 0..$shuffles {
                    let offset = ($lanes / 2) >> step;
                    apply(
                        ptx["shfl.sync.bfly.b32"],
                        other,
                        amax,
                        offset,
                        0x1f,
                        scope = "warp",
                    );
                    apply(ptx["max.u32"], amax, amax, other, scope = "warp");
                }
                apply(
                    ptx["max.f32"],
                    scale,
                    amax.view::<f32>(),
                    1e-12,
                    scope = "warp",
                );
                apply(ptx["div.rn.f32"], scale, scale, 448.0, scope = "warp");
                for k in 0..$per_lane {
                    apply(
                        ptx["div.rn.f32"],
                        r.slice(s![.., k..k + 1]),
                        v.slice(s![.., k..k + 1]),
                        scale,
                        scope = "warp",
                    );
                }
                // Element 2j in the low byte of pair j (little-endian).
                let pairs = r.reshape([32, $per_lane / 2, 2]);
                apply(
                    ptx["cvt.rn.satfinite.e4m3x2.f32"],
                    d.unsqueeze(-1),
                    pairs.slice(s![.., .., 1..2]),
                    pairs.slice(s![.., .., 0..1]),
                    scope = "warp",
                );
                if base + 32 * $per_lane <= N {
                    apply(
                        ptx[$st],
                        q.slice(s![base..base + 32 * $per_lane])
                            .view::<u32>()
                            .reshape([32, $words]),
                        d.view::<u32>(),
                        scope = "warp",
                    );
                } else {
                    for k in 0..$per_lane {
                        let i = base + lane_id() * $per_lane + k;
                        apply(
                            ptx["st.global.b8"],
                            q.slice(s![i..i + 1]),
                            d.view::<u8>().slice(s![lane_id(), k..k + 1]),
                            pred = i < N,
                        );
                    }
                }
                // Lane 0 gathers the warp's scales (block j's from lane
                // $lanes * j) and writes them.
                for j in 0..$blocks {
                    let from = j * $lanes;
                    apply(
                        ptx["shfl.sync.idx.b32"],
                        all.view::<u32>().slice(s![.., j..j + 1]),
                        scale.view::<u32>(),
                        from,
                        0x1f,
                        scope = "warp",
                    );
                }
                for j in 0..$blocks {
                    apply(
                        ptx["st.global.f32"],
                        scales.slice(s![first + j..first + j + 1]),
                        all.slice(s![lane_id(), j..j + 1]),
                        pred = lane_id() == 0 && first + j < B,
                    );
                }
            }
        }
    };
}

quantize_kernel!(
    quantize_128_x4,
    block = 128,
    per_lane = 4,
    words = 1,
    lanes = 32,
    shuffles = 5,
    blocks = 1,
    st = "st.global.b32"
);
quantize_kernel!(
    quantize_128_x8,
    block = 128,
    per_lane = 8,
    words = 2,
    lanes = 16,
    shuffles = 4,
    blocks = 2,
    st = "st.global.v2.b32"
);
quantize_kernel!(
    quantize_128_x16,
    block = 128,
    per_lane = 16,
    words = 4,
    lanes = 8,
    shuffles = 3,
    blocks = 4,
    st = "st.global.v4.b32"
);
quantize_kernel!(
    quantize_32_x4,
    block = 32,
    per_lane = 4,
    words = 1,
    lanes = 8,
    shuffles = 3,
    blocks = 4,
    st = "st.global.b32"
);
quantize_kernel!(
    quantize_32_x8,
    block = 32,
    per_lane = 8,
    words = 2,
    lanes = 4,
    shuffles = 2,
    blocks = 8,
    st = "st.global.v2.b32"
);
quantize_kernel!(
    quantize_32_x16,
    block = 32,
    per_lane = 16,
    words = 4,
    lanes = 2,
    shuffles = 1,
    blocks = 16,
    st = "st.global.v4.b32"
);

/// The quantizers tests and docs name: the fastest on the H200, 16 elements
/// per lane (`docs/performance.md`).
#[allow(unused_imports)]
pub use {quantize_32_x16 as quantize_32, quantize_128_x16 as quantize_128};

/// The dequantizer of blocks of `$block`: `y = f32(q) * scale`, lane `l` of
/// warp `w` on the `$per_lane` elements `32 * $per_lane * w + $per_lane * l
/// ..`, with the scale of its block `w * $blocks + l / $lanes`. `$ld`
/// loads a lane's `$per_lane / 4` packed words, `$st` stores its f32 values
/// 4 at a time.
macro_rules! dequantize_kernel {
    ($name:ident, block = $block:tt, per_lane = $per_lane:tt, words = $words:tt,
     lanes = $lanes:tt, blocks = $blocks:tt, ld = $ld:literal) => {
        #[tile_kernel(grid = ceil_div(B, 8 * $blocks), block = 256)]
        pub fn $name(q: Tensor<u8, N>, scales: Tensor<f32, B>, y: Tensor<f32, N>) {
            let w = cta_id(0) * 8 + warp_id();
            let base = w * (32 * $per_lane);
            let first = w * $blocks;
            let packed = alloc_local::<u32>([32, $words], scope = "warp");
            let halves = alloc_local::<u32>([32, $per_lane / 2], scope = "warp");
            let f = alloc_local::<f32>([32, $per_lane], scope = "warp");
            let scale = alloc_local::<f32>([32, 1], scope = "warp");
            if first < B {
                let block = first + lane_id() / $lanes;
                apply(ptx["mov.b32"], scale.view::<u32>(), 0, scope = "warp");
                apply(
                    ptx["ld.global.f32"],
                    scale.slice(s![lane_id(), ..]),
                    scales.slice(s![block..block + 1]),
                    pred = block < B,
                    preserve_dst = true,
                );
                if base + 32 * $per_lane <= N {
                    apply(
                        ptx[$ld],
                        packed,
                        q.slice(s![base..base + 32 * $per_lane])
                            .view::<u32>()
                            .reshape([32, $words]),
                        scope = "warp",
                    );
                } else {
                    apply(ptx["mov.b32"], packed.unsqueeze(-1), 0, scope = "warp");
                    for k in 0..$per_lane {
                        let i = base + lane_id() * $per_lane + k;
                        apply(
                            ptx["ld.global.b8"],
                            packed.view::<u8>().slice(s![lane_id(), k..k + 1]),
                            q.slice(s![i..i + 1]),
                            pred = i < N,
                            preserve_dst = true,
                        );
                    }
                }
                // e4m3 pairs -> f16 pairs (exact) -> f32 (exact), times the scale.
                apply(
                    ptx["cvt.rn.f16x2.e4m3x2"],
                    halves.unsqueeze(-1),
                    packed.view::<u16>().unsqueeze(-1),
                    scope = "warp",
                );
                apply(
                    ptx["cvt.f32.f16"],
                    f.unsqueeze(-1),
                    halves.view::<u16>().unsqueeze(-1),
                    scope = "warp",
                );
                for k in 0..$per_lane {
                    apply(
                        ptx["mul.rn.f32"],
                        f.slice(s![.., k..k + 1]),
                        f.slice(s![.., k..k + 1]),
                        scale,
                        scope = "warp",
                    );
                }
                if base + 32 * $per_lane <= N {
                    for j in 0..$per_lane / 4 {
                        apply(
                            ptx["st.global.v4.f32"],
                            y.slice(s![base..base + 32 * $per_lane])
                                .reshape([32, $per_lane])
                                .slice(s![.., 4 * j..4 * j + 4]),
                            f.slice(s![.., 4 * j..4 * j + 4]),
                            scope = "warp",
                        );
                    }
                } else {
                    for k in 0..$per_lane {
                        let i = base + lane_id() * $per_lane + k;
                        apply(
                            ptx["st.global.f32"],
                            y.slice(s![i..i + 1]),
                            f.slice(s![lane_id(), k..k + 1]),
                            pred = i < N,
                        );
                    }
                }
            }
        }
    };
}

dequantize_kernel!(
    dequantize_128_x4,
    block = 128,
    per_lane = 4,
    words = 1,
    lanes = 32,
    blocks = 1,
    ld = "ld.global.b32"
);
dequantize_kernel!(
    dequantize_128_x8,
    block = 128,
    per_lane = 8,
    words = 2,
    lanes = 16,
    blocks = 2,
    ld = "ld.global.v2.b32"
);
dequantize_kernel!(
    dequantize_128_x16,
    block = 128,
    per_lane = 16,
    words = 4,
    lanes = 8,
    blocks = 4,
    ld = "ld.global.v4.b32"
);
dequantize_kernel!(
    dequantize_32_x4,
    block = 32,
    per_lane = 4,
    words = 1,
    lanes = 8,
    blocks = 4,
    ld = "ld.global.b32"
);
dequantize_kernel!(
    dequantize_32_x8,
    block = 32,
    per_lane = 8,
    words = 2,
    lanes = 4,
    blocks = 8,
    ld = "ld.global.v2.b32"
);
dequantize_kernel!(
    dequantize_32_x16,
    block = 32,
    per_lane = 16,
    words = 4,
    lanes = 2,
    blocks = 16,
    ld = "ld.global.v4.b32"
);

/// The dequantizers tests and docs name: the fastest on the H200, 8 elements
/// per lane (`docs/performance.md`).
#[allow(unused_imports)]
pub use {dequantize_32_x8 as dequantize_32, dequantize_128_x8 as dequantize_128};

/// Every quantizer and dequantizer variant: (name, block size, elements
/// per lane, quantizer, dequantizer), for the example's checks and the
/// benchmark.
pub type Quantize = fn(
    &Device,
    &DeviceTensor<f32>,
    &mut DeviceTensor<u8>,
    &mut DeviceTensor<f32>,
) -> Result<(), Error>;
pub type Dequantize =
    fn(&Device, &DeviceTensor<u8>, &DeviceTensor<f32>, &mut DeviceTensor<f32>) -> Result<(), Error>;
pub const VARIANTS: [(&str, usize, usize, Quantize, Dequantize); 6] = [
    ("/32 x4", 32, 4, quantize_32_x4, dequantize_32_x4),
    ("/32 x8", 32, 8, quantize_32_x8, dequantize_32_x8),
    ("/32 x16", 32, 16, quantize_32_x16, dequantize_32_x16),
    ("/128 x4", 128, 4, quantize_128_x4, dequantize_128_x4),
    ("/128 x8", 128, 8, quantize_128_x8, dequantize_128_x8),
    ("/128 x16", 128, 16, quantize_128_x16, dequantize_128_x16),
];
