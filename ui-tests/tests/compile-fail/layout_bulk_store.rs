// A bulk copy moves a run of bytes in row-major order, which a laid-out
// buffer does not keep (TK0249).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 128, arch = "sm_90")]
fn k(out: Tensor<bf16, 64, 16>) {
    let s = alloc_shared::<bf16>([64, 16], layout = "swizzle_32");
    let chunk = alloc_local::<u32>([4]);
    apply(ptx["mov.b32"], chunk.unsqueeze(-1), 0);
    apply(ptx["st.shared.v4.u32"], s.reshape([128, 8]).slice(s![thread_id(0), ..]).view::<u32>(), chunk);
    apply(ptx["fence.proxy.async.shared::cta"]);
    apply(ptx["bar.sync"], 0, scope = "cta");
    if thread_id(0) == 0 {
        apply(ptx["cp.async.bulk.global.shared::cta.bulk_group"], out, s, 2048);
        apply(ptx["cp.async.bulk.commit_group"]);
        apply(ptx["cp.async.bulk.wait_group.read"], 0);
    }
}

fn main() {}
