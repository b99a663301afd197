// Values (TK0508): float parameters cannot take part in index arithmetic.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(x: f32) {
    let i = x * 2;
}

fn main() {}
