// A state tile for an arrive on another CTA's mbarrier (TK0251): the
// `.shared::cluster` arrive returns no state, only the sink `_`.
use tile_kernel::prelude::*;

#[tile_kernel(grid = [M, 1, 1], block = [32, 1, 1], cluster = [2, 1, 1], arch = "sm_90")]
fn k(x: Tensor<u32, M, 32>) {
    let t = thread_id(0);
    let rank = cluster_ctarank();
    let bar = alloc_shared::<Mbarrier>([1]);
    let state = alloc_local::<u64>([1]);
    if t == 0 {
        apply(ptx["mbarrier.init.shared::cta.b64"], bar.slice(s![0..1]).reshape([1, 1]), 64);
        apply(ptx["fence.mbarrier_init.release.cluster"]);
    }
    apply(ptx["barrier.cluster.arrive"], scope = "cluster");
    apply(ptx["barrier.cluster.wait"], scope = "cluster");
    apply(
        ptx["mbarrier.arrive.release.cluster.shared::cluster.b64"],
        state,
        bar.in_cta(1 - rank).slice(s![0..1]),
    );
    apply(ptx["barrier.cluster.arrive"], scope = "cluster");
    apply(ptx["barrier.cluster.wait"], scope = "cluster");
}

fn main() {}
