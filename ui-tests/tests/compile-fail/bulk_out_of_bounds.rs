// A bulk copy the checker cannot prove in bounds: a guard would skip it
// and the phase would never get its bytes (TK0421).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 128, arch = "sm_90")]
fn k(x: Tensor<f32, N>, y: Tensor<f32, 512>) {
    let t = thread_id(0);
    let stage = alloc_shared::<f32>([512]);
    let full = alloc_shared::<Mbarrier>([1]);
    let v = alloc_local::<f32>([1, 4]);
    if t == 0 {
        apply(ptx["mbarrier.init.shared::cta.b64"], full.slice(s![0..1]), 1);
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
    apply(ptx["st.global.v4.f32"], y.slice(s![4 * t..4 * t + 4]).unsqueeze(0), v);
}

fn main() {}
