// Syntax (TK0210): the scopes are "thread", "warp", "warpgroup" and "cta".
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a, scope = "grid");
}

fn main() {}
