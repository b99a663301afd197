// Rule 11: independent mistakes are all reported in one compile, each at its
// own tokens.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 2>, packed: Tensor<u32, 4, 1>, out: Tensor<u32, 4, 1>) {
    let r = alloc_local::<f32>([4, 2]);
    let d = alloc_local::<u32>([4, 1]);
    let f = alloc_local::<f32>([4, 2, 1]);
    apply(ptx["ld.global.v4.f32"], r, a);
    apply(ptx["cvt.f16x2.f32"], d, r.slice(s![.., 1..2]), r.slice(s![.., 0..1]));
    apply(ptx["ld.global.b32"], d, packed);
    apply(ptx["cvt.f32.f16"], f, d.view::<u16>());
    apply(ptx["st.global.b32"], out, dd);
}

fn main() {}
