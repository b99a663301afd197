// Rule 6 (TK0217): a runtime integer in a float operand needs a `cvt`.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(x: Tensor<f32, N>, y: Tensor<f32, N>) {
    let r = alloc_local::<f32>([1]);
    apply(ptx["ld.global.f32"], r, x.slice(s![0..1]));
    apply(ptx["div.rn.f32"], r, r, N);
    apply(ptx["st.global.f32"], y.slice(s![0..1]), r);
}

fn main() {}
