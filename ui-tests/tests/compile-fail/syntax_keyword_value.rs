// Syntax (TK0016): `preserve_dst` is a literal `true` or `false`.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>, p: bool, keep: bool) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
    apply(ptx["ld.global.f32"], r, a, pred = p, preserve_dst = keep);
}

fn main() {}
