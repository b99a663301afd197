// SPEC §6 symbolic dims: the grid may use the symbols of tensor dims only.
use tile_kernel::prelude::*;

#[tile_kernel(grid = ceil_div(M, 256), block = 256)]
fn k(x: Tensor<f32, N>) {}

fn main() {}
