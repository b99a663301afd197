// The consumers' `.inc` waits for the registers the producer's `.dec`
// returns; a barrier between them that the consumers never reach is a
// deadlock (TK0617).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 384, arch = "sm_90a")]
fn k() {
    if warp_id() / 4 < 2 {
        apply(ptx["setmaxnreg.inc.sync.aligned.u32"], 232, scope = "warpgroup");
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    if warp_id() / 4 == 2 {
        apply(ptx["setmaxnreg.dec.sync.aligned.u32"], 40, scope = "warpgroup");
    }
}

fn main() {}
