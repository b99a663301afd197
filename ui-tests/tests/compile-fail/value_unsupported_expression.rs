// Values (TK0503): casts are not runtime expressions of the tile language.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(out: Tensor<u32, 32, 1>) {
    let i = thread_id(0) as u64;
}

fn main() {}
