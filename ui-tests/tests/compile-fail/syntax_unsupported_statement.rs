// Syntax: only `let t = alloc_local..;` and `apply(..);` are statements; a
// loop or `if` is reported at its head, not over its whole block.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>, p: bool) {
    let r = alloc_local::<f32>([4, 1]);
    for i in 0..4 {
        apply(ptx["ld.global.f32"], r, a);
    }
    if p {
        apply(ptx["ld.global.f32"], r, a);
    }
    r.store(a);
}

fn main() {}
