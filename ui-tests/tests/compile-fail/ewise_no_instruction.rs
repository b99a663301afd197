// Scalar functions (TK0237): PTX has no f16 division.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(y: Tensor<f16, 4>) {
    let h = alloc_local::<f16>([4]);
    apply(ptx["ld.global.v4.b16"], h.reshape([1, 4]), y.reshape([1, 4]));
    ewise(|a: f16, b: f16| a / b, h, h, h);
    apply(ptx["st.global.v4.b16"], y.reshape([1, 4]), h.reshape([1, 4]));
}

fn main() {}
