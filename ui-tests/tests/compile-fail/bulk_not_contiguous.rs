// A bulk copy of a view with gaps: half of each of four rows (TK0222).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 128, arch = "sm_90")]
fn k(x: Tensor<f32, 8, 128>, y: Tensor<f32, 512>) {
    let t = thread_id(0);
    let stage = alloc_shared::<f32>([4, 128]);
    let full = alloc_shared::<Mbarrier>([1]);
    let v = alloc_local::<f32>([1, 4]);
    if t == 0 {
        apply(ptx["mbarrier.init.shared::cta.b64"], full.slice(s![0..1]), 1);
        apply(ptx["fence.mbarrier_init.release.cluster"]);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    if t == 0 {
        apply(ptx["mbarrier.arrive.expect_tx.shared::cta.b64"], full.slice(s![0..1]), 1024);
        apply(
            ptx["cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"],
            stage.slice(s![0..4, 0..64]),
            x.slice(s![0..4, 0..64]),
            1024,
            full.slice(s![0..1]),
        );
    }
    apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], full.slice(s![0..1]), 0);
}

fn main() {}
