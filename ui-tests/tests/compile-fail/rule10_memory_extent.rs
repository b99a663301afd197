// Rule 10: the final axis of a memory operand covers exactly the elements one
// access moves.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 4>) {
    let r = alloc_local::<f32>([4, 2]);
    apply(ptx["ld.global.v2.f32"], r, a);
}

fn main() {}
