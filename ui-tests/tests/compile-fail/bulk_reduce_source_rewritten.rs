// The issuing thread rewrites the stage before its reduction's bulk group was waited for (TK0410).
use tile_kernel::prelude::*;

#[tile_kernel(grid = [M, 1, 1], block = [64, 1, 1], arch = "sm_90")]
fn k(x: Tensor<f32, M, 256>, y: Tensor<f32, 256>) {
    let t = thread_id(0);
    let r = cta_id(0);
    let stage = alloc_shared::<f32>([256]);
    let v = alloc_local::<f32>([1, 4]);
    apply(ptx["ld.global.v4.b32"], v, x.slice(s![r..r + 1, 4 * t..4 * t + 4]));
    apply(ptx["st.shared.v4.b32"], stage.slice(s![4 * t..4 * t + 4]).unsqueeze(0), v);
    apply(ptx["fence.proxy.async.shared::cta"]);
    apply(ptx["bar.sync"], 0, scope = "cta");
    if t == 0 {
        apply(ptx["cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32"], y, stage, 1024);
        apply(ptx["cp.async.bulk.commit_group"]);
        apply(ptx["st.shared.v4.b32"], stage.slice(s![0..4]).unsqueeze(0), v);
        apply(ptx["cp.async.bulk.wait_group.read"], 0);
    }
}

fn main() {}
