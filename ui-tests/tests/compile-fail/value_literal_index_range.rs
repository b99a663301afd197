// Values (TK0509): index arithmetic stays below 2^62.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k() {
    let i = thread_id(0) + 9223372036854775807;
}

fn main() {}
