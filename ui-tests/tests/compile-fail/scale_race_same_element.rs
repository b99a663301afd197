// SPEC §6 races: all 256 threads store to the same element of `y`.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 256)]
fn k(x: Tensor<f32, 1>, y: Tensor<f32, 1>) {
    let r = alloc_local::<f32>([1]);
    apply(ptx["ld.global.f32"], r, x.slice(s![0..1]));
    apply(ptx["st.global.f32"], y.slice(s![0..1]), r);
}

fn main() {}
