// `.nc` loads go through the read-only cache: the tensor must not be written
// by the same kernel.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(x: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.nc.f32"], r, x);
    apply(ptx["st.global.f32"], x, r);
}

fn main() {}
