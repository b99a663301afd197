// Rule 9: only column 0 of `r` was written; reading column 1 names the
// element in `r`'s own coordinates (`r[0, 1]`), not the view's.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>, out: Tensor<u32, 4, 1>) {
    let r = alloc_local::<f32>([4, 2]);
    let d = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.f32"], r.slice(s![.., 0..1]), a);
    apply(ptx["cvt.rn.f16x2.f32"], d, r.slice(s![.., 1..2]), r.slice(s![.., 0..1]));
    apply(ptx["st.global.b32"], out, d);
}

fn main() {}
