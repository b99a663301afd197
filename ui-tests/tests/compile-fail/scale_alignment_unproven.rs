// SPEC §6 alignment: a v4.f32 access needs a 16-byte aligned offset, but
// `thread_id(0) * 2` elements is only a multiple of 8 bytes.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 256)]
fn k(x: Tensor<f32, 1024>) {
    let r = alloc_local::<f32>([4]);
    let at = thread_id(0) * 2;
    apply(ptx["ld.global.v4.f32"], r, x.slice(s![at..at + 4]));
}

fn main() {}
