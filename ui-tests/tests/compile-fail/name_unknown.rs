// Names (TK0115): a misspelled tile name, with a suggestion.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>, out: Tensor<f32, 4, 1>) {
    let row = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], row, a);
    apply(ptx["st.global.f32"], out, rows);
}

fn main() {}
