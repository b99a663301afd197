// `ewise` (TK0238): it computes in registers; a tensor must be loaded first.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(x: Tensor<f32, 4>, y: Tensor<f32, 4>) {
    let r = alloc_local::<f32>([4]);
    ewise(|v: f32| v * 2.0, r, x);
    apply(ptx["st.global.v4.f32"], y.reshape([1, 4]), r.reshape([1, 4]));
}

fn main() {}
