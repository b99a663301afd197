// Rule 6 on a memory operand: a [4, 2] u16 tensor holds 32 bits per row but
// is not a 32-bit element; one error, with the `.view::<u32>()` fix.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<u32, 4, 1>, out: Tensor<u16, 4, 2>) {
    let d = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.b32"], d, a);
    apply(ptx["st.global.b32"], out, d);
}

fn main() {}
