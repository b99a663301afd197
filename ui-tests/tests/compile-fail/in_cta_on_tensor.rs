// `.in_cta` (TK0132): every CTA sees the same global tensors; only a
// shared buffer has a copy per CTA.
use tile_kernel::prelude::*;

#[tile_kernel(grid = [M, 1, 1], block = 128, cluster = [2, 1, 1], arch = "sm_90")]
fn k(y: Tensor<u32, M, 128>) {
    let t = thread_id(0);
    let v = alloc_local::<u32>([1]);
    apply(ptx["mov.u32"], v, 1);
    apply(ptx["st.global.u32"], y.in_cta(1).slice(s![cta_id(0), t..t + 1]), v);
}

fn main() {}
