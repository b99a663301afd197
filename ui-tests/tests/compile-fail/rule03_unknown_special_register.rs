// Rule 3: `sreg(..)` names a special register the form reads; `%laneId` is
// misspelled (PTX names are lower case).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(out: Tensor<u32, 32>) {
    let t = thread_id(0);
    let r = alloc_local::<u32>([1]);
    apply(ptx["mov.u32"], r, sreg("%laneId"));
    apply(ptx["st.global.u32"], out.slice(s![t..t + 1]), r);
}

fn main() {}
