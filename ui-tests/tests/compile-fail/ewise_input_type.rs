// `ewise` (TK0236): an input's dtype is its parameter's type.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(x: Tensor<f32, 4>, y: Tensor<f16, 4>) {
    let r = alloc_local::<f32>([4]);
    let h = alloc_local::<f16>([4]);
    apply(ptx["ld.global.v4.f32"], r.reshape([1, 4]), x.reshape([1, 4]));
    apply(ptx["ld.global.v4.b16"], h.reshape([1, 4]), y.reshape([1, 4]));
    ewise(|a: f32, b: f32| a + b, r, r, h);
    apply(ptx["st.global.v4.f32"], x.reshape([1, 4]), r.reshape([1, 4]));
}

fn main() {}
