// Syntax: parameters are `Tensor<T, dims..>` or scalars.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Vec<f32>, b: &[f32], c: usize) {
}

fn main() {}
