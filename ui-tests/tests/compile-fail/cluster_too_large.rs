// Launch (TK0619): a cluster holds at most 8 CTAs (the portable size).
use tile_kernel::prelude::*;

#[tile_kernel(grid = [4, 4], block = 32, cluster = [4, 4, 1], arch = "sm_90")]
fn k(a: Tensor<u32, 4, 128>) {
    let v = alloc_local::<u32>([1]);
    apply(ptx["mov.u32"], v, 1);
    apply(ptx["st.global.u32"], a.slice(s![cta_id(1), cta_id(0) * 32 + thread_id(0)..cta_id(0) * 32 + thread_id(0) + 1]), v);
}

fn main() {}
