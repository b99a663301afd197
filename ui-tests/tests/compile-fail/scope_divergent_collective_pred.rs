// Scopes (TK0516): `pred = lane_id() == 0` lets one lane run a `shfl.sync` the others skip.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(a: Tensor<u32, 32, 1>, out: Tensor<u32, 32, 1>) {
    let v = alloc_local::<u32>([32, 1], scope = "warp");
    let s = alloc_local::<u32>([32, 1], scope = "warp");
    apply(ptx["ld.global.u32"], v, a, scope = "warp");
    apply(ptx["mov.b32"], s, v, scope = "warp");
    apply(
        ptx["shfl.sync.bfly.b32"],
        s,
        v,
        1,
        0x1f,
        scope = "warp",
        pred = lane_id() == 0,
        preserve_dst = true,
    );
    apply(ptx["st.global.u32"], out, s, scope = "warp");
}

fn main() {}
