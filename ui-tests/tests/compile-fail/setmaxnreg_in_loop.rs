// A warpgroup runs one `setmaxnreg`, not one per iteration (TK0617).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 384, arch = "sm_90a")]
fn k(x: Tensor<u32, N>) {
    for i in 0..N {
        if warp_id() / 4 == 2 {
            apply(ptx["setmaxnreg.dec.sync.aligned.u32"], 40, scope = "warpgroup");
        }
    }
}

fn main() {}
