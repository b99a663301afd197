// Views (TK0125): a reshape keeps the number of elements.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 2>) {
    let r = alloc_local::<f32>([4, 2]);
    apply(ptx["ld.global.v2.f32"], r.reshape([3, 2]), a);
}

fn main() {}
