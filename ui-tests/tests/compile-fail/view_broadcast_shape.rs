// Views (TK0127): `.broadcast` widens only axes of extent 1.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(x: Tensor<f32, 8, 1>) {
    let r = alloc_local::<f32>([8, 1]);
    let a = alloc_local::<f32>([2, 1]);
    apply(ptx["ld.global.f32"], r, x);
    apply(ptx["ld.global.f32"], a, x.slice(s![0..2, ..]));
    apply(ptx["add.f32"], r, r, a.broadcast([8, 1]));
    apply(ptx["st.global.f32"], x, r);
}

fn main() {}
