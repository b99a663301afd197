// TK0226: `lop3`'s lookup table is 8 bits: 0..=255.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<u32, 4, 1>, out: Tensor<u32, 4, 1>) {
    let x = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.u32"], x, a);
    apply(ptx["lop3.b32"], x, x, x, x, 256);
    apply(ptx["st.global.u32"], out, x);
}

fn main() {}
