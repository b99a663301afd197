// SPEC §6 register budget: 120 x 2 f32 registers are more than a thread may use.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 120, 2>) {
    let r = alloc_local::<f32>([120, 2]);
    apply(ptx["ld.global.v2.f32"], r, a);
}

fn main() {}
