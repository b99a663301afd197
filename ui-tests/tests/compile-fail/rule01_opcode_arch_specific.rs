// Rule 1: fp4 conversions exist only on the arch-specific Blackwell
// targets; the default target is sm_90.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 2>, out: Tensor<u8, 4, 1>) {
    let r = alloc_local::<f32>([4, 2]);
    let q = alloc_local::<u8>([4, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(ptx["cvt.rn.satfinite.e2m1x2.f32"], q, r.slice(s![.., 1..2]), r.slice(s![.., 0..1]));
    apply(ptx["st.global.b8"], out, q);
}

fn main() {}
