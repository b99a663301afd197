// Syntax: `apply` takes only `scope`, `pred` and `preserve_dst` keywords.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>, p: bool) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a, mask = p);
}

fn main() {}
