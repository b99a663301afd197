// Rule 9: `preserve_dst = true` keeps the old destination value, so the
// destination must have been written before.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>, p: bool) {
    let r = alloc_local::<f32>([4, 1]);
    let s = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
    apply(ptx["add.f32"], s, r, r, pred = p, preserve_dst = true);
}

fn main() {}
