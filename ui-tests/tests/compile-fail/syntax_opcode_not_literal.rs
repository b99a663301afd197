// Syntax: the opcode is a string literal, checked at compile time.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx[OPCODE], r, a);
}

fn main() {}
