// Signature (TK0113): a parameter cannot share its name with a size symbol.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, n, 1>, n: u32) {
    let r = alloc_local::<f32>([4, 1]);
    if 4 <= n {
        apply(ptx["ld.global.f32"], r, a.slice(s![0..4, ..]));
    }
}

fn main() {}
