// Every warp of a warpgroup runs the same `setmaxnreg`: one thread's is
// not a warpgroup collective.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 384, arch = "sm_90a")]
fn k() {
    if thread_id(0) == 256 {
        apply(ptx["setmaxnreg.dec.sync.aligned.u32"], 40, scope = "warpgroup");
    }
}

fn main() {}
