// `mma.sync` is a warp collective: an `apply` without `scope = "warp"` (TK0231).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32, arch = "sm_80")]
fn k(out: Tensor<f32, 32, 4>) {
    let a = alloc_local::<u32>([4]);
    let b = alloc_local::<u32>([2]);
    let c = alloc_local::<f32>([4]);
    apply(ptx["mov.b32"], a.unsqueeze(-1), 0);
    apply(ptx["mov.b32"], b.unsqueeze(-1), 0);
    apply(ptx["mov.b32"], c.unsqueeze(-1), 0);
    apply(ptx["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"], c, a, b, c);
    apply(ptx["st.global.v4.f32"], out.slice(s![lane_id(), ..]), c);
}

fn main() {}
