// Tiles (TK0118): a local tile has at least one axis (its register axis).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 1>) {
    let r = alloc_local::<f32>([]);
    apply(ptx["ld.global.f32"], r, a);
}

fn main() {}
