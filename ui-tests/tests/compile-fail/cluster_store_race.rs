// Races (TK0404): the two CTAs of a cluster store to the same elements
// (indexed by the cluster, not the CTA).
use tile_kernel::prelude::*;

#[tile_kernel(grid = [M, 1, 1], block = [128, 1, 1], cluster = [2, 1, 1], arch = "sm_90")]
fn k(x: Tensor<u32, M, 128>, y: Tensor<u32, M, 128>) {
    let t = thread_id(0);
    let v = alloc_local::<u32>([1]);
    apply(ptx["ld.global.u32"], v, x.slice(s![cta_id(0), t..t + 1]));
    apply(ptx["st.global.u32"], y.slice(s![cluster_id(0), t..t + 1]), v);
}

fn main() {}
