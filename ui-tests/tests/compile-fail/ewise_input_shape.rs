// `ewise` (TK0238): inputs have the destination's shape.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(x: Tensor<f32, 4>) {
    let r = alloc_local::<f32>([4]);
    let s = alloc_local::<f32>([2]);
    apply(ptx["ld.global.v4.f32"], r.reshape([1, 4]), x.reshape([1, 4]));
    apply(ptx["ld.global.v2.f32"], s.reshape([1, 2]), x.slice(s![0..2]).reshape([1, 2]));
    ewise(|a: f32, b: f32| a * b, r, r, s);
    apply(ptx["st.global.v4.f32"], x.reshape([1, 4]), r.reshape([1, 4]));
}

fn main() {}
