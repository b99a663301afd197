// Rule 9: reading a local tile element no earlier statement wrote.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(out: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["st.global.f32"], out, r);
}

fn main() {}
