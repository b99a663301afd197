// Scalar functions (TK0236): no implicit conversion; an f32 operand meets
// an integer literal.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(x: Tensor<f32, 4>) {
    let r = alloc_local::<f32>([4]);
    apply(ptx["ld.global.v4.f32"], r.reshape([1, 4]), x.reshape([1, 4]));
    ewise(|v: f32| v * 2, r, r);
    apply(ptx["st.global.v4.f32"], x.reshape([1, 4]), r.reshape([1, 4]));
}

fn main() {}
