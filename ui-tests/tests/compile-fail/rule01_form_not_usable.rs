// TK0224: `ld.shared` is a certified PTX form, but kernels have no
// shared-memory tiles yet, so no operand can be a shared address.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 1, 1>, out: Tensor<f32, 1, 1>) {
    let r = alloc_local::<f32>([1, 1]);
    apply(ptx["ld.shared.f32"], r, a);
    apply(ptx["st.global.f32"], out, r);
}

fn main() {}
