// The tensor stores run on threads 287 and 288, a range the bounds do not
// pin to one thread: both store the same box (TK0404).
use tile_kernel::prelude::*;

#[tile_kernel(grid = [1, ceil_div(M, 128), 1], block = [384, 1, 1], arch = "sm_90")]
fn k(x: Tensor<f32, M, 64>, y: Tensor<f32, M, 64>, rounds: Tensor<u32, R>) {
    let t = thread_id(0);
    let m0 = cta_id(1) * 128;
    let row = 32 * (warp_id() % 4) + lane_id();
    let half = 16 * (warp_id() / 4);
    let so = alloc_shared::<f32>([2, 128, 32], layout = "swizzle_128");
    let acc = alloc_local::<f32>([2, 16]);
    let v = alloc_local::<f32>([1, 4]);
    apply(ptx["mov.b32"], acc.reshape([32, 1]), 0);
    for round in 0..R {
        for p in 0..2 {
            if p == 0 && 287 <= t && t <= 288 {
                apply(ptx["cp.async.bulk.wait_group"], 0);
            }
            if p == 0 {
                apply(ptx["bar.sync"], 0, scope = "cta");
            }
            if warp_id() < 8 {
                for q in 0..4 {
                    let col = 32 * p + half + 4 * q;
                    if m0 + row < M {
                        apply(ptx["ld.global.v4.f32"], v, x.slice(s![m0 + row, col..col + 4]).unsqueeze(0));
                    } else {
                        apply(ptx["mov.b32"], v.reshape([4, 1]), 0);
                    }
                    let a = acc.slice(s![p, 4 * q..4 * q + 4]).unsqueeze(0);
                    ewise(|s: f32, e: f32| s + e, a, a, v);
                    apply(
                        ptx["st.shared.v4.f32"],
                        so.slice(s![p, row, half + 4 * q..half + 4 * q + 4]).unsqueeze(0),
                        a,
                    );
                }
            }
            apply(ptx["fence.proxy.async.shared::cta"]);
            apply(ptx["bar.sync"], 0, scope = "cta");
            if 287 <= t && t <= 288 {
                apply(
                    ptx["cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"],
                    y.slice(s![m0..m0 + 128, 32 * p..32 * p + 32]),
                    so.slice(s![p, .., ..]),
                );
                apply(ptx["cp.async.bulk.commit_group"]);
            }
        }
    }
    if 287 <= t && t <= 288 {
        apply(ptx["cp.async.bulk.wait_group"], 0);
    }
}

fn main() {}
