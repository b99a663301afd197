// Signature (TK0108): tile and tensor elements are f16, bf16, f32, f64 or
// fixed-width integers.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>) {
    let r = alloc_local::<usize>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
}

fn main() {}
