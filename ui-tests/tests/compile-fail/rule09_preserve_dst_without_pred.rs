// Rule 9: `preserve_dst = true` is meaningless without `pred`.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
    apply(ptx["add.f32"], r, r, r, preserve_dst = true);
}

fn main() {}
