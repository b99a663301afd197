// Syntax: views are `.slice`, `.view`, `.reshape` and `.unsqueeze`.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 2, 4>) {
    let r = alloc_local::<f32>([4, 2]);
    apply(ptx["ld.global.v2.f32"], r, a.transpose());
}

fn main() {}
