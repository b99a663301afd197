// `ldmatrix` reads each lane's row of the stage while the `cp.async` that
// fills it may still be writing: the copy's group must be waited for (and,
// for other threads' copies, a barrier passed) first (TK0410).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32, arch = "sm_80")]
fn k(a: Tensor<u32, 32, 4>, out: Tensor<u32, 32, 4>) {
    let stage = alloc_shared::<u32>([32, 4]);
    apply(ptx["cp.async.cg.shared.global"], stage.slice(s![lane_id(), ..]), a.slice(s![lane_id(), ..]), 16);
    apply(ptx["cp.async.commit_group"]);
    let f = alloc_local::<u32>([32, 4], scope = "warp");
    apply(ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], f, stage.view::<u16>(), scope = "warp");
    apply(ptx["cp.async.wait_all"]);
    apply(ptx["st.global.v4.b32"], out, f, scope = "warp");
}

fn main() {}
