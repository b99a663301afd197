//! CTA-wide reductions as kernel functions, shared by the row kernels
//! (`softmax`, `layer_norm`, `rms_norm`, `quantize_per_token`).
//!
//! Each reduces one value per lane of every warp of the CTA to one value,
//! which every lane of every warp then holds: butterflies inside the warp
//! (lane `l` combines lane `l ^ m`'s value, m = 16, 8, 4, 2, 1), lane 0 of
//! each warp stores the warp's value in `buffer` (one element per warp), a
//! CTA barrier, then every warp reads the `warps` values (lane `l` reads
//! `l % warps`) and combines them with butterflies by `warps / 2`, .., 1
//! (`steps` = log2 of `warps`). The order of the operations is fixed, so a
//! host reference can replay it.

/// The sum over the CTA of each warp's lane values `s` (scratch: `t`).
#[tile_kernel::function]
pub fn cta_sum(s: Tile<f32>, t: Tile<f32>, buffer: Shared<f32>, warps: usize, steps: usize) {
    for step in 0..5 {
        apply(
            ptx["shfl.sync.bfly.b32"],
            t,
            s,
            16 >> step,
            0x1f,
            scope = "warp",
        );
        ewise(|a: f32, b: f32| a + b, s, s, t, scope = "warp");
    }
    let mine = s.slice(s![lane_id(), ..]);
    let w = warp_id();
    apply(
        ptx["st.shared.f32"],
        buffer.slice(s![w..w + 1]),
        mine,
        pred = lane_id() == 0,
    );
    apply(ptx["bar.sync"], 0, scope = "cta");
    let l = lane_id() % warps;
    apply(ptx["ld.shared.f32"], mine, buffer.slice(s![l..l + 1]));
    for step in 0..steps {
        apply(
            ptx["shfl.sync.bfly.b32"],
            t,
            s,
            (warps / 2) >> step,
            0x1f,
            scope = "warp",
        );
        ewise(|a: f32, b: f32| a + b, s, s, t, scope = "warp");
    }
}

/// The maximum over the CTA of each warp's lane values `s` (`max.f32`: a
/// NaN gives the other value), the same way.
#[tile_kernel::function]
pub fn cta_max(s: Tile<f32>, t: Tile<f32>, buffer: Shared<f32>, warps: usize, steps: usize) {
    for step in 0..5 {
        apply(
            ptx["shfl.sync.bfly.b32"],
            t,
            s,
            16 >> step,
            0x1f,
            scope = "warp",
        );
        ewise(|a: f32, b: f32| max(a, b), s, s, t, scope = "warp");
    }
    let mine = s.slice(s![lane_id(), ..]);
    let w = warp_id();
    apply(
        ptx["st.shared.f32"],
        buffer.slice(s![w..w + 1]),
        mine,
        pred = lane_id() == 0,
    );
    apply(ptx["bar.sync"], 0, scope = "cta");
    let l = lane_id() % warps;
    apply(ptx["ld.shared.f32"], mine, buffer.slice(s![l..l + 1]));
    for step in 0..steps {
        apply(
            ptx["shfl.sync.bfly.b32"],
            t,
            s,
            (warps / 2) >> step,
            0x1f,
            scope = "warp",
        );
        ewise(|a: f32, b: f32| max(a, b), s, s, t, scope = "warp");
    }
}
