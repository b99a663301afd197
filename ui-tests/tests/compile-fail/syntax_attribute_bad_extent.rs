// Attribute (TK0005): `block` is an integer or an array of 1 to 3 integers.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = [32, 4, 1, 1])]
fn k(a: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
}

fn main() {}
