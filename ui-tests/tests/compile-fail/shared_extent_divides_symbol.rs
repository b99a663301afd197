// A shared extent may divide a size symbol only where a tensor dim makes
// the launcher check the division (TK0613): nothing here requires N to be
// a multiple of 3.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(a: Tensor<f32, N>) {
    let buf = alloc_shared::<f32>([{ N / 3 }]);
    let r = alloc_local::<f32>([1]);
    apply(ptx["ld.global.f32"], r, a.slice(s![0..1]), pred = N > 0);
    apply(ptx["st.shared.f32"], buf.slice(s![0..1]), r, pred = N > 2);
}

fn main() {}
