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

/// Blocks of 128: the warp's 128 elements are one block, and its absmax
/// is one `redux.sync.max.u32`. `B` = the number of blocks,
/// `ceil_div(N, 128)`; warp `w` of CTA `c` takes block `8c + w`.
#[tile_kernel(grid = ceil_div(B, 8), block = 256)]
pub fn quantize_128(x: Tensor<f32, N>, q: Tensor<u8, N>, scales: Tensor<f32, B>) {
    let b = cta_id(0) * 8 + warp_id();
    let v = alloc_local::<f32>([32, 4], scope = "warp");
    let a = alloc_local::<u32>([32, 4], scope = "warp");
    let m = alloc_local::<u32>([32, 2], scope = "warp");
    let amax = alloc_local::<u32>([32, 1], scope = "warp");
    let scale = alloc_local::<f32>([32, 1], scope = "warp");
    let r = alloc_local::<f32>([32, 4], scope = "warp");
    let d = alloc_local::<u16>([32, 2], scope = "warp");
    // `b` is the same for the 32 lanes of a warp: the collective below
    // runs in whole warps.
    if b < B {
        let base = b * 128;
        if base + 128 <= N {
            // Lane l loads x[base + 4l .. base + 4l + 4].
            apply(
                ptx["ld.global.v4.f32"],
                v,
                x.slice(s![base..base + 128]).reshape([32, 4]),
                scope = "warp",
            );
        } else {
            apply(
                ptx["mov.b32"],
                v.view::<u32>().reshape([32, 4, 1]),
                0,
                scope = "warp",
            );
            for k in 0..4 {
                let i = base + lane_id() * 4 + k;
                apply(
                    ptx["ld.global.f32"],
                    v.slice(s![lane_id(), k..k + 1]),
                    x.slice(s![i..i + 1]),
                    pred = i < N,
                    preserve_dst = true,
                );
            }
        }
        // |x| as bits, the lane's largest, then the warp's.
        apply(
            ptx["and.b32"],
            a.reshape([32, 4, 1]),
            v.view::<u32>().reshape([32, 4, 1]),
            0x7fff_ffff,
            scope = "warp",
        );
        let halves = a.reshape([32, 2, 2]);
        apply(
            ptx["max.u32"],
            m.reshape([32, 2, 1]),
            halves.slice(s![.., .., 0..1]),
            halves.slice(s![.., .., 1..2]),
            scope = "warp",
        );
        apply(
            ptx["max.u32"],
            amax,
            m.slice(s![.., 0..1]),
            m.slice(s![.., 1..2]),
            scope = "warp",
        );
        apply(ptx["redux.sync.max.u32"], amax, amax, scope = "warp");
        apply(
            ptx["max.f32"],
            scale,
            amax.view::<f32>(),
            1e-12,
            scope = "warp",
        );
        apply(ptx["div.rn.f32"], scale, scale, 448.0, scope = "warp");
        for k in 0..4 {
            apply(
                ptx["div.rn.f32"],
                r.slice(s![.., k..k + 1]),
                v.slice(s![.., k..k + 1]),
                scale,
                scope = "warp",
            );
        }
        // Element 2j in the low byte of pair j (little-endian order).
        let pairs = r.reshape([32, 2, 2]);
        apply(
            ptx["cvt.rn.satfinite.e4m3x2.f32"],
            d.reshape([32, 2, 1]),
            pairs.slice(s![.., .., 1..2]),
            pairs.slice(s![.., .., 0..1]),
            scope = "warp",
        );
        if base + 128 <= N {
            apply(
                ptx["st.global.b32"],
                q.slice(s![base..base + 128]).view::<u32>().reshape([32, 1]),
                d.view::<u32>(),
                scope = "warp",
            );
        } else {
            for k in 0..4 {
                let i = base + lane_id() * 4 + k;
                apply(
                    ptx["st.global.b8"],
                    q.slice(s![i..i + 1]),
                    d.view::<u8>().slice(s![lane_id(), k..k + 1]),
                    pred = i < N,
                );
            }
        }
        // One lane writes the block's scale.
        apply(
            ptx["st.global.f32"],
            scales.slice(s![b..b + 1]),
            scale.slice(s![lane_id(), ..]),
            pred = lane_id() == 0,
        );
    }
}

