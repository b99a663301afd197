// `.permute` names axis 1 twice and axis 0 never: not an order of the
// view's axes (TK0133).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 8)]
fn k(x: Tensor<f32, 8, 8>, y: Tensor<f32, 8, 8>) {
    let r = thread_id(0);
    let v = alloc_local::<f32>([8, 1]);
    apply(ptx["ld.global.f32"], v, x.slice(s![.., r..r + 1]));
    apply(ptx["st.global.f32"], y.slice(s![r..r + 1, ..]).permute([1, 1]), v);
}

fn main() {}
