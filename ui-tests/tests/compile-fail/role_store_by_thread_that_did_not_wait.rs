// Every thread writes the stage and arrives on an mbarrier; thread 1
// waits for the phase, but thread 0, which did not wait, stores the
// stage (TK0414): the phase orders the writes before its waiters only.
use tile_kernel::prelude::*;

#[tile_kernel(grid = [ceil_div(W, 32), ceil_div(H, 32), 1], block = [32, 8, 1], arch = "sm_90")]
fn k(a: Tensor<f32, H, W>, b: Tensor<f32, W, H>) {
    let tx = thread_id(0);
    let ty = thread_id(1);
    let stage = alloc_shared::<f32>([32, 32]);
    let done = alloc_shared::<Mbarrier>([1]);
    let v = alloc_local::<f32>([4, 1]);
    if tx == 0 && ty == 0 {
        apply(ptx["mbarrier.init.shared::cta.b64"], done.slice(s![0..1]), 256);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    for k in 0..4 {
        let row = cta_id(1) * 32 + ty + 8 * k;
        let col = cta_id(0) * 32 + tx;
        let vk = v.slice(s![k, 0..1]);
        if row < H && col < W {
            apply(ptx["ld.global.f32"], vk, a.slice(s![row, col..col + 1]));
        } else {
            apply(ptx["mov.b32"], vk, 0);
        }
        apply(
            ptx["st.shared.f32"],
            stage.slice(s![tx, ty + 8 * k..ty + 8 * k + 1]),
            vk,
        );
    }
    apply(ptx["fence.proxy.async.shared::cta"]);
    apply(ptx["mbarrier.arrive.shared::cta.b64"], done.slice(s![0..1]));
    if tx == 1 && ty == 0 {
        apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], done.slice(s![0..1]), 0);
    }
    if tx == 0 && ty == 0 {
        let c = cta_id(0) * 32;
        let r = cta_id(1) * 32;
        apply(
            ptx["cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"],
            b.slice(s![c..c + 32, r..r + 32]),
            stage,
        );
        apply(ptx["cp.async.bulk.commit_group"]);
        apply(ptx["cp.async.bulk.wait_group.read"], 0);
    }
}

fn main() {}
