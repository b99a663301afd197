// `ldmatrix` reads a 16-byte row at each lane's address, which must be
// 16-byte aligned: rows 18 bytes apart are not (TK0403).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32, arch = "sm_80")]
fn k(out: Tensor<u32, 32, 4>) {
    let tile = alloc_shared::<u16>([32, 9]);
    let f = alloc_local::<u32>([32, 4], scope = "warp");
    apply(ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], f, tile.slice(s![.., 0..8]), scope = "warp");
    apply(ptx["st.global.v4.b32"], out, f, scope = "warp");
}

fn main() {}
