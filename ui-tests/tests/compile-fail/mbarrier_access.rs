// A plain load of an mbarrier object's word (TK0244).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 128, arch = "sm_90")]
fn k(y: Tensor<u64, 128>) {
    let t = thread_id(0);
    let done = alloc_shared::<Mbarrier>([1]);
    let w = alloc_local::<u64>([1]);
    if t == 0 {
        apply(ptx["mbarrier.init.shared::cta.b64"], done.slice(s![0..1]), 128);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    apply(ptx["ld.shared.u64"], w, done.slice(s![0..1]));
    apply(ptx["st.global.u64"], y.slice(s![t..t + 1]), w);
}

fn main() {}
