// fp8 multiplicands need sm_89 (TK0209 names the floor).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32, arch = "sm_80")]
fn k(out: Tensor<f32, 32, 4>) {
    let a = alloc_local::<u32>([32, 4], scope = "warp");
    let b = alloc_local::<u32>([32, 2], scope = "warp");
    let c = alloc_local::<f32>([32, 4], scope = "warp");
    apply(ptx["mov.b32"], a.unsqueeze(-1), 0, scope = "warp");
    apply(ptx["mov.b32"], b.unsqueeze(-1), 0, scope = "warp");
    apply(ptx["mov.b32"], c.unsqueeze(-1), 0, scope = "warp");
    apply(ptx["mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"], c, a, b, c, scope = "warp");
    apply(ptx["st.global.v4.f32"], out, c, scope = "warp");
}

fn main() {}
