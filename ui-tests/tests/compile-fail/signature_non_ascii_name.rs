// Signature (TK0114): the kernel name becomes the PTX entry name: ASCII only.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn café(a: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
}

fn main() {}
