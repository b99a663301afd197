// Signature (TK0101): a tile kernel is a plain `fn` (not `async`, `const`,
// `unsafe`, `extern` or variadic).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
async fn k(a: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
}

fn main() {}
