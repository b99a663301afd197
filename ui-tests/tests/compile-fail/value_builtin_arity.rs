// Values (TK0505): `thread_id` takes its axis.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k() {
    let i = thread_id();
}

fn main() {}
