// Every one of the 256 threads arrives on a barrier initialized for 128
// arrivals: the phase would complete half-way and the rest count toward
// the next (TK0419).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 256, arch = "sm_90")]
fn k(y: Tensor<u32, 256>) {
    let t = thread_id(0);
    let done = alloc_shared::<Mbarrier>([1]);
    if t == 0 {
        apply(ptx["mbarrier.init.shared::cta.b64"], done.slice(s![0..1]), 128);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    apply(ptx["mbarrier.arrive.shared::cta.b64"], done.slice(s![0..1]));
    apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], done.slice(s![0..1]), 0);
    apply(ptx["st.global.u32"], y.slice(s![t..t + 1]), 1);
}

fn main() {}
