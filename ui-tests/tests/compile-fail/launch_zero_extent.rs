// Launch (TK0601): grid and block extents are at least 1.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 0)]
fn k(a: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
}

fn main() {}
