// Syntax (TK0017): only literals can be negated in an operand.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>, s: f32) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
    apply(ptx["add.f32"], r, r, -s);
}

fn main() {}
