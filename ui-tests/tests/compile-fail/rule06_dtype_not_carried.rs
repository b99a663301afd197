// Rule 6: an `.f32` operand takes f32 or its bit container u32, not i32.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<i32, 4, 1>, out: Tensor<u16, 4, 1>) {
    let x = alloc_local::<i32>([4, 1]);
    let h = alloc_local::<u16>([4, 1]);
    apply(ptx["ld.global.s32"], x, a);
    apply(ptx["cvt.rn.f16.f32"], h, x);
    apply(ptx["st.global.b16"], out, h);
}

fn main() {}