/// Blocks of 32: the warp's 128 elements are 4 blocks, lanes `8j .. 8j + 8`
/// holding block `j`. Each lane's absmax meets its block's in three
/// butterfly shuffles (`shfl.sync.bfly` by 4, 2, 1 stays inside an aligned
/// group of 8 lanes); lane 0 gathers the 4 scales (`shfl.sync.idx`) and
/// writes them with one vector store. `B` = `ceil_div(N, 32)`.
#[tile_kernel(grid = ceil_div(B, 32), block = 256)]
pub fn quantize_32(x: Tensor<f32, N>, q: Tensor<u8, N>, scales: Tensor<f32, B>) {
    let w = cta_id(0) * 8 + warp_id();
    let v = alloc_local::<f32>([32, 4], scope = "warp");
    let a = alloc_local::<u32>([32, 4], scope = "warp");
    let m = alloc_local::<u32>([32, 2], scope = "warp");
    let amax = alloc_local::<u32>([32, 1], scope = "warp");
    let other = alloc_local::<u32>([32, 1], scope = "warp");
    let scale = alloc_local::<f32>([32, 1], scope = "warp");
    let all = alloc_local::<u32>([32, 4], scope = "warp");
    let r = alloc_local::<f32>([32, 4], scope = "warp");
    let d = alloc_local::<u16>([32, 2], scope = "warp");
    if w * 4 < B {
        let base = w * 128;
        if base + 128 <= N {
            apply(
                ptx["ld.global.v4.f32"],
                v,
                x.slice(s![base..base + 128]).reshape([32, 4]),
                scope = "warp",
            );
        } else {
            apply(
                ptx["mov.b32"],
                v.view::<u32>().reshape([32, 4, 1]),
                0,
                scope = "warp",
            );
            for k in 0..4 {
                let i = base + lane_id() * 4 + k;
                apply(
                    ptx["ld.global.f32"],
                    v.slice(s![lane_id(), k..k + 1]),
                    x.slice(s![i..i + 1]),
                    pred = i < N,
                    preserve_dst = true,
                );
            }
        }
        apply(
            ptx["and.b32"],
            a.reshape([32, 4, 1]),
            v.view::<u32>().reshape([32, 4, 1]),
            0x7fff_ffff,
            scope = "warp",
        );
        let halves = a.reshape([32, 2, 2]);
        apply(
            ptx["max.u32"],
            m.reshape([32, 2, 1]),
            halves.slice(s![.., .., 0..1]),
            halves.slice(s![.., .., 1..2]),
            scope = "warp",
        );
        apply(
            ptx["max.u32"],
            amax,
            m.slice(s![.., 0..1]),
            m.slice(s![.., 1..2]),
            scope = "warp",
        );
        // The block's largest, across its 8 lanes.
        apply(
            ptx["shfl.sync.bfly.b32"],
            other,
            amax,
            4,
            0x1f,
            scope = "warp",
        );
        apply(ptx["max.u32"], amax, amax, other, scope = "warp");
        apply(
            ptx["shfl.sync.bfly.b32"],
            other,
            amax,
            2,
            0x1f,
            scope = "warp",
        );
        apply(ptx["max.u32"], amax, amax, other, scope = "warp");
        apply(
            ptx["shfl.sync.bfly.b32"],
            other,
            amax,
            1,
            0x1f,
            scope = "warp",
        );
        apply(ptx["max.u32"], amax, amax, other, scope = "warp");
        apply(
            ptx["max.f32"],
            scale,
            amax.view::<f32>(),
            1e-12,
            scope = "warp",
        );
        apply(ptx["div.rn.f32"], scale, scale, 448.0, scope = "warp");
        for k in 0..4 {
            apply(
                ptx["div.rn.f32"],
                r.slice(s![.., k..k + 1]),
                v.slice(s![.., k..k + 1]),
                scale,
                scope = "warp",
            );
        }
        let pairs = r.reshape([32, 2, 2]);
        apply(
            ptx["cvt.rn.satfinite.e4m3x2.f32"],
            d.reshape([32, 2, 1]),
            pairs.slice(s![.., .., 1..2]),
            pairs.slice(s![.., .., 0..1]),
            scope = "warp",
        );
        if base + 128 <= N {
            apply(
                ptx["st.global.b32"],
                q.slice(s![base..base + 128]).view::<u32>().reshape([32, 1]),
                d.view::<u32>(),
                scope = "warp",
            );
        } else {
            for k in 0..4 {
                let i = base + lane_id() * 4 + k;
                apply(
                    ptx["st.global.b8"],
                    q.slice(s![i..i + 1]),
                    d.view::<u8>().slice(s![lane_id(), k..k + 1]),
                    pred = i < N,
                );
            }
        }
        // Every lane gets the 4 scales (block j's from lane 8j).
        apply(
            ptx["shfl.sync.idx.b32"],
            all.slice(s![.., 0..1]),
            scale.view::<u32>(),
            0,
            0x1f,
            scope = "warp",
        );
        apply(
            ptx["shfl.sync.idx.b32"],
            all.slice(s![.., 1..2]),
            scale.view::<u32>(),
            8,
            0x1f,
            scope = "warp",
        );
        apply(
            ptx["shfl.sync.idx.b32"],
            all.slice(s![.., 2..3]),
            scale.view::<u32>(),
            16,
            0x1f,
            scope = "warp",
        );
        apply(
            ptx["shfl.sync.idx.b32"],
            all.slice(s![.., 3..4]),
            scale.view::<u32>(),
            24,
            0x1f,
            scope = "warp",
        );
        let first = w * 4;
        if first + 4 <= B {
            apply(
                ptx["st.global.v4.f32"],
                scales.slice(s![first..first + 4]),
                all.slice(s![lane_id(), ..]),
                pred = lane_id() == 0,
            );
        } else {
            for j in 0..4 {
                apply(
                    ptx["st.global.f32"],
                    scales.slice(s![first + j..first + j + 1]),
                    all.slice(s![lane_id(), j..j + 1]),
                    pred = lane_id() == 0 && first + j < B,
                );
            }
        }
    }
}

