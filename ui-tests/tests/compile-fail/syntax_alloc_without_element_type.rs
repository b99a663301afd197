// Syntax (TK0025): `alloc_local` names the element type of its tile.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>) {
    let r = alloc_local([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
}

fn main() {}
