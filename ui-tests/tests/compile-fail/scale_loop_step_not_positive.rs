// SPEC §6 control flow: a runtime loop's step must be provably at least 1
// (`step` may be 0, which would never end).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 256)]
fn k(x: Tensor<f32, N>, step: u32) {
    let r = alloc_local::<f32>([1]);
    for i in (thread_id(0)..N).step_by(step) {
        apply(ptx["ld.global.f32"], r, x.slice(s![i..i + 1]));
    }
}

fn main() {}
