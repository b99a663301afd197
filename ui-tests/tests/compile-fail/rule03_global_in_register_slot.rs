// Rule 3: a global tensor cannot be a register operand.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>, out: Tensor<u16, 4, 1>) {
    let h = alloc_local::<u16>([4, 1]);
    apply(ptx["cvt.rn.f16.f32"], h, a);
    apply(ptx["st.global.b16"], out, h);
}

fn main() {}
