// Races (TK0409): a `.cta` atomic is atomic only among one CTA's threads,
// but both CTAs of the cluster add into CTA 0's counter.
use tile_kernel::prelude::*;

#[tile_kernel(grid = [M, 1, 1], block = 128, cluster = [2, 1, 1], arch = "sm_90")]
fn k(y: Tensor<u32, M>) {
    let t = thread_id(0);
    let total = alloc_shared::<u32>([1]);
    let v = alloc_local::<u32>([1]);
    apply(ptx["mov.u32"], v, 0);
    apply(ptx["st.shared.u32"], total, v, pred = t == 0);
    apply(ptx["barrier.cluster.arrive"], scope = "cluster");
    apply(ptx["barrier.cluster.wait"], scope = "cluster");
    apply(ptx["mov.u32"], v, 1);
    apply(ptx["red.relaxed.cta.shared::cluster.add.u32"], total.in_cta(0), v);
    apply(ptx["barrier.cluster.arrive"], scope = "cluster");
    apply(ptx["barrier.cluster.wait"], scope = "cluster");
    apply(ptx["ld.shared.u32"], v, total);
    apply(ptx["st.global.u32"], y.slice(s![cta_id(0)..cta_id(0) + 1]), v, pred = t == 0);
}

fn main() {}
