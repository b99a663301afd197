// The producer's wait on `empty` is run by its whole warp but only lane
// 0 refills: nothing orders the other lanes' waits before the consumers'
// next arrival on that object, which could complete the next phase while
// a lane still waits for this one (its parity would then name the wrong
// phase: TK0420). A `bar.warp.sync` after the wait orders them.
use tile_kernel::prelude::*;

#[tile_kernel(grid = [M, 1, 1], block = [96, 1, 1], arch = "sm_90")]
fn k(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>) {
    let t = thread_id(0);
    let row = cta_id(0);
    let chunks = ceil_div(N, 256);
    let ring = alloc_shared::<f32>([3, 256]);
    let full = alloc_shared::<Mbarrier>([3]);
    let empty = alloc_shared::<Mbarrier>([3]);
    let v = alloc_local::<f32>([1, 4]);
    if t == 0 {
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            full.slice(s![0..3]).reshape([3, 1]),
            1,
        );
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            empty.slice(s![0..3]).reshape([3, 1]),
            64,
        );
        apply(ptx["fence.mbarrier_init.release.cluster"]);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    if t == 64 {
        for s in 0..2 {
            if s < chunks {
                apply(
                    ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                    full.slice(s![s..s + 1]),
                    1024,
                );
                apply(
                    ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                    ring.slice(s![s..s + 1, ..]),
                    x.slice(s![row..row + 1, 256 * s..256 * s + 256]),
                    full.slice(s![s..s + 1]),
                );
            }
        }
    }
    for k in 0..chunks {
        let stage = k % 3;
        if t < 64 {
            apply(
                ptx["mbarrier.try_wait.parity.shared::cta.b64"],
                full.slice(s![stage..stage + 1]),
                (k / 3) % 2,
            );
            apply(
                ptx["ld.shared.v4.f32"],
                v,
                ring.slice(s![stage..stage + 1, 4 * t..4 * t + 4]),
            );
            apply(
                ptx["mbarrier.arrive.shared::cta.b64"],
                empty.slice(s![stage..stage + 1]),
            );
            let w = v.reshape([4, 1]);
            apply(ptx["add.f32"], w, w, w);
            apply(
                ptx["st.global.v4.f32"],
                y.slice(s![row..row + 1, 256 * k + 4 * t..256 * k + 4 * t + 4]),
                v,
            );
        }
        if k + 2 < chunks {
            let refill = (k + 2) % 3;
            if warp_id() == 2 {
                apply(
                    ptx["mbarrier.try_wait.parity.shared::cta.b64"],
                    empty.slice(s![refill..refill + 1]),
                    ((k + 2) / 3 + 1) % 2,
                );
            }
            if t == 64 {
                apply(ptx["fence.proxy.async.shared::cta"]);
                apply(
                    ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                    full.slice(s![refill..refill + 1]),
                    1024,
                );
                apply(
                    ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                    ring.slice(s![refill..refill + 1, ..]),
                    x.slice(s![row..row + 1, 256 * (k + 2)..256 * (k + 2) + 256]),
                    full.slice(s![refill..refill + 1]),
                );
            }
        }
    }
}


fn main() {}
