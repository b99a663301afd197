// Rule 1: `.ftz` exists only when .f32 is the source or destination.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f64, 4, 1>, out: Tensor<u16, 4, 1>) {
    let r = alloc_local::<f64>([4, 1]);
    let h = alloc_local::<u16>([4, 1]);
    apply(ptx["ld.global.f64"], r, a);
    apply(ptx["cvt.rn.ftz.f16.f64"], h, r);
    apply(ptx["st.global.b16"], out, h);
}

fn main() {}
