// Rule 7: a scalar cannot be written.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<u32, 4, 1>, n: u32) {
    let x = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.u32"], x, a);
    apply(ptx["add.u32"], n, x, x);
}

fn main() {}
