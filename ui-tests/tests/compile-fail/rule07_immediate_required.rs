// TK0225: `lop3`'s lookup table is encoded in the instruction: a tile
// cannot be it.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<u32, 4, 1>, out: Tensor<u32, 4, 1>) {
    let x = alloc_local::<u32>([4, 1]);
    let lut = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.u32"], x, a);
    apply(ptx["ld.global.u32"], lut, a);
    apply(ptx["lop3.b32"], x, x, x, x, lut);
    apply(ptx["st.global.u32"], out, x);
}

fn main() {}
