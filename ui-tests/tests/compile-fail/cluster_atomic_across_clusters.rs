// Races (TK0409): a `.cluster` atomic is atomic among the threads of one
// cluster only; here every cluster adds into the same element.
use tile_kernel::prelude::*;

#[tile_kernel(grid = [M, 1, 1], block = 128, cluster = [2, 1, 1], arch = "sm_90")]
fn k(total: Tensor<u32, 1>, x: Tensor<u32, M>) {
    let v = alloc_local::<u32>([1]);
    apply(ptx["ld.global.u32"], v, x.slice(s![cta_id(0)..cta_id(0) + 1]));
    apply(ptx["red.relaxed.cluster.global.add.u32"], total, v);
}

fn main() {}
