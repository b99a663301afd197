// Syntax (TK0017): `f32::PI` is not one of the float constants an operand
// can name.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(y: Tensor<f32, 1>) {
    let r = alloc_local::<f32>([1]);
    apply(ptx["mov.f32"], r, f32::PI);
    apply(ptx["st.global.f32"], y, r);
}

fn main() {}
