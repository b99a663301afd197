//! Conversion kernels for tensors of any length `N` (tails included), shared
//! by the examples, the GPU tests and the benchmark. Each thread converts
//! one block of elements with 16-byte vector accesses where the whole block
//! is in bounds, and element by element in the tail block.

use tile_kernel::prelude::*;

/// f32 -> f16 (round to nearest even), 8 elements per thread: SPEC §6's
/// `to_half`, as written there.
#[tile_kernel(grid = ceil_div(N, 2048), block = 256)]
pub fn to_half(x: Tensor<f32, N>, y: Tensor<u16, N>) {
    let base = (cta_id(0) * 256 + thread_id(0)) * 8;
    let r = alloc_local::<f32>([2, 4]);
    let d = alloc_local::<u32>([1, 4]);
    let v = alloc_local::<f32>([8, 1]);
    let h = alloc_local::<f16>([8, 1]);
    if base + 8 <= N {
        apply(
            ptx["ld.global.v4.f32"],
            r,
            x.slice(s![base..base + 8]).reshape([2, 4]),
        );
        let pairs = r.reshape([4, 2]);
        apply(
            ptx["cvt.rn.f16x2.f32"],
            d.reshape([4, 1]),
            pairs.slice(s![.., 1..2]),
            pairs.slice(s![.., 0..1]),
        );
        apply(
            ptx["st.global.v4.b32"],
            y.slice(s![base..base + 8]).view::<u32>().reshape([1, 4]),
            d,
        );
    } else {
        for k in 0..8 {
            if base + k < N {
                apply(
                    ptx["ld.global.f32"],
                    v[k],
                    x.slice(s![base + k..base + k + 1]),
                );
                apply(ptx["cvt.rn.f16.f32"], h[k], v[k]);
                apply(
                    ptx["st.global.b16"],
                    y.slice(s![base + k..base + k + 1]),
                    h[k],
                );
            }
        }
    }
}

/// f32 -> bf16 (round to nearest even), 8 elements per thread.
#[tile_kernel(grid = ceil_div(N, 2048), block = 256)]
pub fn to_bf16(x: Tensor<f32, N>, y: Tensor<u16, N>) {
    let base = (cta_id(0) * 256 + thread_id(0)) * 8;
    let r = alloc_local::<f32>([2, 4]);
    let d = alloc_local::<u32>([1, 4]);
    let v = alloc_local::<f32>([8, 1]);
    let h = alloc_local::<bf16>([8, 1]);
    if base + 8 <= N {
        apply(
            ptx["ld.global.v4.f32"],
            r,
            x.slice(s![base..base + 8]).reshape([2, 4]),
        );
        let pairs = r.reshape([4, 2]);
        apply(
            ptx["cvt.rn.bf16x2.f32"],
            d.reshape([4, 1]),
            pairs.slice(s![.., 1..2]),
            pairs.slice(s![.., 0..1]),
        );
        apply(
            ptx["st.global.v4.b32"],
            y.slice(s![base..base + 8]).view::<u32>().reshape([1, 4]),
            d,
        );
    } else {
        for k in 0..8 {
            if base + k < N {
                apply(
                    ptx["ld.global.f32"],
                    v[k],
                    x.slice(s![base + k..base + k + 1]),
                );
                apply(ptx["cvt.rn.bf16.f32"], h[k], v[k]);
                apply(
                    ptx["st.global.b16"],
                    y.slice(s![base + k..base + k + 1]),
                    h[k],
                );
            }
        }
    }
}

/// f16 -> f32 (exact), 4 elements per thread: one 8-byte load and one
/// 16-byte store (8 elements per thread measured 0.88x the copy; see
/// docs/performance.md).
#[tile_kernel(grid = ceil_div(N, 1024), block = 256)]
pub fn to_f32(x: Tensor<u16, N>, y: Tensor<f32, N>) {
    let base = (cta_id(0) * 256 + thread_id(0)) * 4;
    let w = alloc_local::<u32>([1, 2]);
    let f = alloc_local::<f32>([4, 1]);
    let h = alloc_local::<u16>([4, 1]);
    if base + 4 <= N {
        apply(
            ptx["ld.global.v2.b32"],
            w,
            x.slice(s![base..base + 4]).view::<u32>().reshape([1, 2]),
        );
        apply(ptx["cvt.f32.f16"], f, w.view::<u16>().reshape([4, 1]));
        apply(
            ptx["st.global.v4.f32"],
            y.slice(s![base..base + 4]).reshape([1, 4]),
            f.reshape([1, 4]),
        );
    } else {
        for k in 0..4 {
            if base + k < N {
                apply(
                    ptx["ld.global.b16"],
                    h[k],
                    x.slice(s![base + k..base + k + 1]),
                );
                apply(ptx["cvt.f32.f16"], f[k], h[k]);
                apply(
                    ptx["st.global.f32"],
                    y.slice(s![base + k..base + k + 1]),
                    f[k],
                );
            }
        }
    }
}

/// f32 -> fp8 e4m3 (round to nearest even, saturating to +-448), 16
/// elements per thread: four 16-byte loads, one 16-byte store.
#[tile_kernel(grid = ceil_div(N, 4096), block = 256)]
pub fn to_e4m3(x: Tensor<f32, N>, y: Tensor<u8, N>) {
    let base = (cta_id(0) * 256 + thread_id(0)) * 16;
    let r = alloc_local::<f32>([4, 4]);
    let d = alloc_local::<u32>([1, 4]);
    let v = alloc_local::<f32>([16, 1]);
    let e = alloc_local::<u16>([16, 1]);
    if base + 16 <= N {
        apply(
            ptx["ld.global.v4.f32"],
            r,
            x.slice(s![base..base + 16]).reshape([4, 4]),
        );
        let pairs = r.reshape([8, 2]);
        apply(
            ptx["cvt.rn.satfinite.e4m3x2.f32"],
            d.view::<u16>().reshape([8, 1]),
            pairs.slice(s![.., 1..2]),
            pairs.slice(s![.., 0..1]),
        );
        apply(
            ptx["st.global.v4.b32"],
            y.slice(s![base..base + 16]).view::<u32>().reshape([1, 4]),
            d,
        );
    } else {
        for k in 0..16 {
            if base + k < N {
                apply(
                    ptx["ld.global.f32"],
                    v[k],
                    x.slice(s![base + k..base + k + 1]),
                );
                // Both halves get the value; the low byte is stored.
                apply(ptx["cvt.rn.satfinite.e4m3x2.f32"], e[k], v[k], v[k]);
                apply(
                    ptx["st.global.b8"],
                    y.slice(s![base + k..base + k + 1]),
                    e[k].view::<u8>().slice(s![0..1]),
                );
            }
        }
    }
}

/// SPEC §6's grid-stride kernel: f32 pairs -> packed bf16x2 words.
#[tile_kernel(grid = 528, block = 256)]
pub fn to_bf16_pairs(x: Tensor<f32, N, 2>, y: Tensor<u32, N, 1>) {
    let r = alloc_local::<f32>([1, 2]);
    let d = alloc_local::<u32>([1, 1]);
    let start = cta_id(0) * block_dim(0) + thread_id(0);
    let stride = grid_dim(0) * block_dim(0);
    for row in (start..N).step_by(stride) {
        apply(ptx["ld.global.v2.f32"], r, x.slice(s![row..row + 1, ..]));
        apply(
            ptx["cvt.rn.bf16x2.f32"],
            d,
            r.slice(s![.., 1..2]),
            r.slice(s![.., 0..1]),
        );
        apply(ptx["st.global.b32"], y.slice(s![row..row + 1, ..]), d);
    }
}
