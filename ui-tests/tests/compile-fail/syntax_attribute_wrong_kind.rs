// Attribute (TK0006): `arch` is a string like "sm_90".
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1, arch = 90)]
fn k(a: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
}

fn main() {}
