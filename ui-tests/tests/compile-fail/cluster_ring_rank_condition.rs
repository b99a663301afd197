// Only the CTA of rank 0 refills the ring (TK0432): the other CTA's
// `full` would count boxes that are never multicast to it.
use tile_kernel::prelude::*;

#[tile_kernel(grid = [G, 1, 1], block = [128, 1, 1], cluster = [2, 1, 1], arch = "sm_90")]
fn k(x: Tensor<f32, P, K, 512>, y: Tensor<f32, G, K, 512>) {
    let t = thread_id(0);
    let rank = cluster_ctarank();
    let pair = cluster_id(0);
    let ring = alloc_shared::<f32>([2, 2, 256]);
    let full = alloc_shared::<Mbarrier>([2]);
    let empty = alloc_shared::<Mbarrier>([2]);
    let v = alloc_local::<f32>([1, 4]);
    if t == 0 {
        apply(ptx["mbarrier.init.shared::cta.b64"], full.slice(s![0..2]).reshape([2, 1]), 1);
        apply(ptx["mbarrier.init.shared::cta.b64"], empty.slice(s![0..2]).reshape([2, 1]), 256);
        apply(ptx["fence.mbarrier_init.release.cluster"]);
    }
    apply(ptx["barrier.cluster.arrive"], scope = "cluster");
    apply(ptx["barrier.cluster.wait"], scope = "cluster");
    for k in 0..K {
        let stage = k % 2;
        if t + rank == 0 {
            apply(
                ptx["mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64"],
                empty.slice(s![stage..stage + 1]),
                (k / 2 + 1) % 2,
            );
            apply(ptx["fence.proxy.async.shared::cluster"]);
            apply(ptx["mbarrier.arrive.expect_tx.shared::cta.b64"], full.slice(s![stage..stage + 1]), 2048);
            apply(
                ptx["cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"],
                ring.slice(s![stage, rank..rank + 1, ..]),
                x.slice(s![pair..pair + 1, k..k + 1, 256 * rank..256 * rank + 256]),
                full.slice(s![stage..stage + 1]),
                3,
            );
        }
        apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], full.slice(s![stage..stage + 1]), (k / 2) % 2);
        let chunk = ring.slice(s![stage, .., ..]).reshape([512]);
        apply(ptx["ld.shared.v4.f32"], v, chunk.slice(s![4 * t..4 * t + 4]).reshape([1, 4]));
        apply(ptx["mbarrier.arrive.release.cluster.shared::cta.b64"], empty.slice(s![stage..stage + 1]));
        apply(
            ptx["mbarrier.arrive.release.cluster.shared::cluster.b64"],
            empty.in_cta(1 - rank).slice(s![stage..stage + 1]),
        );
        apply(ptx["st.global.v4.f32"], y.slice(s![cta_id(0), k, 4 * t..4 * t + 4]).reshape([1, 4]), v);
    }
    apply(ptx["barrier.cluster.arrive"], scope = "cluster");
    apply(ptx["barrier.cluster.wait"], scope = "cluster");
}

fn main() {}
