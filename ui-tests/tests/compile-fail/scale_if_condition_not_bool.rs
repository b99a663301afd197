// SPEC §6 control flow: an `if` condition is a bool expression, not an integer.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(x: Tensor<f32, 1>, n: u32) {
    let r = alloc_local::<f32>([1]);
    if n {
        apply(ptx["ld.global.f32"], r, x);
    }
}

fn main() {}
