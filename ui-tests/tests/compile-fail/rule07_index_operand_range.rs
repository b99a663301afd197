// Rule 7 (TK0233): a size symbol may be up to 2^40 - 1, more than `.u32`
// holds.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(y: Tensor<u32, N>) {
    let t = alloc_local::<u32>([1]);
    apply(ptx["mov.u32"], t, N);
    apply(ptx["st.global.u32"], y.slice(s![0..1]), t);
}

fn main() {}
