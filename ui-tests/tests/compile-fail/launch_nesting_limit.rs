// Budget (TK0609): the checker recurses over expressions, so their nesting
// is bounded. A sum of 300 terms is `(((n + n) + n) + ..)`, 300 levels deep
// (at most 256).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(n: u32) {
    let v =
        n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n +
        n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n +
        n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n +
        n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n +
        n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n +
        n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n +
        n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n +
        n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n +
        n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n +
        n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n +
        n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n +
        n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n +
        n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n +
        n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n +
        n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n;
}

fn main() {}
