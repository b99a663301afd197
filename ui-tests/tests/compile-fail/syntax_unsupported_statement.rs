// Syntax: statements are `let`, `apply(..);`, `for` and `if`; `while` and
// `loop` are reported at their head, not over their whole block, and every
// unsupported statement of the kernel is reported.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>, p: bool) {
    let r = alloc_local::<f32>([4, 1]);
    while p {
        apply(ptx["ld.global.f32"], r, a);
    }
    loop {
        apply(ptx["ld.global.f32"], r, a);
    }
    r.store(a);
}

fn main() {}
