// Views (TK0126): `.unsqueeze(axis)` inserts an axis at a position that exists.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4>) {
    let r = alloc_local::<f32>([4]);
    apply(ptx["ld.global.f32"], r.unsqueeze(5), a.unsqueeze(-1));
}

fn main() {}
