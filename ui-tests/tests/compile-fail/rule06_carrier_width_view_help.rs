// Rule 6: an f16 pair tile for the `.f16x2` destination has the wrong
// carrier width; a `.view::<u32>()` fixes it.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 2>, out: Tensor<f16, 4, 2>) {
    let r = alloc_local::<f32>([4, 2]);
    let h = alloc_local::<f16>([4, 2]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(ptx["cvt.rn.f16x2.f32"], h, r.slice(s![.., 1..2]), r.slice(s![.., 0..1]));
    apply(ptx["st.global.v2.b16"], out, h);
}

fn main() {}
