// Launch (TK0602): a block holds at most 1024 threads.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = [64, 32])]
fn k(a: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
}

fn main() {}
