// Scopes (TK0228): a warp-scope shared operand may split the lane into
// digits, leading axes that are powers of two whose product is 32; here
// they multiply to 16, then past 32.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32, arch = "sm_80")]
fn k(x: Tensor<u32, 32, 4>, y: Tensor<u32, 32, 4>) {
    let stage = alloc_shared::<bf16>([64, 8]);
    let f = alloc_local::<u32>([32, 4], scope = "warp");
    apply(
        ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"],
        f,
        stage.reshape([2, 2, 4, 4, 8]),
        scope = "warp",
    );
    apply(ptx["st.global.v4.u32"], y, f, scope = "warp");
}

fn main() {}
