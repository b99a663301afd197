// Scopes (TK0211): a warpgroup scope is supported only in a block of exactly one warpgroup (128 threads) for now.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 256)]
fn k(a: Tensor<u32, 256>, out: Tensor<u32, 256>) {
    let t = thread_id(0);
    let m = alloc_local::<u32>([128, 1], scope = "warpgroup");
    apply(ptx["ld.global.u32"], m.slice(s![t % 128, ..]), a.slice(s![t..t + 1]));
    apply(ptx["st.global.u32"], out.slice(s![t..t + 1]), m.slice(s![t % 128, ..]));
}

fn main() {}
