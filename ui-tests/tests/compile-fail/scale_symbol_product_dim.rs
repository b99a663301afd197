// SPEC §6 symbolic dims: a dim is a simple form of one symbol; a product of
// two symbols is an error at the dim.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(x: Tensor<f32, {N * M}>) {}

fn main() {}
