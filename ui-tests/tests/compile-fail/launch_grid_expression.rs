// Launch (TK0605): a grid extent uses `+ - * /`, `ceil_div`, `min` and `max`.
use tile_kernel::prelude::*;

#[tile_kernel(grid = N % 256, block = 256)]
fn k(a: Tensor<f32, N>) {}

fn main() {}
