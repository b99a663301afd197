// Syntax: symbolic dims are not supported yet.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, N, 2>) {}

fn main() {}
