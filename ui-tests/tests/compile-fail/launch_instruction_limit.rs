// Budgets (TK0608): a kernel expands to at most 2^20 instructions; this
// store repeats over 1,048,577 rows.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 1048577, 1>) {
    apply(ptx["st.global.f32"], a, 1.0);
}

fn main() {}
