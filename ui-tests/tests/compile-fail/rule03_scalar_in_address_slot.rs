// Rule 3: the address of `ld`/`st` is a global tensor, not a scalar.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(n: u64) {
    let r = alloc_local::<u32>([1]);
    apply(ptx["ld.global.u32"], r, n);
}

fn main() {}
