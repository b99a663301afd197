// SPEC §6 order independence: coordinate i of this `apply` writes `x[i + 1]`,
// which coordinate i + 1 reads, so the result would depend on the
// expansion order.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<u32, 4, 1>) {
    let x = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.b32"], x, a);
    apply(ptx["mov.b32"], x.slice(s![1..4]), x.slice(s![0..3]));
}

fn main() {}
