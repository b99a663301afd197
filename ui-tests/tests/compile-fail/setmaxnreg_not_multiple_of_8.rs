// `setmaxnreg` counts are multiples of 8 (TK0616; ptxas rejects the PTX).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 384, arch = "sm_90a")]
fn k() {
    if warp_id() / 4 == 2 {
        apply(ptx["setmaxnreg.dec.sync.aligned.u32"], 40, scope = "warpgroup");
    } else {
        apply(ptx["setmaxnreg.inc.sync.aligned.u32"], 228, scope = "warpgroup");
    }
}

fn main() {}
