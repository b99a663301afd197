// Rule 3: special registers are read with `mov`; `add` takes registers.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(out: Tensor<u32, 32>) {
    let t = thread_id(0);
    let r = alloc_local::<u32>([1]);
    apply(ptx["mov.u32"], r, 1);
    apply(ptx["add.u32"], r, r, sreg("%laneid"));
    apply(ptx["st.global.u32"], out.slice(s![t..t + 1]), r);
}

fn main() {}
