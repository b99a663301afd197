// Syntax (TK0021): a step (`;2`) applies only to a range item of `s![..]`.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r.slice(s![0;2, ..]), a.slice(s![0..1, ..]));
}

fn main() {}
