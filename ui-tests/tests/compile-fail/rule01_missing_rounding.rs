// Rule 1: a float narrowing cvt needs a rounding modifier; the help spells
// the nearest legal form.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>, out: Tensor<u16, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    let h = alloc_local::<u16>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
    apply(ptx["cvt.f16.f32"], h, r);
    apply(ptx["st.global.b16"], out, h);
}

fn main() {}
