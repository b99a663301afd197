// Scopes (TK0228): a warp tile's leading axis binds the 32 lanes of the warp, so its extent must be 32.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(a: Tensor<u32, 32, 4>, out: Tensor<u32, 32, 4>) {
    let v = alloc_local::<u32>([16, 4], scope = "warp");
    apply(ptx["ld.global.v4.u32"], v, a, scope = "warp");
    apply(ptx["st.global.v4.u32"], out, v, scope = "warp");
}

fn main() {}
