// Data flow (TK0303): `v` is loaded only where `keep[0]` held; the loop
// may recompute `keep`, so after it `pred = keep[0]` is another value and
// the store could read `v` where it was never loaded.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 1>, out: Tensor<f32, 1>, n: u32) {
    let v = alloc_local::<f32>([1]);
    let w = alloc_local::<f32>([1]);
    let keep = alloc_local::<bool>([1]);
    apply(ptx["ld.global.f32"], w, a);
    apply(ptx["setp.gt.f32"], keep, w, 0.0);
    apply(ptx["ld.global.f32"], v, a, pred = keep[0]);
    for i in 0..n {
        apply(ptx["setp.lt.f32"], keep, w, 1.0);
    }
    apply(ptx["st.global.f32"], out, v, pred = keep[0]);
}

fn main() {}
