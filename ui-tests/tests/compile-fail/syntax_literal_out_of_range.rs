// Syntax (TK0018): a float literal must be finite as an `f64`.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
    apply(ptx["mul.f32"], r, r, 1e400);
}

fn main() {}
