// Atomicity holds only between atomics of one size at one address (PTX
// memory model): a `.u32` add of the low word and a `.u64` add of the
// same 8 bytes by other threads are a data race (TK0408), although either
// kind alone would be fine.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 4, block = 256)]
fn k(counts: Tensor<u32, 2>) {
    let one = alloc_local::<u32>([1]);
    let wide = alloc_local::<u64>([1]);
    apply(ptx["mov.u32"], one, 1);
    apply(ptx["mov.u64"], wide, 1);
    apply(ptx["red.global.add.u32"], counts.slice(s![0..1]), one);
    apply(ptx["red.global.add.u64"], counts.view::<u64>(), wide);
}

fn main() {}
