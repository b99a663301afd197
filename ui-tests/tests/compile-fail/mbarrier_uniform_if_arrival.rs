// An arrival under an `if` on a launch value completes the phase on one
// path only: the checker counts it as a guarded (virtual) ticket, which
// the unconditional wait may not be for (TK0418: it hangs where n <= 3).
use tile_kernel::prelude::*;
#[tile_kernel(grid = 1, block = 128, arch = "sm_90")]
fn k(y: Tensor<u32, 128>, n: u32) {
    let t = thread_id(0);
    let done = alloc_shared::<Mbarrier>([1]);
    if t == 0 {
        apply(ptx["mbarrier.init.shared::cta.b64"], done.slice(s![0..1]), 128);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    if n > 3 {
        apply(ptx["mbarrier.arrive.shared::cta.b64"], done.slice(s![0..1]));
    }
    apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], done.slice(s![0..1]), 0);
    apply(ptx["st.global.u32"], y.slice(s![t..t + 1]), 1);
}
fn main() {}
