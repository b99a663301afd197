// Shared memory (TK0407): `ld.shared` addresses shared memory; `a` is a
// global tensor, which only the `.global` forms address.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 1, 1>, out: Tensor<f32, 1, 1>) {
    let r = alloc_local::<f32>([1, 1]);
    apply(ptx["ld.shared.f32"], r, a);
    apply(ptx["st.global.f32"], out, r);
}

fn main() {}
