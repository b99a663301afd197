// Names (TK0117): a tensor is an operand, not a value; its size is a symbol.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, N, 1>) {
    let last = a - 1;
}

fn main() {}
