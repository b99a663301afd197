// Views (TK0120): a slice step is at least 1 (no reversed views).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r.slice(s![0..4;0, ..]), a);
}

fn main() {}
