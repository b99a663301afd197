// Launch (TK0619): a constant grid extent must be a whole number of
// clusters.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 3, block = 32, cluster = 2, arch = "sm_90")]
fn k(a: Tensor<u32, 96>) {
    let v = alloc_local::<u32>([1]);
    apply(ptx["mov.u32"], v, 1);
    apply(ptx["st.global.u32"], a.slice(s![cta_id(0) * 32 + thread_id(0)..cta_id(0) * 32 + thread_id(0) + 1]), v);
}

fn main() {}
