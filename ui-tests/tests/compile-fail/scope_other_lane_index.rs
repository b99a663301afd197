// Scopes (TK0230): a lane holds only its own row of a warp tile; lane 0's row is not readable from other lanes.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(a: Tensor<u32, 32, 4>, out: Tensor<u32, 32, 4>) {
    let v = alloc_local::<u32>([32, 4], scope = "warp");
    apply(ptx["ld.global.v4.u32"], v, a, scope = "warp");
    apply(ptx["st.global.v4.u32"], out.slice(s![lane_id(), ..]), v.slice(s![0, ..]));
}

fn main() {}
