// Thread 0 alone completes a phase of each of two barriers in turn while
// every thread waits: two iterations later it completes the object's next
// phase while slow threads may still wait for the last, and their parity
// would then name the wrong phase (TK0420).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 128, arch = "sm_90")]
fn k(y: Tensor<u32, 128>, n: u32) {
    let t = thread_id(0);
    let turn = alloc_shared::<Mbarrier>([2]);
    if t == 0 {
        apply(ptx["mbarrier.init.shared::cta.b64"], turn.slice(s![0..2]).reshape([2, 1]), 1);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    for j in 0..n {
        let b = j % 2;
        if t == 0 {
            apply(ptx["mbarrier.arrive.shared::cta.b64"], turn.slice(s![b..b + 1]));
        }
        apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], turn.slice(s![b..b + 1]), (j / 2) % 2);
    }
    apply(ptx["st.global.u32"], y.slice(s![t..t + 1]), 1);
}

fn main() {}
