// `mbarrier.init` on a buffer of f32 values, not of mbarrier objects
// (TK0243).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 128, arch = "sm_90")]
fn k(y: Tensor<u32, 128>) {
    let t = thread_id(0);
    let words = alloc_shared::<u64>([2]);
    if t == 0 {
        apply(ptx["mbarrier.init.shared::cta.b64"], words.slice(s![0..1]), 128);
    }
    apply(ptx["st.global.u32"], y.slice(s![t..t + 1]), 1);
}

fn main() {}
