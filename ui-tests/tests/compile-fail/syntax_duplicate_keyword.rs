// Syntax (TK0015): each keyword argument of `apply` is given once.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>, p: bool) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a, pred = p, pred = !p);
}

fn main() {}
