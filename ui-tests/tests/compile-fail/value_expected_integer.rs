// Values (TK0502): a loop bound is an integer, not a bool.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(p: bool) {
    for i in 0..p {}
}

fn main() {}
