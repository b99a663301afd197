// Attribute (TK0009): `#[tile_kernel]` applies to functions only.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
struct K;

fn main() {}
