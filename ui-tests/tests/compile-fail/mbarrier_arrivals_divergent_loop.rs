// Every thread arrives once per iteration of a loop whose trip count
// depends on the thread (1 or 2 iterations): the checker cannot count
// the phase's arrivals (TK0419).
use tile_kernel::prelude::*;
#[tile_kernel(grid = 1, block = 128, arch = "sm_90")]
fn k(y: Tensor<u32, 128>) {
    let t = thread_id(0);
    let done = alloc_shared::<Mbarrier>([1]);
    if t == 0 {
        apply(ptx["mbarrier.init.shared::cta.b64"], done.slice(s![0..1]), 128);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    for i in 0..t % 2 + 1 {
        apply(ptx["mbarrier.arrive.shared::cta.b64"], done.slice(s![0..1]));
    }
    apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], done.slice(s![0..1]), 0);
    apply(ptx["st.global.u32"], y.slice(s![t..t + 1]), 1);
}
fn main() {}
