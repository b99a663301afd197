// Rule 8: both destinations of the split unpack `mov.b32 {a, b}, d` are the
// same register.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<u32, 1>) {
    let w = alloc_local::<u32>([1]);
    let h = alloc_local::<u16>([1]);
    apply(ptx["ld.global.b32"], w, a);
    apply(ptx["mov.b32"], h, h, w);
}

fn main() {}
