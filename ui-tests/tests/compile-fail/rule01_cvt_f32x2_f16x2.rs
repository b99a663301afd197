// Rule 1: there is no packed widening cvt; the help explains the
// two-scalar-cvt idiom.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(packed: Tensor<u32, 4, 1>, out: Tensor<f32, 4, 2>) {
    let d = alloc_local::<u32>([4, 1]);
    let f = alloc_local::<f32>([4, 2]);
    apply(ptx["ld.global.b32"], d, packed);
    apply(ptx["cvt.f32x2.f16x2"], f, d);
    apply(ptx["st.global.v2.f32"], out, f);
}

fn main() {}
