// SPEC §6: a local tile is registers, so it can only be indexed by constants
// (`v[k]` in a constant-bound loop), never by a runtime value.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 256)]
fn k(x: Tensor<f32, 256>) {
    let i = thread_id(0);
    let v = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], v[i], x.slice(s![i..i + 1]));
}

fn main() {}
