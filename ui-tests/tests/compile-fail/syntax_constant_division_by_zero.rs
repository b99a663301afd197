// Syntax (TK0024): a constant expression divides by zero.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4 / 0, 1]);
    apply(ptx["ld.global.f32"], r, a);
}

fn main() {}
