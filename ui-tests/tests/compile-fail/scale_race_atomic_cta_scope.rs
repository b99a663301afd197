// A `.cta` atomic is indivisible only against the threads of its own CTA:
// every CTA of this grid adds into the same counter, so their adds race
// (TK0409). Without `.cta` (the default scope is `.gpu`) it is fine.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 8, block = 128)]
fn k(counter: Tensor<u32, 1>) {
    let one = alloc_local::<u32>([1]);
    apply(ptx["mov.u32"], one, 1);
    apply(ptx["red.cta.global.add.u32"], counter, one);
}

fn main() {}
