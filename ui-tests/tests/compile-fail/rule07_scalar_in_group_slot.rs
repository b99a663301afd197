// Rule 7: a literal broadcasts only into single-register sources, not into
// the two-register value of `st.global.v2.f32`.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(out: Tensor<f32, 4, 2>) {
    apply(ptx["st.global.v2.f32"], out, 1.0);
}

fn main() {}
