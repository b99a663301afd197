// Rule 7: a literal must fit its operand type (int literal to `.f32`,
// float literal to `.b32`, out-of-range int, a float that overflows `.f32`).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>, b: Tensor<u16, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    let w = alloc_local::<u32>([4, 1]);
    let h = alloc_local::<u16>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
    apply(ptx["ld.global.u16"], h, b);
    apply(ptx["add.f32"], r, r, 1);
    apply(ptx["mov.b32"], w, 1.5);
    apply(ptx["add.u16"], h, h, 65536);
    apply(ptx["mul.f32"], r, r, 1e39);
}

fn main() {}
