// Signature (TK0102): tile kernels take no generic parameters.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k<T>(a: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
}

fn main() {}
