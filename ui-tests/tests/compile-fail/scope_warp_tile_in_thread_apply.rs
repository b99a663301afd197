// Scopes (TK0229): a thread-scope `apply` reaches a warp tile only through the lane's own part.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(a: Tensor<u32, 32, 4>, out: Tensor<u32, 32, 4>) {
    let v = alloc_local::<u32>([32, 4], scope = "warp");
    apply(ptx["ld.global.v4.u32"], v, a, scope = "warp");
    apply(ptx["st.global.v4.u32"], out.slice(s![lane_id(), ..]), v);
}

fn main() {}
