// Rule 1: vector accesses move at most 128 bits.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f64, 2, 4>) {
    let r = alloc_local::<f64>([2, 4]);
    apply(ptx["ld.global.v4.f64"], r, a);
}

fn main() {}
