// Values (TK0511): index division is defined for non-negative values only.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k() {
    let half = (thread_id(0) - 1) / 2;
}

fn main() {}
