// Scopes (TK0231): a warp collective runs in all 32 lanes together, so its `apply` needs `scope = "warp"`.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(a: Tensor<u32, 32>, out: Tensor<u32, 32>) {
    let t = lane_id();
    let r = alloc_local::<u32>([1]);
    apply(ptx["ld.global.u32"], r, a.slice(s![t..t + 1]));
    apply(ptx["redux.sync.max.u32"], r, r);
    apply(ptx["st.global.u32"], out.slice(s![t..t + 1]), r);
}

fn main() {}
