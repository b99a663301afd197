// The counts the warpgroups end with must fit the registers the CTA starts
// with (384 threads x 168): 128 x 40 + 256 x 240 do not, so an `.inc` would
// wait forever (TK0616).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 384, arch = "sm_90a")]
fn k() {
    if warp_id() / 4 == 2 {
        apply(ptx["setmaxnreg.dec.sync.aligned.u32"], 40, scope = "warpgroup");
    } else {
        apply(ptx["setmaxnreg.inc.sync.aligned.u32"], 240, scope = "warpgroup");
    }
}

fn main() {}
