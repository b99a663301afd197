// A 2-stage ring of bulk stores whose wait leaves two groups pending: the
// stage being rewritten may still be read by the store of two chunks ago
// (TK0410).
use tile_kernel::prelude::*;

#[tile_kernel(grid = [M, 1, 1], block = [256, 1, 1], arch = "sm_90")]
fn k(x: Tensor<f32, M, { 1024 * C }>, y: Tensor<f32, M, { 1024 * C }>) {
    let t = thread_id(0);
    let row = cta_id(0);
    let ring = alloc_shared::<f32>([2, 1024]);
    let v = alloc_local::<f32>([1, 4]);
    for k in 0..C {
        let s = k % 2;
        if t == 0 {
            apply(ptx["cp.async.bulk.wait_group.read"], 2);
        }
        apply(ptx["bar.sync"], 0, scope = "cta");
        let e = 1024 * k + 4 * t;
        apply(
            ptx["ld.global.v4.f32"],
            v,
            x.slice(s![row..row + 1, e..e + 4]),
        );
        let w = v.reshape([4, 1]);
        apply(ptx["add.f32"], w, w, w);
        apply(
            ptx["st.shared.v4.f32"],
            ring.slice(s![s..s + 1, 4 * t..4 * t + 4]),
            v,
        );
        apply(ptx["fence.proxy.async.shared::cta"]);
        apply(ptx["bar.sync"], 0, scope = "cta");
        if t == 0 {
            apply(
                ptx["cp.async.bulk.global.shared::cta.bulk_group"],
                y.slice(s![row..row + 1, 1024 * k..1024 * k + 1024]),
                ring.slice(s![s..s + 1, ..]),
                4096,
            );
            apply(ptx["cp.async.bulk.commit_group"]);
        }
    }
    if t == 0 {
        apply(ptx["cp.async.bulk.wait_group.read"], 0);
    }
}

fn main() {}
