// Budgets (TK0607): a local tile holds at most 65536 elements.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([70000, 1]);
    apply(ptx["ld.global.f32"], r.slice(s![0..4, ..]), a);
}

fn main() {}
