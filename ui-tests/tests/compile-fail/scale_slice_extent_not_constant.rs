// SPEC §6 views: slice bounds may be runtime values, but the extent
// (`end - start`) must be a compile-time constant.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 256)]
fn k(x: Tensor<f32, N>, end: u32) {
    let i = thread_id(0);
    let r = alloc_local::<f32>([1]);
    apply(ptx["ld.global.f32"], r, x.slice(s![i..end]));
}

fn main() {}
