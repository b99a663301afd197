// The refill waits for the readers' `empty` phase but has no
// `fence.proxy.async`: the copy (async proxy) may land before their reads
// (generic proxy) are done (TK0423).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 128, arch = "sm_90")]
fn k(x: Tensor<f32, 512>, y: Tensor<f32, 512>, z: Tensor<f32, 2, 512>) {
    let t = thread_id(0);
    let stage = alloc_shared::<f32>([512]);
    let full = alloc_shared::<Mbarrier>([1]);
    let empty = alloc_shared::<Mbarrier>([1]);
    let v = alloc_local::<f32>([1, 4]);
    if t == 0 {
        apply(ptx["mbarrier.init.shared::cta.b64"], full.slice(s![0..1]), 1);
        apply(ptx["mbarrier.init.shared::cta.b64"], empty.slice(s![0..1]), 128);
        apply(ptx["fence.mbarrier_init.release.cluster"]);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    if t == 0 {
        apply(ptx["mbarrier.arrive.expect_tx.shared::cta.b64"], full.slice(s![0..1]), 2048);
        apply(
            ptx["cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"],
            stage.slice(s![0..512]),
            x.slice(s![0..512]),
            2048,
            full.slice(s![0..1]),
        );
    }
    apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], full.slice(s![0..1]), 0);
    apply(ptx["ld.shared.v4.f32"], v, stage.slice(s![4 * t..4 * t + 4]).unsqueeze(0));
    apply(ptx["st.global.v4.f32"], z.slice(s![0..1, 4 * t..4 * t + 4]), v);
    apply(ptx["mbarrier.arrive.shared::cta.b64"], empty.slice(s![0..1]));
    if t == 0 {
        apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], empty.slice(s![0..1]), 0);
        // The copy lands before the expectation: the count goes below zero
        // until the arrival.
        apply(
            ptx["cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"],
            stage.slice(s![0..512]),
            y.slice(s![0..512]),
            2048,
            full.slice(s![0..1]),
        );
        apply(ptx["mbarrier.arrive.expect_tx.relaxed.cta.shared::cta.b64"], full.slice(s![0..1]), 2048);
    }
    apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], full.slice(s![0..1]), 1);
    apply(ptx["ld.shared.v4.f32"], v, stage.slice(s![4 * t..4 * t + 4]).unsqueeze(0));
    apply(ptx["st.global.v4.f32"], z.slice(s![1..2, 4 * t..4 * t + 4]), v);
}

fn main() {}
