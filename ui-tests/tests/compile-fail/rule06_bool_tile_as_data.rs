// Rule 6: a `bool` tile holds predicate registers, not data: it cannot be
// an `.u32` source (turn it into a number with `selp`), and a number
// cannot be a predicate.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<u32, 1>, out: Tensor<u32, 1>) {
    let w = alloc_local::<u32>([1]);
    let p = alloc_local::<bool>([1]);
    apply(ptx["ld.global.u32"], w, a);
    apply(ptx["setp.ne.u32"], p, w, 0);
    apply(ptx["add.u32"], w, w, p);
    apply(ptx["selp.u32"], w, 1, 0, w);
    apply(ptx["st.global.u32"], out, w);
}

fn main() {}
