// Rule 1: `.sat` on a widening integer cvt cannot saturate anything.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<i16, 4, 1>, out: Tensor<i32, 4, 1>) {
    let x = alloc_local::<i16>([4, 1]);
    let y = alloc_local::<i32>([4, 1]);
    apply(ptx["ld.global.s16"], x, a);
    apply(ptx["cvt.sat.s32.s16"], y, x);
    apply(ptx["st.global.s32"], out, y);
}

fn main() {}
