// Values (TK0506): axes are 0, 1 and 2 (x, y, z).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k() {
    let i = thread_id(3);
}

fn main() {}
