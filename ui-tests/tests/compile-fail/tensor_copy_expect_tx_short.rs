// The phase expects fewer bytes than the box delivers (TK0422).
use tile_kernel::prelude::*;

#[tile_kernel(grid = [GX, GY, 1], block = [128, 1, 1], arch = "sm_90")]
fn k(x: Tensor<f32, M, N>, tiles: Tensor<f32, GY, GX, 2048>) {
    let t = thread_id(0);
    let tx = cta_id(0);
    let ty = cta_id(1);
    let stage = alloc_shared::<f32>([32, 64]);
    let full = alloc_shared::<Mbarrier>([1]);
    let v = alloc_local::<f32>([1, 4]);
    if t == 0 {
        apply(ptx["mbarrier.init.shared::cta.b64"], full.slice(s![0..1]), 1);
        apply(ptx["fence.mbarrier_init.release.cluster"]);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    if t == 0 {
        apply(ptx["mbarrier.arrive.expect_tx.shared::cta.b64"], full.slice(s![0..1]), 4096);
        apply(
            ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
            stage,
            x.slice(s![32 * ty..32 * ty + 32, 64 * tx..64 * tx + 64]),
            full.slice(s![0..1]),
        );
    }
    apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], full.slice(s![0..1]), 0);
    let flat = stage.reshape([2048]);
    apply(ptx["ld.shared.v4.f32"], v, flat.slice(s![4 * t..4 * t + 4]).unsqueeze(0));
    apply(
        ptx["st.global.v4.f32"],
        tiles.slice(s![ty..ty + 1, tx..tx + 1, 4 * t..4 * t + 4]).reshape([1, 4]),
        v,
    );
}

fn main() {}
