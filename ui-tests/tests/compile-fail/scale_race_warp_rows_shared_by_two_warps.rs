// A warp-scope access ranked by `thread_id(1)` and the lane keeps the
// warps apart only when a row of the block is one warp: in a [64, 2]
// block the two warps of a row store to the same `y[w, lane]` (TK0404).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = [64, 2])]
fn k(x: Tensor<u32, 2, 32, 1>, y: Tensor<u32, 2, 32, 1>) {
    let w = thread_id(1);
    let v = alloc_local::<u32>([32, 1], scope = "warp");
    apply(ptx["ld.global.u32"], v, x.slice(s![w, .., ..]), scope = "warp");
    apply(ptx["st.global.u32"], y.slice(s![w, .., ..]), v, scope = "warp");
}

fn main() {}
