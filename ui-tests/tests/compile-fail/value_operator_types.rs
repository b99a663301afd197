// Values (TK0507): `!` negates bools; integers have no `!` here.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k() {
    let mask = !thread_id(0);
}

fn main() {}
