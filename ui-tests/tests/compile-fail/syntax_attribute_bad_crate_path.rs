// Attribute (TK0008): `crate` names the path of the tile_kernel crate.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1, crate = "my engine")]
fn k(a: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
}

fn main() {}
