// Values (TK0504): only the built-ins can be called.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k() {
    let i = thread_idx(0);
}

fn main() {}
