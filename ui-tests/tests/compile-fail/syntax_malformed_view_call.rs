// Syntax (TK0020): `.reshape` takes the new shape as an array.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r.reshape(4), a);
}

fn main() {}
