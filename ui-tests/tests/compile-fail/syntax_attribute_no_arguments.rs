// Attribute (TK0004): without any arguments the error can only point at the
// whole attribute (a documented call-site error).
use tile_kernel::prelude::*;

#[tile_kernel]
fn k(a: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
}

fn main() {}
