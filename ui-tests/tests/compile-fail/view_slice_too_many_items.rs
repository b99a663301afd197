// Views (TK0119): `s![..]` has at most one item per axis.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r.slice(s![0..4, 0..1, 0..1]), a);
}

fn main() {}
