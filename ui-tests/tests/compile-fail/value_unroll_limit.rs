// Values (TK0515): a constant-bound loop unrolls at most 4096 times.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    for i in 0..5000 {
        apply(ptx["ld.global.f32"], r, a);
    }
}

fn main() {}
