// An `.inc` raises the count a thread starts with (168 in a block of 384),
// never lowers it (TK0616).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 384, arch = "sm_90a")]
fn k() {
    if warp_id() / 4 == 2 {
        apply(ptx["setmaxnreg.inc.sync.aligned.u32"], 96, scope = "warpgroup");
    }
}

fn main() {}
