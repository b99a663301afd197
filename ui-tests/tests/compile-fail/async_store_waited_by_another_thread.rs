// Thread 288 stores the same bytes every round and waits only until its
// store has read the stage (`.read`); thread 0's `wait_group` does not
// complete thread 288's store: a bulk group's wait completes the waiting
// thread's own stores only (TK0424).
use tile_kernel::prelude::*;

#[tile_kernel(grid = [1, ceil_div(M, 128), 1], block = [384, 1, 1], arch = "sm_90")]
fn k(x: Tensor<f32, M, 32>, y: Tensor<f32, M, 32>, rounds: Tensor<u32, R>) {
    let t = thread_id(0);
    let m0 = cta_id(1) * 128;
    let so = alloc_shared::<f32>([128, 32], layout = "swizzle_128");
    let v = alloc_local::<f32>([1, 4]);
    for round in 0..R {
        if t == 0 {
            apply(ptx["cp.async.bulk.wait_group"], 0);
        }
        if t == 288 {
            apply(ptx["cp.async.bulk.wait_group.read"], 0);
        }
        apply(ptx["bar.sync"], 0, scope = "cta");
        if t < 128 {
            for q in 0..8 {
                if m0 + t < M {
                    apply(ptx["ld.global.v4.f32"], v, x.slice(s![m0 + t, 4 * q..4 * q + 4]).unsqueeze(0));
                } else {
                    apply(ptx["mov.b32"], v.reshape([4, 1]), 0);
                }
                apply(ptx["st.shared.v4.f32"], so.slice(s![t, 4 * q..4 * q + 4]).unsqueeze(0), v);
            }
        }
        apply(ptx["fence.proxy.async.shared::cta"]);
        apply(ptx["bar.sync"], 0, scope = "cta");
        if t == 288 {
            apply(
                ptx["cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"],
                y.slice(s![m0..m0 + 128, ..]),
                so,
            );
            apply(ptx["cp.async.bulk.commit_group"]);
        }
    }
    if t == 288 {
        apply(ptx["cp.async.bulk.wait_group"], 0);
    }
}

fn main() {}
