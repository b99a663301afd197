// Rule 10: a v2.f32 access must be 8-byte aligned; column 1 is at byte 4.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 4>) {
    let r = alloc_local::<f32>([4, 2]);
    apply(ptx["ld.global.v2.f32"], r, a.slice(s![.., 1..3]));
}

fn main() {}
