// Signature (TK0112): a tensor of constant shape holds at most 1 TiB.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 1048576, 1048576>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a.slice(s![0..4, 0..1]));
}

fn main() {}
