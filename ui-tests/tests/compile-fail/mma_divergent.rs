// The lanes of a warp must all run an `mma.sync` (`.aligned`): one under a
// branch on the lane is divergent (TK0516).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32, arch = "sm_80")]
fn k(out: Tensor<f32, 32, 4>) {
    let a = alloc_local::<u32>([32, 4], scope = "warp");
    let b = alloc_local::<u32>([32, 2], scope = "warp");
    let c = alloc_local::<f32>([32, 4], scope = "warp");
    apply(ptx["mov.b32"], a.unsqueeze(-1), 0, scope = "warp");
    apply(ptx["mov.b32"], b.unsqueeze(-1), 0, scope = "warp");
    apply(ptx["mov.b32"], c.unsqueeze(-1), 0, scope = "warp");
    if lane_id() < 16 {
        apply(ptx["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"], c, a, b, c, scope = "warp");
    }
    apply(ptx["st.global.v4.f32"], out, c, scope = "warp");
}

fn main() {}
