//! A CTA-level reduction through shared memory: the sum of squares of each
//! row of 4096 f32, one CTA of 256 threads per row (`examples/row_sumsq.rs`).
//!
//! The order of the additions is fixed, so the result is reproducible bit
//! for bit (and the host reference replays it):
//!
//! 1. thread `t` (lane `l` of warp `w`) reads elements `1024j + 4t + k`
//!    (`j, k < 4`; four coalesced 16-byte loads) and accumulates
//!    `s = x0 * x0`, then `s = fma(x, x, s)` in that order;
//! 2. the warp adds its 32 sums with butterfly shuffles by 16, 8, 4, 2, 1
//!    (each lane adds the value of lane `l ^ m` to its own; the kernel
//!    function `butterfly_sum`, used twice);
//! 3. lane 0 of each warp stores its warp's sum in a shared buffer of 8;
//!    a CTA barrier;
//! 4. warp 0 reads the 8 sums (lanes 8..31 take 0), adds them with
//!    butterflies by 4, 2, 1, and lane 0 writes the row's result.

use tile_kernel::prelude::*;

/// Adds the values of lanes `2^steps` apart with butterfly shuffles by
/// `2^(steps - 1)`, .., 2, 1 (lane `l` adds lane `l ^ m`'s value): with
/// `steps = 5` every lane holds its warp's sum. `other` is scratch.
#[tile_kernel::function]
pub fn butterfly_sum(s: Tile<f32>, other: Tile<f32>, steps: usize) {
    for step in 0..steps {
        let offset = (1 << (steps - 1)) >> step;
        apply(
            ptx["shfl.sync.bfly.b32"],
            other.view::<u32>(),
            s.view::<u32>(),
            offset,
            0x1f,
            scope = "warp",
        );
        apply(ptx["add.rn.f32"], s, s, other, scope = "warp");
    }
}

#[tile_kernel(grid = R, block = 256)]
pub fn row_sumsq(x: Tensor<f32, R, 4096>, out: Tensor<f32, R>) {
    let row = cta_id(0);
    let partial = alloc_shared::<f32>([8]);
    let v = alloc_local::<f32>([32, 16], scope = "warp");
    let s = alloc_local::<f32>([32, 1], scope = "warp");
    let other = alloc_local::<f32>([32, 1], scope = "warp");
    let p = alloc_local::<f32>([32, 1], scope = "warp");
    for j in 0..4 {
        let start = j * 1024 + warp_id() * 128;
        apply(
            ptx["ld.global.v4.f32"],
            v.slice(s![.., j * 4..j * 4 + 4]),
            x.slice(s![row, start..start + 128]).reshape([32, 4]),
            scope = "warp",
        );
    }
    apply(
        ptx["mul.rn.f32"],
        s,
        v.slice(s![.., 0..1]),
        v.slice(s![.., 0..1]),
        scope = "warp",
    );
    for k in 1..16 {
        apply(
            ptx["fma.rn.f32"],
            s,
            v.slice(s![.., k..k + 1]),
            v.slice(s![.., k..k + 1]),
            s,
            scope = "warp",
        );
    }
    // The warp's sum, in every lane.
    butterfly_sum(s, other, 5);
    apply(
        ptx["st.shared.f32"],
        partial.slice(s![warp_id()..warp_id() + 1]),
        s.slice(s![lane_id(), ..]),
        pred = lane_id() == 0,
    );
    apply(ptx["bar.sync"], 0, scope = "cta");
    if warp_id() == 0 {
        apply(ptx["mov.b32"], p.view::<u32>(), 0, scope = "warp");
        apply(
            ptx["ld.shared.f32"],
            p.slice(s![lane_id(), ..]),
            partial.slice(s![lane_id()..lane_id() + 1]),
            pred = lane_id() < 8,
            preserve_dst = true,
        );
        butterfly_sum(p, other, 3);
        apply(
            ptx["st.global.f32"],
            out.slice(s![row..row + 1]),
            p.slice(s![lane_id(), ..]),
            pred = lane_id() == 0,
        );
    }
}