/// The dequantizer of [`quantize_128`]: `y = f32(q) * scale`, lane `l` of
/// warp `w` on elements `128w + 4l .. + 4`.
#[tile_kernel(grid = ceil_div(B, 8), block = 256)]
pub fn dequantize_128(q: Tensor<u8, N>, scales: Tensor<f32, B>, y: Tensor<f32, N>) {
    let b = cta_id(0) * 8 + warp_id();
    let packed = alloc_local::<u32>([32, 1], scope = "warp");
    let halves = alloc_local::<u32>([32, 2], scope = "warp");
    let f = alloc_local::<f32>([32, 4], scope = "warp");
    let scale = alloc_local::<f32>([32, 1], scope = "warp");
    if b < B {
        let base = b * 128;
        apply(
            ptx["ld.global.f32"],
            scale.slice(s![lane_id(), ..]),
            scales.slice(s![b..b + 1]),
        );
        if base + 128 <= N {
            apply(
                ptx["ld.global.b32"],
                packed,
                q.slice(s![base..base + 128]).view::<u32>().reshape([32, 1]),
                scope = "warp",
            );
        } else {
            apply(ptx["mov.b32"], packed, 0, scope = "warp");
            for k in 0..4 {
                let i = base + lane_id() * 4 + k;
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
            halves.reshape([32, 2, 1]),
            packed.view::<u16>().reshape([32, 2, 1]),
            scope = "warp",
        );
        apply(
            ptx["cvt.f32.f16"],
            f.reshape([32, 4, 1]),
            halves.view::<u16>().reshape([32, 4, 1]),
            scope = "warp",
        );
        for k in 0..4 {
            apply(
                ptx["mul.rn.f32"],
                f.slice(s![.., k..k + 1]),
                f.slice(s![.., k..k + 1]),
                scale,
                scope = "warp",
            );
        }
        if base + 128 <= N {
            apply(
                ptx["st.global.v4.f32"],
                y.slice(s![base..base + 128]).reshape([32, 4]),
                f,
                scope = "warp",
            );
        } else {
            for k in 0..4 {
                let i = base + lane_id() * 4 + k;
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

/// The dequantizer of [`quantize_32`]: as [`dequantize_128`], each lane
/// reading the scale of its block `4w + l / 8`.
#[tile_kernel(grid = ceil_div(B, 32), block = 256)]
pub fn dequantize_32(q: Tensor<u8, N>, scales: Tensor<f32, B>, y: Tensor<f32, N>) {
    let w = cta_id(0) * 8 + warp_id();
    let packed = alloc_local::<u32>([32, 1], scope = "warp");
    let halves = alloc_local::<u32>([32, 2], scope = "warp");
    let f = alloc_local::<f32>([32, 4], scope = "warp");
    let scale = alloc_local::<f32>([32, 1], scope = "warp");
    if w * 4 < B {
        let base = w * 128;
        let block = w * 4 + lane_id() / 8;
        apply(ptx["mov.b32"], scale.view::<u32>(), 0, scope = "warp");
        apply(
            ptx["ld.global.f32"],
            scale.slice(s![lane_id(), ..]),
            scales.slice(s![block..block + 1]),
            pred = block < B,
            preserve_dst = true,
        );
        if base + 128 <= N {
            apply(
                ptx["ld.global.b32"],
                packed,
                q.slice(s![base..base + 128]).view::<u32>().reshape([32, 1]),
                scope = "warp",
            );
        } else {
            apply(ptx["mov.b32"], packed, 0, scope = "warp");
            for k in 0..4 {
                let i = base + lane_id() * 4 + k;
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
            halves.reshape([32, 2, 1]),
            packed.view::<u16>().reshape([32, 2, 1]),
            scope = "warp",
        );
        apply(
            ptx["cvt.f32.f16"],
            f.reshape([32, 4, 1]),
            halves.view::<u16>().reshape([32, 4, 1]),
            scope = "warp",
        );
        for k in 0..4 {
            apply(
                ptx["mul.rn.f32"],
                f.slice(s![.., k..k + 1]),
                f.slice(s![.., k..k + 1]),
                scale,
                scope = "warp",
            );
        }
        if base + 128 <= N {
            apply(
                ptx["st.global.v4.f32"],
                y.slice(s![base..base + 128]).reshape([32, 4]),
                f,
                scope = "warp",
            );
        } else {
            for k in 0..4 {
                let i = base + lane_id() * 4 + k;
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
