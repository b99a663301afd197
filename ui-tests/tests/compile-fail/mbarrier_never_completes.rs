// A wait for the first phase of a barrier nobody arrives on: it would
// never return (TK0418).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 128, arch = "sm_90")]
fn k(y: Tensor<u32, 128>) {
    let t = thread_id(0);
    let done = alloc_shared::<Mbarrier>([1]);
    if t == 0 {
        apply(ptx["mbarrier.init.shared::cta.b64"], done.slice(s![0..1]), 128);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], done.slice(s![0..1]), 0);
    apply(ptx["st.global.u32"], y.slice(s![t..t + 1]), 1);
}

fn main() {}
