// SPEC §6 bounds: a slice that is statically out of range is an error at the slice.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(x: Tensor<f32, 4>) {
    let r = alloc_local::<f32>([4]);
    apply(ptx["ld.global.v4.f32"], r, x.slice(s![4..8]));
}

fn main() {}
