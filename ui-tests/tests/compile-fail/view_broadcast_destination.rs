// Views (TK0234): a broadcast view is read-only.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(x: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    let t = alloc_local::<f32>([1, 1]);
    apply(ptx["ld.global.f32"], r, x);
    apply(ptx["mov.f32"], t.broadcast([4, 1]), r);
    apply(ptx["st.global.f32"], x.slice(s![0..1, ..]), t);
}

fn main() {}
