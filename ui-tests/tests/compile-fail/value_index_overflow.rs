// Values (TK0510): a value computed from parameters may exceed 2^62.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(n: u32) {
    let cube = n * n * n;
}

fn main() {}
