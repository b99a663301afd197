// A thread bulk-stores `y`, then adds into the same bytes before a wait
// saw the store complete (TK0424): the async proxy may apply the update
// first, and the store would then overwrite it.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = [64, 1, 1], arch = "sm_90")]
fn k(x: Tensor<f32, 256>, y: Tensor<f32, 256>) {
    let t = thread_id(0);
    let stage = alloc_shared::<f32>([256]);
    let v = alloc_local::<f32>([1, 4]);
    apply(ptx["ld.global.v4.f32"], v, x.slice(s![4 * t..4 * t + 4]).unsqueeze(0));
    apply(ptx["st.shared.v4.f32"], stage.slice(s![4 * t..4 * t + 4]).unsqueeze(0), v);
    apply(ptx["fence.proxy.async.shared::cta"]);
    apply(ptx["bar.sync"], 0, scope = "cta");
    if t == 0 {
        apply(ptx["cp.async.bulk.global.shared::cta.bulk_group"], y, stage, 1024);
        apply(ptx["cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32"], y, stage, 1024);
        apply(ptx["cp.async.bulk.commit_group"]);
        apply(ptx["cp.async.bulk.wait_group.read"], 0);
    }
}

fn main() {}
