// Launch (TK0603): grid axes y and z have at most 65535 blocks.
use tile_kernel::prelude::*;

#[tile_kernel(grid = [1, 70000], block = 1)]
fn k(a: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
}

fn main() {}
