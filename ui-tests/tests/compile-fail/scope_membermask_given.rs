// Scopes (TK0232): a collective's member mask comes from its scope; the operand is left out.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(a: Tensor<u32, 32, 1>, out: Tensor<u32, 32, 1>) {
    let m = alloc_local::<u32>([32, 1], scope = "warp");
    apply(ptx["ld.global.u32"], m, a, scope = "warp");
    apply(ptx["redux.sync.max.u32"], m, m, 0xffffffff, scope = "warp");
    apply(ptx["st.global.u32"], out, m, scope = "warp");
}

fn main() {}
