// Races (TK0429): a cluster wait needs its arrive before it in its block.
use tile_kernel::prelude::*;

#[tile_kernel(grid = [M, 1, 1], block = [128, 1, 1], cluster = [2, 1, 1], arch = "sm_90")]
fn k(x: Tensor<u32, M, 128>) {
    let t = thread_id(0);
    let r = cta_id(0);
    let sh = alloc_shared::<u32>([128]);
    let v = alloc_local::<u32>([1]);
    apply(ptx["ld.global.u32"], v, x.slice(s![r, t..t + 1]));
    apply(ptx["barrier.cluster.wait"], scope = "cluster");
    apply(ptx["st.shared.u32"], sh.slice(s![t..t + 1]), v);
}

fn main() {}
