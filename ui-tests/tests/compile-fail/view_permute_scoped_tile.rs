// A warp-scoped tile's leading axis names the lanes: `.permute` on it is
// refused (TK0133).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32, arch = "sm_80")]
fn k(y: Tensor<u32, 32, 4>) {
    let f = alloc_local::<u32>([32, 4], scope = "warp");
    apply(ptx["mov.b32"], f.reshape([32, 4, 1]), 0, scope = "warp");
    apply(
        ptx["st.global.v4.b32"],
        y.slice(s![lane_id(), ..]).unsqueeze(0),
        f.permute([1, 0]).slice(s![.., lane_id()]).unsqueeze(0),
    );
}

fn main() {}
