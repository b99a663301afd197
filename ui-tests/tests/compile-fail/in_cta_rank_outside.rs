// Bounds (TK0401): a cluster of 2 CTAs has ranks 0 and 1.
use tile_kernel::prelude::*;

#[tile_kernel(grid = [M, 1, 1], block = 128, cluster = [2, 1, 1], arch = "sm_90")]
fn k(y: Tensor<u32, M, 128>) {
    let t = thread_id(0);
    let sh = alloc_shared::<u32>([128]);
    let v = alloc_local::<u32>([1]);
    apply(ptx["mov.u32"], v, 1);
    apply(ptx["st.shared.u32"], sh.slice(s![t..t + 1]), v);
    apply(ptx["barrier.cluster.arrive"], scope = "cluster");
    apply(ptx["barrier.cluster.wait"], scope = "cluster");
    apply(ptx["ld.shared::cluster.u32"], v, sh.in_cta(cluster_ctarank() + 2).slice(s![t..t + 1]));
    apply(ptx["barrier.cluster.arrive"], scope = "cluster");
    apply(ptx["barrier.cluster.wait"], scope = "cluster");
    apply(ptx["st.global.u32"], y.slice(s![cta_id(0), t..t + 1]), v);
}

fn main() {}
