// Values (TK0513): a shift amount must be provably below 64.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(n: u32) {
    let bit = 1 << n;
}

fn main() {}
