// Scopes (TK0229): in an `apply` with `scope = "warp"` every tile operand is a warp tile; `v` is per-thread.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(a: Tensor<u32, 32, 4>, out: Tensor<u32, 32, 4>) {
    let v = alloc_local::<u32>([4]);
    apply(ptx["ld.global.v4.u32"], v, a.slice(s![lane_id(), ..]));
    apply(ptx["st.global.v4.u32"], out, v, scope = "warp");
}

fn main() {}
