// A retired wgmma's reads are ordered for other threads only by a CTA
// barrier (or an mbarrier phase its warpgroup arrives on after the wait):
// rewriting its matrix right after the wait is TK0411.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 128, arch = "sm_90a")]
fn k(a: Tensor<bf16, 64, 16>, b: Tensor<bf16, 8, 16>, d: Tensor<f32, 128, 4>) {
    let sa = alloc_shared::<bf16>([64, 16], layout = "swizzle_32");
    let sb = alloc_shared::<bf16>([8, 16], layout = "swizzle_32");
    let acc = alloc_local::<f32>([128, 4], scope = "warpgroup");
    let chunk = alloc_local::<u32>([4]);
    let t = thread_id(0);
    apply(ptx["ld.global.v4.u32"], chunk, a.reshape([128, 8]).slice(s![t, ..]).view::<u32>());
    apply(ptx["ld.global.v4.u32"], chunk, a.reshape([128, 8]).slice(s![t, ..]).view::<u32>());
    apply(ptx["st.shared.v4.u32"], sa.reshape([128, 8]).slice(s![t, ..]).view::<u32>(), chunk);
    apply(ptx["ld.global.v4.u32"], chunk, b.reshape([16, 8]).slice(s![t, ..]).view::<u32>(), pred = t < 16);
    apply(ptx["st.shared.v4.u32"], sb.reshape([16, 8]).slice(s![t, ..]).view::<u32>(), chunk, pred = t < 16);
    apply(ptx["fence.proxy.async.shared::cta"]);
    apply(ptx["bar.sync"], 0, scope = "cta");
    apply(ptx["wgmma.fence.sync.aligned"], scope = "warpgroup");
    apply(ptx["wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16"], acc, sa, sb, 0, 1, 1, 0, 0, scope = "warpgroup");
    apply(ptx["wgmma.commit_group.sync.aligned"], scope = "warpgroup");
    apply(ptx["wgmma.wait_group.sync.aligned"], 0, scope = "warpgroup");
    apply(ptx["ld.global.v4.u32"], chunk, a.reshape([128, 8]).slice(s![t, ..]).view::<u32>());
    apply(ptx["st.shared.v4.u32"], sa.reshape([128, 8]).slice(s![t, ..]).view::<u32>(), chunk);
    apply(ptx["st.global.v4.f32"], d, acc, scope = "warpgroup");
}

fn main() {}
