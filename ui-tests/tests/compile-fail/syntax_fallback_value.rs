// Attribute (TK0006): `fallback` takes "scalar".
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1, fallback = "vector")]
fn k(x: Tensor<f32, 4>) {
    let r = alloc_local::<f32>([4]);
    apply(ptx["ld.global.v4.f32"], r.reshape([1, 4]), x.reshape([1, 4]));
    apply(ptx["st.global.v4.f32"], x.reshape([1, 4]), r.reshape([1, 4]));
}

fn main() {}
