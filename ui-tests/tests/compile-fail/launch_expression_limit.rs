// Budget (TK0610): products and `let` chains can make a runtime value's
// polynomial grow exponentially; each `let` below squares the one before,
// and `f * f` would have 2145 terms (at most 1024).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = [2, 2, 2])]
fn k() {
    let a = thread_id(0) + thread_id(1) + thread_id(2);
    let b = a * a;
    let c = b * b;
    let d = c * c;
    let e = d * d;
    let f = e * e;
    let g = f * f;
}

fn main() {}
