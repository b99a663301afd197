// Values (TK0512): a divisor must be provably at least 1 (`n` may be 0).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(n: u32) {
    let q = thread_id(0) / n;
}

fn main() {}
