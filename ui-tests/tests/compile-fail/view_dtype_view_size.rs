// Views (TK0124): `.view::<U>()` regroups the bytes of the final axis, so
// their count must be a multiple of U's size.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<u64, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.u64"], r.view::<u64>(), a);
}

fn main() {}
